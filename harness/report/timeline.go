// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

// renderTimeline writes a failed spec's timeline as plain text in the
// layout of Ginkgo's very verbose output (what a reader of a Ginkgo run
// knows): the GinkgoWriter output interleaved with the failures, steps,
// node events, report entries and progress reports, in the order they
// happened. It goes under the failure in conformance.json and JUnit.
//
// A spec that ended as an error on purpose (KindError) shows [ERROR] where
// Ginkgo says it failed.
func renderTimeline(sr SpecReport, isError bool) string {
	t := &timelineWriter{lastNewline: true, isError: isError}
	t.spec(sr)
	return t.b.String()
}

// timeFormat is how Ginkgo prints timestamps; GINKGO_TIME_FORMAT changes
// it there, so it does here.
var timeFormat = func() string {
	if f := os.Getenv("GINKGO_TIME_FORMAT"); f != "" {
		return f
	}
	return "01/02/06 15:04:05.999"
}()

// colorCode matches Ginkgo's color markup ({{bold}}, {{/}}, ...), which
// some texts (progress report messages) carry and plain text drops.
var colorCode = regexp.MustCompile(`{{(/|bold|underline|red|orange|coral|magenta|green|dark-green|yellow|light-yellow|cyan|gray|light-gray|blue)}}`)

type timelineWriter struct {
	b           strings.Builder
	lastNewline bool
	isError     bool
}

// event is one timeline entry; exactly one field is set.
type event struct {
	loc        TimelineLocation
	failure    *Failure
	additional *AdditionalFailure
	entry      *ReportEntry
	progress   *ProgressReport
	specEvent  *SpecEvent
}

func (t *timelineWriter) spec(sr SpecReport) {
	var events []event
	if !sr.Failure.isZero() {
		f := sr.Failure
		events = append(events, event{loc: f.TimelineLocation, failure: &f})
		if f.AdditionalFailure != nil {
			events = append(events, event{loc: f.AdditionalFailure.Failure.TimelineLocation, additional: f.AdditionalFailure})
		}
	}
	for i := range sr.AdditionalFailures {
		events = append(events, event{loc: sr.AdditionalFailures[i].Failure.TimelineLocation, additional: &sr.AdditionalFailures[i]})
	}
	for i := range sr.ReportEntries {
		events = append(events, event{loc: sr.ReportEntries[i].TimelineLocation, entry: &sr.ReportEntries[i]})
	}
	for i := range sr.ProgressReports {
		events = append(events, event{loc: sr.ProgressReports[i].TimelineLocation, progress: &sr.ProgressReports[i]})
	}
	for i := range sr.SpecEvents {
		events = append(events, event{loc: sr.SpecEvents[i].TimelineLocation, specEvent: &sr.SpecEvents[i]})
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].loc.Order < events[j].loc.Order })

	// The output written before an event goes before it.
	out := sr.CapturedGinkgoWriterOutput
	cursor := 0
	for _, ev := range events {
		if end := min(max(ev.loc.Offset, cursor), len(out)); cursor < end {
			t.emit(out[cursor:end])
			cursor = end
		}
		switch {
		case ev.failure != nil:
			t.failure(0, sr.State, *ev.failure, false)
		case ev.additional != nil:
			t.failure(0, ev.additional.State, ev.additional.Failure, true)
		case ev.entry != nil:
			t.entry(0, *ev.entry)
		case ev.progress != nil:
			t.progress(0, true, *ev.progress)
		case ev.specEvent != nil:
			t.specEvent(0, *ev.specEvent)
		}
	}
	if cursor < len(out) {
		t.emit(out[cursor:])
	}
}

// emit writes s as it is.
func (t *timelineWriter) emit(s string) {
	if s == "" {
		return
	}
	t.b.WriteString(s)
	t.lastNewline = strings.HasSuffix(s, "\n")
}

// block writes s on lines of its own.
func (t *timelineWriter) block(s string) {
	if s == "" {
		return
	}
	if !t.lastNewline {
		t.b.WriteByte('\n')
	}
	t.emit(s)
	if !t.lastNewline {
		t.b.WriteByte('\n')
		t.lastNewline = true
	}
}

