// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// Helper processes: the test binary re-executed with envRole set, as the
// suites do. The role reads its arguments from envArg (fields separated by
// spaces), prints its findings on stdout and exits 0 when they are right.
const (
	envRole = "P2PCONF_FAKE_TEST_ROLE"
	envArg  = "P2PCONF_FAKE_TEST_ARG"
)

var roles = map[string]func(b *Backend, args []string) error{
	"ipc-import":  roleIPCImport,
	"ipc-hold":    roleIPCHold,
	"raw-pointer": roleRawPointer,
	"event-wait":  roleEventWait,
	"fd-import":   roleFDImport,
}

func runRole(role string) int {
	f, ok := roles[role]
	if !ok {
		fmt.Println("unknown role", role)
		return 2
	}
	defects, err := ParseDefects(os.Getenv(EnvDefects))
	if err != nil {
		fmt.Println("FAIL:", err)
		return 1
	}
	b, err := Open(os.Getenv(EnvPreset), defects)
	if err == nil {
		err = f(b, strings.Fields(os.Getenv(envArg)))
		_ = b.Close()
	}
	if err != nil {
		fmt.Println("FAIL:", err)
		return 1
	}
	fmt.Println("ok")
	return 0
}

// helper starts a role on the state directory of b; extra files become
// fds 3, 4, ... in the helper.
func helper(t *testing.T, b *Backend, role string, args []string, extra ...*os.File) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envRole+"="+role, envArg+"="+strings.Join(args, " "),
		EnvState+"="+b.StateDir(), EnvPreset+"="+b.preset.name, EnvDefects+"="+strings.Join(b.defectNames, ","))
	cmd.ExtraFiles = extra
	return cmd
}

func runHelper(t *testing.T, b *Backend, role string, args []string, extra ...*os.File) {
	t.Helper()
	out, err := helper(t, b, role, args, extra...).CombinedOutput()
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), "ok") {
		t.Fatalf("helper %s: %v\n%s", role, err, out)
	}
}

func parseHandle(s string) (h backend.IPCHandle, err error) {
	raw, err := hex.DecodeString(s)
	if err != nil || len(raw) != 64 {
		return h, fmt.Errorf("bad handle %q", s)
	}
	copy(h[:], raw)
	return h, nil
}

func argDev(s string) backend.Device { n, _ := strconv.Atoi(s); return backend.Device(n) }

// roleIPCImport: args handle, device. Checks word i is 1000+i, writes 2000+i.
func roleIPCImport(b *Backend, args []string) error {
	h, err := parseHandle(args[0])
	if err != nil {
		return err
	}
	d := argDev(args[1])
	p, err := b.IPCOpenMemHandle(d, h)
	if err != nil {
		return err
	}
	if ord, err := b.PointerAttribute(d, backend.PointerDeviceOrdinal, p); err != nil || ord != int64(d) {
		return fmt.Errorf("DEVICE_ORDINAL of imported memory = %d, %v; want the importer %d", ord, err, d)
	}
	buf := make([]byte, 256)
	if err := b.CopyFromDevice(d, buf, p); err != nil {
		return err
	}
	for i := 0; i < 64; i++ {
		if v := leU32(buf[4*i:]); v != uint32(1000+i) {
			return fmt.Errorf("word %d = %d, want %d", i, v, 1000+i)
		}
	}
	s, err := b.NewStream(d)
	if err != nil {
		return err
	}
	if err := b.Launch(s, kStore, one, uint64(p), 2000, 64); err != nil {
		return err
	}
	if err := pollDone(b, s); err != nil {
		return err
	}
	return b.IPCCloseMemHandle(d, p)
}

// roleIPCHold opens the handle, says "ready" and waits to be killed.
func roleIPCHold(b *Backend, args []string) error {
	h, err := parseHandle(args[0])
	if err != nil {
		return err
	}
	if _, err := b.IPCOpenMemHandle(0, h); err != nil {
		return err
	}
	fmt.Println("ready")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	return errors.New("was not killed")
}

