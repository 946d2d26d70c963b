"""Integer and bool arguments where NumPy converts them (session 17; E002 before): std::math's
float functions (np.sqrt, np.exp, np.log, np.sin, np.floor, ... of integers give float64),
the means (np.mean of integers and bools is float64; std::ml::reduce_mean follows it rather
than ONNX's truncating integer ReduceMean), and sums and running sums of bools (np.sum and
np.cumsum count them; here an i32). Floats are untouched: the same calls on f32 keep f32.
Every expected value and type is NumPy's (typeof shows the element type, f64 for float64, i32
for the counts). An integer literal is not an integer type: `sqrt(2)` stays a literal typed by
its context, as before (f32 alone, f32 next to an f32). Files under cases/outside/, each run with EIN_JIT=never and always.
"""
import numpy as np

from gen_select import modes_file


def ein_type(a):
    """typeof's text for a NumPy result: f64 arrays and scalars, counts as i32."""
    a = np.asarray(a)
    el = {np.dtype("float64"): "f64", np.dtype("float32"): "f32", np.dtype("int64"): "i32",
          np.dtype("int32"): "i32"}[a.dtype]
    return el if a.ndim == 0 else "[" + el + "; " + ", ".join(str(n) for n in a.shape) + "]"


def check_typed(t, expr, value, kind):
    t.check(expr, value, kind)
    t.check_text(f"typeof({expr})", ein_type(value))


def float_functions_file():
    t = modes_file("outside/promote_float_functions.ein", "std::math's float functions of integers "
                 "and bools give f64 (NumPy's float64); floats keep their type", uses=["std::math::*"])
    a = t.let("a", np.array([[1, 4, 9], [16, 2, 3]], dtype=np.int32), "i32")
    v = t.let("v", np.array([0, 1, -2, 3], dtype=np.int64), "i64")
    b = t.let("b", np.array([True, False, True]), "bool")
    with np.errstate(divide="ignore", invalid="ignore"):
        for name, ref in [("sqrt", np.sqrt), ("exp", np.exp), ("log", np.log), ("log2", np.log2),
                          ("log10", np.log10), ("log1p", np.log1p), ("sin", np.sin), ("cos", np.cos),
                          ("tanh", np.tanh), ("atan", np.arctan), ("floor", np.floor), ("ceil", np.ceil),
                          ("trunc", np.trunc), ("exp2", np.exp2), ("expm1", np.expm1)]:
            check_typed(t, f"{name}(a)", ref(a.astype(np.float64)), "f64")
        check_typed(t, "sqrt(v)", np.sqrt(v.astype(np.float64)), "f64")
        check_typed(t, "cosh(v)", np.cosh(v.astype(np.float64)), "f64")
        check_typed(t, "exp(b)", np.exp(b.astype(np.float64)), "f64")
        t.raw("let k: i64 = 7;")
        check_typed(t, "sqrt(k)", np.sqrt(np.float64(7)), "f64")
        check_typed(t, "log(a[1, 0])", np.log(np.float64(16)), "f64")
    # floats untouched: an f32 input stays f32, and an integer literal is still a literal typed
    # by its context (`x * sqrt(2)` is f32)
    x = t.let("x", np.array([0.25, 4.0, 2.0], dtype=np.float32), "f32")
    t.check("sqrt(x)", np.sqrt(x), "f32")
    t.check_text("typeof(sqrt(x))", "[f32; 3]")
    t.raw("let y[i] = x[i] * sqrt(2);")
    t.check("y", x * np.sqrt(np.float32(2)), "f32")
    t.check_text("typeof(y)", "[f32; 3]")
    # a user function over integers, as a NumPy user writes a formula
    t.raw("fn rms(xs) { sqrt(std::array::mean(xs * xs)) }")
    check_typed(t, "rms(a)", np.sqrt(np.mean(a.astype(np.int64) ** 2)), "f64")
    t.write()


def reductions_file():
    t = modes_file("outside/promote_reductions.ein", "means of integers and bools are f64 "
                 "(np.mean), sums and running sums of bools count them (np.sum, np.cumsum; i32)",
                 uses=["std::ml::*"])
    a = t.let("a", np.array([[1, -4, 9], [16, 2, 3]], dtype=np.int32), "i32")
    m = t.let("m", np.array([[True, False, True, True], [False, False, True, False]]), "bool")
    check_typed(t, "reduce_mean(a)", np.mean(a, keepdims=True), "f64")
    check_typed(t, "std::array::mean(a)", np.mean(a), "f64")
    check_typed(t, "std::array::mean_axis(a, -1)", np.mean(a, axis=-1), "f64")
    check_typed(t, "std::array::mean_axis(a, 0)", np.mean(a, axis=0), "f64")
    check_typed(t, "std::array::mean(m)", np.mean(m), "f64")
    check_typed(t, "reduce_mean(m)", np.mean(m, keepdims=True), "f64")
    check_typed(t, "std::array::mean_axis(m, 1)", np.mean(m, axis=1), "f64")
    check_typed(t, "reduce_sum(m)", np.sum(m, keepdims=True).astype(np.int32), "i32")
    check_typed(t, "std::array::sum(m)", np.int32(np.sum(m)), "i32")
    check_typed(t, "std::math::sum(m)", np.int32(np.sum(m)), "i32")
    check_typed(t, "std::array::sum_axis(m, -1)", np.sum(m, axis=-1).astype(np.int32), "i32")
    check_typed(t, "cumsum(m)", np.cumsum(m, axis=-1).astype(np.int32), "i32")
    check_typed(t, "cumprod(m)", np.cumprod(m, axis=-1).astype(np.int32), "i32")
    check_typed(t, "cumsum(greater(a, 2))", np.cumsum(a > 2, axis=-1).astype(np.int32), "i32")
    # integer sums keep their type, as np.sum of an int32 array on this platform's int32 input
    check_typed(t, "reduce_sum(a)", np.sum(a, keepdims=True).astype(np.int32), "i32")
    check_typed(t, "cumsum(a)", np.cumsum(a, axis=-1).astype(np.int32), "i32")
    # floats untouched
    x = t.let("x", np.array([[0.5, 1.5], [2.0, -1.0]], dtype=np.float32), "f32")
    t.check("reduce_mean(x)", np.mean(x, keepdims=True), "f32")
    t.check_text("typeof(reduce_mean(x))", "[f32; 1, 1]")
    # integer literals once used as integers (indices here) are integers: their mean is f64
    t.raw("let labels = [2, 0, 1, 2, 2, 1];")
    t.check("std::array::sum_axis(onehot(labels, 3, [0, 1]), 0)", np.array([1, 2, 3], dtype=np.int32), "i32")
    check_typed(t, "std::array::mean(labels)", np.mean([2, 0, 1, 2, 2, 1]), "f64")
    # a fraction of true elements in a user function
    t.raw("fn frac(mask) { std::array::mean(mask) }")
    check_typed(t, "frac(m)", np.mean(m), "f64")
    t.write()


def generate():
    float_functions_file()
    reductions_file()
