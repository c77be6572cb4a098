// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"errors"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega/gcustom"
	"github.com/onsi/gomega/types"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// ExpectNoError fails the spec when err is not nil, with the explanation
// (which names the GPUs and the operation) and the whole error. A missing
// driver entry point fails as well: by the time a spec calls a function it
// may already have checked something, and a skip then would hide both that
// part and the gap. A spec that needs an optional entry point says so up
// front with RequireEntryPoint, which skips before any check.
func ExpectNoError(err error, explain string, args ...any) {
	GinkgoHelper()
	if err == nil {
		return
	}
	Fail(noErrorFailure(fmt.Sprintf(explain, args...), err))
}

// noErrorFailure is ExpectNoError's message: the operation and the error,
// and for a missing entry point (whose error names the function and the
// driver version) the reason it is a failure, not a skip.
func noErrorFailure(what string, err error) string {
	if errors.Is(err, backend.ErrMissingEntryPoint) {
		return fmt.Sprintf("%s: the driver lacks an entry point this spec calls without a Require for it: %v", what, err)
	}
	return fmt.Sprintf("%s: %v", what, err)
}

// MatchCUDAError succeeds when the actual error carries code (errors.Is).
func MatchCUDAError(code cuerr.Result) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(actual error) (bool, error) {
		return errors.Is(actual, code), nil
	}).WithTemplate("Expected {{.To}} fail with " + code.Error() + ", got: {{if .Actual}}{{.Actual}}{{else}}success{{end}}")
}

// BeCUDAError succeeds for any error that carries a CUDA result code.
func BeCUDAError() types.GomegaMatcher {
	return gcustom.MakeMatcher(func(actual error) (bool, error) {
		if actual == nil {
			return false, nil
		}
		_, ok := cuerr.Code(actual)
		return ok, nil
	}).WithTemplate("Expected {{.To}} fail with a CUDA error, got: {{if .Actual}}{{.Actual}}{{else}}success{{end}}")
}

// CodeOf returns the CUDA code in err ("CUDA_SUCCESS" for nil, "not a CUDA
// error: ..." otherwise), for report entries.
func CodeOf(err error) string {
	if code, ok := cuerr.Code(err); ok {
		return code.Error()
	}
	return "not a CUDA error: " + err.Error()
}

// AccessFaultCodes are the results the CUDA documentation gives for a
// kernel that loads or stores where it may not:
// CUDA_ERROR_ILLEGAL_ADDRESS ("the device encountered a load or store
// instruction on an invalid memory address") and CUDA_ERROR_LAUNCH_FAILED
// ("an exception occurred on the device while executing a kernel. Common
// causes include dereferencing an invalid device pointer"). A probe of
// access that fails with any other code was refused or lost for another
// reason, and shows nothing about the access.
var AccessFaultCodes = []cuerr.Result{cuerr.IllegalAddress, cuerr.LaunchFailed}

// IsAccessFault reports whether code (a CUDA result) is one of
// AccessFaultCodes.
func IsAccessFault(code int32) bool {
	for _, c := range AccessFaultCodes {
		if int32(c) == code {
			return true
		}
	}
	return false
}

// AccessFaultList names AccessFaultCodes for messages.
func AccessFaultList() string {
	names := make([]string, len(AccessFaultCodes))
	for i, c := range AccessFaultCodes {
		names[i] = c.Error()
	}
	return strings.Join(names, " or ")
}
