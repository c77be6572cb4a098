// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"testing"

	"github.com/p2pconf/p2pconf/harness/checks"
)

// TestSoleCatchersHaveAReason: a defect that names one catcher leaves its
// contract to one check, which the catalogue must explain
// (checks.SoleCatcherWhy, rendered in docs/checks.md); a reason whose
// check is no longer any defect's only catcher is stale and must go.
func TestSoleCatchersHaveAReason(t *testing.T) {
	sole := map[string][]string{}
	for _, d := range Defects() {
		if len(d.Catchers) == 1 {
			sole[d.Catchers[0]] = append(sole[d.Catchers[0]], d.Name)
		}
	}
	if len(sole) == 0 {
		t.Fatal("no defect names a single catcher: the check would hold vacuously")
	}
	for id, defects := range sole {
		if _, ok := checks.SoleCatcherWhy(id); !ok {
			t.Errorf("%s is the only declared catcher of %v, and the catalogue does not say why (harness/checks/sole.go)", id, defects)
		}
	}
	for _, id := range checks.SoleCatchers() {
		if _, ok := sole[id]; !ok {
			t.Errorf("harness/checks/sole.go explains %s, which is no defect's only catcher", id)
		}
		if _, ok := checks.Lookup(id); !ok {
			t.Errorf("harness/checks/sole.go explains %s, which is not in the catalogue", id)
		}
	}
}
