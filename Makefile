# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The p2pconf Authors
#
# make test         unit tests, every suite on the fake backend, and a Slurm fleet run (no GPU needed)
# make conformance  every suite on this machine's GPUs; reports in reports/<run>/
# make list         every spec with its labels (no GPU needed)
# make mutation     inject each fake driver defect and show which specs catch it
# make dist         tarball of precompiled suites for GPU nodes without Go
# make sanitize     the suites under compute-sanitizer on this machine's GPUs
# make check        gofmt, go vet, golangci-lint and go mod tidy -diff
# make docs         regenerate docs/checks.md from the check catalogue

SHELL := /bin/bash
GO ?= go
# go-nvml's header marks some NVML calls deprecated; cgo would print every one.
export CGO_CFLAGS ?= -Wno-deprecated-declarations
export CGO_ENABLED := 1
GINKGO := $(GO) tool ginkgo
RUN ?= $(shell date -u +%Y%m%dT%H%M%SZ)
REPORTS := reports/$(RUN)
# Flags for conformance runs (Ginkgo docs): never report an empty or pending
# run as green, keep going past failures, show where a slow spec is.
CONFORMANCE_FLAGS ?= --fail-on-pending --fail-on-empty --keep-going --trace --poll-progress-after=60s --timeout=2h
LABEL_FILTER ?=

.PHONY: test unit fake-suites slurm conformance list mutation mutation-fast dist sanitize check docs

test: check unit fake-suites mutation-fast slurm

unit:
	$(GO) test -count=1 ./harness/... ./kernels/... ./cmd/... ./internal/... ./deploy/...

# A real Slurm (installed from Debian's packages when missing; needs root)
# runs the batch script over three simulated hosts on loopback and the merged
# fleet report is checked.
slurm:
	bash tests/slurm/run.sh

fake-suites:
	$(GO) run ./cmd/selftest

conformance:
	mkdir -p $(REPORTS)
	P2PCONF_REPORT_DIR=$(abspath $(REPORTS)) $(GINKGO) $(CONFORMANCE_FLAGS) \
		--json-report=ginkgo.json --junit-report=ginkgo-junit.xml --output-dir=$(REPORTS) \
		$(if $(LABEL_FILTER),--label-filter='$(LABEL_FILTER)') ./suites/...
	$(GO) run ./cmd/p2pconf report $(REPORTS)
	@echo "reports in $(REPORTS)"

# Listing needs no GPU: the spec tree is built on the fake two-GPU preset, so
# per-pair specs appear for the pairs 0-1 and 1-0 (set P2PCONF_FAKE to see another).
list:
	@set -o pipefail; P2PCONF_BACKEND=fake P2PCONF_FAKE=$${P2PCONF_FAKE:-h200x2} $(GINKGO) --dry-run -v --no-color ./suites/... \
		| grep -E '\[id:' | sort -u

mutation:
	$(GO) run ./cmd/mutation

# A few defects, one seeded run each: fails when a declared catcher misses.
mutation-fast:
	$(GO) run ./cmd/mutation -fast

dist:
	bash dist/build.sh

# The suites under compute-sanitizer (memcheck, synccheck, racecheck), from
# the same precompiled binaries as the dist tarball; dist/sanitize.sh says
# what runs and which intended errors are allowed. Needs a GPU and the CUDA
# toolkit's compute-sanitizer; logs go to sanitize/ in the unpacked tree.
SANITIZE_DIR ?= $(CURDIR)/dist/out/sanitize
sanitize:
	rm -rf $(SANITIZE_DIR) && mkdir -p $(SANITIZE_DIR)
	DIST_OUT=$(SANITIZE_DIR) VERSION=sanitize bash dist/build.sh >/dev/null
	tar -xzf $(SANITIZE_DIR)/p2pconf-sanitize-linux-amd64.tar.gz -C $(SANITIZE_DIR)
	$(SANITIZE_DIR)/p2pconf-sanitize-linux-amd64/sanitize.sh

check:
	@out=$$(gofmt -l $$(git ls-files '*.go') $$(git ls-files --others --exclude-standard '*.go')); \
		if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# The catalogue document is generated from harness/checks; a test in that
# package fails when the committed file is stale.
docs:
	$(GO) run ./cmd/checksdoc > docs/checks.md