// indent indents every non-empty line of s by two spaces per level.
func indent(level int, s string) string {
	if level == 0 {
		return s
	}
	pad := strings.Repeat("  ", level)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "\n")
}

func plain(s string) string { return colorCode.ReplaceAllString(s, "") }

func stamp(tm time.Time) string { return tm.Format(timeFormat) }

func (t *timelineWriter) failure(level int, state SpecState, f Failure, withAdditional bool) {
	label := strings.ToUpper(state.String())
	if t.isError && state == SpecFailed {
		label = "ERROR"
	}
	t.block(indent(level, fmt.Sprintf("[%s] %s", label, f.Message)))
	t.block(indent(level, fmt.Sprintf("In [%s] at: %s @ %s\n", f.FailureNodeType, f.Location, stamp(f.TimelineLocation.Time))))
	if f.ForwardedPanic != "" {
		t.block("\n")
		t.block(indent(level, f.ForwardedPanic))
		t.block("\n")
		t.block(indent(level, "Full Stack Trace"))
		t.block(indent(level+1, f.Location.FullStackTrace))
	}
	if !f.ProgressReport.isZero() {
		t.block("\n")
		t.progress(level, false, f.ProgressReport)
	}
	if f.AdditionalFailure != nil && withAdditional {
		t.block("\n")
		t.failure(level, f.AdditionalFailure.State, f.AdditionalFailure.Failure, true)
	}
}

func (t *timelineWriter) progress(level int, withOutput bool, p ProgressReport) {
	if p.Message != "" {
		t.block(indent(level, plain(p.Message)+"\n"))
		level++
	}
	if p.LeafNodeText != "" {
		subject := level
		if len(p.ContainerHierarchyTexts) > 0 {
			t.emit(indent(level, plain(strings.Join(p.ContainerHierarchyTexts, " "))))
			t.emit(" ")
			subject = 0
		}
		t.emit(indent(subject, fmt.Sprintf("%s (Spec Runtime: %s)\n", p.LeafNodeText, since(p, p.SpecStartTime))))
		t.emit(indent(level+1, p.LeafNodeLocation.String()+"\n"))
		level++
	}
	if p.CurrentNodeType.valid() {
		t.emit(indent(level, fmt.Sprintf("In [%s]", p.CurrentNodeType)))
		if p.CurrentNodeText != "" && p.CurrentNodeType != NodeIt {
			t.emit(" " + p.CurrentNodeText)
		}
		t.emit(fmt.Sprintf(" (Node Runtime: %s)\n", since(p, p.CurrentNodeStartTime)))
		t.emit(indent(level+1, p.CurrentNodeLocation.String()+"\n"))
		level++
	}
	if p.CurrentStepText != "" {
		t.emit(indent(level, fmt.Sprintf("At [By Step] %s (Step Runtime: %s)\n", p.CurrentStepText, since(p, p.CurrentStepStartTime))))
		t.emit(indent(level+1, p.CurrentStepLocation.String()+"\n"))
		level++
	}
	if level > 0 {
		level--
	}
	if withOutput && p.CapturedGinkgoWriterOutput != "" {
		t.emit("\n")
		t.block(indent(level, "Begin Captured GinkgoWriter Output >>"))
		const limit = 10
		if lines := strings.Split(p.CapturedGinkgoWriterOutput, "\n"); len(lines) <= limit {
			t.block(indent(level+1, p.CapturedGinkgoWriterOutput))
		} else {
			t.block(indent(level+1, "..."))
			for _, l := range lines[len(lines)-limit-1:] {
				t.block(indent(level+1, l))
			}
		}
		t.block(indent(level, "<< End Captured GinkgoWriter Output"))
	}
	var spec *Goroutine
	var highlighted, other []Goroutine
	for i, g := range p.Goroutines {
		switch {
		case g.IsSpecGoroutine:
			if spec == nil {
				spec = &p.Goroutines[i]
			}
		case g.hasHighlights():
			highlighted = append(highlighted, g)
		default:
			other = append(other, g)
		}
	}
	if spec != nil && spec.ID != 0 {
		t.emit("\n")
		t.emit(indent(level, "Spec Goroutine\n"))
		t.goroutines(level, *spec)
	}
	if len(p.AdditionalReports) > 0 {
		t.emit("\n")
		t.block(indent(level, "Begin Additional Progress Reports >>"))
		for i, r := range p.AdditionalReports {
			t.emit(indent(level+1, plain(r)))
			if i < len(p.AdditionalReports)-1 {
				t.block(indent(level+1, strings.Repeat("-", 10)))
			}
		}
		t.block(indent(level, "<< End Additional Progress Reports"))
	}
	if len(highlighted) > 0 {
		t.emit("\n")
		t.emit(indent(level, "Goroutines of Interest\n"))
		t.goroutines(level, highlighted...)
	}
	if len(other) > 0 {
		t.emit("\n")
		t.emit(indent(level, "Other Goroutines\n"))
		t.goroutines(level, other...)
	}
}

