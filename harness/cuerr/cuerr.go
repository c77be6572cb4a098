// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package cuerr holds the CUDA driver's result codes and the error type every
// layer of p2pconf uses for them. It is pure Go, so the fake backend and the
// suites can name and match codes without cgo.
//
// The numbers are the CUresult values of cuda.h (12.x and 13.0); a test pins
// them so that a typo cannot drift a code (as 99 versus 999 once did elsewhere).
package cuerr

import (
	"errors"
	"fmt"
)

// Result is a CUresult value.
type Result int32

// CUresult values used by p2pconf. Names drop the CUDA_ERROR_ prefix.
const (
	Success                     Result = 0
	InvalidValue                Result = 1
	OutOfMemory                 Result = 2
	NotInitialized              Result = 3
	Deinitialized               Result = 4
	StubLibrary                 Result = 34
	DeviceUnavailable           Result = 46
	NoDevice                    Result = 100
	InvalidDevice               Result = 101
	InvalidImage                Result = 200
	InvalidContext              Result = 201
	MapFailed                   Result = 205
	UnmapFailed                 Result = 206
	AlreadyMapped               Result = 208
	NoBinaryForGPU              Result = 209
	NotMapped                   Result = 211
	PeerAccessUnsupported       Result = 217
	InvalidPTX                  Result = 218
	NVLinkUncorrectable         Result = 220
	JITCompilerNotFound         Result = 221
	UnsupportedPTXVersion       Result = 222
	JITCompilationDisabled      Result = 223
	Contained                   Result = 226
	InvalidSource               Result = 300
	FileNotFound                Result = 301
	SharedObjectSymbolNotFound  Result = 302
	SharedObjectInitFailed      Result = 303
	OperatingSystem             Result = 304
	InvalidHandle               Result = 400
	IllegalState                Result = 401
	NotFound                    Result = 500
	NotReady                    Result = 600
	IllegalAddress              Result = 700
	LaunchOutOfResources        Result = 701
	LaunchTimeout               Result = 702
	PeerAccessAlreadyEnabled    Result = 704
	PeerAccessNotEnabled        Result = 705
	PrimaryContextActive        Result = 708
	ContextIsDestroyed          Result = 709
	Assert                      Result = 710
	TooManyPeers                Result = 711
	HostMemoryAlreadyRegistered Result = 712
	HostMemoryNotRegistered     Result = 713
	IllegalInstruction          Result = 715
	MisalignedAddress           Result = 716
	InvalidAddressSpace         Result = 717
	LaunchFailed                Result = 719
	CooperativeLaunchTooLarge   Result = 720
	NotPermitted                Result = 800
	NotSupported                Result = 801
	SystemNotReady              Result = 802
	SystemDriverMismatch        Result = 803
	CompatNotSupportedOnDevice  Result = 804
	Timeout                     Result = 909
	KeyRotation                 Result = 916
	Unknown                     Result = 999
)

