// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package kubernetes holds the manifests of a p2pconf fleet run on
// Kubernetes; its test decodes them into the Kubernetes API types (strictly:
// a misspelt field fails) and checks the fields the run depends on. No
// cluster is needed.
package kubernetes

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

const (
	gpuResource = corev1.ResourceName("nvidia.com/gpu")
	bundleDir   = "/opt/p2pconf"
	mergeScript = "/opt/p2pconf-deploy/p2pconf.sbatch"
	reportsPath = "/reports"
)

// manifests are the objects of every *.yaml in this folder, by kind and name.
type manifests struct {
	jobs map[string]*batchv1.Job
	pvcs map[string]*corev1.PersistentVolumeClaim
	pods map[string]*corev1.Pod
	// daemonSets holds preflight-daemonset.yaml's DaemonSet.
	daemonSets map[string]*appsv1.DaemonSet
}

// decode reads one or more YAML documents into the API types, refusing
// unknown kinds and unknown fields.
func decode(t *testing.T, name string, data []byte, into *manifests) {
	t.Helper()
	for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
		if strings.TrimSpace(regexp.MustCompile(`(?m)^\s*#.*$`).ReplaceAllString(doc, "")) == "" {
			continue
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			t.Fatalf("%s document %d: %v", name, i, err)
		}
		switch tm.APIVersion + " " + tm.Kind {
		case "batch/v1 Job":
			var j batchv1.Job
			if err := yaml.UnmarshalStrict([]byte(doc), &j); err != nil {
				t.Fatalf("%s document %d (Job): %v", name, i, err)
			}
			into.jobs[j.Name] = &j
		case "v1 PersistentVolumeClaim":
			var c corev1.PersistentVolumeClaim
			if err := yaml.UnmarshalStrict([]byte(doc), &c); err != nil {
				t.Fatalf("%s document %d (PersistentVolumeClaim): %v", name, i, err)
			}
			into.pvcs[c.Name] = &c
		case "v1 Pod":
			var p corev1.Pod
			if err := yaml.UnmarshalStrict([]byte(doc), &p); err != nil {
				t.Fatalf("%s document %d (Pod): %v", name, i, err)
			}
			into.pods[p.Name] = &p
		case "apps/v1 DaemonSet":
			var d appsv1.DaemonSet
			if err := yaml.UnmarshalStrict([]byte(doc), &d); err != nil {
				t.Fatalf("%s document %d (DaemonSet): %v", name, i, err)
			}
			into.daemonSets[d.Name] = &d
		default:
			t.Fatalf("%s document %d: unexpected %q %q (the test knows Job, PersistentVolumeClaim, Pod and DaemonSet)", name, i, tm.APIVersion, tm.Kind)
		}
	}
}

// load decodes every manifest of the folder, each through render(file)
// when render is given.
func load(t *testing.T, render func(file string) []byte) manifests {
	t.Helper()
	m := manifests{jobs: map[string]*batchv1.Job{}, pvcs: map[string]*corev1.PersistentVolumeClaim{}, pods: map[string]*corev1.Pod{},
		daemonSets: map[string]*appsv1.DaemonSet{}}
	files, _ := filepath.Glob("*.yaml")
	if len(files) == 0 {
		t.Fatal("no manifests (*.yaml) in deploy/kubernetes")
	}
	for _, f := range files {
		var data []byte
		if render != nil {
			data = render(f)
		} else {
			var err error
			if data, err = os.ReadFile(f); err != nil {
				t.Fatal(err)
			}
		}
		decode(t, f, data, &m)
	}
	for _, name := range []string{"p2pconf-nodes", "p2pconf-merge"} {
		if m.jobs[name] == nil {
			t.Fatalf("no Job %s in %v", name, files)
		}
	}
	return m
}

