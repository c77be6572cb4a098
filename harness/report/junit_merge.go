// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
)

// junitDoc is a JUnit document read for merging: the <testsuites>
// element's attributes and each <testsuite> element whole, its attributes
// and content kept as they were written.
type junitDoc struct {
	XMLName xml.Name     `xml:"testsuites"`
	Attrs   []xml.Attr   `xml:",any,attr"`
	Suites  []junitRawTS `xml:"testsuite"`
}

type junitRawTS struct {
	Attrs []xml.Attr `xml:",any,attr"`
	Inner []byte     `xml:",innerxml"`
}

// junitTotals are the <testsuites> attributes that count; the merged
// document carries their sums.
var junitTotals = []string{"tests", "disabled", "errors", "failures", "skipped", "time"}

// MergeJUnit merges JUnit documents (each a <testsuites> element, such as
// Ginkgo's --junit-report of one suite process) into one: every
// <testsuite> of every document, in order and unchanged, under one
// <testsuites> whose counts and time are the sums of theirs. A document
// that is not JUnit is an error naming its index; no documents give nil.
func MergeJUnit(docs [][]byte) ([]byte, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	sums := map[string]float64{}
	var suites []junitRawTS
	for i, data := range docs {
		var d junitDoc
		if err := xml.Unmarshal(data, &d); err != nil {
			return nil, fmt.Errorf("report: merging JUnit: document %d: %w", i+1, err)
		}
		for _, a := range d.Attrs {
			if v, err := strconv.ParseFloat(a.Value, 64); err == nil {
				sums[a.Name.Local] += v
			}
		}
		suites = append(suites, d.Suites...)
	}
	out := junitDoc{Suites: suites}
	for _, name := range junitTotals {
		if v, ok := sums[name]; ok {
			out.Attrs = append(out.Attrs, xml.Attr{Name: xml.Name{Local: name}, Value: strconv.FormatFloat(v, 'f', -1, 64)})
		}
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("report: merging JUnit: %w", err)
	}
	b.WriteString("\n")
	return b.Bytes(), nil
}
