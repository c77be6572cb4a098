// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The types below are the part of Ginkgo's JSON report (what ginkgo
// --json-report writes: an array of suite reports) that the conformance
// report reads. The report decodes that JSON with its own types, so the
// command-line tool reads results without linking the test framework; the
// suite process hands its in-memory report over through the same encoding
// (see package ginkgoadapt). Field names are Ginkgo's JSON keys; enums are
// the strings Ginkgo writes ("passed", "It", "By").

// SuiteReport is one suite's report.
type SuiteReport struct {
	SuitePath                  string
	SuiteDescription           string
	SuiteLabels                []string
	SuiteSucceeded             bool
	SpecialSuiteFailureReasons []string
	PreRunStats                PreRunStats
	StartTime                  time.Time
	EndTime                    time.Time
	SuiteConfig                SuiteConfig
	SpecReports                []SpecReport
}

// PreRunStats counts the suite's specs before it ran.
type PreRunStats struct {
	TotalSpecs       int
	SpecsThatWillRun int
}

// SuiteConfig is the part of the run's configuration that decides which
// specs were selected.
type SuiteConfig struct {
	RandomSeed   int64
	FocusStrings []string
	SkipStrings  []string
	FocusFiles   []string
	SkipFiles    []string
	LabelFilter  string
}

// SpecReport is one spec's (or suite node's) report.
type SpecReport struct {
	ContainerHierarchyTexts    []string
	ContainerHierarchyLabels   [][]string
	LeafNodeType               NodeType
	LeafNodeLocation           CodeLocation
	LeafNodeLabels             []string
	LeafNodeText               string
	State                      SpecState
	RunTime                    time.Duration
	Failure                    Failure // zero when the JSON has none
	CapturedGinkgoWriterOutput string
	ReportEntries              []ReportEntry
	ProgressReports            []ProgressReport
	AdditionalFailures         []AdditionalFailure
	SpecEvents                 []SpecEvent
}

// SpecState is a spec's outcome as Ginkgo names it.
type SpecState string

// The spec states Ginkgo writes.
const (
	SpecPending     SpecState = "pending"
	SpecSkipped     SpecState = "skipped"
	SpecPassed      SpecState = "passed"
	SpecFailed      SpecState = "failed"
	SpecAborted     SpecState = "aborted"
	SpecPanicked    SpecState = "panicked"
	SpecInterrupted SpecState = "interrupted"
	SpecTimedout    SpecState = "timedout"
)

// String is the state as Ginkgo prints it; the empty state is Ginkgo's
// zero value.
func (s SpecState) String() string {
	if s == "" {
		return "INVALID SPEC STATE"
	}
	return string(s)
}

// NodeType is the kind of Ginkgo node ("It", "BeforeSuite", ...).
type NodeType string

// NodeIt is the node type of a spec proper; every other leaf type is a
// suite or setup node.
const NodeIt NodeType = "It"

// String is the type as Ginkgo prints it; a node type Ginkgo left out of
// the JSON (omitempty) is its zero value.
func (t NodeType) String() string {
	if t == "" || t == "INVALID NODE TYPE" {
		return "INVALID NODE TYPE"
	}
	return string(t)
}

func (t NodeType) valid() bool { return t.String() != "INVALID NODE TYPE" }

// CodeLocation is a place in the source.
type CodeLocation struct {
	FileName       string
	LineNumber     int
	FullStackTrace string
	CustomMessage  string
}

// String is "file:line", or the custom message Ginkgo was given instead.
func (l CodeLocation) String() string {
	if l.CustomMessage != "" {
		return l.CustomMessage
	}
	return fmt.Sprintf("%s:%d", l.FileName, l.LineNumber)
}

// TimelineLocation orders an event in the spec's timeline: Offset is how
// much GinkgoWriter output came before it.
type TimelineLocation struct {
	Offset int
	Order  int
	Time   time.Time
}

