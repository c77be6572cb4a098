// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/p2pconf/p2pconf/harness/litmus"
	"github.com/p2pconf/p2pconf/harness/pldi26"
	"github.com/p2pconf/p2pconf/harness/report"
)

var _ = registerExits(
	exitRow{"litmus table", exitOK, "the table was rendered beside the run's results"},
	exitRow{"litmus table", exitUsage, usageMeaning(", or a run that cannot be read")},
	exitRow{"litmus table", exitIncomplete, "the run holds none of the table's tests on that GPU (run it with P2PCONF_LITMUS_PROFILE=space)"},
)

// tableRow is one row of the PLDI 2026 table beside this run's result.
type tableRow struct {
	Test         string  `json:"test"`
	Key          string  `json:"variant"`
	Base         string  `json:"base"`
	Strengthened string  `json:"strengthened"`
	H100         bool    `json:"h100_seen"`
	GH200        bool    `json:"gh200_seen"`
	GH200Rate    float64 `json:"gh200_weak_per_second"`
	Ran          bool    `json:"ran"`
	Status       string  `json:"status,omitempty"`
	Seen         bool    `json:"seen"`
	Weak         float64 `json:"weak"`
	Instances    float64 `json:"instances"`
	Rate         float64 `json:"weak_per_second"`
}

