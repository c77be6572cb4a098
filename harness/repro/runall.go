// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import _ "embed" // csrc/interpose.c

// InterposeC is interpose.c, written next to the reproducers: a libcuda.so.1
// that forwards to the real driver except that cuMemcpyPeerAsync, and a
// cuMemcpyAsync or cuMemcpyDtoDAsync within one GPU's device memory, drops
// the last byte, so run-all.sh --interposed shows the peer-copy and
// local-copy reproducers exiting 1 on a healthy machine, one GPU enough for
// the local ones.
//
//go:embed csrc/interpose.c
var InterposeC string

// RunAllScript is run-all.sh, written next to the reproducers of `p2pconf
// repro --all`: it needs only a C compiler and the driver, builds every *.c
// of its folder with the build line, runs each with a time limit and prints
// one row per reproducer with its exit code and verdict, then the counts.
// Its own exit status is 1 when any reproducer found a violation or did not
// build or finish, else 0.
const RunAllScript = `#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The p2pconf Authors
#
# Builds and runs every p2pconf reproducer in this folder (every *.c but interpose.c) (written by
# p2pconf repro --all) and prints a table of their exit codes:
#   0 conforms, 1 violation, 2 cannot run here, 124 timed out, "build" did not compile.
# Each reproducer's output is kept in <name>.out. Needs cc (or CC) and libcuda.so.1.
#   sh run-all.sh [TIMEOUT_SECONDS]   (default 900 per reproducer)
#   sh run-all.sh --interposed [TIMEOUT_SECONDS]
#       builds interpose.c into interpose/libcuda.so.1, a driver that drops the
#       last byte of every cuMemcpyPeerAsync and of every cuMemcpyAsync or
#       cuMemcpyDtoDAsync within one GPU, and runs the access.peer-copy and
#       access.local-copy reproducers on it: each must exit 1 (the violation is
#       caught). One GPU is enough for the access.local-copy ones.
cd "$(dirname "$0")" || exit 2
CC=${CC:-cc}
if [ "${1:-}" = --interposed ]; then
	shift
	real=${P2PCONF_REAL_LIBCUDA:-$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 .*x86-64/ { print $NF; exit }')}
	[ -n "$real" ] || { echo "run-all.sh: cannot find the real libcuda.so.1; set P2PCONF_REAL_LIBCUDA"; exit 2; }
	mkdir -p interpose
	"$CC" -O2 -shared -fPIC -o interpose/libcuda.so.1 interpose.c -ldl || exit 2
	caught=0 missed=0
	printf '%-60s %5s  %s\n' "reproducer (interposed: peer and local copies drop their last byte)" exit verdict
	for src in access.peer-copy_*.c access.local-copy_*.c; do
		[ -e "$src" ] || continue
		name=${src%.c}
		"$CC" -O2 -o "$name" "$src" -ldl || exit 2
		P2PCONF_REAL_LIBCUDA=$real LD_LIBRARY_PATH=$PWD/interpose${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout "${1:-900}" "./$name" >"$name.interposed.out" 2>&1
		code=$?
		if [ "$code" -eq 1 ]; then verdict="caught: $(grep -m1 '^VIOLATION: ' "$name.interposed.out" | cut -c12-110)"; caught=$((caught + 1))
		else verdict="NOT caught (see $name.interposed.out)"; missed=$((missed + 1)); fi
		printf '%-60s %5s  %s\n' "$name" "$code" "$verdict"
	done
	[ $((caught + missed)) -gt 0 ] || { echo "no access.peer-copy or access.local-copy reproducers here"; exit 2; }
	echo
	echo "violations caught: $caught  missed: $missed"
	[ "$missed" -eq 0 ]
	exit
fi
LIMIT=${1:-900}
pass=0 fail=0 cannot=0 broken=0
printf '%-60s %5s  %s\n' reproducer exit verdict
for src in *.c; do
	[ -e "$src" ] || { echo "no reproducers here"; exit 2; }
	[ "$src" = interpose.c ] && continue
	name=${src%.c}
	if ! "$CC" -O2 -o "$name" "$src" -ldl >"$name.build.log" 2>&1; then
		printf '%-60s %5s  %s\n' "$name" build "does not compile (see $name.build.log)"
		broken=$((broken + 1))
		continue
	fi
	if command -v timeout >/dev/null 2>&1; then
		timeout "$LIMIT" "./$name" >"$name.out" 2>&1
	else
		"./$name" >"$name.out" 2>&1
	fi
	code=$?
	case $code in
	0) verdict=conforms; pass=$((pass + 1)) ;;
	1) verdict="VIOLATION: $(grep -m1 '^VIOLATION: ' "$name.out" | cut -c12-120)"; fail=$((fail + 1)) ;;
	2) verdict="cannot run: $(grep -m1 -E '^(CANNOT RUN|RESULT): ' "$name.out" | cut -c1-110)"; cannot=$((cannot + 1)) ;;
	124) verdict="timed out after ${LIMIT}s"; broken=$((broken + 1)) ;;
	*) verdict="ended with status $code"; broken=$((broken + 1)) ;;
	esac
	printf '%-60s %5s  %s\n' "$name" "$code" "$verdict"
done
echo
echo "conforms: $pass  violation: $fail  cannot run: $cannot  broken or timed out: $broken"
[ "$fail" -eq 0 ] && [ "$broken" -eq 0 ]
`
