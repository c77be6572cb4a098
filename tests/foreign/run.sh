#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The p2pconf Authors
#
# tests/foreign/run.sh checks, on a machine with GPUs, that other programs on
# the GPUs never give a wrong verdict. Two scenarios:
#
#   tests/foreign/run.sh foreign [-g GPU] [-m MIB] SUITE...
#       starts tests/foreign/hold (MIB MiB, default 512, on GPU, default 0)
#       and runs the suites beside it; then checks conformance.json: no
#       result failed, and every result of a check that needs the GPU to
#       itself (the ipc and vmm free-memory checks on that GPU, bandwidth
#       on anything touching it) is an error naming hold's PID.
#
#   tests/foreign/run.sh two-runs SUITE
#       starts the suite twice at once on the same GPUs: one run must stop
#       before any spec with "is in use by another p2pconf run, pid <the
#       other's PID>", the other must run.
#
# With P2PCONF_BACKEND=fake the fake models the program instead of hold
# (P2PCONF_FAKE_FOREIGN), so the script itself can be tried without a GPU;
# two-runs on the fake needs P2PCONF_LOCK_DIR (fake runs lock only then).
# In a checkout it builds the suites (needs Go); in the dist tarball, which
# ships this script as tests/foreign/run.sh, it runs the precompiled suite
# binaries, so the node needs only a C compiler and python3. Files go to
# $OUT (default: a new directory under /tmp), whose path is printed. Exit
# status 0 when the checks hold.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CGO_ENABLED=1 CGO_CFLAGS=${CGO_CFLAGS:--Wno-deprecated-declarations}

usage() { sed -n '5,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 2 ] || usage
mode=$1; shift
gpu=0 mib=512
while getopts "g:m:" o; do
	case $o in
	g) gpu=$OPTARG ;;
	m) mib=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/p2pconf-foreign.XXXXXX")}
mkdir -p "$out"
echo "foreign: files in $out"

# The suites of one scenario are one run (the report folder refuses the
# results of two runs).
export P2PCONF_RUN_ID=${P2PCONF_RUN_ID:-foreign-$$-$(date -u +%Y%m%dT%H%M%SZ)}

build_suite() {
	if [ -f .p2pconf-root ]; then # the dist tarball: precompiled
		ln -sf "$PWD/suites/$1/$1.test" "$out/$1.test"
	else
		go test -c -o "$out/$1.test" "./suites/$1"
	fi
}

# run_suite SUITE LOG [ENV...] starts the suite's binary in the background
# from its package directory (as go test runs it), its output in LOG, and
# sets started to its PID (exec keeps the PID through env).
run_suite() {
	local s=$1 log=$2
	shift 2
	(cd "suites/$s" && exec env "$@" "$out/$s.test" --ginkgo.no-color >"$log" 2>&1) &
	started=$!
}

case $mode in
foreign)
	for s in "$@"; do build_suite "$s"; done
	if [ "${P2PCONF_BACKEND:-}" = fake ]; then
		# The fake models the program itself (P2PCONF_FAKE_FOREIGN), under
		# the PID harness/fake gives it.
		export P2PCONF_FAKE_FOREIGN=$gpu:${mib}MiB
		hold=4194303
	else
		cc -O2 -Wall -o "$out/hold" tests/foreign/hold.c -ldl
		"$out/hold" "$gpu" "$mib" 7200 >"$out/hold.log" 2>&1 &
		hold=$!
		trap 'kill $hold 2>/dev/null || true' EXIT
		for _ in $(seq 100); do grep -q "holds" "$out/hold.log" 2>/dev/null && break; sleep 0.1; done
		grep -q "holds" "$out/hold.log" || { cat "$out/hold.log"; echo "foreign: hold did not start" >&2; exit 1; }
		cat "$out/hold.log"
	fi
	for s in "$@"; do
		run_suite "$s" "$out/$s.log" P2PCONF_REPORT_DIR="$out/report"
		wait "$started" || true # failures are judged from the report below
	done
	kill "$hold" 2>/dev/null || true
	python3 - "$out/report/conformance.json" "$gpu" "$hold" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
gpu, pid = int(sys.argv[2]), sys.argv[3]
memory = {"ipc.close-then-free", "ipc.importer-killed", "vmm.release-while-mapped",
          "vmm.fd-export-import", "vmm.import-outlives-exporter-release"}
bad, named = [], 0
for r in doc["results"]:
    first = r["gpu"] if r["gpu"] is not None else r["src"]
    touches = gpu in (r["gpu"], r["src"], r["dst"])
    needs = (r["check"] in memory and first == gpu) or (r["check"].startswith("bandwidth.") and touches)
    where = f'{r["check"]} {r.get("spec", "")}'
    if r["status"] == "fail":
        bad.append(f"failed beside another program: {where}: {r['reason']}")
    if needs and r["status"] not in ("skip", "error"):
        bad.append(f"{r['status']} although it needs GPU{gpu}, which hold used: {where}")
    if needs and r["status"] == "error":
        if f"pid {pid} " in r["reason"] + r["message"]:
            named += 1
        else:
            bad.append(f"error not naming hold's pid {pid}: {where}: {r['reason']}")
print(f"foreign: {len(doc['results'])} results, {named} errors naming hold's pid {pid}")
for b in bad:
    print("foreign: " + b)
sys.exit(1 if bad or named == 0 else 0)
EOF
	;;
two-runs)
	s=$1
	build_suite "$s"
	run_suite "$s" "$out/a.log"
	a=$started
	run_suite "$s" "$out/b.log"
	b=$started
	ra=0 rb=0
	wait "$a" || ra=$?
	wait "$b" || rb=$?
	for x in a b; do
		other=$b
		[ $x = b ] && other=$a
		if grep -q "is in use by another p2pconf run" "$out/$x.log"; then
			grep "is in use by another p2pconf run" "$out/$x.log" | head -1
			if ! grep -q "is in use by another p2pconf run, pid $other " "$out/$x.log"; then
				echo "foreign: run $x stopped but does not name the other run's pid $other" >&2
				exit 1
			fi
			if grep -q "Ran [1-9]" "$out/$x.log"; then
				echo "foreign: run $x ran specs although it was refused" >&2
				exit 1
			fi
			refused=$x
		fi
	done
	if [ -z "${refused:-}" ]; then
		echo "foreign: neither run was refused (exit $ra and $rb); see $out/a.log and $out/b.log" >&2
		exit 1
	fi
	echo "foreign: run $refused was refused naming the other; exits a=$ra b=$rb"
	;;
*) usage ;;
esac
