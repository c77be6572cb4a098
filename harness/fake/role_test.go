// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

const envRole = "P2PCONF_FAKE_TEST_ROLE"

func runRole(role string) int { return 2 }
