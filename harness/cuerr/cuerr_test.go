// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuerr

import (
	"errors"
	"fmt"
	"testing"
)

// TestValuesMatchCudaH pins the numbers to cuda.h so a typo cannot move a code.
func TestValuesMatchCudaH(t *testing.T) {
	want := map[string]int32{
		"CUDA_SUCCESS": 0, "CUDA_ERROR_INVALID_VALUE": 1, "CUDA_ERROR_OUT_OF_MEMORY": 2,
		"CUDA_ERROR_NOT_INITIALIZED": 3, "CUDA_ERROR_STUB_LIBRARY": 34, "CUDA_ERROR_NO_DEVICE": 100,
		"CUDA_ERROR_INVALID_DEVICE": 101, "CUDA_ERROR_INVALID_CONTEXT": 201, "CUDA_ERROR_MAP_FAILED": 205,
		"CUDA_ERROR_PEER_ACCESS_UNSUPPORTED": 217, "CUDA_ERROR_INVALID_PTX": 218,
		"CUDA_ERROR_UNSUPPORTED_PTX_VERSION": 222, "CUDA_ERROR_CONTAINED": 226,
		"CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND": 302, "CUDA_ERROR_INVALID_HANDLE": 400,
		"CUDA_ERROR_NOT_FOUND": 500, "CUDA_ERROR_NOT_READY": 600, "CUDA_ERROR_ILLEGAL_ADDRESS": 700,
		"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES": 701, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED": 704,
		"CUDA_ERROR_PEER_ACCESS_NOT_ENABLED": 705, "CUDA_ERROR_TOO_MANY_PEERS": 711,
		"CUDA_ERROR_LAUNCH_FAILED": 719, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE": 720,
		"CUDA_ERROR_NOT_PERMITTED": 800, "CUDA_ERROR_NOT_SUPPORTED": 801, "CUDA_ERROR_TIMEOUT": 909,
		"CUDA_ERROR_KEY_ROTATION": 916, "CUDA_ERROR_UNKNOWN": 999,
	}
	got := map[string]int32{}
	for r, n := range names {
		got[n] = int32(r)
	}
	for n, v := range want {
		if got[n] != v {
			t.Errorf("%s = %d, cuda.h says %d", n, got[n], v)
		}
	}
}

func TestErrorRendersAndMatches(t *testing.T) {
	err := Check("cuCtxEnablePeerAccess", PeerAccessUnsupported)
	if got, want := err.Error(), "cuCtxEnablePeerAccess: CUDA_ERROR_PEER_ACCESS_UNSUPPORTED (217)"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	wrapped := fmt.Errorf("enable peer access GPU0→GPU0: %w", err)
	if !errors.Is(wrapped, PeerAccessUnsupported) {
		t.Error("errors.Is(wrapped, PeerAccessUnsupported) = false")
	}
	if errors.Is(wrapped, InvalidContext) {
		t.Error("errors.Is(wrapped, InvalidContext) = true")
	}
	if !errors.Is(wrapped, &Error{Func: "cuCtxEnablePeerAccess", Code: PeerAccessUnsupported}) {
		t.Error("errors.Is with a matching *Error target = false")
	}
	if errors.Is(wrapped, &Error{Func: "cuMemAlloc", Code: PeerAccessUnsupported}) {
		t.Error("errors.Is with another function = true")
	}
	if code, ok := Code(wrapped); !ok || code != PeerAccessUnsupported {
		t.Errorf("Code = %v, %v", code, ok)
	}
	if Check("cuInit", Success) != nil {
		t.Error("Check(Success) != nil")
	}
	if s := Result(12345).String(); s != "CUDA_ERROR_12345" {
		t.Errorf("unknown code renders as %q", s)
	}
	if _, ok := Code(errors.New("plain")); ok {
		t.Error("Code(plain error) reported ok")
	}
}
