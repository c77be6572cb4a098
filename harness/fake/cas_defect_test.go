// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"testing"

	"github.com/p2pconf/p2pconf/kernels"
)

// The probe of cas-compares-low-half (TestEachDefectShowsAlone): a
// cas.b64 on GPU1's memory from GPU0 whose expected value differs from the
// word only in bit 32 must store nothing.
func init() {
	symptoms["cas-compares-low-half"] = func(t *testing.T, b *Backend) bool {
		c := kernels.CASCase{Width: 64, Init: 1<<32 | 5, Expected: 2<<32 | 5, New: 7}
		cases, _ := b.Alloc(0, kernels.CASCaseBytes)
		out, _ := b.Alloc(0, kernels.CASOutBytes)
		word, _ := b.Alloc(1, 64)
		must(t, b.CopyToDevice(0, cases, kernels.EncodeCASCases([]kernels.CASCase{c})))
		must(t, b.EnablePeerAccess(0, 1))
		must(t, launch(t, b, 0, kernels.CASProbe, uint64(cases), 1, uint64(word), uint64(out)))
		buf := make([]byte, kernels.CASOutBytes)
		must(t, b.CopyFromDevice(0, buf, out))
		return kernels.DecodeCASResults(buf, 1)[0] != c.Want()
	}
}
