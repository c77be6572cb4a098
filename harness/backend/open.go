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

var openers = struct {
	sync.Mutex
	by map[string]Opener
}{by: map[string]Opener{}}

// Register makes a backend available by name: harness/cudabackend
// registers "cuda" and harness/fake "fake" when they are linked, so that
// the package choosing the backend (harness/machine) needs neither, nor
// the cgo binding behind the first. A second registration of a name is a
// bug.
func Register(name string, open Opener) {
	openers.Lock()
	defer openers.Unlock()
	if _, ok := openers.by[name]; ok {
		panic(fmt.Sprintf("backend: %q registered twice", name))
	}
	openers.by[name] = open
}

// Open opens the backend registered as name. A name no linked package
// registered is an error naming those that are.
func Open(name string, s OpenSettings) (Backend, error) {
	openers.Lock()
	open, ok := openers.by[name]
	var names []string
	for n := range openers.by {
		names = append(names, n)
	}
	openers.Unlock()
	if !ok {
		sort.Strings(names)
		return nil, fmt.Errorf("backend: %q is not linked into this program (linked: %s); import its package (harness/cudabackend or harness/fake)", name, strings.Join(names, ", "))
	}
	return open(s)
}
