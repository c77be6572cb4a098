// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// File names in a run folder. Per suite (<suite> is e.g. "access"):
const (
	SuiteGinkgoSuffix      = ".ginkgo.json"      // Ginkgo's own JSON report of the suite, lossless
	SuiteJUnitSuffix       = ".junit.xml"        // the CI-shaped JUnit of that suite
	SuiteConformanceSuffix = ".conformance.json" // that suite's conformance document
)

// Merged over every suite present, re-rendered whenever a suite finishes:
const (
	ConformanceFile = "conformance.json"
	JUnitFile       = "junit.xml"
	MatrixMDFile    = "matrix.md"
	MatrixHTMLFile  = "matrix.html"
	lockFile        = ".p2pconf.lock"
	// RootMarker marks the top of an unpacked dist tarball, where there is
	// no go.mod: relative report folders are resolved against it.
	RootMarker = ".p2pconf-root"
)

// WriteRun writes one suite's files into dir and then re-renders the merged
// files from every suite's files present in dir. ginkgoJSON is the suite's
// report in Ginkgo's JSON format (an array holding one suite report, as
// ginkgo --json-report writes it); it is kept as <suite>.ginkgo.json and
// converted. The harness calls it from ReportAfterSuite with the
// P2PCONF_REPORT_DIR folder, through package ginkgoadapt. A relative dir is
// taken from the module root (see ResolveDir), because each suite binary
// runs in its own package folder. Every file is written atomically, and a
// lock on the folder keeps suites that finish together from losing each
// other's results in the merged files.
func WriteRun(dir string, sys System, ginkgoJSON []byte, meta RunMeta) error {
	if dir == "" {
		return errors.New("report: no report folder given (set P2PCONF_REPORT_DIR)")
	}
	reps, err := DecodeGinkgoJSON(ginkgoJSON)
	if err != nil {
		return fmt.Errorf("report: the suite's Ginkgo report: %w", err)
	}
	if len(reps) != 1 {
		return fmt.Errorf("report: the suite's Ginkgo report holds %d suites, want 1", len(reps))
	}
	r := reps[0]
	dir = ResolveDir(dir)
	FillHostDefaults(&sys)
	if meta.RunID == "" {
		meta.RunID = CurrentRunID()
	}
	doc := Convert(sys, r, meta)
	suite := doc.Suites[0].Name
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report folder: %w", err)
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	if err := checkFolderRun(dir, doc.Run.ID, suite); err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, suite+SuiteGinkgoSuffix), ginkgoJSON); err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, suite+SuiteJUnitSuffix), JUnit(doc)); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, suite+SuiteConformanceSuffix), doc); err != nil {
		return err
	}
	_, err = renderLocked(dir, nil)
	return err
}

// RenderDir re-renders the merged files of a run folder from the per-suite
// files in it, and returns the merged document (`p2pconf report DIR`).
func RenderDir(dir string) (Document, error) {
	return RenderDirWith(dir, nil)
}

// RenderDirWith is RenderDir with edit applied to the merged document
// before it is written (p2pconf report --known-deviations marks the
// failures a file accepts); a nil edit changes nothing.
func RenderDirWith(dir string, edit func(*Document)) (Document, error) {
	unlock, err := lockDir(dir)
	if err != nil {
		return Document{}, err
	}
	defer unlock()
	return renderLocked(dir, edit)
}

func renderLocked(dir string, edit func(*Document)) (Document, error) {
	docs, err := LoadRunDir(dir)
	if err != nil {
		return Document{}, err
	}
	doc := Merge(docs)
	if edit != nil {
		edit(&doc)
	}
	return doc, WriteMerged(dir, doc)
}

// WriteMerged writes conformance.json, junit.xml, matrix.md and matrix.html
// of doc into dir.
func WriteMerged(dir string, doc Document) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	setReproCommands(doc.Results) // documents of an older version have none
	if err := writeJSON(filepath.Join(dir, ConformanceFile), doc); err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, JUnitFile), JUnit(doc)); err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, MatrixMDFile), []byte(Markdown(doc))); err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, MatrixHTMLFile), []byte(HTML(doc)))
}

