// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"regexp"
	"strings"
)

// Small text helpers the Markdown, HTML and topology renderers share.

func superscript(n int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	r := []rune(digits)
	var out []rune
	for _, d := range fmt.Sprint(n) {
		out = append(out, r[d-'0'])
	}
	return string(out)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// mdText makes text safe inside a Markdown table cell or list item.
func mdText(s string) string {
	s = strings.ReplaceAll(s, "\r", "")
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", "\\|")
	return strings.ReplaceAll(s, "<", "&lt;")
}

func bytesText(n uint64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// variantCopy matches the " #2" Disambiguate adds to a repeated variant.
var variantCopy = regexp.MustCompile(` #\d+$`)

// VariantName is the whole text of a result's variant: its spec text with
// the GPU names the stored Variant leaves out ("hands data from GPU0 to
// GPU1", not "hands data from to"), without the leading "<suite>: ". It is
// "" for a check with one spec per target. The stored Variant stays the
// result's key, so runs recorded before keep matching.
func VariantName(r Result) string {
	if r.Variant == "" {
		return ""
	}
	spec := strings.TrimSpace(strings.TrimPrefix(r.Spec, r.Family+": "))
	if spec == "" {
		return r.Variant
	}
	if n := variantCopy.FindString(r.Variant); n != "" && !strings.HasSuffix(spec, n) {
		spec += n
	}
	return spec
}