func TestManifests(t *testing.T) {
	m := load(t, nil)
	checkNodeJob(t, m, m.jobs["p2pconf-nodes"], 2, 8)
	checkMergeJob(t, m, m.jobs["p2pconf-merge"], m.jobs["p2pconf-nodes"])
	checkFetchPod(t, m, m.pods["p2pconf-fetch"], m.jobs["p2pconf-merge"])
	for name, c := range m.pvcs {
		if !slices.Contains(c.Spec.AccessModes, corev1.ReadWriteMany) {
			t.Errorf("PersistentVolumeClaim %s: access modes %v; pods on every GPU node mount it at once, so it needs ReadWriteMany", name, c.Spec.AccessModes)
		}
	}
}

// TestRender runs render.sh as the README does and checks that what it
// fills in arrives in the objects.
func TestRender(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash")
	}
	env := append(os.Environ(), "P2PCONF_IMAGE=registry.example.org/gpu/p2pconf:v0.1.0", "P2PCONF_RUN=20260301T100000Z",
		"P2PCONF_NODES=5", "P2PCONF_GPUS_PER_NODE=4", "BASELINE=/reports/20260201T100000Z/fleet")
	m := load(t, func(file string) []byte {
		cmd := exec.Command("bash", "render.sh", file)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("render.sh %s: %v\n%s", file, err, stderr.String())
		}
		return out
	})
	nodes, merge := m.jobs["p2pconf-nodes"], m.jobs["p2pconf-merge"]
	checkNodeJob(t, m, nodes, 5, 4)
	checkMergeJob(t, m, merge, nodes)
	for _, j := range []*batchv1.Job{nodes, merge} {
		c := j.Spec.Template.Spec.Containers[0]
		if c.Image != "registry.example.org/gpu/p2pconf:v0.1.0" {
			t.Errorf("Job %s: image %q after render.sh", j.Name, c.Image)
		}
		if v := envValue(c, "P2PCONF_RUN"); v != "20260301T100000Z" {
			t.Errorf("Job %s: P2PCONF_RUN %q after render.sh", j.Name, v)
		}
	}
	mc := merge.Spec.Template.Spec.Containers[0]
	if v := envValue(mc, "BASELINE"); v != "/reports/20260201T100000Z/fleet" {
		t.Errorf("merge Job: BASELINE %q after render.sh", v)
	}
	if v := envValue(mc, "P2PCONF_EXPECT_HOSTS"); v != "5" {
		t.Errorf("merge Job: P2PCONF_EXPECT_HOSTS %q after render.sh, want the 5 nodes", v)
	}
	// Values it cannot put into YAML safely are refused.
	for _, bad := range []string{"P2PCONF_RUN=a b", "BASELINE=/x|y", "P2PCONF_NODES=0", "P2PCONF_IMAGE=img&x"} {
		cmd := exec.Command("bash", "render.sh", "job.yaml")
		cmd.Env = append(append([]string{}, env...), bad)
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Errorf("render.sh with %s succeeded:\n%s", bad, out)
		}
	}
}

