// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

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
# Builds and runs every p2pconf reproducer in this folder (written by
# p2pconf repro --all) and prints a table of their exit codes:
#   0 conforms, 1 violation, 2 cannot run here, 124 timed out, "build" did not compile.
# Each reproducer's output is kept in <name>.out. Needs cc (or CC) and libcuda.so.1.
#   sh run-all.sh [TIMEOUT_SECONDS]   (default 900 per reproducer)
cd "$(dirname "$0")" || exit 2
CC=${CC:-cc}
LIMIT=${1:-900}
pass=0 fail=0 cannot=0 broken=0
printf '%-60s %5s  %s\n' reproducer exit verdict
for src in *.c; do
	[ -e "$src" ] || { echo "no reproducers here"; exit 2; }
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
