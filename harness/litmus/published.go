// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"sync"

	"github.com/p2pconf/p2pconf/harness/pldi26"
	"github.com/p2pconf/p2pconf/kernels"
)

// generatedTests keeps one *Test per shape, variant and scopes, so that a
// test generated twice is one test (the model's verdicts are cached by
// test).
var generatedTests sync.Map // string → *Test

// Generate returns the shape's test for a variant and scopes, the same
// *Test every time.
func (s *Shape) Generate(v ShapeVariant, scope, fenceScope kernels.Scope) *Test {
	if !v.HasFences() {
		fenceScope = scope
	}
	k := fmt.Sprintf("%s|%s|%d|%d", s.Family, v.Name, scope, fenceScope)
	if t, ok := generatedTests.Load(k); ok {
		return t.(*Test)
	}
	t, _ := generatedTests.LoadOrStore(k, s.Test(v, scope, fenceScope))
	return t.(*Test)
}

var tableScopes = map[string]kernels.Scope{"BLOCK": kernels.CTA, "DEVICE": kernels.GPU}

// PublishedTest is the generated test and placement of a row of the PLDI
// 2026 table: the row's shape and variant, its access scope (BLOCK: .cta,
// DEVICE: .gpu) and fence scope (.sys where the row names none, the
// kernels' default), its threads grouped into CTAs of one GPU as the row
// says.
func PublishedTest(r pldi26.Row) (*Test, Placement, error) {
	var shape *Shape
	for _, s := range FieldShapes() {
		if s.Kernel == r.Family {
			shape = s
		}
	}
	if shape == nil {
		return nil, Placement{}, fmt.Errorf("%s: no shape for kernel %q", r.Name, r.Family)
	}
	v, ok := shape.Variant(r.Variant)
	if !ok {
		return nil, Placement{}, fmt.Errorf("%s: shape %s has no variant %s", r.Name, shape.Family, r.Variant)
	}
	g, err := ParseGrouping(r.Grouping, len(shape.Threads))
	if err != nil {
		return nil, Placement{}, fmt.Errorf("%s: %w", r.Name, err)
	}
	fence := kernels.Sys
	if r.FenceScope != "" {
		fence = tableScopes[r.FenceScope]
	}
	t := shape.Generate(v, tableScopes[r.Scope], fence)
	return t, Placement{Kind: CTAs, Roles: units(len(t.Threads), UnitA), Homes: units(len(t.Locs), UnitA), Groups: g}, nil
}

// PublishedKey is the variant key of the row's generated case between CTAs
// of one GPU: where a run's result for the row is found.
func PublishedKey(r pldi26.Row) (string, error) {
	t, pl, err := PublishedTest(r)
	if err != nil {
		return "", err
	}
	return spaceKey(t, pl), nil
}
