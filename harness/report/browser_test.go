// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// browsers are the headless browsers the test looks for, in order. CI
// installs one with: apt-get install -y --no-install-recommends chromium
var browsers = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

func findBrowser() string {
	for _, b := range browsers {
		if p, err := exec.LookPath(b); err == nil {
			return p
		}
	}
	return ""
}

// headless runs the browser on page with the given extra flags and returns
// its standard output.
func headless(t *testing.T, browser, page string, extra ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir()}
	args = append(args, extra...)
	args = append(args, "file://"+page)
	cmd := exec.CommandContext(ctx, browser, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", browser, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// TestMatrixHTMLInBrowser renders the 8-GPU matrix.html, takes a headless
// screenshot and checks the DOM the browser built: every N×N grid has one
// row per GPU.
func TestMatrixHTMLInBrowser(t *testing.T) {
	browser := findBrowser()
	if browser == "" {
		t.Skip("needs chromium (found: none on PATH)")
	}
	dir := writeFixtureRun(t, "testdata/fake8")
	out := artifactDir(t)
	page := filepath.Join(out, MatrixHTMLFile)
	if err := os.WriteFile(page, []byte(readFile(t, filepath.Join(dir, MatrixHTMLFile))), 0o644); err != nil {
		t.Fatal(err)
	}

	shot := filepath.Join(out, "matrix.png")
	headless(t, browser, page, "--screenshot="+shot, "--window-size=1400,2000", "--hide-scrollbars")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1400 || b.Dy() != 2000 {
		t.Errorf("screenshot is %dx%d, want 1400x2000", b.Dx(), b.Dy())
	}
	colors, inked := map[uint32]bool{}, 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colors[r>>8<<16|g>>8<<8|bl>>8] = true
			if r>>8 < 240 || g>>8 < 240 || bl>>8 < 240 {
				inked++
			}
		}
	}
	if len(colors) < 8 || inked < 5000 {
		t.Errorf("screenshot looks blank: %d colours, %d inked sample pixels (see %s)", len(colors), inked, shot)
	}
	t.Logf("screenshot: %s (%d colours)", shot, len(colors))

	dom := string(headless(t, browser, page, "--dump-dom"))
	for _, grid := range []string{"claimed", "observed", "access", "atomics.concurrent-sys-rmw"} {
		rows := gridRows(dom, grid)
		if rows != 8 {
			t.Errorf("grid %q has %d GPU rows in the browser's DOM, want 8", grid, rows)
		}
	}
	if !strings.Contains(dom, "GPU(row) → GPU(column)") {
		t.Error("the grid captions do not spell out the direction")
	}
}

// gridRows counts the GPU rows of the table with data-grid=name.
func gridRows(dom, name string) int {
	i := strings.Index(dom, `data-grid="`+name+`"`)
	if i < 0 {
		return -1
	}
	table := dom[i:]
	if end := strings.Index(table, "</table>"); end >= 0 {
		table = table[:end]
	}
	return strings.Count(table, `class="gpu-row"`)
}

// foldProbe, appended to a copy of matrix.html, measures in the browser
// what a reader sees of each disagreement before opening it: how many text
// lines its summary takes, and whether anything beyond the summary shows.
const foldProbe = `<script>
const out = [];
for (const d of document.querySelectorAll("li.dis-item > details")) {
  const s = d.querySelector("summary");
  const lh = parseFloat(getComputedStyle(s).lineHeight) || 1.2 * parseFloat(getComputedStyle(s).fontSize);
  out.push(Math.round(s.getBoundingClientRect().height / lh) + ":" + (d.open ? "open" : "closed") + ":" +
    Math.round(d.getBoundingClientRect().height - s.getBoundingClientRect().height));
}
document.body.setAttribute("data-fold", out.join(" "));
</script>`

// TestDisagreementsFoldedInBrowser opens the matrix of a failing run (the
// modelled H200 atomics disagreement on both pairs) in headless Chromium,
// takes a screenshot, and measures each disagreement as the browser laid it
// out: closed, its summary at most two lines at 1400 px, nothing of its
// details showing until it is opened.
func TestDisagreementsFoldedInBrowser(t *testing.T) {
	browser := findBrowser()
	if browser == "" {
		t.Skip("needs chromium (found: none on PATH)")
	}
	out := artifactDir(t)
	page := filepath.Join(out, MatrixHTMLFile)
	html := HTML(capabilityReportDoc())
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(out, "disagreements.png")
	headless(t, browser, page, "--screenshot="+shot, "--window-size=1400,900", "--hide-scrollbars")
	if _, err := os.Stat(shot); err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	t.Logf("screenshot: %s", shot)

	probe := filepath.Join(out, "probe.html")
	if err := os.WriteFile(probe, []byte(strings.Replace(html, "</body>", foldProbe+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(headless(t, browser, probe, "--window-size=1400,900", "--dump-dom"))
	m := regexp.MustCompile(`data-fold="([^"]*)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatal("the probe left no measurement in the DOM")
	}
	items := strings.Fields(m[1])
	if len(items) != 2 {
		t.Fatalf("%d disagreements measured, want 2 (%q)", len(items), m[1])
	}
	for i, it := range items {
		var lines, hidden int
		var state string
		if _, err := fmt.Sscanf(strings.ReplaceAll(it, ":", " "), "%d %s %d", &lines, &state, &hidden); err != nil {
			t.Fatalf("measurement %q: %v", it, err)
		}
		if lines < 1 || lines > 2 || state != "closed" || hidden > 2 {
			t.Errorf("disagreement %d: summary %d lines, %s, %d px of details showing; want 1-2 lines, closed, none", i+1, lines, state, hidden)
		}
	}
}
