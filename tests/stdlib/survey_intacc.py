#!/usr/bin/env python3
"""Survey (not a test stage): every case of gen/intacc_table.py (library functions that sum,
multiply or contract integers, with results inside and past the input's integer type) as its
own program, in both tiers. A case with a value must print NumPy's exact value and type; a case
past the type must fail with E006 (never a wrapped value with exit 0). Runs through
survey_kinds.run_cases.

    PYENV_VERSION=system python3 tests/stdlib/survey_intacc.py --ein build/ein [--out DIR]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen"))
sys.path.insert(0, HERE)

import intacc_table  # noqa: E402
from survey_kinds import table_main  # noqa: E402

if __name__ == "__main__":
    table_main(intacc_table.cases, intacc_table.PRELUDE, "/tmp/ein_stdlib_intacc_survey", "E006")
