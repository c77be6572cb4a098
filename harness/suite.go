// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"syscall"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/checks"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/proc"
	"github.com/p2pconf/p2pconf/kernels"
)

// Main is the suite binary's TestMain body: when the binary was started as a
// helper process (package proc), it runs the helper's role and exits with its
// code; otherwise it checks every setting (a bad one prints one line naming
// it and exits 2, before any spec tree, result or GPU work) and runs the
// tests.
//
//	func TestMain(m *testing.M) { os.Exit(harness.Main(m)) }
func Main(m *testing.M) int {
	if handled, code := proc.Dispatch(); handled {
		return code
	}
	if code := checkSettings(os.Stderr); code != 0 {
		return code
	}
	return m.Run()
}

// RunSuite opens the machine, checks the suite's own definitions (labels,
// IDs, unique names) and runs its specs. Everything that can be wrong with
// the configuration or the driver is reported here, before any spec runs:
// with the cuda backend a driver that cannot be loaded fails the run with the
// loader's message; it never skips to green.
func RunSuite(t *testing.T, suite string) {
	// A filter that does not parse is bad input like a bad setting (exit 2,
	// one line), not Ginkgo's exit 1 of a failed run; one naming a check or
	// suite the catalogue lacks would select nothing here and pass green.
	// Both are found before the machine opens.
	if err := checkLabelFilter(GinkgoLabelFilter()); err != nil {
		fmt.Fprintf(os.Stderr, "p2pconf %s: %v\n", suite, err)
		os.Exit(ExitBadSettings)
	}
	// Ginkgo's parallel workers would run one suite's specs at once on the
	// same GPUs, where every spec assumes it has them to itself (free-memory
	// leak checks, bandwidth): refused like a bad setting.
	sc, _ := GinkgoConfiguration()
	if sc.ParallelTotal > 1 {
		fmt.Fprintf(os.Stderr, "p2pconf %s: ginkgo -p (%d processes) would run this suite's specs at once on the same GPUs; run it without -p (p2pconf run -j N runs suites side by side on disjoint GPUs)\n", suite, sc.ParallelTotal)
		os.Exit(ExitBadSettings)
	}
	// A listing (--ginkgo.dry-run: p2pconf run, plan and preflight list
	// every suite before they plan) runs no spec. Its spec tree needs the
	// machine's GPUs and their claims, not the GPUs' locks, contexts,
	// kernel modules or health watch, whose setup on every GPU would cost
	// each listing a suite process's start and touch GPUs another run may
	// be measuring.
	listing := sc.DryRun
	gomega.RegisterFailHandler(Fail)
	m, err := machine.Open()
	if err != nil {
		t.Fatalf("p2pconf %s: %v", suite, err)
	}
	// Release the GPUs (and the fake's shared state directory) however the
	// run ends, a rejected spec tree included.
	defer func() {
		if err := m.Backend.Close(); err != nil {
			t.Errorf("p2pconf %s: closing the backend: %v", suite, err)
		}
	}()
	if !listing {
		// Exclusive use of the selected GPUs, before any spec runs; a GPU
		// another run holds stops this one here, naming the holder.
		lock, err := machine.LockGPUs(m)
		if err != nil {
			t.Fatalf("p2pconf %s: %v", suite, err)
		}
		defer lock.Release()
		if err := openContexts(m); err != nil {
			t.Fatalf("p2pconf %s: %v", suite, err)
		}
	}
	if probs := validateTree(suite); len(probs) > 0 {
		t.Fatalf("p2pconf %s: the suite's specs break the catalogue rules:\n  %s", suite, strings.Join(probs, "\n  "))
	}
	registerReporting(suite, m)
	if !listing {
		watch := startHealthWatch(m)
		defer watch.stop(suite, os.Stderr)
	}
	registerHealthHooks()
	RunSpecs(t, fmt.Sprintf("%s [%s]", suite, m.Backend.Name()))
}

// openContexts makes the selected GPUs' contexts exist, with the suite's
// kernel modules loaded, before any spec runs (the backend creates a GPU's
// context when the process first works on it, so processes on disjoint GPUs
// stay off each other's, and keeps a module loaded once it is). Creating a
// context opens driver file descriptors and loading a module takes device
// memory (64 KiB on an H200) for good: the per-spec leak checks would
// otherwise charge both to the first spec that uses the GPU or the module.
func openContexts(m *machine.Machine) error {
	gpus := m.GPUs()
	for _, p := range m.Pairs() {
		gpus = append(gpus, p.A, p.B)
	}
	done := map[Device]bool{}
	for _, g := range gpus {
		if done[g.Ordinal] {
			continue
		}
		done[g.Ordinal] = true
		if _, _, err := m.Backend.MemInfo(g.Ordinal); err != nil {
			return fmt.Errorf("opening the context of %s: %w", g, err)
		}
		for _, k := range kernels.All() {
			if k.MinSM > g.Info.ComputeCapability {
				continue
			}
			// The occupancy query loads k's module without running it.
			if _, err := m.Backend.MaxActiveBlocks(g.Ordinal, k, 32); err != nil {
				return fmt.Errorf("loading kernel %s on %s: %w", k, g, err)
			}
		}
		if err := warmExports(m.Backend, g); err != nil {
			return err
		}
	}
	return nil
}

