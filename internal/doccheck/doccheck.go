// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package doccheck finds the shell commands of the project's Markdown
// documents, so a test can run them as written: a command in a README that
// no longer works is a bug a new user meets first.
//
// Every fenced block marked sh, bash or shell is a command block. A block
// that cannot run on a machine without a GPU, root or a cluster says so in
// an HTML comment right before its fence (only blank lines between):
//
//	<!-- doccheck: needs gpu -->      the NVIDIA driver and GPUs
//	<!-- doccheck: needs root -->     root (it installs packages)
//	<!-- doccheck: needs cluster -->  a Slurm or Kubernetes cluster
//
// Such a block is only checked for shell syntax. Every other command block
// runs, in document order, from the root of a copy of the repository, on
// the fake backend. A comment
//
//	<!-- doccheck: env NAME=VALUE ... -->
//
// adds variables for one block: the machine the text speaks of (two GPUs
// where it names a pair), or a stand-in for the state it assumes (a release
// tag's version), and
//
//	<!-- doccheck: dir PATH -->
//
// runs it in PATH below the copy's root: the place the text puts the user
// in (the folder a tarball was copied to). Several comments may precede one
// block.
package doccheck

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// Needs say what a block needs that the test machine lacks.
const (
	NeedsGPU     = "gpu"
	NeedsRoot    = "root"
	NeedsCluster = "cluster"
)

// Block is one shell block of a document.
type Block struct {
	Doc   string   // the document's path
	Line  int      // line of the opening fence, from 1
	Code  string   // the commands, as written
	Needs string   // NeedsGPU, NeedsRoot, NeedsCluster, or "" (runs in the test)
	Env   []string // NAME=VALUE from an env comment
	Dir   string   // folder to run in, relative to the repository root ("" the root)
}

// Where names the block for messages.
func (b Block) Where() string { return fmt.Sprintf("%s:%d", b.Doc, b.Line) }

var (
	directive = regexp.MustCompile(`^<!--\s*doccheck:\s*(.*?)\s*-->\s*$`)
	fence     = regexp.MustCompile("^(```+|~~~+)\\s*([A-Za-z0-9_+-]*)")
	envWord   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=\S*$`)
)

// shellLanguages are the fence info strings of command blocks.
var shellLanguages = map[string]bool{"sh": true, "bash": true, "shell": true}

// Extract returns the shell blocks of one Markdown document. A directive
// that is malformed, names an unknown need, or is not followed by a fenced
// shell block is an error, so a marking cannot silently stop applying.
func Extract(doc string, text []byte) ([]Block, error) {
	var (
		blocks  []Block
		pending *Block // directives seen, waiting for their fence
		pendAt  int
		open    string // the fence of the block being read, "" outside
		cur     *Block
		body    strings.Builder
	)
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if open != "" {
			if strings.HasPrefix(strings.TrimSpace(line), open) && strings.Trim(strings.TrimSpace(line), open[:1]) == "" {
				if cur != nil {
					cur.Code = body.String()
					blocks = append(blocks, *cur)
				}
				open, cur = "", nil
				body.Reset()
				continue
			}
			if cur != nil {
				body.WriteString(line)
				body.WriteByte('\n')
			}
			continue
		}
		if m := directive.FindStringSubmatch(line); m != nil {
			if pending == nil {
				pending, pendAt = &Block{}, n
			}
			if err := apply(pending, m[1]); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", doc, n, err)
			}
			continue
		}
		if m := fence.FindStringSubmatch(line); m != nil {
			open = m[1]
			if shellLanguages[m[2]] {
				cur = &Block{Doc: doc, Line: n}
				if pending != nil {
					cur.Needs, cur.Env, cur.Dir = pending.Needs, pending.Env, pending.Dir
				}
			} else if pending != nil {
				return nil, fmt.Errorf("%s:%d: a doccheck comment precedes a %q block, not a shell block", doc, pendAt, m[2])
			}
			pending = nil
			continue
		}
		if strings.TrimSpace(line) != "" && pending != nil {
			return nil, fmt.Errorf("%s:%d: a doccheck comment is not followed by a fenced shell block", doc, pendAt)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", doc, err)
	}
	if open != "" {
		return nil, fmt.Errorf("%s: a fenced block is not closed", doc)
	}
	if pending != nil {
		return nil, fmt.Errorf("%s:%d: a doccheck comment is not followed by a fenced shell block", doc, pendAt)
	}
	return blocks, nil
}

// apply reads one directive ("needs gpu", "env A=1 B=2", "dir x") into b.
func apply(b *Block, d string) error {
	word, rest, _ := strings.Cut(d, " ")
	rest = strings.TrimSpace(rest)
	switch word {
	case "needs":
		switch rest {
		case NeedsGPU, NeedsRoot, NeedsCluster:
		default:
			return fmt.Errorf("doccheck: needs %q: want %s, %s or %s", rest, NeedsGPU, NeedsRoot, NeedsCluster)
		}
		if b.Needs != "" {
			return fmt.Errorf("doccheck: needs %s after needs %s: give one", rest, b.Needs)
		}
		b.Needs = rest
	case "env":
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return fmt.Errorf("doccheck: env names no variable")
		}
		for _, f := range fields {
			if !envWord.MatchString(f) {
				return fmt.Errorf("doccheck: env %q is not NAME=VALUE", f)
			}
		}
		b.Env = append(b.Env, fields...)
	case "dir":
		if rest == "" || strings.ContainsAny(rest, " \t") || strings.HasPrefix(rest, "/") || strings.Contains(rest, "..") {
			return fmt.Errorf("doccheck: dir %q: want one relative path inside the repository", rest)
		}
		if b.Dir != "" {
			return fmt.Errorf("doccheck: dir %s after dir %s: give one", rest, b.Dir)
		}
		b.Dir = rest
	default:
		return fmt.Errorf("doccheck: unknown directive %q (want needs, env or dir)", d)
	}
	return nil
}
