// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
	"github.com/p2pconf/p2pconf/kernels"
)

// kOrBits: one thread ORs bit i into *p for i < 32 (atom.or.sys) and stores
// the value each returned into out[i].
var kOrBits = testKernel("or_bits", func(g kernels.Grid, a []uint64) error {
	return g.Threads(1, func(t kernels.Thread) error {
		for i := uint64(0); i < 32; i++ {
			old, err := t.Atomic(kernels.OpOr, a[0], kernels.TU32, 1<<i, 0, kernels.Relaxed, kernels.Sys)
			if err != nil {
				return err
			}
			if err := t.Store(a[1]+4*i, kernels.TU32, old, kernels.Relaxed, kernels.Sys); err != nil {
				return err
			}
		}
		return nil
	})
}, pPtr, kernels.Param{Name: "out", Kind: kernels.Ptr})

// kStores64: one thread stores k | k<<32 into the u64 *p for k = 1..n.
var kStores64 = testKernel("stores64", func(g kernels.Grid, a []uint64) error {
	return g.Threads(1, func(t kernels.Thread) error {
		for k := uint64(1); k <= a[1]; k++ {
			if err := t.Store(a[0], kernels.TU64, k|k<<32, kernels.Relaxed, kernels.Sys); err != nil {
				return err
			}
		}
		return nil
	})
}, pPtr, pU32)

