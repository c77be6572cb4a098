// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package doccheck

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestExtract(t *testing.T) {
	doc := "# T\n\n```sh\necho one\n```\n\n<!-- doccheck: needs gpu -->\n\n```bash\nnvidia-smi\n```\n" +
		"<!-- doccheck: env A=1 B=x/y -->\n<!-- doccheck: needs cluster -->\n<!-- doccheck: dir dist/out -->\n```sh\nsbatch x\n```\n" +
		"```\nnot a command\n```\n````sh\n```\ninside\n````\n"
	got, err := Extract("t.md", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []Block{
		{Doc: "t.md", Line: 3, Code: "echo one\n"},
		{Doc: "t.md", Line: 9, Code: "nvidia-smi\n", Needs: NeedsGPU},
		{Doc: "t.md", Line: 15, Code: "sbatch x\n", Needs: NeedsCluster, Env: []string{"A=1", "B=x/y"}, Dir: "dist/out"},
		{Doc: "t.md", Line: 21, Code: "```\ninside\n"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d blocks, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Line != w.Line || g.Code != w.Code || g.Needs != w.Needs || !slices.Equal(g.Env, w.Env) || g.Dir != w.Dir {
			t.Errorf("block %d = %+v, want %+v", i, g, w)
		}
	}
}

func TestExtractRefusesLooseMarks(t *testing.T) {
	for name, doc := range map[string]string{
		"unknown need":      "<!-- doccheck: needs internet -->\n```sh\nx\n```\n",
		"unknown directive": "<!-- doccheck: skip -->\n```sh\nx\n```\n",
		"bad env":           "<!-- doccheck: env NOEQUALS -->\n```sh\nx\n```\n",
		"dir outside":       "<!-- doccheck: dir ../x -->\n```sh\nx\n```\n",
		"two needs":         "<!-- doccheck: needs gpu -->\n<!-- doccheck: needs root -->\n```sh\nx\n```\n",
		"text between":      "<!-- doccheck: needs gpu -->\nSome text.\n```sh\nx\n```\n",
		"not a shell block": "<!-- doccheck: needs gpu -->\n```yaml\nx: 1\n```\n",
		"at the end":        "```sh\nx\n```\n<!-- doccheck: needs gpu -->\n",
		"unclosed fence":    "```sh\nx\n",
	} {
		if _, err := Extract("t.md", []byte(doc)); err == nil {
			t.Errorf("%s: Extract accepted %q", name, doc)
		}
	}
}

// documents are checked in this order, all in one copy of the repository.
var documents = []string{"README.md", "docs/usage.md", "deploy/README.md", "deploy/kubernetes/README.md"}

// TestDocsRunAsWritten runs every shell block of the documents that needs
// no GPU, root or cluster, exactly as written, from the root of a copy of
// the repository, on the fake backend (one GPU unless a block's env comment
// says otherwise); the others must at least parse.
func TestDocsRunAsWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the documents' commands (builds and runs every suite); skipped with -short")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	work := copyRepo(t, root)
	env := baseEnv()
	ran := 0
	for _, doc := range documents {
		text, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := Extract(doc, text)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			if b.Needs != "" {
				if out, err := exec.Command("bash", "-n", "-c", b.Code).CombinedOutput(); err != nil {
					t.Errorf("%s (needs %s) is not valid shell: %v\n%s\n%s", b.Where(), b.Needs, err, b.Code, out)
				}
				continue
			}
			ran++
			start := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", b.Code)
			cmd.Dir = filepath.Join(work, b.Dir)
			cmd.Env = append(slices.Clone(env), b.Env...)
			cmd.WaitDelay = 10 * time.Second
			out, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				t.Errorf("%s does not run as written (%v, env %v, in ./%s):\n%s\n---- output (tail)\n%s", b.Where(), err, b.Env, b.Dir, b.Code, tail(out, 6000))
				continue
			}
			t.Logf("%s ran in %s", b.Where(), time.Since(start).Round(time.Second))
		}
	}
	if ran == 0 {
		t.Fatalf("no command block of %v ran", documents)
	}
}

// baseEnv is the test's environment without the caller's p2pconf, make and
// build settings, on the fake backend. -trimpath keeps the build cache
// shared with the checkout's builds although the copy lives elsewhere.
func baseEnv() []string {
	drop := []string{"P2PCONF_", "GATE_", "MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", "GOFLAGS=", "VERSION=", "COMMIT=",
		"DIST_OUT=", "BASELINE=", "RUN=", "REPORTS=", "LABEL_FILTER=", "CONFORMANCE_FLAGS=", "SANITIZE_DIR="}
	var env []string
	for _, kv := range os.Environ() {
		if !slices.ContainsFunc(drop, func(p string) bool { return strings.HasPrefix(kv, p) }) {
			env = append(env, kv)
		}
	}
	return append(env, "P2PCONF_BACKEND=fake", "P2PCONF_FAKE=single", "GOFLAGS=-trimpath -ldflags=-w",
		"CGO_ENABLED=1", "CGO_CFLAGS=-Wno-deprecated-declarations")
}

// copyRepo copies the files git would commit (tracked and untracked, not
// ignored) into a temporary folder, as a fresh clone would have them.
func copyRepo(t *testing.T, root string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files in %s: %v", root, err)
	}
	dst := filepath.Join(t.TempDir(), "p2pconf")
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, rel)
		fi, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted in the working tree, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		if err := copyFile(src, filepath.Join(dst, rel), fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func copyFile(src, dst string, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func tail(b []byte, n int) string {
	if len(b) > n {
		return "…" + string(b[len(b)-n:])
	}
	return string(b)
}
