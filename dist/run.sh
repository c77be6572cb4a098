#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The p2pconf Authors
#
# run.sh runs the precompiled p2pconf suites on this machine's GPUs and
# renders the report. It needs the NVIDIA driver, not Go.
#
#   ./run.sh [--run NAME] [--suites access,ipc] [--label-filter EXPR] [GINKGO FLAGS...]
#
#   --run NAME           run folder name (default: UTC time, e.g. 20260301T100000Z)
#   --suites LIST        only these suites (comma separated; default: all)
#   --label-filter EXPR  Ginkgo label filter, e.g. 'id:access.peer-copy && pair:0-1'
#   GINKGO FLAGS         passed to every suite binary, e.g. --ginkgo.v
#
# Reports go to reports/<run>/ beside this script (or $P2PCONF_REPORT_DIR):
# conformance.json, junit.xml, matrix.md, matrix.html, the per-suite files,
# and Ginkgo's own reports in ginkgo/. The environment works as with go test:
# P2PCONF_GPUS, P2PCONF_PAIRS, P2PCONF_BACKEND, ... Rerun one check on one pair:
#
#   P2PCONF_PAIRS=0-1 ./run.sh --suites access --label-filter 'id:access.peer-copy && pair:0-1'
#
# Every selected suite runs, whatever an earlier one did.
#
# Exit status: 0 when every suite passed, 1 otherwise, 2 on a usage error.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
run=$(date -u +%Y%m%dT%H%M%SZ)
suites=""
filter=""
extra=()
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case "$1" in
	--run=*) run=${1#--run=} ;;
	--run) run=${2:?--run needs a name}; shift ;;
	--suites=*) suites=${1#--suites=} ;;
	--suites) suites=${2:?--suites needs a list}; shift ;;
	--label-filter=* | --ginkgo.label-filter=*) filter=${1#*=} ;;
	--label-filter | --ginkgo.label-filter) filter=${2?--label-filter needs an expression}; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; extra+=("$@"); break ;;
	*) extra+=("$1") ;;
	esac
	shift
done

reports=${P2PCONF_REPORT_DIR:-$here/reports/$run}
case "$reports" in /*) ;; *) reports=$PWD/$reports ;; esac
mkdir -p "$reports/ginkgo" || exit 2
export P2PCONF_REPORT_DIR=$reports

# The conformance flags of `make conformance`. A label filter selects specs
# from some suites only, so then emptiness is judged on the whole run (by
# p2pconf report, which exits 3 on a run without results) rather than per suite.
flags=(--ginkgo.fail-on-pending --ginkgo.trace --ginkgo.poll-progress-after=60s --ginkgo.timeout=2h)
if [ -n "$filter" ]; then
	flags+=("--ginkgo.label-filter=$filter")
else
	flags+=(--ginkgo.fail-on-empty)
fi

status=0
ran=0
launched=""
while read -r rel bin; do
	[ -n "$rel" ] || continue
	if [ -n "$suites" ] && [[ ",$suites," != *",$bin,"* ]]; then
		continue
	fi
	ran=$((ran + 1))
	launched+=${launched:+,}$bin
	echo "== $bin ($rel)" >&2
	(
		cd "$here/$rel" &&
			"./$bin.test" "${flags[@]}" \
				--ginkgo.json-report="$reports/ginkgo/$bin.json" \
				--ginkgo.junit-report="$reports/ginkgo/$bin.junit.xml" \
				${extra[@]+"${extra[@]}"}
	)
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "== $bin exited $rc" >&2
		status=1
	fi
done <"$here/suites.txt"

if [ $ran -eq 0 ]; then
	echo "run.sh: no suite matches --suites=$suites (have: $(cut -d' ' -f2 "$here/suites.txt" | paste -sd, -))" >&2
	exit 2
fi
# The report names any launched suite that left no results (it crashed or
# was killed) and exits non-zero then.
"$here/bin/p2pconf" report -suites "$launched" "$reports" || status=1
echo "reports in $reports" >&2
exit $status
