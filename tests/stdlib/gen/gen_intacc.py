"""Integer accumulation (session 20): library sums, products and contractions of integers are
exact and keep the input's integer type; past it they are E006 (NumPy widens np.sum / np.prod /
np.cumsum / np.trace of int32 to int64, and wraps np.dot / np.matmul / np.einsum of int32 and
everything of int64). The cases of intacc_table.py: values (NumPy's exact results, which fit)
in one file, and the first result past the type of every function as its own error file, each
run with EIN_JIT=never and always.
"""
import re

import numpy as np

import intacc_table
from gen_select import modes_file


def helpers_file():
    """The helpers of std::ml::exact called directly."""
    t = modes_file("outside/intacc_helpers.ein", "std::ml::exact's helpers (values from NumPy)",
                   uses=["std::ml::exact::*"])
    t.raw(*intacc_table.PRELUDE)
    A, G, W, H = (intacc_table.INPUTS[k] for k in "agwh")
    t.check("is_wide(a)", np.False_, "bool")
    t.check("is_wide(h)", np.True_, "bool")
    t.check("total(a, \"t\")", np.int32(A.sum()), "i32")
    t.check("total(h, \"t\")", np.int64(H.sum()), "i64")
    t.check("narrow(sum[i, j](g[i, j] as i64) - 3000000000, g, \"t\")", np.int32(int(G.sum(dtype=np.int64)) - 3000000000), "i32")
    t.check("check_i64(sum[i](h[i]), sum[i](h[i] as f64), \"t\")", np.int64(H.sum()), "i64")
    t.check("count(g)", np.float64(G.size), "f64")
    t.check("max_abs(g)", np.float64(np.abs(G).max()), "f64")
    t.check("products_fit(max_abs(g), max_abs(g), 3)", np.bool_(float(np.abs(G).max()) ** 2 * 3 < 4e18), "bool")
    t.check("products_fit(max_abs(a), max_abs(a), 3)", np.bool_(True), "bool")
    t.check("type_max(a)", np.float64(np.iinfo(np.int32).max), "f64")
    t.check("small(max_abs(g), count(g), g)", np.bool_(float(np.abs(G).max()) * G.size <= np.iinfo(np.int32).max), "bool")
    t.check("small(max_abs(a), count(a), a)", np.bool_(True), "bool")
    t.check("checked(sum[i](h[i]), sum[i](h[i] as f64), h, \"t\")", np.int64(H.sum()), "i64")
    t.write()


def generate():
    helpers_file()
    cases = intacc_table.cases()
    t = modes_file("outside/intacc_values.ein", "integer sums, products and contractions whose exact "
                   "result fits the input's integer type (values from NumPy over Python integers)", uses=[])
    t.raw(*intacc_table.PRELUDE)
    for expr, value, ty in cases:
        if value is not None:
            t.check(expr, value, ty.split(";")[0].strip("["))
            t.check_text(f"typeof({expr})", ty)
    t.write()
    seen = set()
    for expr, value, ty in cases:
        if value is not None:
            continue
        name = re.match(r"[\w:]+", expr).group(0).split("::")[-1]
        if name in seen:
            continue
        seen.add(name)
        t = modes_file(f"outside/errors/intacc_{name}_overflow.ein", f"{expr}: the exact result does not fit "
                       "the input's integer type: E006 at the call (never a wrapped value)", uses=[])
        t.raw(*intacc_table.PRELUDE)
        t.raw(f"print({expr});")
        t.expect_error("E006")
        t.write()
