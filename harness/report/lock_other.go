// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

//go:build !unix

package report

// lockDir is a no-op where flock does not exist; p2pconf runs on Linux.
func lockDir(string) (func(), error) { return func() {}, nil }
