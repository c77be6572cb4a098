// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// A missing entry point met in the middle of a spec is a failure whose
// message keeps the function and the driver version the error names.
func TestNoErrorFailureKeepsTheMissingEntryPoint(t *testing.T) {
	missing := fmt.Errorf("cuDeviceGetP2PAtomicCapabilities: %w: driver 12040 is older than CUDA 13.0", backend.ErrMissingEntryPoint)
	msg := noErrorFailure("cuDeviceGetP2PAtomicCapabilities(GPU0, GPU1)", missing)
	for _, want := range []string{"cuDeviceGetP2PAtomicCapabilities(GPU0, GPU1)", "driver 12040", "lacks an entry point"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	plain := noErrorFailure("cuMemAlloc on GPU0", &cuerr.Error{Func: "cuMemAlloc", Code: cuerr.OutOfMemory})
	if strings.Contains(plain, "entry point") || !strings.HasPrefix(plain, "cuMemAlloc on GPU0: ") {
		t.Errorf("a driver error reads %q", plain)
	}
}

func TestEntryPointNeed(t *testing.T) {
	if _, skip, err := entryPointNeed("cuDeviceGetP2PAtomicCapabilities", "x", 13000); skip || err != nil {
		t.Errorf("CUDA 13.0 driver: skip=%v err=%v, want neither", skip, err)
	}
	reason, skip, err := entryPointNeed("cuDeviceGetP2PAtomicCapabilities", "the per-operation check", 12040)
	if !skip || err != nil || !strings.Contains(reason, "CUDA 13.0") || !strings.Contains(reason, "cuDriverGetVersion=12040") {
		t.Errorf("CUDA 12.4 driver: reason %q skip=%v err=%v", reason, skip, err)
	}
	if _, skip, err := entryPointNeed("cuMemAlloc", "x", 12040); err == nil || skip {
		t.Errorf("a required entry point passed as optional: skip=%v err=%v", skip, err)
	}
}

// Only the documented refusal codes may turn into a skip.
func TestRefusalOf(t *testing.T) {
	codes := []cuerr.Result{cuerr.NotPermitted, cuerr.NotSupported}
	cases := []struct {
		err  error
		want refusal
	}{
		{nil, notRefused},
		{&cuerr.Error{Func: "cuMemCreate", Code: cuerr.NotPermitted}, documentedRefusal},
		{fmt.Errorf("wrapped: %w", &cuerr.Error{Func: "cuMemCreate", Code: cuerr.NotSupported}), documentedRefusal},
		{&cuerr.Error{Func: "cuMemCreate", Code: cuerr.InvalidValue}, otherError},
		{&cuerr.Error{Func: "cuMemCreate", Code: cuerr.OutOfMemory}, otherError},
		{errors.New("not the driver's answer"), otherError},
		{fmt.Errorf("x: %w", backend.ErrMissingEntryPoint), otherError},
	}
	for _, c := range cases {
		if got := refusalOf(c.err, codes); got != c.want {
			t.Errorf("refusalOf(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

func TestFreeMemoryMargin(t *testing.T) {
	if m := freeMemoryMargin(1 << 20); m != 512<<20 {
		t.Errorf("margin for 1 MiB = %d, want 512 MiB", m)
	}
	if m := freeMemoryMargin(8 << 30); m != 1<<30 {
		t.Errorf("margin for 8 GiB = %d, want 1 GiB", m)
	}
}
