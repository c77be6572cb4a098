// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package health reads the GPUs' own account of their health through NVML:
// error counters before and after a window of work, Xid and other critical
// events while it runs, the NVLinks' state and the fabric registration. A
// verdict is only as good as the machine under it; a copy that passed while
// its link replayed packets or the GPU logged an Xid passed on a machine
// that was not well.
//
// Everything goes through an injected nvml.Interface or nvml.Device, so the
// unit tests and the fake backend drive it with go-nvml's mocks. An answer
// of NOT_SUPPORTED (or FUNCTION_NOT_FOUND, a driver without the call) is
// recorded as such, never an error: many counters exist only on some GPUs.
package health

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/p2pconf/p2pconf/harness/topology"
)

// Reading is one counter as NVML answered it.
type Reading struct {
	N uint64 `json:"n"`
	// Unsupported says NVML answered NOT_SUPPORTED or FUNCTION_NOT_FOUND:
	// the GPU or driver has no such counter, which is not an error.
	Unsupported bool `json:"unsupported,omitempty"`
}

func (r Reading) String() string {
	if r.Unsupported {
		return "not supported"
	}
	return fmt.Sprint(r.N)
}

// Link is one NVLink NVML knows of (its state call answered).
type Link struct {
	Index  int  `json:"index"`
	Active bool `json:"active"`
	// Version is nvmlDeviceGetNvLinkVersion, the nvmlNvlinkVersion_t enum
	// (6 is NVLink 4.0); 0 when NVML does not give it.
	Version uint32 `json:"version,omitempty"`
	// Remote is the far end's PCI bus ID as NVML prints it; empty when NVML
	// cannot name it (an unconnected link). Behind an NVSwitch it is a
	// placeholder such as FFFFFFFF:FF:FF.0, and ToSwitch is set.
	Remote   string `json:"remote,omitempty"`
	ToSwitch bool   `json:"to_switch,omitempty"`
	// Errors holds the link's error counters by name (LinkCounters).
	Errors map[string]Reading `json:"errors"`
}

// LinkCounters are the NVLink data-link error counters read per link, by
// the name a report uses.
var LinkCounters = []struct {
	Name    string
	Counter nvml.NvLinkErrorCounter
}{
	{"replay", nvml.NVLINK_ERROR_DL_REPLAY},
	{"recovery", nvml.NVLINK_ERROR_DL_RECOVERY},
	{"crc-flit", nvml.NVLINK_ERROR_DL_CRC_FLIT},
	{"crc-data", nvml.NVLINK_ERROR_DL_CRC_DATA},
}

// Snapshot is one GPU's health at one moment.
type Snapshot struct {
	GPU   string    `json:"gpu"`
	Time  time.Time `json:"time"`
	Links []Link    `json:"links,omitempty"`
	// PCIeReplay is nvmlDeviceGetPcieReplayCounter. It may be non-zero
	// before any run (observed: 1 on an H200); only increases count.
	PCIeReplay Reading `json:"pcie_replay"`
	// ECC errors since the driver loaded (volatile counts).
	ECCCorrected   Reading `json:"ecc_volatile_corrected"`
	ECCUncorrected Reading `json:"ecc_volatile_uncorrected"`
	// Row remapping (nvmlDeviceGetRemappedRows).
	RemappedCorrectable   Reading `json:"remapped_rows_correctable"`
	RemappedUncorrectable Reading `json:"remapped_rows_uncorrectable"`
	RemapPending          bool    `json:"remap_pending,omitempty"`
	RemapFailed           bool    `json:"remap_failed,omitempty"`
	// Retired pages (nvmlDeviceGetRetiredPages), by cause.
	RetiredSingleBit Reading `json:"retired_pages_single_bit"`
	RetiredDoubleBit Reading `json:"retired_pages_double_bit"`
	// ClockEventReasons is nvmlDeviceGetCurrentClocksEventReasons, a bit
	// mask (thermal and power slowdowns among them): state, not a counter.
	ClockEventReasons Reading `json:"clock_event_reasons"`
}

// unsupported reports whether ret says the GPU or driver lacks the call.
func unsupported(ret nvml.Return) bool {
	return ret == nvml.ERROR_NOT_SUPPORTED || ret == nvml.ERROR_FUNCTION_NOT_FOUND
}

// Error is a failed NVML call: the function, NVML's return and the GPU (and
// link) it was asked about.
type Error struct {
	Func    string
	Ret     nvml.Return
	Subject string
}

