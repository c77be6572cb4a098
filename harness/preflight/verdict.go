// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package preflight

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/p2pconf/p2pconf/harness/report"
)

// Status is a verdict on a check, a target or the node.
type Status string

// Verdicts, from best to worst as the node's verdict ranks them: a FAIL
// anywhere makes the node FAIL, else UNKNOWN anywhere makes it UNKNOWN
// (a verdict that could not be reached is never a pass), else WARN.
const (
	Pass    Status = "PASS"    // every probe worked
	Warn    Status = "WARN"    // works, but below the link-efficiency floor or with error counters that grew
	Fail    Status = "FAIL"    // a probe showed the node does not do what it claims
	Unknown Status = "UNKNOWN" // could not tell: a harness error, a contended GPU, a suite that did not run
)

func rank(s Status) int {
	switch s {
	case Pass:
		return 0
	case Warn:
		return 1
	case Unknown:
		return 2
	case Fail:
		return 3
	}
	return 2
}

func worse(a, b Status) Status {
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// VerdictFile is the verdict's file name in the run folder.
const VerdictFile = "verdict.json"

// Schema names the verdict file's layout; it changes when a field changes
// meaning or disappears.
const Schema = "p2pconf.preflight/v1"

// Verdict is the node's preflight verdict (verdict.json).
type Verdict struct {
	Schema  string `json:"schema"`
	Verdict Status `json:"verdict"`
	// Summary is one line: the verdict and the first problem.
	Summary string `json:"summary"`
	Action  string `json:"action"`
	// First is the worst problem found first, nil on PASS.
	First   *Problem `json:"first,omitempty"`
	Host    string   `json:"host"`
	Backend string   `json:"backend"`
	Driver  string   `json:"driver_version,omitempty"`
	Tool    struct {
		Version string `json:"version"`
		Commit  string `json:"commit"`
	} `json:"tool"`
	// Start and End are the run's; End is what "age" is measured from.
	Start    *time.Time `json:"start"`
	End      *time.Time `json:"end"`
	Duration float64    `json:"duration_s"`
	RunDir   string     `json:"run_dir,omitempty"`
	GPUs     []Target   `json:"gpus"`
	Pairs    []Target   `json:"pairs"`
	// Node holds what is about neither one GPU nor one pair: suites that
	// did not run or stopped early, setup errors.
	Node []Outcome `json:"node,omitempty"`
	// LeftOut are the profile's suites the caller narrowed away (p2pconf
	// preflight --suites): the verdict does not speak for their checks.
	LeftOut []string `json:"suites_left_out,omitempty"`
	// Selected are the GPUs the run selected (P2PCONF_GPUS) when not every
	// GPU of the machine: the verdict does not speak for the others.
	Selected []int `json:"gpus_selected,omitempty"`
}

// Problem names one failing check on one target.
type Problem struct {
	Target string `json:"target"` // "0" (a GPU) or "0-1" (an ordered pair)
	Check  string `json:"check"`
	Status Status `json:"status"`
	Reason string `json:"reason"`
	Cause  string `json:"cause,omitempty"`
}

// Target is one GPU or one ordered pair and its verdict.
type Target struct {
	ID    string `json:"id"` // "0" or "0-1"
	Name  string `json:"name"`
	GPU   *int   `json:"gpu,omitempty"`
	Src   *int   `json:"src,omitempty"`
	Dst   *int   `json:"dst,omitempty"`
	UUID  string `json:"uuid,omitempty"`
	BusID string `json:"pci_bus_id,omitempty"`
	// Device ("nvidia0") and Model ("NVIDIA H200") are the GPU's (a pair's
	// source GPU's) dcgm-exporter device and modelName labels.
	Device  string `json:"device,omitempty"`
	Model   string `json:"model_name,omitempty"`
	PeerID  string `json:"peer_uuid,omitempty"`
	Link    string `json:"link,omitempty"`
	Verdict Status `json:"verdict"`
	Action  string `json:"action"`
	// Claimed says, for a pair, whether CUDA claims peer access.
	Claimed *bool     `json:"peer_access_claimed,omitempty"`
	Checks  []Outcome `json:"checks"`
	Causes  []Cause   `json:"causes,omitempty"`
	// NCCL is the setting that keeps NCCL off a failing pair's P2P path.
	NCCL *NCCLAdvice `json:"nccl,omitempty"`
	// Bandwidth is the copy engine's unidirectional rate at the largest
	// size of bandwidth.link-efficiency (GB/s), and Efficiency its share of
	// the link's nominal rate; nil where that check did not measure.
	Bandwidth  *float64 `json:"copy_gbps,omitempty"`
	Efficiency *float64 `json:"link_efficiency,omitempty"`
}

// Outcome is one check on one target: its specs' statuses and its verdict.
type Outcome struct {
	Check   string `json:"check"`
	Verdict Status `json:"verdict"`
	Passed  int    `json:"passed"`
	Failed  int    `json:"failed"`
	Skipped int    `json:"skipped"`
	Errors  int    `json:"errors"`
	// Reason is the first failure's, error's or skip's line.
	Reason string `json:"reason,omitempty"`
	Spec   string `json:"spec,omitempty"`
	Repro  string `json:"repro,omitempty"`
}

// Options are the inputs of Judge besides the run's document.
type Options struct {
	// Suites are the suites the run was meant to run (default Suites()):
	// one without results makes the node UNKNOWN; the profile's others are
	// recorded as left out.
	Suites []string
	// SysfsRoot is where the cause rules read sysfs ("/" on a machine).
	SysfsRoot string
	// RunDir is recorded in the verdict.
	RunDir string
	// Unavailable are suites of the profile the installed bundle lacks:
	// their checks cannot run, so the node is UNKNOWN.
	Unavailable []string
	// GPUs are the GPUs the run selected (P2PCONF_GPUS; nil: all the
	// system has): the verdict judges them and the pairs among them only,
	// so a run on a job's GPUs is not UNKNOWN for the node's others.
	GPUs []int
}

// Judge turns a preflight run's merged document into the verdict.
func Judge(doc report.Document, opt Options) Verdict {
	v := Verdict{Schema: Schema, Host: doc.System.Host, Backend: doc.System.Backend, Driver: doc.System.DriverVersion,
		Start: doc.Run.Start, End: doc.Run.End, RunDir: opt.RunDir}
	v.Tool.Version, v.Tool.Commit = doc.Tool.Version, doc.Tool.Commit
	if v.Host == "" {
		v.Host = doc.Run.Host
	}
	if doc.Run.Start != nil && doc.Run.End != nil {
		v.Duration = doc.Run.End.Sub(*doc.Run.Start).Seconds()
	}
	selected := func(o int) bool { return opt.GPUs == nil || slices.Contains(opt.GPUs, o) }
	if opt.GPUs != nil && len(opt.GPUs) < len(doc.System.GPUs) {
		v.Selected = opt.GPUs
	}
	gpus := map[string]*Target{}
	pairs := map[string]*Target{}
	for _, g := range doc.System.GPUs {
		o := g.Ordinal
		if !selected(o) {
			continue
		}
		gpus[strconv.Itoa(o)] = &Target{ID: strconv.Itoa(o), Name: fmt.Sprintf("GPU%d", o), GPU: &o, UUID: g.UUID, BusID: g.PCIBusID,
			Device: DeviceName(g), Model: g.Name}
	}
	for _, p := range doc.System.Pairs {
		if !selected(p.Src) || !selected(p.Dst) {
			continue
		}
		t := newPair(doc.System, p.Src, p.Dst)
		t.Link = p.Link
		t.Claimed = p.CUDA.CanAccessPeer
		pairs[t.ID] = t
	}
	outcomes := map[*Target]map[string]*Outcome{}
	add := func(t *Target, r report.Result) {
		if outcomes[t] == nil {
			outcomes[t] = map[string]*Outcome{}
		}
		o := outcomes[t][r.Check]
		if o == nil {
			o = &Outcome{Check: r.Check}
			outcomes[t][r.Check] = o
		}
		tally(o, r)
		if r.Check == "bandwidth.link-efficiency" {
			if g, ok := r.Metrics["bandwidth_gbps"]; ok && g != nil {
				t.Bandwidth = g
			}
			if e, ok := r.Metrics["link_efficiency.ce.uni"]; ok && e != nil {
				t.Efficiency = e
			}
		}
	}
	for _, r := range doc.Results {
		if _, ok := RoleOf(r.Check); !ok {
			if r.Kind == "setup" && r.Failed() {
				v.Node = append(v.Node, Outcome{Check: "suite setup (" + r.Family + ")", Verdict: Unknown, Errors: 1, Reason: r.Reason})
			}
			continue
		}
		switch {
		case r.GPU != nil && !selected(*r.GPU), r.Src != nil && !selected(*r.Src), r.Dst != nil && !selected(*r.Dst):
			// Not a GPU this run selected (a folder another run wrote into).
		case r.GPU != nil:
			id := strconv.Itoa(*r.GPU)
			if gpus[id] == nil {
				g := *r.GPU
				gpus[id] = &Target{ID: id, Name: fmt.Sprintf("GPU%d", g), GPU: &g}
			}
			add(gpus[id], r)
		case r.Src != nil && r.Dst != nil:
			id := fmt.Sprintf("%d-%d", *r.Src, *r.Dst)
			if pairs[id] == nil {
				pairs[id] = newPair(doc.System, *r.Src, *r.Dst)
			}
			add(pairs[id], r)
		}
	}
	v.Node = append(v.Node, suiteCoverage(doc, opt.Suites)...)
	for _, s := range opt.Unavailable {
		v.Node = append(v.Node, Outcome{Check: "suite " + s, Verdict: Unknown, Reason: "the bundle has no " + s + " suite: its checks cannot run here"})
	}
	if opt.Suites != nil {
		meant := map[string]bool{}
		for _, s := range opt.Suites {
			meant[s] = true
		}
		for _, s := range Suites() {
			if !meant[s] {
				v.LeftOut = append(v.LeftOut, s)
			}
		}
	}

	for _, t := range sortedTargets(gpus) {
		finish(t, outcomes[t])
		if t.Verdict != Pass && t.GPU != nil {
			t.Causes = GPUCauses(doc.System, *t.GPU, t.Checks, opt.SysfsRoot)
		}
		if len(t.Causes) == 0 && strings.Contains(t.Action, "p2pconf repro and report it") {
			t.Action += " (the machine shows no known platform cause)"
		}
		v.GPUs = append(v.GPUs, *t)
	}
	for _, t := range sortedTargets(pairs) {
		finish(t, outcomes[t])
		if t.Verdict != Pass && t.Src != nil {
			t.Causes = Causes(doc.System, *t.Src, *t.Dst, t.Checks, opt.SysfsRoot)
			if len(t.Causes) == 0 {
				t.Action = strings.Replace(t.Action, "; see the causes", noCause, 1)
			}
			if t.Verdict == Fail {
				a := NCCLFor(doc.System, *t.Src, *t.Dst)
				t.NCCL = &a
			}
		}
		v.Pairs = append(v.Pairs, *t)
	}
	v.Verdict = Pass
	if len(v.GPUs) == 0 {
		v.Node = append(v.Node, Outcome{Check: "GPUs", Verdict: Unknown, Reason: "the run found no GPU to judge"})
	}
	for _, o := range v.Node {
		v.Verdict = worse(v.Verdict, o.Verdict)
	}
	for _, set := range [][]Target{v.GPUs, v.Pairs} {
		for _, t := range set {
			v.Verdict = worse(v.Verdict, t.Verdict)
		}
	}
	v.First = firstProblem(v)
	v.Summary, v.Action = summarize(v)
	return v
}

// noCause replaces "see the causes" in a pair's action when no rule named
// one.
const noCause = "; the machine shows no known platform cause (ACS, IOMMU, virtualization, BAR1, NVML P2P status, links): " +
	"write its reproducer (p2pconf repro) and report it with p2pconf ticket"

func newPair(sys report.System, src, dst int) *Target {
	s, d := src, dst
	t := &Target{ID: fmt.Sprintf("%d-%d", s, d), Name: fmt.Sprintf("GPU%d→GPU%d", s, d), Src: &s, Dst: &d}
	for _, g := range sys.GPUs {
		switch g.Ordinal {
		case s:
			t.UUID, t.BusID, t.Device, t.Model = g.UUID, g.PCIBusID, DeviceName(g), g.Name
		case d:
			t.PeerID = g.UUID
		}
	}
	return t
}

// tally adds one result to its check's outcome.
func tally(o *Outcome, r report.Result) {
	first := func() {
		if o.Reason == "" {
			o.Reason, o.Spec, o.Repro = r.Reason, r.Spec, r.Repro
		}
	}
	switch {
	case r.Contended:
		o.Errors++
		o.Reason, o.Spec = "measured while another process used the GPU: "+r.Reason, r.Spec
	case r.Status == report.StatusPass:
		o.Passed++
	case r.Status == report.StatusSkip:
		o.Skipped++
		if o.Failed == 0 && o.Errors == 0 {
			first()
		}
	case r.Status == report.StatusFail || r.Status == report.StatusTimeout:
		if o.Failed == 0 {
			o.Reason, o.Spec, o.Repro = r.Reason, r.Spec, r.Repro
		}
		o.Failed++
	default:
		o.Errors++
		if o.Failed == 0 {
			first()
		}
	}
}

// checkVerdict is one check's verdict on one target.
func checkVerdict(o *Outcome) Status {
	role, _ := RoleOf(o.Check)
	switch {
	case o.Failed > 0:
		if role.Degrades && (role.DegradedWhen == "" || strings.Contains(o.Reason, role.DegradedWhen)) {
			return Warn
		}
		return Fail
	case o.Errors > 0:
		return Unknown
	}
	return Pass
}

// exceedsLink says whether a link-efficiency failure is a rate above what
// the link carries: the bytes did not all move, or took another path. That
// is no degradation but a wrong result.
func exceedsLink(o *Outcome) bool {
	return o.Check == "bandwidth.link-efficiency" && strings.Contains(o.Reason, "more than the link carries")
}

// finish orders a target's outcomes by the profile and sets its verdict and
// action.
func finish(t *Target, outs map[string]*Outcome) {
	t.Verdict = Pass
	for _, role := range Profile {
		o, ok := outs[role.Check]
		if !ok {
			continue
		}
		o.Verdict = checkVerdict(o)
		t.Checks = append(t.Checks, *o)
		t.Verdict = worse(t.Verdict, o.Verdict)
	}
	probed := false
	for _, o := range t.Checks {
		if o.Passed+o.Failed+o.Errors > 0 {
			probed = true
		}
	}
	switch {
	case len(t.Checks) == 0 || !probed && t.Claimed == nil:
		t.Verdict = Unknown
		t.Action = "no check of the profile ran on " + t.Name + ": rerun preflight with every suite of the profile"
		return
	case !probed && t.Claimed != nil && *t.Claimed:
		t.Verdict = Unknown
		t.Action = "CUDA claims peer access on " + t.Name + " but no probe ran: rerun preflight with every suite of the profile"
		return
	}
	t.Action = actionOf(t)
}

// actionOf is the action of the worst check on t.
func actionOf(t *Target) string {
	if t.Verdict == Pass {
		if t.Claimed != nil && !*t.Claimed {
			return "none: CUDA claims no peer access on " + t.Name + " and none works; software copies through the host there"
		}
		return "none"
	}
	for _, o := range t.Checks {
		if o.Verdict != t.Verdict {
			continue
		}
		if o.Verdict == Unknown {
			return "rerun preflight when the GPUs are idle; if it stays UNKNOWN, read the run's report for the harness error (" + o.Check + ": " + o.Reason + ")"
		}
		role, _ := RoleOf(o.Check)
		if exceedsLink(&o) {
			return "the copy reported more than the link carries, so not every byte moved the way NVML describes: do not use P2P on this pair; see the causes"
		}
		return role.Action
	}
	return ""
}

// suiteCoverage reports suites meant to run that left no result, or that
// Ginkgo says did not finish. With a schedule (p2pconf run), a suite is
// meant to run when the schedule launched it: a suite of the profile with
// no spec on this machine (the pair checks on one GPU) is not launched.
func suiteCoverage(doc report.Document, want []string) []Outcome {
	if want == nil {
		want = Suites()
	}
	if doc.Schedule != nil {
		launched := map[string]bool{}
		for _, r := range doc.Schedule.Rounds {
			for _, p := range r.Processes {
				launched[p.Suite] = true
			}
		}
		var kept []string
		for _, s := range want {
			if launched[s] {
				kept = append(kept, s)
			}
		}
		want = kept
	}
	ran := map[string]report.SuiteRun{}
	for _, s := range doc.Suites {
		ran[s.Name] = s
	}
	var out []Outcome
	for _, name := range want {
		s, ok := ran[name]
		switch {
		case !ok:
			out = append(out, Outcome{Check: "suite " + name, Verdict: Unknown, Reason: "the suite left no results: its checks were not run"})
		case len(s.FailureReasons) > 0 && !onlySpecFailures(s.FailureReasons):
			out = append(out, Outcome{Check: "suite " + name, Verdict: Unknown, Reason: strings.Join(s.FailureReasons, "; ")})
		}
	}
	return out
}

// onlySpecFailures says whether Ginkgo's suite-level reasons just repeat
// that specs failed (which the results show) rather than an interrupted or
// timed-out suite.
func onlySpecFailures(reasons []string) bool {
	for _, r := range reasons {
		l := strings.ToLower(r)
		if strings.Contains(l, "interrupt") || strings.Contains(l, "timeout") || strings.Contains(l, "timed out") ||
			strings.Contains(l, "no specs") || strings.Contains(l, "aborted") {
			return false
		}
	}
	return true
}

func sortedTargets(m map[string]*Target) []*Target {
	var out []*Target
	for _, t := range m {
		out = append(out, t)
	}
	key := func(t *Target) [2]int {
		switch {
		case t.GPU != nil:
			return [2]int{*t.GPU, -1}
		case t.Src != nil:
			return [2]int{*t.Src, *t.Dst}
		}
		return [2]int{1 << 30, 0}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := key(out[i]), key(out[j])
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		return a[1] < b[1]
	})
	return out
}

