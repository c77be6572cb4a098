// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The stub libcuda.so.1 (testdata/fakecuda.c) is built once per test binary
// into stubDir, which TestMain removes.
var (
	stubDir    string
	stubBuilds sync.Map // variant → *stubBuild
)

type stubBuild struct {
	once sync.Once
	path string
	err  error
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "p2pconf-fakecuda-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	stubDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// stubLibrary builds the stub (variant "" or "nogpa") and returns its path,
// skipping the test when no C compiler is available.
func stubLibrary(t testing.TB, variant string) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skipf("needs gcc to build the stub libcuda.so.1 (found: %v)", err)
	}
	v, _ := stubBuilds.LoadOrStore(variant, &stubBuild{})
	b := v.(*stubBuild)
	b.once.Do(func() {
		dir := filepath.Join(stubDir, "stub"+variant)
		b.path = filepath.Join(dir, "libcuda.so.1")
		args := []string{"-shared", "-fPIC", "-O1", "-Wall", "-pthread", "-fvisibility=hidden", "-o", b.path, filepath.Join("testdata", "fakecuda.c")}
		if variant == "nogpa" {
			args = append(args, "-DFAKECUDA_NO_GETPROCADDRESS")
		}
		if b.err = os.MkdirAll(dir, 0o755); b.err != nil {
			return
		}
		if out, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("gcc %v: %v\n%s", args, err, out)
		}
	})
	if b.err != nil {
		t.Fatalf("building the stub libcuda: %v", b.err)
	}
	return b.path
}

// loadStub loads the stub with the given FAKECUDA_* settings and a fresh
// call log, and initialises it. The driver is closed when the test ends,
// which unloads the stub so the next test starts from clean stub state.
func loadStub(t *testing.T, env ...string) (*Driver, string) {
	t.Helper()
	path := stubLibrary(t, "")
	logPath := filepath.Join(t.TempDir(), "calls.log")
	for _, k := range []string{"FAKECUDA_DRIVER_VERSION", "FAKECUDA_DEVICES", "FAKECUDA_INIT_RESULT", "FAKECUDA_NO_P2P", "FAKECUDA_PENDING_POLLS"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	t.Setenv("FAKECUDA_LOG", logPath)
	for i := 0; i+1 < len(env); i += 2 {
		t.Setenv(env[i], env[i+1])
	}
	d, err := Load(path)
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if err := d.Init(); err != nil {
		t.Fatalf("Init: %v", err)
	}
	return d, logPath
}

// retain retains dev's primary context for the rest of the test.
func retain(t *testing.T, d *Driver, dev Device) *Context {
	t.Helper()
	c, err := d.RetainPrimaryContext(dev)
	if err != nil {
		t.Fatalf("RetainPrimaryContext(%d): %v", dev, err)
	}
	t.Cleanup(func() {
		if err := c.Release(); err != nil && !errors.Is(err, ErrReleased) {
			t.Errorf("Release(%d): %v", dev, err)
		}
	})
	return c
}

// in runs f in c and fails the test on error.
func in(t *testing.T, c *Context, f func() error) {
	t.Helper()
	if err := c.Do(f); err != nil {
		t.Fatalf("in context of device %d: %v", c.Device(), err)
	}
}

// must fails the test when err is not nil.
func must(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
