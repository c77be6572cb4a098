// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
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

// VariantName is the display text of a result's variant: its spec text,
// GPU names included, without the leading "<suite>: ". It is "" for a
// result without a variant. The variant key (Result.Variant) is what keys,
// diffs and reproducers use.
func VariantName(r Result) string {
	if r.Variant == "" {
		return ""
	}
	if spec := strings.TrimSpace(strings.TrimPrefix(r.Spec, r.Family+": ")); spec != "" {
		return spec
	}
	return r.Variant
}
