// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"

	"github.com/p2pconf/p2pconf/harness/checks"
	"slices"
	"sort"
	"strings"
	"time"
)

// RerunCommand is the command that runs one result's check again on its
// GPU, pair or triple alone, from the repository root. A triple reruns with
// its three GPUs selected and the triple named, roles in its order.
func RerunCommand(sys System, r Result) string {
	prefix := backendEnv(sys.Backend)
	pkg := "./suites/" + r.Family
	switch {
	case r.Kind == "setup":
		return prefix + "go tool ginkgo " + pkg
	case len(r.GPUs) == 3:
		g, t := fmt.Sprintf("%d,%d,%d", r.GPUs[0], r.GPUs[1], r.GPUs[2]), fmt.Sprintf("%d-%d-%d", r.GPUs[0], r.GPUs[1], r.GPUs[2])
		return fmt.Sprintf("%sP2PCONF_GPUS=%s P2PCONF_TRIPLES=%s go tool ginkgo --label-filter='id:%s && triple:%s' %s", prefix, g, t, r.Check, t, pkg)
	case r.Src != nil && r.Dst != nil:
		p := fmt.Sprintf("%d-%d", *r.Src, *r.Dst)
		return fmt.Sprintf("%sP2PCONF_PAIRS=%s go tool ginkgo --label-filter='id:%s && pair:%s' %s", prefix, p, r.Check, p, pkg)
	case r.GPU != nil:
		return fmt.Sprintf("%sP2PCONF_GPUS=%d go tool ginkgo --label-filter='id:%s && gpu:%d' %s", prefix, *r.GPU, r.Check, *r.GPU, pkg)
	}
	return fmt.Sprintf("%sgo tool ginkgo --label-filter='id:%s' %s", prefix, r.Check, pkg)
}

// ReproCommand is the `p2pconf repro` command that writes the standalone
// C reproducer of a failing conf result (on its GPU or pair, restricted to
// its spec where the check has several there), or "" where there is none:
// the result passed, is no conf result, or its check is not reproducible.
func ReproCommand(r Result) string {
	if r.Kind != string(checks.Conf) || (r.Status != StatusFail && r.Status != StatusTimeout) {
		return ""
	}
	if c, ok := checks.Lookup(r.Check); !ok || !c.Reproducible {
		return ""
	}
	var target string
	switch {
	case r.Src != nil && r.Dst != nil:
		target = fmt.Sprintf("--pair %d-%d", *r.Src, *r.Dst)
	case r.GPU != nil:
		target = fmt.Sprintf("--gpu %d", *r.GPU)
	default:
		return ""
	}
	cmd := "p2pconf repro " + r.Check + " " + target
	if r.Variant != "" {
		cmd += " --variant '" + strings.ReplaceAll(r.Variant, "'", `'\''`) + "'"
	}
	return cmd
}

// setReproCommands fills Repro on every result that has a reproducer.
func setReproCommands(results []Result) {
	for i := range results {
		results[i].Repro = ReproCommand(results[i])
	}
}

// EnvironmentRows is the run's environment as the matrix shows it (label,
// value), for documents made from a report such as a bug ticket.
func EnvironmentRows(doc Document) [][2]string { return environment(doc) }

// backendEnv is the environment that selects the backend a run used:
// nothing for cuda (the default), P2PCONF_BACKEND=fake P2PCONF_FAKE=<preset>
// and P2PCONF_FAKE_DEFECTS=<d1,d2> for "fake:<preset>+<d1>+<d2>".
func backendEnv(backend string) string {
	preset, ok := strings.CutPrefix(backend, "fake:")
	if !ok {
		return ""
	}
	parts := strings.Split(preset, "+")
	env := "P2PCONF_BACKEND=fake P2PCONF_FAKE=" + parts[0] + " "
	if len(parts) > 1 {
		env += "P2PCONF_FAKE_DEFECTS=" + strings.Join(parts[1:], ",") + " "
	}
	return env
}

// Title is the matrix's title; it names the backend, so a fake run can
// never pass for a hardware one.
func Title(doc Document) string {
	host := doc.System.Host
	if host == "" {
		host = "unknown host"
	}
	return fmt.Sprintf("p2pconf conformance matrix — %s — %s", host, backendName(doc.System))
}

func backendName(s System) string {
	if s.Backend == "" {
		return "unknown backend"
	}
	return s.Backend
}

// fakeWarning is shown above everything when the backend is not CUDA.
func fakeWarning(s System) string {
	if !s.IsFake() {
		return ""
	}
	return fmt.Sprintf("Backend %q: these results do not come from GPU hardware.", backendName(s))
}

func gpuName(n int) string { return fmt.Sprintf("GPU%d", n) }

func cudaVersion(v int) string {
	if v <= 0 {
		return "unknown"
	}
	return fmt.Sprintf("%d.%d (%d)", v/1000, v%1000/10, v)
}

// environment lists the run's environment as label/value rows.
func environment(doc Document) [][2]string {
	s, r := doc.System, doc.Run
	rows := [][2]string{
		{"backend", backendName(s)},
		{"host", s.Host},
		{"driver", s.DriverVersion},
		{"CUDA driver API", cudaVersion(s.CUDAVersion)},
		{"NVML", s.NVMLVersion},
		{"kernel", s.Kernel},
		{"IOMMU", s.IOMMU},
		{"GPU selection", s.Selection},
		{"tool", strings.TrimSpace(doc.Tool.Name + " " + doc.Tool.Version + " " + doc.Tool.Commit)},
		{"label filter", r.LabelFilter},
		{"seed", fmt.Sprint(r.Seed)},
		{"start", fmtTime(r.Start)},
		{"end", fmtTime(r.End)},
	}
	if len(r.Args) > 0 {
		rows = append(rows, [2]string{argsLabel(doc), strings.Join(r.Args, " ")})
	}
	var keys []string
	for k := range s.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		rows = append(rows, [2]string{k, s.Env[k]})
	}
	rows = append(rows, platformRows(s.Platform)...)
	var out [][2]string
	for _, row := range rows {
		if row[1] != "" {
			out = append(out, row)
		}
	}
	return out
}

// argsLabel names the args row: a merged run's are those of one suite (the
// first to start), which the label says, so they are not read as the whole
// run's command line.
func argsLabel(doc Document) string {
	if len(doc.Suites) < 2 {
		return "args"
	}
	for _, su := range doc.Suites {
		if slices.Equal(su.Args, doc.Run.Args) {
			return "args (" + su.Name + " suite; each suite's are in conformance.json)"
		}
	}
	return "args (one suite's; each suite's are in conformance.json)"
}

func fmtTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.Format(time.RFC3339)
}
