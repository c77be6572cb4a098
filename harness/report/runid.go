// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/p2pconf/p2pconf/harness/runid"
)

// EnvRunID names the run a suite process belongs to (package runid).
const EnvRunID = runid.Env

// CurrentRunID is this process's run ID (runid.Current): P2PCONF_RUN_ID,
// else one made from the host and the parent process, so the suites of one
// `go tool ginkgo ./suites/...` or `go test ./suites/...` are one run.
func CurrentRunID() string { return runid.Current() }

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
