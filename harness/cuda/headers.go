// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

import _ "embed" // the C headers below, shared with the reproducer generator

// ShimHeader is shim.h, the CUDA driver types the binding declares itself.
// The standalone reproducers (harness/repro) embed it verbatim, so they and
// the binding can never disagree on a layout.
//
//go:embed shim.h
var ShimHeader string

// EntriesHeader is entries.h, the table of entry points with the CUDA
// version each is resolved at (cuGetProcAddress_v2), shared with the
// reproducers for the same reason.
//
//go:embed entries.h
var EntriesHeader string
