// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ginkgoadapt

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/p2pconf/p2pconf/harness/report"
)

func suiteReport() types.Report {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	loc := types.CodeLocation{FileName: "/src/p2pconf/suites/access/peer_copy_test.go", LineNumber: 48}
	return types.Report{
		SuitePath: "/src/p2pconf/suites/access", SuiteDescription: "access [fake:h200x2]", SuiteLabels: []string{"suite:access"},
		SpecialSuiteFailureReasons: []string{"Interrupted by User"}, PreRunStats: types.PreRunStats{TotalSpecs: 3, SpecsThatWillRun: 2},
		StartTime: t0, EndTime: t0.Add(time.Minute), RunTime: time.Minute,
		SuiteConfig: types.SuiteConfig{RandomSeed: 7, LabelFilter: "!kind:mutant", FocusStrings: []string{"copy"}, FailFast: true},
		SpecReports: types.SpecReports{
			{
				ContainerHierarchyTexts: []string{"peer copy"}, ContainerHierarchyLabels: [][]string{{"suite:access"}},
				LeafNodeType: types.NodeTypeIt, LeafNodeLocation: loc, LeafNodeText: "GPU0→GPU1",
				LeafNodeLabels: []string{"id:access.peer-copy", "pair:0-1"}, State: types.SpecStateTimedout,
				StartTime: t0, EndTime: t0.Add(30 * time.Second), RunTime: 30 * time.Second,
				CapturedGinkgoWriterOutput: "copying\n",
				Failure: types.Failure{Message: "A spec timeout occurred", Location: loc, FailureNodeType: types.NodeTypeIt,
					TimelineLocation: types.TimelineLocation{Offset: 8, Order: 3, Time: t0.Add(30 * time.Second)},
					ProgressReport:   types.ProgressReport{CurrentNodeType: types.NodeTypeIt, CurrentStepText: "waiting for the copy"}},
				ReportEntries: types.ReportEntries{{Name: report.EntryName, Location: loc, Time: t0,
					Value: types.WrapEntryValue(report.Entry{Kind: report.KindMetric, Source: "harness", Name: "bytes", Value: 4096, Unit: "B"})}},
				SpecEvents: types.SpecEvents{{SpecEventType: types.SpecEventByStart, Message: "waiting for the copy", CodeLocation: loc,
					TimelineLocation: types.TimelineLocation{Order: 2, Time: t0.Add(time.Second)}}},
				AdditionalFailures: []types.AdditionalFailure{{State: types.SpecStateFailed, Failure: types.Failure{Message: "cleanup failed", Location: loc}}},
			},
			{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStatePassed},
		},
	}
}

// TestSuiteRoundTrip: what the report package reads of Ginkgo's in-memory
// report is what Ginkgo put there.
func TestSuiteRoundTrip(t *testing.T) {
	in := suiteReport()
	got, err := Suite(in)
	if err != nil {
		t.Fatal(err)
	}
	if got.SuiteDescription != in.SuiteDescription || got.SuitePath != in.SuitePath || !reflect.DeepEqual(got.SuiteLabels, in.SuiteLabels) ||
		!reflect.DeepEqual(got.SpecialSuiteFailureReasons, in.SpecialSuiteFailureReasons) || got.PreRunStats.SpecsThatWillRun != 2 ||
		!got.StartTime.Equal(in.StartTime) || !got.EndTime.Equal(in.EndTime) {
		t.Errorf("suite fields: %+v", got)
	}
	if c := got.SuiteConfig; c.RandomSeed != 7 || c.LabelFilter != "!kind:mutant" || !reflect.DeepEqual(c.FocusStrings, []string{"copy"}) {
		t.Errorf("suite config: %+v", c)
	}
	if len(got.SpecReports) != 2 {
		t.Fatalf("%d spec reports", len(got.SpecReports))
	}
	sr, want := got.SpecReports[0], in.SpecReports[0]
	if sr.State != report.SpecTimedout || sr.LeafNodeType != report.NodeIt || sr.FullText() != want.FullText() ||
		!reflect.DeepEqual(sr.Labels(), want.Labels()) || sr.RunTime != want.RunTime ||
		sr.CapturedGinkgoWriterOutput != "copying\n" {
		t.Errorf("spec fields: %+v", sr)
	}
	f := sr.Failure
	if f.Message != want.Failure.Message || f.Location.String() != want.Failure.Location.String() || f.FailureNodeType != report.NodeIt ||
		f.TimelineLocation.Offset != 8 || f.TimelineLocation.Order != 3 || f.ProgressReport.CurrentStepText != "waiting for the copy" {
		t.Errorf("failure: %+v", f)
	}
	if len(sr.ReportEntries) != 1 || sr.ReportEntries[0].Name != report.EntryName ||
		!strings.Contains(sr.ReportEntries[0].Value.AsJSON, `"name":"bytes"`) || sr.ReportEntries[0].Value.Representation == "" {
		t.Errorf("entries: %+v", sr.ReportEntries)
	}
	if len(sr.SpecEvents) != 1 || sr.SpecEvents[0].SpecEventType != report.EventByStart || sr.SpecEvents[0].Message != "waiting for the copy" {
		t.Errorf("events: %+v", sr.SpecEvents)
	}
	if len(sr.AdditionalFailures) != 1 || sr.AdditionalFailures[0].State != report.SpecFailed {
		t.Errorf("additional failures: %+v", sr.AdditionalFailures)
	}
	if setup := got.SpecReports[1]; setup.LeafNodeType != "BeforeSuite" || setup.State != report.SpecPassed {
		t.Errorf("suite node: %+v", setup)
	}
	// One spec alone converts to what it is inside its suite.
	if one := Spec(in.SpecReports[0]); !reflect.DeepEqual(one, sr) {
		t.Errorf("Spec differs from the suite's spec:\n%+v\n%+v", one, sr)
	}
}

// TestSpecThatDoesNotEncode: an entry value JSON cannot encode still
// yields the spec, with the reason in its failure message.
func TestSpecThatDoesNotEncode(t *testing.T) {
	sr := suiteReport().SpecReports[0]
	sr.ReportEntries = append(sr.ReportEntries, types.ReportEntry{Name: "odd", Value: types.WrapEntryValue(make(chan int))})
	got := Spec(sr)
	if got.State != report.SpecTimedout || got.FullText() != sr.FullText() || !strings.Contains(got.Failure.Message, "A spec timeout occurred") ||
		!strings.Contains(got.Failure.Message, "encoding") {
		t.Errorf("fallback spec: %+v", got)
	}
}

// TestWriteRun: the suite's Ginkgo JSON lands beside the conformance
// report as Ginkgo encodes it, and both read back.
func TestWriteRun(t *testing.T) {
	dir := t.TempDir()
	in := suiteReport()
	sys := report.System{Backend: "fake:h200x2", Host: "testhost"}
	if err := WriteRun(dir, sys, in, report.RunMeta{Suite: "access", Args: []string{"access.test"}}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "access"+report.SuiteGinkgoSuffix))
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := JSON(in); string(raw) != string(want) {
		t.Error("access.ginkgo.json is not Ginkgo's encoding of the report")
	}
	doc, err := report.ReadDocument(filepath.Join(dir, "access"+report.SuiteConformanceSuffix))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Results) != 1 || doc.Results[0].Check != "access.peer-copy" || doc.Results[0].Status != report.StatusTimeout ||
		doc.Results[0].Step != "waiting for the copy" || doc.Results[0].Metrics["bytes"] == nil {
		t.Errorf("conformance results: %+v", doc.Results)
	}
}
