// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package machine

import "fmt"

// Seed derives a seed from a spec-stable string (check ID and target), so a
// rerun of the same check on the same pair uses the same data, and a
// reproducer (harness/repro) derives the very same data as the suite.
func Seed(parts ...any) uint64 {
	var h uint64 = 1469598103934665603
	for _, b := range []byte(fmt.Sprint(parts...)) {
		h = (h ^ uint64(b)) * 1099511628211
	}
	return h
}
