// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"unsafe"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// exported allocates 64 words on d filled with 1000+i and returns the
// pointer and its IPC handle in hex.
//
//nolint:unparam // the exporting GPU is the caller's, whatever the tests use today
func exported(t *testing.T, b *Backend, d backend.Device) (backend.DevicePtr, string) {
	t.Helper()
	p, err := b.Alloc(d, 256)
	must(t, err)
	fillWords(t, b, d, p, 64, func(i int) uint32 { return uint32(1000 + i) })
	h, err := b.IPCGetMemHandle(d, p)
	must(t, err)
	return p, hex.EncodeToString(h[:])
}

func TestIPCRulesInOneProcess(t *testing.T) {
	dir := t.TempDir()
	exp, imp := openIn(t, dir, "h200x2"), openIn(t, dir, "h200x2") // two address spaces, like two processes
	p, _ := exported(t, exp, 0)
	h, err := exp.IPCGetMemHandle(0, p)
	must(t, err)
	_, err = exp.IPCOpenMemHandle(0, h)
	wantCode(t, err, cuerr.InvalidContext, "open in the exporting process")
	_, err = exp.IPCGetMemHandle(0, p+4)
	wantCode(t, err, cuerr.InvalidValue, "handle of an interior pointer")

	q, err := imp.IPCOpenMemHandle(1, h)
	must(t, err)
	again, err := imp.IPCOpenMemHandle(1, h)
	must(t, err)
	if again != q {
		t.Errorf("second open gave 0x%x, first 0x%x", again, q)
	}
	if _, err := imp.PointerAttribute(0, backend.PointerDeviceOrdinal, p); err == nil && p != q {
		t.Error("the exporter's raw pointer is valid in the importer")
	}
	must(t, imp.IPCCloseMemHandle(1, q))
	must(t, imp.IPCCloseMemHandle(1, q))
	wantCode(t, launch(t, imp, 1, kStore, uint64(q), 1, 1), cuerr.IllegalAddress, "use after the last close")

	for _, bad := range []func(h *backend.IPCHandle){
		func(h *backend.IPCHandle) { h[20] ^= 0x40 },
		func(h *backend.IPCHandle) { copy(h[32:], make([]byte, 32)) },
	} {
		c := h
		bad(&c)
		_, err := exp.IPCOpenMemHandle(1, c)
		wantCode(t, err, cuerr.InvalidValue, "corrupted handle")
	}
}

func TestIPCEventFlags(t *testing.T) {
	b := open(t, "single")
	_, err := b.NewEvent(0, backend.EventInterprocess)
	wantCode(t, err, cuerr.InvalidValue, "INTERPROCESS without DISABLE_TIMING")
	plain, err := b.NewEvent(0, backend.EventDisableTiming)
	must(t, err)
	_, err = b.IPCGetEventHandle(plain)
	wantCode(t, err, cuerr.InvalidValue, "handle of a non-interprocess event")
}

func TestIPCAcrossProcesses(t *testing.T) {
	b := open(t, "h200x2")
	p, h := exported(t, b, 0)
	runHelper(t, b, "ipc-import", []string{h, "1"})
	if w := words(t, b, 0, p, 64); w[0] != 2000 || w[63] != 2063 {
		t.Errorf("exporter sees %d…%d, want the importer's 2000…2063", w[0], w[63])
	}
	runHelper(t, b, "raw-pointer", []string{fmt.Sprint(uint64(p))})
	must(t, b.Free(0, p))
}

func TestIPCImporterKilled(t *testing.T) {
	b := open(t, "single")
	base, _, _ := b.MemInfo(0)
	p, h := exported(t, b, 0)
	cmd := helper(t, b, "ipc-hold", []string{h})
	out, err := cmd.StdoutPipe()
	must(t, err)
	stdin, err := cmd.StdinPipe()
	must(t, err)
	must(t, cmd.Start())
	defer stdin.Close()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		_ = cmd.Process.Kill()
		t.Fatalf("helper said %q, %v", line, err)
	}
	must(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	must(t, b.Free(0, p))
	if free, _, _ := b.MemInfo(0); free != base {
		t.Errorf("free after the importer died and the exporter freed: %d, want %d", free, base)
	}
}

