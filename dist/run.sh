#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The p2pconf Authors
#
# run.sh runs the precompiled p2pconf suites on this machine's GPUs and
# renders the report. It needs the NVIDIA driver, not Go. It is a thin
# wrapper around `bin/p2pconf run`, which runs several suite processes at
# once on disjoint GPUs (see `bin/p2pconf run --help`).
#
#   ./run.sh [--run NAME] [--suites access,ipc] [--label-filter EXPR] [-j N] [--serial]
#            [--mutants WHICH] [--dry-run] [--ginkgo.FLAG...]
#
#   --run NAME           run folder name (default: UTC time, e.g. 20260301T100000Z);
#                        a name an earlier run used gets NAME.2, NAME.3, ... and
#                        the run says so: results of two runs are never merged
#   --suites LIST        only these suites (comma separated; default: all)
#   --label-filter EXPR  Ginkgo label filter, e.g. 'id:access.peer-copy && pair:0-1'
#   -j N                 at most N suite processes at once (default: no limit)
#   --serial             one suite process at a time with every GPU
#   --mutants WHICH      representative (default): the pair mutants only on one
#                        pair per link class and its reverse; all: on every pair
#   --dry-run            print the schedule and its predicted time; run nothing
#   --ginkgo.FLAG        passed to every suite binary, e.g. --ginkgo.v (as is
#                        everything after --); any other flag is refused
#
# Reports go to reports/<run>/ beside this script (or $P2PCONF_REPORT_DIR,
# which must be empty or absent): conformance.json, junit.xml, matrix.md,
# matrix.html, the per-suite files, Ginkgo's own reports in ginkgo/, and
# each suite process's files in shards/<shard>/. The environment works as
# with go test: P2PCONF_GPUS, P2PCONF_PAIRS, P2PCONF_BACKEND, ... Rerun one
# check on one pair:
#
#   P2PCONF_PAIRS=0-1 ./run.sh --suites access --label-filter 'id:access.peer-copy && pair:0-1'
#
# Every selected suite runs, whatever an earlier one did.
#
# exit-table:begin
# exit status of run.sh:
#   0  as p2pconf run, which it runs (and for --help)
#   1  as p2pconf run: a conformance failure
#   2  as p2pconf run: bad input
#   3  as p2pconf run: an incomplete run or harness error
# exit-table:end
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; /exit-table:/d; s/^# \{0,1\}//'; }
for a in "$@"; do
	case "$a" in
	-h | --help) usage; exit 0 ;;
	--) break ;;
	esac
done
exec "$here/bin/p2pconf" run "$@"
