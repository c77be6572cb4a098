// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/p2pconf/p2pconf/harness/litmus"
	"github.com/p2pconf/p2pconf/harness/litmusenv"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/report"
)

// tuneFocus selects the mutants tune scores by default: the single-shot
// MP, WRC and ISA2 mutants and the polled MP mutants, between CTAs.
const tuneFocus = `(MP once|WRC once|ISA2 once|MP) .*between CTAs`

// cmdTune is `p2pconf tune`: a bounded random search over litmus testing
// environments on this machine's first selected GPU. It runs the ordering
// suite's mutants between CTAs once per candidate environment (the suite
// binary with a label filter and P2PCONF_LITMUS_ENV naming the candidate),
// each mutant for its whole budget, reads their weak outcomes per second
// from the suite's JSON report, and writes the best environment to an
// environment file (harness/litmusenv) that runs use through
// P2PCONF_LITMUS_ENV. The first candidate is the environment in force
// (the variable's file, or the committed default), so the search never
// ends worse than where it started. A candidate slower (instances per
// second) than -min-speed times that first one is not eligible: the
// forbidden tests run to an instance target, so a slow environment would
// lengthen every run.
func cmdTune(args []string, stdout, stderr io.Writer) error {
	fs := flags("tune", stderr)
	envs := fs.Int("envs", 12, "number of environments to try, the one in force first")
	budget := fs.Duration("time", 5*time.Minute, "stop trying new environments after this long")
	perMutant := fs.Duration("mutant-budget", 250*time.Millisecond, "how long each mutant runs per environment")
	seed := fs.Uint64("seed", 1, "seed of the random environments")
	out := fs.String("o", "litmus-env.json", "environment file to write")
	focus := fs.String("focus", tuneFocus, "regular expression of the mutant specs to score (Ginkgo focus)")
	bin := fs.String("suite-binary", "", "the ordering suite's test binary (default: the dist bundle's, or built from the checkout)")
	gpu := fs.String("gpu", "0", "GPU to tune on (P2PCONF_GPUS form: an ordinal or UUID)")
	minSpeed := fs.Float64("min-speed", 0.5, "least instance rate of a candidate, as a share of the environment in force's (the forbidden tests run to an instance target: a slower environment lengthens every run)")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageErr("tune takes no arguments (got %s)", strings.Join(fs.Args(), " "))
	case *envs < 1 || *envs > 10000:
		return usageErr("-envs=%d: want 1 to 10000 environments", *envs)
	case *budget <= 0 || *perMutant <= 0:
		return usageErr("-time and -mutant-budget must be positive durations")
	case *minSpeed < 0 || *minSpeed > 1:
		return usageErr("-min-speed=%g: want a share from 0 to 1", *minSpeed)
	case strings.ContainsAny(*gpu, ", "):
		return usageErr("-gpu=%q: one GPU", *gpu)
	}
	if _, err := regexp.Compile(*focus); err != nil {
		return usageErr("-focus=%q: %v", *focus, err)
	}
	start, err := litmusenv.FromEnv(os.Getenv)
	if err != nil {
		return inputErr(err)
	}
	suiteBin, dir, cleanup, err := tuneBinary(*bin, stderr)
	if err != nil {
		return err
	}
	defer cleanup()
	tmp, err := os.MkdirTemp("", "p2pconf-tune-")
	if err != nil {
		return incomplete(err)
	}
	defer os.RemoveAll(tmp)

	t := tuner{bin: suiteBin, dir: dir, tmp: tmp, focus: *focus, gpu: *gpu, perMutant: *perMutant, stderr: stderr}
	rng := rand.New(rand.NewPCG(*seed, 0x9E3779B97F4A7C15))
	began := time.Now()
	var best *candidate
	floor := 0.0
	for i := 0; i < *envs && time.Since(began) < *budget; i++ {
		k := start.Env
		if i > 0 {
			k = litmusenv.Random(rng)
		}
		c, err := t.try(i, k)
		if err != nil {
			return err
		}
		if i == 0 {
			floor = *minSpeed * c.speed
		}
		mark := ""
		switch {
		case c.speed < floor:
			mark = fmt.Sprintf("  (too slow: %.3g instances/s, below %.3g)", c.speed, floor)
		case best == nil || c.score > best.score:
			best, mark = c, "  (best so far)"
		}
		fmt.Fprintf(stdout, "[%d/%d %5.1fs] score %.4g, %.3g instances/s%s\n        %s\n        %s\n", i+1, *envs, time.Since(began).Seconds(), c.score, c.speed, mark, k, c.summary())
	}
	f := litmusenv.File{Device: gpuName(*gpu), Env: best.knobs, Scores: best.scores,
		Made: fmt.Sprintf("p2pconf tune -envs %d -time %s -mutant-budget %s -min-speed %g -seed %d on %s: best of %d environments tried, scored by the geometric mean of 1 + weak outcomes per second over the mutants, among those at least %g times as fast as the environment in force",
			*envs, *budget, *perMutant, *minSpeed, *seed, time.Now().UTC().Format(time.RFC3339), t.tried, *minSpeed)}
	data, err := f.Marshal()
	if err != nil {
		return incomplete(err)
	}
	if err := report.WriteFileAtomic(*out, data); err != nil {
		return incomplete(err)
	}
	fmt.Fprintf(stdout, "wrote %s (score %.4g): use it with %s=%s\n", *out, best.score, litmusenv.EnvVar, *out)
	return nil
}