func checkNodeJob(t *testing.T, m manifests, j *batchv1.Job, nodes int32, gpus int64) {
	t.Helper()
	s := j.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("node Job: completionMode %q, want Indexed", ptrString(s.CompletionMode))
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != nodes || *s.Parallelism != nodes {
		t.Errorf("node Job: completions %v, parallelism %v, want both %d (one pod per GPU node, all at once)", deref(s.Completions), deref(s.Parallelism), nodes)
	}
	if s.BackoffLimitPerIndex == nil || *s.BackoffLimitPerIndex != 0 {
		t.Errorf("node Job: backoffLimitPerIndex %v, want 0 (a node's verdict is not rerun)", deref(s.BackoffLimitPerIndex))
	}
	checkFailurePolicy(t, s.PodFailurePolicy)
	if s.ActiveDeadlineSeconds == nil || *s.ActiveDeadlineSeconds <= 0 {
		t.Error("node Job: no activeDeadlineSeconds; the run must be bounded")
	}
	p := s.Template.Spec
	if p.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("node Job: restartPolicy %q, want Never (podFailurePolicy needs it)", p.RestartPolicy)
	}
	if p.NodeSelector["nvidia.com/gpu.present"] != "true" {
		t.Errorf("node Job: nodeSelector %v, want nvidia.com/gpu.present=true", p.NodeSelector)
	}
	// GPU node pools taint nvidia.com/gpu with any value (GKE: present,
	// others: true) and NoSchedule.
	gpuTaint := func(tol corev1.Toleration) bool {
		return tol.Key == "nvidia.com/gpu" && tol.Operator == corev1.TolerationOpExists &&
			(tol.Effect == "" || tol.Effect == corev1.TaintEffectNoSchedule)
	}
	if !slices.ContainsFunc(p.Tolerations, gpuTaint) {
		t.Errorf("node Job: tolerations %+v do not tolerate nvidia.com/gpu:NoSchedule whatever its value", p.Tolerations)
	}
	checkOnePerNode(t, j)
	checkPodSecurity(t, "node Job", p)
	if len(p.Containers) != 1 || len(p.InitContainers) != 0 {
		t.Fatalf("node Job: %d containers, %d init containers; want one container", len(p.Containers), len(p.InitContainers))
	}
	c := p.Containers[0]
	if got := strings.Join(c.Command, " "); got != bundleDir+"/run.sh" {
		t.Errorf("node Job: command %q, want the bundle's %s/run.sh", got, bundleDir)
	}
	want := *resource.NewQuantity(gpus, resource.DecimalSI)
	req, lim := c.Resources.Requests[gpuResource], c.Resources.Limits[gpuResource]
	if req.Cmp(want) != 0 || lim.Cmp(want) != 0 {
		t.Errorf("node Job: %s request %s, limit %s; want both %s (all GPUs of the node)", gpuResource, req.String(), lim.String(), want.String())
	}
	host := envVar(c, "P2PCONF_HOST")
	if host == nil || host.ValueFrom == nil || host.ValueFrom.FieldRef == nil || host.ValueFrom.FieldRef.FieldPath != "spec.nodeName" {
		t.Errorf("node Job: P2PCONF_HOST %+v, want the downward API's spec.nodeName (a pod's host name is the pod's)", host)
	}
	if v := envValue(c, "P2PCONF_REPORT_DIR"); v != reportsPath+"/$(P2PCONF_RUN)/$(P2PCONF_HOST)" {
		t.Errorf("node Job: P2PCONF_REPORT_DIR %q, want %s/$(P2PCONF_RUN)/$(P2PCONF_HOST)", v, reportsPath)
	}
	checkExpansionOrder(t, "node Job", c)
	checkMounts(t, m, "node Job", p, c)
	if v := envValue(c, "TMPDIR"); v != "/tmp" || !mounted(c, "/tmp") {
		t.Errorf("node Job: TMPDIR %q; helpers need a writable TMPDIR on a volume (the root file system is read-only)", v)
	}
}

// checkFailurePolicy: evictions retry, failed checks end their index only,
// usage errors end the Job.
func checkFailurePolicy(t *testing.T, pfp *batchv1.PodFailurePolicy) {
	t.Helper()
	if pfp == nil {
		t.Error("node Job: no podFailurePolicy")
		return
	}
	var disruption, exit1, exit2 batchv1.PodFailurePolicyAction
	for _, r := range pfp.Rules {
		for _, c := range r.OnPodConditions {
			if c.Type == corev1.DisruptionTarget {
				disruption = r.Action
			}
		}
		if e := r.OnExitCodes; e != nil && e.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn {
			if e.ContainerName == nil || *e.ContainerName != "p2pconf" {
				t.Errorf("node Job: exit-code rule %v names container %v, want p2pconf", r.Action, e.ContainerName)
			}
			if slices.Contains(e.Values, 1) {
				exit1 = r.Action
			}
			if slices.Contains(e.Values, 2) {
				exit2 = r.Action
			}
		}
	}
	if disruption != batchv1.PodFailurePolicyActionIgnore || exit1 != batchv1.PodFailurePolicyActionFailIndex || exit2 != batchv1.PodFailurePolicyActionFailJob {
		t.Errorf("node Job: disruption → %q, exit 1 → %q, exit 2 → %q; want Ignore, FailIndex, FailJob", disruption, exit1, exit2)
	}
}

