#!/usr/bin/env bash
# Checks every model package under DIR (a copy of the public model hub's
# models/*/, fetched by hand; never committed) and prints one row per model:
# `linnet check`, a CPU build, a run. See tools/hub/README.md.
#
#   tools/hub/check-hub.sh [--no-build] DIR
#
# LINNET: the linnet binary (default: build/bin/linnet of this repository).
# LINNET_STD: the standard library linnet reads (linnet's own default if unset).
# LINNET_RUN: linnet-run (default: the one next to LINNET's binary).
# HUB_CHECKPOINTS: optional directory of <model>/ random tiny checkpoints with
#   reference outputs (tools/hub/make_hub_checkpoints.py): build against them,
#   run the entry and compare with Hugging Face.
# Exit status: 0 when every model checks and no run disagrees with its
# reference, 1 otherwise, 2 on misuse.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

args=()
dir=""
for a in "$@"; do
  case "$a" in
    --no-build) args+=("$a") ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check-hub.sh: unknown option $a" >&2; exit 2 ;;
    *) if [[ -n "$dir" ]]; then echo "check-hub.sh: one DIR only" >&2; exit 2; fi; dir="$a" ;;
  esac
done
if [[ -z "$dir" ]]; then
  echo "usage: check-hub.sh [--no-build] DIR" >&2
  exit 2
fi
if [[ ! -d "$dir" ]]; then
  echo "check-hub.sh: $dir is not a directory" >&2
  exit 2
fi

# LINNET may carry options after the binary (`/path/linnet --no-color`).
linnet="${LINNET:-$repo/build/bin/linnet}"
read -r -a words <<< "$linnet"
if [[ ${#words[@]} -eq 0 || ! -x "${words[0]}" ]]; then
  echo "check-hub.sh: no linnet binary at ${words[0]:-<empty>} (set LINNET)" >&2
  exit 2
fi

exec python3 "$here/check_hub.py" --linnet "$linnet" "${args[@]}" "$dir"