// tuneBinary is the ordering suite binary and the folder to run it from.
func tuneBinary(bin string, stderr io.Writer) (path, dir string, cleanup func(), err error) {
	if bin != "" {
		if !fileExists(bin) {
			return "", "", nil, inputErr(fmt.Errorf("-suite-binary=%q: no such file", bin))
		}
		wd, _ := os.Getwd()
		return bin, wd, func() {}, nil
	}
	set, err := findSuites("ordering", stderr)
	if err != nil {
		if set.cleanup != nil {
			set.cleanup()
		}
		return "", "", nil, err
	}
	cleanup = func() {
		if set.cleanup != nil {
			set.cleanup()
		}
	}
	return set.Suites[0].Bin, set.Suites[0].Dir, cleanup, nil
}

// tuner runs candidates.
type tuner struct {
	bin, dir, tmp, focus, gpu string
	perMutant                 time.Duration
	stderr                    io.Writer
	tried                     int
}

// candidate is one environment and what its mutants showed.
type candidate struct {
	knobs  litmusenv.Knobs
	scores []litmusenv.Score
	score  float64
	speed  float64 // mean instances per second of its mutants
}

// try runs the focused mutants under knobs and scores them.
func (t *tuner) try(i int, k litmusenv.Knobs) (*candidate, error) {
	t.tried++
	envFile := filepath.Join(t.tmp, fmt.Sprintf("env-%d.json", i))
	data, err := litmusenv.File{Env: k, Made: "p2pconf tune candidate"}.Marshal()
	if err == nil {
		err = os.WriteFile(envFile, data, 0o644)
	}
	if err != nil {
		return nil, incomplete(err)
	}
	jsonPath := filepath.Join(t.tmp, fmt.Sprintf("report-%d.json", i))
	// Each mutant runs to its cap (a hit target it cannot reach), so the
	// rates of two environments compare over the same time.
	limit := 10*time.Minute + 200*t.perMutant
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, t.bin, "-test.timeout="+limit.String(), "--ginkgo.no-color",
		"--ginkgo.label-filter=kind:mutant && gpus:1", "--ginkgo.focus="+t.focus, "--ginkgo.json-report="+jsonPath)
	cmd.Dir = t.dir
	cmd.Env = append(os.Environ(), litmusenv.EnvVar+"="+envFile, machine.EnvGPUs+"="+t.gpu,
		litmus.EnvMutantHits+"=1000000000000", litmus.EnvMutantBudget+"="+t.perMutant.String(),
		machine.EnvReportDir+"="+filepath.Join(t.tmp, fmt.Sprintf("run-%d", i)))
	outText, runErr := cmd.CombinedOutput()
	var ee *exec.ExitError
	if runErr != nil && !errors.As(runErr, &ee) {
		return nil, incomplete(fmt.Errorf("running %s: %w", t.bin, runErr))
	}
	raw, err := os.ReadFile(jsonPath)
	if err != nil {
		return nil, incomplete(fmt.Errorf("the ordering suite wrote no report for environment %d (%v): %s", i, runErr, lastLines(string(outText), 20)))
	}
	reps, err := report.DecodeGinkgoJSON(raw)
	if err != nil {
		return nil, incomplete(err)
	}
	c := &candidate{knobs: k}
	for _, sr := range reps {
		for _, sp := range sr.SpecReports {
			if s, ok := mutantScore(sp); ok {
				c.scores = append(c.scores, s)
			}
		}
	}
	if len(c.scores) == 0 {
		return nil, incomplete(fmt.Errorf("environment %d: no mutant between CTAs ran (focus %q): %s", i, t.focus, lastLines(string(outText), 20)))
	}
	sum := 0.0
	for _, s := range c.scores {
		sum += math.Log1p(s.WeakPerSecond)
		c.speed += s.InstancesPerSecond / float64(len(c.scores))
	}
	c.score = math.Expm1(sum / float64(len(c.scores)))
	return c, nil
}

// mutantScore reads a mutant spec's weak outcomes, instances and weak
// outcomes per second from its report entries.
func mutantScore(sp report.SpecReport) (litmusenv.Score, bool) {
	var s litmusenv.Score
	found := false
	for _, e := range sp.ReportEntries {
		if e.Name != report.EntryName {
			continue
		}
		var en report.Entry
		if json.Unmarshal([]byte(e.Value.AsJSON), &en) != nil || en.Kind != report.KindMetric {
			continue
		}
		v, _ := en.Value.(float64)
		switch en.Name {
		case "weak_outcomes":
			s.WeakOutcomes, found = uint64(v), true
		case "instances":
			s.Instances = uint64(v)
		case "weak_outcomes_per_second":
			s.WeakPerSecond = v
		case "instances_per_second":
			s.InstancesPerSecond = v
		}
		if s.Test == "" && en.Detail != "" {
			if name, _, ok := strings.Cut(en.Detail, " between CTAs"); ok {
				s.Test, s.Placement = name, "between CTAs"
			}
		}
	}
	return s, found && s.Test != ""
}

// summary is the candidate's rates by family.
func (c *candidate) summary() string {
	fam := map[string]float64{}
	for _, s := range c.scores {
		f := s.Test
		if i := strings.Index(f, " once "); i >= 0 {
			f = f[:i+5]
		} else if i := strings.IndexByte(f, ' '); i >= 0 {
			f = f[:i]
		}
		fam[f] = max(fam[f], s.WeakPerSecond)
	}
	names := make([]string, 0, len(fam))
	for f := range fam {
		names = append(names, f)
	}
	sort.Strings(names)
	var parts []string
	for _, f := range names {
		parts = append(parts, fmt.Sprintf("%s %.3g/s", f, fam[f]))
	}
	return "best mutant per family: " + strings.Join(parts, ", ")
}

// gpuName is the GPU's name from nvidia-smi, or "" where there is none.
func gpuName(gpu string) string {
	out, err := exec.Command("nvidia-smi", "--query-gpu=name", "--format=csv,noheader", "-i", gpu).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