// checkOnePerNode: the anti-affinity and the spread select the Job's own
// pods per host name, so no node runs two.
func checkOnePerNode(t *testing.T, j *batchv1.Job) {
	t.Helper()
	p := j.Spec.Template.Spec
	own := labels.Set(j.Spec.Template.Labels)
	matchesOwn := func(sel *metav1.LabelSelector) bool {
		s, err := metav1.LabelSelectorAsSelector(sel)
		return err == nil && sel != nil && !s.Empty() && s.Matches(own)
	}
	var anti bool
	if p.Affinity != nil && p.Affinity.PodAntiAffinity != nil {
		for _, term := range p.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			anti = anti || (term.TopologyKey == corev1.LabelHostname && matchesOwn(term.LabelSelector))
		}
	}
	if !anti {
		t.Errorf("node Job: no required pod anti-affinity on %s selecting the Job's own pods (labels %v)", corev1.LabelHostname, own)
	}
	var spread bool
	for _, c := range p.TopologySpreadConstraints {
		spread = spread || (c.TopologyKey == corev1.LabelHostname && c.MaxSkew == 1 &&
			c.WhenUnsatisfiable == corev1.DoNotSchedule && matchesOwn(c.LabelSelector))
	}
	if !spread {
		t.Errorf("node Job: no topology spread (maxSkew 1, %s, DoNotSchedule) over the Job's own pods", corev1.LabelHostname)
	}
}

// checkPodSecurity: no host namespaces (README.md and the manifest say why
// the IPC and VMM checks need none), non-root, no privilege.
func checkPodSecurity(t *testing.T, what string, p corev1.PodSpec) {
	t.Helper()
	if p.HostIPC || p.HostPID || p.HostNetwork {
		t.Errorf("%s: hostIPC %v, hostPID %v, hostNetwork %v; the helpers are children in one container and need none", what, p.HostIPC, p.HostPID, p.HostNetwork)
	}
	if p.AutomountServiceAccountToken == nil || *p.AutomountServiceAccountToken {
		t.Errorf("%s: the pod mounts a service account token it does not use", what)
	}
	sc := p.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
		t.Errorf("%s: pod securityContext %+v does not run as a non-root user", what, sc)
	}
	if sc == nil || sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("%s: no RuntimeDefault seccomp profile", what)
	}
	for _, c := range p.Containers {
		cs := c.SecurityContext
		switch {
		case cs == nil:
			t.Errorf("%s: container %s has no securityContext", what, c.Name)
		case cs.Privileged != nil && *cs.Privileged:
			t.Errorf("%s: container %s is privileged", what, c.Name)
		case cs.AllowPrivilegeEscalation == nil || *cs.AllowPrivilegeEscalation:
			t.Errorf("%s: container %s allows privilege escalation", what, c.Name)
		case cs.ReadOnlyRootFilesystem == nil || !*cs.ReadOnlyRootFilesystem:
			t.Errorf("%s: container %s has a writable root file system", what, c.Name)
		case cs.Capabilities == nil || !slices.Contains(cs.Capabilities.Drop, "ALL") || len(cs.Capabilities.Add) > 0:
			t.Errorf("%s: container %s capabilities %+v, want drop ALL and add none", what, c.Name, cs.Capabilities)
		}
	}
}

