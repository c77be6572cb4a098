// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cudabackend

import "testing"

// released runs a deferred release and fails the test when it fails: a
// release the driver refuses means the test left something behind or freed
// it twice, which a passing test must not hide.
func released(t testing.TB, what string, release func() error) {
	t.Helper()
	if err := release(); err != nil {
		t.Errorf("release (%s): %v", what, err)
	}
}
