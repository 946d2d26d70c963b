"""Gradients of the differentiable std:: functions against finite differences.

Each check is one file: f64 inputs, a fixed random weighting w of the function's output, the
scalar L = sum(w * f(inputs)), and `print(@L / @x)` for each differentiated input x. The
expected gradient is the central difference (h = 1e-6, float64) of the same L computed with
the NumPy reference of f (the one the value tests use), so it is independent of the library.
Inputs are drawn away from the kinks of non-smooth functions (ties in a max, |x| near a
threshold). Files go to tests/stdlib/autodiff/grad/; those of PENDING (gradients the compiler
cannot take yet, with the reason) go to tests/stdlib/autodiff/pending/, where the stage
expects them to fail and reports any that passes.
"""
import os
import shutil
import zlib

import numpy as np

from common import ROOT, TestFile, lit, type_ann

H = 1e-6
GRAD = os.path.join(ROOT, "autodiff", "grad")
PEND = os.path.join(ROOT, "autodiff", "pending")


def rnd(seed, shape, lo=-1.0, hi=1.0):
    """Three decimals: distinct values (no ties in a max), short literals."""
    return np.round(np.random.default_rng(seed).uniform(lo, hi, size=shape), 3)


def away(seed, shape, kinks, lo=-2.0, hi=2.0, gap=0.05):
    x = rnd(seed, shape, lo, hi)
    for k in kinks:
        x = np.where(np.abs(x - k) < gap, x + 2 * gap, x)
    return np.round(x, 3)


def fd(ref, inputs, wrt, w):
    """Central differences of sum(w * ref(**inputs)) in wrt."""
    base = {k: np.array(v, dtype=np.float64) for k, v in inputs.items()}
    x = base[wrt]
    g = np.zeros_like(x)
    for idx in np.ndindex(*x.shape) if x.shape else [()]:
        up = dict(base)
        dn = dict(base)
        up[wrt] = x.copy()
        dn[wrt] = x.copy()
        up[wrt][idx] += H
        dn[wrt][idx] -= H
        g[idx] = ((w * ref(**up)).sum() - (w * ref(**dn)).sum()) / (2 * H)
    return g


def loss_expr(out_rank):
    idx = ", ".join(f"i{k}" for k in range(out_rank))
    return f"sum[{idx}](out_[{idx}] * w_[{idx}])" if out_rank else "out_ * w_"


def write_check(name, call, inputs, wrt, ref, uses, pending, consts=()):
    out = np.asarray(ref(**{k: np.array(v, dtype=np.float64) for k, v in inputs.items()}))
    w = rnd(zlib.crc32(name.encode()) % 10000, out.shape, 0.5, 1.5) if out.shape else np.float64(1.25)
    folder = "pending" if name in pending else "grad"
    t = TestFile(os.path.join("..", "autodiff", folder, name + ".ein"),
                 f"gradient of {call} against central differences of NumPy's"
                 + (f" -- pending: {pending[name]}" if name in pending else ""), uses=uses)
    for k, v in inputs.items():
        t.raw(f"let {k}: {type_ann(v, 'f64')} = {lit(v, 'f64')};")
    for line in consts:
        t.raw(line)
    t.raw(f"let w_: {type_ann(w, 'f64')} = {lit(w, 'f64')};")
    t.raw(f"let out_ = {call};", f"let loss_ = {loss_expr(out.ndim)};")
    for x in wrt:
        t.check(f"@loss_ / @{x}", fd(ref, inputs, x, w), "f64")
    t.write()


def generate():
    import gen_grad_cases
    import gen_grad_forms
    import gen_grad_gaps
    import gen_grad_more
    for d in (GRAD, PEND):
        shutil.rmtree(d, ignore_errors=True)
    names = set()
    for case in (gen_grad_cases.cases() + gen_grad_more.cases() + gen_grad_forms.cases()
                 + gen_grad_gaps.cases()):
        assert case[0] not in names, case[0]
        names.add(case[0])
        write_check(*case[:5], uses=case[5] if len(case) > 5 else ["std::ml::*"],
                    pending=gen_grad_cases.PENDING, consts=case[6] if len(case) > 6 else ())
    gen_grad_more.multi_rank()
    gen_grad_more.in_function()
