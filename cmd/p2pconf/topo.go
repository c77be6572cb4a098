// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/report"
	"github.com/p2pconf/p2pconf/harness/sysrecord"
)

// openMachine opens the backend and reads the claims exactly as the suites
// do, so topo shows what a run would be measured against. It is the one
// place topo touches the machine; tests replace it with recorded systems.
var openMachine = func() (report.System, func(), error) {
	m, err := machine.OpenNew()
	if err != nil {
		return report.System{}, nil, err
	}
	sys := sysrecord.SystemOf(m)
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
		return openError(err, os.Args[0])
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
		fmt.Fprint(stdout, report.PlatformText(sys))
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

// suitesHint starts the hint machine.OpenBackend appends when the driver
// cannot be opened; it tells how to run the suites on the fake backend with
// `go tool ginkgo`, which a node with only the dist tarball does not have.
const suitesHint = "\nThe suite needs the NVIDIA driver"

// openError explains a machine that could not be opened. When the driver
// was missing it replaces the suites' hint with one that runs topo itself,
// the way it was started (argv0), on the fake backend.
func openError(err error, argv0 string) error {
	msg := err.Error()
	i := strings.Index(msg, suitesHint)
	if i < 0 {
		return fmt.Errorf("opening the machine: %w", err)
	}
	self := argv0
	if strings.Contains(argv0, "/go-build") {
		self = "go run ./cmd/p2pconf" // go run builds into a temporary go-build folder
	}
	return fmt.Errorf("opening the machine: %s\n"+
		"p2pconf topo needs the NVIDIA driver on this machine. To see what it shows without a GPU, on the in-memory backend:\n"+
		"  %s=fake %s=%s %s topo", msg[:i], machine.EnvBackend, machine.EnvFakePreset, machine.EnvDefaultPreset, self)
}
