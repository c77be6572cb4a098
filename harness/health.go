// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/checks"
	"github.com/p2pconf/p2pconf/harness/health"
	"github.com/p2pconf/p2pconf/harness/machine"
)

// The suite process watches the GPUs' health for as long as its specs run
// (package health): NVML's critical events in a goroutine, and snapshots of
// the error counters when the suite starts and around every pair spec. An
// event or a counter increase inside a spec's window is attached to that
// spec's result as a finding, so a verdict reached on an unwell machine
// says so; the health suite's checks judge the whole window.

// healthWatch is the suite process's watch.
type healthWatch struct {
	lib     nvml.Interface
	devs    map[backend.Device]nvml.Device
	began   time.Time
	watcher *health.Watcher
	// err says why there is no watch (NVML unavailable, the event set
	// refused); the health checks fail with it.
	err error

	start    map[backend.Device]health.Snapshot
	startErr map[backend.Device]error
}

var (
	watchMu    sync.Mutex
	suiteWatch *healthWatch
)

// startHealthWatch starts watching every GPU of the machine. It never
// fails the run: what could not be watched is kept as the watch's error.
func startHealthWatch(m *machine.Machine) *healthWatch {
	w := &healthWatch{began: time.Now(), devs: map[backend.Device]nvml.Device{},
		start: map[backend.Device]health.Snapshot{}, startErr: map[backend.Device]error{}}
	watchMu.Lock()
	suiteWatch = w
	watchMu.Unlock()
	w.lib = machine.NVMLOf(m.Backend)
	if w.lib == nil || m.Topology == nil {
		w.err = fmt.Errorf("NVML is not available: %v", m.NVMLErr)
		return w
	}
	var watched []health.Watched
	for _, g := range m.Topology.GPUs {
		w.devs[g.Ordinal] = g.NVML
		watched = append(watched, health.Watched{Name: GPU{Ordinal: g.Ordinal}.String(), Device: g.NVML})
		s, err := health.Take(g.NVML, GPU{Ordinal: g.Ordinal}.String())
		w.start[g.Ordinal], w.startErr[g.Ordinal] = s, err
	}
	w.watcher, w.err = health.Watch(w.lib, watched)
	return w
}

// stop ends the watch and prints what the suite's whole window saw on
// out: the critical events, and the counters that grew from the suite's
// start snapshot to one taken now. Nothing when all was quiet.
func (w *healthWatch) stop(suite string, out io.Writer) {
	var lines []string
	if w.watcher != nil {
		if err := w.watcher.Stop(); err != nil {
			lines = append(lines, err.Error())
		}
		if evs := w.watcher.Events("", w.began); len(evs) > 0 {
			lines = append(lines, "critical events: "+eventList(evs))
		}
	}
	for d, dev := range w.devs {
		start := w.start[d]
		if w.startErr[d] != nil {
			continue
		}
		if now, err := health.Take(dev, start.GPU); err == nil {
			for _, i := range health.Diff(start, now) {
				lines = append(lines, "counter increased: "+i.String())
			}
		}
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Fprintf(out, "p2pconf %s: health during the suite: %s\n", suite, l)
	}
}

func currentWatch() (*healthWatch, error) {
	watchMu.Lock()
	defer watchMu.Unlock()
	if suiteWatch == nil {
		return nil, errors.New("the suite's health watch has not started (harness.RunSuite starts it)")
	}
	return suiteWatch, nil
}

// faultXids are the Xids a kernel's illegal access in a user process
// produces (13: graphics engine exception, 31: GPU memory page fault, 43:
// the faulted channel stopped), the ones a spec that provokes a device fault
// on purpose (ExpectDeviceFaults) may see without failing.
var faultXids = map[uint64]bool{13: true, 31: true, 43: true}

// faultGrace is how long a spec that provoked device faults waits for their
// events at its end, so NVML's late delivery is not charged to the next spec.
const faultGrace = 500 * time.Millisecond

var (
	faultsMu       sync.Mutex
	faultsExpected string // why the running spec provokes device faults; "" when it does not
)

// ExpectDeviceFaults says the running spec provokes device faults on
// purpose (a helper process's kernel touches memory it must not reach):
// the Xids of such a fault on the spec's GPUs are then recorded, not
// failures. Any other critical event still fails the spec.
func ExpectDeviceFaults(why string) {
	faultsMu.Lock()
	defer faultsMu.Unlock()
	faultsExpected = why
}

func takeExpectedFaults() string {
	faultsMu.Lock()
	defer faultsMu.Unlock()
	why := faultsExpected
	faultsExpected = ""
	return why
}

