#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The p2pconf Authors
#
# tests/slurm/run.sh runs deploy/slurm/, as the dist tarball ships it, on a
# real Slurm cluster of three simulated nodes on this machine, with the fake
# backend, and checks the merged fleet view. No GPU is needed.
#
#   tests/slurm/run.sh
#
# It installs Slurm and munge from Debian's packages when they are missing
# (apt-get --no-install-recommends, one line per package saying why; needs
# root), builds a dist bundle of the access suite (or takes
# P2PCONF_DIST_TARBALL), then, in a network namespace of its own where only
# loopback exists (unshare -n; without it, on 127.0.0.1 and ports 16817-16823),
# starts munged, slurmctld and three slurmd (NodeName sim1..sim3, one
# NodeHostname=localhost, distinct ports: Debian builds Slurm with multiple
# slurmd support) and submits two fleet runs of one check
# (access.kernel-remote-write on pairs 0-1 and 1-0 of the fake h200x2):
#
#   1. baseline: sbatch -N 3 p2pconf.sbatch (mode all: nodes, then the merge
#      in the batch step); every node passes, the diff is skipped (no BASELINE).
#   2. defect: deploy/slurm/submit.sh -N 3 (run job + merge job with
#      --dependency=afterany) with sim2 given P2PCONF_FAKE_DEFECTS=peer-store-dropped
#      (through P2PCONF_NODE_ENV) and BASELINE=the first run's fleet: sim2
#      fails GPU0→GPU1, the fleet view lists sim2 first with its rerun
#      command, and the diff reports the regression on sim2.
#   3. health check: deploy/slurm/p2pconf-healthcheck.sh on each node as
#      slurmd runs it (p2pconf preflight --suites access): sim2, with the
#      same defect, is drained with reason "p2pconf: 0-1 <check>", sim1 stays
#      up, sim3 (drained by hand first) keeps its own reason; a fresh verdict
#      is reused without a run; a later passing run on sim2 resumes it.
#
# Every wait is bounded (P2PCONF_SLURM_TIMEOUT seconds per run, default 600);
# every daemon started here is stopped on exit, SIGTERM and SIGINT included
# (the test's own jobs are cancelled first); a daemon that does not come
# up fails the test with its log. P2PCONF_SLURM_KEEP=1 keeps the work folder.
#
# Exit status: 0 when every check passed, 1 on a failure, 2 when the
# prerequisites could not be installed or built.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
self=$root/tests/slurm/run.sh
timeout_s=${P2PCONF_SLURM_TIMEOUT:-600}
log() { echo "tests/slurm: $*" >&2; }
fail() {
	echo "tests/slurm: FAIL: $*" >&2
	exit 1
}

# ---- phase 1: prerequisites, in the machine's own network namespace ----

