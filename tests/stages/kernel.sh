#!/usr/bin/env bash
# Jupyter kernel tests: installs the xein kernelspec into a temporary prefix and runs
#   tests/kernel/test_kernel_protocol.py  Debian's jupyter_kernel_test suite (protocol conformance)
#   tests/kernel/test_client.py           jupyter_client tests: state, errors, streams, interrupt,
#                                         rich output, completion, inspection, history
#   tests/kernel/test_progress.py         progress displays of long cells (issue 15)
#   tests/kernel/test_robustness.py       huge and malformed requests, long sessions, rebinding
#                                         (issues 19 and 20; EIN_LONG_SESSION=1 for 10 000 cells),
#                                         only with EIN_KERNEL_ROBUSTNESS=1 (kernel_robustness.sh)
# and prints the kernel's measured startup time (informational, not asserted).
# Contract: see docs/testing.md (cwd = repo root, EIN_BUILD exported; 77 = skipped).
set -uo pipefail

BUILD=${EIN_BUILD:-$PWD/build}
XEIN=$BUILD/xein
PY="env PYENV_VERSION=system python3"

if [ ! -x "$XEIN" ]; then
  echo "kernel.sh: $XEIN does not exist; did the build fail?" >&2
  exit 1
fi
if ! "$XEIN" --version | grep -q xeus; then
  echo "kernel.sh: skipped: xein was built without xeus (install xeus-dev and rebuild)" >&2
  exit 77
fi
if ! $PY -c 'import jupyter_client, jupyter_kernel_test' 2>/dev/null; then
  echo "kernel.sh: skipped: python3-jupyter-client / python3-jupyter-kernel-test missing" \
    "(scripts/bootstrap.sh --tests installs them)" >&2
  exit 77
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$XEIN" install --prefix "$WORK/prefix" || exit 1
# Kernel discovery only through the fresh kernelspec; connection files stay in the temp dir.
export JUPYTER_PATH="$WORK/prefix/share/jupyter"
export JUPYTER_RUNTIME_DIR="$WORK/runtime"
export JUPYTER_DATA_DIR="$WORK/data"
export JUPYTER_CONFIG_DIR="$WORK/config"
export IPYTHONDIR="$WORK/ipython"
# A cold, private kernel cache: the run does not depend on (or fill) the user's cache.
export EIN_CACHE_DIR="$WORK/kernel-cache"

status=0
cd tests/kernel || exit 1
if [ "${EIN_KERNEL_ROBUSTNESS:-0}" = 1 ]; then
  # tests/stages/kernel_robustness.sh: a stage of its own, so that each has its own time limit.
  $PY -m unittest -v test_robustness.py || status=1
  exit $status
fi
$PY -m unittest -v test_kernel_protocol.py || status=1
$PY -m unittest -v test_client.py || status=1
$PY -m unittest -v test_everyday.py || status=1
$PY -m unittest -v test_progress.py || status=1
$PY startup_time.py || status=1
exit $status