func TestIPCEventAcrossProcesses(t *testing.T) {
	b := open(t, "single")
	e, err := b.NewEvent(0, backend.EventInterprocess|backend.EventDisableTiming)
	must(t, err)
	raw, err := b.IPCGetEventHandle(e)
	must(t, err)
	flag, err := b.HostAlloc(0, 64, backend.HostAllocDeviceMap)
	must(t, err)
	status, _ := b.Alloc(0, 64)
	s, _ := b.NewStream(0)
	must(t, b.Launch(s, kPoll, one, uint64(flag.Ptr), 1, uint64(status))) // held until the flag is 1
	must(t, b.RecordEvent(e, s))
	cmd := helper(t, b, "event-wait", []string{hex.EncodeToString(raw[:])})
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	lines := bufio.NewReader(out)
	first, _ := lines.ReadString('\n')
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&flag.Mem[0])), 1)
	rest, _ := io.ReadAll(lines)
	if err := cmd.Wait(); err != nil || first != "waiting\n" || string(rest) != "ok\n" {
		t.Fatalf("helper: %v\n%s%s", err, first, rest)
	}
	must(t, wait(t, b, s))
	if w := words(t, b, 0, status, 1); w[0] != 1 {
		t.Errorf("the held kernel's status is %d, want 1", w[0])
	}
}

func TestFDPassingAcrossProcesses(t *testing.T) {
	b := open(t, "h200x2")
	base, _, _ := b.MemInfo(0)
	h, p := mapped(t, b, 0, 0, []backend.Access{{Device: 0, Flags: backend.ProtReadWrite}})
	fillWords(t, b, 0, p, 64, func(i int) uint32 { return uint32(1000 + i) })
	fd, err := b.ExportFD(0, h)
	must(t, err)
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	must(t, err)
	mine, theirs := os.NewFile(uintptr(pair[0]), "mine"), os.NewFile(uintptr(pair[1]), "theirs")
	defer mine.Close()
	c, err := net.FileConn(mine)
	must(t, err)
	defer c.Close()
	_, _, err = c.(*net.UnixConn).WriteMsgUnix([]byte{0}, syscall.UnixRights(fd), nil)
	must(t, err)
	must(t, syscall.Close(fd))
	runHelper(t, b, "fd-import", []string{"1", strconv.Itoa(fd)}, theirs)
	theirs.Close()
	if w := words(t, b, 0, p, 64); w[0] != 3000 || w[63] != 3063 {
		t.Errorf("exporter sees %d…%d, want the importer's 3000…3063", w[0], w[63])
	}
	_, err = b.ImportFD(0, 987)
	wantCode(t, err, cuerr.Unknown, "import of a number that is not an open descriptor")
	must(t, b.MemRelease(0, h))
	must(t, b.MemUnmap(0, p, gran))
	if free, _, _ := b.MemInfo(0); free != base {
		t.Errorf("free after release and unmap: %d, want %d", free, base)
	}
}

// TestExportedFDKeepsMemoryAlive: an exported descriptor held elsewhere keeps
// the allocation counted until it is closed, as the driver's does.
func TestExportedFDKeepsMemoryAlive(t *testing.T) {
	b := open(t, "single")
	base, _, _ := b.MemInfo(0)
	h, err := b.MemCreate(0, gran, backend.AllocProp{Device: 0, HandleTypes: backend.HandlePosix})
	must(t, err)
	fd, err := b.ExportFD(0, h)
	must(t, err)
	must(t, b.MemRelease(0, h))
	if free, _, _ := b.MemInfo(0); free != base-gran {
		t.Errorf("free with an exported descriptor open: %d, want %d", free, base-gran)
	}
	h2, err := b.ImportFD(0, fd)
	must(t, err)
	must(t, syscall.Close(fd))
	must(t, b.MemRelease(0, h2))
	if free, _, _ := b.MemInfo(0); free != base {
		t.Errorf("free after the last reference: %d, want %d", free, base)
	}
}
