// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"encoding/xml"
	"fmt"
	"sort"
	"strings"
)

// JUnit renders a document as JUnit XML shaped for CI: one <testsuite> per
// family whose name carries the backend and host ("access [cuda] node7"),
// one <testcase> per check and GPU or ordered pair with a unique name
// ("access.peer-copy: GPU0→GPU1 [nvlink]"), the family as classname (what
// GitLab shows as the suite), a one-line failure message with the detail in
// the body, the skip reason as the skipped message, and the environment in
// the suite properties. The elements and attributes are those of Ginkgo's
// own JUnit report, so the file is what Ginkgo-aware tools expect.
func JUnit(doc Document) []byte {
	return encodeJUnit(junitSuites(doc, ""))
}

// FleetJUnit renders several hosts' documents into one JUnit file; every
// test case name starts with "[host] " so names stay unique across hosts.
func FleetJUnit(hosts []Host) []byte {
	var all junitTestSuites
	for _, h := range hosts {
		s := junitSuites(h.Doc, h.Name)
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Errors += s.Errors
		all.Disabled += s.Disabled
		all.Time += s.Time
		all.TestSuites = append(all.TestSuites, s.TestSuites...)
	}
	return encodeJUnit(all)
}

func encodeJUnit(s junitTestSuites) []byte {
	data, err := xml.MarshalIndent(s, "", "  ")
	if err != nil {
		// Only unsupported types make MarshalIndent fail; ours are fixed.
		panic(fmt.Sprintf("report: encoding JUnit: %v", err))
	}
	return append([]byte(xml.Header), append(data, '\n')...)
}

func junitSuites(doc Document, hostPrefix string) junitTestSuites {
	byFamily := map[string][]Result{}
	for _, r := range doc.Results {
		byFamily[r.Family] = append(byFamily[r.Family], r)
	}
	suiteRuns := map[string]SuiteRun{}
	for _, s := range doc.Suites {
		suiteRuns[s.Name] = s
		if _, ok := byFamily[s.Name]; !ok {
			byFamily[s.Name] = nil
		}
	}
	families := make([]string, 0, len(byFamily))
	for f := range byFamily {
		families = append(families, f)
	}
	sort.Strings(families)
	out := junitTestSuites{}
	for _, fam := range families {
		ts := junitSuite(doc, fam, suiteRuns[fam], byFamily[fam])
		if hostPrefix != "" {
			for i := range ts.TestCases {
				ts.TestCases[i].Name = "[" + hostPrefix + "] " + ts.TestCases[i].Name
			}
		}
		out.Tests += ts.Tests
		out.Failures += ts.Failures
		out.Errors += ts.Errors
		out.Disabled += ts.Skipped
		out.Time += ts.Time
		out.TestSuites = append(out.TestSuites, ts)
	}
	return out
}

func junitSuite(doc Document, fam string, run SuiteRun, results []Result) junitTestSuite {
	sys := doc.System
	backend := run.Backend
	if backend == "" {
		backend = backendName(sys)
	}
	ts := junitTestSuite{
		Name:    strings.TrimSpace(fmt.Sprintf("%s [%s] %s", fam, backend, sys.Host)),
		Package: "./suites/" + fam,
	}
	if run.Start != nil {
		ts.Timestamp = run.Start.Format("2006-01-02T15:04:05")
		if run.End != nil {
			ts.Time = run.End.Sub(*run.Start).Seconds()
		}
	}
	props := [][2]string{
		{"backend", backend}, {"host", sys.Host}, {"driver", sys.DriverVersion},
		{"cuda_driver_version", fmt.Sprint(sys.CUDAVersion)}, {"nvml_version", sys.NVMLVersion},
		{"kernel", sys.Kernel}, {"iommu", sys.IOMMU}, {"selection", sys.Selection},
		{"label_filter", run.LabelFilter}, {"seed", fmt.Sprint(run.Seed)},
		{"tool_version", doc.Tool.Version}, {"tool_commit", doc.Tool.Commit},
	}
	for _, g := range sys.GPUs {
		props = append(props, [2]string{fmt.Sprintf("gpu%d", g.Ordinal),
			fmt.Sprintf("%s %s %s cc%d.%d", g.Name, g.UUID, g.PCIBusID, g.ComputeCapability/10, g.ComputeCapability%10)})
	}
	for _, p := range props {
		ts.Properties.Properties = append(ts.Properties.Properties, junitProperty{Name: p[0], Value: p[1]})
	}
	names := map[string]int{}
	for _, r := range results {
		tc := junitCase(doc, r)
		names[tc.Name]++
		if n := names[tc.Name]; n > 1 {
			tc.Name = fmt.Sprintf("%s #%d", tc.Name, n)
		}
		ts.TestCases = append(ts.TestCases, tc)
	}
	if !run.Succeeded && len(run.FailureReasons) > 0 {
		ts.TestCases = append(ts.TestCases, junitTestCase{
			Name: fam + ": suite", Classname: fam, Status: StatusError,
			Error: &junitError{Message: oneLine(strings.Join(run.FailureReasons, "; ")), Type: "suite",
				Description: "Ginkgo reported the suite as failed: " + strings.Join(run.FailureReasons, "\n")},
		})
	}
	for _, tc := range ts.TestCases {
		ts.Tests++
		switch {
		case tc.Failure != nil:
			ts.Failures++
		case tc.Error != nil:
			ts.Errors++
		case tc.Skipped != nil:
			ts.Skipped++
		}
	}
	return ts
}

