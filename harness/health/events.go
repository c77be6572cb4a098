// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package health

import (
	"fmt"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// CriticalEvents are the NVML event types the watcher registers where a GPU
// supports them: Xid errors and the memory events that signal a failing
// GPU. Clock and P-state changes are normal operation and left out.
const CriticalEvents = nvml.EventTypeXidCriticalError | nvml.EventTypeDoubleBitEccError |
	nvml.EventTypeSingleBitEccErrorStorm | nvml.EventTypeDramRetirementFailure

// Event is one critical event NVML delivered.
type Event struct {
	Time time.Time `json:"time"`
	GPU  string    `json:"gpu"`
	// Type is the NVML event type bit; Xid is the Xid number for
	// EventTypeXidCriticalError (NVML's event data), else 0.
	Type uint64 `json:"type"`
	Xid  uint64 `json:"xid,omitempty"`
}

func (e Event) String() string {
	if e.Type == nvml.EventTypeXidCriticalError {
		return fmt.Sprintf("Xid %d on %s at %s", e.Xid, e.GPU, e.Time.UTC().Format("15:04:05.000"))
	}
	return fmt.Sprintf("%s on %s at %s", eventName(e.Type), e.GPU, e.Time.UTC().Format("15:04:05.000"))
}

func eventName(t uint64) string {
	switch t {
	case nvml.EventTypeDoubleBitEccError:
		return "double-bit ECC error"
	case nvml.EventTypeSingleBitEccErrorStorm:
		return "single-bit ECC error storm"
	case nvml.EventTypeDramRetirementFailure:
		return "DRAM retirement failure"
	}
	return fmt.Sprintf("NVML event type 0x%x", t)
}

// Watched is a GPU to watch: its NVML device and the name events carry.
type Watched struct {
	Name   string
	Device nvml.Device
}

// Registration says what the watcher could register on one GPU.
type Registration struct {
	GPU string `json:"gpu"`
	// Types is the registered event mask; 0 when the GPU supports none of
	// CriticalEvents.
	Types uint64 `json:"types"`
	// Note explains a GPU that is not watched ("event types not supported").
	Note string `json:"note,omitempty"`
}

// Watcher collects critical events in a goroutine for as long as it runs.
// Its waits are bounded (Poll), so Stop returns within one of them.
type Watcher struct {
	lib   nvml.Interface
	set   nvml.EventSet
	names map[nvml.Device]string
	regs  []Registration

	mu     sync.Mutex
	events []Event
	// waited counts finished waits, so Drain can wait for one that began
	// after it was called.
	waited uint64

	stop chan struct{}
	done chan struct{}
}

// Poll is the longest a single wait for events blocks. Every suite process
// waits for one when it stops the watch, and a check that collects the
// queued events (Drain) for two; at 100 ms that was 70–90 ms of each
// process's end on an H200 and 400 ms of health.no-xid. The watching
// thread wakes 50 times a second, which costs nothing measurable.
const Poll = 20 * time.Millisecond

// Watch creates an event set, registers CriticalEvents (as far as each GPU
// supports them) on every GPU and starts collecting. A GPU that supports
// none of them is noted in Registrations, not an error; any other failure
// is.
func Watch(lib nvml.Interface, gpus []Watched) (*Watcher, error) {
	set, ret := lib.EventSetCreate()
	if ret != nvml.SUCCESS {
		return nil, &Error{Func: "nvmlEventSetCreate", Ret: ret, Subject: "event set"}
	}
	w := &Watcher{lib: lib, set: set, names: map[nvml.Device]string{}, stop: make(chan struct{}), done: make(chan struct{})}
	for _, g := range gpus {
		w.names[g.Device] = g.Name
		r := Registration{GPU: g.Name}
		supported, ret := g.Device.GetSupportedEventTypes()
		switch {
		case unsupported(ret):
			r.Note = "nvmlDeviceGetSupportedEventTypes: not supported"
		case ret != nvml.SUCCESS:
			_ = set.Free() // already failing; the registration error is the one to report
			return nil, &Error{Func: "nvmlDeviceGetSupportedEventTypes", Ret: ret, Subject: g.Name}
		default:
			r.Types = supported & CriticalEvents
		}
		if r.Types != 0 {
			if ret := g.Device.RegisterEvents(r.Types, set); ret != nvml.SUCCESS {
				_ = set.Free() // already failing; the registration error is the one to report
				return nil, &Error{Func: "nvmlDeviceRegisterEvents", Ret: ret, Subject: g.Name}
			}
		} else if r.Note == "" {
			r.Note = fmt.Sprintf("supports none of the critical event types (supported mask 0x%x)", supported)
		}
		w.regs = append(w.regs, r)
	}
	go w.loop()
	return w, nil
}

// Registrations says what is watched on each GPU.
func (w *Watcher) Registrations() []Registration { return w.regs }

func (w *Watcher) loop() {
	defer close(w.done)
	for {
		select {
		case <-w.stop:
			return
		default:
		}
		data, ret := w.set.Wait(uint32(Poll / time.Millisecond))
		w.mu.Lock()
		if ret == nvml.SUCCESS {
			e := Event{Time: time.Now(), GPU: w.names[data.Device], Type: data.EventType}
			if e.GPU == "" {
				e.GPU = "an unwatched GPU"
			}
			if data.EventType == nvml.EventTypeXidCriticalError {
				e.Xid = data.EventData
			}
			w.events = append(w.events, e)
		}
		w.waited++
		w.mu.Unlock()
		// TIMEOUT is the quiet case; any other failure would spin, so
		// pause for a poll period before trying again.
		if ret != nvml.SUCCESS && ret != nvml.ERROR_TIMEOUT {
			select {
			case <-w.stop:
				return
			case <-time.After(Poll):
			}
		}
	}
}

// Events returns the events of gpu (every GPU for "") delivered from from
// on (the zero time: all).
func (w *Watcher) Events(gpu string, from time.Time) []Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []Event
	for _, e := range w.events {
		if (gpu == "" || e.GPU == gpu) && !e.Time.Before(from) {
			out = append(out, e)
		}
	}
	return out
}

// Drain waits until a wait that began after the call has finished, so an
// event NVML queued before the call has been collected. It gives up after
// timeout.
func (w *Watcher) Drain(timeout time.Duration) {
	w.mu.Lock()
	target := w.waited + 2
	w.mu.Unlock()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		w.mu.Lock()
		n := w.waited
		w.mu.Unlock()
		if n >= target {
			return
		}
		select {
		case <-w.done:
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Stop ends the collection and frees the event set; a second Stop does
// nothing.
func (w *Watcher) Stop() error {
	select {
	case <-w.stop:
		return nil
	default:
		close(w.stop)
	}
	<-w.done
	if ret := w.set.Free(); ret != nvml.SUCCESS {
		return &Error{Func: "nvmlEventSetFree", Ret: ret, Subject: "event set"}
	}
	return nil
}
