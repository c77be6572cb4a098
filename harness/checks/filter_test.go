// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package checks

import "testing"

func TestCheckFilterNames(t *testing.T) {
	for _, f := range []string{"", "id:access.peer-copy && pair:0-1", "suite:ipc || !id:health.fabric", "id:/access\\..*/", "kind:mutant"} {
		if err := CheckFilterNames(f); err != nil {
			t.Errorf("%q refused: %v", f, err)
		}
	}
	for _, f := range []string{"id:acess.peer-copy", "pair:0-1 && id:access.peer-cpy", "suite:acess", "(suite:ipcc)"} {
		if err := CheckFilterNames(f); err == nil {
			t.Errorf("%q accepted", f)
		}
	}
}