// Failure is why a spec or node failed.
type Failure struct {
	Message          string
	Location         CodeLocation
	TimelineLocation TimelineLocation
	ForwardedPanic   string
	FailureNodeType  NodeType
	// ProgressReport is where a timed-out or interrupted spec stood.
	ProgressReport    ProgressReport
	AdditionalFailure *AdditionalFailure
}

func (f Failure) isZero() bool {
	return f.Message == "" && f.Location == (CodeLocation{})
}

// AdditionalFailure is a later failure of the same spec (in a cleanup node,
// say) with its own state.
type AdditionalFailure struct {
	State   SpecState
	Failure Failure
}

// ProgressReport is a snapshot of a running spec: its node, its step and
// its goroutines.
type ProgressReport struct {
	Message                    string
	ContainerHierarchyTexts    []string
	LeafNodeText               string
	LeafNodeLocation           CodeLocation
	SpecStartTime              time.Time
	CurrentNodeType            NodeType
	CurrentNodeText            string
	CurrentNodeLocation        CodeLocation
	CurrentNodeStartTime       time.Time
	CurrentStepText            string
	CurrentStepLocation        CodeLocation
	CurrentStepStartTime       time.Time
	AdditionalReports          []string
	CapturedGinkgoWriterOutput string
	TimelineLocation           TimelineLocation
	Goroutines                 []Goroutine
}

func (p ProgressReport) isZero() bool { return !p.CurrentNodeType.valid() }

// Goroutine is one goroutine's stack in a progress report.
type Goroutine struct {
	ID              uint64
	State           string
	Stack           []FunctionCall
	IsSpecGoroutine bool
}

func (g Goroutine) hasHighlights() bool {
	for _, fc := range g.Stack {
		if fc.Highlight {
			return true
		}
	}
	return false
}

// FunctionCall is one frame of a goroutine's stack.
type FunctionCall struct {
	Function        string
	Filename        string
	Line            int
	Highlight       bool
	Source          []string
	SourceHighlight int
}

// ReportEntry is one AddReportEntry of a spec.
type ReportEntry struct {
	Location         CodeLocation
	Time             time.Time
	TimelineLocation TimelineLocation
	Name             string
	Value            ReportEntryValue
}

// ReportEntryValue is an entry's value: its JSON encoding and the text
// Ginkgo shows for it.
type ReportEntryValue struct {
	AsJSON         string
	Representation string
}

// SpecEvent is a step (By), a node entered or left, or an attempt repeated.
type SpecEvent struct {
	SpecEventType    string
	CodeLocation     CodeLocation
	TimelineLocation TimelineLocation
	Message          string
	Duration         time.Duration
	NodeType         NodeType
	Attempt          int
}

// The spec event types Ginkgo writes.
const (
	EventByStart    = "By"
	EventByEnd      = "By (End)"
	EventNodeStart  = "Node"
	EventNodeEnd    = "Node (End)"
	EventSpecRepeat = "Repeat"
	EventSpecRetry  = "Retry"
)

// DecodeGinkgoJSON reads a Ginkgo JSON report: the array of suite reports
// that ginkgo --json-report writes.
func DecodeGinkgoJSON(data []byte) ([]SuiteReport, error) {
	var reps []SuiteReport
	if err := json.Unmarshal(data, &reps); err != nil {
		return nil, fmt.Errorf("not a Ginkgo JSON report: %w", err)
	}
	return reps, nil
}

// Labels are the spec's labels, its containers' first, each once.
func (sr SpecReport) Labels() []string {
	out := []string{}
	seen := map[string]bool{}
	add := func(labels []string) {
		for _, l := range labels {
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	for _, labels := range sr.ContainerHierarchyLabels {
		add(labels)
	}
	add(sr.LeafNodeLabels)
	return out
}

// FullText is the spec's container texts and its own, joined by spaces.
func (sr SpecReport) FullText() string {
	var texts []string
	for _, t := range append(append([]string{}, sr.ContainerHierarchyTexts...), sr.LeafNodeText) {
		if t != "" {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, " ")
}

func (sr SpecReport) isSpec() bool { return sr.LeafNodeType == NodeIt }
