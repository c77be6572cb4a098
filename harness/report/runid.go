// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// EnvRunID names the run a suite process belongs to. `p2pconf run` sets it
// for every process it starts; without it, a suite takes the ID of the
// process that launched it (see CurrentRunID).
const EnvRunID = "P2PCONF_RUN_ID"

// CurrentRunID is this process's run ID: P2PCONF_RUN_ID, else one made from
// the host, the parent process's ID and the parent's start time. The suites
// of one `go tool ginkgo ./suites/...` or `go test ./suites/...` share their
// parent (the command that runs each suite binary) and so one run; a suite
// started again later, from another command, is another run, and its
// results are not merged into a folder that holds the first run's.
func CurrentRunID() string {
	if id := strings.TrimSpace(os.Getenv(EnvRunID)); id != "" {
		return id
	}
	host, _ := os.Hostname()
	ppid := os.Getppid()
	id := fmt.Sprintf("%s-ppid%d", host, ppid)
	if start := processStart(ppid); start != "" {
		id += "-" + start
	}
	return id
}

// processStart is the start time of process pid in clock ticks since boot
// (field 22 of /proc/PID/stat), "" where /proc cannot say: a PID is reused,
// the pair of PID and start time is not.
func processStart(pid int) string {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 20 { // fields from 3 on; 22 is index 19
		return ""
	}
	return fields[19]
}

// ErrOtherRun reports results of two runs in one folder.
type ErrOtherRun struct {
	Dir            string
	File, FileRun  string // a file of the folder and the run it belongs to
	Other, OtherOf string // the other run, and what belongs to it
}

func (e *ErrOtherRun) Error() string {
	return fmt.Sprintf("report folder %s holds results of run %q (%s) and of run %q (%s): results of two runs are never merged; "+
		"give the new run a fresh folder (P2PCONF_REPORT_DIR, or p2pconf run --run NAME), or merge the two folders with p2pconf report -o OUT DIR1 DIR2",
		e.Dir, e.FileRun, e.File, e.Other, e.OtherOf)
}

// checkSameRun returns an *ErrOtherRun when two of docs (read from files,
// in the same order) carry different run IDs. Documents without an ID
// (written before run IDs existed) go with any run.
func checkSameRun(dir string, files []string, docs []Document) error {
	first := -1
	for i, d := range docs {
		if d.Run.ID == "" {
			continue
		}
		if first < 0 {
			first = i
			continue
		}
		if d.Run.ID != docs[first].Run.ID {
			return &ErrOtherRun{Dir: dir, File: filepath.Base(files[first]), FileRun: docs[first].Run.ID,
				Other: d.Run.ID, OtherOf: filepath.Base(files[i])}
		}
	}
	return nil
}

// checkFolderRun refuses to add suite's results of run id to a folder whose
// per-suite files belong to another run.
func checkFolderRun(dir, id, suite string) error {
	if id == "" {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"+SuiteConformanceSuffix))
	sort.Strings(files)
	for _, f := range files {
		d, err := ReadDocument(f)
		if err != nil {
			return err
		}
		if d.Run.ID != "" && d.Run.ID != id {
			return &ErrOtherRun{Dir: dir, File: filepath.Base(f), FileRun: d.Run.ID,
				Other: id, OtherOf: "suite " + suite + ", now finishing"}
		}
	}
	return nil
}
