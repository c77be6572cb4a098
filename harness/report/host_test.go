// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFillHostDefaultsHostOverride(t *testing.T) {
	machine, err := os.Hostname()
	if err != nil {
		t.Skipf("no host name on this machine: %v", err)
	}
	for _, tc := range []struct {
		name, env, harness, want string
	}{
		{"unset keeps the harness's host", "", "node7", "node7"},
		{"unset and empty takes the machine's", "", "", machine},
		{"set replaces the harness's host", "sim2", "node7", "sim2"},
		{"set fills an empty host", "gpu-node-3", "", "gpu-node-3"},
		{"blank is ignored", "  ", "node7", "node7"},
		{"surrounding blanks are trimmed", " sim3\n", "node7", "sim3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvHost, tc.env)
			sys := System{Host: tc.harness}
			FillHostDefaults(&sys)
			if sys.Host != tc.want {
				t.Errorf("%s=%q, harness host %q: host %q, want %q", EnvHost, tc.env, tc.harness, sys.Host, tc.want)
			}
		})
	}
}

// Several simulated hosts on one machine (the Slurm test) must come out as
// several hosts of a fleet: WriteRun records the override everywhere a
// host appears.
func TestWriteRunRecordsHostOverride(t *testing.T) {
	t.Setenv(EnvHost, "sim2")
	dir := writeFixtureRun(t, "testdata/fake2")
	docs, err := LoadInput(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.System.Host != "sim2" || d.Run.Host != "sim2" {
			t.Errorf("suite %v: system host %q, run host %q, want sim2", d.Suites, d.System.Host, d.Run.Host)
		}
	}
	merged := readFile(t, filepath.Join(dir, ConformanceFile))
	if !strings.Contains(merged, `"host": "sim2"`) {
		t.Errorf("%s does not record host sim2", ConformanceFile)
	}
	if junit := readFile(t, filepath.Join(dir, JUnitFile)); !strings.Contains(junit, "] sim2\"") {
		t.Errorf("%s: no suite named for host sim2", JUnitFile)
	}
}

// fleetDoc is one host's document with one pair check per given status.
func fleetDoc(host string, statuses ...string) Document {
	d := Document{SchemaVersion: SchemaVersion, System: System{Backend: "fake:h200x2", Host: host}}
	for i, st := range statuses {
		src, dst := i%2, 1-i%2
		r := Result{Check: "access.kernel-remote-write", Family: "access", Kind: "conf", Target: "pair",
			Src: &src, Dst: &dst, Status: st, Labels: []string{"id:access.kernel-remote-write"}}
		if st == StatusFail {
			r.Reason = "0 of 16 words arrived on GPU1"
		}
		d.Results = append(d.Results, r)
	}
	d.Summary = Summarize(d.Results)
	return d
}

// The fleet view lists a failing host first in the host table and in every
// family's hosts × targets grid, whatever its name, and gives the rerun
// command for that host beside each of its failures.
func TestFleetFailingHostFirst(t *testing.T) {
	docs := []Document{
		fleetDoc("sim1", StatusPass, StatusPass),
		fleetDoc("sim2", StatusPass, StatusPass),
		fleetDoc("sim3", StatusFail, StatusPass),
	}
	docs[2].System.Backend = "fake:h200x2+peer-store-dropped"
	out := t.TempDir()
	if err := WriteFleet(out, ByHost(docs)); err != nil {
		t.Fatal(err)
	}
	md := readFile(t, filepath.Join(out, FleetMDFile))
	section := md[strings.Index(md, "## access"):]
	var rows []string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "| sim") {
			rows = append(rows, strings.Fields(line)[1])
		}
	}
	if strings.Join(rows, " ") != "sim3 sim1 sim2" {
		t.Errorf("access grid rows %v, want the failing sim3 first:\n%s", rows, section)
	}
	var table []string
	for _, line := range strings.Split(md[:strings.Index(md, "## access")], "\n") {
		if strings.HasPrefix(line, "| sim") {
			table = append(table, strings.Fields(line)[1])
		}
	}
	if strings.Join(table, " ") != "sim3 sim1 sim2" {
		t.Errorf("host table %v, want the failing sim3 first:\n%s", table, md)
	}
	rerun := "rerun on sim3: `P2PCONF_BACKEND=fake P2PCONF_FAKE=h200x2 P2PCONF_FAKE_DEFECTS=peer-store-dropped P2PCONF_PAIRS=0-1 go tool ginkgo --label-filter='id:access.kernel-remote-write && pair:0-1' ./suites/access`"
	if !strings.Contains(section, rerun) {
		t.Errorf("fleet.md lacks %q:\n%s", rerun, section)
	}
	if n := strings.Count(section, "rerun on "); n != 1 {
		t.Errorf("fleet.md has %d rerun commands, want 1 (only sim3 failed):\n%s", n, section)
	}
	html := readFile(t, filepath.Join(out, FleetHTMLFile))
	grid := html[strings.Index(html, `data-grid="fleet-access"`):]
	if first := strings.Index(grid, `<tr class="host-row"><th>`); first < 0 || !strings.HasPrefix(grid[first+len(`<tr class="host-row"><th>`):], "sim3<") {
		t.Errorf("fleet.html: the access grid does not start with sim3:\n%s", grid)
	}
}
