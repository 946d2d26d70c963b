#!/usr/bin/env python3
"""Generates the std:: tests under tests/stdlib/cases/, the .npy fixtures under
tests/stdlib/fixtures/ and the derivative-rule tests under tests/stdlib/autodiff/, with the
expected values computed by NumPy.

Run it with Debian's Python, which has NumPy:  PYENV_VERSION=system python3 tests/stdlib/gen_stdlib_tests.py
The output is committed; the test stage (tests/stages/stdlib.sh) only runs it, never regenerates.
Everything is seeded, so running this twice gives identical files.
"""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen"))

import common  # noqa: E402
import gen_array  # noqa: E402
import gen_autodiff  # noqa: E402
import gen_forms  # noqa: E402
import gen_grad  # noqa: E402
import gen_io  # noqa: E402
import gen_kinds  # noqa: E402
import gen_math  # noqa: E402
import gen_ml  # noqa: E402
import gen_ml_ex  # noqa: E402
import gen_ml_nn  # noqa: E402
import gen_ml_onnx  # noqa: E402
import gen_ml_tensor  # noqa: E402
import gen_numerics  # noqa: E402
import gen_outside  # noqa: E402
import gen_programs  # noqa: E402
import gen_programs_fit  # noqa: E402
import gen_hunt  # noqa: E402
import gen_hunt2  # noqa: E402
import gen_hunt3  # noqa: E402
import gen_hunt4  # noqa: E402
import gen_intacc  # noqa: E402
import gen_hunt5  # noqa: E402
import gen_hunt6  # noqa: E402
import gen_attrs  # noqa: E402
import gen_hunt7  # noqa: E402
import gen_specials  # noqa: E402
import gen_diag  # noqa: E402
import gen_edge  # noqa: E402
import gen_hunt8  # noqa: E402
import gen_hunt8b  # noqa: E402
import gen_promote  # noqa: E402
import gen_runtime  # noqa: E402
import gen_select  # noqa: E402


def main():
    for d in (common.CASES, common.FIXTURES):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    for gen in (gen_math, gen_array, gen_ml, gen_ml_nn, gen_ml_tensor, gen_ml_ex, gen_ml_onnx, gen_numerics, gen_io,
                gen_autodiff, gen_grad, gen_forms, gen_programs, gen_programs_fit, gen_runtime, gen_outside, gen_select,
                gen_promote, gen_hunt, gen_kinds, gen_hunt2, gen_hunt3, gen_hunt4, gen_intacc, gen_hunt5, gen_hunt6,
                gen_attrs, gen_hunt7, gen_specials, gen_diag, gen_edge, gen_hunt8, gen_hunt8b):
        gen.generate()
    n = sum(len(fs) for _, _, fs in os.walk(common.CASES))
    print(f"wrote {n} test files to {os.path.relpath(common.CASES)}")


if __name__ == "__main__":
    main()
