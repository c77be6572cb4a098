// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package kernels

import "testing"

// TestDescriptorsMatchPTX checks, without a GPU, that every descriptor names
// an .entry of its module with exactly the parameters the PTX declares, that
// every entry of an embedded module has a descriptor, and that every module
// stays within PTX ISA 8.2 so drivers from r535 on can JIT it.
func TestDescriptorsMatchPTX(t *testing.T) {
	entries := map[string]map[string]EntrySignature{}
	for _, k := range All() {
		if _, ok := entries[k.Module]; !ok {
			sigs, err := ParseEntries(k.PTX)
			if err != nil {
				t.Fatalf("%s: %v", k.Module, err)
			}
			entries[k.Module] = map[string]EntrySignature{}
			for _, s := range sigs {
				entries[k.Module][s.Name] = s
			}
			for i, r := range k.PTX {
				if r > 127 {
					t.Errorf("%s: non-ASCII character %q at byte %d; ptxas rejects the whole module", k.Module, r, i)
					break
				}
			}
			v, err := PTXVersion(k.PTX)
			if err != nil || v > 82 {
				t.Errorf("%s: .version %d.%d (err %v); keep it at 8.2 or older", k.Module, v/10, v%10, err)
			}
		}
		sig, ok := entries[k.Module][k.Entry]
		if !ok {
			t.Errorf("%s: no .entry %s in the PTX", k, k.Entry)
			continue
		}
		if len(sig.Params) != len(k.Params) {
			t.Errorf("%s: PTX declares %d parameters, descriptor %d", k, len(sig.Params), len(k.Params))
			continue
		}
		for i, p := range k.Params {
			want := p.Kind
			if want == Ptr {
				want = U64
			}
			if sig.Params[i].Kind != want || sig.Params[i].Name != p.Name {
				t.Errorf("%s: parameter %d is %s %s in PTX, %s %s in the descriptor", k, i,
					sig.Params[i].Name, sig.Params[i].Kind.PTXType(), p.Name, p.Kind.PTXType())
			}
		}
		if k.Sim == nil {
			t.Errorf("%s: no Sim function; the fake backend cannot run it", k)
		}
	}
	described := map[string]bool{}
	for _, k := range All() {
		described[k.String()] = true
	}
	for mod, sigs := range entries {
		for name := range sigs {
			if !described[mod+":"+name] {
				t.Errorf("%s: .entry %s has no descriptor", mod, name)
			}
		}
	}
}

func TestParseEntries(t *testing.T) {
	sigs, err := ParseEntries(`.version 7.0
.target sm_70
// .entry commented_out(.param .u64 x)
.visible .entry fill(
    .param .u64 fill_dst,
    .param .u32 fill_n, .param .f32 fill_x
)
{ ret; }`)
	if err != nil || len(sigs) != 1 || sigs[0].Name != "fill" || len(sigs[0].Params) != 3 ||
		sigs[0].Params[1] != (Param{"fill_n", U32}) || sigs[0].Params[2].Kind != F32 {
		t.Fatalf("ParseEntries = %+v, %v", sigs, err)
	}
}
