"""NumPy references of the session-18 outside-programs hunt (gen_hunt2.py): ONNX operators
written the way their specifications and the ONNX reference implementation define them, with
loops and slices, independent of the library.
"""
import itertools

import numpy as np


def conv(X, W, B, strides, pads, dil, group=1):
    """ONNX Conv, N-D: pads are [begin_0, .., begin_d, end_0, .., end_d]."""
    N, C = X.shape[:2]
    M, d = W.shape[0], X.ndim - 2
    K = W.shape[2:]
    Xp = np.pad(X, [(0, 0), (0, 0)] + [(pads[i], pads[d + i]) for i in range(d)])
    out = [(Xp.shape[2 + i] - dil[i] * (K[i] - 1) - 1) // strides[i] + 1 for i in range(d)]
    Y = np.zeros((N, M, *out))
    CG, MG = C // group, M // group
    for k in itertools.product(*[range(n) for n in K]):
        sl = tuple(slice(k[i] * dil[i], k[i] * dil[i] + strides[i] * (out[i] - 1) + 1, strides[i]) for i in range(d))
        xs = Xp[(slice(None), slice(None)) + sl]
        for g in range(group):
            w = W[(slice(g * MG, (g + 1) * MG), slice(None)) + k]
            Y[:, g * MG:(g + 1) * MG] += np.einsum("nc...,mc->nm...", xs[:, g * CG:(g + 1) * CG], w)
    if B is not None:
        Y += B.reshape((1, M) + (1,) * d)
    return Y


def pool(X, K, strides, pads, kind):
    """ONNX MaxPool / AveragePool (count_include_pad 0), N-D, floor output sizes."""
    d = X.ndim - 2
    fill = -np.inf if kind == "max" else 0.0
    Xp = np.pad(X.astype(np.float64), [(0, 0), (0, 0)] + [(pads[i], pads[d + i]) for i in range(d)],
                constant_values=fill)
    ones = np.pad(np.ones(X.shape[2:]), [(pads[i], pads[d + i]) for i in range(d)])
    out = [(Xp.shape[2 + i] - K[i]) // strides[i] + 1 for i in range(d)]
    Y = np.zeros(X.shape[:2] + tuple(out))
    for o in itertools.product(*[range(n) for n in out]):
        sl = tuple(slice(o[i] * strides[i], o[i] * strides[i] + K[i]) for i in range(d))
        win = Xp[(slice(None), slice(None)) + sl]
        if kind == "max":
            Y[(slice(None), slice(None)) + o] = win.reshape(win.shape[:2] + (-1,)).max(-1)
        else:
            Y[(slice(None), slice(None)) + o] = win.reshape(win.shape[:2] + (-1,)).sum(-1) / ones[sl].sum()
    return Y


def softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def batch_norm(X, scale, B, mean, var, eps):
    sh = (1, -1) + (1,) * (X.ndim - 2)
    return (X - mean.reshape(sh)) / np.sqrt(var.reshape(sh) + eps) * scale.reshape(sh) + B.reshape(sh)


def layer_norm(X, scale, B, eps):
    m = X.mean(-1, keepdims=True)
    v = ((X - m) ** 2).mean(-1, keepdims=True)
    return (X - m) / np.sqrt(v + eps) * scale + B


def resize_1d(x, scale, mode, axis):
    """ONNX Resize along one axis: half_pixel coordinates, nearest round_prefer_floor, linear with
    edge clamping (the reference pads with the edge)."""
    x = np.moveaxis(x, axis, -1)
    L = x.shape[-1]
    n = int(np.floor(L * scale))
    o = (np.arange(n) + 0.5) / scale - 0.5
    if mode == "nearest":
        i = np.where(o - np.floor(o) == 0.5, np.floor(o), np.round(o)).astype(int)
        y = x[..., np.clip(i, 0, L - 1)]
    else:
        oc = np.clip(o, 0, L - 1)
        i0 = np.floor(oc).astype(int)
        i1 = np.minimum(i0 + 1, L - 1)
        w = oc - i0
        y = x[..., i0] * (1 - w) + x[..., i1] * w
    return np.moveaxis(y, -1, axis)


def quantize(x, scale, zp, lo, hi):
    return np.clip(np.round(x / scale) + zp, lo, hi).astype(np.int32)


def fd(f, x, h=1e-6):
    """Central differences of the scalar f at x (float64)."""
    x = np.array(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        a, b = x.copy(), x.copy()
        a[i] += h
        b[i] -= h
        g[i] = (f(a) - f(b)) / (2 * h)
    return g


def gru(X, W, R, B, h0, d=0, reverse=False):
    """ONNX GRU (linear_before_reset 0), direction d of the weights: the outputs [T, N, H]."""
    sig = lambda z: 1 / (1 + np.exp(-z))
    h = h0[d]
    Wz, Wr, Wh = np.split(W[d], 3)
    Rz, Rr, Rh = np.split(R[d], 3)
    Wbz, Wbr, Wbh, Rbz, Rbr, Rbh = np.split(B[d], 6)
    res = {}
    for s in (range(X.shape[0] - 1, -1, -1) if reverse else range(X.shape[0])):
        x = X[s]
        z = sig(x @ Wz.T + h @ Rz.T + Wbz + Rbz)
        r = sig(x @ Wr.T + h @ Rr.T + Wbr + Rbr)
        g = np.tanh(x @ Wh.T + (r * h) @ Rh.T + Rbh + Wbh)
        h = (1 - z) * g + z * h
        res[s] = h
    return np.stack([res[s] for s in range(X.shape[0])])
