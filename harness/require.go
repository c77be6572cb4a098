// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// Requirements skip a spec the machine cannot run, with a reason of the form
// "needs X (found Y)" where Y quotes the source. A query that fails is a
// failure, never a skip: "could not tell" is not "not applicable".

// RequirePeerAccess skips unless cuDeviceCanAccessPeer(A, B) is 1.
func (h *Harness) RequirePeerAccess(p Pair) {
	GinkgoHelper()
	ok, err := h.b.CanAccessPeer(p.A.Ordinal, p.B.Ordinal)
	ExpectNoError(err, "cuDeviceCanAccessPeer(%s, %s)", p.A, p.B)
	if !ok {
		Skip(fmt.Sprintf("needs peer access %s (found cuDeviceCanAccessPeer=0, NVML read=%s)", p, orUnknown(string(p.Claims.NVML.Read))))
	}
}

// RequireAttribute skips unless g's attribute equals want.
func (h *Harness) RequireAttribute(g GPU, attr backend.DeviceAttr, want int) {
	GinkgoHelper()
	v := h.Attribute(g, attr)
	if v != want {
		Skip(fmt.Sprintf("needs %s=%d on %s (found %s=%d)", attr, want, g, attr, v))
	}
}

// RequireP2PAttribute skips unless the P2P attribute of p equals want.
func (h *Harness) RequireP2PAttribute(p Pair, attr backend.P2PAttr, want int) {
	GinkgoHelper()
	v, err := h.b.P2PAttribute(attr, p.A.Ordinal, p.B.Ordinal)
	ExpectNoError(err, "cuDeviceGetP2PAttribute(%s, %s)", attr, p)
	if v != want {
		Skip(fmt.Sprintf("needs %s=%d for %s (found %s=%d)", attr, want, p, attr, v))
	}
}

// RequireDriver skips unless the driver supports at least CUDA version min
// (1000*major + 10*minor).
func (h *Harness) RequireDriver(min int, what string) {
	GinkgoHelper()
	if v := h.b.DriverVersion(); v < min {
		Skip(fmt.Sprintf("needs a driver for CUDA %s for %s (found cuDriverGetVersion=%d, CUDA %s)", cudaVersion(min), what, v, cudaVersion(v)))
	}
}

// optionalEntryPoints are the driver functions a supported driver may lack,
// with the CUDA version (1000*major + 10*minor) that brought them: the
// binding resolves them at that version, and calling one on an older driver
// fails with backend.ErrMissingEntryPoint.
var optionalEntryPoints = map[string]int{
	"cuDeviceGetP2PAtomicCapabilities":  13000,
	"cuDeviceGetHostAtomicCapabilities": 13000,
}

// RequireEntryPoint skips unless the driver provides the optional entry
// point name, for what. A spec that calls an optional entry point says so
// with this before its first check, since ExpectNoError fails on a missing
// one. A name that is not optional is a mistake in the spec and fails it.
func (h *Harness) RequireEntryPoint(name, what string) {
	GinkgoHelper()
	if reason, skip, err := entryPointNeed(name, what, h.b.DriverVersion()); err != nil {
		Fail(err.Error())
	} else if skip {
		Skip(reason)
	}
}

// entryPointNeed is RequireEntryPoint's decision: whether a driver of
// version driver lacks name, and the skip reason if so.
func entryPointNeed(name, what string, driver int) (reason string, skip bool, err error) {
	since, ok := optionalEntryPoints[name]
	if !ok {
		return "", false, fmt.Errorf("RequireEntryPoint(%q): not an optional entry point (those are %s)", name, strings.Join(slices.Sorted(maps.Keys(optionalEntryPoints)), ", "))
	}
	if driver >= since {
		return "", false, nil
	}
	return fmt.Sprintf("needs %s (CUDA %s) for %s (found cuDriverGetVersion=%d, CUDA %s)", name, cudaVersion(since), what, driver, cudaVersion(driver)), true, nil
}

