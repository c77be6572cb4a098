// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmusenv

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefaultIsValid(t *testing.T) {
	f := Default()
	if f.Format != Format || f.Env.Validate() != nil {
		t.Fatalf("committed default: format %q, %v", f.Format, f.Env.Validate())
	}
}

func TestParseRejects(t *testing.T) {
	good, err := Default().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ text, want string }{
		"not JSON":      {"instances=4", "not a litmus environment file"},
		"unknown field": {strings.Replace(string(good), `"block"`, `"blocks"`, 1), `unknown field "blocks"`},
		"format":        {strings.Replace(string(good), Format, "other/1", 1), `format "other/1"`},
		"block":         {strings.Replace(string(good), `"block": 256`, `"block": 100`, 1), "env.block=100"},
		"roles":         {strings.Replace(string(good), `"roles": "every"`, `"roles": "all"`, 1), `env.roles="all"`},
		"two objects":   {string(good) + "{}", "data after the JSON object"},
		"array":         {"[1,2]", "the file holds a JSON array where an object is wanted"},
		"field kind":    {strings.Replace(string(good), `"block": 256`, `"block": "256"`, 1), "field env.block holds a JSON string where a whole number is wanted"},
	} {
		_, err := Parse([]byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to say %q", name, err, c.want)
		}
		// The reader's words, not the program's: no Go type or package.
		if err != nil && (strings.Contains(err.Error(), "Go ") || strings.Contains(err.Error(), "litmusenv.")) {
			t.Errorf("%s: error %q names a Go type", name, err)
		}
	}
}

func TestKnobRanges(t *testing.T) {
	base := Default().Env
	for name, mut := range map[string]func(*Knobs){
		"instances": func(k *Knobs) { k.Instances = 1000 },
		"stride":    func(k *Knobs) { k.Stride = 6 },
		"layout":    func(k *Knobs) { k.Layout = "dense" },
		"shuffle":   func(k *Knobs) { k.CTAShufflePct = 101 },
		"spin":      func(k *Knobs) { k.BarrierSpinPct = -1 },
		"pre":       func(k *Knobs) { k.PreStressIterations = 5000 },
		"lines":     func(k *Knobs) { k.StressLines = 0 },
	} {
		k := base
		mut(&k)
		if k.Validate() == nil {
			t.Errorf("%s: %s passed validation", name, k)
		}
	}
}

func TestRandomIsValid(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	roles := map[string]int{}
	for i := 0; i < 500; i++ {
		k := Random(r)
		if err := k.Validate(); err != nil {
			t.Fatalf("random environment %d: %v", i, err)
		}
		roles[k.Roles]++
	}
	if roles[RolesEvery] == 0 || roles[RolesSplit] == 0 {
		t.Errorf("the random environments never vary the roles: %v", roles)
	}
}

func TestFromEnv(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "env.json")
	k := Default().Env
	k.Block = 512
	data, _ := File{Env: k}.Marshal()
	if err := os.WriteFile(good, data, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"format": "p2pconf-litmus-env/1"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	get := func(v string) func(string) string { return func(string) string { return v } }
	if f, err := FromEnv(get("")); err != nil || f.Env != Default().Env {
		t.Errorf("unset: %v, %+v", err, f.Env)
	}
	if f, err := FromEnv(get(good)); err != nil || f.Env.Block != 512 {
		t.Errorf("a good file: %v, block %d", err, f.Env.Block)
	}
	for _, v := range []string{bad, filepath.Join(dir, "missing.json")} {
		if _, err := FromEnv(get(v)); err == nil || !strings.HasPrefix(err.Error(), EnvVar+"=") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line naming %s", v, err, EnvVar)
		}
	}
}
