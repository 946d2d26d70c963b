"""std::math tests: every function on scalars and arrays of rank 1-3, in f32 and f64 (and the
integer types where the function keeps integers), against NumPy."""
import math

import numpy as np

from common import TestFile, decimals, as_kind

# The shapes each elementwise function is tried on, with the element type used there.
SHAPES = [((), "f32"), ((), "f64"), ((5,), "f32"), ((5,), "f64"), ((2, 3), "f64"),
          ((2, 2, 2), "f32")]

erf = np.vectorize(math.erf, otypes=[np.float64])


def round_half_even(x):
    return np.round(x)


UNARY = {
    # name: (reference, low, high)
    "basic": [
        ("abs", np.abs, -3, 3), ("sqrt", np.sqrt, 0, 9), ("sign", np.sign, -2, 2),
        ("floor", np.floor, -3, 3), ("ceil", np.ceil, -3, 3), ("trunc", np.trunc, -3, 3),
        ("round", round_half_even, -3, 3), ("square", np.square, -3, 3),
        ("neg", np.negative, -3, 3), ("reciprocal", np.reciprocal, 0.5, 3),
    ],
    "trig": [
        ("sin", np.sin, -3, 3), ("cos", np.cos, -3, 3), ("tan", np.tan, -1.2, 1.2),
        ("asin", np.arcsin, -0.99, 0.99), ("acos", np.arccos, -0.99, 0.99),
        ("atan", np.arctan, -4, 4),
    ],
    "explog": [
        ("exp", np.exp, -3, 3), ("exp2", np.exp2, -3, 3), ("log", np.log, 0.1, 5),
        ("ln", np.log, 0.1, 5), ("log10", np.log10, 0.1, 5), ("log2", np.log2, 0.1, 5),
        ("log1p", np.log1p, -0.5, 3), ("expm1", np.expm1, -1, 1),
        ("rsqrt", lambda x: 1 / np.sqrt(x), 0.2, 5),
    ],
    "hyperbolic": [
        ("sinh", np.sinh, -2, 2), ("cosh", np.cosh, -2, 2), ("tanh", np.tanh, -2, 2),
        ("asinh", np.arcsinh, -3, 3), ("acosh", np.arccosh, 1, 4),
        ("atanh", np.arctanh, -0.9, 0.9),
    ],
    "special": [
        ("erf", erf, -2.5, 2.5), ("erfc", lambda x: 1 - erf(x), -2.5, 2.5),
        ("deg_to_rad", np.deg2rad, -360, 360), ("rad_to_deg", np.rad2deg, -4, 4),
        ("saturate", lambda x: np.clip(x, 0, 1), -0.5, 1.5),
    ],
}


def unary_file(group, fns, seed):
    t = TestFile(f"math/{group}.ein", f"std::math {group}: elementwise on scalars and arrays of "
                 "rank 1-3, f32 and f64", uses=["std::math::*"])
    for name, ref, lo, hi in fns:
        t.raw("", f"// {name}")
        for shape, kind in SHAPES:
            seed += 1
            x = decimals(seed, shape, lo, hi)
            if name == "round" and shape == (5,):
                x = np.array([0.5, 1.5, 2.5, -0.5, -2.5])  # halves go to even
            if name == "sign" and shape == (5,):
                x = np.array([-1.5, 0.0, 2.0, -0.25, 0.0])
            v = t.let(f"{name}_{len(shape)}{kind}", x, kind)
            expected = ref(v.astype(np.float64)).astype(v.dtype)
            t.check(f"{name}({name}_{len(shape)}{kind})", expected, kind)
    t.write()
    return seed


