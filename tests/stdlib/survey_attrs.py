#!/usr/bin/env python3
"""Survey (not a test stage, session 22): every case of gen/attrs_table.py (std::ml's ONNX
operators with the attribute values programs pass, and the same operators over f64, f32, i32,
i64 and bool) as its own program, in both tiers. A case with a value must print the value of
the reference loop written from the ONNX operator text (gen/attrs_ref.py) or NumPy, and its
type; a case without one must fail with the code the table names.

    PYENV_VERSION=system python3 tests/stdlib/survey_attrs.py --ein build/ein [--out DIR] [-k TEXT]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen"))
sys.path.insert(0, HERE)

import attrs_table  # noqa: E402
from survey_kinds import table_main  # noqa: E402

if __name__ == "__main__":
    table_main(attrs_table.cases, attrs_table.PRELUDE, "/tmp/ein_stdlib_attrs_survey", "E")
