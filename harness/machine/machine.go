// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package machine is the run's machine without any test framework: the
// configuration (P2PCONF_* variables), the backend it opens, the GPUs and
// ordered pairs selected for the run, and what CUDA and NVML claim about
// every pair (read once, before any spec). The suites' fixture (package
// harness) and the command-line tools both open the machine through it, so
// `p2pconf topo` shows exactly what a run is measured against.
package machine

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/claims"
	"github.com/p2pconf/p2pconf/harness/settings"
	"github.com/p2pconf/p2pconf/harness/topology"
)

// GPU is one GPU of the run.
type GPU struct {
	Ordinal backend.Device
	Info    backend.DeviceInfo
}

// String names the GPU as specs and reports do: "GPU0".
func (g GPU) String() string { return fmt.Sprintf("GPU%d", int(g.Ordinal)) }

// Pair is an ordered pair of GPUs: A is the source (the accessor, the one
// whose kernels run), B the destination (whose memory is touched).
type Pair struct {
	A, B GPU
	// Link is "nvlink", "pcie", "none" or "unknown" (when NVML could not tell).
	Link string
	// Claims is everything CUDA and NVML say about A→B, read before any spec.
	Claims claims.Claims
}

// ID is "0-1", as in P2PCONF_PAIRS and the pair: label.
func (p Pair) ID() string { return fmt.Sprintf("%d-%d", int(p.A.Ordinal), int(p.B.Ordinal)) }

// String is "GPU0→GPU1".
func (p Pair) String() string { return p.A.String() + "→" + p.B.String() }

// Reverse is B→A, with its own claims when the machine is open.
func (p Pair) Reverse() Pair {
	if opened != nil {
		if q, ok := opened.Pair(p.B.Ordinal, p.A.Ordinal); ok {
			return q
		}
	}
	return Pair{A: p.B, B: p.A, Link: p.Link}
}

// Machine is the backend and the GPUs and pairs selected for this run.
type Machine struct {
	Config  Config
	Backend backend.Backend
	// Topology is NVML's view of the machine; nil when NVML could not be
	// read, with the reason in NVMLErr.
	Topology *topology.View
	NVMLErr  error
	allGPUs  []GPU
	gpus     []GPU
	pairs    []Pair
	allPairs []Pair
}

// GPUs lists the GPUs selected for this run, sorted by PCI address.
func (m *Machine) GPUs() []GPU { return append([]GPU(nil), m.gpus...) }

// Pairs lists the ordered pairs selected for this run.
func (m *Machine) Pairs() []Pair { return append([]Pair(nil), m.pairs...) }

// AllGPUs lists every GPU of the machine, selected or not, by PCI address.
func (m *Machine) AllGPUs() []GPU { return append([]GPU(nil), m.allGPUs...) }

// AllPairs lists every ordered pair of the machine, selected or not.
func (m *Machine) AllPairs() []Pair { return append([]Pair(nil), m.allPairs...) }

// Pair finds the ordered pair a→b among all pairs.
func (m *Machine) Pair(a, b backend.Device) (Pair, bool) {
	for _, q := range m.allPairs {
		if q.A.Ordinal == a && q.B.Ordinal == b {
			return q, true
		}
	}
	return Pair{}, false
}

// Selection is what P2PCONF_GPUS and P2PCONF_PAIRS narrowed the run to, as
// the variables were set ("" when neither was).
func (m *Machine) Selection() string {
	var sel []string
	if len(m.Config.GPUs) > 0 {
		sel = append(sel, EnvGPUs+"="+strings.Join(m.Config.GPUs, ","))
	}
	if v := os.Getenv(EnvPairs); v != "" {
		sel = append(sel, EnvPairs+"="+v)
	}
	return strings.Join(sel, " ")
}

var (
	openOnce sync.Once
	opened   *Machine
	openErr  error
)

// Open reads the configuration, opens the backend, reads the topology and
// the claims, and builds the GPU and pair lists, once per process. Every
// error here is returned before any spec runs.
func Open() (*Machine, error) {
	openOnce.Do(func() { opened, openErr = open() })
	return opened, openErr
}

// OpenNew opens the machine as Open does, but a fresh one that Open does not
// keep: for a command that needs the machine for a moment (p2pconf run
// reads the GPUs it locks) and must leave Open's machine to whoever opens it
// next in the same process. The caller closes its backend.
func OpenNew() (*Machine, error) { return open() }

// Current returns the machine Open opened, or nil before it has.
func Current() *Machine { return opened }

