// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuenum

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// pin ties one Go constant to the cuda.h enumerator it stands for.
type pin struct {
	got  any    // the Go constant, typed
	name string // the cuda.h enumerator (or #define) name
	want int64  // the value cuda.h gives that name
}

// pins holds every exported constant of the package, keyed by its Go name.
// The wanted numbers are copied from the CUDA Driver API reference, "Data
// types used by CUDA driver" (CUDA 13.x), which lists each enumerator of
// cuda.h with its value; they have not changed since the CUDA version that
// introduced them. They are written out here, independently of the
// constants, so a typo in either place fails TestValuesMatchCUDAHeader.
var pins = map[string]pin{
	// enum CUdevice_attribute
	"AttrMaxThreadsPerBlock":                     {AttrMaxThreadsPerBlock, "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK", 1},
	"AttrWarpSize":                               {AttrWarpSize, "CU_DEVICE_ATTRIBUTE_WARP_SIZE", 10},
	"AttrMultiprocessorCount":                    {AttrMultiprocessorCount, "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT", 16},
	"AttrCanMapHostMemory":                       {AttrCanMapHostMemory, "CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY", 19},
	"AttrComputeMode":                            {AttrComputeMode, "CU_DEVICE_ATTRIBUTE_COMPUTE_MODE", 20},
	"AttrPCIBusID":                               {AttrPCIBusID, "CU_DEVICE_ATTRIBUTE_PCI_BUS_ID", 33},
	"AttrPCIDeviceID":                            {AttrPCIDeviceID, "CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID", 34},
	"AttrL2CacheSize":                            {AttrL2CacheSize, "CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE", 38},
	"AttrUnifiedAddressing":                      {AttrUnifiedAddressing, "CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING", 41},
	"AttrPCIDomainID":                            {AttrPCIDomainID, "CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID", 50},
	"AttrComputeCapabilityMajor":                 {AttrComputeCapabilityMajor, "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR", 75},
	"AttrComputeCapabilityMinor":                 {AttrComputeCapabilityMinor, "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR", 76},
	"AttrManagedMemory":                          {AttrManagedMemory, "CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY", 83},
	"AttrHostNativeAtomicSupported":              {AttrHostNativeAtomicSupported, "CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED", 86},
	"AttrPageableMemoryAccess":                   {AttrPageableMemoryAccess, "CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS", 88},
	"AttrConcurrentManagedAccess":                {AttrConcurrentManagedAccess, "CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS", 89},
	"AttrCanUseHostPointerForRegisteredMem":      {AttrCanUseHostPointerForRegisteredMem, "CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM", 91},
	"AttrCooperativeLaunch":                      {AttrCooperativeLaunch, "CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH", 95},
	"AttrPageableMemoryAccessUsesHostPageTables": {AttrPageableMemoryAccessUsesHostPageTables, "CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES", 100},
	"AttrVirtualMemoryManagementSupported":       {AttrVirtualMemoryManagementSupported, "CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED", 102},
	"AttrHandleTypePosixFDSupported":             {AttrHandleTypePosixFDSupported, "CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED", 103},
	"AttrGPUDirectRDMAWithVMMSupported":          {AttrGPUDirectRDMAWithVMMSupported, "CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED", 110},
	"AttrMemoryPoolsSupported":                   {AttrMemoryPoolsSupported, "CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED", 115},
	"AttrIPCEventSupported":                      {AttrIPCEventSupported, "CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED", 125},
	"AttrHandleTypeFabricSupported":              {AttrHandleTypeFabricSupported, "CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED", 128},
	"AttrHostVirtualMemoryManagementSupported":   {AttrHostVirtualMemoryManagementSupported, "CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED", 145},
	"AttrOnlyPartialHostNativeAtomicSupported":   {AttrOnlyPartialHostNativeAtomicSupported, "CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED", 147},

	// enum CUdevice_P2PAttribute
	"P2PPerformanceRank":                  {P2PPerformanceRank, "CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK", 0x01},
	"P2PAccessSupported":                  {P2PAccessSupported, "CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED", 0x02},
	"P2PNativeAtomicSupported":            {P2PNativeAtomicSupported, "CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED", 0x03},
	"P2PCudaArrayAccessSupported":         {P2PCudaArrayAccessSupported, "CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED", 0x04},
	"P2POnlyPartialNativeAtomicSupported": {P2POnlyPartialNativeAtomicSupported, "CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED", 0x05},

	// enum CUatomicOperation (CUDA 13.0)
	"AtomicIntegerAdd":       {AtomicIntegerAdd, "CU_ATOMIC_OPERATION_INTEGER_ADD", 0},
	"AtomicIntegerMin":       {AtomicIntegerMin, "CU_ATOMIC_OPERATION_INTEGER_MIN", 1},
	"AtomicIntegerMax":       {AtomicIntegerMax, "CU_ATOMIC_OPERATION_INTEGER_MAX", 2},
	"AtomicIntegerIncrement": {AtomicIntegerIncrement, "CU_ATOMIC_OPERATION_INTEGER_INCREMENT", 3},
	"AtomicIntegerDecrement": {AtomicIntegerDecrement, "CU_ATOMIC_OPERATION_INTEGER_DECREMENT", 4},
	"AtomicAnd":              {AtomicAnd, "CU_ATOMIC_OPERATION_AND", 5},
	"AtomicOr":               {AtomicOr, "CU_ATOMIC_OPERATION_OR", 6},
	"AtomicXor":              {AtomicXor, "CU_ATOMIC_OPERATION_XOR", 7},
	"AtomicExchange":         {AtomicExchange, "CU_ATOMIC_OPERATION_EXCHANGE", 8},
	"AtomicCAS":              {AtomicCAS, "CU_ATOMIC_OPERATION_CAS", 9},
	"AtomicFloatAdd":         {AtomicFloatAdd, "CU_ATOMIC_OPERATION_FLOAT_ADD", 10},
	"AtomicFloatMin":         {AtomicFloatMin, "CU_ATOMIC_OPERATION_FLOAT_MIN", 11},
	"AtomicFloatMax":         {AtomicFloatMax, "CU_ATOMIC_OPERATION_FLOAT_MAX", 12},
	// cuda.h gives no number: it follows FLOAT_MAX = 12.
	"AtomicOperationCount": {AtomicOperationCount, "CU_ATOMIC_OPERATION_MAX", 13},

	// enum CUatomicOperationCapability (CUDA 13.0)
	"CapSigned":     {CapSigned, "CU_ATOMIC_CAPABILITY_SIGNED", 1 << 0},
	"CapUnsigned":   {CapUnsigned, "CU_ATOMIC_CAPABILITY_UNSIGNED", 1 << 1},
	"CapReduction":  {CapReduction, "CU_ATOMIC_CAPABILITY_REDUCTION", 1 << 2},
	"CapScalar32":   {CapScalar32, "CU_ATOMIC_CAPABILITY_SCALAR_32", 1 << 3},
	"CapScalar64":   {CapScalar64, "CU_ATOMIC_CAPABILITY_SCALAR_64", 1 << 4},
	"CapScalar128":  {CapScalar128, "CU_ATOMIC_CAPABILITY_SCALAR_128", 1 << 5},
	"CapVector32x4": {CapVector32x4, "CU_ATOMIC_CAPABILITY_VECTOR_32x4", 1 << 6},

	// enum CUpointer_attribute
	"PointerContext":                {PointerContext, "CU_POINTER_ATTRIBUTE_CONTEXT", 1},
	"PointerMemoryType":             {PointerMemoryType, "CU_POINTER_ATTRIBUTE_MEMORY_TYPE", 2},
	"PointerDevicePointer":          {PointerDevicePointer, "CU_POINTER_ATTRIBUTE_DEVICE_POINTER", 3},
	"PointerHostPointer":            {PointerHostPointer, "CU_POINTER_ATTRIBUTE_HOST_POINTER", 4},
	"PointerIsManaged":              {PointerIsManaged, "CU_POINTER_ATTRIBUTE_IS_MANAGED", 8},
	"PointerDeviceOrdinal":          {PointerDeviceOrdinal, "CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL", 9},
	"PointerIsLegacyCudaIPCCapable": {PointerIsLegacyCudaIPCCapable, "CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE", 10},
	"PointerRangeStartAddr":         {PointerRangeStartAddr, "CU_POINTER_ATTRIBUTE_RANGE_START_ADDR", 11},
	"PointerRangeSize":              {PointerRangeSize, "CU_POINTER_ATTRIBUTE_RANGE_SIZE", 12},
	"PointerMapped":                 {PointerMapped, "CU_POINTER_ATTRIBUTE_MAPPED", 13},
	"PointerAllowedHandleTypes":     {PointerAllowedHandleTypes, "CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES", 14},
	"PointerAccessFlags":            {PointerAccessFlags, "CU_POINTER_ATTRIBUTE_ACCESS_FLAGS", 16},
	"PointerMappingSize":            {PointerMappingSize, "CU_POINTER_ATTRIBUTE_MAPPING_SIZE", 18},
	"PointerMappingBaseAddr":        {PointerMappingBaseAddr, "CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR", 19},
	"PointerMemoryBlockID":          {PointerMemoryBlockID, "CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID", 20},

	// enum CUmemorytype
	"MemoryTypeHost":    {MemoryTypeHost, "CU_MEMORYTYPE_HOST", 0x01},
	"MemoryTypeDevice":  {MemoryTypeDevice, "CU_MEMORYTYPE_DEVICE", 0x02},
	"MemoryTypeArray":   {MemoryTypeArray, "CU_MEMORYTYPE_ARRAY", 0x03},
	"MemoryTypeUnified": {MemoryTypeUnified, "CU_MEMORYTYPE_UNIFIED", 0x04},

	// #define CU_MEMHOSTALLOC_*
	"HostAllocPortable":      {HostAllocPortable, "CU_MEMHOSTALLOC_PORTABLE", 0x01},
	"HostAllocDeviceMap":     {HostAllocDeviceMap, "CU_MEMHOSTALLOC_DEVICEMAP", 0x02},
	"HostAllocWriteCombined": {HostAllocWriteCombined, "CU_MEMHOSTALLOC_WRITECOMBINED", 0x04},

	// enum CUipcMem_flags
	"IPCMemLazyEnablePeerAccess": {IPCMemLazyEnablePeerAccess, "CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS", 0x1},

	// enum CUmemAllocationHandleType
	"HandleNone":   {HandleNone, "CU_MEM_HANDLE_TYPE_NONE", 0x0},
	"HandlePosix":  {HandlePosix, "CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR", 0x1},
	"HandleFabric": {HandleFabric, "CU_MEM_HANDLE_TYPE_FABRIC", 0x8},

	// enum CUmemAccess_flags
	"ProtNone":      {ProtNone, "CU_MEM_ACCESS_FLAGS_PROT_NONE", 0x0},
	"ProtRead":      {ProtRead, "CU_MEM_ACCESS_FLAGS_PROT_READ", 0x1},
	"ProtReadWrite": {ProtReadWrite, "CU_MEM_ACCESS_FLAGS_PROT_READWRITE", 0x3},

	// enum CUmemLocationType
	"LocationDevice":          {LocationDevice, "CU_MEM_LOCATION_TYPE_DEVICE", 0x1},
	"LocationHost":            {LocationHost, "CU_MEM_LOCATION_TYPE_HOST", 0x2},
	"LocationHostNUMA":        {LocationHostNUMA, "CU_MEM_LOCATION_TYPE_HOST_NUMA", 0x3},
	"LocationHostNUMACurrent": {LocationHostNUMACurrent, "CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT", 0x4},

	// enum CUmemAllocationType
	"AllocationPinned": {AllocationPinned, "CU_MEM_ALLOCATION_TYPE_PINNED", 0x1},

	// enum CUmemAllocationGranularity_flags
	"GranularityMinimum":     {GranularityMinimum, "CU_MEM_ALLOC_GRANULARITY_MINIMUM", 0x0},
	"GranularityRecommended": {GranularityRecommended, "CU_MEM_ALLOC_GRANULARITY_RECOMMENDED", 0x1},

	// enum CUstream_flags
	"StreamNonBlocking": {StreamNonBlocking, "CU_STREAM_NON_BLOCKING", 0x1},

	// enum CUevent_flags
	"EventDefault":       {EventDefault, "CU_EVENT_DEFAULT", 0x0},
	"EventBlockingSync":  {EventBlockingSync, "CU_EVENT_BLOCKING_SYNC", 0x1},
	"EventDisableTiming": {EventDisableTiming, "CU_EVENT_DISABLE_TIMING", 0x2},
	"EventInterprocess":  {EventInterprocess, "CU_EVENT_INTERPROCESS", 0x4},
}

