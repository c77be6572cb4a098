// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

/*
#include "shim.h"
*/
import "C"

import "unsafe"

// cLayouts reports the sizes and field offsets of the C structs the binding
// hands to the driver, as the cgo compiler sees them. Test files cannot use
// cgo, so layout_test.go reads them here and pins them to the layouts of
// cuda.h (docs/observations.md, struct layouts).
func cLayouts() map[string]uintptr {
	var prop C.CUmemAllocationProp
	var access C.CUmemAccessDesc
	var loc C.CUmemLocation
	return map[string]uintptr{
		"CUmemLocation":                            unsafe.Sizeof(loc),
		"CUmemLocation.id":                         unsafe.Offsetof(loc.id),
		"CUmemAllocationProp":                      unsafe.Sizeof(prop),
		"CUmemAllocationProp.requestedHandleTypes": unsafe.Offsetof(prop.requestedHandleTypes),
		"CUmemAllocationProp.location":             unsafe.Offsetof(prop.location),
		"CUmemAllocationProp.win32HandleMetaData":  unsafe.Offsetof(prop.win32HandleMetaData),
		"CUmemAllocationProp.allocFlags":           unsafe.Offsetof(prop.allocFlags),
		"allocFlags.gpuDirectRDMACapable":          unsafe.Offsetof(prop.allocFlags.gpuDirectRDMACapable),
		"allocFlags.usage":                         unsafe.Offsetof(prop.allocFlags.usage),
		"allocFlags.reserved":                      unsafe.Offsetof(prop.allocFlags.reserved),
		"CUmemAccessDesc":                          unsafe.Sizeof(access),
		"CUmemAccessDesc.flags":                    unsafe.Offsetof(access.flags),
		"CUipcMemHandle":                           unsafe.Sizeof(C.CUipcMemHandle{}),
		"CUipcEventHandle":                         unsafe.Sizeof(C.CUipcEventHandle{}),
		"CUmemFabricHandle":                        unsafe.Sizeof(C.CUmemFabricHandle{}),
		"CUuuid":                                   unsafe.Sizeof(C.CUuuid{}),
		"kernelParamSlot":                          paramSlot,
	}
}
