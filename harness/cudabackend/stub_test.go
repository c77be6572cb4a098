// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cudabackend

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The backend is tested over the binding's stub libcuda.so.1
// (harness/cuda/testdata/fakecuda.c), built once per test binary.
var stub struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if stub.dir != "" {
		os.RemoveAll(stub.dir)
	}
	os.Exit(code)
}

func stubLibrary(t *testing.T) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skipf("needs gcc to build the stub libcuda.so.1 (found: %v)", err)
	}
	stub.once.Do(func() {
		if stub.dir, stub.err = os.MkdirTemp("", "p2pconf-cudabackend-"); stub.err != nil {
			return
		}
		stub.path = filepath.Join(stub.dir, "libcuda.so.1")
		src := filepath.Join("..", "cuda", "testdata", "fakecuda.c")
		args := []string{"-shared", "-fPIC", "-O1", "-Wall", "-pthread", "-fvisibility=hidden", "-o", stub.path, src}
		if out, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
			stub.err = fmt.Errorf("gcc %v: %v\n%s", args, err, out)
		}
	})
	if stub.err != nil {
		t.Fatalf("building the stub libcuda: %v", stub.err)
	}
	return stub.path
}

// openStub opens the backend over the stub with the given FAKECUDA_*
// settings and no NVML, and closes it when the test ends. The stub stays
// loaded between tests (the backend never unloads libcuda), so each test
// frees what it allocates.
func openStub(t *testing.T, env ...string) (*Backend, string) {
	t.Helper()
	path := stubLibrary(t)
	logPath := filepath.Join(t.TempDir(), "calls.log")
	for _, k := range []string{"FAKECUDA_DRIVER_VERSION", "FAKECUDA_DEVICES", "FAKECUDA_INIT_RESULT", "FAKECUDA_NO_P2P", "FAKECUDA_PENDING_POLLS"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	t.Setenv("FAKECUDA_LOG", logPath)
	for i := 0; i+1 < len(env); i += 2 {
		t.Setenv(env[i], env[i+1])
	}
	b, err := Open(path, WithNVML(nil))
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b, logPath
}

func must(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
