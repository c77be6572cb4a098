#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The p2pconf Authors
#
# p2pconf-healthcheck.sh is a Slurm HealthCheckProgram: on the node it runs
# on, it takes the p2pconf preflight verdict (a verdict file younger than
# P2PCONF_MAX_AGE, else a fresh `p2pconf preflight` run), and
#   FAIL       drains the node: scontrol update NodeName=<node> State=DRAIN
#              Reason="p2pconf: <pair or GPU> <check>"
#   PASS/WARN  resumes the node, but only when its drain reason is one this
#              script set (it starts with "p2pconf:"): a drain of anyone
#              else's is left alone
#   UNKNOWN    changes nothing (P2PCONF_DRAIN_UNKNOWN=1: drains with reason
#              "p2pconf: node UNKNOWN")
# and prints one line. In slurm.conf:
#
#   HealthCheckProgram=/opt/p2pconf/deploy/slurm/p2pconf-healthcheck.sh
#   HealthCheckInterval=3600
#   HealthCheckNodeState=IDLE
#
# Settings (environment, or a file named by P2PCONF_HEALTHCHECK_CONF with
# VAR=VALUE lines, default /etc/p2pconf/healthcheck.conf when it exists):
#   P2PCONF_BUNDLE      the unpacked dist bundle (default: two folders up)
#   P2PCONF_VERDICT     the verdict file (default /var/lib/p2pconf/verdict.json)
#   P2PCONF_MAX_AGE     use a verdict younger than this (Go duration; default
#                       1h; 0: always run preflight)
#   P2PCONF_PREFLIGHT_FLAGS  more flags of p2pconf preflight, e.g.
#                       "--textfile /var/lib/node_exporter/textfile"
#   P2PCONF_PREFLIGHT_TIMEOUT  seconds a preflight run may take (default 300)
#   P2PCONF_NODE        the Slurm node name (default SLURMD_NODENAME, else
#                       hostname -s)
#   P2PCONF_DRAIN_UNKNOWN  1: drain on UNKNOWN too
#
# Exit status: 0 PASS or WARN, 1 FAIL, 2 UNKNOWN (Slurm ignores it; it is
# for a person running the script by hand).
set -uo pipefail

conf=${P2PCONF_HEALTHCHECK_CONF:-/etc/p2pconf/healthcheck.conf}
if [ -f "$conf" ]; then
	while IFS= read -r line; do
		case "$line" in '' | '#'*) continue ;; esac
		[[ "$line" =~ ^P2PCONF_[A-Z_]+= ]] || { echo "p2pconf-healthcheck: $conf: '$line' is not P2PCONF_VAR=VALUE" >&2; exit 2; }
		export "${line%%=*}=${line#*=}"
	done <"$conf"
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bundle=${P2PCONF_BUNDLE:-$(cd "$here/../.." && pwd)}
bin=$bundle/bin/p2pconf
verdict=${P2PCONF_VERDICT:-/var/lib/p2pconf/verdict.json}
max_age=${P2PCONF_MAX_AGE:-1h}
node=${P2PCONF_NODE:-${SLURMD_NODENAME:-$(hostname -s)}}
limit=${P2PCONF_PREFLIGHT_TIMEOUT:-300}
prefix="p2pconf:"
log() { echo "p2pconf-healthcheck: $node: $*" >&2; }

[ -x "$bin" ] || { log "no p2pconf in $bundle/bin (set P2PCONF_BUNDLE)"; exit 2; }
[[ "$limit" =~ ^[0-9]+$ ]] || { log "P2PCONF_PREFLIGHT_TIMEOUT=$limit is not a number of seconds"; exit 2; }
command -v scontrol >/dev/null || { log "scontrol is not on PATH"; exit 2; }

# A fresh enough verdict is used as it is; otherwise preflight runs now,
# bounded in time, into a run folder of its own under the verdict's folder.
code=2
if [ "$max_age" != 0 ]; then
	"$bin" preflight status --max-age "$max_age" "$verdict" >/dev/null 2>&1
	code=$?
fi
if [ "$code" -eq 2 ]; then
	mkdir -p "$(dirname "$verdict")" || { log "cannot create the folder of $verdict"; exit 2; }
	flags=()
	read -r -a flags <<<"${P2PCONF_PREFLIGHT_FLAGS:-}"
	run_dir=$(dirname "$verdict")/runs/$(date -u +%Y%m%dT%H%M%SZ)-$$
	mkdir -p "$(dirname "$run_dir")" || { log "cannot create $(dirname "$run_dir")"; exit 2; }
	log "running p2pconf preflight (at most ${limit}s) into $run_dir"
	P2PCONF_REPORT_DIR=$run_dir P2PCONF_HOST=$node timeout "$limit" "$bin" preflight --verdict "$verdict" ${flags[@]+"${flags[@]}"} \
		>"$run_dir.log" 2>&1 || true
fi
status=(preflight status)
[ "$max_age" != 0 ] && status+=(--max-age "$max_age")
line=$("$bin" "${status[@]}" "$verdict" 2>/dev/null)
code=$?
echo "$line"

state=$(sinfo -h -N -n "$node" -o '%T' 2>/dev/null | head -n 1)
reason=$(sinfo -h -N -n "$node" -o '%E' 2>/dev/null | head -n 1)
ours=0
case "$reason" in "$prefix"*) ours=1 ;; esac
drained=0
case "$state" in drain* | drained*) drained=1 ;; esac

drain() {
	local why=$1
	if [ "$drained" -eq 1 ] && [ "$reason" = "$why" ]; then
		log "already drained: $why"
		return
	fi
	if [ "$drained" -eq 1 ] && [ "$ours" -eq 0 ]; then
		log "drained by someone else ($reason); leaving their reason, not adding: $why"
		return
	fi
	scontrol update NodeName="$node" State=DRAIN Reason="$why" || { log "scontrol could not drain the node"; exit 2; }
	log "drained: $why"
}

case "$code" in
0)
	if [ "$drained" -eq 1 ] && [ "$ours" -eq 1 ]; then
		scontrol update NodeName="$node" State=RESUME || { log "scontrol could not resume the node"; exit 2; }
		log "resumed: preflight passes again (it was drained with: $reason)"
	elif [ "$drained" -eq 1 ]; then
		log "left drained: its reason is not p2pconf's ($reason)"
	fi
	exit 0
	;;
1)
	why=$("$bin" preflight status --reason "$verdict" 2>/dev/null)
	case "$why" in "$prefix"*) ;; *) why="$prefix node FAIL" ;; esac
	drain "$why"
	exit 1
	;;
*)
	if [ "${P2PCONF_DRAIN_UNKNOWN:-0}" = 1 ]; then
		drain "$prefix node UNKNOWN"
	else
		log "UNKNOWN: the node's state is left as it is (P2PCONF_DRAIN_UNKNOWN=1 drains it)"
	fi
	exit 2
	;;
esac
