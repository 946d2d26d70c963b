"""Reference loops for the attribute survey (session 22), written from the ONNX operator
definitions (onnx/docs/Operators.md and the reference implementation's formulas), never from
ein's output: convolution, pooling, resize / upsample, pad, slice. Plain Python loops over
NumPy arrays, so that each line can be read against the operator's text.
"""
import itertools
import math

import numpy as np


def side_pads(pads, nsp):
    """ONNX pads [b0, b1, .., e0, e1, ..]; the surface also takes one per axis, or empty."""
    if len(pads) == 0:
        return [0] * nsp, [0] * nsp
    if len(pads) == nsp:
        return list(pads), list(pads)
    return list(pads[:nsp]), list(pads[nsp:])


def conv(X, W, B, strides, pads, dilations, group):
    """ONNX Conv: Y[n, m, o..] = B[m] + sum_{c, k..} X[n, g*Cg + c, o*s + k*d - b] * W[m, c, k..],
    taps outside the input are zero (explicit pads)."""
    N, C = X.shape[:2]
    M = W.shape[0]
    sp = X.shape[2:]
    nsp = len(sp)
    K = W.shape[2:]
    s = list(strides) or [1] * nsp
    d = list(dilations) or [1] * nsp
    b, e = side_pads(pads, nsp)
    out = [(sp[a] + b[a] + e[a] - d[a] * (K[a] - 1) - 1) // s[a] + 1 for a in range(nsp)]
    Cg = C // group
    Mg = M // group
    Y = np.zeros((N, M) + tuple(out), dtype=np.result_type(X, W))
    for n in range(N):
        for m in range(M):
            g = m // Mg
            for o in itertools.product(*[range(v) for v in out]):
                acc = B[m] if len(B) else 0
                for c in range(Cg):
                    for k in itertools.product(*[range(v) for v in K]):
                        pos = [o[a] * s[a] + k[a] * d[a] - b[a] for a in range(nsp)]
                        if all(0 <= pos[a] < sp[a] for a in range(nsp)):
                            acc = acc + X[(n, g * Cg + c) + tuple(pos)] * W[(m, c) + k]
                Y[(n, m) + o] = acc
    return Y


def pool(X, kernel, strides, pads, kind, p=2.0):
    """ONNX MaxPool / AveragePool (count_include_pad 0) / LpPool, ceil_mode 0, no dilation."""
    N, C = X.shape[:2]
    sp = X.shape[2:]
    nsp = len(sp)
    s = list(strides) or [1] * nsp
    b, e = side_pads(pads, nsp)
    out = [(sp[a] + b[a] + e[a] - kernel[a]) // s[a] + 1 for a in range(nsp)]
    dt = X.dtype if kind == "max" else np.float64 if X.dtype.kind in "iub" else X.dtype
    Y = np.zeros((N, C) + tuple(out), dtype=dt)
    for n in range(N):
        for c in range(C):
            for o in itertools.product(*[range(v) for v in out]):
                vals = []
                for k in itertools.product(*[range(v) for v in kernel]):
                    pos = [o[a] * s[a] + k[a] - b[a] for a in range(nsp)]
                    if all(0 <= pos[a] < sp[a] for a in range(nsp)):
                        vals.append(X[(n, c) + tuple(pos)])
                v = np.array(vals)
                if kind == "max":
                    Y[(n, c) + o] = v.max()
                elif kind == "avg":
                    Y[(n, c) + o] = v.astype(np.float64).mean()
                else:
                    Y[(n, c) + o] = (np.abs(v.astype(np.float64)) ** p).sum() ** (1.0 / p)
    return Y


def cubic_coeffs(r, A=-0.75):
    """Keys' cubic convolution weights of the 4 taps at -1, 0, 1, 2 for the fraction r."""
    return [((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A,
            ((A + 2) * r - (A + 3)) * r * r + 1,
            ((A + 2) * (1 - r) - (A + 3)) * (1 - r) * (1 - r) + 1,
            ((A * (2 - r) - 5 * A) * (2 - r) + 8 * A) * (2 - r) - 4 * A]


def resize_1d(v, scale, mode, asym):
    """One axis of ONNX Resize (half_pixel, round_prefer_floor, cubic a = -0.75, edge taps) or of
    Upsample (asymmetric, nearest by floor)."""
    n = len(v)
    out = int(math.floor(n * scale))
    y = np.zeros(out)
    at = lambda i: v[min(max(i, 0), n - 1)]
    for i in range(out):
        x = i / scale if asym else (i + 0.5) / scale - 0.5
        if mode == "nearest":
            if asym:
                j = int(math.floor(x))
            else:
                j = int(math.floor(x)) if x == math.floor(x) + 0.5 else int(round(x))
            y[i] = at(j)
        elif mode == "linear":
            f = math.floor(x)
            r = x - f
            y[i] = at(f) * (1 - r) + at(f + 1) * r
        else:
            f = math.floor(x)
            r = x - f
            w = cubic_coeffs(r)
            y[i] = sum(w[t] * at(f - 1 + t) for t in range(4))
    return y


def resize(X, scales, mode, asym=False):
    X = np.asarray(X, dtype=np.float64)
    r = X.ndim
    full = list(scales) if len(scales) == r else [1.0, 1.0] + list(scales)
    for a in range(r):
        if full[a] == 1.0:
            continue
        X = np.apply_along_axis(lambda v: resize_1d(v, full[a], mode, asym), a, X)
    return X


def slice_(data, starts, ends, axes, steps):
    """ONNX Slice with its clamping."""
    r = data.ndim
    axes = list(axes) or list(range(len(starts)))
    steps = list(steps) or [1] * len(starts)
    idx = [slice(None)] * r
    for st, en, ax, sp in zip(starts, ends, axes, steps):
        ax = ax + r if ax < 0 else ax
        n = data.shape[ax]
        st = st + n if st < 0 else st
        en = en + n if en < 0 else en
        if sp > 0:
            st = min(max(st, 0), n)
            en = min(max(en, 0), n)
        else:
            st = min(max(st, 0), n - 1)
            en = min(max(en, -1), n - 1)
        rng = list(range(st, en, sp))
        idx[ax] = rng
    out = data
    for ax in range(r):
        if isinstance(idx[ax], list):
            out = np.take(out, idx[ax], axis=ax)
    return out
