// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package kubernetes

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/p2pconf/p2pconf/harness/preflight"
)

const (
	stateDir    = "/var/lib/p2pconf"
	featuresDir = "/etc/kubernetes/node-feature-discovery/features.d"
	textfileDir = "/var/lib/node_exporter/textfile"
	npdConfig   = "npd/p2pconf-monitor.json"
)

// npdMonitor is Node Problem Detector's custom plugin monitor config, the
// fields its documentation lists (decoded strictly: a misspelt key fails).
type npdMonitor struct {
	Plugin       string `json:"plugin"`
	PluginConfig struct {
		InvokeInterval     string `json:"invoke_interval"`
		Timeout            string `json:"timeout"`
		MaxOutputLength    int    `json:"max_output_length"`
		Concurrency        int    `json:"concurrency"`
		MessageChangeBased bool   `json:"enable_message_change_based_condition_update"`
	} `json:"pluginConfig"`
	Source           string `json:"source"`
	MetricsReporting bool   `json:"metricsReporting"`
	Conditions       []struct {
		Type    string `json:"type"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	} `json:"conditions"`
	Rules []struct {
		Type      string   `json:"type"`
		Condition string   `json:"condition"`
		Reason    string   `json:"reason"`
		Path      string   `json:"path"`
		Args      []string `json:"args"`
		Timeout   string   `json:"timeout"`
	} `json:"rules"`
}

func loadNPD(t *testing.T) npdMonitor {
	t.Helper()
	data, err := os.ReadFile(npdConfig)
	if err != nil {
		t.Fatal(err)
	}
	var m npdMonitor
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%s: %v", npdConfig, err)
	}
	return m
}

func TestPreflightDaemonSet(t *testing.T) {
	m := load(t, nil)
	d := m.daemonSets["p2pconf-preflight"]
	if d == nil {
		t.Fatal("no DaemonSet p2pconf-preflight (preflight-daemonset.yaml)")
	}
	p := d.Spec.Template.Spec
	if got := p.NodeSelector["nvidia.com/gpu.present"]; got != "true" {
		t.Errorf("nodeSelector nvidia.com/gpu.present=%q, want true (GPU nodes only)", got)
	}
	if len(p.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(p.Containers))
	}
	c := p.Containers[0]
	for _, r := range []corev1.ResourceList{c.Resources.Requests, c.Resources.Limits} {
		if _, ok := r[gpuResource]; ok {
			t.Errorf("the preflight pod asks for %s: it would hold the node's GPUs from every job while it lives", gpuResource)
		}
	}
	if envValue(c, "NVIDIA_VISIBLE_DEVICES") != "all" || p.RuntimeClassName == nil || *p.RuntimeClassName != "nvidia" {
		t.Errorf("the pod must see the GPUs through the NVIDIA runtime (runtimeClassName nvidia, NVIDIA_VISIBLE_DEVICES=all)")
	}
	if e := envVar(c, "P2PCONF_HOST"); e == nil || e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != "spec.nodeName" {
		t.Errorf("P2PCONF_HOST must come from spec.nodeName (the report's host and the metrics' Hostname)")
	}
	if sc := c.SecurityContext; sc == nil || sc.Privileged == nil || *sc.Privileged || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
		t.Errorf("container security context %+v: want unprivileged, no escalation, every capability dropped", c.SecurityContext)
	}
	script := strings.Join(c.Args, " ")
	for _, want := range []string{"preflight --verdict " + stateDir + "/verdict.json", "--textfile " + textfileDir,
		"--features " + featuresDir + "/p2pconf", "--features-expiry", "timeout", stateDir + "/bin/p2pconf"} {
		if !strings.Contains(script, want) {
			t.Errorf("the pod's script lacks %q:\n%s", want, script)
		}
	}
	hostPaths := map[string]string{}
	for _, v := range p.Volumes {
		if v.HostPath != nil {
			hostPaths[v.Name] = v.HostPath.Path
		}
	}
	for _, dir := range []string{stateDir, featuresDir, textfileDir} {
		ok := false
		for _, vm := range c.VolumeMounts {
			if vm.MountPath == dir && hostPaths[vm.Name] == dir && !vm.ReadOnly {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%s is not a writable mount of the host's %s", dir, dir)
		}
	}
	// The NPD plugin reads what this pod writes, with the binary it copies.
	npd := loadNPD(t)
	if len(npd.Rules) != 1 || !strings.HasPrefix(npd.Rules[0].Path, stateDir+"/bin/") {
		t.Fatalf("NPD rule path %+v: want the binary the DaemonSet copies into %s/bin", npd.Rules, stateDir)
	}
	if got := npd.Rules[0].Args[len(npd.Rules[0].Args)-1]; got != stateDir+"/verdict.json" {
		t.Errorf("the NPD plugin reads %s, the DaemonSet writes %s/verdict.json", got, stateDir)
	}
}

func TestNPDMonitor(t *testing.T) {
	m := loadNPD(t)
	if m.Plugin != "custom" || len(m.Conditions) != 1 || m.Conditions[0].Type != "P2PConformance" {
		t.Fatalf("want a custom plugin with the P2PConformance condition, got %+v", m)
	}
	r := m.Rules[0]
	if r.Type != "permanent" || r.Condition != "P2PConformance" || r.Reason == "" || r.Reason == m.Conditions[0].Reason {
		t.Fatalf("rule %+v: want a permanent rule on P2PConformance with a reason of its own", r)
	}
	if len(r.Args) < 3 || r.Args[0] != "preflight" || r.Args[1] != "status" {
		t.Fatalf("rule args %v: want preflight status ...", r.Args)
	}
	for _, d := range []string{m.PluginConfig.InvokeInterval, m.PluginConfig.Timeout, r.Timeout} {
		if _, err := time.ParseDuration(d); err != nil {
			t.Fatalf("duration %q: %v", d, err)
		}
	}
	if m.PluginConfig.MaxOutputLength < 80 {
		t.Fatalf("max_output_length %d cuts the status line too short", m.PluginConfig.MaxOutputLength)
	}
}

// TestNPDPluginExitCodes runs the plugin command of the monitor config (its
// args, with the verdict path pointed at test files) on verdicts of each
// kind: 0 OK, 1 problem, 2 unknown, and one short line on stdout each time.
func TestNPDPluginExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds p2pconf")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "p2pconf")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/p2pconf")
	build.Env = append(os.Environ(), "CGO_CFLAGS=-Wno-deprecated-declarations")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building p2pconf: %v\n%s", err, out)
	}
	m := loadNPD(t)
	args := append([]string(nil), m.Rules[0].Args...)
	now := time.Now().UTC()
	old := now.Add(-8 * time.Hour)
	verdict := func(name string, s preflight.Status, end time.Time, first *preflight.Problem) string {
		p := filepath.Join(tmp, name, preflight.VerdictFile)
		v := preflight.Verdict{Schema: preflight.Schema, Verdict: s, End: &end, First: first, Summary: string(s) + ": test verdict"}
		if err := preflight.Write(p, v); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fail := &preflight.Problem{Target: "0-1", Check: "access.kernel-remote-write", Status: preflight.Fail}
	for _, tc := range []struct {
		name, path, line string
		code             int
	}{
		{"pass", verdict("pass", preflight.Pass, now, nil), "p2pconf PASS", 0},
		{"warn", verdict("warn", preflight.Warn, now, nil), "p2pconf WARN", 0},
		{"fail", verdict("fail", preflight.Fail, now, fail), "p2pconf FAIL", 1},
		{"unknown", verdict("unknown", preflight.Unknown, now, nil), "p2pconf UNKNOWN", 2},
		{"stale pass", verdict("stale", preflight.Pass, old, nil), "p2pconf UNKNOWN: the last verdict (PASS)", 2},
		{"no verdict", filepath.Join(tmp, "none", preflight.VerdictFile), "p2pconf UNKNOWN: no verdict", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := append(append([]string(nil), args[:len(args)-1]...), tc.path)
			cmd := exec.Command(bin, a...)
			var out bytes.Buffer
			cmd.Stdout = &out
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			line := out.String()
			if code != tc.code || !strings.HasPrefix(line, tc.line) || strings.Count(line, "\n") != 1 || len(line) > m.PluginConfig.MaxOutputLength {
				t.Fatalf("exit %d, stdout %q; want exit %d and one line starting %q within %d characters", code, line, tc.code, tc.line, m.PluginConfig.MaxOutputLength)
			}
		})
	}
}