// registerHealthHooks attaches what happened during each spec to it: a
// critical event on one of the spec's GPUs fails the spec with its Xid and
// time (unless it is the fault the spec provoked on purpose); events on
// other GPUs (another process of the run works there) and, for pair specs,
// increases of both GPUs' counters are findings.
func registerHealthHooks() {
	var began time.Time
	var before map[backend.Device]health.Snapshot
	BeforeEach(func() {
		began, before = time.Now(), nil
		_ = takeExpectedFaults()
		w, err := currentWatch()
		if err != nil || w.err != nil {
			return
		}
		before = map[backend.Device]health.Snapshot{}
		for _, d := range specGPUs() {
			dev, ok := w.devs[d]
			if !ok {
				continue
			}
			if s, err := health.Take(dev, GPU{Ordinal: d}.String()); err == nil {
				before[d] = s
			}
		}
	})
	AfterEach(func() {
		faults := takeExpectedFaults()
		w, err := currentWatch()
		if err != nil || w.watcher == nil {
			return
		}
		if faults != "" {
			time.Sleep(faultGrace)
		}
		var incs []string
		for d, b := range before {
			if a, err := health.Take(w.devs[d], b.GPU); err == nil {
				for _, i := range health.Diff(b, a) {
					incs = append(incs, i.String())
				}
			}
		}
		if len(incs) > 0 {
			sort.Strings(incs)
			Finding("health.counters-during-spec", strings.Join(incs, "; "),
				"NVML error counters of the pair's GPUs increased while this spec ran")
		}
		bad, expected, elsewhere := sortEvents(w.watcher.Events("", began), specTargetGPUs(), faults != "")
		if len(elsewhere) > 0 {
			Finding("health.events-elsewhere", eventList(elsewhere),
				"NVML delivered critical events on GPUs this spec does not use while it ran (another process of the run works there); they do not judge this spec")
		}
		if len(expected) > 0 {
			Finding("health.expected-fault-events", eventList(expected),
				"the device-fault Xids this spec provoked on purpose: "+faults)
		}
		if len(bad) > 0 {
			Finding("health.events-during-spec", eventList(bad),
				"NVML delivered critical events on this spec's GPUs while it ran")
			Fail(fmt.Sprintf("NVML delivered critical events on this spec's GPUs while it ran: %s; a verdict reached on a GPU that reported a fault is no verdict", eventList(bad)))
		}
	})
}

// sortEvents splits evs into those that fail the spec, the provoked faults
// it expected, and those on GPUs it does not use. gpus nil means the spec
// uses every GPU (a machine-wide spec).
func sortEvents(evs []health.Event, gpus []backend.Device, provoked bool) (bad, expected, elsewhere []health.Event) {
	mine := func(name string) bool {
		if gpus == nil {
			return true
		}
		for _, d := range gpus {
			if (GPU{Ordinal: d}).String() == name {
				return true
			}
		}
		return false
	}
	for _, e := range evs {
		switch {
		case !mine(e.GPU):
			elsewhere = append(elsewhere, e)
		case provoked && e.Type == nvml.EventTypeXidCriticalError && faultXids[e.Xid]:
			expected = append(expected, e)
		default:
			bad = append(bad, e)
		}
	}
	return bad, expected, elsewhere
}

// specTargetGPUs are the GPUs the running spec works on, from its labels
// (gpu:, pair:, triple:); nil for a machine-wide spec.
func specTargetGPUs() []backend.Device {
	l := checks.Parse(CurrentSpecReport().Labels())
	var out []backend.Device
	switch {
	case l.GPU != nil:
		out = append(out, backend.Device(*l.GPU))
	case l.Src != nil && l.Dst != nil:
		out = append(out, backend.Device(*l.Src), backend.Device(*l.Dst))
	case len(l.TripleGPUs) > 0:
		for _, g := range l.TripleGPUs {
			out = append(out, backend.Device(g))
		}
	}
	return out
}

// specGPUs are the GPUs of the running spec when it is a pair spec (the
// snapshots are cheap enough there); none otherwise.
func specGPUs() []backend.Device {
	l := checks.Parse(CurrentSpecReport().Labels())
	if l.Src == nil || l.Dst == nil {
		return nil
	}
	return []backend.Device{backend.Device(*l.Src), backend.Device(*l.Dst)}
}

func eventList(evs []health.Event) string {
	s := make([]string, len(evs))
	for i, e := range evs {
		s[i] = e.String()
	}
	return strings.Join(s, "; ")
}

// HealthDevice is g's NVML device, for health readings.
func HealthDevice(g GPU) (nvml.Device, error) {
	w, err := currentWatch()
	if err != nil {
		return nil, err
	}
	if w.err != nil && len(w.devs) == 0 {
		return nil, w.err
	}
	d, ok := w.devs[g.Ordinal]
	if !ok {
		return nil, fmt.Errorf("%s has no NVML device", g)
	}
	return d, nil
}

// HealthAtStart is g's snapshot from when the suite started.
func HealthAtStart(g GPU) (health.Snapshot, error) {
	w, err := currentWatch()
	if err != nil {
		return health.Snapshot{}, err
	}
	if _, ok := w.devs[g.Ordinal]; !ok {
		return health.Snapshot{}, fmt.Errorf("no health snapshot of %s at the suite's start: %v", g, w.err)
	}
	return w.start[g.Ordinal], w.startErr[g.Ordinal]
}

// HealthNow is g's snapshot now.
func HealthNow(g GPU) (health.Snapshot, error) {
	d, err := HealthDevice(g)
	if err != nil {
		return health.Snapshot{}, err
	}
	return health.Take(d, g.String())
}

// HealthEvents returns the critical events of g since the suite started,
// after collecting those NVML had queued, and what the watch registered on
// g. The error says why there is no watch.
func HealthEvents(g GPU) ([]health.Event, health.Registration, time.Time, error) {
	w, err := currentWatch()
	if err != nil {
		return nil, health.Registration{}, time.Time{}, err
	}
	if w.watcher == nil {
		return nil, health.Registration{}, w.began, fmt.Errorf("no NVML event watch: %w", w.err)
	}
	// Two waits of health.Poll take 40 ms; the bound leaves room for a
	// loaded host, where the watching goroutine may start late.
	w.watcher.Drain(time.Second)
	var reg health.Registration
	for _, r := range w.watcher.Registrations() {
		if r.GPU == g.String() {
			reg = r
		}
	}
	return w.watcher.Events(g.String(), w.began), reg, w.began, nil
}
