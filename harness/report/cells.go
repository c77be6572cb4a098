// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

// Cells: the symbols a matrix cell shows and the aggregate of the results
// behind one cell.

// Cell symbols.
const (
	SymPass     = "✓"
	SymFail     = "✗"
	SymSkip     = "–"
	SymTimeout  = "T"
	SymError    = "E"
	SymDiagonal = "X"
	SymNone     = "·" // nothing ran on this target
)

// severity orders statuses for a cell that aggregates several results: the
// worst wins.
func severity(status string) int {
	switch status {
	case StatusFail:
		return 5
	case StatusTimeout:
		return 4
	case StatusError:
		return 3
	case StatusPass:
		return 2
	case StatusSkip:
		return 1
	}
	return 0
}

func symbol(status string) string {
	switch status {
	case StatusPass:
		return SymPass
	case StatusFail:
		return SymFail
	case StatusSkip:
		return SymSkip
	case StatusTimeout:
		return SymTimeout
	case StatusError:
		return SymError
	}
	return SymNone
}

// tkey is a target: a pair (a→b), or a GPU (a, b = -1).
type tkey struct{ a, b int }

func keyOf(r Result) (tkey, bool) {
	switch {
	case r.Src != nil && r.Dst != nil:
		return tkey{*r.Src, *r.Dst}, true
	case r.GPU != nil:
		return tkey{*r.GPU, -1}, true
	}
	return tkey{}, false
}

// targetText names a target: "GPU0" or "GPU0→GPU1".
func targetText(k tkey) string {
	if k.b < 0 {
		return gpuName(k.a)
	}
	return gpuName(k.a) + "→" + gpuName(k.b)
}

type cell struct {
	status string
	notes  []int    // footnote numbers (skip reasons)
	lines  []string // what the cell aggregates, for hover text
	// contended: a result behind the cell was measured while another
	// process used the GPU.
	contended bool
}

func (c *cell) add(r Result, note int) {
	if severity(r.Status) > severity(c.status) {
		c.status = r.Status
	}
	c.contended = c.contended || r.Contended
	if note > 0 && !containsInt(c.notes, note) {
		c.notes = append(c.notes, note)
	}
	line := r.Check + ": " + r.Status
	if r.Reason != "" {
		line += " (" + r.Reason + ")"
	}
	if r.Accepted() {
		line += " [known deviation: " + r.KnownDeviation + "]"
	}
	c.lines = append(c.lines, line)
}

func containsInt(s []int, n int) bool {
	for _, x := range s {
		if x == n {
			return true
		}
	}
	return false
}

type cells map[tkey]*cell

func (cs cells) at(k tkey) *cell {
	c := cs[k]
	if c == nil {
		c = &cell{}
		cs[k] = c
	}
	return c
}

func uniformStatus(cs cells) string {
	status := ""
	for _, c := range cs {
		if status != "" && c.status != status {
			return ""
		}
		status = c.status
	}
	return status
}
