#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The p2pconf Authors
#
# sanitize.sh runs the precompiled suites under NVIDIA's compute-sanitizer
# (it ships with the CUDA toolkit) and fails on any error the sanitizer
# reports that is not one of the intended errors listed in
# sanitize-allow.txt beside this script.
#
#   ./sanitize.sh [--tools memcheck,synccheck,racecheck] [--suites access,ipc] [--out DIR]
#
#   --tools LIST   sanitizer tools to run (default: memcheck,synccheck,racecheck)
#   --suites LIST  only these suites (default: all)
#   --out DIR      where the sanitizer logs go (default: sanitize/<UTC time> beside this script)
#
# What runs:
#   memcheck, synccheck  every spec of every suite except the litmus tests
#                        (ordering.litmus: racy by design and time-budgeted),
#                        with the bandwidth sweeps cut to 4 MiB
#                        (P2PCONF_BW_MAX_SIZE) and two trials per mutant
#   racecheck            the same specs less the mutants: every kernel left
#                        is meant to be free of shared-memory races
#
# Only this process is instrumented (--target-processes application-only):
# the helper processes that some specs start fault on purpose (a kernel
# touching memory it was not granted), and their faults are the checks'
# observations, not errors of the suite. The intended API errors of the
# negative checks (a second enable of peer access, an IPC handle opened in
# its own process, ...) are listed by suite, error and API call in
# sanitize-allow.txt, each with the checks that cause it. Any other error
# fails the run. A suite that runs no spec, or ends without its summary,
# also fails it: a sanitizer pass over nothing is no pass.
#
# Exit status: 0 clean, 1 an error that is not allowed (or a suite that did
# not run), 2 a usage error or no compute-sanitizer on this machine.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tools=memcheck,synccheck,racecheck
suites=""
out=""
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case "$1" in
	--tools=*) tools=${1#--tools=} ;;
	--tools) tools=${2:?--tools needs a list}; shift ;;
	--suites=*) suites=${1#--suites=} ;;
	--suites) suites=${2:?--suites needs a list}; shift ;;
	--out=*) out=${1#--out=} ;;
	--out) out=${2:?--out needs a folder}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) echo "sanitize.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done

sanitizer=${COMPUTE_SANITIZER:-}
if [ -z "$sanitizer" ]; then
	sanitizer=$(command -v compute-sanitizer || true)
fi
if [ -z "$sanitizer" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
	sanitizer=/usr/local/cuda/bin/compute-sanitizer
fi
if [ -z "$sanitizer" ]; then
	echo "sanitize.sh: compute-sanitizer not found (it ships with the CUDA toolkit; put it on PATH or set COMPUTE_SANITIZER)" >&2
	exit 2
fi
allow=$here/sanitize-allow.txt
[ -r "$allow" ] || { echo "sanitize.sh: $allow is missing" >&2; exit 2; }
for t in ${tools//,/ }; do
	case "$t" in memcheck | synccheck | racecheck) ;; *) echo "sanitize.sh: unknown tool $t (memcheck, synccheck, racecheck)" >&2; exit 2 ;; esac
done
out=${out:-$here/sanitize/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out" || exit 2

# Slower under instrumentation: longer spec limits, smaller sweeps, fewer
# mutant trials. The verdicts of these runs are not the conformance
# verdicts; the sanitizer's findings are.
export P2PCONF_SPEC_TIMEOUT=${P2PCONF_SPEC_TIMEOUT:-10m}
export P2PCONF_BW_MAX_SIZE=${P2PCONF_BW_MAX_SIZE:-4MiB}
export P2PCONF_MUTANT_TRIALS=${P2PCONF_MUTANT_TRIALS:-2}

# allowed TOOL SUITE LINE: 0 when LINE (a "Program hit ..." line of the
# sanitizer) is an intended API error of SUITE under TOOL.
allowed() {
	local tool=$1 suite=$2 line=$3 t s code call
	while read -r t s code call _; do
		case "$t" in '' | '#'*) continue ;; esac
		[ "$t" = "*" ] || [ "$t" = "$tool" ] || continue
		[ "$s" = "*" ] || [ "$s" = "$suite" ] || continue
		[[ "$line" == *"Program hit $code ("*"on CUDA API call to $call"* ]] && return 0
	done <"$allow"
	return 1
}

