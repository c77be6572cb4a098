// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"hash/fnv"
	"strings"
	"sync"

	"github.com/p2pconf/p2pconf/kernels"
)

var kernelCache sync.Map // *Test → *kernels.Kernel

// Kernel returns the test's kernel descriptor: PTX generated from the test
// (once per process), parameters lt_loc0.. then the fixed ones (layout.go),
// and the Sim the fake backend runs. It is built in memory, not registered
// with the kernels package; its Module name carries a hash of the PTX, so a
// backend that caches modules by name never mixes two tests.
func (t *Test) Kernel() *kernels.Kernel {
	if k, ok := kernelCache.Load(t); ok {
		return k.(*kernels.Kernel)
	}
	entry := "litmus_" + ident(t.Name())
	ptx := generatePTX(t, entry)
	h := fnv.New32a()
	h.Write([]byte(ptx))
	var params []kernels.Param
	for l := range t.Locs {
		params = append(params, kernels.P(fmt.Sprintf("lt_loc%d", l), kernels.Ptr))
	}
	params = append(params, fixedParams...)
	k := &kernels.Kernel{
		Entry:  entry,
		Module: fmt.Sprintf("litmus/%s-%08x.ptx", ident(t.Name()), h.Sum32()),
		PTX:    ptx,
		Params: params,
		MinSM:  70,
		Sim:    simFunc(t),
	}
	actual, _ := kernelCache.LoadOrStore(t, k)
	return actual.(*kernels.Kernel)
}

// ident turns a test name into a PTX identifier: "MP rel.sys/acq.sys" →
// "MP_rel_sys_acq_sys".
func ident(s string) string {
	var b strings.Builder
	under := false
	for _, c := range s {
		ok := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		switch {
		case ok:
			b.WriteRune(c)
			under = false
		case !under:
			b.WriteByte('_')
			under = true
		}
	}
	return strings.Trim(b.String(), "_")
}
