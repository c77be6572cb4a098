#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The p2pconf Authors
#
# build.sh makes p2pconf-<version>-linux-amd64.tar.gz: every suite compiled
# to a test binary (go test -c, cgo on), the p2pconf command and run.sh, so
# a GPU node that has the NVIDIA driver but no Go can run the conformance
# suites and get the same reports as `make conformance`.
#
#   dist/build.sh [--out DIR] [--version V] [PACKAGE...]
#
#   --out DIR     where the tarball goes (default dist/out, or $DIST_OUT)
#   --version V   version stamped into every binary and the file name
#                 (default $VERSION, else `git describe --tags --always
#                 --dirty`: v0.1.0 at that tag, v0.1.0-3-g1a2b3c4 three
#                 commits after it, the short commit before the first tag,
#                 -dirty with uncommitted changes; else 0.0.0-dev)
#   PACKAGE...    suite packages to include (default ./suites/...; only
#                 packages with test files become suite binaries)
#
# Layout of the tarball (one top folder, p2pconf-<version>-linux-amd64/):
#   run.sh                 runs every suite and renders the report
#   sanitize.sh            runs the suites under compute-sanitizer (needs the
#                          CUDA toolkit's compute-sanitizer on the node), with
#                          sanitize-allow.txt, the intended API errors
#   bin/p2pconf            topo, report, diff, repro, ticket, version
#   bin/litmus-sass        the litmus compile check (make litmus-sass; needs
#                          the CUDA toolkit's nvdisasm or cuobjdump on the node)
#   suites/<s>/<s>.test    one binary per suite package, in a folder that
#                          mirrors the package path, with the package's
#                          testdata/ beside it (binaries run there, as
#                          go test runs them)
#   suites.txt             "<folder> <binary>" per suite, in run order
#   deploy/                Slurm batch script, Kubernetes manifests, the CI
#                          gate (deploy/ci/gate.sh) and their README.md files
#   tests/foreign/         run.sh and hold.c: the exclusive-use checks beside
#                          another program and a second run (needs a C
#                          compiler and python3 on the node, not Go)
#   tests/shim/            p2pconf-shim.c: a driver shim under which
#                          `p2pconf preflight` must FAIL (docs/usage.md, preflight)
#   VERSION, README.md (reports/README.md), LICENSE, .p2pconf-root
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${DIST_OUT:-$root/dist/out}
version=${VERSION:-}
pkgs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--out=*) out=${1#--out=} ;;
	--out) out=$2; shift ;;
	--version=*) version=${1#--version=} ;;
	--version) version=$2; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "build.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	*) pkgs+=("$1") ;;
	esac
	shift
done
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./suites/...)
command -v go >/dev/null || { echo "build.sh: needs Go (go not on PATH)" >&2; exit 2; }

cd "$root"
if [ -z "$version" ]; then
	version=$(git describe --tags --always --dirty 2>/dev/null || echo 0.0.0-dev)
fi
version=${version//\//-}
commit=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || true)}
name=p2pconf-$version-linux-amd64
case "$out" in /*) ;; *) out=$PWD/$out ;; esac

stage_parent=$(mktemp -d)
trap 'rm -rf "$stage_parent"' EXIT
stage=$stage_parent/$name
mkdir -p "$stage/bin" "$out"

export GOOS=linux GOARCH=amd64 CGO_ENABLED=1
export CGO_CFLAGS=${CGO_CFLAGS:--Wno-deprecated-declarations}
pkg=github.com/p2pconf/p2pconf/harness/report
# -s -w: no symbol table or DWARF; the tarball goes to many nodes and its
# binaries are not debugged there (panics still print file:line traces).
ldflags="-s -w -X $pkg.Version=$version -X $pkg.Commit=$commit"

echo "build.sh: p2pconf $version ($commit)" >&2
go build -trimpath -ldflags "$ldflags" -o "$stage/bin/p2pconf" ./cmd/p2pconf
go build -trimpath -ldflags "$ldflags" -o "$stage/bin/litmus-sass" ./cmd/litmus-sass

# One test binary per package with tests, in a folder mirroring its path:
# one go test -c per package, as many at once as there are CPUs (go keeps a
# single package's linked test binary in its build cache, so a second build
# of unchanged sources links nothing; go test -c of several packages would
# link every binary anew).
modroot=$(go list -m -f '{{.Dir}}')
: >"$stage/suites.txt"
mapfile -t found < <(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}}{{end}}' "${pkgs[@]}")
[ ${#found[@]} -gt 0 ] || { echo "build.sh: no suite packages with tests in ${pkgs[*]}" >&2; exit 1; }
echo "build.sh: ${#found[@]} suites (go test -c)" >&2
export stage modroot ldflags
printf '%s\n' "${found[@]}" | xargs -P "$(nproc)" -L 1 sh -c '
	rel=${2#"$modroot"/}
	mkdir -p "$stage/$rel"
	exec go test -c -trimpath -ldflags "$ldflags" -o "$stage/$rel/$(basename "$rel").test" "$1"' sh
for entry in "${found[@]}"; do
	dir=${entry#* }
	rel=${dir#"$modroot"/}
	bin=$(basename "$rel")
	[ -f "$stage/$rel/$bin.test" ] || { echo "build.sh: no test binary for $rel" >&2; exit 1; }
	if [ -d "$dir/testdata" ]; then
		cp -R "$dir/testdata" "$stage/$rel/testdata"
	fi
	echo "$rel $bin" >>"$stage/suites.txt"
done

install -m 0755 dist/run.sh "$stage/run.sh"
install -m 0755 dist/sanitize.sh "$stage/sanitize.sh"
install -m 0644 dist/sanitize-allow.txt "$stage/sanitize-allow.txt"
# The fleet and CI scripts (Slurm, Kubernetes, CI gate), so a node or a CI
# runner with only the tarball has them; their Go tests stay behind.
(cd "$root" && find deploy -type f ! -name '*_test.go' -print0 | xargs -0 cp --parents -t "$stage")
mkdir -p "$stage/tests/foreign"
install -m 0755 tests/foreign/run.sh "$stage/tests/foreign/run.sh"
install -m 0644 tests/foreign/hold.c "$stage/tests/foreign/hold.c"
# The driver shim that shows preflight failing on a healthy GPU node.
mkdir -p "$stage/tests/shim"
install -m 0644 tests/shim/p2pconf-shim.c "$stage/tests/shim/p2pconf-shim.c"
cp reports/README.md "$stage/README.md"
cp LICENSE "$stage/LICENSE"
echo "$version $commit" >"$stage/VERSION"
: >"$stage/.p2pconf-root"

tarball=$out/$name.tar.gz
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@${SOURCE_DATE_EPOCH:-0}" \
	-C "$stage_parent" -czf "$tarball.tmp" "$name"
mv "$tarball.tmp" "$tarball"
echo "$tarball"
