// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// Requirements skip a spec the machine cannot run, with a reason of the form
// "needs X (found Y)" where Y quotes the source. A query that fails is a
// failure, never a skip: "could not tell" is not "not applicable".

// RequirePeerAccess skips unless cuDeviceCanAccessPeer(A, B) is 1.
func (h *Harness) RequirePeerAccess(p Pair) {
	GinkgoHelper()
	ok, err := h.b.CanAccessPeer(p.A.Ordinal, p.B.Ordinal)
	ExpectNoError(err, "cuDeviceCanAccessPeer(%s, %s)", p.A, p.B)
	if !ok {
		Skip(fmt.Sprintf("needs peer access %s (found cuDeviceCanAccessPeer=0, NVML read=%s)", p, orUnknown(string(p.Claims.NVML.Read))))
	}
}

// RequireAttribute skips unless g's attribute equals want.
func (h *Harness) RequireAttribute(g GPU, attr backend.DeviceAttr, want int) {
	GinkgoHelper()
	v := h.Attribute(g, attr)
	if v != want {
		Skip(fmt.Sprintf("needs %s=%d on %s (found %s=%d)", attr, want, g, attr, v))
	}
}

// RequireP2PAttribute skips unless the P2P attribute of p equals want.
func (h *Harness) RequireP2PAttribute(p Pair, attr backend.P2PAttr, want int) {
	GinkgoHelper()
	v, err := h.b.P2PAttribute(attr, p.A.Ordinal, p.B.Ordinal)
	ExpectNoError(err, "cuDeviceGetP2PAttribute(%s, %s)", attr, p)
	if v != want {
		Skip(fmt.Sprintf("needs %s=%d for %s (found %s=%d)", attr, want, p, attr, v))
	}
}

// RequireDriver skips unless the driver supports at least CUDA version min
// (1000*major + 10*minor).
func (h *Harness) RequireDriver(min int, what string) {
	GinkgoHelper()
	if v := h.b.DriverVersion(); v < min {
		Skip(fmt.Sprintf("needs a driver for CUDA %s for %s (found cuDriverGetVersion=%d, CUDA %s)", cudaVersion(min), what, v, cudaVersion(v)))
	}
}

// Attribute reads a device attribute and fails the spec if it cannot.
func (h *Harness) Attribute(g GPU, attr backend.DeviceAttr) int {
	GinkgoHelper()
	v, err := h.b.DeviceAttribute(g.Ordinal, attr)
	ExpectNoError(err, "cuDeviceGetAttribute(%s) on %s", attr, g)
	return v
}

func cudaVersion(v int) string { return fmt.Sprintf("%d.%d", v/1000, (v%1000)/10) }

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
