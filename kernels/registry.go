// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package kernels

import (
	"embed"
	"fmt"
	"sort"
)

//go:embed *.ptx
var ptxFiles embed.FS

var registry = map[string]*Kernel{}

// module returns the text of an embedded PTX module; a missing file is a
// build mistake and panics at package init.
func module(name string) string {
	b, err := ptxFiles.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("kernels: embedded module %s: %v", name, err))
	}
	return string(b)
}

// define registers a kernel of an embedded module and returns it. Each
// descriptor file calls it once per entry, in a package-level var.
//
//nolint:unparam // each kernel states its own minimum, whatever the kernels need today
func define(moduleFile, entry string, minSM int, sim SimFunc, params ...Param) *Kernel {
	k := &Kernel{Entry: entry, Module: moduleFile, PTX: module(moduleFile), Params: params, MinSM: minSM, Sim: sim}
	if _, dup := registry[k.String()]; dup {
		panic("kernels: " + k.String() + " defined twice")
	}
	registry[k.String()] = k
	return k
}

// All lists every embedded kernel, sorted by module and entry.
func All() []*Kernel {
	out := make([]*Kernel, 0, len(registry))
	for _, k := range registry {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// P is a shorthand for a parameter.
func P(name string, kind ParamKind) Param { return Param{Name: name, Kind: kind} }