def binary_file(seed):
    t = TestFile("math/binary.ein", "std::math two-argument functions: arrays with arrays, "
                 "arrays with scalars, f32 and f64", uses=["std::math::*"])
    cases = [
        ("min", np.minimum, (-3, 3), (-3, 3)), ("max", np.maximum, (-3, 3), (-3, 3)),
        ("pow", np.power, (0.1, 3), (-2, 3)), ("atan2", np.arctan2, (-3, 3), (-3, 3)),
        ("fmod", np.fmod, (-7, 7), (0.5, 3)), ("mod", np.mod, (-7, 7), (0.5, 3)),
        ("modulo", np.mod, (-7, 7), (0.5, 3)),
        ("clamp_min", np.maximum, (-3, 3), (-1, 1)), ("clamp_max", np.minimum, (-3, 3), (-1, 1)),
    ]
    for name, ref, (alo, ahi), (blo, bhi) in cases:
        t.raw("", f"// {name}")
        for shape, kind in [((), "f64"), ((4,), "f32"), ((2, 3), "f64"), ((2, 1, 2), "f32")]:
            seed += 1
            a = t.let(f"{name}_a{len(shape)}", decimals(seed, shape, alo, ahi), kind)
            b = t.let(f"{name}_b{len(shape)}", decimals(seed + 500, shape, blo, bhi), kind)
            if name in ("mod", "modulo") and shape == (4,):
                b = t.let(f"{name}_b{len(shape)}", np.array([3.0, -3.0, 2.5, -2.5]), kind)
            t.check(f"{name}({name}_a{len(shape)}, {name}_b{len(shape)})",
                    ref(a.astype(np.float64), b.astype(np.float64)).astype(a.dtype), kind)
        # an array against a scalar: a literal (typed like the array's elements) and a binding
        seed += 1
        a = t.let(f"{name}_as", decimals(seed, (3,), alo, ahi), "f32")
        t.check(f"{name}({name}_as, {lit_mid(blo, bhi)})",
                ref(a.astype(np.float64), float(np.float32(lit_mid(blo, bhi)))).astype(np.float32),
                "f32")
        a = t.let(f"{name}_ad", decimals(seed, (3,), alo, ahi), "f64")
        t.check(f"{name}({name}_ad, {lit_mid(blo, bhi)})", ref(a, float(lit_mid(blo, bhi))), "f64")
        s = t.let(f"{name}_sd", float(lit_mid(blo, bhi)), "f64")
        t.check(f"{name}({name}_ad, {name}_sd)", ref(a, s), "f64")
    t.raw("", "// clamp: np.clip, bounds as scalars or arrays; hi wins when lo > hi")
    x = t.let("cx", decimals(seed + 1, (2, 3), -3, 3), "f32")
    t.check("clamp(cx, -1.0, 1.0)", np.clip(x, np.float32(-1), np.float32(1)), "f32")
    lo = t.let("clo", decimals(seed + 2, (2, 3), -2, 0), "f32")
    hi = t.let("chi", decimals(seed + 3, (2, 3), 0, 2), "f32")
    t.check("clamp(cx, clo, chi)", np.minimum(np.maximum(x, lo), hi), "f32")
    xd = t.let("cxd", decimals(seed + 4, (2, 2), -3, 3), "f64")
    t.check("clamp(cxd, -1.0, 1.0)", np.clip(xd, -1, 1), "f64")
    t.check("clamp(5.0, 2.0, 1.0)", 1.0, "f32")
    t.check("clamp(-2.5, -1.0, 1.0)", -1.0, "f32")
    t.write()
    return seed + 10


def lit_mid(lo, hi):
    return repr(float(np.round((lo + hi) / 2 + 0.25, 2)))


