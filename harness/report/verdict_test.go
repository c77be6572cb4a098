// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"strings"
	"testing"
)

// judgeDoc is a run of the given suites, one passing result each, plus
// extra results.
func judgeDoc(suites []string, extra ...Result) Document {
	var d Document
	for _, s := range suites {
		d.Suites = append(d.Suites, SuiteRun{Name: s, Succeeded: true, Args: []string{"/tmp/go-build1/" + s + ".test"}})
		d.Results = append(d.Results, Result{Check: s + ".x", Family: s, Kind: "conf", Target: TargetGPU, GPU: intp(0), Status: StatusPass})
	}
	d.Results = append(d.Results, extra...)
	return d
}

func TestKnownSuitesAreTheCatalogues(t *testing.T) {
	if got := strings.Join(KnownSuites(), ","); got != "access,atomics,bandwidth,health,ipc,managed,ordering,vmm" {
		t.Errorf("KnownSuites = %s", got)
	}
}

func TestJudge(t *testing.T) {
	all := KnownSuites()
	fail := Result{Check: "access.peer-copy", Family: "access", Kind: "conf", Target: TargetPair, Src: intp(0), Dst: intp(1), Status: StatusFail, Reason: "word 17"}
	timeout := fail
	timeout.Status = StatusTimeout
	harnessErr := fail
	harnessErr.Status = StatusError
	setup := Result{Check: "ipc.(BeforeSuite)", Family: "ipc", Kind: "setup", Target: TargetSystem, Status: StatusFail, Reason: "loading libcuda.so.1"}
	for _, tc := range []struct {
		name       string
		doc        Document
		expected   []string
		failed     int
		incomplete string // a part of the first reason; "" for none
	}{
		{"all conform", judgeDoc(all), all, 0, ""},
		{"a failed check", judgeDoc(all, fail), all, 1, ""},
		{"a timeout is a failure", judgeDoc(all, timeout), all, 1, ""},
		{"a harness error", judgeDoc(all, harnessErr), all, 0, "1 result with a harness error"},
		{"a failed setup", judgeDoc(all, setup), all, 0, "ipc: suite setup fail: loading libcuda.so.1"},
		{"six suites did not run", judgeDoc([]string{"access", "atomics"}, fail), all, 1, "6 suites did not run: bandwidth, health, ipc, managed, ordering, vmm"},
		{"a selection that ran", judgeDoc([]string{"access", "ipc"}), []string{"access", "ipc"}, 0, ""},
		{"no result", Document{}, []string{"access"}, 0, "1 suite did not run: access"},
	} {
		v := Judge(tc.doc, tc.expected)
		if len(v.Failed) != tc.failed {
			t.Errorf("%s: %d failed, want %d", tc.name, len(v.Failed), tc.failed)
		}
		switch {
		case tc.incomplete == "" && len(v.Incomplete) > 0:
			t.Errorf("%s: incomplete %q, want complete", tc.name, v.Incomplete)
		case tc.incomplete != "" && (len(v.Incomplete) == 0 || !strings.Contains(v.Incomplete[0], tc.incomplete)):
			t.Errorf("%s: incomplete %q, want %q first", tc.name, v.Incomplete, tc.incomplete)
		}
	}
	stopped := judgeDoc(all)
	stopped.Suites[0].FailureReasons = []string{"interrupted by user"}
	if v := Judge(stopped, all); len(v.Incomplete) != 1 || v.Incomplete[0] != "access stopped early: interrupted by user" {
		t.Errorf("stopped suite: %q", v.Incomplete)
	}
	if v := Judge(Document{}, nil); len(v.Incomplete) != 1 || !strings.Contains(v.Incomplete[0], "no spec ran") {
		t.Errorf("empty run: %q", v.Incomplete)
	}
}

// TestMissingSuitesByBinary: a suite is known by its binary too, as the
// dist run script names what it launched.
func TestMissingSuitesByBinary(t *testing.T) {
	doc := Document{Suites: []SuiteRun{{Name: "dist", Args: []string{"./distsuite.test", "--ginkgo.v"}}}}
	if got := MissingSuites(doc, []string{"distsuite", "dist", "access"}); strings.Join(got, ",") != "access" {
		t.Errorf("MissingSuites = %v, want [access]", got)
	}
}

// TestReportNamesSuitesNotRun: matrix.md and matrix.html of a run with
// three of the eight suites name the other five.
func TestReportNamesSuitesNotRun(t *testing.T) {
	doc := judgeDoc([]string{"access", "atomics", "ordering"})
	doc.Summary = Summarize(doc.Results)
	if md := Markdown(doc); !strings.Contains(md, "**Not run: bandwidth, health, ipc, managed, vmm.** These suites left no results in this run") {
		t.Errorf("matrix.md does not name the suites that did not run:\n%s", md)
	}
	if page := HTML(doc); !strings.Contains(page, `<p class="notrun"><b>Not run: bandwidth, health, ipc, managed, vmm.</b>`) {
		t.Error("matrix.html does not name the suites that did not run")
	}
	if md := Markdown(judgeDoc(KnownSuites())); strings.Contains(md, "Not run:") {
		t.Error("a run of every suite names a suite as not run")
	}
}
