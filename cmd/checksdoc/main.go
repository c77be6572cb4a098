// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Command checksdoc prints the check catalogue document (docs/checks.md)
// generated from the catalogue in harness/checks:
//
//	go run ./cmd/checksdoc > docs/checks.md
//
// A test in harness/checks fails when the committed file is stale.
package main

import (
	"fmt"

	"github.com/p2pconf/p2pconf/harness/checks"
)

func main() { fmt.Print(checks.Document()) }
