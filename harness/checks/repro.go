// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package checks

// reproducible lists the checks for which `p2pconf repro` writes a
// standalone C reproducer (harness/repro has the recipe; its tests build
// every one and run it against a stub driver). A test keeps this list and
// the recipes in step.
var reproducible = map[string]bool{
	"access.self-is-not-a-peer":              true,
	"access.uva-owner":                       true,
	"access.enable-is-directional":           true,
	"access.enable-errors":                   true,
	"access.enable-covers-allocations":       true,
	"access.peer-copy":                       true,
	"access.local-copy":                      true,
	"access.kernel-remote-read":              true,
	"access.kernel-remote-write":             true,
	"access.staged-copy":                     true,
	"access.host-mapped":                     true,
	"atomics.capability-report":              true,
	"atomics.counter-as-flag":                true,
	"atomics.intra-gpu-sys-rmw":              true,
	"atomics.concurrent-sys-rmw":             true,
	"atomics.host-native":                    true,
	"ordering.cross-device-event-handoff":    true,
	"ordering.elapsed-time-across-devices":   true,
	"ordering.source-reuse-after-completion": true,
	"ordering.submission-is-not-completion":  true,
	"ordering.host-device-handoff":           true,
	"ordering.flag-handoff-sys":              true,
	"ordering.litmus":                        true,
	"vmm.granularity":                        true,
	"vmm.fd-number-is-not-a-handle":          true,
	"vmm.no-access-until-set":                true,
	"vmm.peer-access-grant":                  true,
	"vmm.read-only-access":                   true,
	"vmm.access-is-per-range":                true,
	"vmm.fd-export-import":                   true,
	"vmm.release-while-mapped":               true,
	"vmm.import-outlives-exporter-release":   true,
	"ipc.same-process-open-rejected":         true,
	"ipc.event-flags":                        true,
	"ipc.mem-handle-roundtrip":               true,
	"ipc.raw-pointer-is-not-a-handle":        true,
	"ipc.close-then-free":                    true,
	"ipc.importer-killed":                    true,
	"ipc.event-handoff":                      true,
}

// notReproducible says why a check can have no standalone reproducer.
// A check in neither table simply has none yet.
var notReproducible = map[string]string{
	"access.capability-per-direction":            "compares CUDA's claims with NVML's (GetP2PStatus, topology level, NVLink count), which a driver-only C file does not load",
	"ipc.event-handoff-without-wait":             mutantReason,
	"ipc.exporter-exits-first":                   infoReason,
	"vmm.fabric-handle":                          infoReason,
	"atomics.gpu-scope-across-gpus":              infoReason,
	"ordering.cross-device-handoff-without-wait": mutantReason,
	"ordering.flag-handoff-weak":                 mutantReason,
	"bandwidth.copy-engine":                      measureReason,
	"bandwidth.sm-read-write":                    measureReason,
	"bandwidth.latency":                          measureReason,
	"bandwidth.copy-vs-direct":                   measureReason,
}

const (
	infoReason    = "informational: it records an observation and has no violation to reproduce"
	mutantReason  = "a mutant never fails on its outcome, so there is no violation to reproduce (its conf sibling is the one to reproduce)"
	measureReason = "informational measurement (bandwidth and latency against a baseline): timings, not a violation of a driver contract"
)
