#!/usr/bin/env bash
# Installs every Debian package the project needs, and nothing else.
# The one place that names our dependencies; README, .ci/run and the tests rely on it.
set -euo pipefail

BUILD_PKGS=(
  g++ cmake make pkg-config
  xeus-dev libxtensor-dev xtl-dev nlohmann-json3-dev libzmq3-dev libssl-dev uuid-dev
  libopenblas-dev libedit-dev libgtest-dev googletest
)
RUN_PKGS=(gnuplot-nox)
TEST_PKGS=(
  python3 python3-numpy python3-jupyter-client python3-jupyter-kernel-test
  python3-nbclient python3-nbformat python3-nbconvert python3-ipykernel
  chromium tmux hyperfine
  clang libclang-rt-14-dev
)

want=("${BUILD_PKGS[@]}" "${RUN_PKGS[@]}")
if [ "${1:-}" = "--tests" ]; then want+=("${TEST_PKGS[@]}"); fi

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi

echo "bootstrap: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq || true
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
