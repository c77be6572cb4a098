// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/p2pconf/p2pconf/harness/report"
	"github.com/p2pconf/p2pconf/harness/schedule"
)

// runRecordFile is what p2pconf run writes into its folder before any
// suite process starts: the suites it means to run. p2pconf report on the
// folder expects exactly those, so the two agree on a run of some suites
// (run --suites access is complete with access alone) and a suite whose
// processes died is still missing.
const runRecordFile = "run.json"

type runRecord struct {
	RunID       string   `json:"run_id"`
	Suites      []string `json:"suites"`
	LabelFilter string   `json:"label_filter,omitempty"`
	// GPUs are the GPUs the plan uses (P2PCONF_GPUS, else every GPU): a
	// verdict on the folder speaks for these, not for the machine's others.
	GPUs []int `json:"gpus,omitempty"`
}

func writeRunRecord(dir string, r runRecord) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return report.WriteFileAtomic(filepath.Join(dir, runRecordFile), append(data, '\n'))
}

// readRunRecord reads dir's record; ok is false when dir has none (a
// folder go test or ginkgo wrote).
func readRunRecord(dir string) (r runRecord, ok bool, err error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return r, false, nil // the caller says what is wrong with dir
	}
	data, err := os.ReadFile(filepath.Join(dir, runRecordFile))
	if errors.Is(err, fs.ErrNotExist) {
		return r, false, nil
	}
	if err != nil {
		return r, false, err
	}
	if err := json.Unmarshal(data, &r); err != nil || len(r.Suites) == 0 {
		return r, false, fmt.Errorf("%s: not a run record of p2pconf run (want {\"suites\": [...]})", filepath.Join(dir, runRecordFile))
	}
	return r, true, nil
}

// planSuites lists the suites plan runs a process of, in plan order.
func planSuites(plan schedule.Plan) []string {
	var out []string
	for _, round := range plan.Rounds {
		for _, l := range round.Lanes {
			for _, p := range l.Processes {
				if !containsString(out, p.Suite) {
					out = append(out, p.Suite)
				}
			}
		}
	}
	return out
}
