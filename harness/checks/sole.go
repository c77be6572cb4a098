// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package checks

import "sort"

// soleCatcher says, for each check that is the one declared catcher of a
// fake defect (harness/fake, DefectInfo.Catchers), why no second check is
// declared for that contract: what this check alone states. The mutation
// run (cmd/mutation) lists every other spec that caught a defect too; a
// spec that catches it only by accident (a stale value breaking an
// unrelated comparison) is not declared, so that a declared catcher is one
// whose requirement the defect breaks. harness/fake's tests hold every
// such check to a reason here.
var soleCatcher = map[string]string{
	"access.capability-per-direction":      "the only check that holds what CUDA and NVML claim for a direction against what that direction does; other pair checks run where the claims let them and report a lost store or load, not a false claim",
	"access.disable-is-directional":        "the only check that disables one direction of peer access and then uses the other; the other checks enable access and keep it",
	"access.enable-errors":                 "the only check that disables peer access and then looks for access the disable should have removed, and for the error codes of enable and disable out of order",
	"access.enable-is-directional":         "the only check that, after enabling one direction, touches the peer's memory from the other direction (in a helper process, since the access must fault)",
	"access.host-mapped":                   "the only check of kernel stores and loads through mapped pinned host memory and of the UNIFIED_ADDRESSING attribute; the host litmus placements use that memory to test ordering, not whether every store lands",
	"access.kernel-remote-read":            "the only check whose kernel loads a peer GPU's cuMemAlloc memory and compares every value read; the store and copy checks verify on the owner",
	"access.peer-copy":                     "the only check of the bytes cuMemcpyPeerAsync moves at every size and alignment it names (4 B to 4 GiB + 12 B, unaligned offsets), with peer access on and off",
	"access.self-is-not-a-peer":            "the only check that asks the driver whether a GPU is its own peer",
	"access.uva-owner":                     "the only check that reads which GPU the driver says owns a pointer (CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)",
	"atomics.cas-whole-word":               "the only check whose CAS is given an expected value that differs from the word in one half alone; the CAS loops of atomics.concurrent-sys-rmw and atomics.host-native retry with values that differ in the low bits",
	"atomics.capability-report":            "the only check that compares the per-operation masks of cuDeviceGetP2PAtomicCapabilities with the P2P atomic attributes and NVML: a claim against a claim, which no data path shows",
	"atomics.concurrent-sys-rmw":           "the only check that counts every operation and type of peer atomics from concurrent threads and checks each returned value; atomics.counter-as-flag uses one add and one width",
	"atomics.host-native":                  "the only check of GPU atomics on pinned host memory",
	"bandwidth.copy-engine":                "the only check that holds copy-engine figures against a baseline: a slow path moves the right bytes, so only a gated figure shows it",
	"bandwidth.link-efficiency":            "the only check that holds a pair's copy rate against the nominal rate of its link: a copy staged through the host moves the right bytes",
	"health.fabric":                        "the only check that reads the NVLink fabric's registration state",
	"health.link-errors":                   "the only check that compares NVLink and PCIe error counters before and after peer traffic, and the only one that needs those counters to be readable",
	"health.links-up":                      "the only check that counts active NVLinks against the topology's claim: a pair that lost a link still moves data, near its reduced nominal",
	"health.no-xid":                        "the only check that watches for Xid events raised outside the specs that provoke faults on purpose",
	"ipc.close-then-free":                  "the only check that closes an IPC mapping and then frees the exporter's allocation, measuring free memory",
	"ipc.event-flags":                      "the only check of the flags cuEventCreate demands for interprocess events",
	"ipc.mem-handle-roundtrip":             "the only check whose importer writes through a cuIpcOpenMemHandle mapping and has the exporter verify it",
	"ipc.open-twice-counts-references":     "the only check that opens one IPC handle twice in one context and uses the mapping between the two closes",
	"ipc.same-process-open-rejected":       "the only check that opens an IPC handle in the process that exported it",
	"managed.advise-readback":              "the only check that reads cuMemAdvise's advice back through the range attributes",
	"managed.attributes":                   "the only check of the pointer attributes of managed memory (IS_MANAGED)",
	"managed.concurrent-disjoint":          "the only check in which kernels of two GPUs store into one managed allocation at the same time",
	"managed.free-returns-memory":          "the only check that frees managed memory resident on a GPU and measures free memory",
	"managed.handoff":                      "the only check that moves managed data between the host and a GPU by prefetch and verifies every word where it arrived",
	"managed.read-mostly-coherent":         "the only check of READ_MOSTLY copies after a store",
	"ordering.cross-device-event-handoff":  "the only check in which a stream of one GPU waits (cuStreamWaitEvent) on an event of another before it reads the other's result",
	"ordering.wait-on-latest-record":       "the only check of this suite that records one event twice before a stream waits on it: ordering.cross-device-event-handoff records each event once per trial; ipc.event-handoff, of another suite, reuses one interprocess event over its trials and sees such a wait too, but only across processes",
	"ordering.elapsed-time-across-devices": "the only check that asks cuEventElapsedTime for events of two GPUs",
	"ordering.litmus":                      "the only check of single-location coherence and RMW atomicity within one thread's consecutive accesses (CoRR, CoWW, CoW-exch, atomicity, lost-update); the flag handoffs use distinct locations",
	"ordering.store-tearing":               "the only check that reads words while another GPU or the host stores them, for torn values",
	"vmm.fd-number-is-not-a-handle":        "the only check that gives cuMemImportFromShareableHandle a number that is not a descriptor",
	"vmm.granularity":                      "the only check of the sizes cuMemCreate accepts against its granularity",
	"vmm.no-access-until-set":              "the only check that touches a mapping before cuMemSetAccess at an address where nothing was mapped before (vmm.no-access-after-remap reuses an address)",
	"vmm.no-access-after-remap":            "the only check that maps memory at an address where a mapping with access was unmapped before, and touches it before cuMemSetAccess; vmm.no-access-until-set maps where nothing was ever mapped",
	"vmm.peer-access-grant":                "the only check in which a peer GPU writes through a VMM mapping that cuMemSetAccess granted it, verified by the owner",
	"vmm.release-while-mapped":             "the only check that releases a VMM allocation's handle while it is still mapped",
}

// SoleCatcherWhy is why check id is the one declared catcher of the
// defects that name it alone, and whether the catalogue says.
func SoleCatcherWhy(id string) (string, bool) {
	why, ok := soleCatcher[id]
	return why, ok && why != ""
}

// SoleCatchers lists the checks with a reason, sorted.
func SoleCatchers() []string {
	out := make([]string, 0, len(soleCatcher))
	for id := range soleCatcher {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}
