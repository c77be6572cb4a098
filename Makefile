# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The p2pconf Authors
#
# make test         unit tests, every suite on the fake backend, a Slurm fleet run and health check,
#                   and the preflight textfile through promtool and node_exporter (no GPU needed)
# make conformance  every suite on this machine's GPUs; reports in reports/<run>/
# make list         every spec with its labels (no GPU needed)
# make mutation     inject each fake driver defect into every suite and show which specs catch it (hours)
# make dist         tarball of precompiled suites for GPU nodes without Go
# make sanitize     the suites under compute-sanitizer on this machine's GPUs
# make check        golangci-lint (make lint), gofmt, go vet and go mod tidy -diff
# make docs         regenerate docs/checks.md from the check catalogue
# make litmus-sass  check that the driver's JIT keeps every litmus role's memory instructions (needs a GPU and the CUDA toolkit)

SHELL := /bin/bash
GO ?= go
# go-nvml's header marks some NVML calls deprecated; cgo would print every one.
export CGO_CFLAGS ?= -Wno-deprecated-declarations
export CGO_ENABLED := 1
GINKGO := $(GO) tool ginkgo
RUN ?= $(shell date -u +%Y%m%dT%H%M%SZ)
# Flags of `p2pconf run` for conformance runs, e.g. -j 4, --serial, --ginkgo.v.
# It gives every suite process the conformance flags (never an empty or
# pending run as green, a trace with each failure, a note on slow specs).
RUN_FLAGS ?=
LABEL_FILTER ?=

.PHONY: test unit fake-suites slurm prometheus conformance list mutation mutation-fast dist sanitize check lint docs litmus-sass

test: check unit fake-suites mutation-fast slurm prometheus

unit:
	$(GO) test -count=1 -timeout 30m ./harness/... ./kernels/... ./cmd/... ./internal/... ./deploy/...

# A real Slurm (installed from Debian's packages when missing; needs root)
# runs the batch script over three simulated hosts on loopback and the merged
# fleet report is checked.
slurm:
	bash tests/slurm/run.sh

# p2pconf preflight's node_exporter textfile, checked by Debian's promtool
# and served by Debian's prometheus-node-exporter on loopback (installed
# without recommended packages when missing; skipped, saying why, without
# apt-get or root).
prometheus:
	bash tests/prometheus/run.sh

fake-suites:
	$(GO) run ./cmd/selftest

# p2pconf run builds the suites, runs them several processes at once on
# disjoint GPUs and renders reports/$(RUN)/ (reports/$(RUN).2 when an earlier
# run has that name: two runs are never merged).
# make exits 2 whatever failed, so the last line names p2pconf run's own
# status; the binary is built rather than run with go run, which would turn
# every failing status into 1.
conformance:
	@bin=$$(mktemp -d "$${TMPDIR:-/tmp}/p2pconf-make-XXXXXX") && trap 'rm -rf "$$bin"' EXIT; \
	pkg=github.com/p2pconf/p2pconf/harness/report; \
	if $(GO) build -ldflags "-X $$pkg.Version=$$(git describe --tags --always --dirty 2>/dev/null) -X $$pkg.Commit=$$(git rev-parse HEAD 2>/dev/null)" -o "$$bin/p2pconf" ./cmd/p2pconf; then \
		"$$bin/p2pconf" run --run '$(RUN)' $(if $(LABEL_FILTER),--label-filter='$(LABEL_FILTER)') $(RUN_FLAGS); rc=$$?; \
	else echo "make conformance: building p2pconf failed" >&2; exit 3; fi; \
	case $$rc in 0) why="all conform";; 1) why="a conformance failure";; 2) why="bad input";; *) why="an incomplete run or a harness error";; esac; \
	[ $$rc -eq 0 ] || echo "make conformance: p2pconf run exited $$rc ($$why)" >&2; exit $$rc

# Listing needs no GPU: the spec tree is built on the fake two-GPU preset, so
# per-pair specs appear for the pairs 0-1 and 1-0 (set P2PCONF_FAKE to see another).
# Specs are grouped by their suite label, each group under a "== <suite> (N specs)"
# line and sorted by text: Ginkgo shuffles top-level containers, so its own
# order changes from run to run.
list:
	@set -o pipefail; P2PCONF_BACKEND=fake P2PCONF_FAKE=$${P2PCONF_FAKE:-h200x2} $(GINKGO) --dry-run -v --no-color ./suites/... \
		| grep -E '\[id:' | sed -E 's/^(.*[[ ]suite:([a-z0-9-]+)[],].*)$$/\2\t\1/' | sort -u -t "$$(printf '\t')" -k1,1 -k2 \
		| awk -F '\t' '{ n[$$1]++; line[$$1, n[$$1]] = $$2; if (!($$1 in seen)) { seen[$$1] = 1; order[++k] = $$1 } } \
			END { for (i = 1; i <= k; i++) { s = order[i]; if (i > 1) print ""; printf "== %s (%d specs)\n", s, n[s]; for (j = 1; j <= n[s]; j++) print line[s, j] } }'

# Every defect into every suite, three seeded runs each: hours on two cores.
mutation:
	$(GO) run ./cmd/mutation

# The compile check of the litmus kernels (docs/litmus.md, "Compile check"):
# the driver JIT-compiles every litmus kernel for GPU 0 and the toolkit's
# nvdisasm (or cuobjdump) shows whether each thread role kept its loads,
# stores and RMWs, and reports/litmus-sass.json records the driver whose JIT
# produced the code. Without a toolkit or a GPU it says so and exits 2.
litmus-sass:
	@mkdir -p reports
	$(GO) run ./cmd/litmus-sass -o reports/litmus-sass.json $(LITMUS_SASS_FLAGS)

# A few defects, one seeded run each, into their own suite only: fails when
# a declared catcher misses.
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

check: lint
	@out=$$(gofmt -l $$(git ls-files '*.go') $$(git ls-files --others --exclude-standard '*.go')); \
		if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) mod tidy -diff

# golangci-lint, pinned, built from the Go module proxy into .tools/ on first
# use (settings in .golangci.yml: depguard keeps specs behind the fixture and
# the command free of Ginkgo; errcheck, staticcheck, revive's exported-doc
# rule, unparam).
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := $(CURDIR)/.tools/golangci-lint-$(GOLANGCI_LINT_VERSION)
$(GOLANGCI_LINT):
	@echo "installing golangci-lint $(GOLANGCI_LINT_VERSION) into .tools/ (the linter make check runs)"
	@mkdir -p $(CURDIR)/.tools/bin
	GOBIN=$(CURDIR)/.tools/bin $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv $(CURDIR)/.tools/bin/golangci-lint $@

lint: $(GOLANGCI_LINT)
	$(GOLANGCI_LINT) run ./...

# The catalogue document is generated from harness/checks; a test in that
# package fails when the committed file is stale.
docs:
	$(GO) run ./cmd/checksdoc > docs/checks.md