func open() (*Machine, error) {
	cfg, err := ReadConfig()
	if err != nil {
		return nil, err
	}
	b, err := OpenBackend(cfg)
	if err != nil {
		return nil, err
	}
	m := &Machine{Config: cfg, Backend: b}
	m.allGPUs = sortedGPUs(b.Devices())
	if m.gpus, err = selectGPUs(m.allGPUs, cfg.GPUs); err != nil {
		b.Close()
		return nil, err
	}
	m.allPairs, m.Topology, m.NVMLErr = readPairs(b, m.allGPUs)
	if m.pairs, err = selectPairs(m.allPairs, m.allGPUs, m.gpus, cfg); err != nil {
		b.Close()
		return nil, err
	}
	return m, nil
}

func sortedGPUs(devs []backend.DeviceInfo) []GPU {
	gpus := make([]GPU, len(devs))
	for i, d := range devs {
		gpus[i] = GPU{Ordinal: d.Ordinal, Info: d}
	}
	sort.SliceStable(gpus, func(i, j int) bool {
		return strings.ToLower(gpus[i].Info.PCIBusID) < strings.ToLower(gpus[j].Info.PCIBusID)
	})
	return gpus
}

// selectGPUs applies P2PCONF_GPUS (ordinals or UUIDs). The selection keeps
// the order of all (PCI address), whatever order the variable lists them in.
func selectGPUs(all []GPU, want []string) ([]GPU, error) {
	if len(want) == 0 {
		return all, nil
	}
	seen := map[backend.Device]bool{}
	for _, w := range want {
		g, ok := findGPU(all, w)
		if !ok {
			return nil, settings.Errorf(EnvGPUs, strings.Join(want, ","), "GPUs of this machine: "+describeGPUs(all), "no GPU %q on this machine", w)
		}
		seen[g.Ordinal] = true
	}
	var out []GPU
	for _, g := range all {
		if seen[g.Ordinal] {
			out = append(out, g)
		}
	}
	return out, nil
}

func findGPU(all []GPU, w string) (GPU, bool) {
	for _, g := range all {
		if n, err := strconv.Atoi(w); err == nil && n == int(g.Ordinal) {
			return g, true
		}
		if strings.EqualFold(w, g.Info.UUID) || strings.EqualFold("GPU-"+w, g.Info.UUID) {
			return g, true
		}
	}
	return GPU{}, false
}

func describeGPUs(all []GPU) string {
	if len(all) == 0 {
		return "no GPUs"
	}
	var s []string
	for _, g := range all {
		s = append(s, fmt.Sprintf("%d (%s)", int(g.Ordinal), g.Info.UUID))
	}
	return strings.Join(s, ", ")
}

// selectPairs applies P2PCONF_PAIRS to all, the ordered pairs of allGPUs;
// without it every ordered pair of the selected gpus is used. A pair listed
// twice is used once.
func selectPairs(all []Pair, allGPUs, gpus []GPU, cfg Config) ([]Pair, error) {
	selected := map[backend.Device]bool{}
	for _, g := range gpus {
		selected[g.Ordinal] = true
	}
	if len(cfg.Pairs) == 0 {
		var out []Pair
		for _, p := range all {
			if selected[p.A.Ordinal] && selected[p.B.Ordinal] {
				out = append(out, p)
			}
		}
		return out, nil
	}
	var out []Pair
	seen := map[[2]int]bool{}
	for _, want := range cfg.Pairs {
		var found *Pair
		for i := range all {
			if int(all[i].A.Ordinal) == want[0] && int(all[i].B.Ordinal) == want[1] {
				found = &all[i]
			}
		}
		if found == nil {
			return nil, settings.Errorf(EnvPairs, os.Getenv(EnvPairs), "pairs of this machine's GPUs: "+describeGPUs(allGPUs),
				"pair %d-%d names a GPU this machine does not have", want[0], want[1])
		}
		if len(cfg.GPUs) > 0 && (!selected[found.A.Ordinal] || !selected[found.B.Ordinal]) {
			return nil, settings.Errorf(EnvPairs, os.Getenv(EnvPairs), "pairs of the GPUs "+EnvGPUs+" selects",
				"pair %s uses a GPU outside %s=%s", found.ID(), EnvGPUs, strings.Join(cfg.GPUs, ","))
		}
		if !seen[want] {
			seen[want] = true
			out = append(out, *found)
		}
	}
	return out, nil
}
