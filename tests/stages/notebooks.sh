#!/usr/bin/env bash
# Notebook tests: executes every notebooks/*.ipynb with nbclient against a freshly installed
# xein kernelspec (tests/notebooks/run_notebooks.py: no unexpected errors, the cells tagged
# raises-exception must fail, %plot cells must show images), then renders the HTML export of
# the recurrences notebook in headless Chromium and checks that the plots are visible in the
# screenshot (tests/notebooks/check_screenshot.py, against a control page without images).
# EIN_NOTEBOOK_OUT=DIR keeps the executed notebooks, HTML exports and screenshots there.
# Contract: see docs/testing.md (cwd = repo root, EIN_BUILD exported; 77 = skipped).
set -uo pipefail

ROOT=$PWD
BUILD=${EIN_BUILD:-$ROOT/build}
XEIN=$BUILD/xein
PY="env PYENV_VERSION=system python3"
SHOT_NOTEBOOK=02_recurrences_and_dynamic_programming.ipynb

if [ ! -x "$XEIN" ]; then
  echo "notebooks.sh: $XEIN does not exist; did the build fail?" >&2
  exit 1
fi
if ! "$XEIN" --version | grep -q xeus; then
  echo "notebooks.sh: skipped: xein was built without xeus (install xeus-dev and rebuild)" >&2
  exit 77
fi
if ! $PY -c 'import nbclient, nbformat, nbconvert, jupyter_client' 2>/dev/null; then
  echo "notebooks.sh: skipped: python3-nbclient / nbformat / nbconvert missing" \
    "(scripts/bootstrap.sh --tests installs them)" >&2
  exit 77
fi
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  echo "notebooks.sh: chromium is missing (scripts/bootstrap.sh --tests installs it)" >&2
  exit 1
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
OUT=${EIN_NOTEBOOK_OUT:-$WORK/out}
mkdir -p "$OUT"
"$XEIN" install --prefix "$WORK/prefix" >/dev/null || exit 1
export JUPYTER_PATH="$WORK/prefix/share/jupyter"
export JUPYTER_RUNTIME_DIR="$WORK/runtime" JUPYTER_DATA_DIR="$WORK/data"
export JUPYTER_CONFIG_DIR="$WORK/config" IPYTHONDIR="$WORK/ipython"
# A cold, private kernel cache: the run does not depend on (or fill) the user's cache.
export EIN_CACHE_DIR="$WORK/kernel-cache"

status=0
$PY tests/notebooks/run_notebooks.py --out "$OUT" || status=1

if [ -f "$OUT/$SHOT_NOTEBOOK" ]; then
  cd tests/notebooks || exit 1
  $PY screenshot_pages.py "$OUT/$SHOT_NOTEBOOK" "$OUT/shot" || status=1
  cd "$ROOT" || exit 1
  for page in plots control; do
    # Half scale keeps the PNG small enough for the pure-Python check; plots stay 320 px wide.
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync \
      --user-data-dir="$WORK/chromium-$page" --force-device-scale-factor=0.5 \
      --window-size=900,4000 --screenshot="$OUT/shot/$page.png" \
      "file://$OUT/shot/$page.html" >"$WORK/chromium-$page.log" 2>&1
    if [ ! -s "$OUT/shot/$page.png" ]; then
      echo "notebooks.sh: chromium wrote no screenshot of $page.html:" >&2
      tail -5 "$WORK/chromium-$page.log" >&2
      status=1
    fi
  done
  if [ -s "$OUT/shot/plots.png" ] && [ -s "$OUT/shot/control.png" ]; then
    $PY tests/notebooks/check_screenshot.py "$OUT/shot/plots.png" "$OUT/shot/control.png" ||
      status=1
  fi
else
  echo "notebooks.sh: $SHOT_NOTEBOOK did not execute; no screenshot check" >&2
  status=1
fi
exit $status
