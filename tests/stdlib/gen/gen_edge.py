"""Edge semantics (session 23, issue 13's open item 2), values from NumPy: mod / fmod with
+-inf, NaN and signed zeros (np.mod's npy_divmod: mod(5.5, inf) is 5.5, mod(0.0, -2.0) is -0.0),
integer mod / fmod by negative numbers, clip and clamp with min > max (np.clip: max wins),
pow with negative bases and integer exponents, infinite and NaN operands, logs and square roots
of 0, -0, negatives, infinities; reductions over empty arrays (ONNX's identities: sum 0, prod 1,
max -inf, min inf, mean NaN, log_sum -inf); sort / argsort / topk / argmax with NaN (NaN last in
ascending order, first in descending, argmax picks the first NaN as np.argmax does).
cases/math/edge_semantics*.ein, in EIN_JIT=never and always.
"""
import math

import numpy as np

from gen_select import modes_file

INF = float("inf")
NAN = float("nan")


def text(v, kind="f64"):
    from common import fmt
    return fmt(np.asarray(v), kind)


def mod_file():
    t = modes_file("math/edge_mod_pow.ein", "mod / fmod / pow / clip / log at infinities, NaN, signed zeros and "
                   "negative operands, against NumPy", uses=[])
    t.raw("let inf: f64 = 1.0 / 0.0;", "let nan: f64 = 0.0 / 0.0;", "let nz: f64 = -0.0;")

    def v(x):
        """x as an f64 expression (literals cannot spell inf, NaN or -0.0)."""
        if x != x:
            return "nan"
        if x == 0 and math.copysign(1, x) < 0:
            return "nz"
        if x in (INF, -INF):
            return "inf" if x > 0 else "-inf"
        return f"({float(x)!r} as f64)"
    with np.errstate(all="ignore"):
        for fn, ref in (("std::math::mod", np.mod), ("std::math::fmod", np.fmod), ("std::ml::mod", np.mod)):
            a = [5.5, -5.5, 0.0, -0.0, INF, -INF, NAN, 3.0]
            for b in (2.0, -2.0, INF, -INF, 0.0, NAN):
                row = "[" + ", ".join(v(x) for x in a) + "]"
                t.check_text(f"{fn}({row}, {v(b)})", text(ref(np.array(a), np.float64(b))))
        for fn, ref in (("std::math::mod", np.mod), ("std::math::fmod", np.fmod)):
            for b in (3, -3, 1, -1, 7):
                a = [7, -7, 0, 6, -6, 2147483647, -2147483647]
                t.check_text(f"{fn}({a}, {b})", text(ref(np.array(a, np.int64), b).astype(np.int32), "i32"))
        for x in (-1.0, 2.0, 5.0):
            t.check_text(f"std::ml::clip({x!r} as f64, 3.0 as f64, 1.0 as f64)", text(np.clip(x, 3.0, 1.0)))
            t.check_text(f"std::math::clamp({x!r} as f64, 3.0 as f64, 1.0 as f64)", text(np.clip(x, 3.0, 1.0)))
        bases = [-2.0, -0.5, 0.0, -0.0, 2.0, -INF, INF, NAN]
        for e in (3.0, 2.0, -1.0, -2.0, 0.5, 0.0, INF, -INF, NAN):
            row = "[" + ", ".join(v(x) for x in bases) + "]"
            t.check_text(f"std::math::pow({row}, {v(e)})", text(np.power(np.array(bases), np.float64(e))))
        for b in (-2, 3, -1, 0):
            t.check_text(f"std::math::pow([{b}, {b}, {b}], [3, 2, 0])", text(np.power(b, np.array([3, 2, 0])), "i32"))
        xs = [0.0, -0.0, -1.0, INF, -INF, NAN]
        row = "[" + ", ".join(v(x) for x in xs) + "]"
        for fn, ref in (("std::math::log", np.log), ("std::math::log2", np.log2), ("std::math::log10", np.log10),
                        ("std::math::log1p", np.log1p), ("std::math::sqrt", np.sqrt)):
            t.check_text(f"{fn}({row})", text(ref(np.array(xs))))
    t.write()


def empty_and_nan_file():
    t = modes_file("math/edge_empty_nan.ein", "reductions over empty arrays (ONNX identities) and orderings with "
                   "NaN, against NumPy / ONNX", uses=["std::ml::*"])
    t.raw("let e: [f32; 0] = [];", "let e2: [f32; 2, 0] = [[], []];", "let n = 0.0 / 0.0;",
          "let x: [f32; 6] = [3.0, n, -1.0, 2.0, n, -1.0];")
    for fn, v in (("reduce_sum", 0.0), ("reduce_prod", 1.0), ("reduce_max", -INF), ("reduce_min", INF),
                  ("reduce_mean", NAN), ("reduce_l1", 0.0), ("reduce_l2", 0.0), ("reduce_sum_square", 0.0),
                  ("reduce_log_sum", -INF), ("reduce_log_sum_exp", -INF)):
        t.check_text(f"{fn}(e)", text(np.array([v]), "f32"))
    t.check_text("reduce_sum(e2)", "[[0.0]]")
    t.check_text("std::array::sum_axis(e2, 1)", "[0.0, 0.0]")
    t.check_text("std::array::mean_axis(e2, 1)", "[nan, nan]")
    x = np.array([3.0, NAN, -1.0, 2.0, NAN, -1.0], np.float32)
    t.check_text("std::array::sort(x)", text(np.sort(x), "f32"))
    t.check_text("std::array::argsort(x)", text(np.argsort(x, kind="stable"), "i32"))
    t.check_text("std::array::argmax(x)", str(int(np.argmax(x))))
    t.check_text("std::array::argmin(x)", str(int(np.argmin(x))))
    # ONNX TopK (largest): NaN is larger than every number; ties keep the lower index first
    t.check_text("topk(x, 3, 0)", "([nan, nan, 3.0], [1, 4, 0])")
    t.check_text("reduce_max(x)", "[nan]")
    t.write()


def generate():
    mod_file()
    empty_and_nan_file()