// SkipIfRefused skips when err carries one of codes, the refusals that the
// documentation of call gives for a machine without the feature (why says
// which, e.g. "an IMEX channel may be needed"); the code is recorded as a
// finding first. Any other error fails the spec: an undocumented code, or
// an error that is not the driver's answer, is a failure, never "not
// applicable". Use it only before the spec's first check.
func SkipIfRefused(err error, call, target, why string, codes ...cuerr.Result) {
	GinkgoHelper()
	switch refusalOf(err, codes) {
	case notRefused:
		return
	case documentedRefusal:
		Finding(call, CodeOf(err), target)
		Skip(fmt.Sprintf("needs %s to succeed on %s (found %s; %s)", call, target, CodeOf(err), why))
	default:
		Fail(fmt.Sprintf("%s on %s: %v (the refusals documented for it are %s; any other error fails)", call, target, err, codeList(codes)))
	}
}

type refusal int

const (
	notRefused        refusal = iota // no error
	documentedRefusal                // one of the documented codes
	otherError                       // another code, or not a CUDA error
)

// refusalOf classifies err for SkipIfRefused.
func refusalOf(err error, codes []cuerr.Result) refusal {
	if err == nil {
		return notRefused
	}
	if errors.Is(err, backend.ErrMissingEntryPoint) {
		return otherError
	}
	if code, ok := cuerr.Code(err); ok && slices.Contains(codes, code) {
		return documentedRefusal
	}
	return otherError
}

func codeList(codes []cuerr.Result) string {
	names := make([]string, len(codes))
	for i, c := range codes {
		names[i] = c.Error()
	}
	return strings.Join(names, " and ")
}

// freeMemoryMargin is what RequireFreeMemory leaves free on top of the
// spec's buffers: an eighth of them, at least 512 MiB, for the driver's own
// allocations (kernels, streams, copy staging) during the spec.
func freeMemoryMargin(bytes uint64) uint64 { return max(512<<20, bytes/8) }

// RequireFreeMemory skips unless g has bytes of device memory free (by
// cuMemGetInfo) plus a margin, for what; it also skips above the largest
// buffer the backend declares it can hold (backend.Limits.MaxBuffer: the
// fake's memory lives in files). Call it before the spec allocates or checks anything,
// so that a GPU without room records the spec as not run, with the
// reason, instead of failing it or passing it silently. When another
// program uses g, the room it takes says nothing about the GPU: the spec
// then ends as an error naming that program, not as a skip.
func (h *Harness) RequireFreeMemory(g GPU, bytes uint64, what string) {
	GinkgoHelper()
	if lim := h.Limits(); lim.MaxBuffer > 0 && bytes > lim.MaxBuffer {
		Skip(fmt.Sprintf("needs %d bytes of device memory on %s for %s (found backend %s, which simulates at most %d bytes a buffer: its memory lives in files)",
			bytes, g, what, h.b.Name(), lim.MaxBuffer))
	}
	free, _, err := h.b.MemInfo(g.Ordinal)
	ExpectNoError(err, "cuMemGetInfo on %s", g)
	if margin := freeMemoryMargin(bytes); free < bytes+margin {
		RequireAlone(fmt.Sprintf("the free-memory requirement of %s (%d bytes)", what, bytes), g)
		Skip(fmt.Sprintf("needs %d bytes free on %s for %s, plus a margin of %d (found cuMemGetInfo free=%d)", bytes, g, what, margin, free))
	}
}

// Attribute reads a device attribute and fails the spec if it cannot.
func (h *Harness) Attribute(g GPU, attr backend.DeviceAttr) int {
	GinkgoHelper()
	v, err := h.b.DeviceAttribute(g.Ordinal, attr)
	ExpectNoError(err, "cuDeviceGetAttribute(%s) on %s", attr, g)
	return v
}

func cudaVersion(v int) string { return fmt.Sprintf("%d.%d", v/1000, (v%1000)/10) }

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
