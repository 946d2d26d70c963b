"""A few library functions in the reference evaluator, from their NumPy / ONNX definitions
(/work/shared/stdlib_surface.md), not from ein's share/std: each is written with refnum's
operations, so the error bound of the result follows from the two freedoms the SPEC allows
(float sums in any order, libm within a few ulp) like any other expression's.

  std::array::sum(x)            np.sum(x): every element, left to right (a scalar)
  std::array::mean(x)           np.mean(x) of a float array, in its own type
  std::array::max_axis(x, a)    np.max(x, axis=a), a = 0 or -1
  std::array::argmax(x)         np.argmax(x, axis=-1), the first on ties (i32)
  std::ml::relu(x)              max(x, 0) elementwise (integers stay integers)
  std::ml::sigmoid(x)           1 / (1 + exp(-x)) elementwise, floats
  std::ml::softmax(x)           exp(x - max) / sum(exp(x - max)) along the last axis
  std::ml::layer_normalization(X, scale, B, eps, -1)
                                (x - mu) / sqrt(var + eps) * scale + B over the last axis,
                                var the biased variance (ONNX LayerNormalization)

Names the generator draws are the keys of FUNCS; anything else is a generator bug.
"""
import itertools
import math

import refnum
from refnum import (IllConditioned, U, argreduce, farith, finish, mathfn, minmax2, reduce,
                    slack, wrap)

FLOATS = ("f32", "f64")


def _tensor():
    from ref import Tensor
    return Tensor


def _gb(msg):
    from ref import GenBug
    return GenBug(msg)


def _items(t):
    return list(zip(t.vals, t.errs))


def _rows(t):
    """The last-axis rows of t: (leading index tuple, [(v, e)])."""
    n = t.shape[-1]
    lead = t.shape[:-1]
    out = []
    for k, idx in enumerate(itertools.product(*[range(m) for m in lead])):
        out.append((idx, list(zip(t.vals[k * n:(k + 1) * n], t.errs[k * n:(k + 1) * n]))))
    return lead, out


def _map(x, f):
    """f over every element of a tensor, or of a scalar (dt, v, e)."""
    T = _tensor()
    if isinstance(x, T):
        out = T(x.dt, x.shape)
        for k in range(len(x.vals)):
            dt, v, e = f((x.dt, x.vals[k], x.errs[k]))
            out.dt = dt
            out.vals[k], out.errs[k] = v, e
        return out
    return f(x)


def _need_float(x, name):
    dt = x.dt if isinstance(x, _tensor()) else x[0]
    if dt not in FLOATS:
        raise _gb(f"{name} of {dt}: the generator draws floats only")
    return dt


def f_sum(x):
    T = _tensor()
    if not isinstance(x, T):
        return x
    if x.dt == "bool":
        raise _gb("sum of bools")
    return (x.dt,) + reduce(x.dt, "sum", _items(x))


def f_mean(x):
    dt = _need_float(x, "mean")
    n = len(x.vals)
    if n == 0:
        raise refnum.Unspecified("mean of an empty array")
    s = reduce(dt, "sum", _items(x))
    return (dt,) + farith(dt, "/", s[0], s[1], float(n), 0.0)


def f_max_axis(x, axis):
    T = _tensor()
    ax = axis[1]
    rank = len(x.shape)
    a = ax + rank if ax < 0 else ax
    if not 0 <= a < rank or rank > 2:
        raise _gb("max_axis: axis")
    if any(n == 0 for n in x.shape):
        raise refnum.Unspecified("max over an empty axis")
    if rank == 1:
        return (x.dt,) + reduce(x.dt, "max", _items(x))
    r, c = x.shape
    if a == 1:
        vals = [reduce(x.dt, "max", list(zip(x.vals[i * c:(i + 1) * c],
                                              x.errs[i * c:(i + 1) * c]))) for i in range(r)]
        shape = (r,)
    else:
        vals = [reduce(x.dt, "max", [(x.vals[i * c + j], x.errs[i * c + j]) for i in range(r)])
                for j in range(c)]
        shape = (c,)
    return T(x.dt, shape, [v for v, _ in vals], [e for _, e in vals])


