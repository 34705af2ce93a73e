#!/usr/bin/env bash
# Installs what linnet needs to build and test, from Debian's packages only.
# Idempotent: when every package is already installed it touches nothing and
# returns at once, so `make run` and `make test` can call it every time.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools
  clang-19 libclang-rt-19-dev
  libfmt-dev libcli11-dev nlohmann-json3-dev
  libsentencepiece-dev libgraphviz-dev
  libgtest-dev libgmock-dev
  lld-19 libomp-19-dev
  zlib1g-dev libzstd-dev libedit-dev libcurl4-openssl-dev libxml2-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done" >&2
