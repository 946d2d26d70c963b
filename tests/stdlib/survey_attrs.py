#!/usr/bin/env python3
"""Survey (not a test stage, session 22): every case of gen/attrs_table.py (std::ml's ONNX
operators with the attribute values programs pass, and the same operators over f64, f32, i32,
i64 and bool) as its own program, in both tiers. A case with a value must print the value of
the reference loop written from the ONNX operator text (gen/attrs_ref.py) or NumPy, and its
type; a case without one must fail with the code the table names.

    PYENV_VERSION=system python3 tests/stdlib/survey_attrs.py --ein build/ein [--out DIR] [-k TEXT]
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen"))
sys.path.insert(0, HERE)

import attrs_table  # noqa: E402
from survey_kinds import run_cases  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ein", required=True)
    ap.add_argument("--out", default="/tmp/ein_stdlib_attrs_survey")
    ap.add_argument("-k", default="", help="only the cases whose expression contains TEXT")
    args = ap.parse_args()
    cases = [c for c in attrs_table.cases() if args.k in c[0]]
    run_cases(args.ein, args.out, cases, attrs_table.PRELUDE, modes=("never", "always"), refused_code="E")


if __name__ == "__main__":
    main()