def f_argmax(x):
    T = _tensor()
    if x.dt == "bool" or any(n == 0 for n in x.shape):
        raise _gb("argmax of bools or of an empty axis")
    lead, rows = _rows(x)
    res = [argreduce("argmax", list(enumerate(row)))[0] for _, row in rows]
    if not lead:
        return ("i32", res[0], 0.0)
    return T("i32", lead, res, [0.0] * len(res))


def f_relu(x):
    def one(s):
        dt, v, e = s
        if dt == "bool":
            raise _gb("relu of bool")
        z = 0.0 if dt in FLOATS else 0
        return (dt,) + minmax2(dt, "max", (v, e), (z, 0.0))
    return _map(x, one)


def f_sigmoid(x):
    _need_float(x, "sigmoid")

    def one(s):
        dt, v, e = s
        ex = mathfn(dt, "exp", (-v, e))
        den = farith(dt, "+", 1.0, 0.0, ex[0], ex[1])
        return (dt,) + farith(dt, "/", 1.0, 0.0, den[0], den[1])
    return _map(x, one)


def _softmax_row(dt, row):
    m = reduce(dt, "max", row)
    ex = [mathfn(dt, "exp", farith(dt, "-", v, e, m[0], m[1])) for v, e in row]
    s = reduce(dt, "sum", ex)
    return [farith(dt, "/", v, e, s[0], s[1]) for v, e in ex]


def f_softmax(x):
    T = _tensor()
    dt = _need_float(x, "softmax")
    if not isinstance(x, T) or any(n == 0 for n in x.shape):
        raise _gb("softmax of a scalar or an empty axis")
    lead, rows = _rows(x)
    out = []
    for _, row in rows:
        out.extend(_softmax_row(dt, row))
    return T(dt, x.shape, [v for v, _ in out], [e for _, e in out])


def _rsqrt(dt, a):
    r = mathfn(dt, "sqrt", a)
    v, e = farith(dt, "/", 1.0, 0.0, r[0], r[1])
    # ein may compute it as one rsqrt (libm freedom) instead of 1 / sqrt
    return finish(dt, v, e + refnum.LIBM_ULPS * 2 * U[dt] * abs(v))


def f_layer_norm(X, scale, B, eps, axis):
    T = _tensor()
    dt = _need_float(X, "layer_normalization")
    if axis[1] != -1 or len(X.shape) != 2 or scale.shape != X.shape[-1:] or \
            B.shape != scale.shape or scale.dt != dt or B.dt != dt or eps[0] != dt:
        raise _gb("layer_normalization: the generator's form is X[n, d], scale[d], B[d], -1")
    n = X.shape[-1]
    if n == 0:
        raise _gb("layer_normalization over an empty axis")
    cnt = float(n)
    lead, rows = _rows(X)
    out = []
    for _, row in rows:
        s = reduce(dt, "sum", row)
        mu = farith(dt, "/", s[0], s[1], cnt, 0.0)
        d = [farith(dt, "-", v, e, mu[0], mu[1]) for v, e in row]
        sq = [farith(dt, "*", v, e, v, e) for v, e in d]
        vs = reduce(dt, "sum", sq)
        var = farith(dt, "/", vs[0], vs[1], cnt, 0.0)
        ve = farith(dt, "+", var[0], var[1], eps[1], eps[2])
        rs = _rsqrt(dt, ve)
        for j, (v, e) in enumerate(d):
            y = farith(dt, "*", v, e, rs[0], rs[1])
            y = farith(dt, "*", y[0], y[1], scale.vals[j], scale.errs[j])
            out.append(farith(dt, "+", y[0], y[1], B.vals[j], B.errs[j]))
    return T(dt, X.shape, [v for v, _ in out], [e for _, e in out])


FUNCS = {
    "std::array::sum": (f_sum, 1),
    "std::array::mean": (f_mean, 1),
    "std::array::max_axis": (f_max_axis, 2),
    "std::array::argmax": (f_argmax, 1),
    "std::ml::relu": (f_relu, 1),
    "std::ml::sigmoid": (f_sigmoid, 1),
    "std::ml::softmax": (f_softmax, 1),
    "std::ml::layer_normalization": (f_layer_norm, 5),
}


def call(name, args):
    if name not in FUNCS:
        raise _gb(f"no reference for {name}")
    f, arity = FUNCS[name]
    if len(args) != arity:
        raise _gb(f"{name}: arity")
    return f(*args)
