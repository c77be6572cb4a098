#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The p2pconf Authors
#
# tests/prometheus/run.sh checks the node_exporter textfile p2pconf
# preflight writes, with Debian's own Prometheus parts: a preflight run of
# the access suite on the fake backend (two H200, pairs 0-1 and 1-0) writes
# p2pconf.prom; `promtool check metrics` must accept it, and
# prometheus-node-exporter, started on loopback with only its textfile
# collector on that folder, must serve its samples (and report no textfile
# error). No GPU is needed.
#
#   tests/prometheus/run.sh
#
# It installs the Debian packages prometheus (promtool) and
# prometheus-node-exporter when missing (apt-get --no-install-recommends,
# bounded in time; needs root). Without apt-get or root it prints why and
# exits 0 without checking. Every wait is bounded; node_exporter is stopped
# on exit. Exit status: 0 passed (or skipped with the reason), 1 a check
# failed, 2 the prerequisites could not be installed or p2pconf not built.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
log() { echo "tests/prometheus: $*" >&2; }
fail() {
	echo "tests/prometheus: FAIL: $*" >&2
	exit 1
}
exporter=prometheus-node-exporter
need=()
command -v promtool >/dev/null || need+=("prometheus:promtool, to check the textfile's syntax and naming")
command -v "$exporter" >/dev/null || need+=("prometheus-node-exporter:node_exporter, to serve the textfile")
if [ ${#need[@]} -gt 0 ]; then
	if ! command -v apt-get >/dev/null || [ "$(id -u)" -ne 0 ]; then
		log "SKIP: needs ${need[*]%%:*} and cannot install them here (no apt-get, or not root)"
		exit 0
	fi
	names=()
	for p in "${need[@]}"; do
		log "installing ${p%%:*} (--no-install-recommends): ${p#*:}"
		names+=("${p%%:*}")
	done
	aptlog=$(mktemp "${TMPDIR:-/tmp}/p2pconf-prometheus-apt.XXXXXX")
	if ! { timeout 300 apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends \
		"${names[@]}"; } >"$aptlog" 2>&1; then
		tail -n 20 "$aptlog" >&2
		rm -f "$aptlog"
		log "apt-get could not install ${names[*]}"
		exit 2
	fi
	rm -f "$aptlog"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/p2pconf-prometheus.XXXXXX")
pid=
cleanup() {
	if [ -n "$pid" ]; then
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

cd "$root"
export CGO_CFLAGS=${CGO_CFLAGS:--Wno-deprecated-declarations}
go build -o "$work/p2pconf" ./cmd/p2pconf || { log "cannot build p2pconf"; exit 2; }
log "p2pconf preflight --suites access on the fake h200x2 -> $work/textfile/p2pconf.prom"
set +e
P2PCONF_BACKEND=fake P2PCONF_FAKE=h200x2 P2PCONF_PAIRS=0-1,1-0 P2PCONF_HOST=promtest P2PCONF_REPORT_DIR="$work/run" \
	timeout 600 "$work/p2pconf" preflight --suites access --textfile "$work/textfile" >"$work/preflight.out" 2>&1
rc=$?
set -e
[ "$rc" -eq 0 ] || { tail -n 30 "$work/preflight.out" >&2; fail "preflight exited $rc on the clean fake, want 0"; }
prom=$work/textfile/p2pconf.prom
[ -s "$prom" ] || fail "no $prom"
[ "$(ls -A "$work/textfile")" = p2pconf.prom ] || fail "the textfile folder holds more than p2pconf.prom: $(ls -A "$work/textfile")"
checks=0
expect() {
	local what=$1
	shift
	"$@" || fail "$what"
	checks=$((checks + 1))
}
# promtool's lint asks for snake_case label names; modelName is
# dcgm-exporter's name for the GPU model label (the join needs it as it is),
# so that one complaint is the only one accepted. A parse error or any other
# lint problem fails.
camel="label names should be written in 'snake_case' not 'camelCase'"
expect "promtool check metrics accepts p2pconf.prom, but for dcgm-exporter's camelCase modelName ($(promtool check metrics <"$prom" 2>&1 | grep -vF "$camel" | head -n 3 | tr '\n' ' '))" \
	bash -c '! promtool check metrics <"$1" 2>&1 | grep -vF "$2" | grep -q .' _ "$prom" "$camel"
# Label values may hold spaces (modelName="NVIDIA H200"): the label set is
# cut before the fields are counted.
expect "no sample carries a timestamp" bash -c '! grep -v "^#" "$1" | sed -E "s/\{.*\}//" | awk "NF != 2 { bad = 1 } END { exit !bad }"' _ "$prom"
expect "the node verdict is PASS (0) with the host's name" grep -q '^p2pconf_preflight_node_verdict{Hostname="promtest"} 0$' "$prom"
expect "pairs carry dcgm-exporter's labels in its value forms" grep -Eq '^p2pconf_preflight_pair_verdict\{Hostname="promtest",UUID="GPU-[^"]+",device="nvidia[0-9]+",gpu="0",modelName="[^"]+",pci_bus_id="[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\.[0-7]",peer_UUID="GPU-[^"]+",peer_gpu="1"\} 0$' "$prom"
expect "build info is there" grep -q '^p2pconf_build_info{' "$prom"

port=19977
"$exporter" --web.listen-address=127.0.0.1:$port --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$work/textfile" >"$work/exporter.log" 2>&1 &
pid=$!
scrape() {
	exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
	printf 'GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
	cat <&3 >"$work/scrape.txt"
	exec 3<&-
}
deadline=$((SECONDS + 30))
until scrape 2>/dev/null && grep -q '^p2pconf_preflight_node_verdict' "$work/scrape.txt"; do
	if ! kill -0 "$pid" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
		tail -n 20 "$work/exporter.log" >&2
		fail "node_exporter did not serve the textfile within 30 s"
	fi
	sleep 0.5
done
expect "node_exporter serves the node verdict" grep -q '^p2pconf_preflight_node_verdict{Hostname="promtest"} 0' "$work/scrape.txt"
expect "node_exporter serves every pair check of the file" test "$(grep -c '^p2pconf_preflight_pair_check_verdict{' "$work/scrape.txt")" -eq "$(grep -c '^p2pconf_preflight_pair_check_verdict{' "$prom")"
expect "node_exporter reports no textfile error" grep -q '^node_textfile_scrape_error 0' "$work/scrape.txt"
log "PASS: $checks checks (promtool $(promtool --version 2>&1 | head -n 1 | awk '{print $3}'), $("$exporter" --version 2>&1 | head -n 1 | awk '{print $3}'))"