def integer_file():
    t = TestFile("math/integers.ein", "std::math on integers: gcd lcm factorial, and the "
                 "functions that keep integers integral (i32, i64, i8)", uses=["std::math::*"])
    for a, b in [(12, 18), (-12, 18), (0, 5), (0, 0), (17, 5), (270, -192)]:
        t.check(f"gcd({a}, {b})", np.gcd(a, b), "i32")
        t.check(f"lcm({a}, {b})", np.lcm(a, b), "i32")
    t.raw("let big: i64 = 600851475143;", "let other: i64 = 6857;")
    t.check("gcd(big, other)", np.gcd(600851475143, 6857), "i64")
    t.check("typeof(gcd(big, other))", "i64", "str")
    for n in [0, 1, 5, 6, 10, 12]:
        t.check(f"factorial({n})", math.factorial(n), "i32")
    t.raw("let twenty: i64 = 20;")
    t.check("factorial(twenty)", math.factorial(20), "i64")
    xs = np.array([-7, -3, 0, 4, 9])
    for kind in ("i32", "i64", "i8"):
        v = t.let(f"xs_{kind}", xs, kind)
        d = t.let(f"ds_{kind}", np.array([3, -2, 5, 3, -4]), kind)
        t.check(f"abs(xs_{kind})", np.abs(v), kind)
        t.check(f"sign(xs_{kind})", np.sign(v), kind)
        t.check(f"square(xs_{kind})", np.square(v), kind)
        t.check(f"neg(xs_{kind})", np.negative(v), kind)
        t.check(f"min(xs_{kind}, ds_{kind})", np.minimum(v, d), kind)
        t.check(f"max(xs_{kind}, ds_{kind})", np.maximum(v, d), kind)
        t.check(f"fmod(xs_{kind}, ds_{kind})", np.fmod(v, d), kind)
        t.check(f"mod(xs_{kind}, ds_{kind})", np.mod(v, d), kind)
        t.check(f"modulo(xs_{kind}, ds_{kind})", np.mod(v, d), kind)
        t.check(f"typeof(mod(xs_{kind}, ds_{kind}))", f"[{kind}; 5]", "str")
    t.check("mod(-7, 3)", 2, "i32")
    t.check("mod(7, -3)", -2, "i32")
    t.check("modulo(-7, 3)", 2, "i32")
    t.check("abs(-4)", 4, "i32")
    t.write()


def constants_file():
    t = TestFile("math/constants.ein", "std::math constants: f32 functions and the "
                 "context-typed consts", uses=["std::math::*"])
    f32 = np.float32
    for name, v in [("pi", np.pi), ("e", np.e), ("tau", 2 * np.pi), ("phi", (1 + 5 ** 0.5) / 2),
                    ("sqrt2", 2 ** 0.5), ("sqrt3", 3 ** 0.5), ("ln2", np.log(2)),
                    ("ln10", np.log(10)), ("log2e", np.log2(np.e)), ("log10e", np.log10(np.e))]:
        t.check(f"{name}()", f32(v), "f32")
    t.check("typeof(pi())", "f32", "str")
    for name, v in [("pi", np.pi), ("e", np.e), ("tau", 2 * np.pi), ("sqrt2", 2 ** 0.5),
                    ("ln10", np.log(10)), ("log10e", np.log10(np.e))]:
        t.raw(f"let {name}_64: f64 = {name}();")
        t.check(f"{name}_64", v, "f64")
    f64 = np.float64
    for name, v in [("infinity", np.inf), ("nan", np.nan), ("epsilon", np.finfo(f64).eps),
                    ("max_float", np.finfo(f64).max), ("min_float", np.finfo(f64).tiny)]:
        t.raw(f"let {name}_64: f64 = {name}();")
        t.check(f"{name}_64", v, "f64")
    t.raw("let one64: f64 = 1.0;")
    t.check("one64 + epsilon() > one64", True, "bool")
    t.check("one64 + epsilon() / 2.0 == one64", True, "bool")
    t.raw("let half64: f64 = 0.5;")
    t.check("half64 * pi()", np.pi / 2, "f64")
    t.check("infinity()", np.inf, "f32")
    t.check("-infinity()", -np.inf, "f32")
    t.check("nan()", np.nan, "f32")
    t.check("nan() == nan()", False, "bool")
    t.check("epsilon()", np.finfo(f32).eps, "f32")
    t.check("max_float()", np.finfo(f32).max, "f32")
    t.check("min_float()", np.finfo(f32).tiny, "f32")
    t.check("1.0 + epsilon() > 1.0", True, "bool")
    t.check("1.0 + epsilon() / 2.0 == 1.0", True, "bool")
    t.raw("let pi64: f64 = PI;", "let pi32: f32 = PI;")
    t.check("pi64", np.pi, "f64")
    t.check("pi32", np.float32(np.pi), "f32")
    t.check("typeof(PI)", "f32", "str")
    for name, v in [("E", np.e), ("TAU", 2 * np.pi), ("PHI", (1 + 5 ** 0.5) / 2),
                    ("SQRT2", 2 ** 0.5), ("SQRT3", 3 ** 0.5), ("LN2", np.log(2)),
                    ("LN10", np.log(10)), ("LOG2E", np.log2(np.e)), ("LOG10E", np.log10(np.e))]:
        t.raw(f"let c_{name}: f64 = {name};")
        t.check(f"c_{name}", v, "f64")
    t.raw("use std::math as m;")
    t.check("m::sqrt(81.0)", 9.0, "f32")
    t.check("std::math::trig::cos(0.0)", 1.0, "f32")
    t.check("std::math::basic::abs(-2.5)", 2.5, "f32")
    t.write()


