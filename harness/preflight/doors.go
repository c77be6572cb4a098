// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package preflight

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/p2pconf/p2pconf/harness/report"
)

// Status exit codes, Node Problem Detector's custom-plugin convention,
// which the Slurm health check follows too.
const (
	ExitOK      = 0 // PASS or WARN: the node may take P2P work
	ExitProblem = 1 // FAIL
	ExitUnknown = 2 // UNKNOWN, no verdict, or one older than the allowed age
)

// StatusLine is what a door says about a verdict at now: the exit code
// and one short line. A verdict older than maxAge (0: any age) is
// UNKNOWN: a node is not vouched for by an old run.
func StatusLine(v Verdict, now time.Time, maxAge time.Duration) (int, string) {
	age := ""
	if v.End != nil {
		raw := now.Sub(*v.End)
		a := raw.Round(time.Second)
		age = " (" + a.String() + " ago)"
		if maxAge > 0 && raw > maxAge {
			return ExitUnknown, fmt.Sprintf("p2pconf UNKNOWN: the last verdict (%s) is %s old, older than %s", v.Verdict, a, maxAge)
		}
	} else if maxAge > 0 {
		return ExitUnknown, "p2pconf UNKNOWN: the verdict has no end time, so its age cannot be told"
	}
	line := "p2pconf " + oneLine(v.Summary, 200) + age
	switch v.Verdict {
	case Pass, Warn:
		return ExitOK, line
	case Fail:
		return ExitProblem, line
	}
	return ExitUnknown, line
}

// DrainReason is the Slurm drain reason for a failing verdict:
// "p2pconf: <pair or GPU> <check>".
func DrainReason(v Verdict) string {
	if v.First == nil {
		return "p2pconf: node " + string(v.Verdict)
	}
	return "p2pconf: " + v.First.Target + " " + v.First.Check
}

// LabelPrefix is the namespace of the Node Feature Discovery labels.
const LabelPrefix = "p2pconf.github.io/"

// FeaturesFileName is the features.d file preflight writes.
const FeaturesFileName = "p2pconf"

var labelValueBad = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// labelValue makes s a valid Kubernetes label value: letters, digits,
// '-', '_', '.', at most 63 characters, alphanumeric at both ends.
func labelValue(s string) string {
	s = labelValueBad.ReplaceAllString(s, "_")
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.Trim(s, "-_.")
}

// Features are the Node Feature Discovery label lines of v ("name=value"):
// the verdict, the p2pconf version, how many pairs fail and which.
func Features(v Verdict) []string {
	failing := v.FailingPairs()
	version := v.Tool.Version
	if version == "" {
		version = "unknown"
	}
	lines := []string{
		LabelPrefix + "preflight.verdict=" + string(v.Verdict),
		LabelPrefix + "preflight.version=" + labelValue(version),
		LabelPrefix + "preflight.pairs-failing=" + strconv.Itoa(len(failing)),
	}
	if len(failing) > 0 {
		lines = append(lines, LabelPrefix+"preflight.failing="+labelValue(strings.Join(failing, "_")))
	}
	return lines
}

// WriteFeatures writes v's labels to path (a file in NFD's features.d),
// atomically. With expiry > 0 NFD drops the labels that long after the
// run ended unless a newer run rewrites them.
func WriteFeatures(path string, v Verdict, expiry time.Duration) error {
	var b strings.Builder
	b.WriteString("# p2pconf preflight verdict for node feature discovery (written by p2pconf preflight)\n")
	if expiry > 0 && v.End != nil {
		fmt.Fprintf(&b, "# +expiry-time=%s\n", v.End.Add(expiry).UTC().Format(time.RFC3339))
	}
	for _, l := range Features(v) {
		b.WriteString(l + "\n")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("preflight.WriteFeatures: %w", err)
	}
	if err := report.WriteFileAtomic(path, []byte(b.String())); err != nil {
		return fmt.Errorf("preflight.WriteFeatures: %w", err)
	}
	return nil
}
