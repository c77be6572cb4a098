// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuenum

// managedPins adds the Unified Memory enums to pins, from the CUDA Driver
// API reference (CUmemAttach_flags, CUmem_advise, CUmem_range_attribute,
// CU_DEVICE_CPU and CU_DEVICE_INVALID).
var managedPins = map[string]pin{
	"MemAttachGlobal":              {MemAttachGlobal, "CU_MEM_ATTACH_GLOBAL", 1},
	"MemAttachHost":                {MemAttachHost, "CU_MEM_ATTACH_HOST", 2},
	"MemAttachSingle":              {MemAttachSingle, "CU_MEM_ATTACH_SINGLE", 4},
	"AdviseSetReadMostly":          {AdviseSetReadMostly, "CU_MEM_ADVISE_SET_READ_MOSTLY", 1},
	"AdviseUnsetReadMostly":        {AdviseUnsetReadMostly, "CU_MEM_ADVISE_UNSET_READ_MOSTLY", 2},
	"AdviseSetPreferredLocation":   {AdviseSetPreferredLocation, "CU_MEM_ADVISE_SET_PREFERRED_LOCATION", 3},
	"AdviseUnsetPreferredLocation": {AdviseUnsetPreferredLocation, "CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION", 4},
	"AdviseSetAccessedBy":          {AdviseSetAccessedBy, "CU_MEM_ADVISE_SET_ACCESSED_BY", 5},
	"AdviseUnsetAccessedBy":        {AdviseUnsetAccessedBy, "CU_MEM_ADVISE_UNSET_ACCESSED_BY", 6},
	"RangeReadMostly":              {RangeReadMostly, "CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY", 1},
	"RangePreferredLocation":       {RangePreferredLocation, "CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION", 2},
	"RangeAccessedBy":              {RangeAccessedBy, "CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY", 3},
	"RangeLastPrefetchLocation":    {RangeLastPrefetchLocation, "CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION", 4},
	"DeviceCPU":                    {DeviceCPU, "CU_DEVICE_CPU", -1},
	"DeviceInvalid":                {DeviceInvalid, "CU_DEVICE_INVALID", -2},
}

func init() {
	for k, v := range managedPins {
		pins[k] = v
	}
}
