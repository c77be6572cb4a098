// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/checks"
)

func twoGPUs() []GPU {
	return []GPU{
		{Ordinal: 0, Info: backend.DeviceInfo{Ordinal: 0, UUID: "GPU-aaaa", PCIBusID: "0000:1b:00.0"}},
		{Ordinal: 1, Info: backend.DeviceInfo{Ordinal: 1, UUID: "GPU-bbbb", PCIBusID: "0000:9a:00.0"}},
	}
}

func TestLabelsFollowCatalogue(t *testing.T) {
	all := twoGPUs()
	p := Pair{A: all[0], B: all[1], Link: "nvlink"}
	l := PairLabels("access.peer-copy", p)
	if probs := checks.Validate("x", l, "access"); len(probs) > 0 {
		t.Errorf("PairLabels are invalid: %v", probs)
	}
	g := GPULabels("ordering.litmus", all[0], checks.KindLabel(checks.Mutant), Slow)
	if probs := checks.Validate("x", g, "ordering"); len(probs) > 0 {
		t.Errorf("GPULabels are invalid: %v", probs)
	}
	if probs := checks.Validate("x", GPULabels("ipc.importer-killed", all[0], ProcessMulti), "ipc"); len(probs) > 0 {
		t.Errorf("GPULabels with process:multi are invalid: %v", probs)
	}
	cases := map[string][]string{
		"two ids":     append(PairLabels("access.peer-copy", p), "id:access.staged-copy"),
		"wrong suite": PairLabels("access.peer-copy", p),
		"unknown":     append(GPULabels("access.uva-owner", all[0]), "flaky"),
		"bad kind":    GPULabels("access.uva-owner", all[0], checks.KindLabel(checks.Mutant)),
		"no target":   {"id:access.uva-owner", "suite:access", "kind:conf", "gpus:1"},
		"no suite":    {"id:access.uva-owner", "kind:conf", "gpus:1", "gpu:0"},
		"other suite": {"id:access.uva-owner", "suite:ipc", "kind:conf", "gpus:1", "gpu:0"},
		"two scopes":  append(GPULabels("access.uva-owner", all[0]), "gpus:pair"),
		"bad process": append(GPULabels("access.uva-owner", all[0]), "process:single"),
		"gpu link":    append(GPULabels("access.uva-owner", all[0]), "link:nvlink"),
		"bad link":    PairLabels("access.peer-copy", Pair{A: all[0], B: all[1], Link: "nvswitch"}),
		"no link":     {"id:access.peer-copy", "suite:access", "kind:conf", "gpus:pair", "pair:0-1"},
	}
	for name, labels := range cases {
		suite := "access"
		if name == "wrong suite" {
			suite = "ipc"
		}
		if probs := checks.Validate(name, labels, suite); len(probs) == 0 {
			t.Errorf("%s: %v passed validation", name, labels)
		}
	}
}

func TestCompareAndPatterns(t *testing.T) {
	w := RandomWords(Seed("access.peer-copy", "0-1"), 1000)
	for i, v := range w {
		if v == 0 || v == Poison {
			t.Fatalf("word %d is %#x", i, v)
		}
	}
	if Compare(w, w).Count != 0 {
		t.Error("equal arrays differ")
	}
	got := append([]uint32(nil), w...)
	got[7], got[9] = Poison, 0
	m := Compare(w, got)
	if m.Count != 2 || m.First != 7 || m.Got != Poison || !strings.Contains(m.String(), "byte offset 0x1c") {
		t.Errorf("Compare = %+v (%s)", m, m)
	}
	if back := BytesToWords(WordsToBytes(w)); Compare(w, back).Count != 0 {
		t.Error("byte round trip changed the words")
	}
}

func TestEqualWordsMessage(t *testing.T) {
	m := EqualWords([]uint32{1, 2, 3})
	ok, err := m.Match([]uint32{1, 9, 3})
	if ok || err != nil {
		t.Fatalf("Match = %v, %v", ok, err)
	}
	if msg := m.FailureMessage(nil); !strings.Contains(msg, "1 of 3 words differ; first at word 1 (byte offset 0x4): want 0x00000002, got 0x00000009") {
		t.Errorf("FailureMessage = %q", msg)
	}
	if ok, _ := m.Match([]uint32{1, 2, 3}); !ok {
		t.Error("equal words did not match")
	}
}
