// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package suiterun

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/p2pconf/p2pconf/harness/machine"
)

// ReportDirError is an explicit run folder that cannot take the run: it
// holds an earlier run's files, or its path cannot be made absolute. It is
// the caller's input, not the run's failure.
type ReportDirError struct{ Err error }

func (e *ReportDirError) Error() string { return e.Err.Error() }
func (e *ReportDirError) Unwrap() error { return e.Err }

// RunFolder is the run folder policy of p2pconf run and preflight: an
// explicit folder (P2PCONF_REPORT_DIR) must be empty or absent, since a
// caller that named it reads it afterwards, so the run refuses (a
// *ReportDirError) rather than writing elsewhere; an error making it is
// returned with the folder. reports/NAME under root (NAME:
// the UTC time when "") that holds an earlier run gives way to NAME.2,
// NAME.3, ... and the run says so on note: results of two runs are never
// merged.
func RunFolder(root, name, explicit string, note io.Writer) (string, error) {
	if explicit != "" {
		dir, err := filepath.Abs(explicit)
		if err != nil {
			return "", &ReportDirError{err}
		}
		if !emptyDir(dir) {
			return "", &ReportDirError{fmt.Errorf("report folder %s (%s) already holds files of an earlier run; "+
				"results of two runs are never merged: give this run a fresh folder", dir, machine.EnvReportDir)}
		}
		return dir, os.MkdirAll(dir, 0o755)
	}
	if name == "" {
		name = time.Now().UTC().Format("20060102T150405Z")
	}
	base := filepath.Join(root, "reports", name)
	dir := base
	for n := 2; !emptyDir(dir); n++ {
		dir = fmt.Sprintf("%s.%d", base, n)
	}
	if dir != base {
		fmt.Fprintf(note, "p2pconf run: %s holds an earlier run named %s; this run writes to %s instead (results of two runs are never merged)\n",
			base, name, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, nil
}

// emptyDir reports whether dir is absent or has no entries.
func emptyDir(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	return len(ents) == 0
}
