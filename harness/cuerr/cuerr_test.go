// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuerr

import (
	"errors"
	"fmt"
	"testing"
)

// TestValuesMatchCudaH pins every named code to cuda.h's CUresult enum (the
// codes of docs/observations.md, error codes, plus
// COOPERATIVE_LAUNCH_TOO_LARGE), so a
// typo cannot move a code and a code added to the package must be pinned here.
func TestValuesMatchCudaH(t *testing.T) {
	want := map[string]int32{
		"CUDA_SUCCESS": 0, "CUDA_ERROR_INVALID_VALUE": 1, "CUDA_ERROR_OUT_OF_MEMORY": 2,
		"CUDA_ERROR_NOT_INITIALIZED": 3, "CUDA_ERROR_DEINITIALIZED": 4, "CUDA_ERROR_STUB_LIBRARY": 34,
		"CUDA_ERROR_DEVICE_UNAVAILABLE": 46, "CUDA_ERROR_NO_DEVICE": 100, "CUDA_ERROR_INVALID_DEVICE": 101,
		"CUDA_ERROR_INVALID_IMAGE": 200, "CUDA_ERROR_INVALID_CONTEXT": 201, "CUDA_ERROR_MAP_FAILED": 205,
		"CUDA_ERROR_UNMAP_FAILED": 206, "CUDA_ERROR_ALREADY_MAPPED": 208, "CUDA_ERROR_NO_BINARY_FOR_GPU": 209,
		"CUDA_ERROR_NOT_MAPPED": 211, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED": 217, "CUDA_ERROR_INVALID_PTX": 218,
		"CUDA_ERROR_NVLINK_UNCORRECTABLE": 220, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND": 221,
		"CUDA_ERROR_UNSUPPORTED_PTX_VERSION": 222, "CUDA_ERROR_JIT_COMPILATION_DISABLED": 223,
		"CUDA_ERROR_CONTAINED": 226, "CUDA_ERROR_INVALID_SOURCE": 300, "CUDA_ERROR_FILE_NOT_FOUND": 301,
		"CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND": 302, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED": 303,
		"CUDA_ERROR_OPERATING_SYSTEM": 304, "CUDA_ERROR_INVALID_HANDLE": 400, "CUDA_ERROR_ILLEGAL_STATE": 401,
		"CUDA_ERROR_NOT_FOUND": 500, "CUDA_ERROR_NOT_READY": 600, "CUDA_ERROR_ILLEGAL_ADDRESS": 700,
		"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES": 701, "CUDA_ERROR_LAUNCH_TIMEOUT": 702,
		"CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED": 704, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED": 705,
		"CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE": 708, "CUDA_ERROR_CONTEXT_IS_DESTROYED": 709, "CUDA_ERROR_ASSERT": 710,
		"CUDA_ERROR_TOO_MANY_PEERS": 711, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED": 712,
		"CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED": 713, "CUDA_ERROR_ILLEGAL_INSTRUCTION": 715,
		"CUDA_ERROR_MISALIGNED_ADDRESS": 716, "CUDA_ERROR_INVALID_ADDRESS_SPACE": 717, "CUDA_ERROR_LAUNCH_FAILED": 719,
		"CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE": 720, "CUDA_ERROR_NOT_PERMITTED": 800,
		"CUDA_ERROR_NOT_SUPPORTED": 801, "CUDA_ERROR_SYSTEM_NOT_READY": 802, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH": 803,
		"CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE": 804, "CUDA_ERROR_TIMEOUT": 909, "CUDA_ERROR_KEY_ROTATION": 916,
		"CUDA_ERROR_UNKNOWN": 999,
	}
	got := map[string]int32{}
	for r, n := range names {
		got[n] = int32(r)
	}
	for n, v := range want {
		if g, ok := got[n]; !ok {
			t.Errorf("%s (%d in cuda.h) is not named in the package", n, v)
		} else if g != v {
			t.Errorf("%s = %d, cuda.h says %d", n, g, v)
		}
	}
	for n, v := range got {
		if _, ok := want[n]; !ok {
			t.Errorf("%s = %d is not pinned by this test", n, v)
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
