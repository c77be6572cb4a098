#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The p2pconf Authors
#
# gate.sh is the CI gate for driver upgrades: it unpacks the p2pconf dist
# tarball, runs every suite on this machine's GPUs (the bundle's run.sh),
# keeps the JUnit for the CI to publish, and compares the run with the
# baseline, the conformance.json of the last run that passed this gate,
# with `p2pconf diff`. The CI jobs in this folder (github-actions.yml,
# gitlab-ci.yml) call it; the CI keeps GATE_DIR/baseline/ between jobs.
#
#   deploy/ci/gate.sh TARBALL [RUN.SH FLAGS...]
#   e.g. deploy/ci/gate.sh dist/out/p2pconf-v0.1.0-linux-amd64.tar.gz --suites access,ipc
#
# Environment (besides the suites' own: P2PCONF_GPUS, P2PCONF_PAIRS, ...):
#   GATE_DIR         work and output folder (default: ./p2pconf-gate)
#   GATE_BASELINE    the baseline conformance.json
#                    (default: GATE_DIR/baseline/conformance.json)
#   GATE_DIFF_FLAGS  extra flags for p2pconf diff, e.g. -strict (default: none)
#   GATE_KNOWN_DEVIATIONS
#                    a file of known deviations (docs/known-deviations.md):
#                    given to run.sh as --known-deviations and to p2pconf diff
#                    as -known-deviations; the failures it names by check,
#                    variant, driver range and cause stay failures in every
#                    report (JUnit too), with their notes, but pass the gate
#                    (default: none, nothing is accepted)
#
# After a run GATE_DIR holds
#   bundle/          the unpacked tarball (replaced on every run)
#   run/             this run's reports: junit.xml (publish it),
#                    conformance.json, matrix.md, matrix.html, ginkgo/
#   diff.txt         p2pconf diff BASELINE run/ (when there was a baseline)
#   baseline/        the baseline; this run's conformance.json replaces it
#                    when the gate passes, and only then
#
# The gate:
#   - with a baseline, p2pconf diff decides: a check that passed in the
#     baseline and does not now is a regression (exit 1); checks that failed
#     in the baseline too do not fail the gate (the baseline accepted them);
#   - without one (the first run, or the CI lost its cache), the run decides:
#     every check must pass (exit 1 otherwise). To accept a run with known
#     failures as the reference, copy its run/conformance.json to GATE_BASELINE.
#   - with GATE_KNOWN_DEVIATIONS, a failure an entry of the file accepts is
#     no regression and does not fail a run without a baseline; a failure
#     the baseline accepted only through such an entry is a regression again
#     once the entry no longer accepts it (expired, removed, another driver).
#     A file that cannot be read or has a bad entry stops the gate (exit 2)
#     before any GPU work.
#
# Exit status: 0 the gate passed, 1 a regression (or, without a baseline, a
# failed check), 2 or above the gate could not decide: 2 for its own errors
# (no tarball, an unusable bundle, no report) and run.sh's usage errors,
# else p2pconf diff's status above 1 passed on (see p2pconf --help: e.g.
# results of the baseline missing from this run, runs of different
# backends or GPU sets).
set -uo pipefail

log() { echo "gate.sh: $*" >&2; }
die() {
	log "$*"
	exit 2
}

case "${1:-}" in
-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
'') die "usage: gate.sh TARBALL [RUN.SH FLAGS...] (see --help)" ;;
esac
tarball=$1
shift
[ -f "$tarball" ] || die "no tarball $tarball"

dir=${GATE_DIR:-p2pconf-gate}
mkdir -p "$dir" || die "cannot create $dir"
dir=$(cd "$dir" && pwd)
baseline=${GATE_BASELINE:-$dir/baseline/conformance.json}
run_known=()
diff_known=()
if [ -n "${GATE_KNOWN_DEVIATIONS:-}" ]; then
	known=$GATE_KNOWN_DEVIATIONS
	[ -f "$known" ] || die "GATE_KNOWN_DEVIATIONS=$known: no such file"
	known=$(cd "$(dirname "$known")" && pwd)/$(basename "$known")
	run_known=(--known-deviations "$known")
	diff_known=(-known-deviations "$known")
	log "known deviations: $known (accepted failures stay failures in the reports)"
fi

# A fresh bundle and run folder every time: nothing of an earlier run may
# count for this one.
rm -rf "$dir/bundle" "$dir/run" "$dir/diff.txt"
mkdir -p "$dir/bundle" || die "cannot create $dir/bundle"
tar -xzf "$tarball" -C "$dir/bundle" || die "cannot unpack $tarball"
bundle=
for d in "$dir"/bundle/p2pconf-*/; do
	[ -x "$d/run.sh" ] && [ -x "$d/bin/p2pconf" ] && bundle=${d%/}
done
[ -n "$bundle" ] || die "$tarball holds no p2pconf-*/run.sh and bin/p2pconf"
log "$("$bundle/bin/p2pconf" version)"

P2PCONF_REPORT_DIR=$dir/run "$bundle/run.sh" ${run_known[@]+"${run_known[@]}"} "$@"
run_rc=$?
new=$dir/run/conformance.json
case $run_rc in
0) if [ ${#run_known[@]} -gt 0 ]; then
	log "run: every selected check passed or failed as a known deviation the file accepts"
else
	log "run: every selected check passed"
fi ;;
1) log "run: some checks failed or the run is incomplete (run.sh exit 1); see $dir/run/matrix.md" ;;
*) die "run.sh exited $run_rc (a usage error)" ;;
esac
[ -s "$new" ] || die "the run left no $new"
[ -s "$dir/run/junit.xml" ] || die "the run left no $dir/run/junit.xml"

gate=0
if [ -f "$baseline" ]; then
	flags=()
	read -r -a flags <<<"${GATE_DIFF_FLAGS:-}"
	"$bundle/bin/p2pconf" diff ${flags[@]+"${flags[@]}"} ${diff_known[@]+"${diff_known[@]}"} "$baseline" "$new" >"$dir/diff.txt"
	diff_rc=$?
	cat "$dir/diff.txt"
	case $diff_rc in
	0) log "PASS: no regression against the baseline $baseline" ;;
	1) log "FAIL: regressions against the baseline $baseline (see $dir/diff.txt)"; gate=1 ;;
	*) log "p2pconf diff exited $diff_rc: the gate cannot decide"; exit "$diff_rc" ;;
	esac
else
	log "no baseline at $baseline: the run's own verdict gates"
	if [ $run_rc -eq 0 ] && [ ${#run_known[@]} -gt 0 ]; then
		log "PASS: every check passed or failed as a known deviation the file accepts (see $dir/run/matrix.md)"
	elif [ $run_rc -eq 0 ]; then
		log "PASS: every check passed"
	else
		log "FAIL: checks failed and there is no baseline that accepts them"
		gate=1
	fi
fi

if [ $gate -eq 0 ]; then
	mkdir -p "$(dirname "$baseline")" && cp "$new" "$baseline.tmp" && mv "$baseline.tmp" "$baseline" ||
		die "cannot write the new baseline $baseline"
	log "this run is the baseline now: $baseline"
else
	log "the baseline stays as it was"
fi
exit $gate
