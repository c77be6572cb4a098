// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package layout holds the tests that keep the project's structure: one door
// from a spec to the GPU (specs import the harness fixture, never what does
// the GPU work) and a command that does not depend on the test framework.
// The linter's depguard rules say the same for editors; these tests hold in
// every `make test`, with nothing to install.
package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/p2pconf/p2pconf"

// forbiddenInSpecs are the packages behind the fixture: a spec that imports
// one reaches the GPU past the fixture's assertions and cleanups.
var forbiddenInSpecs = []string{
	module + "/harness/backend",
	module + "/harness/cuda",
	module + "/harness/cudabackend",
	module + "/harness/fake",
	// Host words a kernel shares come from harness.HostWord32/64, which
	// check alignment: no spec casts pointers itself.
	"unsafe",
}

// TestSpecsUseOnlyTheFixture parses every Go file under suites/ and fails
// for each import of a package behind the fixture.
func TestSpecsUseOnlyTheFixture(t *testing.T) {
	n := eachSpecFile(t, parser.ImportsOnly, func(rel string, _ *token.FileSet, f *ast.File) {
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbiddenInSpecs {
				if p == bad {
					t.Errorf("%s imports %s: specs reach the GPU through the harness fixture and its re-exports (harness/driver.go)", rel, p)
				}
			}
		}
	})
	t.Logf("%d spec files checked", n)
}

// eachSpecFile parses every Go file under suites/ with mode and calls
// check with its path from the repository root; it returns how many there
// were, and fails when there were none (a check over no files holds
// vacuously).
func eachSpecFile(t *testing.T, mode parser.Mode, check func(rel string, fset *token.FileSet, f *ast.File)) int {
	t.Helper()
	root := filepath.Join("..", "..")
	files := 0
	err := filepath.WalkDir(filepath.Join(root, "suites"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, mode)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		check(rel, fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("found no Go files under suites/: the check would hold vacuously")
	}
	return files
}

// TestSpecsDoNotAskTheBackend parses every Go file under suites/ and fails
// on a spec that branches on which backend runs: a string literal naming
// the fake backend, a comparison with the run's Backend setting, or
// BackendName() inside a condition. What the fake cannot do reaches specs
// as the limits its backend declares (backend.Limits: h.Limits(),
// harness.RunConfig().Limits()), so a spec's behaviour follows a stated
// property, and the same spec reads the same on every backend.
func TestSpecsDoNotAskTheBackend(t *testing.T) {
	eachSpecFile(t, 0, func(rel string, fset *token.FileSet, f *ast.File) {
		bad := func(n ast.Node, what string) {
			t.Errorf("%s:%d: %s: size the work by h.Limits() or harness.RunConfig().Limits(), not by the backend's name", rel, fset.Position(n.Pos()).Line, what)
		}
		callsBackendName := func(e ast.Node) bool {
			found := false
			ast.Inspect(e, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "BackendName" {
					found = true
				}
				return !found
			})
			return found
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if v, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && strings.HasPrefix(v, "fake") {
					bad(n, "a string literal "+n.Value)
				}
			case *ast.SelectorExpr:
				if n.Sel.Name == "Backend" {
					bad(n, "the run's Backend setting")
				}
			case *ast.IfStmt:
				if callsBackendName(n.Cond) {
					bad(n, "BackendName() in a condition")
				}
			case *ast.SwitchStmt:
				if n.Tag != nil && callsBackendName(n.Tag) {
					bad(n, "a switch on BackendName()")
				}
			}
			return true
		})
	})
}

// TestCommandHasNoGinkgo: the p2pconf command reads reports and the machine
// and must build without the test framework (`go list -deps ./cmd/p2pconf`).
// TestCoreHasNoFramework holds the same for the packages it builds on.
func TestCommandHasNoGinkgo(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("needs the go command (found: %v)", err)
	}
	cmd := exec.Command(goTool, "list", "-deps", "./cmd/p2pconf")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/p2pconf: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps ./cmd/p2pconf listed only %d packages:\n%s", len(deps), out)
	}
	for _, d := range deps {
		if strings.Contains(d, "ginkgo") || strings.Contains(d, "gomega") || d == module+"/harness" {
			t.Errorf("cmd/p2pconf depends on %s", d)
		}
	}
}

// TestReportHasNoGPUCode: the report package reads, merges and renders
// reports; the machine reaches it through harness/sysrecord, so neither
// the test framework nor the CUDA binding, the backends, the machine, NVML
// (the backends' NVML view is outside backend.Backend: machine.NVMLOf) nor
// cgo at all are in its dependencies (`go list -deps ./harness/report`).
func TestReportHasNoGPUCode(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("needs the go command (found: %v)", err)
	}
	cmd := exec.Command(goTool, "list", "-deps", "./harness/report")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps ./harness/report: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps ./harness/report listed only %d packages:\n%s", len(deps), out)
	}
	forbidden := map[string]bool{module + "/harness": true, module + "/harness/cuda": true, module + "/harness/cudabackend": true,
		module + "/harness/fake": true, module + "/harness/machine": true, "runtime/cgo": true}
	for _, d := range deps {
		if strings.Contains(d, "ginkgo") || strings.Contains(d, "gomega") || strings.Contains(d, "go-nvml") || forbidden[d] {
			t.Errorf("harness/report depends on %s", d)
		}
	}
}

// ginkgoFree are the packages the p2pconf command and the reproducers
// build on: the litmus model (the suites run it through harness/litmusrun),
// the reports, the reproducers, the machine, the bandwidth settings and
// gate, and the suite builder and runner (internal/suiterun). None may depend on the test
// framework or on the spec fixture (the root harness package), so that
// what the command writes comes from the very model the specs run.
var ginkgoFree = []string{"./harness/litmus", "./harness/report", "./harness/repro", "./harness/machine", "./harness/bandwidth", "./internal/suiterun"}

// noCgo are the packages among them that need no GPU code either: the
// machine opens its backend by name (backend.Open), so neither the cgo
// binding, the cuda backend nor the fake is in their dependencies; the
// reproducers are C and keep the binding's shim header.
var noCgo = map[string]bool{"./harness/litmus": true, "./harness/report": true, "./harness/machine": true, "./harness/bandwidth": true, "./internal/suiterun": true}

// TestCoreHasNoFramework: `go list -deps` of each package in ginkgoFree
// lists neither Ginkgo, Gomega nor the root harness package, and for those
// in noCgo no backend and no CUDA binding.
func TestCoreHasNoFramework(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("needs the go command (found: %v)", err)
	}
	for _, pkg := range ginkgoFree {
		cmd := exec.Command(goTool, "list", "-deps", pkg)
		cmd.Dir = filepath.Join("..", "..")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 || deps[len(deps)-1] != module+strings.TrimPrefix(pkg, ".") {
			t.Fatalf("go list -deps %s listed %d packages, not ending in the package itself:\n%s", pkg, len(deps), out)
		}
		for _, d := range deps {
			gpuCode := d == module+"/harness/cuda" || d == module+"/harness/cudabackend" || d == module+"/harness/fake"
			if strings.Contains(d, "ginkgo") || strings.Contains(d, "gomega") || d == module+"/harness" || (noCgo[pkg] && gpuCode) {
				t.Errorf("%s depends on %s", strings.TrimPrefix(pkg, "./"), d)
			}
		}
	}
}
