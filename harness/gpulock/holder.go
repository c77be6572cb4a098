// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package gpulock

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Holder is the process that holds (or last held) a GPU's lock, as its
// lock file records it: enough for the user of a refused run to find it.
type Holder struct {
	PID     int
	Host    string
	Start   time.Time
	Command string
	// Run is the run the holder belongs to (Options.RunID): suite
	// processes of one go test or ginkgo invocation share it and wait for
	// each other instead of failing.
	Run string
	// Truncated says the file held more than a record may (maxRecord):
	// only its first maxRecord bytes were read.
	Truncated bool
	// Unrecorded says no record names the holder: the kernel's list of
	// flocks (/proc/locks) gave the PID and /proc the command line.
	Unrecorded bool
}

// maxRecord bounds a holder record: what is written (the command is cut to
// fit) and what is read back from a file anyone can write.
const maxRecord = 4096

// Self is this process as a holder, started now, running cmd.
func Self(cmd []string) Holder {
	host, _ := os.Hostname()
	return Holder{PID: os.Getpid(), Host: host, Start: time.Now().UTC(), Command: strings.Join(cmd, " ")}
}

// String names the holder: "pid 123 on host node1, holding since
// 2026-12-01T02:10:00Z, command: ...".
func (h Holder) String() string {
	if h.PID == 0 {
		return "holder not recorded (the lock file is empty or unreadable)"
	}
	if h.Unrecorded {
		return fmt.Sprintf("pid %d on host %s (no record of its own: the kernel names it as the lock's holder), command: %s",
			h.PID, escape(h.Host), escape(h.Command))
	}
	s := fmt.Sprintf("pid %d on host %s, holding since %s", h.PID, escape(h.Host), h.Start.Format(time.RFC3339))
	if h.Run != "" {
		s += ", run " + escape(h.Run)
	}
	s += ", command: " + escape(h.Command)
	if h.Truncated {
		s += fmt.Sprintf(" (the lock file holds more than %d bytes; the rest was not read)", maxRecord)
	}
	return s
}

// escape writes control characters (and invalid UTF-8) of s as Go escapes:
// the record comes from a file any user can write, and is printed on
// terminals and into reports.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case unicode.IsControl(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += max(size, 1)
	}
	return b.String()
}

// encode writes one "key=value" line per field; the command is last and
// may hold anything but a newline.
func (h Holder) encode() string {
	oneLine := func(s string) string { return strings.ReplaceAll(s, "\n", " ") }
	head := fmt.Sprintf("pid=%d\nhost=%s\nstart=%s\nrun=%s\ncommand=",
		h.PID, oneLine(h.Host), h.Start.Format(time.RFC3339Nano), oneLine(h.Run))
	cmd := oneLine(h.Command)
	if room := maxRecord - len(head) - 1; len(cmd) > room {
		cmd = cmd[:max(room, 0)]
	}
	return head + cmd + "\n"
}

func decodeHolder(s string) Holder {
	var h Holder
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch k {
		case "pid":
			h.PID, _ = strconv.Atoi(v)
		case "host":
			h.Host = v
		case "start":
			h.Start, _ = time.Parse(time.RFC3339Nano, v)
		case "run":
			h.Run = v
		case "command":
			h.Command = v
		}
	}
	return h
}

// writeHolder replaces the lock file's content with h. It runs while the
// flock is held, so no other holder writes at the same time; a reader may
// see the file empty for an instant (readHolder then says so). f was
// opened by openLockFile, which checked that it is a lock file (regular,
// one link, no larger than a record), so nothing else is cut.
func writeHolder(f *os.File, h Holder) error {
	rec := []byte(h.encode())
	if _, err := f.WriteAt(rec, 0); err != nil {
		return err
	}
	return f.Truncate(int64(len(rec)))
}

// readHolder reads the holder recorded in f (the lock file this process
// opened), at most maxRecord bytes. A holder that has just taken the lock
// may not have written yet, so an empty file is read once more after a
// moment.
func readHolder(f *os.File) Holder {
	for i := range 2 {
		b := make([]byte, maxRecord+1)
		n, err := f.ReadAt(b, 0)
		if n > 0 && (err == nil || errors.Is(err, io.EOF)) {
			h := decodeHolder(string(b[:min(n, maxRecord)]))
			h.Truncated = n > maxRecord
			return h
		}
		if i == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return Holder{}
}
