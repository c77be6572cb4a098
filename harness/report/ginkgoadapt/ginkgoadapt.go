// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package ginkgoadapt hands Ginkgo's in-memory reports to package report.
// It is the one place that links Ginkgo's report types with p2pconf's: the
// report package reads Ginkgo's JSON with its own types so that the
// command-line tool does not depend on the test framework. The adapter
// encodes Ginkgo's report as Ginkgo's JSON and decodes it with the report's
// decoder, so a report written in the suite process and one converted
// later from a --json-report file go through the same code.
package ginkgoadapt

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/p2pconf/p2pconf/harness/report"
)

// JSON encodes a suite's report as ginkgo --json-report does: an array of
// suite reports, here with the one.
func JSON(r types.Report) ([]byte, error) {
	data, err := json.MarshalIndent([]types.Report{r}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("ginkgoadapt: encoding the Ginkgo report of %q: %w", r.SuiteDescription, err)
	}
	return data, nil
}

// Suite converts a suite's report to the report package's types.
func Suite(r types.Report) (report.SuiteReport, error) {
	data, err := JSON(r)
	if err != nil {
		return report.SuiteReport{}, err
	}
	reps, err := report.DecodeGinkgoJSON(data)
	if err != nil {
		return report.SuiteReport{}, fmt.Errorf("ginkgoadapt: decoding the Ginkgo report of %q: %w", r.SuiteDescription, err)
	}
	return reps[0], nil
}

// Spec converts one spec's report to the report package's types. A report
// that does not encode (an entry value json cannot encode) comes back with
// its state and texts and a failure message saying why, so the progress
// line still shows the spec.
func Spec(sr types.SpecReport) report.SpecReport {
	r, err := Suite(types.Report{SpecReports: types.SpecReports{sr}})
	if err != nil || len(r.SpecReports) != 1 {
		if err == nil {
			err = fmt.Errorf("got %d spec reports, want 1", len(r.SpecReports))
		}
		return report.SpecReport{
			ContainerHierarchyTexts:  sr.ContainerHierarchyTexts,
			ContainerHierarchyLabels: sr.ContainerHierarchyLabels,
			LeafNodeType:             report.NodeType(sr.LeafNodeType.String()),
			LeafNodeLabels:           sr.LeafNodeLabels,
			LeafNodeText:             sr.LeafNodeText,
			State:                    report.SpecState(sr.State.String()),
			RunTime:                  sr.RunTime,
			Failure:                  report.Failure{Message: strings.TrimSpace(sr.Failure.Message + "\n" + err.Error())},
		}
	}
	return r.SpecReports[0]
}

// WriteRun writes a suite's reports into dir (see report.WriteRun).
func WriteRun(dir string, sys report.System, r types.Report, meta report.RunMeta) error {
	data, err := JSON(r)
	if err != nil {
		return err
	}
	return report.WriteRun(dir, sys, data, meta)
}
