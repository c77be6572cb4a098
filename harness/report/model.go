// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import "fmt"

// EntryName is the name of every Ginkgo report entry p2pconf attaches to a
// spec (AddReportEntry(EntryName, Entry{...})). The spec's check ID, GPU and
// pair come from its labels (id:, gpu:, pair:), not from the entry.
const EntryName = "p2pconf"

// Entry kinds.
const (
	KindClaim   = "claim"   // what a source (CUDA, NVML) says about a GPU or pair
	KindMetric  = "metric"  // a measured number (instances/s, GB/s, lost updates)
	KindFinding = "finding" // an observation the documentation does not fix (an error code, undocumented behaviour)
	KindPower   = "power"   // whether a mutant's weak outcome was seen (see docs/checks.md, kind mutant)
	// KindError ends a spec as an error, not a verdict on the GPUs: Name
	// says which (ErrorInconclusive), Value is the message. The harness
	// records it and then fails the spec with the same message, so the
	// report shows the result as an error with that message.
	KindError = "error"
)

// ErrorInconclusive names the error of a run that could not tell: too
// little evidence, or another program on a GPU the check needs to itself.
const ErrorInconclusive = "inconclusive"

// errorOf is the message of the entries' KindError entry, if any.
func errorOf(entries []Entry) (string, bool) {
	for _, e := range entries {
		if e.Kind == KindError {
			msg, _ := e.Value.(string)
			if msg == "" {
				msg = e.Name
			}
			return msg, true
		}
	}
	return "", false
}

// Entry is one observation attached to a spec.
type Entry struct {
	Kind string `json:"kind"`
	// Source is where a claim comes from ("cuda", "nvml") or what measured a metric.
	Source string `json:"source,omitempty"`
	// Name is e.g. "cuDeviceCanAccessPeer", "CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK", "instances_per_second".
	Name string `json:"name"`
	// Value is a number, string, bool or small object; numbers stay numbers.
	Value any    `json:"value"`
	Unit  string `json:"unit,omitempty"`
	// Detail explains the value to someone who was not there.
	Detail string `json:"detail,omitempty"`
}

// String is how the console shows an observation (Ginkgo prints entries of
// failed specs, and of every spec with -v): "cuda cuDeviceCanAccessPeer = 1
// (GPU0→GPU1)", "instances = 4.2e+07 instances (MP rel.sys/acq.sys ...)".
func (e Entry) String() string {
	s := e.Name
	if e.Source != "" {
		s = e.Source + " " + s
	}
	s += fmt.Sprintf(" = %v", e.Value)
	if e.Unit != "" {
		s += " " + e.Unit
	}
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

// System is what the harness knows about the machine before any spec runs.
// It is written into conformance.json so a report explains itself.
type System struct {
	Backend       string `json:"backend"` // "cuda" or "fake:<preset>[+defect...]"
	Host          string `json:"host"`
	DriverVersion string `json:"driver_version,omitempty"` // NVML, e.g. "580.159.04"
	CUDAVersion   int    `json:"cuda_driver_version"`      // cuDriverGetVersion, e.g. 13000
	GPUs          []GPU  `json:"gpus"`
	Pairs         []Pair `json:"pairs"`
	// Selection is what P2PCONF_GPUS / P2PCONF_PAIRS narrowed the run to.
	Selection string `json:"selection,omitempty"`

	// The fields below describe the host around the GPUs. WriteRun fills
	// those left empty from the machine it runs on (FillHostDefaults), so
	// the harness need not set them.

	// NVMLVersion is nvmlSystemGetNVMLVersion, e.g. "13.580.159.04".
	NVMLVersion string `json:"nvml_version,omitempty"`
	// Kernel is the running Linux kernel release (uname -r).
	Kernel string `json:"kernel,omitempty"`
	// IOMMU says whether an IOMMU is active ("off", "on: dmar0 dmar1") and
	// the iommu= kernel parameters: ACS and a translating IOMMU are a known
	// cause of silently broken peer writes.
	IOMMU string `json:"iommu,omitempty"`
	// Env records the variables that change which GPUs a run sees or how it
	// numbers them (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER, P2PCONF_*).
	Env map[string]string `json:"env,omitempty"`
	// Platform is what NVML and sysfs say around the GPUs (platform.go).
	Platform *Platform `json:"platform,omitempty"`
}

// GPU identifies one GPU by CUDA ordinal, UUID and PCI address.
type GPU struct {
	Ordinal int    `json:"ordinal"`
	Name    string `json:"name"`
	UUID    string `json:"uuid"`
	// PCIBusID is written as NVML writes it ("00000000:1B:00.0"), so the
	// report joins with NVML-based tools (dcgm-exporter, nvidia-smi -q).
	PCIBusID          string `json:"pci_bus_id"`
	ComputeCapability int    `json:"compute_capability"`
	SMCount           int    `json:"sm_count"`
	TotalMemory       uint64 `json:"total_memory"`
	// NVMLIndex is the GPU's NVML index, which dcgm-exporter's gpu and
	// device ("nvidia<index>") labels carry; nil when NVML was not read.
	NVMLIndex *int `json:"nvml_index,omitempty"`
}

// Pair is an ordered pair with everything CUDA and NVML claim about it.
// Values a source could not give are null (nil pointers).
type Pair struct {
	Src  int    `json:"src"`
	Dst  int    `json:"dst"`
	Link string `json:"link"` // "nvlink", "pcie" or "none"
	CUDA struct {
		CanAccessPeer            *bool             `json:"can_access_peer"`
		AccessSupported          *int              `json:"access_supported"`
		NativeAtomicSupported    *int              `json:"native_atomic_supported"`
		PartialNativeAtomic      *int              `json:"only_partial_native_atomic_supported"`
		PerformanceRank          *int              `json:"performance_rank"`
		CudaArrayAccessSupported *int              `json:"cuda_array_access_supported"`
		AtomicCapabilities       map[string]string `json:"atomic_capabilities,omitempty"` // op name -> decoded mask
		AtomicCapabilitiesErr    string            `json:"atomic_capabilities_error,omitempty"`
	} `json:"cuda"`
	NVML struct {
		Read          string `json:"read,omitempty"`
		Write         string `json:"write,omitempty"`
		NVLink        string `json:"nvlink,omitempty"`
		Atomics       string `json:"atomics,omitempty"`
		PCI           string `json:"pci,omitempty"`
		TopologyLevel string `json:"topology_level,omitempty"`
		NVLinkCount   int    `json:"nvlink_count"`
		Error         string `json:"error,omitempty"`
	} `json:"nvml"`
}
