// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package backend

import (
	"errors"
	"strings"
	"testing"
)

// TestOpenByName: a registered backend opens with the settings given and
// declares its limits, a name nobody registered is an error naming the ones that are, and a
// second registration of a name is refused.
func TestOpenByName(t *testing.T) {
	var got OpenSettings
	want := errors.New("opened")
	Register("test-only", func(s OpenSettings) (Backend, error) { got = s; return nil, want }, Limits{Simulated: true, MaxTransfer: 4096})
	if l := LimitsOf("test-only"); !l.Simulated || l.MaxTransfer != 4096 {
		t.Errorf("LimitsOf(test-only) = %+v, want the limits it registered", l)
	}
	if l := LimitsOf("opencl"); l != (Limits{}) {
		t.Errorf("LimitsOf(opencl) = %+v, want the zero Limits for a name nobody registered", l)
	}
	if _, err := Open("test-only", OpenSettings{FakePreset: "h200x2"}); !errors.Is(err, want) || got.FakePreset != "h200x2" {
		t.Errorf("Open(test-only) = %v with %+v, want the opener's error and its settings", err, got)
	}
	if _, err := Open("opencl", OpenSettings{}); err == nil || !strings.Contains(err.Error(), "test-only") || !strings.Contains(err.Error(), `"opencl"`) {
		t.Errorf("Open(opencl) = %v, want an error naming it and the linked backends", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a second registration of test-only was accepted")
		}
	}()
	Register("test-only", func(OpenSettings) (Backend, error) { return nil, nil }, Limits{})
}
