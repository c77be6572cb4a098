// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package machine

import (
	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// NVMLOf is the NVML view of the machine backend b drives (the cuda
// backend's libnvidia-ml, the fake's mock), nil when it has none. The
// backends carry it as a method of their own, outside backend.Backend, so
// that package backend and the claims and reports built on its types link
// no cgo.
func NVMLOf(b backend.Backend) nvml.Interface {
	if s, ok := b.(interface{ NVML() nvml.Interface }); ok {
		return s.NVML()
	}
	return nil
}