// since is how long before the progress report start was, as Ginkgo
// prints it.
func since(p ProgressReport, start time.Time) time.Duration {
	return p.TimelineLocation.Time.Sub(start).Round(time.Millisecond)
}

func (t *timelineWriter) goroutines(level int, gs ...Goroutine) {
	for i, g := range gs {
		t.emit(indent(level, fmt.Sprintf("goroutine %d [%s]\n", g.ID, g.State)))
		for _, fc := range g.Stack {
			if fc.Highlight {
				t.emit(indent(level, fmt.Sprintf("> %s\n", fc.Function)))
				t.emit(indent(level+2, fmt.Sprintf("%s:%d\n", fc.Filename, fc.Line)))
				t.source(level+3, fc)
			} else {
				t.emit(indent(level+1, fc.Function+"\n"))
				t.emit(indent(level+2, fmt.Sprintf("%s:%d\n", fc.Filename, fc.Line)))
			}
		}
		if i+1 < len(gs) {
			t.emit("\n")
		}
	}
}

// source prints the lines around a highlighted call, their common
// indentation removed, the call's line marked.
func (t *timelineWriter) source(level int, fc FunctionCall) {
	if len(fc.Source) == 0 {
		return
	}
	trim := -1
	for _, l := range fc.Source {
		if n := len(l) - len(strings.TrimLeft(l, " \t")); l != "" && (trim < 0 || n < trim) {
			trim = n
		}
	}
	trim = max(trim, 0)
	for i, l := range fc.Source {
		if len(l) > trim {
			l = l[trim:]
		}
		mark := "| "
		if i == fc.SourceHighlight {
			mark = "> "
		}
		t.emit(indent(level, mark+l+"\n"))
	}
}

func (t *timelineWriter) entry(level int, e ReportEntry) {
	t.block(indent(level, plain(fmt.Sprintf("%s - %s @ %s", e.Name, e.Location, stamp(e.Time)))))
	if e.Value.Representation != "" {
		t.block(indent(level+1, plain(e.Value.Representation)))
	}
}

func (t *timelineWriter) specEvent(level int, e SpecEvent) {
	at := fmt.Sprintf("- %s @ %s", e.CodeLocation, stamp(e.TimelineLocation.Time))
	took := fmt.Sprintf(" (%s)", e.Duration.Round(time.Millisecond))
	switch e.SpecEventType {
	case EventByStart:
		t.block(indent(level, fmt.Sprintf("STEP: %s %s", e.Message, at)))
	case EventByEnd:
		t.block(indent(level, fmt.Sprintf("END STEP: %s %s%s", e.Message, at, took)))
	case EventNodeStart:
		t.block(indent(level, fmt.Sprintf("> Enter [%s] %s %s", e.NodeType, e.Message, at)))
	case EventNodeEnd:
		t.block(indent(level, fmt.Sprintf("< Exit [%s] %s %s%s", e.NodeType, e.Message, at, took)))
	case EventSpecRepeat:
		t.block(indent(level, fmt.Sprintf("\nAttempt #%d Passed.  Repeating ↺ @ %s\n\n", e.Attempt, stamp(e.TimelineLocation.Time))))
	case EventSpecRetry:
		t.block(indent(level, fmt.Sprintf("\nAttempt #%d Failed.  Retrying ↺ @ %s\n\n", e.Attempt, stamp(e.TimelineLocation.Time))))
	}
}