// firstProblem is the first check with the node's verdict: GPUs before
// pairs, in the profile's order.
func firstProblem(v Verdict) *Problem {
	if v.Verdict == Pass {
		return nil
	}
	for _, set := range [][]Target{v.GPUs, v.Pairs} {
		for _, t := range set {
			if t.Verdict != v.Verdict {
				continue
			}
			p := &Problem{Target: t.ID, Status: t.Verdict}
			for _, o := range t.Checks {
				if o.Verdict == t.Verdict {
					p.Check, p.Reason = o.Check, o.Reason
					break
				}
			}
			if p.Check == "" {
				p.Check, p.Reason = "profile", t.Action
			}
			if len(t.Causes) > 0 {
				p.Cause = t.Causes[0].Finding
			}
			return p
		}
	}
	for _, o := range v.Node {
		if o.Verdict == v.Verdict {
			return &Problem{Target: "node", Check: o.Check, Status: o.Verdict, Reason: o.Reason}
		}
	}
	return nil
}

func summarize(v Verdict) (summary, action string) {
	var failing []string
	for _, t := range v.Pairs {
		if t.Verdict == Fail {
			failing = append(failing, t.ID)
		}
	}
	if v.First == nil {
		summary = fmt.Sprintf("PASS: %s, %s", counted(len(v.GPUs), "GPU"), counted(len(v.Pairs), "pair"))
		action = "none"
	} else {
		summary = fmt.Sprintf("%s: %s %s: %s", v.Verdict, v.First.Target, v.First.Check, oneLine(v.First.Reason, 160))
		if v.First.Cause != "" {
			summary += " (likely cause: " + oneLine(v.First.Cause, 120) + ")"
		}
		action = actionFor(v)
	}
	if len(failing) > 1 {
		summary += fmt.Sprintf(" [%d pairs failing: %s]", len(failing), strings.Join(failing, ","))
	}
	return summary, action
}