// warmExports exports one allocation through CUDA IPC and, where the GPU
// supports VMM with POSIX descriptors, one through a file descriptor that it
// also maps and grants access to, then frees both. On an H200 (driver 580)
// the first export of each kind, and the first VMM mapping, keep 64 KiB of
// device memory until the context goes (the spec that did them first lost
// it; the ones after did not): the leak checks, which compare free memory
// with a baseline, would charge it to whichever spec came first.
func warmExports(b backend.Backend, g GPU) error {
	d := g.Ordinal
	p, err := b.Alloc(d, 2<<20)
	if err != nil {
		return fmt.Errorf("warming up CUDA IPC on %s: cuMemAlloc: %w", g, err)
	}
	_, ipcErr := b.IPCGetMemHandle(d, p)
	if err := errors.Join(ipcErr, b.Free(d, p)); err != nil {
		return fmt.Errorf("warming up CUDA IPC on %s: %w", g, err)
	}
	vmm, err1 := b.DeviceAttribute(d, backend.AttrVirtualMemoryManagementSupported)
	posix, err2 := b.DeviceAttribute(d, backend.AttrHandleTypePosixFDSupported)
	if err1 != nil || err2 != nil || vmm != 1 || posix != 1 {
		return nil // no descriptor export on this GPU: nothing to warm
	}
	prop := backend.AllocProp{Device: d, HandleTypes: backend.HandlePosix}
	size, err := b.Granularity(d, prop, false)
	if err != nil {
		return fmt.Errorf("warming up VMM export on %s: cuMemGetAllocationGranularity: %w", g, err)
	}
	h, err := b.MemCreate(d, size, prop)
	if err != nil {
		return fmt.Errorf("warming up VMM export on %s: cuMemCreate: %w", g, err)
	}
	fd, expErr := b.ExportFD(d, h)
	if expErr == nil {
		expErr = syscall.Close(fd)
	}
	mapErr := warmMapping(b, d, h, size)
	if err := errors.Join(expErr, mapErr, b.MemRelease(d, h)); err != nil {
		return fmt.Errorf("warming up VMM export on %s: %w", g, err)
	}
	return nil
}

// warmMapping maps h (size bytes) at a reserved address, grants d read and
// write access and takes it all down again.
func warmMapping(b backend.Backend, d Device, h backend.AllocHandle, size uint64) error {
	va, err := b.AddressReserve(d, size, 0)
	if err != nil {
		return fmt.Errorf("cuMemAddressReserve: %w", err)
	}
	err = b.MemMap(d, va, size, h)
	if err == nil {
		err = b.MemSetAccess(d, va, size, []backend.Access{{Device: d, Flags: backend.ProtReadWrite}})
		err = errors.Join(err, b.MemUnmap(d, va, size))
	}
	return errors.Join(err, b.AddressFree(d, va, size))
}

// validateTree builds the spec tree without running it and checks every
// spec's labels against the catalogue, that no check runs twice on the same
// target unless it has variants, each declaring its own variant key, and
// that no two specs share a name.
func validateTree(suite string) []string {
	rep := PreviewSpecs(suite)
	var probs []string
	texts := map[string]int{}
	targets := map[string]map[string]checks.Labels{} // SpecKey -> text -> labels
	for _, s := range rep.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt {
			continue
		}
		text := s.FullText()
		labels := s.Labels()
		probs = append(probs, checks.Validate(text, labels, suite)...)
		texts[text]++
		l := checks.Parse(labels)
		if targets[l.SpecKey()] == nil {
			targets[l.SpecKey()] = map[string]checks.Labels{}
		}
		targets[l.SpecKey()][text] = l
	}
	for t, n := range texts {
		if n > 1 {
			probs = append(probs, fmt.Sprintf("%q is the name of %d specs; names must be unique", t, n))
		}
	}
	for _, specs := range targets {
		for _, l := range specs {
			probs = append(probs, checks.TargetSpecs(l.ID, specs)...)
			break
		}
	}
	sort.Strings(probs)
	return probs
}

// checkLabelFilter is nil for a filter Ginkgo parses whose check and suite
// names are the catalogue's, else an error of one line: Ginkgo's own message
// spans lines and carries colour codes.
func checkLabelFilter(filter string) error {
	if _, err := types.ParseLabelFilter(filter); err != nil {
		why := err.Error()
		var ge types.GinkgoError
		if errors.As(err, &ge) {
			lines := strings.Split(ge.Message, "\n")
			why = strings.TrimSpace(lines[len(lines)-1])
		}
		return fmt.Errorf("label filter %q does not parse: %s (Ginkgo's label-filter syntax)", filter, why)
	}
	return checks.CheckFilterNames(filter)
}