func (e *Error) Error() string { return fmt.Sprintf("%s(%s): %s", e.Func, e.Subject, e.Ret.Error()) }

// Unwrap exposes the nvml.Return.
func (e *Error) Unwrap() error { return e.Ret }

// reading turns an NVML answer into a Reading; an error other than "not
// supported" is an *Error naming fn and subject.
func reading(n uint64, ret nvml.Return, fn, subject string) (Reading, error) {
	switch {
	case ret == nvml.SUCCESS:
		return Reading{N: n}, nil
	case unsupported(ret):
		return Reading{Unsupported: true}, nil
	}
	return Reading{}, &Error{Func: fn, Ret: ret, Subject: subject}
}

// Take reads gpu's snapshot from d. name labels the GPU in messages
// ("GPU0").
func Take(d nvml.Device, name string) (Snapshot, error) {
	s := Snapshot{GPU: name, Time: time.Now()}
	var err error
	if s.Links, err = readLinks(d, name); err != nil {
		return s, err
	}
	var errs []error
	add := func(dst *Reading, n uint64, ret nvml.Return, fn string) {
		r, err := reading(n, ret, fn, name)
		*dst = r
		errs = append(errs, err)
	}
	replay, ret := d.GetPcieReplayCounter()
	add(&s.PCIeReplay, uint64(max(replay, 0)), ret, "nvmlDeviceGetPcieReplayCounter")
	n, ret := d.GetTotalEccErrors(nvml.MEMORY_ERROR_TYPE_CORRECTED, nvml.VOLATILE_ECC)
	add(&s.ECCCorrected, n, ret, "nvmlDeviceGetTotalEccErrors(CORRECTED, VOLATILE)")
	n, ret = d.GetTotalEccErrors(nvml.MEMORY_ERROR_TYPE_UNCORRECTED, nvml.VOLATILE_ECC)
	add(&s.ECCUncorrected, n, ret, "nvmlDeviceGetTotalEccErrors(UNCORRECTED, VOLATILE)")
	corr, unc, pending, failed, ret := d.GetRemappedRows()
	add(&s.RemappedCorrectable, uint64(max(corr, 0)), ret, "nvmlDeviceGetRemappedRows")
	add(&s.RemappedUncorrectable, uint64(max(unc, 0)), ret, "nvmlDeviceGetRemappedRows")
	s.RemapPending, s.RemapFailed = ret == nvml.SUCCESS && pending, ret == nvml.SUCCESS && failed
	pages, ret := d.GetRetiredPages(nvml.PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS)
	add(&s.RetiredSingleBit, uint64(len(pages)), ret, "nvmlDeviceGetRetiredPages(SINGLE_BIT)")
	pages, ret = d.GetRetiredPages(nvml.PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR)
	add(&s.RetiredDoubleBit, uint64(len(pages)), ret, "nvmlDeviceGetRetiredPages(DOUBLE_BIT)")
	reasons, ret := d.GetCurrentClocksEventReasons()
	add(&s.ClockEventReasons, reasons, ret, "nvmlDeviceGetCurrentClocksEventReasons")
	return s, errors.Join(errs...)
}

// readLinks lists the NVLinks NVML knows of, with their error counters.
// NOT_SUPPORTED for a link's state means no such link; INVALID_ARGUMENT
// after link 0 ends the list (the GPU has fewer than NVLINK_MAX_LINKS).
func readLinks(d nvml.Device, name string) ([]Link, error) {
	var out []Link
	for i := 0; i < nvml.NVLINK_MAX_LINKS; i++ {
		subject := fmt.Sprintf("%s link %d", name, i)
		st, ret := d.GetNvLinkState(i)
		if unsupported(ret) {
			continue
		}
		if ret == nvml.ERROR_INVALID_ARGUMENT && i > 0 {
			break
		}
		if ret != nvml.SUCCESS {
			return nil, &Error{Func: "nvmlDeviceGetNvLinkState", Ret: ret, Subject: subject}
		}
		l := Link{Index: i, Active: st == nvml.FEATURE_ENABLED, Errors: map[string]Reading{}}
		if v, ret := d.GetNvLinkVersion(i); ret == nvml.SUCCESS {
			l.Version = v
		}
		// An inactive link's far end is worth knowing (a link down to the
		// peer), but NVML need not name it; an active link's must answer.
		pci, ret := d.GetNvLinkRemotePciInfo(i)
		switch {
		case ret == nvml.SUCCESS:
			l.Remote = busID(pci)
			if t, ret := d.GetNvLinkRemoteDeviceType(i); ret == nvml.SUCCESS {
				l.ToSwitch = t == nvml.NVLINK_DEVICE_TYPE_SWITCH
			}
		case l.Active && !unsupported(ret):
			return nil, &Error{Func: "nvmlDeviceGetNvLinkRemotePciInfo", Ret: ret, Subject: subject}
		}
		for _, c := range LinkCounters {
			n, ret := d.GetNvLinkErrorCounter(i, c.Counter)
			r, err := reading(n, ret, "nvmlDeviceGetNvLinkErrorCounter("+c.Name+")", subject)
			if err != nil {
				return nil, err
			}
			l.Errors[c.Name] = r
		}
		out = append(out, l)
	}
	return out, nil
}