// CaseName is a result's JUnit test case name.
func CaseName(r Result) string {
	name := r.Check + ": " + r.TargetName()
	if (r.Target == TargetPair || r.Target == TargetTriple) && r.Link != "" {
		name += " [" + r.Link + "]"
	}
	// The variant key, not its text: the name stays the same when a spec is
	// reworded, so a CI's history of the case goes on (the text is the
	// "spec" property).
	if r.Variant != "" {
		name += " (" + r.Variant + ")"
	}
	return name
}

func junitCase(doc Document, r Result) junitTestCase {
	tc := junitTestCase{
		Name: CaseName(r), Classname: r.Family, Status: r.Status,
		Time: float64(r.DurationMS) / 1000,
	}
	switch r.Status {
	case StatusPass:
	case StatusSkip:
		tc.Skipped = &junitSkipped{Message: r.Reason}
	case StatusFail, StatusTimeout:
		tc.Failure = &junitFailure{Message: r.ReasonLine(), Type: r.Status, Description: failureBody(doc, r)}
	default:
		tc.Error = &junitError{Message: orDash(r.Reason), Type: r.Status, Description: failureBody(doc, r)}
	}
	props := []junitProperty{{Name: "check", Value: r.Check}, {Name: "kind", Value: r.Kind}, {Name: "target", Value: r.TargetName()}}
	if r.Variant != "" {
		props = append(props, junitProperty{Name: "variant", Value: r.Variant}, junitProperty{Name: "spec", Value: VariantName(r)})
	}
	if r.Accepted() {
		props = append(props, junitProperty{Name: "known_deviation", Value: r.KnownDeviation})
	}
	if r.Link != "" {
		props = append(props, junitProperty{Name: "link", Value: r.Link})
	}
	for _, g := range doc.System.GPUs {
		switch {
		case r.Src != nil && g.Ordinal == *r.Src:
			props = append(props, junitProperty{Name: "src_uuid", Value: g.UUID})
		case r.Dst != nil && g.Ordinal == *r.Dst:
			props = append(props, junitProperty{Name: "dst_uuid", Value: g.UUID})
		case r.GPU != nil && g.Ordinal == *r.GPU:
			props = append(props, junitProperty{Name: "uuid", Value: g.UUID})
		}
		for i, o := range r.GPUs {
			if g.Ordinal == o {
				props = append(props, junitProperty{Name: fmt.Sprintf("uuid_%c", 'a'+rune(i)), Value: g.UUID})
			}
		}
	}
	keys := make([]string, 0, len(r.Metrics))
	for k := range r.Metrics {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := "null"
		if m := r.Metrics[k]; m != nil {
			val = fmt.Sprint(*m)
		}
		props = append(props, junitProperty{Name: "metric:" + k, Value: val})
	}
	tc.Properties = &junitProperties{Properties: props}
	return tc
}

// failureBody is the detail under a failure: the whole message, where it
// happened, how to rerun it, the spec's entries and Ginkgo's timeline.
func failureBody(doc Document, r Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(r.Message))
	if r.Accepted() {
		fmt.Fprintf(&b, "known deviation (accepted, still a failure): %s\n", r.KnownDeviation)
	}
	if c := r.CauseLine(); c != "" {
		fmt.Fprintf(&b, "%s\n", c)
	}
	fmt.Fprintf(&b, "spec: %s\n", r.Spec)
	if r.Step != "" {
		fmt.Fprintf(&b, "step: %s\n", r.Step)
	}
	if r.Location != "" {
		fmt.Fprintf(&b, "at: %s\n", r.Location)
	}
	fmt.Fprintf(&b, "backend: %s\nrerun: %s\n", backendName(doc.System), RerunCommand(doc.System, r))
	for _, e := range r.Entries {
		fmt.Fprintf(&b, "%s %s %s=%s%s", e.Kind, e.Source, e.Name, valueText(e.Value), e.Unit)
		if e.Detail != "" {
			fmt.Fprintf(&b, " (%s)", e.Detail)
		}
		b.WriteString("\n")
	}
	if r.Timeline != "" {
		fmt.Fprintf(&b, "\n%s", r.Timeline)
	}
	return b.String()
}

// oneLine joins the lines of s with spaces: a JUnit message is one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// The JUnit XML elements, with the element and attribute names and order
// of Ginkgo's JUnit report.
type junitTestSuites struct {
	XMLName    xml.Name         `xml:"testsuites"`
	Tests      int              `xml:"tests,attr"`
	Disabled   int              `xml:"disabled,attr"`
	Errors     int              `xml:"errors,attr"`
	Failures   int              `xml:"failures,attr"`
	Time       float64          `xml:"time,attr"`
	TestSuites []junitTestSuite `xml:"testsuite"`
}

type junitTestSuite struct {
	Name       string          `xml:"name,attr"`
	Package    string          `xml:"package,attr"`
	Tests      int             `xml:"tests,attr"`
	Disabled   int             `xml:"disabled,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Errors     int             `xml:"errors,attr"`
	Failures   int             `xml:"failures,attr"`
	Time       float64         `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties junitProperties `xml:"properties"`
	TestCases  []junitTestCase `xml:"testcase"`
}

type junitProperties struct {
	Properties []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitTestCase struct {
	Name       string           `xml:"name,attr"`
	Classname  string           `xml:"classname,attr"`
	Status     string           `xml:"status,attr"`
	Time       float64          `xml:"time,attr"`
	Skipped    *junitSkipped    `xml:"skipped,omitempty"`
	Error      *junitError      `xml:"error,omitempty"`
	Failure    *junitFailure    `xml:"failure,omitempty"`
	Properties *junitProperties `xml:"properties,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitError struct {
	Message     string `xml:"message,attr"`
	Type        string `xml:"type,attr"`
	Description string `xml:",chardata"`
}

type junitFailure struct {
	Message     string `xml:"message,attr"`
	Type        string `xml:"type,attr"`
	Description string `xml:",chardata"`
}
