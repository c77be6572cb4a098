// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/checks"
	"github.com/p2pconf/p2pconf/harness/cuda"
	"github.com/p2pconf/p2pconf/kernels"
)

// The reproducers are built with the host's C compiler and run against the
// binding's stub libcuda.so.1 (harness/cuda/testdata/fakecuda.c), whose
// FAKECUDA_DEFECT settings make it violate one check each.

// violatingDefect is, for every reproducible check, the stub misbehaviour
// that its reproducer must catch (exit 1).
var violatingDefect = map[string]string{
	"access.self-is-not-a-peer":              "self-peer",
	"access.uva-owner":                       "uva-owner-wrong",
	"access.peer-copy":                       "peer-copy-corrupts",
	"access.local-copy":                      "copy-corrupts",
	"access.staged-copy":                     "copy-corrupts",
	"access.kernel-remote-read":              "peer-access-ignored",
	"access.kernel-remote-write":             "peer-access-ignored",
	"access.enable-covers-allocations":       "peer-access-ignored",
	"access.enable-is-directional":           "enable-is-bidirectional",
	"access.enable-errors":                   "disable-keeps-access",
	"access.host-mapped":                     "host-devptr-offset",
	"atomics.capability-report":              "atomic-masks-zero",
	"ordering.cross-device-event-handoff":    "peer-copy-corrupts",
	"ordering.elapsed-time-across-devices":   "elapsed-time-across-devices",
	"ordering.source-reuse-after-completion": "peer-copy-deferred",
	"ordering.submission-is-not-completion":  "event-complete-early",
	"ordering.host-device-handoff":           "handoff-stale",
	"vmm.granularity":                        "vmm-create-any-size",
	"vmm.fd-number-is-not-a-handle":          "fd-number-imports",
	"vmm.no-access-until-set":                "vmm-access-before-set",
	"vmm.peer-access-grant":                  "vmm-grant-ignored",
	"vmm.read-only-access":                   "vmm-read-only-writable",
	"vmm.access-is-per-range":                "vmm-access-per-allocation",
	"vmm.fd-export-import":                   "vmm-import-private",
	"vmm.release-while-mapped":               "vmm-release-frees",
	"vmm.import-outlives-exporter-release":   "vmm-release-frees-imported",
	"ipc.same-process-open-rejected":         "ipc-same-process-opens",
	"ipc.event-flags":                        "ipc-event-flags-ignored",
	"ipc.mem-handle-roundtrip":               "ipc-import-private",
	"ipc.raw-pointer-is-not-a-handle":        "ipc-handle-unchecked",
	"ipc.close-then-free":                    "ipc-close-clobbers",
	"ipc.importer-killed":                    "ipc-exported-unfreeable",
	"ipc.event-handoff":                      "ipc-import-private",
	"ordering.litmus":                        "litmus-weak",
	"atomics.counter-as-flag":                "counter-before-data",
	"atomics.intra-gpu-sys-rmw":              "atomic-lost-update",
	"atomics.concurrent-sys-rmw":             "atomic-lost-update",
	"atomics.host-native":                    "atomic-lost-update",
	"ordering.flag-handoff-sys":              "mp-stale",
}

// testVariant and testEnv are, for a check whose stub emulation needs more
// than a defect, the spec TestReproducers selects and the stub settings it
// runs under: the stub counts every litmus instance in one bin, so the test
// takes MP, whose bin 4 (r0=1 r1=1: the flag seen, the data new) is
// sequential and whose bin 1 (r0=1 r1=0) is the forbidden outcome; "on"
// keeps the variants with a third register ("also weak x ...", whose bins
// mean other outcomes) out.
var (
	testVariant = map[string]string{"ordering.litmus": "MP rel.sys/acq.sys on"}
	testEnv     = map[string][]string{"ordering.litmus": {"FAKECUDA_LITMUS_BIN=4", "FAKECUDA_LITMUS_WEAK_BIN=1"}}
)

var (
	stubOnce sync.Once
	stubDir  string
	stubErr  error
)

