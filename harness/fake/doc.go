// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package fake is the in-memory backend: GPUs simulated in Go, with preset
// topologies (Presets) and injectable driver defects (Defects), so every
// suite runs on a machine without a GPU and can prove it fails when the
// driver is wrong (`make mutation`).
//
// Suites never import this package; the harness opens it when
// P2PCONF_BACKEND=fake (preset from P2PCONF_FAKE, defects from
// P2PCONF_FAKE_DEFECTS).
//
// # The simulated machine
//
//   - Memory. Every device allocation (cuMemAlloc and cuMemCreate) is a file
//     in the state directory (P2PCONF_FAKE_STATE, or a private 0700 directory
//     that Open creates and exports to helper processes), mapped MAP_SHARED,
//     so helper processes can map the same bytes: IPC handles name the file,
//     ExportFD returns a real descriptor of it. A process holding any
//     reference keeps a shared flock on the file; the kernel drops it when
//     the last descriptor and mapping go, also when a process dies. MemInfo
//     counts the files that are still locked, so a leak in any process shows,
//     and a helper killed while holding a mapping does not.
//   - Addresses. Each process (each Backend) has its own randomised slot of
//     the fake virtual address space, so a pointer value from another process
//     is simply not mapped. Pinned host memory is anonymous shared memory at
//     its real host address, which is also its device address (as under UVA).
//   - Access. Every simulated access checks that the launching GPU may touch
//     the address (own memory; peer memory after EnablePeerAccess in this
//     process; IPC-imported memory for the importing GPU; VMM ranges as
//     MemSetAccess granted; pinned host memory for all). A violation fails
//     the launch with CUDA_ERROR_ILLEGAL_ADDRESS and poisons that GPU's
//     context in this process for good, as the real driver does.
//   - NVML. go-nvml's mocks, agreeing with the CUDA side: P2P status,
//     common ancestors, NVLinks (state, version, far end's PCI address and
//     type), the PCIe link's generation and width (NVML enumerates the GPUs
//     in a rotated order).
//   - Work. Each stream is a goroutine that runs its queue in order; kernels
//     run their descriptor's Sim with this package's Grid and Thread. Memory
//     is sequentially consistent (sync/atomic on the shared bytes) unless a
//     defect says otherwise.
//
// # Adding a defect
//
//  1. Append a bit at the end of the defect constants and an entry at the
//     end of defectTable in defects.go (merges stay easy): a name, the
//     suite that owns it, the preset where it shows, what goes wrong (a
//     driver bug people have reported, with its source where there is one)
//     and the check IDs that must catch it, from the catalogue
//     (harness/checks) of the owning suite. Name two where two checks
//     state the contract; where one does, harness/checks/sole.go must say
//     why (TestSoleCatchersHaveAReason).
//  2. Make the backend misbehave where the driver would, behind
//     b.defects.has(bit); state the defect must remember between calls
//     goes in defectState (defects_sim.go), not in Backend.
//  3. Add its probe to the symptoms table (defects_test.go, or an init in
//     another _test.go file): a few backend calls that report whether the
//     wrong behaviour shows. TestEachDefectShowsAlone runs it on the preset
//     clean (it must not show) and with the defect alone (it must).
//  4. Run `go run ./cmd/mutation -defects <name> -runs 1` (add -into own
//     for a quick look at the owning suite alone): every declared catcher
//     must fail on its own assertion (or, its body passing, in a release
//     it registered with a driver call's error) in every run. The report also lists
//     every other spec that caught it and whether one check is its only
//     catcher.
package fake
