// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package health

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/p2pconf/p2pconf/harness/topology"
)

// LinkSpeed reads FI_DEV_NVLINK_SPEED_MBPS_COMMON, the speed every active
// NVLink of d runs at, in MB/s.
func LinkSpeed(d nvml.Device, name string) (Reading, error) {
	vals := []nvml.FieldValue{{FieldId: nvml.FI_DEV_NVLINK_SPEED_MBPS_COMMON}}
	ret := d.GetFieldValues(vals)
	if ret == nvml.SUCCESS {
		ret = nvml.Return(vals[0].NvmlReturn)
	}
	var n uint64
	if ret == nvml.SUCCESS {
		n = fieldUint(vals[0])
	}
	return reading(n, ret, "nvmlDeviceGetFieldValues(FI_DEV_NVLINK_SPEED_MBPS_COMMON)", name)
}

// fieldUint reads a field value's number whatever its declared type.
func fieldUint(v nvml.FieldValue) uint64 {
	switch nvml.ValueType(v.ValueType) {
	case nvml.VALUE_TYPE_UNSIGNED_INT:
		return uint64(binary.NativeEndian.Uint32(v.Value[:4]))
	case nvml.VALUE_TYPE_DOUBLE:
		return 0 // no speed field is a double; treat as unknown
	}
	return binary.NativeEndian.Uint64(v.Value[:])
}

// LinksVerdict is health.links-up's finding for one ordered pair.
type LinksVerdict struct {
	// Counted says how the links were counted: "direct" (links whose far
	// end is the peer count for this pair only) or "through NVSwitch"
	// (links to switches count for every pair on the fabric; the pair has
	// the smaller of the two GPUs' switch links).
	Counted string
	// Expected is the links NVML knows of on the pair's path; Active those
	// of them active (both by the rule in Counted).
	Expected, Active int
	// Claim is the topology's NVLink count for the pair (nvidia-smi's NV<n>).
	Claim    int
	Versions map[uint32]int
	// Problems lists everything wrong, empty when the links are up.
	Problems []string
}

// String is the verdict's evidence in one line.
func (v LinksVerdict) String() string {
	var vs []string
	for ver, n := range v.Versions {
		vs = append(vs, fmt.Sprintf("%d × version enum %d", n, ver))
	}
	sort.Strings(vs)
	return fmt.Sprintf("%s: %d of %d links active, topology says NV%d; versions %s", v.Counted, v.Active, v.Expected, v.Claim, strings.Join(vs, ", "))
}

// HasLinks reports whether a and b have any NVLink that could join them:
// a link of one whose far end is the other, or switch links on both.
func HasLinks(a, b Snapshot, busA, busB string) bool {
	return len(toPeer(a, busB)) > 0 || len(toPeer(b, busA)) > 0 || (len(toSwitch(a)) > 0 && len(toSwitch(b)) > 0)
}

// JudgeLinks decides health.links-up for a→b from both GPUs' snapshots,
// their common link speeds, and the topology's NVLink count for the pair.
func JudgeLinks(a, b Snapshot, busA, busB string, speedA, speedB Reading, claim int) LinksVerdict {
	v := LinksVerdict{Claim: claim, Versions: map[uint32]int{}}
	var counted []Link
	if sa, sb := toSwitch(a), toSwitch(b); len(sa) > 0 && len(sb) > 0 && len(toPeer(a, busB)) == 0 {
		v.Counted = "through NVSwitch"
		aUp, bUp := active(sa), active(sb)
		v.Active, v.Expected = min(aUp, bUp), min(len(sa), len(sb))
		v.Problems = append(v.Problems, down(a.GPU, sa)...)
		v.Problems = append(v.Problems, down(b.GPU, sb)...)
		counted = append(sa, sb...)
	} else {
		v.Counted = "direct"
		pa, pb := toPeer(a, busB), toPeer(b, busA)
		v.Active, v.Expected = active(pa), len(pa)
		v.Problems = append(v.Problems, down(a.GPU, pa)...)
		v.Problems = append(v.Problems, down(b.GPU, pb)...)
		if active(pb) != active(pa) {
			v.Problems = append(v.Problems, fmt.Sprintf("%s has %d active links to %s but %s has %d back", a.GPU, active(pa), b.GPU, b.GPU, active(pb)))
		}
		counted = append(pa, pb...)
	}
	for _, l := range counted {
		if l.Active {
			v.Versions[l.Version]++
		}
	}
	if len(v.Versions) > 1 {
		v.Problems = append(v.Problems, "the active links run at different NVLink versions: "+v.String())
	}
	if !speedA.Unsupported && !speedB.Unsupported && speedA.N != speedB.N {
		v.Problems = append(v.Problems, fmt.Sprintf("link speeds differ: %s %d MB/s, %s %d MB/s (FI_DEV_NVLINK_SPEED_MBPS_COMMON)", a.GPU, speedA.N, b.GPU, speedB.N))
	}
	if v.Active != claim {
		v.Problems = append(v.Problems, fmt.Sprintf("%d links active but the topology says NV%d", v.Active, claim))
	}
	return v
}

func toPeer(s Snapshot, peer string) []Link {
	want, err := topology.ParsePCIBusID(peer)
	if err != nil {
		return nil
	}
	var out []Link
	for _, l := range s.Links {
		if got, err := topology.ParsePCIBusID(l.Remote); err == nil && got == want && !l.ToSwitch {
			out = append(out, l)
		}
	}
	return out
}

func toSwitch(s Snapshot) []Link {
	var out []Link
	for _, l := range s.Links {
		if l.ToSwitch {
			out = append(out, l)
		}
	}
	return out
}

func active(ls []Link) int {
	n := 0
	for _, l := range ls {
		if l.Active {
			n++
		}
	}
	return n
}

func down(gpu string, ls []Link) []string {
	var out []string
	for _, l := range ls {
		if !l.Active {
			out = append(out, fmt.Sprintf("%s link %d (far end %s) is supported but not active", gpu, l.Index, l.Remote))
		}
	}
	return out
}
