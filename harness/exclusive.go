// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"fmt"
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/proc"
	"github.com/p2pconf/p2pconf/harness/report"
	"github.com/p2pconf/p2pconf/harness/topology"
)

// Exclusive use. Leak and lifetime checks compare device-wide free memory
// (cuMemGetInfo) with a baseline, and bandwidth and latency figures assume
// idle GPUs: another process's allocation or traffic would read as the
// GPU's own behaviour. Two layers keep that from giving a wrong verdict:
//
//   - the run locks its GPUs (package gpulock) before any spec runs, so a
//     second p2pconf run on the same GPUs stops at once, naming the first;
//   - before trusting such a figure the check lists the GPU's processes
//     through NVML, and if a process that is not this run's (this process,
//     or a helper process it started) is there, the check ends as an
//     error, never a pass or a failure, naming the processes.

// othersOn lists the processes on g that are not this run's. why is set,
// and others empty, when it cannot tell: NVML is not available or its
// process list failed.
func othersOn(g GPU) (others topology.Others, why string) {
	m := current()
	if m.Topology == nil {
		return others, fmt.Sprintf("NVML is not available (%v)", m.NVMLErr)
	}
	tg, ok := m.Topology.GPU(g.Ordinal)
	if !ok {
		return others, "NVML has no entry for " + g.String()
	}
	procs, err := topology.Processes(machine.NVMLOf(m.Backend), tg.NVML)
	if err != nil {
		return others, fmt.Sprintf("listing the processes on %s: %v", g, err)
	}
	var desc map[uint32]bool
	descendants := func() map[uint32]bool {
		if desc == nil {
			desc = proc.Descendants(os.Getpid())
		}
		return desc
	}
	own := func(pid uint32) bool { return proc.Started(int(pid)) || descendants()[pid] }
	count := func() int { return 1 + len(descendants()) }
	return topology.Split(procs, uint32(os.Getpid()), own, count), ""
}

// notAloneMessage is the error that ends a check when others use its
// GPUs, or "" when none do.
func notAloneMessage(what string, gpus []GPU) string {
	var parts []string
	for _, g := range gpus {
		o, _ := othersOn(g)
		if len(o.Foreign) == 0 {
			continue
		}
		var ps []string
		for _, p := range o.Foreign {
			ps = append(ps, p.String())
		}
		s := fmt.Sprintf("%s: %s", g, strings.Join(ps, "; "))
		if !o.SelfSeen {
			s += fmt.Sprintf(" (NVML lists %d processes where this run has %d; it does not list this process, so its PIDs are of another PID namespace)", len(o.Foreign), o.Own)
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("inconclusive: %s needs the GPU to itself, but another program uses it (%s); an error, not a verdict on the GPU",
		what, strings.Join(parts, "; "))
}

// RequireAlone ends the spec as an error (not a pass, not a failure) when
// a process that is not this run's uses one of gpus: what (e.g. "free
// memory accounting") could not tell that process's effect from the
// GPU's own. Where NVML cannot list processes it does nothing: the lock
// still keeps other p2pconf runs away.
func RequireAlone(what string, gpus ...GPU) {
	GinkgoHelper()
	if msg := notAloneMessage(what, gpus); msg != "" {
		Inconclusive("%s", msg)
	}
}

// Exclusive watches the GPUs of a measurement that assumes them idle
// (bandwidth, latency): created before the measurement, Done after it.
type Exclusive struct {
	what string
	gpus []GPU
}

// Exclusive starts watching gpus for what. If another process uses them
// already, the spec ends now as an error marked contended.
func (h *Harness) Exclusive(what string, gpus ...GPU) *Exclusive {
	GinkgoHelper()
	e := &Exclusive{what: what, gpus: gpus}
	e.check("before")
	return e
}

// Done checks the GPUs again after the measurement: if another process
// used them, the figures recorded so far stay in the result, which is
// marked contended, and the spec ends as an error. Call it before any
// comparison that could fail the spec on the figures.
func (e *Exclusive) Done() {
	GinkgoHelper()
	e.check("after")
}

func (e *Exclusive) check(when string) {
	GinkgoHelper()
	msg := notAloneMessage(e.what, e.gpus)
	if msg == "" {
		return
	}
	Finding(report.FindingContended, msg, when+" the measurement")
	Inconclusive("%s", msg)
}