// cmdLitmusTable is p2pconf litmus table: the PLDI 2026 cuda-litmus table's
// rows with this run's result on one GPU beside the H100's and GH200's.
func cmdLitmusTable(args []string, stdout, stderr io.Writer) error {
	fs := flags("litmus table", stderr)
	asJSON := fs.Bool("json", false, "print each row as a JSON object, one per line, then the summary")
	gpu := fs.Int("gpu", 0, "the GPU whose results go beside the table's")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("table takes one run folder or conformance.json (got %d arguments)", fs.NArg())
	}
	docs, err := report.LoadInput(fs.Arg(0))
	if err != nil {
		return inputErr(err)
	}
	rows, err := pldi26.Rows()
	if err != nil {
		return err
	}
	results := map[string]report.Result{}
	for _, d := range docs {
		for _, r := range d.Results {
			if r.Check == litmus.CheckID && r.GPU != nil && *r.GPU == *gpu && r.Variant != "" {
				results[r.Variant] = r
			}
		}
	}
	var out []tableRow
	ran := 0
	for _, r := range rows {
		key, err := litmus.PublishedKey(r)
		if err != nil {
			return fmt.Errorf("litmus table: %w", err)
		}
		tr := tableRow{Test: r.Name, Key: key, Base: r.Base, Strengthened: r.Strengthened,
			H100: r.Seen["h100"], GH200: r.Seen["gh200"], GH200Rate: r.GH200.WeakPerSecond}
		if res, ok := results[key]; ok {
			ran++
			tr.Ran, tr.Status = true, res.Status
			weak := "weak_outcomes"
			if r.Base == "forbidden" {
				weak = "violations"
			}
			tr.Weak, tr.Instances = metric(res, weak), metric(res, "instances")
			tr.Seen = tr.Weak > 0
			if tr.Instances > 0 {
				tr.Rate = tr.Weak / tr.Instances * metric(res, "instances_per_second")
			}
		}
		out = append(out, tr)
	}
	if ran == 0 {
		return incomplete(fmt.Errorf("%s holds no result of the table's %d tests on GPU %d (run the space profile: P2PCONF_LITMUS_PROFILE=space)", fs.Arg(0), len(rows), *gpu))
	}
	sum := summarizeTable(out)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		for _, tr := range out {
			if err := enc.Encode(tr); err != nil {
				return err
			}
		}
		return enc.Encode(sum)
	}
	fmt.Fprintf(stdout, "%s\nbeside GPU %d of %s\n\n", pldi26.Source, *gpu, fs.Arg(0))
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "test\tbase\tstrengthened\tH100\tGH200\tGH200 weak/s\there\tweak/s here\tstatus")
	for _, tr := range out {
		here := "not run"
		if tr.Ran {
			here = seenText(tr.Seen)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%.3g\t%s\t%.3g\t%s\n", tr.Test, tr.Base, tr.Strengthened, seenText(tr.H100), seenText(tr.GH200), tr.GH200Rate, here, tr.Rate, tr.Status)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprint(stdout, "\n"+sum.text())
	return nil
}

func seenText(b bool) string {
	if b {
		return "seen"
	}
	return "-"
}

func metric(r report.Result, name string) float64 {
	if v := r.Metrics[name]; v != nil {
		return *v
	}
	return 0
}

// tableSummary is what the comparison says: how many of the outcomes the
// H100 showed this GPU showed, and whether it showed any the models forbid.
type tableSummary struct {
	Rows            int      `json:"rows"`
	Ran             int      `json:"ran"`
	H100Seen        int      `json:"h100_seen"`
	H100SeenHere    int      `json:"h100_seen_shown_here"`
	H100NotHere     []string `json:"h100_seen_not_shown_here"`
	BothForbid      int      `json:"both_models_forbid"`
	BothForbidSeen  []string `json:"both_models_forbid_seen_here"`
	OnlyStrong      int      `json:"base_allows_strengthened_forbids"`
	OnlyStrongSeen  []string `json:"base_allows_strengthened_forbids_seen_here"`
	AllowedSeenHere int      `json:"base_allowed_seen_here"`
	AllowedRanHere  int      `json:"base_allowed_ran_here"`
}

func summarizeTable(rows []tableRow) tableSummary {
	s := tableSummary{Rows: len(rows)}
	for _, r := range rows {
		if r.Ran {
			s.Ran++
		}
		if r.H100 && r.Ran {
			s.H100Seen++
			if r.Seen {
				s.H100SeenHere++
			} else {
				s.H100NotHere = append(s.H100NotHere, r.Test)
			}
		}
		switch {
		case r.Base == "forbidden" && r.Strengthened == "forbidden":
			s.BothForbid++
			if r.Seen {
				s.BothForbidSeen = append(s.BothForbidSeen, r.Test)
			}
		case r.Base == "allowed" && r.Strengthened == "forbidden":
			s.OnlyStrong++
			if r.Seen {
				s.OnlyStrongSeen = append(s.OnlyStrongSeen, r.Test)
			}
		}
		if r.Base == "allowed" && r.Ran {
			s.AllowedRanHere++
			if r.Seen {
				s.AllowedSeenHere++
			}
		}
	}
	sort.Strings(s.H100NotHere)
	return s
}

func (s tableSummary) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of the table's %d rows ran here.\n", s.Ran, s.Rows)
	if s.H100Seen > 0 {
		fmt.Fprintf(&b, "Of the %d rows that ran here and whose outcome the H100 showed, this GPU showed %d (%.1f %%)", s.H100Seen, s.H100SeenHere, 100*float64(s.H100SeenHere)/float64(s.H100Seen))
		if len(s.H100NotHere) > 0 {
			fmt.Fprintf(&b, "; not shown here: %s", strings.Join(s.H100NotHere, ", "))
		}
		b.WriteString(".\n")
	}
	fmt.Fprintf(&b, "Of the %d rows the base model allows that ran here, this GPU showed %d.\n", s.AllowedRanHere, s.AllowedSeenHere)
	fmt.Fprintf(&b, "Rows both models forbid: %d; seen here: %d", s.BothForbid, len(s.BothForbidSeen))
	if len(s.BothForbidSeen) > 0 {
		fmt.Fprintf(&b, " — A VIOLATION OF THE PTX MEMORY MODEL: %s", strings.Join(s.BothForbidSeen, ", "))
	}
	b.WriteString(".\n")
	fmt.Fprintf(&b, "Rows the base model allows and the strengthened model forbids: %d; seen here: %d", s.OnlyStrong, len(s.OnlyStrongSeen))
	if len(s.OnlyStrongSeen) > 0 {
		fmt.Fprintf(&b, " — THIS GPU REFUTES THE STRENGTHENED MODEL: %s", strings.Join(s.OnlyStrongSeen, ", "))
	}
	b.WriteString(".\n")
	return b.String()
}
