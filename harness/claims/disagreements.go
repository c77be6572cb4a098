// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package claims

import (
	"fmt"
	"strings"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// Topic is what a disagreement is about; each check compares the topic it
// owns (access.capability-per-direction peer access,
// atomics.capability-report atomics), the report shows both.
type Topic string

// Topics.
const (
	PeerAccess Topic = "peer access"
	Atomics    Topic = "atomics"
)

// Disagreement is one place where the sources contradict each other, or
// where a claim needed for a comparison could not be read (Unread: a check
// fails on it, since "could not tell" is not agreement; the report, which
// has no way to ask again, leaves it out).
type Disagreement struct {
	Topic  Topic
	Unread bool
	// Text names both sources and their values; the direction is not in it
	// (Claims.Link names it).
	Text string
}

// Of returns the disagreements about topic.
func Of(ds []Disagreement, topic Topic) []Disagreement {
	var out []Disagreement
	for _, d := range ds {
		if d.Topic == topic {
			out = append(out, d)
		}
	}
	return out
}

// Texts prefixes each disagreement's text with the direction: one line per
// disagreement, for a failure message.
func Texts(c Claims, ds []Disagreement) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = c.Link() + ": " + d.Text
	}
	return out
}

// Disagreements compares what the sources claim about one direction:
//
// Peer access: cuDeviceCanAccessPeer, the P2P attribute ACCESS_SUPPORTED and
// NVML's READ and WRITE status must agree (both OK ⇔ CUDA says 1).
//
// Atomics: NATIVE_ATOMIC_SUPPORTED and ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED
// must not both be 1; NVML's ATOMICS status is OK exactly when either is 1
// (NVML has no "partial" status; before CUDA 13.0, which has no
// ONLY_PARTIAL, NATIVE=0 with NVML OK may be a partly native link and is no
// contradiction); and where the per-operation masks were read, every
// operation covered with all its required types ⇔ NATIVE=1, some but not
// all ⇔ ONLY_PARTIAL=1.
func Disagreements(c Claims) []Disagreement {
	return append(peerAccess(c), atomics(c)...)
}

func peerAccess(c Claims) []Disagreement {
	cu, nv := c.CUDA, c.NVML
	if cu.CanAccessPeer == nil {
		return []Disagreement{{Topic: PeerAccess, Unread: true,
			Text: "cuDeviceCanAccessPeer gave no answer, so the other sources cannot be checked against it"}}
	}
	can := b2i(*cu.CanAccessPeer)
	var out []Disagreement
	if cu.AccessSupported != nil && *cu.AccessSupported != can {
		out = append(out, Disagreement{Topic: PeerAccess,
			Text: fmt.Sprintf("cuDeviceCanAccessPeer=%d but P2P attribute ACCESS_SUPPORTED=%d", can, *cu.AccessSupported)})
	}
	switch {
	case nv.Err != nil:
		out = append(out, Disagreement{Topic: PeerAccess, Unread: true,
			Text: fmt.Sprintf("NVML could not be read (%v), so cuDeviceCanAccessPeer=%d cannot be checked against it", nv.Err, can)})
	case b2i(nv.Read.OK() && nv.Write.OK()) != can:
		out = append(out, Disagreement{Topic: PeerAccess,
			Text: fmt.Sprintf("cuDeviceCanAccessPeer=%d but NVML P2P status READ=%s WRITE=%s", can, nv.Read, nv.Write)})
	}
	return out
}

