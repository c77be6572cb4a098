// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ptxmodel

import (
	"fmt"
	"strings"
	"testing"
)

func mustParse(t *testing.T, src string) *Program {
	t.Helper()
	p, err := Parse("test.litmus", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustCheck(t *testing.T, p *Program) *Result {
	t.Helper()
	r, err := Check(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// mpWeakInLoop is the shape the suite saw fail on an H200: the reader's
// weak data load in the iteration that saw the flag, after the acquire.
const mpWeakInLoop = `PTX MP-weak-data
{ x=0; y=0; }
 P0@cta 0,gpu 0       | P1@cta 1,gpu 0        ;
 st.weak x, 1         | ld.acquire.gpu r0, y  ;
 st.release.gpu y, 1  | ld.weak r1, x         ;
exists (P1:r0 == 1 /\ P1:r1 == 0)
`

// TestWeakDataRaceIsJudged: a uniform-size race (the reader's weak load
// of x races with the writer's weak store in other executions) is inside
// the model: the stale outcome is forbidden by Causality, the race is
// reported as uniform-size, and the program is not undefined.
func TestWeakDataRaceIsJudged(t *testing.T) {
	r := mustCheck(t, mustParse(t, mpWeakInLoop))
	if r.Reachable || r.Holds {
		t.Fatalf("MP with release/acquire at .gpu between CTAs: the stale read is allowed; witness:\n%s", r.Witness.Text())
	}
	if len(r.Forbidden) == 0 || r.Forbidden[0].Axiom != AxiomCausality {
		t.Fatalf("forbidden by %v, want Causality", r.Forbidden)
	}
	if !strings.Contains(r.Forbidden[0].Detail, "P1's ld.weak r1, x") || !strings.Contains(r.Forbidden[0].Detail, "P0's st.weak x, 1") {
		t.Errorf("the explanation %q does not name the stale read and the write it missed", r.Forbidden[0].Detail)
	}
	if len(r.Races) == 0 || r.Undefined() {
		t.Errorf("races %v (undefined %v): want the weak x accesses' uniform-size race", r.Races, r.Undefined())
	}
}

// TestRelaxedFlagAllows: the control — with a relaxed flag load nothing
// synchronises, and the model gives a witness of the stale read.
func TestRelaxedFlagAllows(t *testing.T) {
	src := strings.Replace(mpWeakInLoop, "ld.acquire.gpu r0, y", "ld.relaxed.gpu r0, y", 1)
	r := mustCheck(t, mustParse(t, src))
	if !r.Reachable || r.Witness == nil {
		t.Fatalf("MP without an acquire: the stale read is forbidden (%v)", r.Forbidden)
	}
	w := r.Witness.Text()
	if !strings.Contains(w, "ld.relaxed.gpu r0, y = 1 reads from P0's st.release.gpu y, 1") || !strings.Contains(w, "ld.weak r1, x = 0 reads from the initial write of x") {
		t.Errorf("the witness does not show the flag read 1 and the data read 0:\n%s", w)
	}
}

// TestMixedSizeRaceIsUndefined: a 64-bit store racing with a 32-bit load
// of the same location is outside the model.
func TestMixedSizeRaceIsUndefined(t *testing.T) {
	r := mustCheck(t, mustParse(t, `PTX mixed
{ x=0; }
 P0@cta 0,gpu 0   | P1@cta 1,gpu 0  ;
 st.weak.b64 x, 1 | ld.weak r0, x   ;
exists (P1:r0 == 1)
`))
	if !r.Undefined() {
		t.Errorf("races %v: want a mixed-size race", r.Races)
	}
}

// TestScopes: release/acquire at .gpu synchronise between CTAs of one GPU
// but not across GPUs or with the host; at .cta only within a CTA.
func TestScopes(t *testing.T) {
	for _, c := range []struct {
		p0, p1, scope string
		forbidden     bool
	}{
		{"cta 0,gpu 0", "cta 1,gpu 0", "gpu", true},
		{"cta 0,gpu 0", "cta 0,gpu 1", "gpu", false},
		{"cta 0,gpu 0", "cta 0,gpu 1", "sys", true},
		{"cta 0,gpu 0", "cta 0,gpu 0", "cta", true},
		{"cta 0,gpu 0", "cta 1,gpu 0", "cta", false},
		{"host", "cta 0,gpu 0", "sys", true},
	} {
		src := fmt.Sprintf("PTX MP\n{ x=0; y=0; }\n P0@%s | P1@%s ;\n st.weak x, 1 | ld.acquire.%s r0, y ;\n"+
			" st.release.%s y, 1 | ld.weak r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n", c.p0, c.p1, c.scope, c.scope)
		r := mustCheck(t, mustParse(t, src))
		if r.Reachable == c.forbidden {
			t.Errorf("P0@%s, P1@%s, release/acquire .%s: reachable %v, want forbidden %v", c.p0, c.p1, c.scope, r.Reachable, c.forbidden)
		}
	}
}

// TestFenceSCAxiom: a Fence-SC order against causality is reported.
func TestFenceSCAxiom(t *testing.T) {
	p := mustParse(t, `PTX two-fences
{ x=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 fence.sc.gpu   | fence.sc.gpu   ;
exists (true)
`)
	ev := p.events(nil)
	x := &exec{p: p, ev: ev}
	x.ms = x.morallyStrong()
	var f0, f1 = -1, -1
	for i, e := range ev {
		if e.sc && e.thread == 0 {
			f0 = i
		}
		if e.sc && e.thread == 1 {
			f1 = i
		}
	}
	x.cause, x.scOrder = newRel(len(ev)), newRel(len(ev))
	x.cause.add(f0, f1)
	x.scOrder.add(f1, f0)
	if v := x.fenceSCAxiom(); v == nil || v.Axiom != AxiomFenceSC {
		t.Fatalf("a Fence-SC order against causality: %v", v)
	}
	x.scOrder = newRel(len(ev))
	x.scOrder.add(f0, f1)
	if v := x.fenceSCAxiom(); v != nil {
		t.Fatalf("a Fence-SC order along causality: %v", v)
	}
}

// TestNoThinAir: values that only a self-justifying loop of reads and
// dependencies could produce are forbidden, and the explanation says so.
func TestNoThinAir(t *testing.T) {
	r := mustCheck(t, mustParse(t, `PTX LB-deps
{ x=0; y=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 ld.weak r0, x  | ld.weak r1, y  ;
 st.weak y, r0  | st.weak x, r1  ;
exists (P0:r0 == 42 /\ P1:r1 == 42)
`))
	if r.Reachable || len(r.Forbidden) != 1 || r.Forbidden[0].Axiom != AxiomNoThinAir {
		t.Fatalf("thin air: reachable %v, forbidden %v", r.Reachable, r.Forbidden)
	}
}

// TestHostPlacement: a host thread's operations at GPU scope are refused.
func TestHostPlacement(t *testing.T) {
	_, err := Parse("h.litmus", strings.NewReader(`PTX host-gpu
{ x=0; }
 P0@host            | P1@cta 0,gpu 0 ;
 st.relaxed.gpu x, 1 | ld.weak r0, x  ;
exists (P1:r0 == 1)
`))
	if err == nil || !strings.Contains(err.Error(), "only in the system scope") {
		t.Errorf("a host thread with .gpu: %v", err)
	}
}

// TestParseRefusals: what the model does not judge is refused with the
// line it is on.
func TestParseRefusals(t *testing.T) {
	head := "PTX t\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
	for _, c := range []struct{ name, src, want string }{
		{"barrier", head + " bar.cta.sync 0 | ld.weak r0, x ;\nexists (P1:r0 == 0)\n", "test.litmus:4: P0: \"bar.cta.sync 0\": barriers"},
		{"branch", head + " goto LC00 | ld.weak r0, x ;\nexists (P1:r0 == 0)\n", "branches"},
		{"label", head + " LC00: | ld.weak r0, x ;\nexists (P1:r0 == 0)\n", "labels"},
		{"proxy", head + " fence.proxy.alias | ld.weak r0, x ;\nexists (P1:r0 == 0)\n", ".proxy"},
		{"no scope", head + " st.relaxed x, 1 | ld.weak r0, x ;\nexists (P1:r0 == 0)\n", "needs a scope"},
		{"ld.release", head + " ld.release.gpu r1, x | ld.weak r0, x ;\nexists (P1:r0 == 0)\n", "ld.release does not exist"},
		{"filter", head + " st.weak x, 1 | ld.weak r0, x ;\nfilter (P1:r0 == 0)\n", "filter"},
		{"unknown register", head + " st.weak x, 1 | ld.weak r0, x ;\nexists (P1:r9 == 0)\n", "no register r9"},
		{"not PTX", "C t\n{ x=0; }\n", "only PTX"},
		{"no threads row", "PTX t\n{ x=0; }\nexists (x == 0)\n", "row of threads"},
	} {
		_, err := Parse("test.litmus", strings.NewReader(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line containing %q", c.name, err, c.want)
		}
	}
}

// TestFormatRoundTrip: a formatted program parses back to the same text and
// verdict.
func TestFormatRoundTrip(t *testing.T) {
	for _, d := range dat3mTests(t) {
		text := d.prog.String()
		back, err := Parse(d.path, strings.NewReader(text))
		if err != nil {
			t.Fatalf("%s: %v\n%s", d.path, err, text)
		}
		if back.String() != text {
			t.Errorf("%s: formats as\n%s\nthen as\n%s", d.path, text, back.String())
		}
	}
}

// TestOutcomes: the model's allowed outcomes of SB with fence.sc at .gpu
// between CTAs are the three sequentially consistent ones.
func TestOutcomes(t *testing.T) {
	p := mustParse(t, `PTX SB-sc
{ x=0; y=0; }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0      ;
 st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1 ;
 fence.sc.gpu        | fence.sc.gpu        ;
 ld.relaxed.gpu r0, y | ld.relaxed.gpu r1, x ;
exists (P0:r0 == 0 /\ P1:r1 == 0)
`)
	outs, err := Outcomes(p, []Value{{Kind: RegValue, Thread: 0, Reg: 0}, {Kind: RegValue, Thread: 1, Reg: 0}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[[2]int64]bool{}
	for _, o := range outs {
		got[[2]int64{o.Values[0], o.Values[1]}] = true
	}
	want := map[[2]int64]bool{{0, 1}: true, {1, 0}: true, {1, 1}: true}
	if len(got) != len(want) {
		t.Fatalf("outcomes %v, want %v", got, want)
	}
	for k := range want {
		if !got[k] {
			t.Errorf("outcome %v missing", k)
		}
	}
}