// roleRawPointer: another process's pointer value is not mapped here.
func roleRawPointer(b *Backend, args []string) error {
	p, err := strconv.ParseUint(args[0], 0, 64)
	if err != nil {
		return err
	}
	if _, err := b.PointerAttribute(0, backend.PointerDeviceOrdinal, backend.DevicePtr(p)); !errors.Is(err, cuerr.InvalidValue) {
		return fmt.Errorf("PointerAttribute of a foreign pointer: %v, want INVALID_VALUE", err)
	}
	s, err := b.NewStream(0)
	if err != nil {
		return err
	}
	if err := b.Launch(s, kStore, one, p, 1, 1); err != nil {
		return err
	}
	if err := pollDone(b, s); !errors.Is(err, cuerr.IllegalAddress) {
		return fmt.Errorf("kernel on a foreign pointer: %v, want ILLEGAL_ADDRESS", err)
	}
	return nil
}

// roleEventWait opens the event (whose record waits behind a kernel the
// parent holds back), checks it is pending, makes a stream wait on it, says
// "waiting", and checks the stream finishes once the parent lets go.
func roleEventWait(b *Backend, args []string) error {
	h, err := parseHandle(args[0])
	if err != nil {
		return err
	}
	e, err := b.IPCOpenEventHandle(0, h)
	if err != nil {
		return err
	}
	if !errors.Is(b.EventQuery(e), cuerr.NotReady) {
		return errors.New("the imported event is complete while the exporter's kernel still runs")
	}
	s, err := b.NewStream(0)
	if err != nil {
		return err
	}
	if err := b.StreamWaitEvent(s, e); err != nil {
		return err
	}
	if !errors.Is(b.StreamQuery(s), cuerr.NotReady) {
		return errors.New("a stream waiting on a pending imported event is idle")
	}
	fmt.Println("waiting")
	if err := pollDone(b, s); err != nil {
		return err
	}
	if _, err := b.ElapsedTime(e, e); !errors.Is(err, cuerr.InvalidHandle) {
		return fmt.Errorf("elapsed time of an imported event: %v, want INVALID_HANDLE", err)
	}
	return b.DestroyEvent(e)
}

// roleFDImport receives a descriptor over the socket at fd 3, imports and
// maps it on args[0]'s GPU, checks word i is 1000+i and writes 3000+i. It
// also checks that the sender's bare number (args[1]) does not import.
func roleFDImport(b *Backend, args []string) error {
	d := argDev(args[0])
	c, err := net.FileConn(os.NewFile(3, "sock"))
	if err != nil {
		return err
	}
	buf, oob := make([]byte, 1), make([]byte, syscall.CmsgSpace(4))
	_, oobn, _, _, err := c.(*net.UnixConn).ReadMsgUnix(buf, oob)
	if err != nil {
		return err
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return fmt.Errorf("control message: %v", err)
	}
	fds, err := syscall.ParseUnixRights(&msgs[0])
	if err != nil {
		return err
	}
	if n, _ := strconv.Atoi(args[1]); n != fds[0] {
		if _, err := b.ImportFD(d, n); err == nil {
			return fmt.Errorf("the bare number %d imported", n)
		}
	}
	h, err := b.ImportFD(d, fds[0])
	_ = syscall.Close(fds[0])
	if err != nil {
		return err
	}
	p, err := b.AddressReserve(d, gran, 0)
	if err != nil {
		return err
	}
	if err := b.MemMap(d, p, gran, h); err != nil {
		return err
	}
	if err := b.MemSetAccess(d, p, gran, []backend.Access{{Device: d, Flags: backend.ProtReadWrite}}); err != nil {
		return err
	}
	data := make([]byte, 256)
	if err := b.CopyFromDevice(d, data, p); err != nil {
		return err
	}
	for i := 0; i < 64; i++ {
		if v := leU32(data[4*i:]); v != uint32(1000+i) {
			return fmt.Errorf("word %d = %d, want %d", i, v, 1000+i)
		}
		putU32(data[4*i:], uint32(3000+i))
	}
	if err := b.CopyToDevice(d, p, data); err != nil {
		return err
	}
	if err := b.MemUnmap(d, p, gran); err != nil {
		return err
	}
	return b.MemRelease(d, h)
}

func pollDone(b *Backend, s backend.Stream) error {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if err := b.StreamQuery(s); !errors.Is(err, cuerr.NotReady) {
			return err
		}
		time.Sleep(100 * time.Microsecond)
	}
	return errors.New("stream did not finish in 20 s")
}

func leU32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