// compiler returns the C compiler the tests use, or skips.
func compiler(t *testing.T) string {
	t.Helper()
	for _, cc := range []string{os.Getenv("CC"), "cc", "gcc"} {
		if cc == "" {
			continue
		}
		if p, err := exec.LookPath(cc); err == nil {
			return p
		}
	}
	t.Skip("needs a C compiler (cc or gcc) to build the reproducers")
	return ""
}

// stub builds the stub libcuda.so.1 once and returns its directory.
func stub(t *testing.T) string {
	t.Helper()
	cc := compiler(t)
	stubOnce.Do(func() {
		stubDir, stubErr = os.MkdirTemp("", "p2pconf-repro-stub-")
		if stubErr != nil {
			return
		}
		src, _ := filepath.Abs(filepath.Join("..", "cuda", "testdata", "fakecuda.c"))
		out, err := exec.Command(cc, "-shared", "-fPIC", "-O1", "-Wall", "-pthread", "-fvisibility=hidden",
			"-o", filepath.Join(stubDir, "libcuda.so.1"), src).CombinedOutput()
		if err != nil {
			stubErr = fmt.Errorf("building the stub: %v\n%s", err, out)
		}
	})
	if stubErr != nil {
		t.Fatal(stubErr)
	}
	return stubDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if stubDir != "" {
		os.RemoveAll(stubDir)
	}
	os.Exit(code)
}

// build compiles source as a reproducer is built (plus -Wall -Werror).
func build(t *testing.T, name, source string) string {
	t.Helper()
	cc := compiler(t)
	dir := t.TempDir()
	src := filepath.Join(dir, name+".c")
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, name)
	if out, err := exec.Command(cc, "-O2", "-Wall", "-Werror", "-o", bin, src, "-ldl").CombinedOutput(); err != nil {
		t.Fatalf("%s does not compile with -Wall -Werror: %v\n%s", name, err, out)
	}
	return bin
}

