"""Special values through std::math and std::ml's one-argument functions (session 22): +-inf,
NaN, -0.0, +0.0, +-1e308, the smallest subnormal, halves and arguments where exp overflows, each
function over one f64 array of them, against NumPy's ufunc or the kinds table's NumPy formula
(softplus and log_sigmoid by np.logaddexp, which stays finite where the naive formula does not).
round(+-inf) was NaN with exit 0 until this session. Run in EIN_JIT=never and always.
"""
import numpy as np

import kinds_table as K
from common import fmt
from gen_select import modes_file

V = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, 1e308, -1e308, 5e-324, 0.5, -2.5, 700.0, -750.0])
PRELUDE = "let s: [f64; 12] = [1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, -0.0, 0.0, 1e308, -1e308, 5e-324, 0.5, -2.5, 700.0, -750.0];"


def functions():
    fns = {k: v for k, v in K.FLOAT_UNARY.items() if v is not None and "softmax" not in k}
    fns.update(K.INT_KEEP)
    fns.update({"std::math::floor": np.floor, "std::math::ceil": np.ceil, "std::math::trunc": np.trunc,
                "std::math::exp": np.exp, "std::math::log": np.log, "std::math::sqrt": np.sqrt,
                "std::math::cos": np.cos, "std::math::tanh": np.tanh, "std::math::cosh": np.cosh,
                "std::math::log10": np.log10, "std::math::log2": np.log2, "std::math::expm1": np.expm1,
                "std::math::log1p": np.log1p, "std::math::atan": np.arctan, "std::ml::sigmoid": K.sigmoid,
                "std::ml::tanh": np.tanh, "std::ml::abs": np.abs, "std::ml::neg": np.negative,
                "std::ml::reciprocal": lambda z: 1 / z, "std::ml::sign": np.sign,
                "std::ml::softplus": lambda z: np.logaddexp(0.0, z),
                "std::ml::log_sigmoid": lambda z: -np.logaddexp(0.0, -z)})
    return sorted(fns.items())


def generate():
    t = modes_file("math/special_values.ein", "one-argument functions of std::math and std::ml on +-inf, "
                   "NaN, signed zeros, +-1e308, a subnormal, halves and exp-overflowing arguments "
                   "(values from NumPy)", uses=[])
    t.raw(PRELUDE)
    with np.errstate(all="ignore"):
        for name, f in functions():
            t.check_text(f"{name}(s)", fmt(np.asarray(f(V.copy()), dtype=np.float64), "f64"))
    t.write()