func actionFor(v Verdict) string {
	for _, set := range [][]Target{v.GPUs, v.Pairs} {
		for _, t := range set {
			if t.ID == v.First.Target {
				a := t.Action
				if t.NCCL != nil {
					a += "; until fixed, run NCCL jobs with " + t.NCCL.Setting
				}
				return a
			}
		}
	}
	if v.Verdict == Unknown {
		return "rerun preflight with the whole bundle on idle GPUs; read the run's report for what could not be judged"
	}
	return "read the run's report"
}

// oneLine cuts s to its first line and at most n runes.
func oneLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

// FailingPairs lists the pairs whose verdict is FAIL.
func (v Verdict) FailingPairs() []string {
	var out []string
	for _, t := range v.Pairs {
		if t.Verdict == Fail {
			out = append(out, t.ID)
		}
	}
	return out
}

// Write writes v as JSON to path, atomically.
func Write(path string, v Verdict) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("preflight.Write: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("preflight.Write: %w", err)
	}
	return report.WriteFileAtomic(path, append(data, '\n'))
}

// Read reads a verdict file, or the verdict.json of a run folder.
func Read(path string) (Verdict, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, VerdictFile)
	}
	var v Verdict
	data, err := os.ReadFile(path)
	if err != nil {
		return v, fmt.Errorf("preflight.Read: %w", err)
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return v, fmt.Errorf("preflight.Read: %s: %w", path, err)
	}
	if v.Schema != Schema {
		return v, fmt.Errorf("preflight.Read: %s: schema %q, want %q", path, v.Schema, Schema)
	}
	return v, nil
}

// counted is "1 GPU", "2 GPUs".
func counted(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// DeviceName is dcgm-exporter's device label for g: "nvidia" and the GPU's
// NVML index (dcgm-exporter writes the DCGM GPU ID, which DCGM takes from
// NVML's enumeration); empty, which Prometheus reads as no label, when the
// run did not read NVML, rather than a name that may be another GPU's.
func DeviceName(g report.GPU) string {
	if g.NVMLIndex == nil {
		return ""
	}
	return fmt.Sprintf("nvidia%d", *g.NVMLIndex)
}
