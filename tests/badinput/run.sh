#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The p2pconf Authors
#
# run.sh checks, on a machine with the NVIDIA driver, that bad settings never
# reach the GPU: each case runs a suite binary with one bad P2PCONF_* setting
# (or label filter) and must exit 2 with one line naming the input, write no
# result (the report folder and Ginkgo's JSON report stay absent) and, but
# for the settings that name GPUs (the machine's GPUs are listed to check
# them), never load the driver library (the dynamic loader's log, LD_DEBUG,
# has no libcuda).
#
#   bash tests/badinput/run.sh [DIR]
#
# DIR holds the suite binaries: a gpu-bundle folder (list and NAME.test.gz,
# default .gpu) or a folder of health.test and bandwidth.test. Run it from
# the project root (the binaries run from their package folders). With
# P2PCONF_BACKEND=fake it checks the same on the fake backend, without a GPU.
# Exit status: 0 when every case behaves, 1 otherwise, 2 on a usage error.
set -uo pipefail

root=$(pwd)
dir=${1:-.gpu}
[ -d "$root/suites" ] || { echo "run.sh: run it from the project root" >&2; exit 2; }
[ -d "$dir" ] || { echo "run.sh: no folder $dir (see --help)" >&2; exit 2; }
case "$dir" in -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/p2pconf-badinput-XXXXXX")
trap 'rm -rf "$work"' EXIT

# binary SUITE: the path of SUITE's test binary, unpacked into $work.
binary() {
	local suite=$1
	if [ -f "$dir/$suite.test" ]; then echo "$dir/$suite.test"; return; fi
	if [ -f "$dir/suites_$suite.test.gz" ]; then
		gunzip -c "$dir/suites_$suite.test.gz" > "$work/$suite.test" && chmod +x "$work/$suite.test" && echo "$work/$suite.test"
		return
	fi
	return 1
}

file=$work/afile
echo x > "$file"
fails=0 cases=0
# check SUITE INPUT OPENS SETTING-OR-FLAG: one case.
check() {
	local suite=$1 input=$2 opens=$3 arg=$4 bin
	bin=$(binary "$suite") || { echo "SKIP  $suite: no binary in $dir"; return; }
	local c=$work/case$cases
	mkdir -p "$c"
	local env=(P2PCONF_REPORT_DIR="$c/reports" LD_DEBUG=files LD_DEBUG_OUTPUT="$c/ld")
	local flags=(--ginkgo.no-color --ginkgo.json-report="$c/ginkgo.json")
	case "$arg" in --*) flags+=("$arg") ;; *) env+=("$arg") ;; esac
	(cd "$root/suites/$suite" && env "${env[@]}" "$bin" "${flags[@]}") > "$c/out" 2>&1
	local rc=$? why=""
	local lines
	lines=$(grep -c . "$c/out")
	[ "$rc" -eq 2 ] || why+=" exit $rc;"
	[ "$lines" -eq 1 ] && grep -qF -- "$input" "$c/out" || why+=" $lines lines, want one naming $input;"
	[ ! -e "$c/reports" ] || why+=" the report folder was written;"
	[ ! -e "$c/ginkgo.json" ] || why+=" Ginkgo's report was written;"
	if [ "$opens" = no ] && cat "$c"/ld.* 2>/dev/null | grep -q 'file=libcuda'; then why+=" libcuda was loaded;"; fi
	cases=$((cases + 1))
	if [ -z "$why" ]; then
		echo "ok    $suite $arg: $(head -c 200 "$c/out")"
	else
		fails=$((fails + 1))
		echo "FAIL  $suite $arg:$why"
		sed 's/^/      /' "$c/out" | head -20
	fi
}

for suite in health bandwidth; do
	check $suite P2PCONF_BW_MAX_SIZE no P2PCONF_BW_MAX_SIZE=1XB
	check $suite P2PCONF_BW_TOLERANCE no P2PCONF_BW_TOLERANCE=-10
	check $suite P2PCONF_BASELINE no P2PCONF_BASELINE=/nonexistent/baseline.json
	check $suite P2PCONF_LINK_EFFICIENCY_MIN no P2PCONF_LINK_EFFICIENCY_MIN=150
	check $suite P2PCONF_BW_SWEEP no P2PCONF_BW_SWEEP=some
	check $suite P2PCONF_LITMUS_PROFILE no P2PCONF_LITMUS_PROFILE=fast
	check $suite P2PCONF_LITMUS_TARGET no P2PCONF_LITMUS_TARGET=abc
	check $suite P2PCONF_PAIR_MUTANTS no P2PCONF_PAIR_MUTANTS=foo
	check $suite P2PCONF_TRIPLES no P2PCONF_TRIPLES=0-1
	check $suite P2PCONF_SPEC_TIMEOUT no P2PCONF_SPEC_TIMEOUT=banana
	check $suite P2PCONF_REPORT_DIR no "P2PCONF_REPORT_DIR=$file"
	check $suite P2PCONF_LOCK_WAIT no P2PCONF_LOCK_WAIT=-1s
	check $suite P2PCONF_BW_MAXSIZE no P2PCONF_BW_MAXSIZE=1GiB
	check $suite acess.peer-copy no --ginkgo.label-filter=id:acess.peer-copy
	check $suite 'suite:(' no '--ginkgo.label-filter=suite:('
	check $suite 'id:' no '--ginkgo.label-filter=id:'
	check $suite 'suite:access &&' no '--ginkgo.label-filter=suite:access &&'
	check $suite P2PCONF_GPUS no P2PCONF_GPUS=0,0
	check $suite P2PCONF_PAIRS no P2PCONF_PAIRS=1-0,1-0
	check $suite P2PCONF_GPUS yes P2PCONF_GPUS=0,99
	check $suite P2PCONF_PAIRS yes P2PCONF_PAIRS=0-99
done
echo "$cases cases, $fails failed (backend ${P2PCONF_BACKEND:-cuda})"
[ "$cases" -gt 0 ] || exit 1
[ "$fails" -eq 0 ]