def paths_file():
    t = TestFile("math/paths.ein", "std::math under the surface's other module paths: "
                 "constants::pi, sum, clip, std::math_utils, and std:: re-exporting math", uses=[])
    t.check("std::math::constants::pi::pi()", np.float32(np.pi), "f32")
    t.raw("let pi_64: f64 = std::math::constants::pi::pi();")
    t.check("pi_64", np.pi, "f64")
    t.check("std::math::constants::pi()", np.float32(np.pi), "f32")
    for i, (shape, kind) in enumerate([((4,), "f32"), ((2, 3), "f64"), ((2, 2, 2), "i32")]):
        x = np.random.default_rng(2000 + i).integers(-9, 10, size=shape) if kind[0] == "i" \
            else decimals(2000 + i, shape)
        v = t.let(f"s{i}", x, kind)
        t.check(f"std::math::sum::sum(s{i})", v.astype(np.float64).sum(), kind)
        t.check(f"std::math::sum(s{i})", v.astype(np.float64).sum(), kind)
        t.check(f"std::sum(s{i})", v.astype(np.float64).sum(), kind)
        lo, hi = (-2, 3) if kind[0] == "i" else (-0.5, 0.75)
        t.check(f"std::math::clip(s{i}, {lo if kind[0] == 'i' else lo}, {hi})", np.clip(v, lo, hi), kind)
    t.check("std::math::clip(2.5, 0.0, 1.0)", 1.0, "f32")
    # std::math_utils: scalars (elementwise on arrays too, except sign)
    for a, b in [(3, 7), (-2.5, 1.25), (4.0, 4.0)]:
        kind = "i32" if isinstance(a, int) else "f32"
        t.check(f"std::math_utils::max({a}, {b})", max(a, b), kind)
        t.check(f"std::math_utils::min({a}, {b})", min(a, b), kind)
    for v, lo, hi in [(5, 0, 3), (-1.5, -1.0, 1.0), (0.25, 0.0, 1.0)]:
        kind = "i32" if isinstance(v, int) else "f32"
        t.check(f"std::math_utils::clamp({v}, {lo}, {hi})", min(max(v, lo), hi), kind)
    for v in (-2.5, 0.0, 3.0, -7, 0, 9):
        t.check(f"std::math_utils::sign({v})", int(np.sign(v)), "i32")
    t.raw("let big: f64 = 1e300;")
    t.check("std::math_utils::sign(big * big)", 1, "i32")
    t.check("typeof(std::math_utils::sign(2.0))", "i32", "str")
    x = t.let("mu", decimals(2010, (3,)), "f64")
    t.raw("let mz: f64 = 0.0;")
    t.check("std::math_utils::max(mu, mz)", np.maximum(x, 0), "f64")
    # std re-exports math::*, array::* and ml::*
    t.check("std::sqrt(2.25)", 1.5, "f32")
    t.check("std::pi()", np.float32(np.pi), "f32")
    t.check("std::clip(-1.0, 0.0, 1.0)", 0.0, "f32")
    t.check("std::flatten([[1, 2], [3, 4]])", np.array([1, 2, 3, 4]), "i32")
    t.check("std::argmax([1, 9, 3])", 1, "i32")
    t.check("std::relu(-2.0)", 0.0, "f32")
    t.write()


def generate():
    paths_file()
    seed = 1000
    for group, fns in UNARY.items():
        seed = unary_file(group, fns, seed)
    seed = binary_file(seed)
    integer_file()
    constants_file()
