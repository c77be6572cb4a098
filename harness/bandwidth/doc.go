// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package bandwidth holds what the bandwidth suite needs without a GPU:
// its settings (the P2PCONF_BW_* variables, read before any GPU work), the
// ladder of transfer sizes it measures and their labels, and the gate that
// holds its figures against a baseline (a previous run or a file of
// minimums). suites/bandwidth/README.md documents the formats.
package bandwidth
