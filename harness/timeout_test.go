// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"testing"
	"time"
)

// The multipliers the specs use must give, at the default 2m, the timeouts
// the specs had before they derived them from the configuration.
func TestScaleTimeoutKeepsTheFormerValuesAtTheDefault(t *testing.T) {
	const def = 2 * time.Minute
	for _, c := range []struct {
		factor float64
		want   time.Duration
	}{
		{0.25, 30 * time.Second},
		{0.5, time.Minute},
		{1, 2 * time.Minute},
		{3, 6 * time.Minute},
	} {
		if got := scaleTimeout(def, c.factor); got != c.want {
			t.Errorf("scaleTimeout(%s, %g) = %s, want %s", def, c.factor, got, c.want)
		}
	}
}

func TestScaleTimeoutRoundsUpToASecond(t *testing.T) {
	if got := scaleTimeout(10*time.Second, 0.33); got != 4*time.Second {
		t.Errorf("scaleTimeout(10s, 0.33) = %s, want 4s (3.3s rounded up)", got)
	}
	if got := scaleTimeout(90*time.Second, 0.5); got != 45*time.Second {
		t.Errorf("scaleTimeout(90s, 0.5) = %s, want 45s", got)
	}
}
