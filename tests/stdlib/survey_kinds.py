#!/usr/bin/env python3
"""Survey (not a test stage): every case of gen/kinds_table.py as its own program (the table's
inputs, then `print(expr); print(typeof(expr));`), run by run_golden.py against NumPy's value
and type. Lists what passes, what differs and what ein refuses; cases without a value (NumPy refuses
them too, or ein refuses them on purpose: docs/stdlib-notes.md) only show what ein says.

    PYENV_VERSION=system python3 tests/stdlib/survey_kinds.py --ein build/ein [--out DIR]
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen"))

import kinds_table  # noqa: E402
from common import fmt  # noqa: E402


def run_cases(ein, out, cases, prelude, modes=(None,), refused_code=None):
    """Writes each (expr, value, type) case as its own program per JIT mode and runs them. A case
    without a value is expected to fail with refused_code, or (refused_code None) only shows
    what ein says."""
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    refused = []
    for n, (expr, value, t) in enumerate(cases):
        body = "\n".join(prelude) + "\n"
        if value is None and refused_code is None:
            r = subprocess.run([ein, "-c", body + f"print({expr});"], capture_output=True, text=True, timeout=60)
            first = (r.stderr.strip().split("\n") or [""])[0]
            refused.append(f"{expr}: not compared (refused on purpose or by NumPy); ein rc={r.returncode} {r.stdout.strip()[:60]} {first[:100]}")
            continue
        if value is None:
            # a table may name the code of each refusal in the type's place ("E004")
            code = t if t and t.startswith("E") else refused_code
            body += f"print({expr});\n//! {code}\n"
        else:
            kind = t.split(";")[0].strip("[")
            body += f"print({expr});\n//> {fmt(value, kind)}\nprint(typeof({expr}));\n//> {t}\n"
        for mode in modes:
            header = f"// {expr}\n" + (f"//$ EIN_JIT={mode}\n" if mode else "")
            with open(os.path.join(out, f"k{n:03d}{'_' + mode if mode else ''}.ein"), "w") as f:
                f.write(header + body)
    r = subprocess.run([sys.executable, os.path.join(HERE, "..", "golden", "run_golden.py"), "--ein", ein,
                        "--dir", out, "-j", "2"], capture_output=True, text=True)
    for line in r.stdout.split("\n"):
        if line.startswith("FAIL"):
            name = line.split()[1].rstrip(":")
            with open(os.path.join(out, name)) as f:
                print(line.replace(name, f.readline().strip()).split('\\n')[0][:200])
    print(r.stdout.strip().split("\n")[-1])
    print("\n".join(refused))


def table_main(cases, prelude, out, refused_code):
    """The command line of a table survey run in both tiers (survey_intacc.py, survey_attrs.py):
    --ein, --out, and -k TEXT to run only the cases whose expression contains TEXT."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--ein", required=True)
    ap.add_argument("--out", default=out)
    ap.add_argument("-k", default="", help="only the cases whose expression contains TEXT")
    args = ap.parse_args()
    run_cases(args.ein, args.out, [c for c in cases() if args.k in c[0]], prelude, modes=("never", "always"),
              refused_code=refused_code)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ein", required=True)
    ap.add_argument("--out", default="/tmp/ein_stdlib_kinds_survey")
    args = ap.parse_args()
    run_cases(args.ein, args.out, kinds_table.cases(), kinds_table.PRELUDE)


if __name__ == "__main__":
    main()
