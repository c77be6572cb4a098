// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package machine

import (
	"slices"
	"testing"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// linked is a pair function for SelectTriples from a table of link
// classes per unordered pair: "nvlink/native", "nvlink/partial" or
// "pcie/none"; missing pairs are PCIe without native atomics.
func linked(classes map[[2]int]string) func(a, b GPU) Pair {
	one, zero := 1, 0
	return func(a, b GPU) Pair {
		x, y := int(a.Ordinal), int(b.Ordinal)
		cl, ok := classes[[2]int{min(x, y), max(x, y)}]
		if !ok {
			cl = "pcie/none"
		}
		p := Pair{A: a, B: b, Link: "pcie"}
		p.Claims.CUDA.NativeAtomicSupported, p.Claims.CUDA.PartialNativeAtomic = &zero, &zero
		switch cl {
		case "nvlink/native":
			p.Link, p.Claims.CUDA.NativeAtomicSupported = "nvlink", &one
		case "nvlink/partial":
			p.Link, p.Claims.CUDA.NativeAtomicSupported, p.Claims.CUDA.PartialNativeAtomic = "nvlink", &one, &one
		}
		return p
	}
}

func gpusN(n int) []GPU {
	var out []GPU
	for i := n - 1; i >= 0; i-- { // out of order: the selection sorts them
		out = append(out, GPU{Ordinal: backend.Device(i)})
	}
	return out
}

func ids(ts []Triple) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.ID())
	}
	return out
}

// TestSelectTriples: every GPU appears, every link class and shape is
// covered, and far fewer triples run than the n³ there are.
func TestSelectTriples(t *testing.T) {
	allNV := map[[2]int]string{}
	for a := 0; a < 8; a++ {
		for b := a + 1; b < 8; b++ {
			allNV[[2]int{a, b}] = "nvlink/native"
		}
	}
	mixed := map[[2]int]string{{0, 1}: "nvlink/native", {2, 3}: "nvlink/partial"}
	for _, c := range []struct {
		name    string
		gpus    []GPU
		classes map[[2]int]string
		want    []string
	}{
		{"nvlink8", gpusN(8), allNV, []string{"0-1-2", "3-4-5", "0-6-7"}},
		{"three of nvlink8", gpusN(3), allNV, []string{"0-1-2"}},
		{"mixed", gpusN(4), mixed, []string{"0-1-2", "0-2-3"}},
		{"two GPUs", gpusN(2), allNV, nil},
	} {
		got := SelectTriples(c.gpus, linked(c.classes))
		if !slices.Equal(ids(got), c.want) {
			t.Errorf("%s: triples %v, want %v", c.name, ids(got), c.want)
		}
		seen, classes, want := map[backend.Device]bool{}, map[string]bool{}, map[string]bool{}
		for _, tr := range got {
			if tr.A.Ordinal >= tr.B.Ordinal || tr.B.Ordinal >= tr.C.Ordinal || tr.AB.B != tr.B || tr.AC.B != tr.C || tr.BC.A != tr.B {
				t.Errorf("%s: triple %s is not in ordinal order with its pairs", c.name, tr)
			}
			for _, g := range tr.GPUs() {
				seen[g.Ordinal] = true
			}
			for _, p := range []Pair{tr.AB, tr.BC, tr.AC} {
				classes[LinkClass(p)] = true
			}
		}
		for _, g := range c.gpus {
			if len(c.gpus) >= 3 && !seen[g.Ordinal] {
				t.Errorf("%s: %s is in no triple", c.name, g)
			}
			for _, h := range c.gpus {
				if g.Ordinal < h.Ordinal && len(c.gpus) >= 3 {
					want[LinkClass(linked(c.classes)(g, h))] = true
				}
			}
		}
		for cl := range want {
			if !classes[cl] {
				t.Errorf("%s: link class %s is in no triple", c.name, cl)
			}
		}
	}
}

func TestTripleLinkAndID(t *testing.T) {
	tr := SelectTriples(gpusN(4), linked(map[[2]int]string{{0, 1}: "nvlink/native", {2, 3}: "nvlink/partial"}))[1]
	if tr.ID() != "0-2-3" || tr.String() != "GPU0→GPU2→GPU3" || tr.Link() != "pcie" || len(tr.Pairs()) != 6 {
		t.Errorf("triple %s: id %s, link %s, %d pairs", tr, tr.ID(), tr.Link(), len(tr.Pairs()))
	}
	if LinkClass(tr.BC) != "nvlink/partial" || LinkClass(tr.AB) != "pcie/none" {
		t.Errorf("link classes %s, %s", LinkClass(tr.BC), LinkClass(tr.AB))
	}
	nv := SelectTriples(gpusN(3), linked(map[[2]int]string{{0, 1}: "nvlink/native", {0, 2}: "nvlink/native", {1, 2}: "nvlink/native"}))[0]
	if nv.Link() != "nvlink" {
		t.Errorf("an all-NVLink triple has link %s", nv.Link())
	}
}

func TestParseTriples(t *testing.T) {
	pair := linked(nil)
	ts, err := ParseTriples(" 2-0-1, 1-2-3", gpusN(4), pair)
	if err != nil || !slices.Equal(ids(ts), []string{"2-0-1", "1-2-3"}) || ts[0].AB.A.Ordinal != 2 || ts[0].AC.B.Ordinal != 1 {
		t.Fatalf("ParseTriples: %v, %v", ids(ts), err)
	}
	for _, bad := range []string{"0-1", "0-1-1", "0-1-4", "a-b-c", "0-1-2,", "2-0-1,1-2-3,2-0-1"} {
		if _, err := ParseTriples(bad, gpusN(4), pair); err == nil {
			t.Errorf("ParseTriples(%q) accepted it", bad)
		}
	}
}
