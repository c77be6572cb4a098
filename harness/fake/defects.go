// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"fmt"
	"strings"
	"time"
)

// DefectInfo describes an injectable driver defect: what goes wrong, the
// suite whose specs must catch it, the preset it is injected on by
// `make mutation` (the one where it shows), and the check IDs that must
// catch it. A defect is caught only when one of its catchers fails on its
// own assertion (or its body passes and a release it registered fails with
// a driver call's error); a crash or a failure of any other spec does not count, so
// the catchers are what the suite claims to be able to detect.
type DefectInfo struct {
	Name        string
	Suite       string // access, ipc, vmm, atomics, ordering, bandwidth, health
	Preset      string
	Description string
	Catchers    []string // check IDs ("access.peer-copy") of Suite
}

// Gated reports whether only a gated run catches the defect: the owning
// suite must run against the report of a clean run on the same preset
// (P2PCONF_BASELINE=<that run's conformance.json>), as `make mutation` does
// for it.
func (d DefectInfo) Gated() bool {
	bit, err := defectBit(d.Name)
	return err == nil && gatedDefects.has(bit)
}

type defect uint64

const (
	dPeerEnableBothWays defect = 1 << iota
	dPeerStoreDropped
	dPeerCopyCorrupts
	dCanAccessPeerLies
	dPeerDisableIgnored
	dSelfPeerAllowed
	dPointerOwnerWrong
	dAtomicsLoseUpdates
	dHostAtomicsLoseUpdates
	dAtomicCapsOverstate
	dStreamWaitIgnored
	dEventCompletesEarly
	dReleaseNotOrdered
	dElapsedTimeCrossDevice
	dIPCCloseFreesExporter
	dIPCSameProcessOpen
	dIPCEventFlagsLax
	dVMMAccessBeforeSet
	dVMMReleaseFreesMapped
	dVMMGranularityLax
	dFreeLeaks
	dSlowPeerCopy
	dPeerEnableMissesEarlier
	dAtomicsU64LoseUpdates
	dPeerCopyOneWayDropped
	dIPCImportWritesDropped
	dVMMPeerWritesDropped
	dHostMappedWritesDropped
	dCopySizeCap
	dNVLinkDown
	dHostStagedPeerCopy
	dXidDuringSpec
	dNVLinkErrorsIncrement
	dFabricNotStarted
	dManagedPrefetchStale
	dManagedAdviceMisreported
	dManagedReadMostlyStale
	dManagedConcurrentWritesLost
	dManagedFreeLeaks
	dManagedNotFlagged
	dSameAddressLoadsReordered
	dSameAddressStoresReordered
	dNonAtomicAdd
	dFDNumberImportKeeps
	dErrorCountersUnsupported
	dGlobalTimerStalled
	dReversePeerAccessTimesOut
	dPeerCopyUnordered
	dIPCRefusedOpenKeeps
	dUVAAttributeZero
	dPeerBitOpReturnsStale
	dPeerLoadsNaN
	dFirstPeerCopyZeros
	dPeerEnableLate
	dPeerDisableBothWays
	dStoreTears
	dUnalignedCopyDropsTail
	dFirstOfTwoStoresLost
	dIPCReopenNotCounted
	dManagedPrefetchKeepsSourceCopy
	dCASComparesLowHalf
	dStreamWaitHonoursEarlierRecord
	dVMMUnmapKeepsAccess
	dHandoffServesStaleRead
)

// slowPeerRate is the rate peer work runs at under slow-peer-copy, in bytes
// per second: far below what the fake moves otherwise (its kernel copies
// ran at 0.5 GB/s and more, its copies at 10 GB/s and more, on a loaded
// two-core machine), so every gated peer figure falls to about a tenth of a
// clean run's or less, well beyond the test machine's own timing noise.
const slowPeerRate = 50e6

// slowPeerTime is how long moving n bytes between GPUs takes under
// slow-peer-copy.
func slowPeerTime(n uint64) time.Duration {
	return time.Duration(float64(n) / slowPeerRate * float64(time.Second))
}

// copySizeCap is where copies between two GPUs stop under copy-size-cap:
// 64 MiB and one page, just above the largest size the peer copy spec
// checked before sizes that straddle caps were added, so only those catch it.
const copySizeCap = 64<<20 + 4096