// checkMounts: /reports is the shared claim, declared in pvc.yaml.
func checkMounts(t *testing.T, m manifests, what string, p corev1.PodSpec, c corev1.Container) {
	t.Helper()
	var claim string
	for _, vm := range c.VolumeMounts {
		if vm.MountPath != reportsPath {
			continue
		}
		for _, v := range p.Volumes {
			if v.Name == vm.Name && v.PersistentVolumeClaim != nil && !vm.ReadOnly {
				claim = v.PersistentVolumeClaim.ClaimName
			}
		}
	}
	if claim == "" {
		t.Errorf("%s: %s is not a writable mount of a PersistentVolumeClaim", what, reportsPath)
	} else if m.pvcs[claim] == nil {
		t.Errorf("%s: claim %s is not among the manifests (pvc.yaml)", what, claim)
	}
	for _, vm := range c.VolumeMounts {
		if !slices.ContainsFunc(p.Volumes, func(v corev1.Volume) bool { return v.Name == vm.Name }) {
			t.Errorf("%s: mount %s names no volume %s", what, vm.MountPath, vm.Name)
		}
	}
}

// checkExpansionOrder: Kubernetes expands $(VAR) only for variables defined
// earlier in the list.
func checkExpansionOrder(t *testing.T, what string, c corev1.Container) {
	t.Helper()
	ref := regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
	for i, e := range c.Env {
		for _, m := range ref.FindAllStringSubmatch(e.Value, -1) {
			if !slices.ContainsFunc(c.Env[:i], func(d corev1.EnvVar) bool { return d.Name == m[1] }) {
				t.Errorf("%s: %s uses $(%s), which is not defined before it", what, e.Name, m[1])
			}
		}
	}
}

func checkMergeJob(t *testing.T, m manifests, j, nodes *batchv1.Job) {
	t.Helper()
	p := j.Spec.Template.Spec
	checkPodSecurity(t, "merge Job", p)
	if len(p.Containers) != 1 {
		t.Fatalf("merge Job: %d containers, want one", len(p.Containers))
	}
	c := p.Containers[0]
	if got := strings.Join(c.Command, " "); got != "/bin/bash "+mergeScript+" merge" {
		t.Errorf("merge Job: command %q, want the merge mode of %s", got, mergeScript)
	}
	for _, list := range []corev1.ResourceList{c.Resources.Requests, c.Resources.Limits} {
		if _, ok := list[gpuResource]; ok {
			t.Errorf("merge Job: asks for %s; merging needs no GPU", gpuResource)
		}
	}
	if j.Spec.ActiveDeadlineSeconds == nil || *j.Spec.ActiveDeadlineSeconds <= 0 {
		t.Error("merge Job: no activeDeadlineSeconds")
	}
	nc := nodes.Spec.Template.Spec.Containers[0]
	for name, want := range map[string]string{
		"P2PCONF_RUN":          envValue(nc, "P2PCONF_RUN"),
		"P2PCONF_REPORTS":      reportsPath,
		"P2PCONF_BUNDLE":       bundleDir,
		"P2PCONF_EXPECT_HOSTS": strconv.Itoa(int(deref(nodes.Spec.Completions))),
	} {
		if got := envValue(c, name); got != want {
			t.Errorf("merge Job: %s %q, want %q", name, got, want)
		}
	}
	if envVar(c, "BASELINE") == nil {
		t.Error("merge Job: no BASELINE variable to set")
	}
	if c.Image != nc.Image {
		t.Errorf("merge Job: image %q, node Job %q; both come from one Containerfile", c.Image, nc.Image)
	}
	checkMounts(t, m, "merge Job", p, c)
}

