// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"encoding/xml"
	"strings"
	"testing"
)

// TestMergeJUnit: the merged document holds every suite of every shard
// unchanged (escaped markup in its texts included), sums the counts of the
// shards' <testsuites>, and refuses a document that is not XML.
func TestMergeJUnit(t *testing.T) {
	a := []byte(`<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="2" disabled="0" errors="0" failures="1" time="1.5">
  <testsuite name="access" tests="2" failures="1"><testcase name="x &amp; y"><failure message="a &lt;/testsuite&gt; in a message">body</failure></testcase><testcase name="z"></testcase></testsuite>
</testsuites>`)
	b := []byte(`<testsuites tests="1" disabled="0" errors="1" failures="0" time="0.25"><testsuite name="access" tests="1" errors="1"><testcase name="w"><error message="e"></error></testcase></testsuite></testsuites>`)
	out, err := MergeJUnit([][]byte{a, b})
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Tests    int     `xml:"tests,attr"`
		Errors   int     `xml:"errors,attr"`
		Failures int     `xml:"failures,attr"`
		Time     float64 `xml:"time,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(out, &d); err != nil {
		t.Fatalf("the merged JUnit does not parse: %v\n%s", err, out)
	}
	if d.Tests != 3 || d.Errors != 1 || d.Failures != 1 || d.Time != 1.75 || len(d.Suites) != 2 || len(d.Suites[0].Cases) != 2 ||
		d.Suites[0].Cases[0].Name != "x & y" || d.Suites[0].Cases[0].Failure == nil || d.Suites[0].Cases[0].Failure.Message != "a </testsuite> in a message" ||
		d.Suites[1].Cases[0].Name != "w" {
		t.Errorf("merged %+v\n%s", d, out)
	}
	if !strings.HasPrefix(string(out), "<?xml") {
		t.Errorf("no XML header:\n%s", out)
	}
	if _, err := MergeJUnit([][]byte{a, []byte("not xml <")}); err == nil || !strings.Contains(err.Error(), "document 2") {
		t.Errorf("a broken document: %v", err)
	}
	if out, err := MergeJUnit(nil); out != nil || err != nil {
		t.Errorf("nothing to merge: %q %v", out, err)
	}
}
