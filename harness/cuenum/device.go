// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuenum

import "fmt"

// DeviceAttr is a CUdevice_attribute value (cuDeviceGetAttribute).
type DeviceAttr int32

// Device attributes p2pconf reads. Those marked 13.0+ give
// CUDA_ERROR_INVALID_VALUE on older drivers.
const (
	AttrMaxThreadsPerBlock                     DeviceAttr = 1
	AttrWarpSize                               DeviceAttr = 10
	AttrMultiprocessorCount                    DeviceAttr = 16
	AttrCanMapHostMemory                       DeviceAttr = 19
	AttrComputeMode                            DeviceAttr = 20
	AttrPCIBusID                               DeviceAttr = 33
	AttrPCIDeviceID                            DeviceAttr = 34
	AttrL2CacheSize                            DeviceAttr = 38
	AttrUnifiedAddressing                      DeviceAttr = 41
	AttrPCIDomainID                            DeviceAttr = 50
	AttrComputeCapabilityMajor                 DeviceAttr = 75
	AttrComputeCapabilityMinor                 DeviceAttr = 76
	AttrManagedMemory                          DeviceAttr = 83
	AttrHostNativeAtomicSupported              DeviceAttr = 86
	AttrPageableMemoryAccess                   DeviceAttr = 88
	AttrConcurrentManagedAccess                DeviceAttr = 89
	AttrCanUseHostPointerForRegisteredMem      DeviceAttr = 91
	AttrCooperativeLaunch                      DeviceAttr = 95
	AttrPageableMemoryAccessUsesHostPageTables DeviceAttr = 100
	AttrVirtualMemoryManagementSupported       DeviceAttr = 102
	AttrHandleTypePosixFDSupported             DeviceAttr = 103
	AttrGPUDirectRDMAWithVMMSupported          DeviceAttr = 110
	AttrMemoryPoolsSupported                   DeviceAttr = 115
	AttrIPCEventSupported                      DeviceAttr = 125
	AttrHandleTypeFabricSupported              DeviceAttr = 128
	AttrHostVirtualMemoryManagementSupported   DeviceAttr = 145 // 13.0+
	AttrOnlyPartialHostNativeAtomicSupported   DeviceAttr = 147 // 13.0+
)

var deviceAttrNames = map[DeviceAttr]string{
	AttrMaxThreadsPerBlock:                     "MAX_THREADS_PER_BLOCK",
	AttrWarpSize:                               "WARP_SIZE",
	AttrMultiprocessorCount:                    "MULTIPROCESSOR_COUNT",
	AttrCanMapHostMemory:                       "CAN_MAP_HOST_MEMORY",
	AttrComputeMode:                            "COMPUTE_MODE",
	AttrPCIBusID:                               "PCI_BUS_ID",
	AttrPCIDeviceID:                            "PCI_DEVICE_ID",
	AttrL2CacheSize:                            "L2_CACHE_SIZE",
	AttrUnifiedAddressing:                      "UNIFIED_ADDRESSING",
	AttrPCIDomainID:                            "PCI_DOMAIN_ID",
	AttrComputeCapabilityMajor:                 "COMPUTE_CAPABILITY_MAJOR",
	AttrComputeCapabilityMinor:                 "COMPUTE_CAPABILITY_MINOR",
	AttrManagedMemory:                          "MANAGED_MEMORY",
	AttrHostNativeAtomicSupported:              "HOST_NATIVE_ATOMIC_SUPPORTED",
	AttrPageableMemoryAccess:                   "PAGEABLE_MEMORY_ACCESS",
	AttrConcurrentManagedAccess:                "CONCURRENT_MANAGED_ACCESS",
	AttrCanUseHostPointerForRegisteredMem:      "CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM",
	AttrCooperativeLaunch:                      "COOPERATIVE_LAUNCH",
	AttrPageableMemoryAccessUsesHostPageTables: "PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES",
	AttrVirtualMemoryManagementSupported:       "VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED",
	AttrHandleTypePosixFDSupported:             "HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED",
	AttrGPUDirectRDMAWithVMMSupported:          "GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED",
	AttrMemoryPoolsSupported:                   "MEMORY_POOLS_SUPPORTED",
	AttrIPCEventSupported:                      "IPC_EVENT_SUPPORTED",
	AttrHandleTypeFabricSupported:              "HANDLE_TYPE_FABRIC_SUPPORTED",
	AttrHostVirtualMemoryManagementSupported:   "HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED",
	AttrOnlyPartialHostNativeAtomicSupported:   "ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED",
}

// String gives the cuda.h name, e.g. "CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED",
// so messages name the attribute the way the driver documentation does.
func (a DeviceAttr) String() string {
	if n, ok := deviceAttrNames[a]; ok {
		return "CU_DEVICE_ATTRIBUTE_" + n
	}
	return fmt.Sprintf("CU_DEVICE_ATTRIBUTE_%d", int32(a))
}

// P2PAttr is a CUdevice_P2PAttribute value (cuDeviceGetP2PAttribute).
type P2PAttr int32

// P2P attributes of a directed device pair.
const (
	P2PPerformanceRank                  P2PAttr = 1 // lower is better, 0 best
	P2PAccessSupported                  P2PAttr = 2
	P2PNativeAtomicSupported            P2PAttr = 3
	P2PCudaArrayAccessSupported         P2PAttr = 4
	P2POnlyPartialNativeAtomicSupported P2PAttr = 5 // 13.0+; older drivers: CUDA_ERROR_INVALID_VALUE
)

var p2pAttrNames = map[P2PAttr]string{
	P2PPerformanceRank:                  "PERFORMANCE_RANK",
	P2PAccessSupported:                  "ACCESS_SUPPORTED",
	P2PNativeAtomicSupported:            "NATIVE_ATOMIC_SUPPORTED",
	P2PCudaArrayAccessSupported:         "CUDA_ARRAY_ACCESS_SUPPORTED",
	P2POnlyPartialNativeAtomicSupported: "ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED",
}

// String gives the cuda.h name, e.g. "CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED".
func (a P2PAttr) String() string {
	if n, ok := p2pAttrNames[a]; ok {
		return "CU_DEVICE_P2P_ATTRIBUTE_" + n
	}
	return fmt.Sprintf("CU_DEVICE_P2P_ATTRIBUTE_%d", int32(a))
}
