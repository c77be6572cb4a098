// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package suiterun

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunFolder: a name taken by an earlier run gives way to NAME.2 and the
// run says so; an explicit folder with files is the caller's mistake (a
// ReportDirError), an empty or absent one is used as it is.
func TestRunFolder(t *testing.T) {
	root := t.TempDir()
	var note strings.Builder
	first, err := RunFolder(root, "nightly", "", &note)
	if err != nil || first != filepath.Join(root, "reports", "nightly") || note.Len() != 0 {
		t.Fatalf("a fresh name: %q, %v, note %q", first, err, note.String())
	}
	if err := os.WriteFile(filepath.Join(first, "conformance.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	second, err := RunFolder(root, "nightly", "", &note)
	if err != nil || second != first+".2" || !strings.Contains(note.String(), "never merged") {
		t.Errorf("a taken name: %q, %v, note %q; want %s.2 and a note", second, err, note.String(), first)
	}
	var taken *ReportDirError
	if _, err := RunFolder(root, "", first, &note); !errors.As(err, &taken) || !strings.Contains(err.Error(), "P2PCONF_REPORT_DIR") {
		t.Errorf("an explicit folder with files: %v, want a ReportDirError naming P2PCONF_REPORT_DIR", err)
	}
	fresh := filepath.Join(root, "fresh")
	if dir, err := RunFolder(root, "", fresh, &note); err != nil || dir != fresh {
		t.Errorf("an absent explicit folder: %q, %v", dir, err)
	}
	if st, err := os.Stat(fresh); err != nil || !st.IsDir() {
		t.Errorf("the explicit folder was not made: %v", err)
	}
}
