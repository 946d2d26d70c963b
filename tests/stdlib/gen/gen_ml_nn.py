"""std::ml tests, part 2: pooling, normalisation, attention and recurrent layers."""
import itertools

import numpy as np

from common import TestFile, decimals
from gen_ml import f64, full_pads, quarters, sigmoid, softmax


# ---- pooling ------------------------------------------------------------------------------------

def pool_ref(X, k, s, p, how, lp=2.0):
    """ONNX MaxPool / AveragePool (count_include_pad 0) / LpPool on N-D inputs, window by window."""
    sp = X.shape[2:]
    nsp = len(sp)
    s = s or [1] * nsp
    p = full_pads(p, nsp)
    out = [(sp[a] + p[a] + p[a + nsp] - k[a]) // s[a] + 1 for a in range(nsp)]
    Y = np.zeros(X.shape[:2] + tuple(out))
    for o in itertools.product(*(range(n) for n in out)):
        win = X[(slice(None), slice(None)) + tuple(
            slice(max(o[a] * s[a] - p[a], 0), max(o[a] * s[a] - p[a] + k[a], 0)) for a in range(nsp))]
        flat = win.reshape(X.shape[0], X.shape[1], -1)
        if how == "max":
            Y[(slice(None), slice(None)) + o] = flat.max(axis=-1) if flat.size else -np.inf
        elif how == "avg":
            Y[(slice(None), slice(None)) + o] = flat.mean(axis=-1)
        else:
            Y[(slice(None), slice(None)) + o] = (np.abs(flat) ** lp).sum(axis=-1) ** (1 / lp)
    return Y


POOL_CONFIGS = [
    ((1, 1, 8), [3], [2], [1, 1], "f32"),
    ((2, 2, 7), [2], [1], [0, 1], "f64"),
    ((1, 2, 6), [4], [], [], "f32"),
    ((1, 1, 4, 4), [2, 2], [2, 2], [0, 0, 0, 0], "f32"),
    ((2, 2, 5, 4), [3, 2], [1, 2], [1, 0, 1, 1], "f64"),
    ((1, 3, 3, 3), [2, 2], [2, 2], [1, 1], "f32"),
    ((1, 1, 6, 5), [3, 3], [2, 1], [0, 1, 2, 1], "f64"),
    ((1, 1, 4, 4, 4), [2, 2, 2], [2, 2, 2], [0, 0, 0, 0, 0, 0], "f32"),
    ((2, 1, 3, 5, 4), [2, 3, 2], [1, 2, 1], [1, 0, 1, 0, 1, 1], "f64"),
    ((1, 2, 3, 3, 3), [3, 1, 2], [1, 1, 1], [1, 0, 0], "f32"),
]


def pooling_file():
    t = TestFile("ml/pooling.ein", "std::ml max_pool, average_pool (padding excluded), lp_pool, "
                 "global_average_pool, global_max_pool on 1-D, 2-D and 3-D inputs, max_roi_pool",
                 uses=["std::ml::*"])
    for i, (xs, k, s, p, kind) in enumerate(POOL_CONFIGS):
        X = t.let(f"X{i}", quarters(500 + i, xs), kind)
        t.check(f"max_pool(X{i}, {k}, {s}, {p})", pool_ref(f64(X), k, s, p, "max").astype(X.dtype),
                kind)
        t.check(f"average_pool(X{i}, {k}, {s}, {p})",
                pool_ref(f64(X), k, s, p, "avg").astype(X.dtype), kind)
        sp = tuple(range(2, len(xs)))
        t.check(f"global_average_pool(X{i})", f64(X).mean(axis=sp, keepdims=True).astype(X.dtype),
                kind)
        t.check(f"global_max_pool(X{i})", X.max(axis=sp, keepdims=True), kind)
        for lp in (1, 2, 3):
            t.check(f"lp_pool(X{i}, {k}, {s}, {lp})", pool_ref(f64(X), k, s, [], "lp", lp).astype(X.dtype),
                    kind)
    t.check("shape(global_average_pool(X4))", np.array([2, 2, 1, 1]), "i32")
    t.check("shape(global_max_pool(X8))", np.array([2, 1, 1, 1, 1]), "i32")
    for i, (xs, rois, ps, scale, kind) in enumerate([
            ((1, 2, 6, 7), [[0, 0, 0, 5, 5], [0, 1, 2, 3, 5], [0, 4, 4, 4, 4]], (2, 2), 1.0, "f32"),
            ((2, 1, 8, 8), [[1, 2.2, 0.6, 13.0, 9.4], [0, 0, 0, 15, 15], [1, 20, 20, 30, 30]], (3, 2), 0.5, "f64")]):
        X = t.let(f"RX{i}", quarters(560 + i, xs), kind)
        R = t.let(f"RR{i}", np.array(rois, dtype=float), kind)
        t.check(f"max_roi_pool(RX{i}, RR{i}, [{ps[0]}, {ps[1]}], {scale})",
                roi_pool_ref(f64(X), f64(R), ps, scale).astype(X.dtype), kind)
    t.write()


def roi_pool_ref(X, rois, pooled, scale):
    """ONNX MaxRoiPool as in the ONNX reference (a port of Caffe's ROIPooling)."""
    N, C, H, W = X.shape
    PH, PW = pooled
    Y = np.zeros((len(rois), C, PH, PW))
    for n, roi in enumerate(rois):
        b = int(roi[0])
        x1, y1, x2, y2 = (int(round(v * scale)) for v in roi[1:])
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        bh, bw = rh / PH, rw / PW
        for ph in range(PH):
            for pw in range(PW):
                hs = min(max(int(np.floor(ph * bh)) + y1, 0), H)
                he = min(max(int(np.ceil((ph + 1) * bh)) + y1, 0), H)
                ws = min(max(int(np.floor(pw * bw)) + x1, 0), W)
                we = min(max(int(np.ceil((pw + 1) * bw)) + x1, 0), W)
                if he > hs and we > ws:
                    Y[n, :, ph, pw] = X[b, :, hs:he, ws:we].max(axis=(1, 2))
    return Y


# ---- normalisation ------------------------------------------------------------------------------

def normalization_file():
    t = TestFile("ml/normalization.ein", "std::ml batch_normalization (inference), "
                 "layer_normalization (last axis), instance_normalization", uses=["std::ml::*"])
    for i, (xs, kind) in enumerate([((2, 3), "f64"), ((2, 3, 4), "f32"), ((1, 2, 3, 2), "f64"),
                                    ((2, 2, 2, 2, 2), "f32")]):
        X = t.let(f"X{i}", decimals(600 + i, xs, -3, 3), kind)
        C = xs[1]
        sc = t.let(f"sc{i}", decimals(610 + i, (C,), 0.5, 2), kind)
        B = t.let(f"B{i}", decimals(620 + i, (C,), -1, 1), kind)
        mu = t.let(f"mu{i}", decimals(630 + i, (C,), -1, 1), kind)
        var = t.let(f"var{i}", decimals(640 + i, (C,), 0.5, 2), kind)
        shp = (1, C) + (1,) * (len(xs) - 2)
        ref = (f64(X) - f64(mu).reshape(shp)) / np.sqrt(f64(var).reshape(shp) + 1e-5) \
            * f64(sc).reshape(shp) + f64(B).reshape(shp)
        eps = "1e-05" if kind == "f32" else f"eps{i}"
        if kind == "f64":
            t.raw(f"let eps{i}: f64 = 1e-05;")
        t.check(f"batch_normalization(X{i}, sc{i}, B{i}, mu{i}, var{i}, {eps})",
                ref.astype(X.dtype), kind)
        D = xs[-1]
        lsc = t.let(f"lsc{i}", decimals(650 + i, (D,), 0.5, 2), kind)
        lB = t.let(f"lB{i}", decimals(660 + i, (D,), -1, 1), kind)
        m = f64(X).mean(axis=-1, keepdims=True)
        v = f64(X).var(axis=-1, keepdims=True)
        ref = (f64(X) - m) / np.sqrt(v + 1e-5) * f64(lsc) + f64(lB)
        t.check(f"layer_normalization(X{i}, lsc{i}, lB{i}, {eps}, -1)", ref.astype(X.dtype), kind)
        t.check(f"layer_normalization(X{i}, lsc{i}, lB{i}, {eps}, {len(xs) - 1})",
                ref.astype(X.dtype), kind)
        # over the last two axes: scale and B have their shape
        tail = xs[-2:]
        lsc2 = t.let(f"lsc2_{i}", decimals(670 + i, tail, 0.5, 2), kind)
        lB2 = t.let(f"lB2_{i}", decimals(680 + i, tail, -1, 1), kind)
        m = f64(X).mean(axis=(-2, -1), keepdims=True)
        v = f64(X).var(axis=(-2, -1), keepdims=True)
        ref = (f64(X) - m) / np.sqrt(v + 1e-5) * f64(lsc2) + f64(lB2)
        t.check(f"layer_normalization(X{i}, lsc2_{i}, lB2_{i}, {eps}, -2)", ref.astype(X.dtype), kind)
        t.check(f"layer_normalization(X{i}, lsc2_{i}, lB2_{i}, {eps}, {len(xs) - 2})",
                ref.astype(X.dtype), kind)
        if len(xs) >= 3:
            axes = tuple(range(2, len(xs)))
            m = f64(X).mean(axis=axes, keepdims=True)
            v = f64(X).var(axis=axes, keepdims=True)
            ref = (f64(X) - m) / np.sqrt(v + 1e-5) * f64(sc).reshape(shp) + f64(B).reshape(shp)
            t.check(f"instance_normalization(X{i}, sc{i}, B{i}, {eps})", ref.astype(X.dtype), kind)
    t.write()


def lrn_ref(X, size, alpha, beta, bias):
    C = X.shape[1]
    sq = np.zeros_like(X)
    lo, hi = (size - 1) // 2, size - 1 - (size - 1) // 2
    for c in range(C):
        sq[:, c] = (X[:, max(0, c - lo):min(C, c + hi + 1)] ** 2).sum(axis=1)
    return X / (bias + alpha / size * sq) ** beta


def norm_extra_file():
    t = TestFile("ml/norm_extra.ein", "std::ml lrn, lp_normalization, mean_variance_normalization "
                 "(ONNX formulas)", uses=["std::ml::*"])
    for i, (xs, kind) in enumerate([((1, 5, 2, 2), "f64"), ((2, 4, 3), "f32"), ((1, 3, 2, 2, 2), "f64")]):
        X = t.let(f"X{i}", decimals(1700 + i, xs, -2, 2), kind)
        for size, alpha, beta, bias in [(3, 0.0001, 0.75, 1.0), (2, 0.5, 0.5, 2.0), (5, 1.0, 1.0, 1.0)]:
            if kind == "f64":
                t.raw(f"let lrn{i}_{size}: (f64, f64, f64) = ({alpha!r}, {beta!r}, {bias!r});")
                args = f"lrn{i}_{size}.0, lrn{i}_{size}.1, lrn{i}_{size}.2"
            else:
                args = f"{alpha!r}, {beta!r}, {bias!r}"
            t.check(f"lrn(X{i}, {size}, {args})", lrn_ref(f64(X), size, alpha, beta, bias).astype(X.dtype), kind)
        for ax in range(-len(xs), len(xs)):
            for p in (1, 2):
                nrm = np.linalg.norm(f64(X), ord=p, axis=ax, keepdims=True) if p == 2 else \
                    np.abs(f64(X)).sum(axis=ax, keepdims=True)
                t.check(f"lp_normalization(X{i}, {ax}, {p})", (f64(X) / nrm).astype(X.dtype), kind)
        for axes in ([0, 2, 3][:len(xs) - 1] if len(xs) >= 4 else [0, 2], [1], [-1, 0]):
            ax = tuple(a % len(xs) for a in axes)
            m = f64(X).mean(axis=ax, keepdims=True)
            v = ((f64(X) - m) ** 2).mean(axis=ax, keepdims=True)
            t.check(f"mean_variance_normalization(X{i}, {list(axes)})",
                    ((f64(X) - m) / (np.sqrt(v) + 1e-9)).astype(X.dtype), kind)
    t.write()


def layer_norm_axis_error():
    t = TestFile("ml/errors/layer_normalization_axis.ein", "std::ml layer_normalization with a "
                 "scale whose rank does not match `axis` is refused (E004)", uses=["std::ml::*"])
    t.raw("let X = [[1.0, 2.0], [3.0, 5.0]];")
    t.raw("print(layer_normalization(X, [1.0, 1.0], [0.0, 0.0], 0.00001, 0));")
    t.expect_error("E004")
    t.write()


# ---- attention ----------------------------------------------------------------------------------

def attend(Q, K, V, scale, mask=None):
    logits = Q @ np.swapaxes(K, -1, -2) * scale
    if mask is not None:
        logits = np.where(mask, logits, -np.inf) if mask.dtype == bool else logits + mask
    return softmax(logits) @ V


def heads_ref(q, k, v, h, scale, mask=None):
    D, Dv = q.shape[-1], v.shape[-1]
    dh, dv = D // h, Dv // h
    parts = [attend(q[..., i * dh:(i + 1) * dh], k[..., i * dh:(i + 1) * dh], v[..., i * dv:(i + 1) * dv],
                    scale, mask) for i in range(h)]
    return np.concatenate(parts, axis=-1)


def attention_file():
    t = TestFile("ml/attention.ein", "std::ml attention_dummy (batched), "
                 "multi_head_attention_simple, multi_head_attention with bool and float masks",
                 uses=["std::ml::*"])
    for i, (lead, S, T, d, dv, kind) in enumerate([((), 3, 4, 2, 3, "f64"), ((2,), 2, 3, 4, 2, "f32"),
                                                   ((2, 1), 2, 2, 3, 3, "f64")]):
        Q = t.let(f"Q{i}", decimals(700 + i, lead + (S, d)), kind)
        K = t.let(f"K{i}", decimals(710 + i, lead + (T, d)), kind)
        V = t.let(f"V{i}", decimals(720 + i, lead + (T, dv)), kind)
        t.raw(f"let sc{i}: {kind} = {1 / np.sqrt(d)!r};")
        t.check(f"attention_dummy(Q{i}, K{i}, V{i}, sc{i})",
                attend(f64(Q), f64(K), f64(V), 1 / np.sqrt(d)).astype(Q.dtype), kind)
    for i, (S, T, D, Dv, h, kind) in enumerate([(3, 4, 4, 4, 2, "f64"), (2, 2, 6, 3, 3, "f32"),
                                                (2, 3, 4, 2, 1, "f64")]):
        q = t.let(f"q{i}", decimals(730 + i, (S, D)), kind)
        k = t.let(f"k{i}", decimals(740 + i, (T, D)), kind)
        v = t.let(f"v{i}", decimals(750 + i, (T, Dv)), kind)
        t.raw(f"let hs{i}: {kind} = 0.5;")
        t.check(f"multi_head_attention_simple(q{i}, k{i}, v{i}, {h}, hs{i})",
                heads_ref(f64(q), f64(k), f64(v), h, 0.5).astype(q.dtype), kind)
        bm = np.random.default_rng(770 + i).uniform(size=(S, T)) > 0.3
        bm[:, 0] = True  # every query keeps one position
        t.let(f"bm{i}", bm, "bool")
        t.check(f"multi_head_attention(q{i}, k{i}, v{i}, {h}, hs{i}, bm{i})",
                heads_ref(f64(q), f64(k), f64(v), h, 0.5, bm).astype(q.dtype), kind)
        fm = t.let(f"fm{i}", decimals(780 + i, (S, T), -1, 1), kind)
        t.check(f"multi_head_attention(q{i}, k{i}, v{i}, {h}, hs{i}, fm{i})",
                heads_ref(f64(q), f64(k), f64(v), h, 0.5, f64(fm)).astype(q.dtype), kind)
    t.write()


# ---- recurrent layers (ONNX equations, one direction) -------------------------------------------

ACT = {"Tanh": np.tanh, "Relu": lambda x: np.maximum(x, 0), "Sigmoid": sigmoid}


def rnn_ref(X, W, R, B, h, act="Tanh"):
    Wb, Rb = np.split(B, 2)
    out = []
    for x in X:
        h = ACT[act](x @ W.T + h @ R.T + Wb + Rb)
        out.append(h)
    return np.array(out)


def lstm_ref(X, W, R, B, h, c, clip=0.0):
    Wb, Rb = np.split(B, 2)
    cl = (lambda z: np.clip(z, -clip, clip)) if clip > 0 else (lambda z: z)
    out = []
    for x in X:
        z = cl(x @ W.T + h @ R.T + Wb + Rb)
        i, o, f, g = np.split(z, 4, axis=-1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        out.append(h)
    return np.array(out)


def gru_ref(X, W, R, B, h, lbr=0):
    Wb, Rb = np.split(B, 2)
    Wz, Wr, Wh = np.split(W, 3)
    Rz, Rr, Rh = np.split(R, 3)
    Wbz, Wbr, Wbh = np.split(Wb, 3)
    Rbz, Rbr, Rbh = np.split(Rb, 3)
    out = []
    for x in X:
        z = sigmoid(x @ Wz.T + h @ Rz.T + Wbz + Rbz)
        r = sigmoid(x @ Wr.T + h @ Rr.T + Wbr + Rbr)
        if lbr:
            g = np.tanh(x @ Wh.T + r * (h @ Rh.T + Rbh) + Wbh)
        else:
            g = np.tanh(x @ Wh.T + (r * h) @ Rh.T + Rbh + Wbh)
        h = (1 - z) * g + z * h
        out.append(h)
    return np.array(out)


def directions(ref, X, W, R, B, states, direction, extra):
    """ONNX Y [T, D, N, H]: the forward pass, and/or the reverse one on X reversed in time."""
    outs = []
    for d in range(W.shape[0]):
        rev = direction == "reverse" or d == 1
        Xd = X[::-1] if rev else X
        y = ref(Xd, W[d], R[d], B[d], *[s[d] for s in states], *extra)
        outs.append(y[::-1] if rev else y)
    return np.stack(outs, axis=1)


def recurrent_file():
    t = TestFile("ml/recurrent.ein", "std::ml rnn, lstm, gru (ONNX layouts with and without the "
                 "direction axis; forward, reverse, bidirectional)", uses=["std::ml::*"])
    cases = [(4, 1, 2, 3, "f64", "forward"), (3, 2, 3, 2, "f32", "reverse"),
             (1, 2, 1, 1, "f64", "forward"), (3, 2, 2, 2, "f64", "bidirectional")]
    for i, (T, N, I, H, kind, direction) in enumerate(cases):
        D = 2 if direction == "bidirectional" else 1
        X = t.let(f"X{i}", decimals(800 + i, (T, N, I), -1, 1), kind)
        h0 = t.let(f"h{i}", decimals(801 + i, (D, N, H), -0.5, 0.5), kind)
        c0 = t.let(f"c{i}", decimals(802 + i, (D, N, H), -0.5, 0.5), kind)
        for name, G in (("rnn", 1), ("lstm", 4), ("gru", 3)):
            W = t.let(f"{name}W{i}", decimals(810 + 3 * G + i, (D, G * H, I), -1, 1), kind)
            R = t.let(f"{name}R{i}", decimals(820 + 3 * G + i, (D, G * H, H), -1, 1), kind)
            B = t.let(f"{name}B{i}", decimals(830 + 3 * G + i, (D, 2 * G * H), -0.5, 0.5), kind)
            a = [f64(X), f64(W), f64(R), f64(B)]
            d = f'"{direction}"'
            if name == "rnn":
                for act in ("Tanh", "Relu", "Sigmoid"):
                    t.check(f'rnn(X{i}, rnnW{i}, rnnR{i}, rnnB{i}, h{i}, {H}, {d}, "{act}")',
                            directions(rnn_ref, *a, [f64(h0)], direction, [act]).astype(X.dtype), kind)
                if D == 1:  # without the direction axis, zero initial state, no bias
                    t.raw(f"let nob{i}: [{kind}] = [];")
                    t.check(f'rnn(X{i}, rnnW{i}[0], rnnR{i}[0], nob{i}, nob{i}, 0, {d}, "Tanh")',
                            directions(rnn_ref, f64(X), f64(W), f64(R), 0 * f64(B), [0 * f64(h0)],
                                       direction, ["Tanh"])[:, 0].astype(X.dtype), kind)
            elif name == "lstm":
                for clip in (0.0, 0.5):
                    t.check(f"lstm(X{i}, lstmW{i}, lstmR{i}, lstmB{i}, h{i}, c{i}, {H}, {d}, {clip})",
                            directions(lstm_ref, *a, [f64(h0), f64(c0)], direction, [clip]).astype(X.dtype),
                            kind)
                if D == 1:
                    t.check(f"lstm(X{i}, lstmW{i}[0], lstmR{i}[0], lstmB{i}[0], h{i}[0], c{i}[0], {H}, {d}, 0.0)",
                            directions(lstm_ref, *a, [f64(h0), f64(c0)], direction, [0.0])[:, 0].astype(X.dtype),
                            kind)
            else:
                for lbr in (0, 1):
                    t.check(f"gru(X{i}, gruW{i}, gruR{i}, gruB{i}, h{i}, {H}, {d}, {lbr})",
                            directions(gru_ref, *a, [f64(h0)], direction, [lbr]).astype(X.dtype), kind)
    t.write()
    t = TestFile("ml/errors/rnn_direction.ein", "std::ml rnn with an unknown direction is E006",
                 uses=["std::ml::rnn"])
    t.raw("let X = [[[1.0]]];", "let W = [[1.0]];",
          'print(rnn(X, W, W, [0.0, 0.0], [[0.0]], 1, "sideways", "Tanh"));')
    t.expect_error("E006")
    t.write()


def generate():
    pooling_file()
    normalization_file()
    norm_extra_file()
    layer_norm_axis_error()
    attention_file()
    recurrent_file()
