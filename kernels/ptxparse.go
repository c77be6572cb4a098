// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package kernels

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// EntrySignature is an .entry and its parameters as written in PTX.
type EntrySignature struct {
	Name   string
	Params []Param // Kind Ptr is reported as U64: PTX cannot tell them apart
}

var (
	entryRe = regexp.MustCompile(`(?s)\.entry\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\)`)
	paramRe = regexp.MustCompile(`\.param\s+(\.\w+)\s+([A-Za-z_$][\w$]*)`)
	headRe  = regexp.MustCompile(`(?m)^\s*\.version\s+(\d+)\.(\d+)`)
)

// ParseEntries returns every .entry of a PTX module with its parameters.
func ParseEntries(ptx string) ([]EntrySignature, error) {
	var out []EntrySignature
	for _, m := range entryRe.FindAllStringSubmatch(stripComments(ptx), -1) {
		sig := EntrySignature{Name: m[1]}
		for _, pm := range paramRe.FindAllStringSubmatch(m[2], -1) {
			var k ParamKind
			switch pm[1] {
			case ".u64", ".s64", ".b64":
				k = U64
			case ".u32", ".s32", ".b32":
				k = U32
			case ".f32":
				k = F32
			case ".f64":
				k = F64
			default:
				return nil, fmt.Errorf("entry %s: parameter %s has unsupported type %s", m[1], pm[2], pm[1])
			}
			sig.Params = append(sig.Params, Param{Name: pm[2], Kind: k})
		}
		out = append(out, sig)
	}
	return out, nil
}

// PTXVersion returns the module's .version as major*10+minor.
func PTXVersion(ptx string) (int, error) {
	m := headRe.FindStringSubmatch(ptx)
	if m == nil {
		return 0, fmt.Errorf("no .version line")
	}
	maj, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, fmt.Errorf("PTXVersion: .version major %q: %w", m[1], err)
	}
	minor, err := strconv.Atoi(m[2])
	if err != nil {
		return 0, fmt.Errorf("PTXVersion: .version minor %q: %w", m[2], err)
	}
	return maj*10 + minor, nil
}

func stripComments(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}
