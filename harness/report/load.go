// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// LoadInput reads what `p2pconf report` and `p2pconf diff` accept: a run
// folder (its per-suite files, else its conformance.json), a fleet output
// folder (its fleet.json), or a conformance.json or fleet.json file.
func LoadInput(path string) ([]Document, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return readDocOrFleet(path)
	}
	docs, err := LoadRunDir(path)
	if err == nil {
		return docs, nil
	}
	if fleet := filepath.Join(path, FleetJSONFile); fileExists(fleet) {
		return readDocOrFleet(fleet)
	}
	return nil, err
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func readDocOrFleet(path string) ([]Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := CheckJSONObject(data); err != nil {
		return nil, fmt.Errorf("%s: %w, want a p2pconf conformance.json or fleet.json", path, err)
	}
	var probe struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%s: not a p2pconf result: %w", path, err)
	}
	if probe.Kind != "fleet" {
		d, err := DecodeDocument(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return []Document{d}, nil
	}
	var fd FleetDocument
	if err := json.Unmarshal(data, &fd); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if fd.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("%s: schema_version %d is newer than this p2pconf reads (%d)", path, fd.SchemaVersion, SchemaVersion)
	}
	return fd.Hosts, nil
}

// CheckJSONObject says, in words rather than the decoder's Go types, why
// data is not a JSON object: empty, not JSON, or JSON of another kind.
func CheckJSONObject(data []byte) error {
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) == 0:
		return errors.New("an empty file")
	case !json.Valid(trimmed):
		return errors.New("not JSON")
	case trimmed[0] != '{':
		kind := map[byte]string{'[': "an array", '"': "a string", 't': "a boolean", 'f': "a boolean", 'n': "null"}[trimmed[0]]
		if kind == "" {
			kind = "a number"
		}
		return fmt.Errorf("JSON holding %s, not an object", kind)
	}
	return nil
}
