// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/report"
)

// openMachine opens the backend and reads the claims exactly as the suites
// do, so topo shows what a run would be measured against. It is the one
// place topo touches the machine; tests replace it with recorded systems.
var openMachine = func() (report.System, func(), error) {
	m, err := machine.Open()
	if err != nil {
		return report.System{}, nil, err
	}
	sys := report.SystemOf(m)
	report.FillHostDefaults(&sys)
	return sys, func() { _ = m.Backend.Close() }, nil
}

// cmdTopo prints the machine's GPUs and the claimed capability matrices.
// A pair whose NVML claims or cuDeviceCanAccessPeer could not be read exits
// 1: "could not tell" is never reported as "not supported". (CUDA's P2P
// attributes print as null when a driver lacks them, e.g. ONLY_PARTIAL
// before CUDA 13.0.)
func cmdTopo(args []string, stdout, stderr io.Writer) error {
	fs := flags("topo", stderr)
	asJSON := fs.Bool("json", false, "print the system description (GPUs, pairs, claims) as JSON, as it appears in conformance.json")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("topo takes no arguments (got %v); narrow it with P2PCONF_GPUS or P2PCONF_PAIRS", fs.Args())
	}
	sys, closeFn, err := openMachine()
	if err != nil {
		return fmt.Errorf("opening the machine: %w", err)
	}
	if closeFn != nil {
		defer closeFn()
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sys); err != nil {
			return err
		}
	} else {
		fmt.Fprint(stdout, report.TopologyText(sys))
	}
	unread := 0
	for _, p := range sys.Pairs {
		if p.NVML.Error != "" {
			fmt.Fprintf(stderr, "p2pconf topo: GPU%d→GPU%d: NVML could not tell: %s\n", p.Src, p.Dst, p.NVML.Error)
			unread++
		}
		if p.CUDA.CanAccessPeer == nil {
			fmt.Fprintf(stderr, "p2pconf topo: GPU%d→GPU%d: cuDeviceCanAccessPeer gave no answer\n", p.Src, p.Dst)
			unread++
		}
	}
	if unread > 0 {
		return exitError(1)
	}
	return nil
}
