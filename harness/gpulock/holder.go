// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package gpulock

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Holder is the process that holds (or last held) a GPU's lock, as its
// lock file records it: enough for the user of a refused run to find it.
type Holder struct {
	PID     int
	Host    string
	Start   time.Time
	Command string
}

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
	return fmt.Sprintf("pid %d on host %s, holding since %s, command: %s", h.PID, h.Host, h.Start.Format(time.RFC3339), h.Command)
}

// encode writes one "key=value" line per field; the command is last and
// may hold anything but a newline.
func (h Holder) encode() string {
	return fmt.Sprintf("pid=%d\nhost=%s\nstart=%s\ncommand=%s\n",
		h.PID, h.Host, h.Start.Format(time.RFC3339Nano), strings.ReplaceAll(h.Command, "\n", " "))
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
		case "command":
			h.Command = v
		}
	}
	return h
}

// writeHolder replaces the lock file's content with h. It runs while the
// flock is held, so no other holder writes at the same time; a reader may
// see the file empty for an instant (readHolder then says so).
func writeHolder(f *os.File, h Holder) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(h.encode()), 0)
	return err
}

// readHolder reads the holder recorded at path. A holder that has just
// taken the lock may not have written yet, so an empty file is read once
// more after a moment.
func readHolder(path string) Holder {
	for i := range 2 {
		b, err := os.ReadFile(path)
		if err == nil && len(b) > 0 {
			return decodeHolder(string(b))
		}
		if i == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return Holder{}
}