// value is the number behind a typed constant of any integer kind.
func value(c any) int64 {
	v := reflect.ValueOf(c)
	if v.CanInt() {
		return v.Int()
	}
	return int64(v.Uint())
}

func TestValuesMatchCUDAHeader(t *testing.T) {
	for goName, p := range pins {
		if got := value(p.got); got != p.want {
			t.Errorf("%s = %d, but cuda.h has %s = %d", goName, got, p.name, p.want)
		}
	}
}

// TestEveryConstantIsPinned reads the package source, so a constant added
// without a pin (or a pin left for a removed constant) fails.
func TestEveryConstantIsPinned(t *testing.T) {
	declared := exportedConstants(t)
	for _, n := range declared {
		if _, ok := pins[n]; !ok {
			t.Errorf("constant %s has no pin: add its cuda.h name and value to pins", n)
		}
	}
	have := map[string]bool{}
	for _, n := range declared {
		have[n] = true
	}
	for n := range pins {
		if !have[n] {
			t.Errorf("pin %s names no constant of the package", n)
		}
	}
	if len(declared) < 90 {
		t.Errorf("found only %d constants in the package source; the parse missed some", len(declared))
	}
}

func exportedConstants(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatalf("listing the package: %v", err)
	}
	fset := token.NewFileSet()
	var names []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatalf("parsing %s: %v", e.Name(), err)
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				names = append(names, constNames(g)...)
			}
		}
	}
	sort.Strings(names)
	return names
}

