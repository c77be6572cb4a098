// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package sentences finds broken sentences in report texts: a preposition
// or a possessive with no name after or before it ("between CTAs of never
// shows", "T0 on , T1", "y in 's memory", "( )"), which is what a text with
// its GPU names cut out reads like. Tests run it over every report a fake
// run writes.
package sentences

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"regexp"
	"sort"
	"strings"
)

// broken are the patterns of a sentence with a hole where a name was.
// A preposition at the end of a clause is no hole by itself ("the value
// they wait for", "the pair they ran on."): a hole shows as a space before
// the punctuation that followed the name, or as a preposition followed by
// what followed the name.
var broken = []*regexp.Regexp{
	// A possessive with nothing before it.
	regexp.MustCompile(`(^|[\s(,;:])['’]s\b`),
	// Empty brackets.
	regexp.MustCompile(`\(\s*\)|\[\s*\]`),
	// A space before a comma, semicolon, colon or closing bracket, where a
	// name ended the clause ("T0 on , T1", "every SM of )").
	regexp.MustCompile(`\s[,;:)\]]`),
	// A preposition that takes a name, at the end of the text.
	regexp.MustCompile(`\b(of|between|within|from)\s*$`),
	// A preposition followed by another preposition, a conjunction or a
	// verb of the suites' sentences: the object between them is missing
	// ("between CTAs of never shows", "hands data from to").
	regexp.MustCompile(`\b(of|on|in|from|between|within|through)\s+(of|on|in|to|from|and|or|never|counts|stays|moves|is|are|reads|writes|lets|hands|gives|shows)\b`),
	// A conjunction with nothing between it and what follows it ("moves
	// 4 B and exactly").
	regexp.MustCompile(`\b(and|or)\s+(and|or|exactly|never)\b`),
}

// Find lists the broken places in text: each with a few words around it.
func Find(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		for _, re := range broken {
			for _, m := range re.FindAllStringIndex(line, -1) {
				out = append(out, fmt.Sprintf("%q in %q", line[m[0]:m[1]], around(line, m[0], m[1])))
			}
		}
	}
	return out
}

// around is the text near [i, j), cut on rune boundaries.
func around(s string, i, j int) string {
	const n = 40
	a, b := max(0, i-n), min(len(s), j+n)
	for a > 0 && a < len(s) && s[a]&0xC0 == 0x80 {
		a--
	}
	for b < len(s) && s[b]&0xC0 == 0x80 {
		b++
	}
	return s[a:b]
}

// InJSON finds broken sentences in every string of a JSON document, naming
// each by its path.
func InJSON(data []byte) ([]string, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	var out []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case string:
			for _, f := range Find(x) {
				out = append(out, path+": "+f)
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(path+"."+k, x[k])
			}
		}
	}
	walk("$", v)
	return out, nil
}

// InXML finds broken sentences in the attribute values and text of an XML
// document (JUnit).
func InXML(data []byte) ([]string, error) {
	var out []string
	d := xml.NewDecoder(strings.NewReader(string(data)))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			for _, a := range t.Attr {
				for _, f := range Find(a.Value) {
					out = append(out, fmt.Sprintf("<%s %s>: %s", t.Name.Local, a.Name.Local, f))
				}
			}
		case xml.CharData:
			for _, f := range Find(string(t)) {
				out = append(out, "text: "+f)
			}
		}
	}
}

var (
	tag     = regexp.MustCompile(`<[^>]*>`)
	script  = regexp.MustCompile(`(?s)<(script|style)\b.*?</(script|style)>`)
	spaces  = regexp.MustCompile(`[ \t]+`)
	newline = regexp.MustCompile(`<(br|p|li|tr|td|th|h[1-6]|div|summary|details|pre|table)\b[^>]*>`)
)

// InHTML finds broken sentences in the text of an HTML page: tags become
// spaces (or line breaks, for block tags) and entities are decoded.
func InHTML(page string) []string {
	s := script.ReplaceAllString(page, "\n")
	s = newline.ReplaceAllString(s, "\n")
	s = tag.ReplaceAllString(s, "")
	s = spaces.ReplaceAllString(html.UnescapeString(s), " ")
	return Find(s)
}