// run runs a reproducer against the stub with the given FAKECUDA settings,
// its processes counting VMM memory device-wide in a folder of their own
// (FAKECUDA_SHARED_DIR), as one GPU's driver does.
func run(t *testing.T, bin string, env ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = append([]string{"LD_LIBRARY_PATH=" + stub(t), "FAKECUDA_FREE_MIB=1024", "FAKECUDA_REALISTIC=1",
		"FAKECUDA_SHARED_DIR=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	}
	t.Fatalf("running %s: %v\n%s", bin, err, out)
	return -1, ""
}

// targetFor is the target the tests use for a check: the pair 0-1 where the
// check runs on pairs, else GPU 1 (not 0, so that a GPU number that never
// reaches the driver shows).
func targetFor(c checks.Check) Target {
	if c.AllowsScope(checks.OnPair) {
		return Pair(0, 1)
	}
	return GPU(1)
}

func TestCatalogueAndRecipesAgree(t *testing.T) {
	for _, c := range checks.All() {
		_, has := recipes[c.ID]
		if c.Reproducible != has {
			t.Errorf("%s: the catalogue says reproducible=%v but a recipe exists=%v", c.ID, c.Reproducible, has)
		}
	}
	for id := range recipes {
		if _, ok := checks.Lookup(id); !ok {
			t.Errorf("recipe for %s, which is not in the catalogue", id)
		}
	}
	for _, id := range Checks() {
		if _, ok := violatingDefect[id]; !ok {
			t.Errorf("%s has a reproducer but no stub defect that it must catch (violatingDefect)", id)
		}
	}
}

// TestReproducers builds every reproducer the catalogue promises with
// -Wall -Werror and runs it against the stub three times: conforming
// (exit 0), with the defect it must catch (exit 1) and on a driver too old
// to have the entry points (exit 2).
func TestReproducers(t *testing.T) {
	for _, id := range Checks() {
		t.Run(id, func(t *testing.T) {
			c, _ := checks.Lookup(id)
			tg := targetFor(c)
			f, err := Generate(id, tg, testVariant[id])
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(f.Source, BuildLine) {
				t.Errorf("the file does not carry the build line %q", BuildLine)
			}
			bin := build(t, strings.TrimSuffix(f.Name, ".c"), f.Source)

			code, out := run(t, bin, testEnv[id]...)
			if code != ExitConforms || !strings.Contains(out, "RESULT: conforms") {
				t.Errorf("on the conforming stub: exit %d, want 0\n%s", code, out)
			}
			// A real driver answers NOT_READY while work runs: every wait
			// must poll through it (the stub's queries say so 3 times).
			code, out = run(t, bin, append(testEnv[id], "FAKECUDA_PENDING_POLLS=3")...)
			if code != ExitConforms || !strings.Contains(out, "RESULT: conforms") {
				t.Errorf("on the conforming stub whose work takes 3 polls: exit %d, want 0\n%s", code, out)
			}
			code, out = run(t, bin, append(testEnv[id], "FAKECUDA_DEFECT="+violatingDefect[id])...)
			if code != ExitViolation || !strings.Contains(out, "VIOLATION: ") {
				t.Errorf("on the stub with defect %s: exit %d, want 1 and a VIOLATION line\n%s", violatingDefect[id], code, out)
			}
			code, out = run(t, bin, "FAKECUDA_DRIVER_VERSION=3000")
			if code != ExitCannotRun || !strings.Contains(out, "CANNOT RUN: ") || !strings.Contains(out, "does not provide") {
				t.Errorf("on a driver for CUDA 3.0: exit %d, want 2 naming the missing entry point\n%s", code, out)
			}
		})
	}
}

func TestMissingEntryPointOfTheCheckItself(t *testing.T) {
	f, err := Generate("atomics.capability-report", Pair(0, 1), "")
	if err != nil {
		t.Fatal(err)
	}
	bin := build(t, "caps", f.Source)
	code, out := run(t, bin, "FAKECUDA_DRIVER_VERSION=12080")
	if code != ExitCannotRun || !strings.Contains(out, "cuDeviceGetP2PAtomicCapabilities at the CUDA 13.0 ABI") {
		t.Errorf("on a CUDA 12.8 driver: exit %d, want 2 naming cuDeviceGetP2PAtomicCapabilities\n%s", code, out)
	}
}

func TestPeerCopyViolationIsReportedInTheSuitesWords(t *testing.T) {
	f, err := Generate("access.peer-copy", Pair(0, 1), "access: cuMemcpyPeerAsync moves 4 KiB + 12 B and exactly, without peer access")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Specs) != 1 {
		t.Fatalf("the variant selected %d specs, want 1: %q", len(f.Specs), f.Specs)
	}
	bin := build(t, "peer-copy", f.Source)
	code, out := run(t, bin, "FAKECUDA_DEFECT=peer-copy-corrupts")
	want := "VIOLATION: GPU1's buffer after cuMemcpyPeerAsync of 4108 bytes from GPU0 without peer access (read through GPU1): 1 of 1027 words differ; first at word 513 (byte offset 0x804)"
	if code != ExitViolation || !strings.Contains(out, want) {
		t.Errorf("exit %d, want 1 and %q in\n%s", code, want, out)
	}
}

func TestVariantSelection(t *testing.T) {
	for _, tc := range []struct {
		variant string
		want    int
	}{
		{"", 10},
		{"access: cuMemcpyPeerAsync moves 64 MiB and exactly, with peer access enabled", 1},
		{"cuMemcpyPeerAsync moves 64 MiB GPU0→GPU1 and GPU1→GPU0 exactly, with peer access GPU0→GPU1 enabled", 1},
		{"4 GiB + 12 B", 2},
		{"without peer access", 5},
		{"4kib-12b-peer", 1}, // the report's variant key
		{"64mib-4kib-7b-at-3-7-no-peer", 1},
	} {
		f, err := Generate("access.peer-copy", Pair(0, 1), tc.variant)
		if err != nil || len(f.Specs) != tc.want {
			t.Errorf("--variant %q: %d specs (%v), want %d", tc.variant, len(f.Specs), err, tc.want)
		}
	}
	if _, err := Generate("access.peer-copy", Pair(0, 1), "no such spec"); err == nil || !strings.Contains(err.Error(), "selects no spec") {
		t.Errorf("an unknown variant: %v, want an error listing the specs", err)
	}
	if _, err := Generate("access.peer-copy", GPU(0), ""); err == nil {
		t.Error("a pair check on one GPU: no error")
	}
	if _, err := Generate("bandwidth.latency", Pair(0, 1), ""); err == nil || !strings.Contains(err.Error(), "informational") {
		t.Errorf("a check without reproducer: %v, want the catalogue's reason", err)
	}
}

// TestDataMatchesTheHarness checks that the C runtime's seeded data is the
// harness's: harness.Seed, harness.RandomWords and kernels.PatternWord.
func TestDataMatchesTheHarness(t *testing.T) {
	for _, parts := range [][]any{{"access.peer-copy", "0-1", "4 B", "without peer access"}, {"access.local-copy", "GPU0", "4 GiB + 12 B"}} {
		if got, want := seed(parts...), harness.Seed(parts...); got != want {
			t.Errorf("seed%q = %d, harness.Seed = %d", parts, got, want)
		}
	}
	// Two GPU values in a row: fmt.Sprint puts a space between them.
	if got, want := seed("ordering.submission-is-not-completion", gpuName(0), gpuName(1)),
		harness.Seed("ordering.submission-is-not-completion", harness.GPU{Ordinal: 0}, harness.GPU{Ordinal: 1}); got != want {
		t.Errorf("seed of two GPUs = %d, harness.Seed = %d", got, want)
	}
	const s = 0x0123456789abcdef
	src := "#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n#include <unistd.h>\n" +
		cuda.ShimHeader + cuda.EntriesHeader + "#define TIMEOUT_S 1\n" + runtimeC + fmt.Sprintf(`
int main(void) {
	uint32_t w[6];
	random_words(%dull, w, 6);
	for (int i = 0; i < 6; i++) printf("%%08x ", w[i]);
	printf("| %%08x %%08x\n", pattern_word(0xabcdef01u, 7), pattern_word(5, 0x100000003ull));
	return 0;
}
`, uint64(s))
	out, err := exec.Command(build(t, "data", src)).Output()
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, w := range harness.RandomWords(s, 6) {
		fmt.Fprintf(&want, "%08x ", w)
	}
	fmt.Fprintf(&want, "| %08x %08x\n", kernels.PatternWord(0xabcdef01, 7), kernels.PatternWord(5, 0x100000003))
	if string(out) != want.String() {
		t.Errorf("C runtime data:\n%s\nharness data:\n%s", out, want.String())
	}
}

// TestCapabilityReportInTheSuitesWords checks the H200 observation (NATIVE=1,
// every mask 0) reads as the suite's failure does.
func TestCapabilityReportInTheSuitesWords(t *testing.T) {
	f, err := Generate("atomics.capability-report", Pair(0, 1), "")
	if err != nil {
		t.Fatal(err)
	}
	code, out := run(t, build(t, "caps", f.Source), "FAKECUDA_DEFECT=atomic-masks-zero")
	want := "VIOLATION: GPU0→GPU1: CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED=1 (every atomic native) but cuDeviceGetP2PAtomicCapabilities does not cover every operation with all its types: INTEGER_ADD=0, INTEGER_MIN=0, INTEGER_MAX=0, INTEGER_INCREMENT=0, INTEGER_DECREMENT=0, AND=0, OR=0, XOR=0, EXCHANGE=0, CAS=0, FLOAT_ADD=0, FLOAT_MIN=0, FLOAT_MAX=0\n"
	if code != ExitViolation || !strings.Contains(out, want) {
		t.Errorf("exit %d, want 1 and %q in\n%s", code, want, out)
	}
	if !strings.Contains(out, "INTEGER_ADD            SIGNED|UNSIGNED") && !strings.Contains(out, "INTEGER_ADD            0 ") {
		t.Errorf("the masks are not printed beside the attributes:\n%s", out)
	}
}

// TestRunAllAndTheInterposer runs run-all.sh over three reproducers against
// the stub, then --interposed with the stub as the "real" driver: the
// peer-copy and the local-copy reproducer, which conform without it, must
// each catch the dropped byte; and on one GPU the local-copy one alone.
func TestRunAllAndTheInterposer(t *testing.T) {
	compiler(t)
	lib := stub(t)
	dir := t.TempDir()
	write := func(dir, name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	local, err := Generate("access.local-copy", GPU(0), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct {
		id string
		t  Target
	}{{"access.peer-copy", Pair(0, 1)}, {"access.uva-owner", GPU(0)}} {
		f, err := Generate(g.id, g.t, "")
		if err != nil {
			t.Fatal(err)
		}
		write(dir, f.Name, f.Source)
	}
	oneGPU := t.TempDir()
	for _, d := range []string{dir, oneGPU} {
		write(d, local.Name, local.Source)
		write(d, "run-all.sh", RunAllScript)
		write(d, "interpose.c", InterposeC)
	}
	env := append(os.Environ(), "LD_LIBRARY_PATH="+lib, "FAKECUDA_FREE_MIB=1024", "FAKECUDA_REALISTIC=1")
	cmd := exec.Command("sh", filepath.Join(dir, "run-all.sh"), "60")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "conforms: 3  violation: 0  cannot run: 0  broken or timed out: 0") {
		t.Errorf("run-all.sh on the stub: %v\n%s", err, out)
	}
	interposed := append(env, "P2PCONF_REAL_LIBCUDA="+filepath.Join(lib, "libcuda.so.1"))
	cmd = exec.Command("sh", filepath.Join(dir, "run-all.sh"), "--interposed", "60")
	cmd.Env = interposed
	out, err = cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "violations caught: 2  missed: 0") {
		t.Errorf("run-all.sh --interposed on the stub: %v\n%s", err, out)
	}
	for _, name := range []string{"access.peer-copy_0-1", "access.local-copy_0"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s+1  caught: \S`).Match(out) {
			t.Errorf("run-all.sh --interposed: no row of %s exiting 1 with its violation:\n%s", name, out)
		}
	}
	cmd = exec.Command("sh", filepath.Join(oneGPU, "run-all.sh"), "--interposed", "60")
	cmd.Env = append(interposed, "FAKECUDA_DEVICES=1")
	out, err = cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "violations caught: 1  missed: 0") {
		t.Errorf("run-all.sh --interposed on one GPU: %v\n%s", err, out)
	}
}

// TestVariantKeysAreTheSuites checks every reproducer's variant keys against
// the specs the suites ran on the fake two-GPU machine (the selftest's
// reviewed expectation, keyed by check, target and variant key): a key
// there must select the reproducer's spec, so a report's --variant works.
func TestVariantKeysAreTheSuites(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "cmd", "selftest", "testdata", "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var oracle map[string]map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b, &oracle); err != nil {
		t.Fatal(err)
	}
	suiteKeys := map[string]bool{}
	for _, specs := range oracle["h200x2"] {
		for k := range specs {
			suiteKeys[k] = true
		}
	}
	checked := 0
	for _, id := range Checks() {
		for _, tg := range []Target{GPU(0), Pair(0, 1)} {
			r := recipes[id]
			c, _ := checks.Lookup(id)
			if !c.AllowsScope(tg.scope()) {
				continue
			}
			label := "gpu:" + tg.ID()
			if tg.Pair {
				label = "pair:" + tg.ID()
			}
			specs := r.specs(tg)
			for _, s := range specs {
				switch {
				case s.key == "" && len(specs) > 1:
					t.Errorf("%s on %s: spec %q has no variant key", id, tg, s.name)
				case s.key != "" && !suiteKeys[id+" "+label+" variant:"+s.key]:
					t.Errorf("%s on %s: variant %q (%q) is no spec the suite ran on h200x2", id, tg, s.key, s.name)
				case s.key != "":
					checked++
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no variant key checked")
	}
}