// constNames lists the exported names a const declaration declares.
func constNames(g *ast.GenDecl) []string {
	var names []string
	for _, s := range g.Specs {
		for _, n := range s.(*ast.ValueSpec).Names {
			if n.IsExported() {
				names = append(names, n.Name)
			}
		}
	}
	return names
}

// TestStringsUseCUDANames checks that the enums that print themselves print
// the cuda.h name (or, for masks and access flags, its suffix).
func TestStringsUseCUDANames(t *testing.T) {
	for goName, p := range pins {
		s, ok := p.got.(fmt.Stringer)
		if !ok || goName == "AtomicOperationCount" { // not an operation: prints as a number
			continue
		}
		if str := s.String(); !strings.HasSuffix(p.name, str) || len(str) < 3 {
			t.Errorf("%s.String() = %q, want %s or a suffix of it", goName, str, p.name)
		}
	}
}

func TestStringsOfUnknownValues(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{DeviceAttr(999).String(), "CU_DEVICE_ATTRIBUTE_999"},
		{P2PAttr(9).String(), "CU_DEVICE_P2P_ATTRIBUTE_9"},
		{AtomicOperationCount.String(), "CU_ATOMIC_OPERATION_13"},
		{AtomicOperation(-1).String(), "CU_ATOMIC_OPERATION_-1"},
		{AccessFlags(2).String(), "PROT_2"},
		{AtomicCaps(0).String(), "0"},
		{(CapSigned | CapScalar64 | 1<<9).String(), "SIGNED|SCALAR_64|0x200"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestAllAtomicOperations(t *testing.T) {
	ops := AllAtomicOperations()
	if len(ops) != int(AtomicOperationCount) {
		t.Fatalf("AllAtomicOperations() has %d operations, want %d", len(ops), AtomicOperationCount)
	}
	for i, op := range ops {
		if int(op) != i {
			t.Errorf("AllAtomicOperations()[%d] = %d, want the operation numbered %d", i, op, i)
		}
	}
}
