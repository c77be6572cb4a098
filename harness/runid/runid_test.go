// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package runid

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// With envRole set the test binary prints its run ID; with "nest" it first
// starts one more child and prints that child's.
const envRole = "RUNID_TEST_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(envRole) {
	case "print":
		fmt.Println(Current())
		os.Exit(0)
	case "nest":
		out, err := child("print")
		if err != nil {
			os.Exit(1)
		}
		fmt.Print(out)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func child(role string) (string, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envRole+"="+role, Env+"=")
	out, err := cmd.Output()
	return string(out), err
}

// TestChildrenOfOneCommandShareARun: the suites one go test or ginkgo
// starts are children of that command and share a run ID; a process
// started by another command has another.
func TestChildrenOfOneCommandShareARun(t *testing.T) {
	a, err1 := child("print")
	b, err2 := child("print")
	c, err3 := child("nest")
	if err1 != nil || err2 != nil || err3 != nil {
		t.Fatal(err1, err2, err3)
	}
	if a != b || strings.TrimSpace(a) == "" {
		t.Errorf("two children of one process: %q and %q, want one run ID", a, b)
	}
	if c == a {
		t.Errorf("a grandchild has its parent's siblings' run ID %q", c)
	}
	t.Setenv(Env, "explicit")
	if Current() != "explicit" {
		t.Errorf("%s is not used", Env)
	}
}
