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
package fake