func atomics(c Claims) []Disagreement {
	cu := c.CUDA
	if cu.NativeAtomicSupported == nil {
		return []Disagreement{{Topic: Atomics, Unread: true,
			Text: fmt.Sprintf("%s could not be read, so the atomic claims cannot be compared", backend.P2PNativeAtomicSupported)}}
	}
	var out []Disagreement
	add := func(unread bool, f string, a ...any) {
		out = append(out, Disagreement{Topic: Atomics, Unread: unread, Text: fmt.Sprintf(f, a...)})
	}
	native := fmt.Sprintf("%s=%d", backend.P2PNativeAtomicSupported, *cu.NativeAtomicSupported)
	partialKnown := cu.PartialNativeAtomic != nil
	cudaSays := native
	if partialKnown {
		partial := fmt.Sprintf("%s=%d", backend.P2POnlyPartialNativeAtomicSupported, *cu.PartialNativeAtomic)
		cudaSays += ", " + partial
		if is1(cu.NativeAtomicSupported) && is1(cu.PartialNativeAtomic) {
			add(false, "%s (all atomics native) and %s (only some) contradict each other", native, partial)
		}
	}
	cudaSome := is1(cu.NativeAtomicSupported) || is1(cu.PartialNativeAtomic)
	status := c.NVML.Atomics
	switch {
	case c.NVML.Err != nil || !status.Known():
		add(true, "NVML's P2P ATOMICS status could not be read (found %q, NVML error %q), so CUDA's %s cannot be checked against it",
			string(status), errText(c.NVML.Err), cudaSays)
	case status.OK() && !cudaSome && !partialKnown:
		// A driver older than CUDA 13.0 cannot say "some atomics native".
	case status.OK() != cudaSome:
		add(false, "NVML P2P ATOMICS status is %s but CUDA says %s", status, cudaSays)
	}
	if cu.AtomicCaps != nil {
		for _, t := range maskDisagreements(c) {
			add(false, "%s", t)
		}
	}
	return out
}

// maskDisagreements compares the per-operation masks with the attributes.
func maskDisagreements(c Claims) []string {
	cu := c.CUDA
	var full, some, none []string
	for i, op := range backend.AllAtomicOperations() {
		name := opName(op)
		switch Coverage(op, cu.AtomicCaps[i]) {
		case CoverAll:
			full = append(full, name)
		case CoverSome:
			some = append(some, fmt.Sprintf("%s=%s (covers %s)", name, cu.AtomicCaps[i], DecodeAtomicCaps(op, cu.AtomicCaps[i])))
		default:
			none = append(none, fmt.Sprintf("%s=%s", name, cu.AtomicCaps[i]))
		}
	}
	allFull := len(full) == len(cu.AtomicCaps)
	anyNative := len(full)+len(some) > 0
	native := *cu.NativeAtomicSupported
	var out []string
	switch {
	case native == 1 && !allFull:
		out = append(out, fmt.Sprintf("%s=1 (every atomic native) but cuDeviceGetP2PAtomicCapabilities does not cover every operation with all its types: %s",
			backend.P2PNativeAtomicSupported, strings.Join(append(some, none...), ", ")))
	case native != 1 && allFull:
		out = append(out, fmt.Sprintf("%s=%d but cuDeviceGetP2PAtomicCapabilities covers every operation with all its types (%s)",
			backend.P2PNativeAtomicSupported, native, c.CapsSummary()))
	}
	if cu.PartialNativeAtomic == nil {
		return out
	}
	partial := *cu.PartialNativeAtomic
	partly := anyNative && !allFull
	switch {
	case partial == 1 && !partly:
		what := "no operation"
		if allFull {
			what = "every operation fully"
		}
		out = append(out, fmt.Sprintf("%s=1 (only some atomics native) but cuDeviceGetP2PAtomicCapabilities covers %s (%s)",
			backend.P2POnlyPartialNativeAtomicSupported, what, c.CapsSummary()))
	case partial != 1 && partly:
		out = append(out, fmt.Sprintf("%s=%d but cuDeviceGetP2PAtomicCapabilities covers some operations and not others (full: %s; partly: %s; not: %s)",
			backend.P2POnlyPartialNativeAtomicSupported, partial, strings.Join(full, " "), strings.Join(some, ", "), strings.Join(none, ", ")))
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