// LoadRunDir reads the per-suite documents of a run folder. A suite that
// has only Ginkgo's JSON (<suite>.ginkgo.json, or ginkgo/<suite>.json as the
// dist run script writes it) is converted from that: the backend comes from
// the suite description ("access [fake:nvlink8]", else "unknown"), the rest
// of the system description (host, GPUs, claims) is lost. A folder with only a
// merged conformance.json yields that document.
func LoadRunDir(dir string) ([]Document, error) {
	var docs []Document
	have := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(dir, "*"+SuiteConformanceSuffix))
	sort.Strings(files)
	for _, f := range files {
		d, err := ReadDocument(f)
		if err != nil {
			return nil, err
		}
		for _, s := range d.Suites {
			have[s.Name] = true
		}
		have[strings.TrimSuffix(filepath.Base(f), SuiteConformanceSuffix)] = true
		docs = append(docs, d)
	}
	if err := checkSameRun(dir, files, docs); err != nil {
		return nil, err
	}
	raw, _ := filepath.Glob(filepath.Join(dir, "*"+SuiteGinkgoSuffix))
	native, _ := filepath.Glob(filepath.Join(dir, "ginkgo", "*.json"))
	for _, f := range append(raw, native...) {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), SuiteGinkgoSuffix), ".json")
		if have[name] {
			continue
		}
		d, err := docFromGinkgo(f)
		if err != nil {
			return nil, err
		}
		// The file is named after the binary (ginkgo/<binary>.json), the
		// document after the suite's label: either may be known already.
		if have[d.Suites[0].Name] {
			continue
		}
		have[name], have[d.Suites[0].Name] = true, true
		docs = append(docs, d)
	}
	if len(docs) == 0 {
		merged := filepath.Join(dir, ConformanceFile)
		if _, err := os.Stat(merged); err == nil {
			d, err := ReadDocument(merged)
			if err != nil {
				return nil, err
			}
			return []Document{d}, nil
		}
		return nil, fmt.Errorf("no p2pconf results in %s (expected <suite>%s files)", dir, SuiteConformanceSuffix)
	}
	return docs, nil
}

func docFromGinkgo(path string) (Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Document{}, err
	}
	reps, err := DecodeGinkgoJSON(data)
	if err != nil {
		return Document{}, fmt.Errorf("%s: %w", path, err)
	}
	var docs []Document
	for _, r := range reps {
		docs = append(docs, Convert(System{Backend: backendFromDescription(r.SuiteDescription)}, r, RunMeta{Args: []string{}}))
	}
	if len(docs) == 0 {
		return Document{}, fmt.Errorf("%s: empty Ginkgo report", path)
	}
	return Merge(docs), nil
}

// backendFromDescription reads the backend from the suite description the
// harness gives Ginkgo ("access [fake:nvlink8]"); "unknown" without one.
func backendFromDescription(desc string) string {
	if i := strings.LastIndex(desc, " ["); i >= 0 && strings.HasSuffix(desc, "]") {
		if b := desc[i+2 : len(desc)-1]; b != "" {
			return b
		}
	}
	return "unknown"
}

// ReadDocument reads one conformance.json.
func ReadDocument(path string) (Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Document{}, err
	}
	d, err := DecodeDocument(data)
	if err != nil {
		return d, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", filepath.Base(path), err)
	}
	return WriteFileAtomic(path, append(data, '\n'))
}

// WriteFileAtomic writes data to a temporary file beside path and renames
// it over path, so a reader (or a run killed half-way) sees the old file or
// the new one, never a part.
func WriteFileAtomic(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// ResolveDir makes a relative report folder absolute against the project
// root: the nearest folder above the working directory holding go.mod or
// the dist marker file, else the working directory. Suite binaries run in
// their package folders (as go test does), so without this,
// P2PCONF_REPORT_DIR=reports/run1 would give every suite its own folder.
func ResolveDir(dir string) string {
	if filepath.IsAbs(dir) {
		return filepath.Clean(dir)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return dir
	}
	for d := cwd; ; d = filepath.Dir(d) {
		for _, marker := range []string{"go.mod", RootMarker} {
			if _, err := os.Stat(filepath.Join(d, marker)); err == nil {
				return filepath.Join(d, dir)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return filepath.Join(cwd, dir)
			}
		}
		if filepath.Dir(d) == d {
			return filepath.Join(cwd, dir)
		}
	}
}
