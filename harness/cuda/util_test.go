// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

import (
	"os"
	"strconv"
	"syscall"
	"testing"
)

func itoa(n int) string { return strconv.Itoa(n) }

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err, "read "+path)
	return string(b)
}

func closeFD(t *testing.T, fd int) {
	t.Helper()
	must(t, syscall.Close(fd), "close exported fd")
}
