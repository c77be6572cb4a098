// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package backend

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// OpenSettings are what a backend needs to open: the driver library of the
// cuda backend, the preset and injected defects of the fake one (package
// machine reads them from the run's settings).
type OpenSettings struct {
	LibCUDA     string
	FakePreset  string
	FakeDefects []string
}

// Opener opens one kind of backend.
type Opener func(OpenSettings) (Backend, error)

// Limits are what a kind of backend can do within a spec's time, declared
// with it (Register), so that a spec sizes its work by them instead of
// asking which backend it runs on. The zero Limits are hardware's: real
// timings, no cap beyond memory.
type Limits struct {
	// Simulated marks a backend whose timings are a model, not hardware
	// (the fake: memmove for copies, goroutines for kernels): its figures
	// are recorded with Note, its loads and instances come thousands of
	// times slower, so specs that run to a statistical target take the
	// smaller work their settings name for it.
	Simulated bool
	// Note says what its figures are, for the reports
	// ("simulated, not a hardware figure").
	Note string
	// MaxTransfer is the largest single transfer a spec should time or
	// check on it (0: no cap). The fake's memory is the test machine's.
	MaxTransfer uint64
	// MaxBuffer is the largest buffer a spec may allocate on it (0: as
	// free memory allows); a spec that needs more skips, saying so
	// (Harness.RequireFreeMemory).
	MaxBuffer uint64
}

type registration struct {
	open   Opener
	limits Limits
}

var openers = struct {
	sync.Mutex
	by map[string]registration
}{by: map[string]registration{}}

// Register makes a backend available by name, with its limits:
// harness/cudabackend registers "cuda" and harness/fake "fake" when they
// are linked, so that the package choosing the backend (harness/machine)
// needs neither, nor the cgo binding behind the first. A second
// registration of a name is a bug.
func Register(name string, open Opener, limits Limits) {
	openers.Lock()
	defer openers.Unlock()
	if _, ok := openers.by[name]; ok {
		panic(fmt.Sprintf("backend: %q registered twice", name))
	}
	openers.by[name] = registration{open: open, limits: limits}
}

// LimitsOf are the limits the backend registered as name declared (the
// zero Limits for a name no linked package registered: Open reports that).
func LimitsOf(name string) Limits {
	openers.Lock()
	defer openers.Unlock()
	return openers.by[name].limits
}

// Open opens the backend registered as name. A name no linked package
// registered is an error naming those that are.
func Open(name string, s OpenSettings) (Backend, error) {
	openers.Lock()
	reg, ok := openers.by[name]
	var names []string
	for n := range openers.by {
		names = append(names, n)
	}
	openers.Unlock()
	if !ok {
		sort.Strings(names)
		return nil, fmt.Errorf("backend: %q is not linked into this program (linked: %s); import its package (harness/cudabackend or harness/fake)", name, strings.Join(names, ", "))
	}
	return reg.open(s)
}
