// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// envVars are recorded in System.Env when set: they decide which GPUs a run
// sees and how CUDA numbers them (CUDA orders fastest-first unless told
// otherwise, NVML by PCI address).
var envVars = []string{"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NVIDIA_VISIBLE_DEVICES"}

// EnvHost overrides the host name a run records (System.Host, and so the
// host of a fleet view and the JUnit suite names). A scheduler sets it where
// the machine's host name is not the node's identity: a Kubernetes pod (its
// host name is the pod's, so the pod sets the node's name), a Slurm node
// name that differs from the host name, or several simulated hosts on one
// machine in a test.
const EnvHost = "P2PCONF_HOST"

// FillHostDefaults completes the host fields of sys that the harness left
// empty (Host, Kernel, IOMMU, Env) from the machine this process runs on.
// A non-empty P2PCONF_HOST replaces the host name whatever the harness set.
func FillHostDefaults(sys *System) {
	if h := strings.TrimSpace(os.Getenv(EnvHost)); h != "" {
		sys.Host = h
	}
	if sys.Host == "" {
		sys.Host, _ = os.Hostname()
	}
	if sys.Kernel == "" {
		if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
			sys.Kernel = strings.TrimSpace(string(b))
		}
	}
	if sys.IOMMU == "" {
		sys.IOMMU = iommuState("/sys/class/iommu", "/proc/cmdline")
	}
	if sys.Env == nil {
		env := map[string]string{}
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			if strings.HasPrefix(k, "P2PCONF_") || contains(envVars, k) {
				env[k] = v
			}
		}
		if len(env) > 0 {
			sys.Env = env
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// iommuState reads the active IOMMU units and the iommu-related kernel
// parameters, e.g. "on: dmar0 dmar1; cmdline intel_iommu=on iommu=pt".
func iommuState(classDir, cmdline string) string {
	var units []string
	if ents, err := os.ReadDir(classDir); err == nil {
		for _, e := range ents {
			units = append(units, e.Name())
		}
	}
	sort.Strings(units)
	state := "off"
	if len(units) > 0 {
		state = "on: " + strings.Join(units, " ")
	}
	if b, err := os.ReadFile(filepath.Clean(cmdline)); err == nil {
		var params []string
		for _, f := range strings.Fields(string(b)) {
			if strings.Contains(f, "iommu") || strings.HasPrefix(f, "pcie_acs") {
				params = append(params, f)
			}
		}
		if len(params) > 0 {
			state += "; cmdline " + strings.Join(params, " ")
		}
	}
	return state
}
