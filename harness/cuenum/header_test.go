// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuenum

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// oldHeader is the #error text the probe stops with on a pre-13.0 cuda.h,
// which lacks the atomic-operation enums.
const oldHeader = "p2pconf-probe: cuda.h is older than CUDA 13.0"

// TestValuesMatchInstalledHeader checks every pin against a real cuda.h
// where a CUDA 13 toolkit is installed (CUDA_HOME, CUDA_PATH or
// /usr/local/cuda), so the values are tested against the header itself and
// not only against the documentation the pins were copied from. p2pconf does
// not need the toolkit, so elsewhere the test skips.
func TestValuesMatchInstalledHeader(t *testing.T) {
	include := cudaInclude()
	if include == "" {
		t.Skip("no cuda.h under $CUDA_HOME, $CUDA_PATH or /usr/local/cuda: the pins are checked against the documented values only")
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skipf("needs gcc to compile against %s/cuda.h: %v", include, err)
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "probe.c"), filepath.Join(dir, "probe")
	if err := os.WriteFile(src, probeSource(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(gcc, "-I", include, "-o", bin, src).CombinedOutput(); err != nil {
		if bytes.Contains(out, []byte(oldHeader)) {
			t.Skipf("%s/cuda.h is older than CUDA 13.0", include)
		}
		t.Fatalf("compiling the probe against %s/cuda.h: %v\n%s", include, err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("running the probe: %v", err)
	}
	header := parseProbe(t, out)
	for goName, p := range pins {
		if v, ok := header[p.name]; !ok {
			t.Errorf("the probe printed no value for %s", p.name)
		} else if got := value(p.got); got != v {
			t.Errorf("%s = %d, but %s/cuda.h has %s = %d", goName, got, include, p.name, v)
		}
	}
}

// cudaInclude is the first toolkit include directory holding cuda.h, or "".
func cudaInclude() string {
	var dirs []string
	for _, env := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if v := os.Getenv(env); v != "" {
			dirs = append(dirs, filepath.Join(v, "include"))
		}
	}
	for _, d := range append(dirs, "/usr/local/cuda/include") {
		if _, err := os.Stat(filepath.Join(d, "cuda.h")); err == nil {
			return d
		}
	}
	return ""
}

// probeSource is a C program printing "NAME VALUE" for every pinned name.
func probeSource() []byte {
	var names []string
	for _, p := range pins {
		names = append(names, p.name)
	}
	sort.Strings(names)
	var b bytes.Buffer
	fmt.Fprintf(&b, "#include <cuda.h>\n#include <stdio.h>\n#if CUDA_VERSION < 13000\n#error %s\n#endif\nint main(void) {\n", oldHeader)
	for _, n := range names {
		fmt.Fprintf(&b, "\tprintf(\"%%s %%lld\\n\", \"%s\", (long long)(%s));\n", n, n)
	}
	b.WriteString("\treturn 0;\n}\n")
	return b.Bytes()
}

func parseProbe(t *testing.T, out []byte) map[string]int64 {
	t.Helper()
	values := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name, num, ok := strings.Cut(sc.Text(), " ")
		v, err := strconv.ParseInt(num, 10, 64)
		if !ok || err != nil {
			t.Fatalf("probe line %q is not \"NAME VALUE\"", sc.Text())
		}
		values[name] = v
	}
	return values
}
