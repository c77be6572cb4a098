// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
)

// TestTimelineMatchesGinkgo renders failed specs' timelines from the
// decoded JSON and compares them with Ginkgo's own rendering of the same
// reports, which conformance.json and JUnit carried before the report
// read Ginkgo's JSON itself.
func TestTimelineMatchesGinkgo(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	at := func(ms, order, offset int) types.TimelineLocation {
		return types.TimelineLocation{Time: t0.Add(time.Duration(ms) * time.Millisecond), Order: order, Offset: offset}
	}
	loc := func(line int) types.CodeLocation {
		return types.CodeLocation{FileName: "/src/p2pconf/suites/access/peer_copy_test.go", LineNumber: line}
	}
	output := "allocating 4 KiB on GPU0\ncopying GPU0→GPU1\n"
	var longOutput strings.Builder
	for i := range 14 {
		longOutput.WriteString("polling the flag, attempt " + string(rune('a'+i)) + "\n")
	}
	progress := types.ProgressReport{
		ContainerHierarchyTexts: []string{"access", "peer copy"}, LeafNodeText: "GPU0→GPU1", LeafNodeLocation: loc(40),
		SpecStartTime: t0, CurrentNodeType: types.NodeTypeIt, CurrentNodeText: "GPU0→GPU1", CurrentNodeLocation: loc(40),
		CurrentNodeStartTime: t0.Add(5 * time.Millisecond), CurrentStepText: "waiting for the copy", CurrentStepLocation: loc(48),
		CurrentStepStartTime: t0.Add(1500 * time.Millisecond), CapturedGinkgoWriterOutput: longOutput.String(),
		AdditionalReports: []string{"driver: {{bold}}busy{{/}}", "second report"},
		TimelineLocation:  at(30000, 5, len(output)),
		Goroutines: []types.Goroutine{
			{ID: 7, State: "running", IsSpecGoroutine: true, Stack: []types.FunctionCall{
				{Function: "github.com/p2pconf/p2pconf/harness.(*Harness).Sync", Filename: "/src/p2pconf/harness/sync.go", Line: 20},
				{Function: "github.com/p2pconf/p2pconf/suites/access.glob..func1", Filename: "/src/p2pconf/suites/access/peer_copy_test.go", Line: 48,
					Highlight: true, Source: []string{"\t\tBy(\"waiting\")", "\t\th.Sync(ctx)", "", "\t\tExpect(err).NotTo(HaveOccurred())"}, SourceHighlight: 1},
			}},
			{ID: 9, State: "select", Stack: []types.FunctionCall{{Function: "main.helper", Filename: "/src/helper.go", Line: 5, Highlight: true}}},
			{ID: 1, State: "chan receive", Stack: []types.FunctionCall{{Function: "testing.(*T).Run", Filename: "/go/testing.go", Line: 1700}}},
		},
	}
	failureProgress := progress
	failureProgress.TimelineLocation = at(30001, 6, len(output))
	progress.Message = "{{bold}}{{orange}}Spec Timeout{{/}}\nHere's a progress report:"

	timedOut := types.SpecReport{
		ContainerHierarchyTexts: []string{"access", "peer copy"}, LeafNodeText: "GPU0→GPU1", LeafNodeType: types.NodeTypeIt,
		LeafNodeLocation: loc(40), State: types.SpecStateTimedout, StartTime: t0, RunTime: 30 * time.Second,
		CapturedGinkgoWriterOutput: output + "still waiting\n",
		SpecEvents: types.SpecEvents{
			{SpecEventType: types.SpecEventNodeStart, NodeType: types.NodeTypeIt, Message: "GPU0→GPU1", CodeLocation: loc(40), TimelineLocation: at(0, 1, 0)},
			{SpecEventType: types.SpecEventByStart, Message: "copying", CodeLocation: loc(44), TimelineLocation: at(10, 2, 25)},
			{SpecEventType: types.SpecEventByEnd, Message: "copying", CodeLocation: loc(44), TimelineLocation: at(1400, 4, len(output)), Duration: 1390 * time.Millisecond},
			{SpecEventType: types.SpecEventNodeEnd, NodeType: types.NodeTypeIt, Message: "GPU0→GPU1", CodeLocation: loc(40), TimelineLocation: at(30002, 9, len(output)+14), Duration: 30 * time.Second},
		},
		ReportEntries: types.ReportEntries{{Name: EntryName, Location: loc(46), Time: t0.Add(1200 * time.Millisecond), TimelineLocation: at(1200, 3, len(output)),
			Value: types.WrapEntryValue(Entry{Kind: KindMetric, Source: "harness", Name: "bytes", Value: 4096, Unit: "B"})}},
		ProgressReports: []types.ProgressReport{progress},
		Failure: types.Failure{Message: "A spec timeout occurred", Location: loc(40), FailureNodeType: types.NodeTypeIt,
			TimelineLocation: at(30001, 6, len(output)), ProgressReport: failureProgress,
			AdditionalFailure: &types.AdditionalFailure{State: types.SpecStateFailed, Failure: types.Failure{Message: "cleanup: freeing GPU1's buffer failed",
				Location: loc(60), FailureNodeType: types.NodeTypeAfterEach, TimelineLocation: at(30003, 7, len(output)+14)}}},
		AdditionalFailures: []types.AdditionalFailure{{State: types.SpecStatePanicked, Failure: types.Failure{Message: "Test Panicked",
			ForwardedPanic: "runtime error: index out of range", FailureNodeType: types.NodeTypeCleanupAfterEach, TimelineLocation: at(30004, 8, len(output)+14),
			Location: types.CodeLocation{FileName: "/src/p2pconf/harness/cleanup.go", LineNumber: 12, FullStackTrace: "goroutine 7 [running]:\nharness.cleanup()\n\t/src/p2pconf/harness/cleanup.go:12"}}}},
	}
	retried := types.SpecReport{
		LeafNodeText: "flag handoff GPU1→GPU0", LeafNodeType: types.NodeTypeIt, LeafNodeLocation: loc(70), State: types.SpecStateFailed,
		SpecEvents: types.SpecEvents{
			{SpecEventType: types.SpecEventSpecRetry, Attempt: 1, TimelineLocation: at(100, 2, 0)},
			{SpecEventType: types.SpecEventSpecRepeat, Attempt: 2, TimelineLocation: at(200, 3, 0)},
			{SpecEventType: types.SpecEventByStart, Message: "checking every word", CodeLocation: loc(75), TimelineLocation: at(250, 4, 0)},
		},
		Failure: types.Failure{Message: "word 3 is 0x0, want 0x9e3779b9\nthe destination kept its poison", Location: loc(77),
			FailureNodeType: types.NodeTypeIt, TimelineLocation: at(300, 5, 0)},
	}
	noEvents := types.SpecReport{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStateFailed,
		CapturedGinkgoWriterOutput: "dlopen libcuda.so.1\n", Failure: types.Failure{Message: "loading libcuda.so.1: no such file", Location: loc(10)}}

	for name, sr := range map[string]types.SpecReport{"timed out": timedOut, "retried": retried, "suite node": noEvents} {
		want := reporters.RenderTimeline(sr, true)
		got := renderTimeline(own(t, types.Report{SpecReports: types.SpecReports{sr}}).SpecReports[0], false)
		if got != want {
			t.Errorf("%s: the timeline differs from Ginkgo's\n--- got:\n%s\n--- Ginkgo:\n%s", name, got, want)
		}
		if !strings.Contains(got, sr.Failure.Message) {
			t.Errorf("%s: the timeline lacks the failure:\n%s", name, got)
		}
	}
}
