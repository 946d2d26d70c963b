"""Derivative rules of std:: (`@fn`) checked through `@y / @x` against the analytic derivatives.

These files live in tests/stdlib/autodiff/, outside cases/: tests/stages/stdlib.sh runs them
only once the compiler differentiates (it probes with a one-line program first), since until
then every `@` request is E013."""
import math
import os
import shutil

import numpy as np

from common import ROOT, TestFile

erf_d = lambda x: 2 / math.sqrt(math.pi) * math.exp(-x * x)  # noqa: E731
sig = lambda x: 1 / (1 + math.exp(-x))  # noqa: E731

# name, call (with X for the variable), point, d/dx at the point
RULES = [
    ("abs", "abs(X)", -1.5, -1.0), ("sqrt", "sqrt(X)", 2.25, 1 / 3),
    ("sign", "sign(X)", 0.7, 0.0), ("pow", "pow(X, 3.0)", 1.5, 3 * 1.5 ** 2),
    ("floor", "floor(X)", 1.3, 0.0), ("ceil", "ceil(X)", 1.3, 0.0),
    ("round", "round(X)", 1.3, 0.0), ("trunc", "trunc(X)", -1.3, 0.0),
    ("fmod", "fmod(X, 2.0)", 5.5, 1.0), ("mod", "mod(X, 2.0)", -5.5, 1.0),
    ("modulo", "modulo(X, 2.0)", -5.5, 1.0),
    ("square", "square(X)", -1.25, -2.5), ("neg", "neg(X)", 2.0, -1.0),
    ("reciprocal", "reciprocal(X)", 2.0, -0.25),
    ("min", "min(X, 1.0)", 0.5, 1.0), ("max", "max(X, 1.0)", 0.5, 0.0),
    ("sin", "sin(X)", 0.5, math.cos(0.5)), ("cos", "cos(X)", 0.5, -math.sin(0.5)),
    ("tan", "tan(X)", 0.5, 1 / math.cos(0.5) ** 2),
    ("asin", "asin(X)", 0.5, 1 / math.sqrt(0.75)), ("acos", "acos(X)", 0.5, -1 / math.sqrt(0.75)),
    ("atan", "atan(X)", 2.0, 0.2), ("atan2", "atan2(X, 2.0)", 1.0, 2 / 5),
    ("exp", "exp(X)", 0.5, math.exp(0.5)), ("exp2", "exp2(X)", 1.5, 2 ** 1.5 * math.log(2)),
    ("log", "log(X)", 4.0, 0.25), ("ln", "ln(X)", 4.0, 0.25),
    ("log10", "log10(X)", 4.0, 1 / (4 * math.log(10))), ("log2", "log2(X)", 4.0, 1 / (4 * math.log(2))),
    ("log1p", "log1p(X)", 0.5, 1 / 1.5), ("expm1", "expm1(X)", 0.5, math.exp(0.5)),
    ("rsqrt", "rsqrt(X)", 4.0, -0.5 * 4.0 ** -1.5),
    ("sinh", "sinh(X)", 0.5, math.cosh(0.5)), ("cosh", "cosh(X)", 0.5, math.sinh(0.5)),
    ("tanh", "tanh(X)", 0.5, 1 - math.tanh(0.5) ** 2),
    ("asinh", "asinh(X)", 0.5, 1 / math.sqrt(1.25)), ("acosh", "acosh(X)", 2.0, 1 / math.sqrt(3)),
    ("atanh", "atanh(X)", 0.5, 1 / 0.75),
    ("clamp", "clamp(X, 0.0, 1.0)", 0.5, 1.0), ("clamp_above", "clamp(X, 0.0, 1.0)", 1.5, 0.0),
    ("clamp_min", "clamp_min(X, 1.0)", 1.5, 1.0), ("clamp_max", "clamp_max(X, 1.0)", 1.5, 0.0),
    ("saturate", "saturate(X)", 0.25, 1.0),
    ("erf", "erf(X)", 0.5, erf_d(0.5)), ("erfc", "erfc(X)", 0.5, -erf_d(0.5)),
    ("deg_to_rad", "deg_to_rad(X)", 30.0, math.pi / 180),
    ("rad_to_deg", "rad_to_deg(X)", 1.0, 180 / math.pi),
    ("relu", "std::ml::relu(X)", 0.5, 1.0), ("relu_neg", "std::ml::relu(X)", -0.5, 0.0),
    ("sigmoid", "std::ml::sigmoid(X)", 0.5, sig(0.5) * (1 - sig(0.5))),
    ("leaky_relu", "std::ml::leaky_relu(X, 0.1)", -2.0, 0.1),
    ("gelu", "std::ml::gelu(X)", 0.5,
     0.5 * (1 + math.erf(0.5 / math.sqrt(2))) + 0.5 * math.exp(-0.125) / math.sqrt(2 * math.pi)),
    ("softplus", "std::ml::softplus(X)", 0.5, sig(0.5)),
    ("hardtanh", "std::ml::hardtanh(X, -1.0, 1.0)", 0.5, 1.0), ("relu6", "std::ml::relu6(X)", 7.0, 0.0),
]


def generate():
    shutil.rmtree(os.path.join(ROOT, "autodiff"), ignore_errors=True)
    t = TestFile("rules.ein", "std:: derivative rules through @y / @x (f32 scalars)",
                 uses=["std::math::*"])
    t.rel = os.path.join("..", "autodiff", "rules.ein")
    for name, call, x, d in RULES:
        t.raw(f"let x_{name} = {x!r};", f"let y_{name} = {call.replace('X', 'x_' + name)};")
        t.check(f"@y_{name} / @x_{name}", np.float32(d), "f32")
    # Jacobians of whole-array calls: elementwise rules give diagonal Jacobians
    t.raw("let xs = [0.5, 1.0, 2.0];", "let ys = sin(xs);", "let J = @ys / @xs;")
    t.check("J[1, 1]", np.float32(math.cos(1.0)), "f32")
    t.check("J[0, 1]", 0.0, "f32")
    t.raw("let ps = std::ml::softmax(xs);", "let S = @ps / @xs;")
    e = np.exp(np.array([0.5, 1.0, 2.0]))
    p = e / e.sum()
    t.check("S[0, 0]", np.float32(p[0] * (1 - p[0])), "f32")
    t.check("S[0, 2]", np.float32(-p[0] * p[2]), "f32")
    t.write()
