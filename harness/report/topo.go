// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
)

// TopologyText renders what `p2pconf topo` prints: the machine's GPUs and,
// per claim, an N×N matrix (rows = source, columns = destination) of what
// CUDA and NVML say about every ordered pair, then every place where they
// disagree.
func TopologyText(sys System) string {
	var b strings.Builder
	writeTopoMachine(&b, sys)
	gpus, pairs := topoTargets(sys)
	for _, g := range topoGrids {
		writeTopoGrid(&b, g.title, gpus, func(s, d int) string {
			if p, ok := pairs[tkey{s, d}]; ok {
				return g.cell(p)
			}
			return SymNone
		})
	}
	b.WriteString("\nNVML status: OK, CNS chipset not supported, GNS GPU not supported, TNS topology not supported, DRK disabled by regkey, NS not supported, U unknown, ? not read. null: CUDA gave no answer.\n")
	writeTopoDisagreements(&b, gpus, pairs)
	return b.String()
}

// writeTopoMachine writes the header line (backend, host, driver, CUDA,
// selection), the fake-backend warning, and the table of GPUs.
func writeTopoMachine(b *strings.Builder, sys System) {
	fmt.Fprintf(b, "backend %s · host %s · driver %s · CUDA %s", backendName(sys), orDash(sys.Host), orDash(sys.DriverVersion), cudaVersion(sys.CUDAVersion))
	if sys.Selection != "" {
		fmt.Fprintf(b, " · %s", sys.Selection)
	}
	b.WriteString("\n")
	if warn := fakeWarning(sys); warn != "" {
		fmt.Fprintf(b, "NOTE: %s\n", warn)
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GPU\tname\tUUID\tPCI\tCC\tSMs\tmemory")
	for _, g := range sys.GPUs {
		fmt.Fprintf(tw, "GPU%d\t%s\t%s\t%s\t%d.%d\t%d\t%s\n", g.Ordinal, g.Name, g.UUID, g.PCIBusID,
			g.ComputeCapability/10, g.ComputeCapability%10, g.SMCount, bytesText(g.TotalMemory))
	}
	_ = tw.Flush()
}

// topoTargets are the GPUs every grid has a row and column for (those
// listed and those a pair names), in order, and the pairs by target.
func topoTargets(sys System) ([]int, map[tkey]Pair) {
	pairs := map[tkey]Pair{}
	seen := map[int]bool{}
	for _, g := range sys.GPUs {
		seen[g.Ordinal] = true
	}
	for _, p := range sys.Pairs {
		pairs[tkey{p.Src, p.Dst}] = p
		seen[p.Src], seen[p.Dst] = true, true
	}
	var gpus []int
	for g := range seen {
		gpus = append(gpus, g)
	}
	sort.Ints(gpus)
	return gpus, pairs
}

// topoGrids are the claims `p2pconf topo` shows, one grid each, and how a
// pair's cell reads.
var topoGrids = []struct {
	title string
	cell  func(Pair) string
}{
	{"CUDA cuDeviceCanAccessPeer", func(p Pair) string { return boolStr(p.CUDA.CanAccessPeer) }},
	{"CUDA P2P ACCESS_SUPPORTED", func(p Pair) string { return intStr(p.CUDA.AccessSupported) }},
	{"CUDA P2P NATIVE_ATOMIC_SUPPORTED", func(p Pair) string { return intStr(p.CUDA.NativeAtomicSupported) }},
	{"CUDA P2P ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED", func(p Pair) string { return intStr(p.CUDA.PartialNativeAtomic) }},
	{"CUDA P2P PERFORMANCE_RANK", func(p Pair) string { return intStr(p.CUDA.PerformanceRank) }},
	{"CUDA cuDeviceGetP2PAtomicCapabilities: operations with a capability", atomicOpsText},
	{"NVML P2P read", func(p Pair) string { return nvmlShort(p.NVML.Read) }},
	{"NVML P2P write", func(p Pair) string { return nvmlShort(p.NVML.Write) }},
	{"NVML P2P nvlink", func(p Pair) string { return nvmlShort(p.NVML.NVLink) }},
	{"NVML P2P atomics", func(p Pair) string { return nvmlShort(p.NVML.Atomics) }},
	{"link", linkShort},
}

// writeTopoGrid writes one titled N×N grid, rows = source, columns =
// destination; cell gives an off-diagonal cell.
func writeTopoGrid(b *strings.Builder, title string, gpus []int, cell func(src, dst int) string) {
	fmt.Fprintf(b, "\n%s — %s\n", title, Caption)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "src \\ dst")
	for _, d := range gpus {
		fmt.Fprintf(tw, "\t%s", gpuName(d))
	}
	fmt.Fprintln(tw)
	for _, s := range gpus {
		fmt.Fprint(tw, gpuName(s))
		for _, d := range gpus {
			c := SymDiagonal
			if s != d {
				c = cell(s, d)
			}
			fmt.Fprintf(tw, "\t%s", c)
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush()
}

// writeTopoDisagreements lists, pair by pair, where CUDA and NVML disagree,
// then the claims that could not be read at all.
func writeTopoDisagreements(b *strings.Builder, gpus []int, pairs map[tkey]Pair) {
	var conflicts, unread []string
	for _, s := range gpus {
		for _, d := range gpus {
			p, ok := pairs[tkey{s, d}]
			if !ok {
				continue
			}
			for _, c := range claimConflicts(p) {
				conflicts = append(conflicts, fmt.Sprintf("GPU%d→GPU%d: %s", s, d, c))
			}
			if p.NVML.Error != "" {
				unread = append(unread, fmt.Sprintf("GPU%d→GPU%d: NVML: %s", s, d, p.NVML.Error))
			}
			if p.CUDA.AtomicCapabilitiesErr != "" {
				unread = append(unread, fmt.Sprintf("GPU%d→GPU%d: %s", s, d, p.CUDA.AtomicCapabilitiesErr))
			}
		}
	}
	b.WriteString("\nDisagreements:\n")
	if len(conflicts) == 0 {
		b.WriteString("  none: CUDA and NVML agree on every pair.\n")
	}
	for _, n := range conflicts {
		fmt.Fprintf(b, "  %s\n", n)
	}
	if len(unread) > 0 {
		b.WriteString("\nClaims that could not be read:\n")
		for _, n := range unread {
			fmt.Fprintf(b, "  %s\n", n)
		}
	}
}