var names = map[Result]string{
	Success:                     "CUDA_SUCCESS",
	InvalidValue:                "CUDA_ERROR_INVALID_VALUE",
	OutOfMemory:                 "CUDA_ERROR_OUT_OF_MEMORY",
	NotInitialized:              "CUDA_ERROR_NOT_INITIALIZED",
	Deinitialized:               "CUDA_ERROR_DEINITIALIZED",
	StubLibrary:                 "CUDA_ERROR_STUB_LIBRARY",
	DeviceUnavailable:           "CUDA_ERROR_DEVICE_UNAVAILABLE",
	NoDevice:                    "CUDA_ERROR_NO_DEVICE",
	InvalidDevice:               "CUDA_ERROR_INVALID_DEVICE",
	InvalidImage:                "CUDA_ERROR_INVALID_IMAGE",
	InvalidContext:              "CUDA_ERROR_INVALID_CONTEXT",
	MapFailed:                   "CUDA_ERROR_MAP_FAILED",
	UnmapFailed:                 "CUDA_ERROR_UNMAP_FAILED",
	AlreadyMapped:               "CUDA_ERROR_ALREADY_MAPPED",
	NoBinaryForGPU:              "CUDA_ERROR_NO_BINARY_FOR_GPU",
	NotMapped:                   "CUDA_ERROR_NOT_MAPPED",
	PeerAccessUnsupported:       "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
	InvalidPTX:                  "CUDA_ERROR_INVALID_PTX",
	NVLinkUncorrectable:         "CUDA_ERROR_NVLINK_UNCORRECTABLE",
	JITCompilerNotFound:         "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
	UnsupportedPTXVersion:       "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
	JITCompilationDisabled:      "CUDA_ERROR_JIT_COMPILATION_DISABLED",
	Contained:                   "CUDA_ERROR_CONTAINED",
	InvalidSource:               "CUDA_ERROR_INVALID_SOURCE",
	FileNotFound:                "CUDA_ERROR_FILE_NOT_FOUND",
	SharedObjectSymbolNotFound:  "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND",
	SharedObjectInitFailed:      "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED",
	OperatingSystem:             "CUDA_ERROR_OPERATING_SYSTEM",
	InvalidHandle:               "CUDA_ERROR_INVALID_HANDLE",
	IllegalState:                "CUDA_ERROR_ILLEGAL_STATE",
	NotFound:                    "CUDA_ERROR_NOT_FOUND",
	NotReady:                    "CUDA_ERROR_NOT_READY",
	IllegalAddress:              "CUDA_ERROR_ILLEGAL_ADDRESS",
	LaunchOutOfResources:        "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
	LaunchTimeout:               "CUDA_ERROR_LAUNCH_TIMEOUT",
	PeerAccessAlreadyEnabled:    "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
	PeerAccessNotEnabled:        "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED",
	PrimaryContextActive:        "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE",
	ContextIsDestroyed:          "CUDA_ERROR_CONTEXT_IS_DESTROYED",
	Assert:                      "CUDA_ERROR_ASSERT",
	TooManyPeers:                "CUDA_ERROR_TOO_MANY_PEERS",
	HostMemoryAlreadyRegistered: "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
	HostMemoryNotRegistered:     "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
	IllegalInstruction:          "CUDA_ERROR_ILLEGAL_INSTRUCTION",
	MisalignedAddress:           "CUDA_ERROR_MISALIGNED_ADDRESS",
	InvalidAddressSpace:         "CUDA_ERROR_INVALID_ADDRESS_SPACE",
	LaunchFailed:                "CUDA_ERROR_LAUNCH_FAILED",
	CooperativeLaunchTooLarge:   "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
	NotPermitted:                "CUDA_ERROR_NOT_PERMITTED",
	NotSupported:                "CUDA_ERROR_NOT_SUPPORTED",
	SystemNotReady:              "CUDA_ERROR_SYSTEM_NOT_READY",
	SystemDriverMismatch:        "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
	CompatNotSupportedOnDevice:  "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
	Timeout:                     "CUDA_ERROR_TIMEOUT",
	KeyRotation:                 "CUDA_ERROR_KEY_ROTATION",
	Unknown:                     "CUDA_ERROR_UNKNOWN",
}

// String returns the cuda.h name, e.g. "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED".
// Codes this table does not know print as "CUDA_ERROR_<n>" so a new driver's
// code is still reported with its number.
func (r Result) String() string {
	if n, ok := names[r]; ok {
		return n
	}
	return fmt.Sprintf("CUDA_ERROR_%d", int32(r))
}

// Known reports whether r is one of the codes named in this package.
func (r Result) Known() bool {
	_, ok := names[r]
	return ok
}

// Error makes a bare Result usable as an error target:
// errors.Is(err, cuerr.PeerAccessUnsupported) matches any *Error with that code.
func (r Result) Error() string { return fmt.Sprintf("%s (%d)", r.String(), int32(r)) }

// Error is a failed driver call: the function that failed and its code.
type Error struct {
	Func string // driver entry point or backend operation, e.g. "cuCtxEnablePeerAccess"
	Code Result
	// Detail is optional context (a JIT log, the pair, the step); it is shown
	// after the code and does not take part in matching.
	Detail string
}

// Error renders as "cuCtxEnablePeerAccess: CUDA_ERROR_PEER_ACCESS_UNSUPPORTED (217)".
func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s (%d)", e.Func, e.Code.String(), int32(e.Code))
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Is matches a Result target with the same code, or an *Error with the same
// code (and the same function, when the target names one).
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case Result:
		return e.Code == t
	case *Error:
		return e.Code == t.Code && (t.Func == "" || t.Func == e.Func)
	}
	return false
}

// Check returns nil for Success and an *Error naming fn otherwise.
func Check(fn string, r Result) error {
	if r == Success {
		return nil
	}
	return &Error{Func: fn, Code: r}
}

// New returns an *Error for fn with code r and a detail text.
func New(fn string, r Result, detail string) error {
	return &Error{Func: fn, Code: r, Detail: detail}
}

// Code extracts the CUDA result from err: Success for nil, the code of the
// first *Error or Result in the chain, and Unknown with ok=false otherwise.
func Code(err error) (r Result, ok bool) {
	if err == nil {
		return Success, true
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code, true
	}
	var res Result
	if errors.As(err, &res) {
		return res, true
	}
	return Unknown, false
}
