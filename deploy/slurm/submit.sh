#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The p2pconf Authors
#
# submit.sh submits a p2pconf fleet run as two Slurm jobs: the run job
# (p2pconf.sbatch run: every node of the allocation runs the suites) and a
# merge job that starts when the run job has ended, however it ended
# (--dependency=afterany:<run job>), on one node without GPUs, and renders
# the fleet view and the diff against BASELINE. A run job that hits its
# time limit or is cancelled still gets its fleet view of the nodes that
# finished.
#
#   deploy/slurm/submit.sh [SBATCH OPTIONS FOR THE RUN JOB...] [-- RUN.SH FLAGS...]
#   e.g. deploy/slurm/submit.sh -N 16 -p gpu --time=06:00:00
#
# It prints the run name and both job ids ("<run> <run-job> <merge-job>")
# on standard output. The parameters are p2pconf.sbatch's (see its header);
# P2PCONF_RUN is chosen here (UTC time unless set) so that both jobs use the
# same run folder. Also:
#   P2PCONF_MERGE_SBATCH_FLAGS  sbatch options of the merge job, e.g. "-p cpu"
#                               (default: one task, one CPU, --time=00:30:00)
#   P2PCONF_SBATCH              the batch script (default: p2pconf.sbatch
#                               beside this file)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
script=${P2PCONF_SBATCH:-$here/p2pconf.sbatch}
[ -f "$script" ] || { echo "submit.sh: no batch script $script" >&2; exit 2; }
command -v sbatch >/dev/null || { echo "submit.sh: sbatch is not on PATH" >&2; exit 2; }

job_opts=()
run_args=()
while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	--) shift; run_args=("$@"); break ;;
	*) job_opts+=("$1") ;;
	esac
	shift
done

export P2PCONF_RUN=${P2PCONF_RUN:-$(date -u +%Y%m%dT%H%M%SZ)}
# Relative folders are taken from the submit directory in the jobs; make
# them absolute here so both jobs agree whatever their working directory.
export P2PCONF_REPORTS=${P2PCONF_REPORTS:-$PWD/reports}
case "$P2PCONF_REPORTS" in /*) ;; *) P2PCONF_REPORTS=$PWD/$P2PCONF_REPORTS ;; esac

run_job=$(sbatch --parsable ${job_opts[@]+"${job_opts[@]}"} "$script" run ${run_args[@]+"${run_args[@]}"})
run_job=${run_job%%;*}
merge_opts=()
read -r -a merge_opts <<<"${P2PCONF_MERGE_SBATCH_FLAGS:---time=00:30:00}"
# Command-line options override the script's #SBATCH lines: one task on a
# shared node, no GPU, no whole-node allocation.
merge_job=$(sbatch --parsable --dependency="afterany:$run_job" --job-name=p2pconf-merge \
	--nodes=1 --ntasks=1 --ntasks-per-node=1 --cpus-per-task=1 --oversubscribe --mem=1G \
	--output="p2pconf-merge-%j.out" ${merge_opts[@]+"${merge_opts[@]}"} "$script" merge)
merge_job=${merge_job%%;*}
echo "$P2PCONF_RUN $run_job $merge_job"
echo "submit.sh: run $P2PCONF_RUN: run job $run_job, merge job $merge_job (afterany); reports in $P2PCONF_REPORTS/$P2PCONF_RUN" >&2