// gatedDefects are the defects that only a gated run catches (Gated).
const gatedDefects = dSlowPeerCopy

var defectTable = []struct {
	bit  defect
	info DefectInfo
}{
	{dPeerEnableBothWays, DefectInfo{"peer-enable-both-ways", "access", "h200x2",
		"enabling peer access A→B also lets B's kernels touch A's memory",
		[]string{"access.enable-is-directional"}}},
	{dPeerStoreDropped, DefectInfo{"peer-store-dropped", "access", "h200x2",
		"kernel stores from GPU0 into GPU1's memory are silently dropped",
		[]string{"access.kernel-remote-write", "access.enable-covers-allocations"}}},
	{dPeerCopyCorrupts, DefectInfo{"peer-copy-corrupts", "access", "h200x2",
		"copies between two GPUs' memory flip the middle word of the destination",
		[]string{"access.peer-copy"}}},
	{dCanAccessPeerLies, DefectInfo{"can-access-peer-lies", "access", "pcie4-nop2p",
		"CanAccessPeer, ACCESS_SUPPORTED and NVML claim P2P on pairs without it; enabling succeeds, peer stores vanish and peer loads read 0",
		[]string{"access.capability-per-direction"}}},
	{dPeerDisableIgnored, DefectInfo{"peer-disable-ignored", "access", "h200x2",
		"cuCtxDisablePeerAccess succeeds but kernels keep access to the peer's memory",
		[]string{"access.enable-errors"}}},
	{dSelfPeerAllowed, DefectInfo{"self-peer-allowed", "access", "h200x2",
		"cuDeviceCanAccessPeer(d, d) reports 1",
		[]string{"access.self-is-not-a-peer"}}},
	{dPointerOwnerWrong, DefectInfo{"pointer-owner-wrong", "access", "h200x2",
		"CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL reports 0 for every pointer",
		[]string{"access.uva-owner"}}},
	{dAtomicsLoseUpdates, DefectInfo{"atomics-lose-updates", "atomics", "h200x2",
		"every 16th atomic read-modify-write by one GPU on another GPU's memory is lost",
		[]string{"atomics.concurrent-sys-rmw"}}},
	{dHostAtomicsLoseUpdates, DefectInfo{"host-atomics-lose-updates", "atomics", "single",
		"every 16th GPU atomic read-modify-write on pinned host memory is lost",
		[]string{"atomics.host-native"}}},
	{dAtomicCapsOverstate, DefectInfo{"atomic-caps-overstate", "atomics", "mixed",
		"cuDeviceGetP2PAtomicCapabilities claims every operation native on P2P pairs whose NATIVE_ATOMIC_SUPPORTED is 0 or partial",
		[]string{"atomics.capability-report"}}},
	{dStreamWaitIgnored, DefectInfo{"stream-wait-ignored", "ordering", "h200x2",
		"cuStreamWaitEvent on an event of another GPU (an IPC-imported event exported from another GPU included) does nothing",
		[]string{"ordering.cross-device-event-handoff"}}},
	{dEventCompletesEarly, DefectInfo{"event-completes-early", "ordering", "h200x2",
		"an event reports complete as soon as it is recorded, before the work queued before it",
		[]string{"ordering.cross-device-event-handoff"}}},
	{dReleaseNotOrdered, DefectInfo{"release-not-ordered", "ordering", "mixed",
		"a release store or RMW does not wait for the thread's earlier weak/relaxed stores (held in a store buffer until a fence or the thread's end)",
		[]string{"ordering.flag-handoff-sys", "ordering.litmus"}}},
	{dElapsedTimeCrossDevice, DefectInfo{"elapsed-time-cross-device", "ordering", "h200x2",
		"cuEventElapsedTime of events of two GPUs returns a time instead of failing",
		[]string{"ordering.elapsed-time-across-devices"}}},
	{dIPCCloseFreesExporter, DefectInfo{"ipc-close-frees-exporter", "ipc", "h200x2",
		"cuIpcCloseMemHandle in the importer frees and poisons the exporter's allocation",
		[]string{"ipc.close-then-free"}}},
	{dIPCSameProcessOpen, DefectInfo{"ipc-same-process-open", "ipc", "h200x2",
		"cuIpcOpenMemHandle in the exporting process succeeds",
		[]string{"ipc.same-process-open-rejected"}}},
	{dIPCEventFlagsLax, DefectInfo{"ipc-event-flags-lax", "ipc", "h200x2",
		"cuEventCreate accepts INTERPROCESS without DISABLE_TIMING",
		[]string{"ipc.event-flags"}}},
	{dVMMAccessBeforeSet, DefectInfo{"vmm-access-before-set", "vmm", "h200x2",
		"a new mapping is readable and writable by every GPU before cuMemSetAccess, and cuMemGetAccess says PROT_READWRITE",
		[]string{"vmm.no-access-until-set"}}},
	{dVMMReleaseFreesMapped, DefectInfo{"vmm-release-frees-mapped", "vmm", "h200x2",
		"cuMemRelease frees (and poisons) physical memory that is still mapped",
		[]string{"vmm.release-while-mapped"}}},
	{dVMMGranularityLax, DefectInfo{"vmm-granularity-lax", "vmm", "h200x2",
		"cuMemCreate accepts sizes that are not a multiple of the granularity",
		[]string{"vmm.granularity"}}},
	{dFreeLeaks, DefectInfo{"free-leaks", "ipc", "h200x2",
		"cuMemFree succeeds but the memory stays allocated, so free memory never returns to its baseline",
		[]string{"ipc.close-then-free"}}},
	{dSlowPeerCopy, DefectInfo{Name: "slow-peer-copy", Suite: "bandwidth", Preset: "h200x2",
		Description: "copies between two GPUs' memory (cuMemcpyPeerAsync, cuMemcpyAsync) and kernels' accesses to a peer GPU's memory run at 50 MB/s (the stream stalls after the work until bytes/rate has passed since it began), so event-timed peer bandwidth drops far below a clean run's; caught only against that run's baseline",
		Catchers:    []string{"bandwidth.copy-engine"}}},

	// Defects modelled on driver bugs users have reported.
	{dPeerEnableMissesEarlier, DefectInfo{Name: "peer-enable-misses-earlier-allocs", Suite: "access", Preset: "h200x2",
		Description: "cuCtxEnablePeerAccess maps only the peer's allocations made after the enable: a kernel touching an older cuMemAlloc allocation of the peer faults with ILLEGAL_ADDRESS",
		Catchers:    []string{"access.enable-covers-allocations", "access.enable-errors"}}},
	{dAtomicsU64LoseUpdates, DefectInfo{Name: "atomics-u64-lose-updates", Suite: "atomics", Preset: "h200x2",
		Description: "every 16th 64-bit atomic read-modify-write by one GPU on another GPU's memory is lost; 32-bit atomics are exact",
		Catchers:    []string{"atomics.concurrent-sys-rmw"}}},
	{dPeerCopyOneWayDropped, DefectInfo{Name: "peer-copy-one-way-dropped", Suite: "access", Preset: "h200x2",
		Description: "copies from GPU1's memory into GPU0's memory complete without writing anything; the other direction and kernels' peer loads and stores work",
		Catchers:    []string{"access.peer-copy"}}},
	{dIPCImportWritesDropped, DefectInfo{Name: "ipc-import-writes-dropped", Suite: "ipc", Preset: "h200x2",
		Description: "kernel stores through a cuIpcOpenMemHandle mapping are silently dropped, while loads through it read the exporter's data",
		Catchers:    []string{"ipc.mem-handle-roundtrip"}}},
	{dVMMPeerWritesDropped, DefectInfo{Name: "vmm-peer-writes-dropped", Suite: "vmm", Preset: "h200x2",
		Description: "GPU1's kernel stores into a VMM mapping of GPU0's memory are silently dropped although cuMemSetAccess granted PROT_READWRITE; loads, and stores from GPU0 into GPU1's memory, work",
		Catchers:    []string{"vmm.peer-access-grant"}}},
	{dHostMappedWritesDropped, DefectInfo{Name: "host-mapped-writes-dropped", Suite: "access", Preset: "h200x2",
		Description: "GPU1's kernel stores into mapped pinned host memory are silently dropped; its loads from it, and GPU0's stores, work",
		Catchers:    []string{"access.host-mapped"}}},
	{dCopySizeCap, DefectInfo{Name: "copy-size-cap", Suite: "access", Preset: "h200x2",
		Description: "copies between two GPUs' memory (cuMemcpyPeerAsync, cuMemcpyAsync) silently stop after 64 MiB + 4 KiB: the rest of the destination is left untouched and the call and the stream report success; caught by access.peer-copy at its sizes above the cap",
		Catchers:    []string{"access.peer-copy"}}},

	// Defects of the machine around the driver: links, fabric, errors.
	{dNVLinkDown, DefectInfo{Name: "nvlink-down", Suite: "health", Preset: "h200x2",
		Description: "the first NVLink between GPU0 and GPU1 is inactive on both ends (NVML state DISABLED, its far end still named) while the preset has 18: NVML and nvidia-smi count NV17; copies run at the usual share of the 17 links left, so bandwidth.link-efficiency, which holds them against NVML's 17-link nominal, does not see it",
		Catchers:    []string{"health.links-up"}}},
	{dHostStagedPeerCopy, DefectInfo{Name: "host-staged-peer-copy", Suite: "bandwidth", Preset: "h200x2",
		Description: "copies between two GPUs' memory move at the rate of a copy staged through host memory (half the narrower PCIe link's modelled rate) although peer access is enabled over NVLink; the data still arrives",
		Catchers:    []string{"bandwidth.link-efficiency"}}},
	{dXidDuringSpec, DefectInfo{Name: "xid-during-spec", Suite: "health", Preset: "h200x2",
		Description: "NVML delivers Xid 74 (NVLink error) on GPU1 once, after the first work GPU1 runs following the registration for Xid events",
		Catchers:    []string{"health.no-xid"}}},
	{dNVLinkErrorsIncrement, DefectInfo{Name: "nvlink-errors-increment", Suite: "health", Preset: "h200x2",
		Description: "every copy between two GPUs adds one replay and one CRC flit error to the source GPU's first NVLink's counters",
		Catchers:    []string{"health.link-errors"}}},
	{dFabricNotStarted, DefectInfo{Name: "fabric-not-started", Suite: "health", Preset: "h200x2",
		Description: "NVML reports every GPU's fabric registration IN_PROGRESS with status NOT_READY (as with a fabric manager that has not finished)",
		Catchers:    []string{"health.fabric"}}},

	// Unified Memory (managed.go).
	{dManagedPrefetchStale, DefectInfo{Name: "managed-prefetch-stale", Suite: "managed", Preset: "h200x2",
		Description: "cuMemPrefetchAsync of managed memory leaves its first page as it was at the previous prefetch (stale data at the destination); the call and the stream report success",
		Catchers:    []string{"managed.handoff"}}},
	{dManagedAdviceMisreported, DefectInfo{Name: "managed-advice-misreported", Suite: "managed", Preset: "h200x2",
		Description: "cuMemAdvise(SET_PREFERRED_LOCATION) to a GPU succeeds, but the range's PREFERRED_LOCATION reads back as the host (CU_DEVICE_CPU)",
		Catchers:    []string{"managed.advise-readback"}}},
	{dManagedReadMostlyStale, DefectInfo{Name: "managed-read-mostly-stale", Suite: "managed", Preset: "h200x2",
		Description: "a store into READ_MOSTLY managed memory does not invalidate the read-only copies that prefetches made: a kernel on the copy's GPU reads the data as it was at the prefetch",
		Catchers:    []string{"managed.read-mostly-coherent"}}},
	{dManagedConcurrentWritesLost, DefectInfo{Name: "managed-concurrent-writes-lost", Suite: "managed", Preset: "h200x2",
		Description: "kernel stores into managed memory are dropped while a kernel of another GPU is running, although CONCURRENT_MANAGED_ACCESS is 1",
		Catchers:    []string{"managed.concurrent-disjoint"}}},
	{dManagedFreeLeaks, DefectInfo{Name: "managed-free-leaks", Suite: "managed", Preset: "h200x2",
		Description: "cuMemFree of managed memory succeeds but the memory stays counted as used by cuMemGetInfo",
		Catchers:    []string{"managed.free-returns-memory"}}},
	{dManagedNotFlagged, DefectInfo{Name: "managed-not-flagged", Suite: "managed", Preset: "h200x2",
		Description: "cuPointerGetAttribute(IS_MANAGED) reports 0 for memory from cuMemAllocManaged",
		Catchers:    []string{"managed.attributes"}}},
	// Defects of single-location ordering and RMW atomicity, caught only
	// by the coherence and RMW litmus tests (CoRR, CoWW, atomicity,
	// lost-update): no violation of either has been reported on NVIDIA GPUs
	// since Maxwell, so these defects are the checker's evidence that it
	// flags the forbidden outcomes (docs/litmus.md, "Evidence classes").
	{dSameAddressLoadsReordered, DefectInfo{Name: "same-address-loads-reordered", Suite: "ordering", Preset: "single",
		Description: "of two consecutive relaxed 32-bit loads of one word by one GPU thread, the second returns the value the word held before the first read it (the loads are performed out of order), so CoRR and CoWW readers see a newer value, then an older one",
		Catchers:    []string{"ordering.litmus"}}},
	{dSameAddressStoresReordered, DefectInfo{Name: "same-address-stores-reordered", Suite: "ordering", Preset: "single",
		Description: "of two consecutive relaxed 32-bit writes of one word by one GPU thread (a store, then a store or an RMW), the first is held back and lands after the second, overwriting it: a reader sees the second value, then the first, and the word ends with the first",
		Catchers:    []string{"ordering.litmus"}}},
	{dNonAtomicAdd, DefectInfo{Name: "non-atomic-add", Suite: "ordering", Preset: "single",
		Description: "a relaxed 32-bit atom.add is performed as a load and, a moment later, a store of the sum, so a store or add of another thread in between is lost",
		Catchers:    []string{"ordering.litmus"}}},
	// Defects that passed a vacuous path of a check before it was closed.
	{dFDNumberImportKeeps, DefectInfo{Name: "fd-number-import-keeps-reference", Suite: "vmm", Preset: "h200x2",
		Description: "cuMemImportFromShareableHandle given a number that is no descriptor of the importer looks the number up in its parent process (as pidfd_getfd would), takes a reference to that allocation, and still fails: the importer maps nothing and says so, but the exporter's released memory is never freed while the importer runs",
		Catchers:    []string{"vmm.fd-number-is-not-a-handle"}}},
	{dErrorCountersUnsupported, DefectInfo{Name: "nvml-error-counters-unsupported", Suite: "health", Preset: "h200x2",
		Description: "NVML answers NOT_SUPPORTED for the PCIe replay counter and every NVLink error counter (as drivers without the calls do, nvidia-resiliency-ext PR#302), so a window compares no counter at all",
		Catchers:    []string{"health.link-errors"}}},
	{dGlobalTimerStalled, DefectInfo{Name: "globaltimer-stalled", Suite: "ordering", Preset: "h200x2",
		Description: "%globaltimer does not advance within a kernel, so a delay kernel spins into its iteration cap: the slow producer the handoff checks rely on never lags",
		Catchers:    []string{"ordering.cross-device-event-handoff", "ordering.source-reuse-after-completion"}}},
	{dReversePeerAccessTimesOut, DefectInfo{Name: "reverse-peer-access-times-out", Suite: "access", Preset: "h200x2",
		Description: "enabling peer access A→B also maps A's memory for B's kernels (as peer-enable-both-ways), and a kernel on B touching it is killed with CUDA_ERROR_LAUNCH_TIMEOUT: a failure, but not a fault on the access",
		Catchers:    []string{"access.enable-is-directional"}}},
	{dPeerCopyUnordered, DefectInfo{Name: "peer-copy-ignores-stream-order", Suite: "ordering", Preset: "h200x2",
		Description: "cuMemcpyPeerAsync and cuMemcpyAsync between two GPUs' memory move the data when called, ahead of the work queued before them on their stream; work queued after them still waits",
		Catchers:    []string{"ordering.submission-is-not-completion", "ordering.cross-device-event-handoff"}}},
	{dIPCRefusedOpenKeeps, DefectInfo{Name: "ipc-refused-open-keeps-mapping", Suite: "ipc", Preset: "h200x2",
		Description: "cuIpcOpenMemHandle in the exporting process fails with INVALID_CONTEXT and returns no pointer, but keeps a mapping of the allocation, so cuMemFree does not free it",
		Catchers:    []string{"ipc.same-process-open-rejected"}}},
	{dUVAAttributeZero, DefectInfo{Name: "uva-attribute-zero", Suite: "access", Preset: "h200x2",
		Description: "cuDeviceGetAttribute(UNIFIED_ADDRESSING) answers 0 on every GPU of a 64-bit process, while addresses stay unified",
		Catchers:    []string{"access.host-mapped"}}},

	// More defects modelled on driver bugs users have reported.
	{dPeerBitOpReturnsStale, DefectInfo{Name: "peer-bitop-returns-stale", Suite: "atomics", Preset: "h200x2",
		Description: "every 16th atom.and/or/xor by one GPU on another GPU's memory applies its operation but returns the word as it was before the previous operation on it (a fetch served apart from the op, the shape of ROCm/clr#285); final values stay exact",
		Catchers:    []string{"atomics.concurrent-sys-rmw"}}},
	{dPeerLoadsNaN, DefectInfo{Name: "sm-peer-loads-nan", Suite: "access", Preset: "h200x2",
		Description: "kernel loads from another GPU's cuMemAlloc memory read a NaN (0x7FC00000 in every 32-bit word) while peer stores, atomics, copies and the owner's own loads work (nvbandwidth#19: only the SM read cases fail)",
		Catchers:    []string{"access.kernel-remote-read"}}},
	{dFirstPeerCopyZeros, DefectInfo{Name: "first-peer-copy-zeros", Suite: "access", Preset: "h200x2",
		Description: "the first copy between two GPUs' memory after cuCtxEnablePeerAccess between them writes zeros instead of the data; later copies work (pytorch#87363: the first transfer after boot is zeros)",
		Catchers:    []string{"access.peer-copy"}}},
	{dPeerEnableLate, DefectInfo{Name: "peer-enable-takes-effect-late", Suite: "access", Preset: "h200x2",
		Description: "for 100 ms after cuCtxEnablePeerAccess A→B returns, the mapping is not live yet: kernels on A read zeros from B's memory and their stores there vanish, with no error (users reported needing a 100 ms sleep after enabling peer access)",
		Catchers:    []string{"access.kernel-remote-read", "access.kernel-remote-write"}}},
	{dPeerDisableBothWays, DefectInfo{Name: "peer-disable-both-ways", Suite: "access", Preset: "h200x2",
		Description: "cuCtxDisablePeerAccess A→B also disables B→A: B's kernels fault on A's memory, and disabling B→A then fails with PEER_ACCESS_NOT_ENABLED (peer-access lifecycle bugs under enable/disable cycles, field failures mode 15)",
		Catchers:    []string{"access.disable-is-directional"}}},
	{dStoreTears, DefectInfo{Name: "store-tears", Suite: "ordering", Preset: "h200x2",
		Description: "an aligned 64-bit kernel store into another GPU's memory or into pinned host memory lands as two 32-bit halves, one after the other, so a concurrent reader can load half of one value and half of the next (torn flag-and-data words, as in vllm PR#2760; field failures mode 14)",
		Catchers:    []string{"ordering.store-tearing"}}},
	{dUnalignedCopyDropsTail, DefectInfo{Name: "unaligned-copy-drops-tail", Suite: "access", Preset: "h200x2",
		Description: "copies between device memory (cuMemcpyAsync within a GPU, cuMemcpyPeerAsync and cuMemcpyAsync between GPUs) whose byte count is not a multiple of 4 leave the last ByteCount mod 4 bytes unwritten, as a copy engine's word path without its byte tail would; the call and the stream report success",
		Catchers:    []string{"access.peer-copy", "access.local-copy"}}},
	// A coherence defect beside the three above: a write that never
	// happens. Two st.relaxed of one address merged into one, as ptxas
	// 13.0 does in a minimal kernel, is this behaviour too.
	{dFirstOfTwoStoresLost, DefectInfo{Name: "first-of-two-stores-lost", Suite: "ordering", Preset: "single",
		Description: "of two consecutive relaxed 32-bit writes of one word by one GPU thread (a store, then a store or an RMW), the first never lands: the second overwrites a word that never held it, and an RMW as the second write reads the value from before the first store (CoW-exch reads the initial value; CoWW's first value is never observed)",
		Catchers:    []string{"ordering.litmus"}}},
	{dIPCReopenNotCounted, DefectInfo{Name: "ipc-reopen-not-counted", Suite: "ipc", Preset: "h200x2",
		Description: "cuIpcOpenMemHandle of a handle the current context has already opened returns the existing pointer without counting a reference, so the first cuIpcCloseMemHandle unmaps the memory the second open still holds and the second close fails with INVALID_VALUE",
		Catchers:    []string{"ipc.open-twice-counts-references"}}},
	{dManagedPrefetchKeepsSourceCopy, DefectInfo{Name: "managed-prefetch-keeps-source-copy", Suite: "managed", Preset: "h200x2",
		Description: "cuMemPrefetchAsync of managed memory keeps a copy of the data at the location it migrates from, and a store at the destination does not invalidate it: the source's next access (a kernel on that GPU, or a copy to or from the host when the source is the host) reads the data as it was at the prefetch",
		Catchers:    []string{"managed.handoff"}}},
	// A comparison narrower than the operand: a stale expected value of a
	// CAS loop always differs in the low bits, so only a case that differs
	// in the high half alone shows it.
	{dCASComparesLowHalf, DefectInfo{Name: "cas-compares-low-half", Suite: "atomics", Preset: "h200x2",
		Description: "atom.cas compares only the low half of its operand (the low 32 bits of a .b64, the low 16 of a .b32) with the word: an expected value that differs from the word only in the high half still stores the new value (the whole word), on every GPU's memory, peer and host memory alike; the returned value stays the word's",
		Catchers:    []string{"atomics.cas-whole-word"}}},
	// A wait that reads the event's previous generation: an event recorded
	// once per trial never shows it.
	{dStreamWaitHonoursEarlierRecord, DefectInfo{Name: "stream-wait-honours-earlier-record", Suite: "ordering", Preset: "h200x2",
		Description: "cuStreamWaitEvent on an event recorded more than once waits for the record before the latest one (the previous capture) instead of the latest before the call, on events of any GPU or process; an event recorded once is waited for as it should be",
		Catchers:    []string{"ordering.wait-on-latest-record"}}},
	// Access kept by the page tables of a reused address: a mapping at an
	// address where nothing was mapped before never shows it.
	{dVMMUnmapKeepsAccess, DefectInfo{Name: "vmm-unmap-keeps-access", Suite: "vmm", Preset: "h200x2",
		Description: "cuMemUnmap leaves every device's access to the range in place: another allocation mapped at the same address (in the same reservation) is readable and writable by the devices the old mapping granted, without cuMemSetAccess, and cuMemGetAccess reports the old flags",
		Catchers:    []string{"vmm.no-access-after-remap"}}},
	// A stale copy of a read made before the synchronisation: only a
	// consumer that reads the data before it synchronises and again after
	// shows it, which no handoff did before the pre-read variants.
	{dHandoffServesStaleRead, DefectInfo{Name: "handoff-serves-stale-read", Suite: "ordering", Preset: "h200x2",
		Description: "after a consumer has read a buffer before it synchronises, its reads after the synchronisation are served from that earlier read (a stale cached copy the producer's writes did not invalidate): a kernel thread's relaxed and weak loads after an acquire load, acquire RMW or acquire fence return the value its own load of the word read before it (since its last release store or RMW, and unless it wrote the word itself), and a kernel queued after cuStreamWaitEvent reads the bytes that kernels of its stream read before the wait, until the stream does anything but run kernels; a consumer that reads nothing before it synchronises, as every handoff but the pre-read variants, never sees it",
		Catchers:    []string{"ordering.flag-handoff-sys", "ordering.cross-device-event-handoff"}}},
}

// Defects lists every injectable defect.
func Defects() []DefectInfo {
	out := make([]DefectInfo, len(defectTable))
	for i, d := range defectTable {
		out[i] = d.info
	}
	return out
}

// ParseDefects splits a P2PCONF_FAKE_DEFECTS value ("a,b") into names and
// checks each; an unknown name is an error listing the valid ones.
func ParseDefects(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if _, err := defectBit(f); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func defectBit(name string) (defect, error) {
	for _, d := range defectTable {
		if d.info.Name == name {
			return d.bit, nil
		}
	}
	names := make([]string, len(defectTable))
	for i, d := range defectTable {
		names[i] = d.info.Name
	}
	return 0, fmt.Errorf("fake: unknown defect %q (valid: %s)", name, strings.Join(names, ", "))
}

func parseDefectSet(names []string) (defect, error) {
	var set defect
	for _, n := range names {
		bit, err := defectBit(strings.TrimSpace(n))
		if err != nil {
			return 0, err
		}
		set |= bit
	}
	return set, nil
}

func (s defect) has(d defect) bool { return s&d != 0 }
