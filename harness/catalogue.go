// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import "sort"

// Kind says how a check's result counts (SPECS.md "Kind").
type Kind string

// Check kinds.
const (
	// Conf fails on any violation.
	Conf Kind = "conf"
	// Info records an observation and fails only on a harness error.
	Info Kind = "info"
	// Mutant is an allowed-but-weak variant of a conf check; it never fails
	// the run by itself, it shows whether its sibling could have failed.
	Mutant Kind = "mutant"
)

// Scope says what a check runs on.
type Scope string

// Check scopes (SPECS.md "GPUs").
const (
	OnGPU   Scope = "1"    // once per GPU
	OnPair  Scope = "pair" // once per ordered pair
	OnThree Scope = "3+"   // needs three GPUs
)

// CheckInfo is one catalogue entry of SPECS.md.
type CheckInfo struct {
	ID     string
	Family string
	Scopes []Scope
	Kinds  []Kind // the first is the default
	// Variants allows several specs per check and target (litmus tests,
	// flag-handoff variants); their texts must still be unique.
	Variants bool
}

// catalogue is SPECS.md as data. Every ID in SPECS.md is here, and every
// spec's id: label must name one of these (checked before any spec runs).
var catalogue = []CheckInfo{
	{ID: "access.self-is-not-a-peer", Scopes: gpu, Kinds: conf},
	{ID: "access.uva-owner", Scopes: gpu, Kinds: conf},
	{ID: "access.capability-per-direction", Scopes: pair, Kinds: conf},
	{ID: "access.enable-is-directional", Scopes: pair, Kinds: conf},
	{ID: "access.enable-errors", Scopes: pair, Kinds: conf},
	{ID: "access.enable-covers-allocations", Scopes: pair, Kinds: conf},
	{ID: "access.peer-copy", Scopes: pair, Kinds: conf, Variants: true},
	{ID: "access.kernel-remote-read", Scopes: pair, Kinds: conf},
	{ID: "access.kernel-remote-write", Scopes: pair, Kinds: conf},
	{ID: "access.staged-copy", Scopes: pair, Kinds: conf},
	{ID: "access.host-mapped", Scopes: gpu, Kinds: conf},

	{ID: "ipc.mem-handle-roundtrip", Scopes: gpuAndPair, Kinds: conf},
	{ID: "ipc.raw-pointer-is-not-a-handle", Scopes: gpu, Kinds: conf},
	{ID: "ipc.same-process-open-rejected", Scopes: gpu, Kinds: conf},
	{ID: "ipc.event-handoff", Scopes: gpuAndPair, Kinds: conf},
	{ID: "ipc.event-handoff-without-wait", Scopes: gpuAndPair, Kinds: mutant},
	{ID: "ipc.event-flags", Scopes: gpu, Kinds: conf},
	{ID: "ipc.close-then-free", Scopes: gpu, Kinds: conf},
	{ID: "ipc.importer-killed", Scopes: gpu, Kinds: conf},
	{ID: "ipc.exporter-exits-first", Scopes: gpu, Kinds: info},

	{ID: "vmm.granularity", Scopes: gpu, Kinds: conf},
	{ID: "vmm.no-access-until-set", Scopes: gpu, Kinds: conf},
	{ID: "vmm.read-only-access", Scopes: gpuAndPair, Kinds: conf},
	{ID: "vmm.access-is-per-range", Scopes: gpu, Kinds: conf},
	{ID: "vmm.release-while-mapped", Scopes: gpu, Kinds: conf},
	{ID: "vmm.fd-export-import", Scopes: gpuAndPair, Kinds: conf},
	{ID: "vmm.fd-number-is-not-a-handle", Scopes: gpu, Kinds: conf},
	{ID: "vmm.import-outlives-exporter-release", Scopes: gpu, Kinds: conf},
	{ID: "vmm.peer-access-grant", Scopes: pair, Kinds: conf},
	{ID: "vmm.fabric-handle", Scopes: gpu, Kinds: info},

	{ID: "atomics.capability-report", Scopes: pair, Kinds: conf},
	{ID: "atomics.concurrent-sys-rmw", Scopes: pair, Kinds: conf, Variants: true},
	{ID: "atomics.gpu-scope-across-gpus", Scopes: pair, Kinds: info},
	{ID: "atomics.counter-as-flag", Scopes: pair, Kinds: conf},
	{ID: "atomics.intra-gpu-sys-rmw", Scopes: gpu, Kinds: conf, Variants: true},
	{ID: "atomics.host-native", Scopes: gpu, Kinds: conf},

	{ID: "ordering.cross-device-event-handoff", Scopes: pair, Kinds: conf},
	{ID: "ordering.cross-device-handoff-without-wait", Scopes: pair, Kinds: mutant},
	{ID: "ordering.submission-is-not-completion", Scopes: gpuAndPair, Kinds: conf},
	{ID: "ordering.elapsed-time-across-devices", Scopes: pair, Kinds: conf},
	{ID: "ordering.source-reuse-after-completion", Scopes: pair, Kinds: conf},
	{ID: "ordering.flag-handoff-sys", Scopes: pair, Kinds: conf, Variants: true},
	{ID: "ordering.flag-handoff-weak", Scopes: pair, Kinds: mutant, Variants: true},
	{ID: "ordering.host-device-handoff", Scopes: gpu, Kinds: conf, Variants: true},
	{ID: "ordering.litmus", Scopes: []Scope{OnGPU, OnPair, OnThree}, Kinds: []Kind{Conf, Mutant}, Variants: true},

	{ID: "bandwidth.copy-engine", Scopes: gpuAndPair, Kinds: info, Variants: true},
	{ID: "bandwidth.sm-read-write", Scopes: gpuAndPair, Kinds: info, Variants: true},
	{ID: "bandwidth.latency", Scopes: gpuAndPair, Kinds: info, Variants: true},
}

var (
	gpu        = []Scope{OnGPU}
	pair       = []Scope{OnPair}
	gpuAndPair = []Scope{OnGPU, OnPair}
	conf       = []Kind{Conf}
	info       = []Kind{Info}
	mutant     = []Kind{Mutant}
)

var checksByID = func() map[string]*CheckInfo {
	m := make(map[string]*CheckInfo, len(catalogue))
	for i := range catalogue {
		c := &catalogue[i]
		for j := 0; j < len(c.ID); j++ {
			if c.ID[j] == '.' {
				c.Family = c.ID[:j]
				break
			}
		}
		m[c.ID] = c
	}
	return m
}()

// LookupCheck returns the catalogue entry for id.
func LookupCheck(id string) (CheckInfo, bool) {
	c, ok := checksByID[id]
	if !ok {
		return CheckInfo{}, false
	}
	return *c, true
}

// Checks returns the catalogue sorted by ID.
func Checks() []CheckInfo {
	out := make([]CheckInfo, len(catalogue))
	copy(out, catalogue)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (c CheckInfo) allowsScope(s Scope) bool {
	for _, x := range c.Scopes {
		if x == s {
			return true
		}
	}
	return false
}

func (c CheckInfo) allowsKind(k Kind) bool {
	for _, x := range c.Kinds {
		if x == k {
			return true
		}
	}
	return false
}
