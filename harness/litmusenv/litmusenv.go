// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package litmusenv is the testing environment of the litmus tests between
// CTAs of one GPU, as data: the knobs MC Mutants (Levine et al., ASPLOS
// 2023) and GPUHarbor (ISSTA 2023) found to change how often a GPU shows a
// weak outcome, the JSON file `p2pconf tune` writes and
// P2PCONF_LITMUS_ENV names, and the default committed for the H200 (made
// there with `p2pconf tune`). It has no test framework and no backend in
// its imports, so the p2pconf command can validate a file before any GPU
// work and write one.
package litmusenv

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
)

// EnvVar names the environment file of a run; unset, Default applies.
const EnvVar = "P2PCONF_LITMUS_ENV"

// Format is the value of a file's "format" field.
const Format = "p2pconf-litmus-env/1"

// Roles values.
const (
	// RolesSplit: each testing thread plays one role; the threads of role r
	// fill CTA group r, instances are permuted so that the roles of an
	// instance sit in unrelated CTAs.
	RolesSplit = "split"
	// RolesEvery: every testing thread plays every role, each for a
	// different instance (role r of the instance whose role 0 sits r·d
	// CTAs earlier, as MC Mutants' parallel testing environment does):
	// the roles of an instance run in different CTAs at the same point of
	// their programs.
	RolesEvery = "every"
)

// Layout values.
const (
	// LayoutSeparate: each location in its own buffer, one slot per
	// stride bytes.
	LayoutSeparate = "separate"
	// LayoutInterleaved: all locations of a slot side by side in one
	// buffer, stride bytes apart (x, y, z of slot s at s·L·stride +
	// l·stride): instances share cache lines, as in cuda-litmus.
	LayoutInterleaved = "interleaved"
)

// Knobs is one testing environment. Every knob is validated (Validate);
// they act only between CTAs of one GPU (runs with the host or other GPUs
// keep their built-in environment).
type Knobs struct {
	// Instances is the most instances per iteration, a power of two; the
	// GPU's co-resident capacity may lower it.
	Instances int `json:"instances"`
	// Block is the threads per CTA, a power of two from 32 to 1024.
	Block int `json:"block"`
	// Roles is RolesSplit or RolesEvery.
	Roles string `json:"roles"`
	// PermuteLanes gives each role its own permutation of the lanes of a
	// CTA (RolesEvery); off, the roles of an instance sit at the same lane
	// of their CTAs, so they reach their accesses at the same time.
	PermuteLanes bool `json:"permute_lanes"`
	// CTAShufflePct is the share of iterations (percent) in which the
	// testing CTAs trade instances by a random permutation (RolesEvery).
	CTAShufflePct int `json:"cta_shuffle_pct"`
	// BarrierSpinPct is the share of iterations in which the testing
	// threads meet at a spin barrier just before their roles (at most 1024
	// polls each, never a hang).
	BarrierSpinPct int `json:"barrier_spin_pct"`
	// PreStressPct is the share of iterations in which each testing thread
	// makes PreStressIterations stores and loads on the stress lines before
	// its roles.
	PreStressPct        int `json:"pre_stress_pct"`
	PreStressIterations int `json:"pre_stress_iterations"`
	// Layout is LayoutSeparate or LayoutInterleaved.
	Layout string `json:"layout"`
	// Stride is the bytes between two slots of a location (LayoutSeparate)
	// or between two locations of a slot (LayoutInterleaved): a multiple of
	// 4 from 4 to 4096.
	Stride int `json:"stride_bytes"`
	// PermuteLocations places each location of an instance by its own
	// permutation of the slots; off, all locations of an instance share
	// one slot number.
	PermuteLocations bool `json:"permute_locations"`
	// Stress fills the rest of the GPU with stress CTAs, which hammer
	// StressLines lines (128 bytes apart) with stores and loads; the
	// stress lines also serve pre-stress.
	Stress      bool `json:"stress"`
	StressLines int  `json:"stress_lines"`
}

// Score is what one environment showed for one mutant in `p2pconf tune`.
type Score struct {
	Test          string  `json:"test"`
	Placement     string  `json:"placement"`
	WeakOutcomes  uint64  `json:"weak_outcomes"`
	Instances     uint64  `json:"instances"`
	WeakPerSecond float64 `json:"weak_outcomes_per_second"`
	// InstancesPerSecond is the mutant's instance rate: the forbidden
	// tests run to an instance target, so it sets their time.
	InstancesPerSecond float64 `json:"instances_per_second"`
}

// File is an environment file.
type File struct {
	Format string `json:"format"`
	// Device names the GPU the environment was tuned on; Made says how
	// (the command line), Scores what it showed there.
	Device string  `json:"device,omitempty"`
	Made   string  `json:"made,omitempty"`
	Env    Knobs   `json:"env"`
	Scores []Score `json:"scores,omitempty"`
}

//go:embed h200.json
var defaultFile []byte

// Default is the committed default environment (made on one H200 with
// `p2pconf tune`), used when P2PCONF_LITMUS_ENV is unset.
func Default() File {
	f, err := Parse(defaultFile)
	if err != nil {
		panic("litmusenv: the committed default h200.json is invalid: " + err.Error())
	}
	return f
}

// Parse reads and validates a file's bytes: unknown fields, a wrong format
// or a knob out of range are errors that name the field.
func Parse(data []byte) (File, error) {
	var f File
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		return f, fmt.Errorf("not a litmus environment file (JSON): %s", jsonComplaint(err))
	}
	if d.More() {
		return f, errors.New("not a litmus environment file: data after the JSON object")
	}
	if f.Format != Format {
		return f, fmt.Errorf("format %q, want %q", f.Format, Format)
	}
	if err := f.Env.Validate(); err != nil {
		return f, err
	}
	return f, nil
}

