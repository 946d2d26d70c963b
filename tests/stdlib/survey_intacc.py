#!/usr/bin/env python3
"""Survey (not a test stage): every case of gen/intacc_table.py (library functions that sum,
multiply or contract integers, with results inside and past the input's integer type) as its
own program, in both tiers. A case with a value must print NumPy's exact value and type; a case
past the type must fail with E006 (never a wrapped value with exit 0).

    PYENV_VERSION=system python3 tests/stdlib/survey_intacc.py --ein build/ein [--out DIR]
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen"))

import intacc_table  # noqa: E402
from common import fmt  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ein", required=True)
    ap.add_argument("--out", default="/tmp/ein_stdlib_intacc_survey")
    args = ap.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    for n, (expr, value, t) in enumerate(intacc_table.cases()):
        for mode in ("never", "always"):
            body = f"// {expr}\n//$ EIN_JIT={mode}\n" + "\n".join(intacc_table.PRELUDE) + "\n"
            if value is None:
                body += f"print({expr});\n//! E006\n"
            else:
                kind = t.split(";")[0].strip("[")
                body += f"print({expr});\n//> {fmt(value, kind)}\nprint(typeof({expr}));\n//> {t}\n"
            with open(os.path.join(args.out, f"i{n:03d}_{mode}.ein"), "w") as f:
                f.write(body)
    r = subprocess.run([sys.executable, os.path.join(HERE, "..", "golden", "run_golden.py"), "--ein", args.ein,
                        "--dir", args.out, "-j", "2"], capture_output=True, text=True)
    for line in r.stdout.split("\n"):
        if line.startswith("FAIL"):
            name = line.split()[1].rstrip(":")
            with open(os.path.join(args.out, name)) as f:
                print(name, f.readline().strip(), line.split(":", 1)[-1].split('\\n')[0][:160])
    print(r.stdout.strip().split("\n")[-1])


if __name__ == "__main__":
    main()