status=0
ran=0
summary=$out/summary.txt
: >"$summary"
for tool in ${tools//,/ }; do
	filter='!id:ordering.litmus'
	[ "$tool" = racecheck ] && filter='!id:ordering.litmus && !kind:mutant'
	while read -r rel bin; do
		[ -n "$rel" ] || continue
		if [ -n "$suites" ] && [[ ",$suites," != *",$bin,"* ]]; then
			continue
		fi
		ran=$((ran + 1))
		log=$out/$tool.$bin.log
		echo "== $tool $bin" >&2
		(
			cd "$here/$rel" &&
				"$sanitizer" --tool "$tool" --target-processes application-only \
					--report-api-errors explicit --print-limit 10000 --log-file "$log.sanitizer" \
					"./$bin.test" --ginkgo.no-color --ginkgo.label-filter="$filter"
		) >"$log" 2>&1
		rc=$?
		verdict=clean
		# The suite's own summary: how many specs ran under the sanitizer.
		specs=$(grep -Eo '^Ran [0-9]+ of [0-9]+ Specs' "$log" | tail -1)
		if [ -z "$specs" ] || [[ "$specs" == "Ran 0 of"* ]]; then
			verdict="did not run (exit $rc; see $log)"
			status=1
		fi
		# memcheck and synccheck end with "ERROR SUMMARY: N errors",
		# racecheck with "RACECHECK SUMMARY: H hazards displayed (E errors, W warnings)".
		total=$(grep -Eo 'ERROR SUMMARY: [0-9]+' "$log.sanitizer" | tail -1 | grep -Eo '[0-9]+$')
		if [ -z "$total" ]; then
			total=$(grep -Eo 'RACECHECK SUMMARY: .*\(([0-9]+) errors' "$log.sanitizer" | tail -1 | grep -Eo '[0-9]+ errors' | grep -Eo '[0-9]+')
		fi
		if [ -z "$total" ]; then
			verdict="no sanitizer summary (exit $rc; see $log.sanitizer)"
			status=1
			total=0
		fi
		intended=0
		unexpected=()
		while IFS= read -r line; do
			if [[ "$line" == *"Program hit "* ]] && allowed "$tool" "$bin" "$line"; then
				intended=$((intended + 1))
			else
				unexpected+=("$line")
			fi
		done < <(grep -E '^========= (Program hit|Invalid|Error|Race|Barrier|Uninitialized|Misaligned|Out-of-range|Warp|Malloc|Leaked|Cuda|Potential|Illegal|Address)' "$log.sanitizer")
		if [ $((total - intended)) -gt 0 ] || [ ${#unexpected[@]} -gt 0 ]; then
			verdict="$((total - intended)) errors not allowed"
			status=1
		fi
		failed=$(grep -c '^\s*\[FAIL\]' "$log" || true)
		line="$tool $bin: ${specs:-no specs}; sanitizer errors $total, intended $intended; $verdict"
		[ "$failed" -gt 0 ] && line="$line; $failed spec failures under instrumentation (not judged here; see $log)"
		echo "$line" | tee -a "$summary"
		for u in "${unexpected[@]}"; do
			echo "    $u" | tee -a "$summary"
		done
	done <"$here/suites.txt"
done
if [ $ran -eq 0 ]; then
	echo "sanitize.sh: no suite matches --suites=$suites (have: $(cut -d' ' -f2 "$here/suites.txt" | paste -sd, -))" >&2
	exit 2
fi
echo "sanitizer logs in $out" >&2
exit $status