// Load reads the file at path.
func Load(path string) (File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return File{}, err
	}
	f, err := Parse(data)
	if err != nil {
		return f, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// FromEnv is the file P2PCONF_LITMUS_ENV names, or Default when it is
// unset; a bad file is an error naming the variable, the value and why.
func FromEnv(getenv func(string) string) (File, error) {
	v := strings.TrimSpace(getenv(EnvVar))
	if v == "" {
		return Default(), nil
	}
	data, err := os.ReadFile(v)
	if err != nil {
		return File{}, fmt.Errorf("%s=%q: %w", EnvVar, v, err)
	}
	f, err := Parse(data)
	if err != nil {
		return f, fmt.Errorf("%s=%q: %w (want a file written by p2pconf tune)", EnvVar, v, err)
	}
	return f, nil
}

// Validate checks every knob's range.
func (k Knobs) Validate() error {
	pow2 := func(v int) bool { return v > 0 && bits.OnesCount(uint(v)) == 1 }
	pct := func(name string, v int) error {
		if v < 0 || v > 100 {
			return fmt.Errorf("env.%s=%d: want a percentage from 0 to 100", name, v)
		}
		return nil
	}
	switch {
	case !pow2(k.Instances) || k.Instances < 256 || k.Instances > 1<<20:
		return fmt.Errorf("env.instances=%d: want a power of two from 256 to 1048576", k.Instances)
	case !pow2(k.Block) || k.Block < 32 || k.Block > 1024:
		return fmt.Errorf("env.block=%d: want a power of two from 32 to 1024", k.Block)
	case k.Roles != RolesSplit && k.Roles != RolesEvery:
		return fmt.Errorf("env.roles=%q: want %q or %q", k.Roles, RolesSplit, RolesEvery)
	case k.Layout != LayoutSeparate && k.Layout != LayoutInterleaved:
		return fmt.Errorf("env.layout=%q: want %q or %q", k.Layout, LayoutSeparate, LayoutInterleaved)
	case k.Stride < 4 || k.Stride > 4096 || k.Stride%4 != 0:
		return fmt.Errorf("env.stride_bytes=%d: want a multiple of 4 from 4 to 4096", k.Stride)
	case k.PreStressIterations < 0 || k.PreStressIterations > 1024:
		return fmt.Errorf("env.pre_stress_iterations=%d: want 0 to 1024", k.PreStressIterations)
	case k.StressLines < 1 || k.StressLines > 1<<16:
		return fmt.Errorf("env.stress_lines=%d: want 1 to 65536", k.StressLines)
	}
	for _, p := range []struct {
		name string
		v    int
	}{{"cta_shuffle_pct", k.CTAShufflePct}, {"barrier_spin_pct", k.BarrierSpinPct}, {"pre_stress_pct", k.PreStressPct}} {
		if err := pct(p.name, p.v); err != nil {
			return err
		}
	}
	return nil
}

// String is the knobs in one line, for reports and progress.
func (k Knobs) String() string {
	return fmt.Sprintf("%d instances, block %d, roles %s (lanes permuted %t), CTA shuffle %d%%, barrier spin %d%%, pre-stress %d%%×%d, layout %s stride %d B (locations permuted %t), stress %t on %d lines",
		k.Instances, k.Block, k.Roles, k.PermuteLanes, k.CTAShufflePct, k.BarrierSpinPct, k.PreStressPct, k.PreStressIterations,
		k.Layout, k.Stride, k.PermuteLocations, k.Stress, k.StressLines)
}

// Map is the knobs as a report finding.
func (k Knobs) Map() map[string]any {
	var m map[string]any
	b, _ := json.Marshal(k)
	_ = json.Unmarshal(b, &m)
	return m
}

// Random draws an environment from the space `p2pconf tune` searches (the
// ranges of cuda-litmus's random_config where they apply to a persistent
// kernel; instances and blocks within one GPU's co-resident capacity).
func Random(r *rand.Rand) Knobs {
	pick := func(v ...int) int { return v[r.IntN(len(v))] }
	k := Knobs{
		Instances:           1 << (14 + r.IntN(5)), // 16 Ki .. 256 Ki
		Block:               pick(64, 128, 256, 512, 1024),
		Roles:               []string{RolesSplit, RolesEvery, RolesEvery, RolesEvery}[r.IntN(4)],
		PermuteLanes:        r.IntN(2) == 0,
		CTAShufflePct:       r.IntN(101),
		BarrierSpinPct:      r.IntN(101),
		PreStressPct:        r.IntN(101),
		PreStressIterations: r.IntN(129),
		Layout:              []string{LayoutSeparate, LayoutInterleaved}[r.IntN(2)],
		PermuteLocations:    r.IntN(2) == 0,
		Stress:              r.IntN(3) == 0,
		StressLines:         1 + r.IntN(16),
	}
	k.Stride = 4 * (1 + r.IntN(8))
	if k.Layout == LayoutSeparate && r.IntN(2) == 0 {
		k.Stride = 128
	}
	return k
}

// Marshal renders a file, indented, with a final newline.
func (f File) Marshal() ([]byte, error) {
	f.Format = Format
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// jsonComplaint says what encoding/json found wrong in the reader's words:
// a value of the wrong kind names the field and the kinds, never a Go type
// (encoding/json would say "Go value of type litmusenv.File").
func jsonComplaint(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return strings.TrimPrefix(err.Error(), "json: ")
	}
	where := "the file"
	if te.Field != "" {
		where = "field " + te.Field
	}
	return fmt.Sprintf("%s holds a JSON %s where %s is wanted", where, te.Value, jsonKind(te.Type))
}

// jsonKind is the JSON kind a Go type is read from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "another value"
}
