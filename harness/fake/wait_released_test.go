// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
	"github.com/p2pconf/p2pconf/kernels"
)

// kernels.WaitReleased holds its stream until the host sets the flag in
// mapped pinned memory, however long the host takes (within the bound), and
// gives up with a status when the flag never comes.
func TestWaitReleasedHoldsTheStreamUntilTheHostSetsTheFlag(t *testing.T) {
	b := open(t, "single")
	hb, err := b.HostAlloc(0, 64, backend.HostAllocDeviceMap|backend.HostAllocPortable)
	must(t, err)
	flagPtr, err := b.HostDevicePointer(0, hb)
	must(t, err)
	flag := (*uint32)(unsafe.Pointer(&hb.Mem[0]))
	status, err := b.Alloc(0, 8)
	must(t, err)
	s, err := b.NewStream(0)
	must(t, err)
	one := backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}

	must(t, b.Launch(s, kernels.WaitReleased, one, uint64(flagPtr), uint64(10*time.Second), uint64(status)))
	time.Sleep(50 * time.Millisecond) // a host that is late does not end the wait
	if err := b.StreamQuery(s); !errors.Is(err, cuerr.NotReady) {
		t.Fatalf("stream before the flag is set: %v, want CUDA_ERROR_NOT_READY", err)
	}
	atomic.StoreUint32(flag, 1)
	must(t, wait(t, b, s))
	if st := words(t, b, 0, status, 2); st[0] != kernels.WaitReleaseSeen || st[1] == 0 {
		t.Errorf("status after the host released the kernel: %v, want [%d, polls > 0]", st, kernels.WaitReleaseSeen)
	}

	atomic.StoreUint32(flag, 0)
	must(t, b.Launch(s, kernels.WaitReleased, one, uint64(flagPtr), uint64(time.Millisecond), uint64(status)))
	must(t, wait(t, b, s))
	if st := words(t, b, 0, status, 1); st[0] != kernels.WaitReleaseTimedOut {
		t.Errorf("status of a kernel never released: %v, want %d (timed out)", st, kernels.WaitReleaseTimedOut)
	}
}