// checkFetchPod: the pod the README copies the fleet view off with kubectl
// cp mounts the merge Job's claim at the same path, read-only, holds no GPU
// and ends by itself.
func checkFetchPod(t *testing.T, m manifests, p *corev1.Pod, merge *batchv1.Job) {
	t.Helper()
	if p == nil {
		t.Fatal("no Pod p2pconf-fetch (fetch-pod.yaml) to copy the fleet view off the volume")
	}
	checkPodSecurity(t, "fetch Pod", p.Spec)
	if p.Spec.ActiveDeadlineSeconds == nil || *p.Spec.ActiveDeadlineSeconds <= 0 {
		t.Error("fetch Pod: no activeDeadlineSeconds; a forgotten pod would hold its node's slot for ever")
	}
	if len(p.Spec.Containers) != 1 {
		t.Fatalf("fetch Pod: %d containers, want one", len(p.Spec.Containers))
	}
	c := p.Spec.Containers[0]
	if c.Image != merge.Spec.Template.Spec.Containers[0].Image {
		t.Errorf("fetch Pod: image %q, merge Job %q; one image, rendered alike", c.Image, merge.Spec.Template.Spec.Containers[0].Image)
	}
	for _, list := range []corev1.ResourceList{c.Resources.Requests, c.Resources.Limits} {
		if _, ok := list[gpuResource]; ok {
			t.Errorf("fetch Pod: asks for %s", gpuResource)
		}
	}
	var claim string
	for _, vm := range c.VolumeMounts {
		for _, v := range p.Spec.Volumes {
			if vm.MountPath == reportsPath && v.Name == vm.Name && v.PersistentVolumeClaim != nil && vm.ReadOnly {
				claim = v.PersistentVolumeClaim.ClaimName
			}
		}
	}
	var mergeClaim string
	for _, v := range merge.Spec.Template.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			mergeClaim = v.PersistentVolumeClaim.ClaimName
		}
	}
	if claim == "" || claim != mergeClaim || m.pvcs[claim] == nil {
		t.Errorf("fetch Pod: %s is a read-only mount of claim %q, want the merge Job's %q from pvc.yaml", reportsPath, claim, mergeClaim)
	}
}

// TestContainerfile checks what the manifests rely on: the bundle at
// /opt/p2pconf, the merge script, a CUDA base image with only the driver's
// user-space libraries injected, and a non-root user.
func TestContainerfile(t *testing.T) {
	data, err := os.ReadFile("Containerfile")
	if err != nil {
		t.Fatal(err)
	}
	cf := string(data)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^ARG CUDA_IMAGE=nvcr\.io/nvidia/cuda:[0-9.]+-base-ubuntu24\.04$`),
		regexp.MustCompile(`(?m)^FROM \$\{CUDA_IMAGE\}$`),
		regexp.MustCompile(`(?m)^ENV NVIDIA_DRIVER_CAPABILITIES=compute,utility$`),
		regexp.MustCompile(`(?m)^ADD \$\{P2PCONF_TARBALL\} /opt/$`),
		regexp.MustCompile(`(?m)^ARG P2PCONF_TARBALL=dist/out/p2pconf-\*-linux-amd64\.tar\.gz$`),
		regexp.MustCompile(`ln -s "\$1" ` + regexp.QuoteMeta(bundleDir) + `;`),
		regexp.MustCompile(`(?m)^COPY deploy/slurm/p2pconf\.sbatch ` + regexp.QuoteMeta(mergeScript) + `$`),
		regexp.MustCompile(`rm -rf /usr/local/cuda\*/compat`),
		regexp.MustCompile(`(?m)^USER 65532:65532$`),
	} {
		if !want.MatchString(cf) {
			t.Errorf("Containerfile lacks %s", want)
		}
	}
	if _, err := os.Stat("../slurm/p2pconf.sbatch"); err != nil {
		t.Errorf("the Containerfile copies deploy/slurm/p2pconf.sbatch: %v", err)
	}
}

func envVar(c corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

func envValue(c corev1.Container, name string) string {
	if e := envVar(c, name); e != nil {
		return e.Value
	}
	return ""
}

func mounted(c corev1.Container, path string) bool {
	return slices.ContainsFunc(c.VolumeMounts, func(vm corev1.VolumeMount) bool { return vm.MountPath == path })
}

func ptrString[T ~string](p *T) string {
	if p == nil {
		return "<unset>"
	}
	return string(*p)
}

func deref(p *int32) int32 {
	if p == nil {
		return -1
	}
	return *p
}
