// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package sentences

import (
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	for _, bad := range []string{
		"SB F.sc.sys between CTAs of never shows the forbidden outcome",
		"MP rel.sys/acq.sys with T0 on , T1 on , T2 on the host",
		"data and flags in 's memory",
		"stays exact (every SM of )",
		"atom.add.u32.sys stays exact ( )",
		"hands data from to",
		"cuMemcpyPeerAsync moves 4 B and exactly, with peer access enabled",
	} {
		if len(Find(bad)) == 0 {
			t.Errorf("%q: no broken sentence found", bad)
		}
	}
	for _, good := range []string{
		"SB F.sc.sys between CTAs of GPU0 never shows the forbidden outcome r0=0 ∧ r1=0",
		"MP rel.sys/acq.sys with T0 on the host, T1 on GPU1",
		"atom.add.f32.sys stays exact (GPU0 and GPU1 on GPU0's memory)",
		"a copy GPU0→pinned host memory→GPU1 moves the data exactly",
		"peer access GPU0→GPU1 cannot be enabled twice or disabled when not enabled, and disabling it takes access away",
	} {
		if f := Find(good); len(f) != 0 {
			t.Errorf("%q: found %q", good, f)
		}
	}
	if f, err := InJSON([]byte(`{"results": [{"spec": "x in 's memory"}]}`)); err != nil || len(f) != 1 {
		t.Errorf("JSON: %q %v", f, err)
	}
	if f, err := InXML([]byte(`<testsuites><testcase name="stays exact (every SM of )"></testcase></testsuites>`)); err != nil || len(f) != 1 {
		t.Errorf("XML: %q %v", f, err)
	}
	if f := InHTML(`<p>T0 on <b></b>, T1</p><script>var a = f( );</script>`); len(f) == 0 || !strings.Contains(strings.Join(f, " "), "T0 on") || strings.Contains(strings.Join(f, " "), "f(") {
		t.Errorf("HTML: %q", f)
	}
}