install_prerequisites() {
	local c missing=()
	for c in slurmctld slurmd sbatch squeue scontrol sinfo scancel munged mungekey munge ip; do
		command -v "$c" >/dev/null || missing+=("$c")
	done
	[ ${#missing[@]} -eq 0 ] && return
	# Each package with the reason it is needed; recommended packages stay
	# out (Debian's slurmd recommends would pull ROCm and HDF5 dev packages).
	local pkgs=(
		"slurmctld:the controller the batch script is submitted to"
		"slurmd:the three simulated nodes"
		"slurm-client:sbatch, srun, squeue, scontrol, sinfo and scancel"
		"munge:the authentication Slurm's daemons and commands use (munged, mungekey)"
		"iproute2:ip, to bring up loopback in the test's network namespace"
	)
	local p names=()
	log "missing: ${missing[*]}"
	[ "$(id -u)" -eq 0 ] || { log "needs root to install ${pkgs[*]%%:*}"; exit 2; }
	for p in "${pkgs[@]}"; do
		log "installing ${p%%:*} (--no-install-recommends): ${p#*:}"
		names+=("${p%%:*}")
	done
	if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${names[@]}"; } >"$1/apt.log" 2>&1; then
		tail -n 30 "$1/apt.log" >&2
		log "apt-get could not install Slurm and munge"
		exit 2
	fi
}

if [ "${1:-}" != --cluster ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/p2pconf-slurm.XXXXXX")
	if [ "${P2PCONF_SLURM_KEEP:-}" = 1 ]; then
		trap 'log "kept $work"' EXIT
	else
		trap 'rm -rf "$work"' EXIT
	fi
	install_prerequisites "$work"
	tarball=${P2PCONF_DIST_TARBALL:-}
	if [ -z "$tarball" ]; then
		log "building a dist bundle of the access suite"
		tarball=$(bash "$root/dist/build.sh" --out "$work/dist" ./suites/access 2>"$work/build.log" | tail -n 1) ||
			{ tail -n 30 "$work/build.log" >&2; log "dist/build.sh failed"; exit 2; }
	fi
	mkdir -p "$work/shared"
	tar -xzf "$tarball" -C "$work/shared" || { log "cannot unpack $tarball"; exit 2; }
	mv "$work"/shared/p2pconf-*-linux-amd64 "$work/shared/bundle"
	[ -x "$work/shared/bundle/deploy/slurm/submit.sh" ] && [ -f "$work/shared/bundle/deploy/slurm/p2pconf.sbatch" ] ||
		{ log "$tarball holds no deploy/slurm/ (built before dist/build.sh shipped it?)"; exit 2; }
	cp "$tarball" "$work/shared/bundle.tar.gz"
	# The cluster phase runs in the background so that a SIGTERM or SIGINT
	# sent to this script (a CI timeout, ^C) reaches it: bash runs no trap
	# while a foreground child runs, and would leave the daemons running.
	if unshare --net true 2>/dev/null; then
		unshare --net bash "$self" --cluster "$work" netns &
	else
		log "unshare --net is not permitted here; running on this namespace's loopback"
		bash "$self" --cluster "$work" &
	fi
	cluster=$!
	trap 'kill -TERM "$cluster" 2>/dev/null || true' TERM INT
	rc=0
	wait "$cluster" || rc=$?
	# A trapped signal ends the wait early: wait again while the cluster
	# phase stops its daemons.
	while kill -0 "$cluster" 2>/dev/null; do
		rc=0
		wait "$cluster" || rc=$?
	done
	exit $rc
fi

# ---- phase 2: the cluster, on loopback only ----

work=$2
if [ "${3:-}" = netns ]; then
	ip link set lo up || fail "cannot bring up loopback in the test's network namespace"
	# Slurm resolves with AF_INET and AI_ADDRCONFIG, which glibc answers only
	# when some IPv4 address other than 127.0.0.1 exists: a second loopback
	# address, still reachable from this namespace alone.
	ip addr add 127.0.0.2/8 dev lo || fail "cannot add 127.0.0.2 to loopback"
fi
# Nothing of an outer Slurm job may leak into this cluster's commands.
for v in $(compgen -e | grep '^SLURM_' || true); do unset "$v"; done
etc=$work/etc
export SLURM_CONF=$etc/slurm.conf
mkdir -p "$etc" "$work/state" "$work/log" "$work/munge" "$work/shared/reports"
# munged wants every folder above its socket searchable by all.
chmod 0755 "$work" "$work/munge"
nodes=(sim1 sim2 sim3)

pids=()
names=()
jobs_submitted=()
cleanup() {
	local rc=$? i
	for i in "${jobs_submitted[@]}"; do scancel "$i" 2>/dev/null || true; done
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		kill -TERM "${pids[$i]}" 2>/dev/null || continue
		for _ in $(seq 50); do kill -0 "${pids[$i]}" 2>/dev/null || break; sleep 0.2; done
		if kill -0 "${pids[$i]}" 2>/dev/null; then
			log "${names[$i]} (pid ${pids[$i]}) ignored SIGTERM; killing it"
			kill -KILL "${pids[$i]}" 2>/dev/null || true
		fi
		wait "${pids[$i]}" 2>/dev/null || true
	done
	exit $rc
}
trap cleanup EXIT
# bash runs the EXIT trap on SIGINT but not on SIGTERM: turn both into an
# exit so the daemons are always stopped.
trap 'exit 143' TERM
trap 'exit 130' INT

# started NAME LOG: records the daemon just started in the background.
started() {
	pids+=($!)
	names+=("$1")
	logs+=("$2")
}
logs=()

# wait_up NAME LOG SECONDS CMD...: polls CMD until it succeeds, failing with
# the daemon's log when the daemon died or the time ran out.
wait_up() {
	local name=$1 logf=$2 secs=$3 pid=${pids[-1]}
	shift 3
	local deadline=$((SECONDS + secs))
	until "$@" >/dev/null 2>&1; do
		if ! kill -0 "$pid" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
			local f
			for f in "$logf" "${logf%.log}.out"; do
				[ -f "$f" ] && { echo "---- $f" >&2; tail -n 40 "$f" >&2; }
			done
			fail "$name did not start (see its log above)"
		fi
		sleep 0.5
	done
}

# munge: a fresh key and a private socket.
mungekey -c -k "$work/munge/munge.key" || fail "mungekey could not create a key"
sock=$work/munge/munge.socket
munged -F --key-file="$work/munge/munge.key" --socket="$sock" --pid-file="$work/munge/munged.pid" \
	--log-file="$work/log/munged.log" --seed-file="$work/munge/munged.seed" >"$work/log/munged.out" 2>&1 &
started munged "$work/log/munged.log"
wait_up munged "$work/log/munged.log" 20 bash -c "munge -S '$sock' -n | unmunge -S '$sock'"

cat >"$SLURM_CONF" <<EOF
# Generated by tests/slurm/run.sh: three simulated nodes on loopback.
ClusterName=p2pconftest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SrunPortRange=16900-16999
CommunicationParameters=NoInAddrAny
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool/%n
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.%n.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MinJobAge=3600
SlurmdTimeout=60
NodeName=sim1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=16821 CPUs=2 RealMemory=4096 State=UNKNOWN
NodeName=sim2 NodeHostname=localhost NodeAddr=127.0.0.1 Port=16822 CPUs=2 RealMemory=4096 State=UNKNOWN
NodeName=sim3 NodeHostname=localhost NodeAddr=127.0.0.1 Port=16823 CPUs=2 RealMemory=4096 State=UNKNOWN
PartitionName=p2pconf Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -D -i -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
started slurmctld "$work/log/slurmctld.log"
wait_up slurmctld "$work/log/slurmctld.log" 60 bash -c 'scontrol ping | grep -q "is UP"'
for n in "${nodes[@]}"; do
	mkdir -p "$work/spool/$n"
	slurmd -D -f "$SLURM_CONF" -N "$n" >"$work/log/slurmd.$n.out" 2>&1 &
	started "slurmd $n" "$work/log/slurmd.$n.log"
done
for i in "${!nodes[@]}"; do
	n=${nodes[$i]}
	pids_at=$((${#pids[@]} - ${#nodes[@]} + i))
	# wait_up watches the last daemon started; check each slurmd's pid here.
	kill -0 "${pids[$pids_at]}" 2>/dev/null || { tail -n 40 "$work/log/slurmd.$n.log" "$work/log/slurmd.$n.out" >&2 || true; fail "slurmd $n died at start"; }
done
# shellcheck disable=SC2016 # expanded by the inner bash
wait_up "slurmd sim1..sim3" "$work/log/slurmctld.log" 60 \
	bash -c '[ "$(sinfo -h -N -o "%N %t" | sort -u | grep -c " idle$")" -eq 3 ]'
log "cluster up: $(sinfo -h -N -o '%N:%t' | sort -u | tr '\n' ' ')"

# ---- the fleet runs ----

shared=$work/shared
# The scripts as the tarball ships them, as a cluster without a checkout
# runs them.
slurm_dir=$shared/bundle/deploy/slurm
export P2PCONF_BUNDLE=$shared/bundle
export P2PCONF_REPORTS=$shared/reports
export P2PCONF_BACKEND=fake P2PCONF_FAKE=h200x2 P2PCONF_PAIRS=0-1,1-0
export P2PCONF_SUITES=access P2PCONF_LABEL_FILTER='id:access.kernel-remote-write'
unset P2PCONF_FAKE_DEFECTS BASELINE P2PCONF_HOST P2PCONF_REPORT_DIR P2PCONF_TARBALL
# The jobs' temporary folders (P2PCONF_TARBALL unpacks there) land here, to
# check that nothing is left behind.
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
cd "$shared"

# wait_jobs ID...: until every job has ended (scontrol keeps ended jobs for
# MinJobAge), bounded.
wait_jobs() {
	local deadline=$((SECONDS + timeout_s)) id state running
	while :; do
		running=()
		for id in "$@"; do
			state=$(job_field "$id" JobState)
			case "$state" in
			COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | PREEMPTED | BOOT_FAIL | DEADLINE) ;;
			*) running+=("$id:${state:-unknown}") ;;
			esac
		done
		[ ${#running[@]} -eq 0 ] && return
		if [ $SECONDS -ge $deadline ]; then
			squeue >&2 || true
			tail -n 40 "$work/log/slurmctld.log" >&2 || true
			fail "jobs ${running[*]} still not ended after ${timeout_s}s"
		fi
		sleep 1
	done
}

# job_field ID FIELD: a field of scontrol show job (kept MinJobAge=3600 s).
job_field() { scontrol show job -o "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

checks=0
# expect DESCRIPTION CMD...: one assertion.
expect() {
	local what=$1
	shift
	"$@" || fail "$what"
	checks=$((checks + 1))
}
expect_job() {
	local id=$1 state=$2 exit=$3 out=$4
	local got_state got_exit
	got_state=$(job_field "$id" JobState)
	got_exit=$(job_field "$id" ExitCode)
	if [ "$got_state" != "$state" ] || [ "$got_exit" != "$exit" ]; then
		echo "---- $out" >&2
		cat "$out" >&2 || true
		fail "job $id: $got_state exit $got_exit, want $state exit $exit"
	fi
	checks=$((checks + 1))
}
has() { grep -Fq -- "$2" "$1"; }
hasnt() { ! grep -Fq -- "$2" "$1"; }

# Run 1: the baseline, one job (nodes, then the merge in its batch step).
export P2PCONF_RUN=baseline P2PCONF_EXPECT_HOSTS=3
log "run 1 (baseline): sbatch -N 3 p2pconf.sbatch"
base_job=$(sbatch --parsable -N 3 "$slurm_dir/p2pconf.sbatch")
jobs_submitted+=("$base_job")
wait_jobs "$base_job"
out=$shared/p2pconf-$base_job.out
expect_job "$base_job" COMPLETED 0:0 "$out"
expect "the baseline job's nodes are sim1..sim3" has "$P2PCONF_REPORTS/baseline/.slurm/nodes" sim3
for n in "${nodes[@]}"; do
	expect "$n wrote its run folder, with host $n" has "$P2PCONF_REPORTS/baseline/$n/conformance.json" "\"host\": \"$n\""
done
expect "the batch step says the diff is skipped without BASELINE" has "$out" "no BASELINE given; skipping the diff"
expect "the baseline fleet view has 3 hosts" has "$P2PCONF_REPORTS/baseline/fleet/fleet.md" "p2pconf fleet — 3 hosts"
expect "the baseline fleet view has no failure" hasnt "$P2PCONF_REPORTS/baseline/fleet/fleet.md" "rerun on "

# Run 2: sim2 drops peer stores; run job + dependent merge job, with a
# baseline; every node unpacks the tarball instead of using the shared bundle.
export P2PCONF_RUN=defect
unset P2PCONF_BUNDLE
export P2PCONF_TARBALL=$shared/bundle.tar.gz
export BASELINE=$P2PCONF_REPORTS/baseline/fleet
echo "sim2 P2PCONF_FAKE_DEFECTS=peer-store-dropped" >"$shared/node.env"
export P2PCONF_NODE_ENV=$shared/node.env
log "run 2 (defect on sim2): deploy/slurm/submit.sh -N 3"
read -r run run_job merge_job < <("$slurm_dir/submit.sh" -N 3)
jobs_submitted+=("$run_job" "$merge_job")
expect "submit.sh names the run" test "$run" = defect
expect "the merge job depends on the run job (afterany)" test "$(job_field "$merge_job" Dependency)" = "afterany:${run_job}(unfulfilled)"
expect "the run job holds its nodes whole (--exclusive)" test "$(job_field "$run_job" OverSubscribe)" = NO
expect "the run job has one task per node" test "$(job_field "$run_job" NumTasks)" = 3
expect "the merge job does not hold a whole node" test "$(job_field "$merge_job" OverSubscribe)" != NO
wait_jobs "$run_job" "$merge_job"
expect_job "$run_job" FAILED 1:0 "$shared/p2pconf-$run_job.out"
expect_job "$merge_job" FAILED 1:0 "$shared/p2pconf-merge-$merge_job.out"
rd=$P2PCONF_REPORTS/defect
for n in "${nodes[@]}"; do
	expect "$n wrote its run folder, with host $n" has "$rd/$n/conformance.json" "\"host\": \"$n\""
	expect "the fleet has $n's own files" test -s "$rd/fleet/hosts/$n/matrix.html"
done
expect "only sim2 ran with the defect" has "$rd/sim2/conformance.json" '"backend": "fake:h200x2+peer-store-dropped"'
expect "sim1 ran without the defect" has "$rd/sim1/conformance.json" '"backend": "fake:h200x2"'
md=$rd/fleet/fleet.md
expect "fleet.md names 3 hosts" has "$md" "p2pconf fleet — 3 hosts"
expect "fleet.json holds sim1, sim2 and sim3" test "$(grep -o '"host": "sim[0-9]"' "$rd/fleet/fleet.json" | sort -u | tr '\n' ' ')" = '"host": "sim1" "host": "sim2" "host": "sim3" '
first_host=$(grep -m1 '^| sim' "$md" | awk -F'|' '{gsub(/ /, "", $2); print $2}')
expect "the host table lists the failing sim2 first (got $first_host)" test "$first_host" = sim2
first_row=$(sed -n '/^## access/,$p' "$md" | grep -m1 '^| sim')
expect "the access grid lists sim2 first, failing (got: $first_row)" test "$(awk -F'|' '{gsub(/ /, "", $2); print $2}' <<<"$first_row")" = sim2
expect "sim2's access row shows a failure" grep -q '✗' <<<"$first_row"
expect "fleet.md gives the rerun command on sim2" has "$md" "rerun on sim2: \`P2PCONF_BACKEND=fake P2PCONF_FAKE=h200x2 P2PCONF_FAKE_DEFECTS=peer-store-dropped P2PCONF_PAIRS=0-1 go tool ginkgo --label-filter='id:access.kernel-remote-write && pair:0-1' ./suites/access\`"
expect "fleet.md has no rerun command for sim1 or sim3" test "$(grep -c 'rerun on sim[13]' "$md")" -eq 0
expect "the diff marks sim2's GPU0→GPU1 as a regression" grep -q '^! \[sim2\] access.kernel-remote-write GPU0→GPU1' "$rd/diff.txt"
expect "the diff counts one regression" has "$rd/diff.txt" "1 regression(s)."
expect "the merge job's output names the regression" has "$shared/p2pconf-merge-$merge_job.out" "regressions against $BASELINE"
expect "every node ran the bundle unpacked from the tarball" test "$(grep -c "run.sh --run defect .*-> " "$shared/p2pconf-$run_job.out")" -eq 3
expect "each node ran from its own unpacked copy" test "$(grep "run.sh --run defect" "$shared/p2pconf-$run_job.out" | grep -c "$TMPDIR/p2pconf-bundle\.")" -eq 3
expect "the unpacked bundles were removed" test -z "$(ls -A "$TMPDIR")"

# The merge mode alone, outside Slurm, as the Kubernetes merge Job runs it:
# fewer hosts than P2PCONF_EXPECT_HOSTS fail it.
log "merge mode outside Slurm, expecting 4 hosts of 3"
set +e
P2PCONF_BUNDLE=$shared/bundle P2PCONF_TARBALL='' P2PCONF_FLEET=$work/k8s-fleet P2PCONF_EXPECT_HOSTS=4 BASELINE='' \
	bash "$slurm_dir/p2pconf.sbatch" merge >"$work/merge-only.out" 2>&1
rc=$?
set -e
expect "merge mode exits 1 when a host is missing (got $rc)" test $rc -eq 1
expect "merge mode says how many hosts it wanted" has "$work/merge-only.out" "3 host(s) left results in $rd, want 4 (P2PCONF_EXPECT_HOSTS)"
expect "merge mode takes no fleet view for a host" hasnt "$work/merge-only.out" "holds no results"
expect "merge mode skips the diff without BASELINE" has "$work/merge-only.out" "no BASELINE given; skipping the diff"
expect "merge mode wrote the fleet view where P2PCONF_FLEET points" has "$work/k8s-fleet/fleet.md" "p2pconf fleet — 3 hosts"

# ---- the health check: preflight verdicts drain and resume nodes ----
# deploy/slurm/p2pconf-healthcheck.sh as slurmd runs it (HealthCheckProgram:
# outside any job, SLURMD_NODENAME set), against this cluster's slurmctld,
# with the profile's access suite (the bundle's only suite). sim3 is drained
# by an operator first: a passing verdict must not resume a drain that is
# not the script's.
hc=$slurm_dir/p2pconf-healthcheck.sh
scontrol update NodeName=sim3 State=DRAIN Reason="maintenance: fan" || fail "cannot drain sim3 by hand"
# run_hc NODE [VAR=VALUE...]: the health check on NODE; its exit status in hc_rc.
run_hc() {
	local n=$1
	shift
	set +e
	env SLURMD_NODENAME="$n" P2PCONF_BUNDLE="$shared/bundle" P2PCONF_VERDICT="$work/hc/$n/verdict.json" \
		P2PCONF_HEALTHCHECK_CONF=/nonexistent P2PCONF_PREFLIGHT_FLAGS="--suites access" P2PCONF_PREFLIGHT_TIMEOUT=$timeout_s \
		"$@" bash "$hc" >"$work/hc.$n.out" 2>&1
	hc_rc=$?
	set -e
}
node_state() { sinfo -h -N -n "$1" -o '%T' | head -n 1; }
node_reason() { sinfo -h -N -n "$1" -o '%E' | head -n 1; }
log "health check: sim1 and sim3 clean, sim2 with peer-store-dropped"
run_hc sim1
expect "the health check passes on sim1 (exit $hc_rc; $(tail -n 3 "$work/hc.sim1.out" | tr '\n' ' '))" test "$hc_rc" -eq 0
run_hc sim2 P2PCONF_FAKE_DEFECTS=peer-store-dropped
expect "the health check fails on sim2 (exit $hc_rc; $(tail -n 3 "$work/hc.sim2.out" | tr '\n' ' '))" test "$hc_rc" -eq 1
run_hc sim3
expect "the health check passes on sim3 (exit $hc_rc)" test "$hc_rc" -eq 0
want_reason=$("$shared/bundle/bin/p2pconf" preflight status --reason "$work/hc/sim2/verdict.json" || true)
expect "sim2's verdict names pair 0-1 and an access check ($want_reason)" grep -Eq '^p2pconf: 0-1 access\.' <<<"$want_reason"
expect "sim2 is drained (state $(node_state sim2))" grep -Eq '^drain' <<<"$(node_state sim2)"
expect "sim2's drain reason is '$want_reason' (got '$(node_reason sim2)')" test "$(node_reason sim2)" = "$want_reason"
expect "sim1 stays up (state $(node_state sim1))" grep -Eq '^(idle|mixed|allocated)' <<<"$(node_state sim1)"
expect "sim3 keeps the operator's drain" test "$(node_reason sim3)" = "maintenance: fan"
expect "the health check says sim3's drain is not its own" has "$work/hc.sim3.out" "left drained: its reason is not p2pconf's (maintenance: fan)"
runs_before=$(ls "$work/hc/sim1/runs" | grep -vc '\.log$')
run_hc sim1 P2PCONF_MAX_AGE=1h
expect "a fresh verdict is used without a new run" test "$(ls "$work/hc/sim1/runs" | grep -vc '\.log$')" -eq "$runs_before"
expect "the reused verdict still passes (exit $hc_rc)" test "$hc_rc" -eq 0
log "health check: sim2 again without the defect (P2PCONF_MAX_AGE=0: a new run)"
run_hc sim2 P2PCONF_MAX_AGE=0
expect "the health check passes on sim2 now (exit $hc_rc)" test "$hc_rc" -eq 0
expect "sim2 is resumed (state $(node_state sim2))" grep -Eq '^(idle|mixed|allocated)' <<<"$(node_state sim2)"
expect "the health check says it resumed sim2" has "$work/hc.sim2.out" "resumed: preflight passes again"
scontrol update NodeName=sim3 State=RESUME || fail "cannot resume sim3"
log "fleet view: $md"
log "PASS: $checks checks on a Slurm cluster of ${#nodes[@]} simulated nodes"
