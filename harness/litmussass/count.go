// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmussass

import (
	"fmt"
	"regexp"
	"strings"
)

// sassLine matches an instruction line of nvdisasm or cuobjdump output:
// "/*0090*/  @!P0 LDG.E.STRONG.SYS R2, desc[UR4][R2.64] ;": the mnemonic
// and its modifiers.
var sassLine = regexp.MustCompile(`/\*[0-9a-fA-F]+\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)((?:\.[A-Z0-9_]+)*)[\s;]`)

// memoryClasses are the SASS instructions that access global (or generic)
// memory, by mnemonic.
var memoryClasses = map[string]string{
	"LDG": "LDG", "LD": "LDG",
	"STG": "STG", "ST": "STG",
	"ATOMG": "ATOM", "ATOM": "ATOM",
	"RED": "RED", "REDG": "RED",
}

// orderingOps are the instructions an excerpt keeps besides the memory
// accesses: cache invalidations and fences, which show an acquire or a
// release.
var orderingOps = map[string]bool{"CCTL": true, "MEMBAR": true, "FENCE": true, "ERRBAR": true}

// CountMemory counts the global memory instructions of a disassembly by
// class: LDG, STG, ATOM, RED.
func CountMemory(sass string) map[string]int {
	out := map[string]int{"LDG": 0, "STG": 0, "ATOM": 0, "RED": 0}
	for _, line := range strings.Split(sass, "\n") {
		if m := sassLine.FindStringSubmatch(line); m != nil {
			if c, ok := memoryClasses[m[1]]; ok {
				out[c]++
			}
		}
	}
	return out
}

// Total is the number of global memory instructions of a count.
func Total(c map[string]int) int { return c["LDG"] + c["STG"] + c["ATOM"] + c["RED"] }

// sassInstr is one memory or ordering instruction of a disassembly: the
// line as printed and its opcode with modifiers ("LDG.E.STRONG.GPU").
type sassInstr struct {
	line, op string
}

func memoryLines(sass string) []sassInstr {
	var out []sassInstr
	for _, line := range strings.Split(sass, "\n") {
		m := sassLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if _, mem := memoryClasses[m[1]]; mem || orderingOps[m[1]] {
			out = append(out, sassInstr{strings.TrimSpace(line), m[1] + m[2]})
		}
	}
	return out
}

// maxExcerpt bounds an excerpt's lines.
const maxExcerpt = 40

// Excerpt is the SASS of one role: the memory and ordering instructions of
// the whole kernel's code (full) that the code without the role (less)
// does not have, matched by opcode in order (a longest common
// subsequence), with a block of up to three lines repeated three times or
// more printed once and counted ("… the 2 lines above 63 more times"): an
// unrolled poll loop reads as the loop it is. It is what a ticket quotes.
func Excerpt(full, less string) string {
	a, b := memoryLines(full), memoryLines(less)
	// lcs[i][j]: the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			switch {
			case a[i].op == b[j].op:
				lcs[i][j] = lcs[i+1][j+1] + 1
			case lcs[i+1][j] >= lcs[i][j+1]:
				lcs[i][j] = lcs[i+1][j]
			default:
				lcs[i][j] = lcs[i][j+1]
			}
		}
	}
	var only []sassInstr
	for i, j := 0, 0; i < len(a); {
		switch {
		case j < len(b) && a[i].op == b[j].op:
			i, j = i+1, j+1
		case j < len(b) && lcs[i+1][j] < lcs[i][j+1]:
			j++
		default:
			only = append(only, a[i])
			i++
		}
	}
	return collapse(only)
}

// collapse prints instructions, a block of 1-3 opcodes repeated at least
// three times in a row once, with the count of its repeats.
func collapse(in []sassInstr) string {
	var b strings.Builder
	lines, i := 0, 0
	for i < len(in) && lines < maxExcerpt {
		best, reps := 0, 0
		for p := 1; p <= 3; p++ {
			n := 1
			for i+(n+1)*p <= len(in) && sameOps(in[i:i+p], in[i+n*p:i+(n+1)*p]) {
				n++
			}
			if n >= 3 && n*p > best*reps {
				best, reps = p, n
			}
		}
		if best == 0 {
			fmt.Fprintln(&b, in[i].line)
			lines++
			i++
			continue
		}
		for _, s := range in[i : i+best] {
			fmt.Fprintln(&b, s.line)
		}
		what := "line"
		if best > 1 {
			what = fmt.Sprintf("%d lines", best)
		}
		fmt.Fprintf(&b, "        /* ... the %s above %d more times */\n", what, reps-1)
		lines += best + 1
		i += best * reps
	}
	if i < len(in) {
		fmt.Fprintf(&b, "        /* ... (cut: %d more instructions) */\n", len(in)-i)
	}
	return b.String()
}

func sameOps(x, y []sassInstr) bool {
	for k := range x {
		if x[k].op != y[k].op {
			return false
		}
	}
	return true
}