// busID prints an nvml.PciInfo's address as NVML does.
func busID(p nvml.PciInfo) string {
	return fmt.Sprintf("%08X:%02X:%02X.0", p.Domain, p.Bus, p.Device)
}

// Counters lists the snapshot's counters by a name that says what they
// count ("link 3 replay", "pcie replay"): the values a window's diff
// compares.
func (s Snapshot) Counters() map[string]Reading {
	out := map[string]Reading{
		"pcie replay":                  s.PCIeReplay,
		"ecc volatile corrected":       s.ECCCorrected,
		"ecc volatile uncorrected":     s.ECCUncorrected,
		"remapped rows correctable":    s.RemappedCorrectable,
		"remapped rows uncorrectable":  s.RemappedUncorrectable,
		"retired pages single-bit ecc": s.RetiredSingleBit,
		"retired pages double-bit ecc": s.RetiredDoubleBit,
	}
	for _, l := range s.Links {
		for name, r := range l.Errors {
			out[fmt.Sprintf("link %d %s", l.Index, name)] = r
		}
	}
	return out
}

// Increase is one counter that grew within a window.
type Increase struct {
	GPU     string `json:"gpu"`
	Counter string `json:"counter"`
	From    uint64 `json:"from"`
	To      uint64 `json:"to"`
}

func (i Increase) String() string {
	return fmt.Sprintf("%s %s %d → %d (+%d)", i.GPU, i.Counter, i.From, i.To, i.To-i.From)
}

// Diff lists the counters of one GPU that grew from before to after,
// sorted by counter. A counter unsupported at either end is not compared;
// a counter that went down (a driver reload resets the volatile ones) is
// not an increase.
func Diff(before, after Snapshot) []Increase {
	b := before.Counters()
	var out []Increase
	for name, a := range after.Counters() {
		p, ok := b[name]
		if !ok || p.Unsupported || a.Unsupported || a.N <= p.N {
			continue
		}
		out = append(out, Increase{GPU: after.GPU, Counter: name, From: p.N, To: a.N})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Counter < out[j].Counter })
	return out
}

// PairIncreases keeps the increases that concern the pair of s's GPU and
// the GPU at peer (a PCI bus ID): the PCIe replay counter, and the error
// counters of s's links whose far end is the peer or an NVSwitch.
func PairIncreases(incs []Increase, s Snapshot, peer string) []Increase {
	onPath := pairPath(s, peer)
	var out []Increase
	for _, i := range incs {
		if onPath[i.Counter] {
			out = append(out, i)
		}
	}
	return out
}

// pairPath names the counters of s that concern the pair of s's GPU and
// the GPU at peer (PairIncreases).
func pairPath(s Snapshot, peer string) map[string]bool {
	want, _ := topology.ParsePCIBusID(peer)
	onPath := map[string]bool{"pcie replay": true}
	for _, l := range s.Links {
		got, err := topology.ParsePCIBusID(l.Remote)
		if l.ToSwitch || (err == nil && got == want) {
			for name := range l.Errors {
				onPath[fmt.Sprintf("link %d %s", l.Index, name)] = true
			}
		}
	}
	return onPath
}

// PairCompared lists, sorted, the counters of the pair's path
// (PairIncreases) that NVML answered at both ends of the window: the only
// ones whose increase Diff can see. An empty list means the window was
// compared on nothing, which no verdict may rest on.
func PairCompared(before, after Snapshot, peer string) []string {
	b := before.Counters()
	var out []string
	for name := range pairPath(after, peer) {
		a, ok := after.Counters()[name]
		p, okB := b[name]
		if ok && okB && !a.Unsupported && !p.Unsupported {
			out = append(out, after.GPU+" "+name)
		}
	}
	sort.Strings(out)
	return out
}