// The probes of the defects that closed vacuous paths and of the later
// field defects (TestEachDefectShowsAlone).
func init() {
	symptoms["fd-number-import-keeps-reference"] = func(t *testing.T, b *Backend) bool {
		base, _, _ := b.MemInfo(0)
		h, err := b.MemCreate(0, gran, backend.AllocProp{Device: 0, HandleTypes: backend.HandlePosix})
		must(t, err)
		fd, err := b.ExportFD(0, h)
		must(t, err)
		target, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
		must(t, err)
		const number = 1 << 20 // no descriptor of this process
		old := parentFD
		parentFD = func(n int) (string, error) {
			if n == number {
				return target, nil
			}
			return "", errors.New("no such descriptor")
		}
		defer func() { parentFD = old }()
		imp := openIn(t, b.StateDir(), b.preset.name, b.defectNames...)
		if _, err := imp.ImportFD(0, number); err == nil {
			t.Fatal("the import of a bare number succeeded")
		}
		must(t, os.NewFile(uintptr(fd), "export").Close())
		must(t, b.MemRelease(0, h))
		free, _, _ := b.MemInfo(0)
		return free != base
	}
	symptoms["nvml-error-counters-unsupported"] = func(t *testing.T, b *Backend) bool {
		_, ret := nvmlDevs(t, b)[0].GetPcieReplayCounter()
		return ret == nvml.ERROR_NOT_SUPPORTED
	}
	symptoms["globaltimer-stalled"] = func(t *testing.T, b *Backend) bool {
		status, _ := b.Alloc(0, 64)
		must(t, launch(t, b, 0, kernels.Delay, uint64(100*time.Microsecond), uint64(status)))
		return words(t, b, 0, status, 1)[0] != kernels.DelayElapsed
	}
	symptoms["reverse-peer-access-times-out"] = func(t *testing.T, b *Backend) bool {
		buf0, _ := b.Alloc(0, 256)
		must(t, b.EnablePeerAccess(0, 1))
		err := launch(t, b, 1, kStore, uint64(buf0), 1, 1)
		return err != nil && !errors.Is(err, cuerr.IllegalAddress)
	}
	symptoms["peer-copy-ignores-stream-order"] = func(t *testing.T, b *Backend) bool {
		src, _ := b.Alloc(0, 256)
		dst, _ := b.Alloc(1, 256)
		other, _ := b.Alloc(0, 256)
		fillWords(t, b, 0, src, 64, func(int) uint32 { return 5 })
		fillWords(t, b, 1, dst, 64, func(int) uint32 { return 7 })
		s, err := b.NewStream(0)
		must(t, err)
		must(t, b.Launch(s, kSlowStore, backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}, uint64(other), 1, 1, 200))
		must(t, b.CopyPeerAsync(s, dst, 1, src, 0, 256))
		early := words(t, b, 1, dst, 1)[0]
		must(t, wait(t, b, s))
		return early == 5
	}
	symptoms["ipc-refused-open-keeps-mapping"] = func(t *testing.T, b *Backend) bool {
		base, _, _ := b.MemInfo(0)
		p, err := b.Alloc(0, 1<<20)
		must(t, err)
		h, err := b.IPCGetMemHandle(0, p)
		must(t, err)
		if _, err := b.IPCOpenMemHandle(0, h); err == nil {
			t.Fatal("cuIpcOpenMemHandle in the exporting process succeeded")
		}
		must(t, b.Free(0, p))
		free, _, _ := b.MemInfo(0)
		return free != base
	}
	symptoms["uva-attribute-zero"] = func(t *testing.T, b *Backend) bool {
		v, err := b.DeviceAttribute(0, backend.AttrUnifiedAddressing)
		must(t, err)
		return v != 1
	}
	symptoms["peer-bitop-returns-stale"] = func(t *testing.T, b *Backend) bool {
		word, _ := b.Alloc(0, 64)
		out, _ := b.Alloc(1, 256)
		fillWords(t, b, 0, word, 1, func(int) uint32 { return 0 })
		must(t, b.EnablePeerAccess(1, 0))
		must(t, launch(t, b, 1, kOrBits, uint64(word), uint64(out)))
		for i, old := range words(t, b, 1, out, 32) {
			if old != uint32(1)<<i-1 {
				return true
			}
		}
		return false
	}
	symptoms["sm-peer-loads-nan"] = func(t *testing.T, b *Backend) bool {
		src, _ := b.Alloc(0, 256)
		dst, _ := b.Alloc(1, 256)
		fillWords(t, b, 0, src, 4, func(int) uint32 { return 5 })
		must(t, b.EnablePeerAccess(1, 0))
		must(t, launch(t, b, 1, kCopy, uint64(dst), uint64(src), 4))
		return words(t, b, 1, dst, 1)[0] != 6
	}
	symptoms["first-peer-copy-zeros"] = func(t *testing.T, b *Backend) bool {
		src, _ := b.Alloc(0, 256)
		dst, _ := b.Alloc(1, 256)
		fillWords(t, b, 0, src, 64, func(int) uint32 { return 5 })
		must(t, b.EnablePeerAccess(0, 1))
		s, err := b.NewStream(0)
		must(t, err)
		must(t, b.CopyPeerAsync(s, dst, 1, src, 0, 256))
		must(t, wait(t, b, s))
		first := words(t, b, 1, dst, 1)[0]
		fillWords(t, b, 1, dst, 64, func(int) uint32 { return 7 })
		must(t, b.CopyPeerAsync(s, dst, 1, src, 0, 256))
		must(t, wait(t, b, s))
		if words(t, b, 1, dst, 1)[0] != 5 {
			t.Error("the second copy after the enable was wrong too")
		}
		return first != 5
	}
	symptoms["peer-disable-both-ways"] = func(t *testing.T, b *Backend) bool {
		buf0, _ := b.Alloc(0, 256)
		must(t, b.EnablePeerAccess(0, 1))
		must(t, b.EnablePeerAccess(1, 0))
		must(t, b.DisablePeerAccess(0, 1))
		return launch(t, b, 1, kStore, uint64(buf0), 1, 1) != nil
	}
	symptoms["store-tears"] = func(t *testing.T, b *Backend) bool {
		hb, err := b.HostAlloc(0, 64, backend.HostAllocDeviceMap|backend.HostAllocPortable)
		must(t, err)
		word := (*uint64)(unsafe.Pointer(&hb.Mem[0]))
		s, err := b.NewStream(0)
		must(t, err)
		// A reader descheduled for a whole launch (a loaded CI runner) sees
		// no half-written word: launch again, up to a count of launches
		// (not a time, which a loaded machine would use up).
		torn := false
		for i := 0; !torn && i < 2000; i++ {
			must(t, b.Launch(s, kStores64, backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}, uint64(hb.Ptr), 20000))
			for !torn {
				v := atomic.LoadUint64(word)
				torn = uint32(v) != uint32(v>>32)
				if q := b.StreamQuery(s); q == nil {
					break
				}
			}
			must(t, wait(t, b, s))
		}
		return torn
	}
	symptoms["unaligned-copy-drops-tail"] = func(t *testing.T, b *Backend) bool {
		src, _ := b.Alloc(0, 256)
		dst, _ := b.Alloc(0, 256)
		fillWords(t, b, 0, src, 64, func(int) uint32 { return 0x05050505 })
		fillWords(t, b, 0, dst, 64, func(int) uint32 { return 0 })
		s, err := b.NewStream(0)
		must(t, err)
		must(t, b.CopyAsync(s, dst+3, src+7, 13))
		must(t, wait(t, b, s))
		return words(t, b, 0, dst, 4)[3] != 0x05050505
	}
	symptoms["peer-enable-takes-effect-late"] = func(t *testing.T, b *Backend) bool {
		buf1, _ := b.Alloc(1, 256)
		must(t, b.EnablePeerAccess(0, 1))
		must(t, launch(t, b, 0, kStore, uint64(buf1), 5, 1))
		return words(t, b, 1, buf1, 1)[0] != 5
	}
}
