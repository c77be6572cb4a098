// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package proc_test

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/p2pconf/p2pconf/harness/proc"
)

// A helper's own children count as the run's: Descendants follows the
// parent links down from this process, grandchildren included.
func TestDescendantsOfFindsGrandchildren(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & echo $!; wait")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, _ := bufio.NewReader(out).ReadString('\n')
	grandchild, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the shell's child pid: %q", line)
	}
	defer func() { _ = syscall.Kill(grandchild, syscall.SIGKILL) }()
	d := proc.Descendants(os.Getpid())
	if !d[uint32(cmd.Process.Pid)] || !d[uint32(grandchild)] {
		t.Errorf("descendants %v lack the child %d or the grandchild %d", d, cmd.Process.Pid, grandchild)
	}
	if d[uint32(os.Getpid())] || d[uint32(os.Getppid())] {
		t.Error("this process or its parent counted as a descendant")
	}
}
