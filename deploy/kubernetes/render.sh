#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The p2pconf Authors
#
# render.sh prints a manifest of this folder with the lines marked
# "# p2pconf:<what>" filled in, for kubectl apply -f -.
#
#   deploy/kubernetes/render.sh job.yaml | kubectl apply -f -
#   deploy/kubernetes/render.sh merge-job.yaml | kubectl apply -f -
#   deploy/kubernetes/render.sh fetch-pod.yaml | kubectl apply -f -
#
# Parameters (environment):
#   P2PCONF_IMAGE          the image built from Containerfile (required)
#   P2PCONF_RUN            run folder name (required; e.g. $(date -u +%Y%m%dT%H%M%SZ));
#                          give the node Job and the merge Job the same one
#   P2PCONF_NODES          GPU nodes to run on = completions = parallelism
#                          (default: kubectl get nodes -l nvidia.com/gpu.present=true)
#   P2PCONF_GPUS_PER_NODE  nvidia.com/gpu each pod requests: all of a node's
#                          GPUs (default 8; nodes with fewer would not fit)
#   BASELINE               the merge Job's baseline, e.g. /reports/<earlier run>/fleet
#                          (default: none, no diff)
set -euo pipefail

[ $# -eq 1 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
file=$1
[ -f "$file" ] || file=$(dirname "${BASH_SOURCE[0]}")/$1
[ -f "$file" ] || { echo "render.sh: no manifest $1" >&2; exit 2; }
: "${P2PCONF_IMAGE:?render.sh: set P2PCONF_IMAGE to the p2pconf image}"
: "${P2PCONF_RUN:?render.sh: set P2PCONF_RUN, the same for the node and merge Jobs}"
[[ "$P2PCONF_RUN" =~ ^[A-Za-z0-9._-]+$ ]] || { echo "render.sh: P2PCONF_RUN=$P2PCONF_RUN: use letters, digits, . _ -" >&2; exit 2; }
nodes=${P2PCONF_NODES:-}
if [ -z "$nodes" ]; then
	nodes=$(kubectl get nodes -l nvidia.com/gpu.present=true -o name | wc -l)
fi
gpus=${P2PCONF_GPUS_PER_NODE:-8}
[[ "$nodes" =~ ^[1-9][0-9]*$ ]] || { echo "render.sh: $nodes GPU nodes (P2PCONF_NODES)" >&2; exit 2; }
[[ "$gpus" =~ ^[1-9][0-9]*$ ]] || { echo "render.sh: P2PCONF_GPUS_PER_NODE=$gpus" >&2; exit 2; }
baseline=${BASELINE:-}
[[ "$baseline" =~ ^[A-Za-z0-9./_-]*$ ]] || { echo "render.sh: BASELINE=$baseline: use a path of letters, digits, . / _ -" >&2; exit 2; }
[[ "$P2PCONF_IMAGE" =~ ^[A-Za-z0-9./:@_-]+$ ]] || { echo "render.sh: P2PCONF_IMAGE=$P2PCONF_IMAGE is not an image reference" >&2; exit 2; }

sed -E \
	-e "s|^([[:space:]]*[a-z]+: )[0-9]+( # p2pconf:nodes)$|\1$nodes\2|" \
	-e "s|^([[:space:]]*value: )\"[0-9]+\"( # p2pconf:nodes)$|\1\"$nodes\"\2|" \
	-e "s|^([[:space:]]*nvidia.com/gpu: )\"[0-9]+\"( # p2pconf:gpus)$|\1\"$gpus\"\2|" \
	-e "s|^([[:space:]]*image: )[^ ]+( # p2pconf:image)$|\1$P2PCONF_IMAGE\2|" \
	-e "s|^([[:space:]]*value: )\"[^\"]*\"( # p2pconf:run)$|\1\"$P2PCONF_RUN\"\2|" \
	-e "s|^([[:space:]]*value: )\"[^\"]*\"( # p2pconf:baseline)$|\1\"$baseline\"\2|" \
	"$file"
