"""Element kinds NumPy accepts (session 18; E002 or E004 before): the cases of kinds_table.py
(integer and bool arguments of std::math and std::ml elementwise functions, reducers of
integers, bools and empty extents, axis = -1), ONNX 18's Split into a number of parts that does
not divide the axis, and integer powers. Every expected value and type is NumPy's (the ONNX
reference's for Split). Files under cases/outside/, each run with EIN_JIT=never and always.
"""
import numpy as np

import kinds_table
from common import fmt
from gen_select import modes_file


def table_files():
    groups = {"elementwise": [], "reducers": [], "empty": [], "mixed": []}
    for expr, value, t in kinds_table.cases():
        if value is None:
            continue
        g = "mixed" if kinds_table.is_mixed(expr) else "empty" if "(e" in expr else "reducers" if "reduce_" in expr or "_axis" in expr or \
            "argm" in expr or "std::array::" in expr else "elementwise"
        groups[g].append((expr, value, t))
    # One program holds a few hundred specialisations at most (E002 "too many specialisations"):
    # the mixed-kind cases go to files of 150.
    mixed = groups.pop("mixed")
    for k in range(0, len(mixed), 150):
        groups[f"mixed{k // 150 + 1}"] = mixed[k:k + 150]
    for g, cases in groups.items():
        t = modes_file(f"outside/kinds_{g}.ein", f"integer, bool and empty arguments NumPy accepts: {g} "
                       "(values and types from NumPy)", uses=[])
        t.raw(*kinds_table.PRELUDE)
        for expr, value, ty in cases:
            t.check(expr, value, ty.split(";")[0].strip("["))
            t.check_text(f"typeof({expr})", ty)
        t.write()


def onnx_split_sizes(n, k):
    """ONNX 18 Split with num_outputs k (onnx/reference/ops/op_split.py)."""
    if n % k == 0:
        return [n // k] * k
    s = [n // k + 1] * k
    s[-1] += n - sum(s)
    return s


def split_file():
    t = modes_file("outside/split_num_outputs.ein", "split into a number of parts that does not divide the "
                   "axis: ONNX 18's num_outputs, parts of ceil(n / k) and the last what is left", uses=["std::ml::*"])
    x = t.let("x", np.arange(14, dtype=np.float64).reshape(2, 7) / 4, "f64")
    for k, axis in [(3, 1), (2, 1), (4, -1), (2, 0)]:
        s = onnx_split_sizes(x.shape[axis], k)
        parts = np.split(x, np.cumsum(s)[:-1], axis=axis)
        t.check(f"split(x, {k}, {axis})", tuple(parts), ("f64",) * k)
    v = t.let("v", np.arange(4, dtype=np.int32), "i32")
    s = onnx_split_sizes(4, 3)  # 2, 2, 0: an empty last part
    t.check("split(v, 3, 0)", tuple(np.split(v, np.cumsum(s)[:-1])), ("i32",) * 3)
    # the parts differentiate: L = sum(p) + sum(q^2) + sum(r^3)
    t.raw("let (p, q, r) = split(x, 3, 1);",
          "let L = sum[i, j](p[i, j]) + sum[i, j](q[i, j] * q[i, j]) + sum[i, j](r[i, j] * r[i, j] * r[i, j]);")
    g = np.concatenate([np.ones((2, 3)), 2 * x[:, 3:6], 3 * x[:, 6:] ** 2], axis=1)
    t.check("@L / @x", g, "f64")
    # and inside a generic function, where the axis' extent is known only when it runs
    t.raw("fn grad_split(z) { let (a1, a2) = split(z, 2, 1); let s = sum[i, j](a1[i, j] * 2.0) + "
          "sum[i, j](a2[i, j] * a2[i, j]); @s / @z }")
    t.check("grad_split(x)", np.concatenate([2 * np.ones((2, 4)), 2 * x[:, 4:]], axis=1), "f64")
    t.write()
    t = modes_file("outside/errors/split_num_outputs_too_many.ein", "a split whose last part would be "
                   "negative is E004 (1 element into 3 parts)", uses=["std::ml::*"])
    t.raw("let w: [f32; 1] = [1.0];", "let (a, b, c) = split(w, 3, 0);")
    t.expect_error("E004")
    t.write()


def pow_file():
    t = modes_file("outside/pow_integers.ein", "integer powers stay integers (np.power of int arrays); "
                   "an integer base with a float exponent is f64", uses=["std::math::*"])
    a = t.let("a", np.array([[1, -4, 9], [0, 2, 3]]), "i32")
    v = t.let("v", np.array([3, 40]), "i64")
    t.check("pow(a, 2)", np.power(a, 2), "i32")
    t.check_text("typeof(pow(a, 2))", "[i32; 2, 3]")
    t.check("pow(a, [1, 2, 3])", np.power(a, [1, 2, 3]), "i32")
    t.check("pow(v, 9)", np.power(v, 9), "i64")
    t.check("pow(2, 10)", np.power(2, 10), "i32")
    with np.errstate(invalid="ignore"):
        t.check("pow(a, 0.5)", np.power(a.astype(np.float64), 0.5), "f64")
    t.check("std::ml::power(a, 3)", np.power(a, 3), "i32")
    t.write()
    for name, line, purpose in [("pow_negative_exponent", "print(pow(a, -1));", "an integer to a negative "
                                 "integer power is E006 (NumPy raises)"),
                                ("pow_overflow", "print(pow(a, 40));", "an integer power past its type is "
                                 "E006 (NumPy wraps)"),
                                ("factorial_overflow_i32", "print(factorial(13));", "13! past i32 is E006 "
                                 "(Python's math.factorial is exact; the wrapped product was 1932053504)"),
                                ("factorial_overflow_i64", "print(factorial(21 as i64));", "21! past i64 is "
                                 "E006")]:
        t = modes_file(f"outside/errors/{name}.ein", purpose, uses=["std::math::*"])
        t.raw("let a: [i32; 3] = [1, -4, 9];", line)
        t.expect_error("E006")
        t.write()


def generate():
    table_files()
    split_file()
    pow_file()
