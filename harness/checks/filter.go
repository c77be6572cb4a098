// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package checks

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// filterAtom matches the id: and suite: labels a Ginkgo label filter
// names literally ("id:access.peer-copy", "suite:ipc"); regular
// expressions (/.../) and set operations are left to Ginkgo.
var filterAtom = regexp.MustCompile(`(?:^|[\s(!&|,])(id|suite):([A-Za-z0-9._-]+)`)

// CheckFilterNames refuses a label filter that names a check ID or a suite
// the catalogue does not have: Ginkgo selects no spec for it and a run of
// a mistyped filter would pass green with nothing tested.
func CheckFilterNames(filter string) error {
	suites := map[string]bool{}
	for _, c := range All() {
		suites[c.Family] = true
	}
	for _, m := range filterAtom.FindAllStringSubmatch(filter, -1) {
		kind, name := m[1], m[2]
		switch kind {
		case "id":
			if _, ok := Lookup(name); !ok {
				return fmt.Errorf("label filter %q: no check %q in the catalogue (docs/checks.md lists them)", filter, name)
			}
		case "suite":
			if !suites[name] {
				var have []string
				for s := range suites {
					have = append(have, s)
				}
				sort.Strings(have)
				return fmt.Errorf("label filter %q: no suite %q (suites: %s)", filter, name, strings.Join(have, ", "))
			}
		}
	}
	return nil
}
