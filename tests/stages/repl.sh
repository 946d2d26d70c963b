#!/usr/bin/env bash
# Stage: the `ein` terminal REPL driven in a pseudo-terminal (tests/repl/test_repl.py): prompt,
# continuation, echo, errors, %who %ir %time %plot, Tab completion, Ctrl-C, history across a
# restart; tests/repl/test_progress.py: the progress bar of long cells. Contract (docs/testing.md): exit 0 pass, 77 skip, anything else fail.
set -u
ROOT=${EIN_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
EIN=${EIN_BUILD:-$ROOT/build}/ein
if ! command -v python3 >/dev/null 2>&1; then
  echo "repl stage: python3 is not installed" >&2
  exit 77
fi
if [ ! -x "$EIN" ]; then
  echo "repl stage: $EIN is not built" >&2
  exit 1
fi
# The REPL test needs only the Python standard library (pty), so any python3 will do.
status=0
python3 "$ROOT/tests/repl/test_repl.py" --ein "$EIN" || status=1
# Progress bars of long cells (stderr on a second pty): about a minute.
python3 "$ROOT/tests/repl/test_progress.py" --ein "$EIN" || status=1
exit $status
