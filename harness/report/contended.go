// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

// Contended results. A check that needs its GPUs to itself (bandwidth,
// latency, free-memory accounting) and finds another process using them
// ends as an error; when it had measured figures by then, it records a
// finding named FindingContended, and its result is marked Contended so
// that no one reads those figures as the hardware's.

// FindingContended is the finding a spec records when another process used
// its GPUs during a measurement; its value names the processes.
const FindingContended = "contended"

// SymContended follows the status symbol of a matrix cell that holds a
// contended result ("E≈").
const SymContended = "≈"

// legendContended explains SymContended; the matrix shows it only when a
// result is contended.
const legendContended = "≈ after a symbol: measured while another process used the GPU (contended); the figures are not the hardware's."

// isContended reports whether entries hold a FindingContended finding.
func isContended(entries []Entry) bool {
	for _, e := range entries {
		if e.Kind == KindFinding && e.Name == FindingContended {
			return true
		}
	}
	return false
}

// anyContended reports whether a result of doc is contended.
func anyContended(doc Document) bool {
	for _, r := range doc.Results {
		if r.Contended {
			return true
		}
	}
	return false
}
