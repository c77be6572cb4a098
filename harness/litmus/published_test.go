// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"testing"

	"github.com/p2pconf/p2pconf/harness/pldi26"
)

// TestPublishedBaseVerdicts: every row of the PLDI 2026 table has its
// generated test, and the model's verdict for it is the table's PTX-model
// (base) verdict.
func TestPublishedBaseVerdicts(t *testing.T) {
	rows, err := pldi26.Rows()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1306 {
		t.Fatalf("%d rows, want the table's 1306", len(rows))
	}
	counts := map[string]int{}
	bad := 0
	for _, r := range rows {
		test, pl, err := PublishedTest(r)
		if err != nil {
			t.Error(err)
			continue
		}
		v, why := pl.Verdict(test)
		counts[r.Base+"/"+v.String()]++
		if v.String() != r.Base {
			bad++
			if bad <= 20 {
				t.Errorf("%s: the model says %s (%s), the table's PTX model %s", r.Name, v, why, r.Base)
			}
		}
	}
	t.Logf("table/model: %v", counts)
	if bad > 0 {
		t.Errorf("%d of %d rows disagree", bad, len(rows))
	}
}
