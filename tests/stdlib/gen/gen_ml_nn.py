"""std::ml tests, part 2: pooling, normalisation, attention and recurrent layers."""
import numpy as np

from common import TestFile, decimals
from gen_ml import f64, quarters, sigmoid, softmax


# ---- pooling ------------------------------------------------------------------------------------

def pool_ref(X, k, s, p, how):
    N, C, H, W = X.shape
    OH = (H + p[0] + p[2] - k[0]) // s[0] + 1
    OW = (W + p[1] + p[3] - k[1]) // s[1] + 1
    Y = np.zeros((N, C, OH, OW))
    for oh in range(OH):
        for ow in range(OW):
            h0, w0 = oh * s[0] - p[0], ow * s[1] - p[1]
            win = X[:, :, max(h0, 0):max(h0 + k[0], 0), max(w0, 0):max(w0 + k[1], 0)]
            if how == "max":
                Y[:, :, oh, ow] = win.max(axis=(2, 3)) if win.size else -np.inf
            else:
                Y[:, :, oh, ow] = win.mean(axis=(2, 3))
    return Y


def pooling_file():
    t = TestFile("ml/pooling.ein", "std::ml max_pool, average_pool (padding excluded), "
                 "global_average_pool, global_max_pool", uses=["std::ml::*"])
    configs = [((1, 1, 4, 4), [2, 2], [2, 2], [0, 0, 0, 0], "f32"),
               ((2, 2, 5, 4), [3, 2], [1, 2], [1, 0, 1, 1], "f64"),
               ((1, 3, 3, 3), [2, 2], [2, 2], [1, 1, 1, 1], "f32"),
               ((1, 1, 6, 5), [3, 3], [2, 1], [0, 1, 2, 1], "f64")]
    for i, (xs, k, s, p, kind) in enumerate(configs):
        X = t.let(f"X{i}", quarters(500 + i, xs), kind)
        t.check(f"max_pool(X{i}, {k}, {s}, {p})", pool_ref(f64(X), k, s, p, "max").astype(X.dtype),
                kind)
        t.check(f"average_pool(X{i}, {k}, {s}, {p})",
                pool_ref(f64(X), k, s, p, "avg").astype(X.dtype), kind)
        t.check(f"global_average_pool(X{i})", f64(X).mean(axis=(2, 3), keepdims=True).astype(X.dtype),
                kind)
        t.check(f"global_max_pool(X{i})", X.max(axis=(2, 3), keepdims=True), kind)
    t.check("shape(global_average_pool(X1))", np.array([2, 2, 1, 1]), "i32")
    t.write()


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


def layer_norm_axis_error():
    t = TestFile("ml/errors/layer_normalization_axis.ein", "std::ml layer_normalization with a "
                 "scale whose rank does not match `axis` is refused (E007)", uses=["std::ml::*"])
    t.raw("let X = [[1.0, 2.0], [3.0, 5.0]];")
    t.raw("print(layer_normalization(X, [1.0, 1.0], [0.0, 0.0], 0.00001, 0));")
    t.expect_error("E007")
    t.write()


# ---- attention ----------------------------------------------------------------------------------

def sdpa(Q, K, V):
    w = softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]))
    return w @ V


def mha(q, k, v, wq, wk, wv, wo, h):
    D = wq.shape[0]
    dh = D // h
    Q, K, V = q @ wq, k @ wk, v @ wv
    heads = [sdpa(Q[:, i * dh:(i + 1) * dh], K[:, i * dh:(i + 1) * dh], V[:, i * dh:(i + 1) * dh])
             for i in range(h)]
    return np.concatenate(heads, axis=-1) @ wo


def attention_file():
    t = TestFile("ml/attention.ein", "std::ml scaled_dot_product_attention (batched) and "
                 "multi_head_attention", uses=["std::ml::*"])
    for i, (lead, S, T, d, dv, kind) in enumerate([((), 3, 4, 2, 3, "f64"), ((2,), 2, 3, 4, 2, "f32"),
                                                   ((2, 1), 2, 2, 3, 3, "f64")]):
        Q = t.let(f"Q{i}", decimals(700 + i, lead + (S, d)), kind)
        K = t.let(f"K{i}", decimals(710 + i, lead + (T, d)), kind)
        V = t.let(f"V{i}", decimals(720 + i, lead + (T, dv)), kind)
        t.check(f"scaled_dot_product_attention(Q{i}, K{i}, V{i})",
                sdpa(f64(Q), f64(K), f64(V)).astype(Q.dtype), kind)
    for i, (S, T, D, h, kind) in enumerate([(3, 4, 4, 2, "f64"), (2, 2, 6, 3, "f32"),
                                            (2, 3, 4, 1, "f64")]):
        q = t.let(f"q{i}", decimals(730 + i, (S, D)), kind)
        k = t.let(f"k{i}", decimals(740 + i, (T, D)), kind)
        v = t.let(f"v{i}", decimals(750 + i, (T, D)), kind)
        ws = [t.let(f"w{n}{i}", decimals(760 + 10 * j + i, (D, D), -1, 1), kind)
              for j, n in enumerate("qkvo")]
        t.check(f"multi_head_attention(q{i}, k{i}, v{i}, wq{i}, wk{i}, wv{i}, wo{i}, {h})",
                mha(f64(q), f64(k), f64(v), *[f64(w) for w in ws], h).astype(q.dtype), kind)
    t.write()


# ---- recurrent layers (ONNX equations, one direction) -------------------------------------------

def rnn_ref(X, W, R, B, h):
    Wb, Rb = np.split(B, 2)
    out = []
    for x in X:
        h = np.tanh(x @ W.T + h @ R.T + Wb + Rb)
        out.append(h)
    return np.array(out)


def lstm_ref(X, W, R, B, h, c):
    Wb, Rb = np.split(B, 2)
    out = []
    for x in X:
        z = x @ W.T + h @ R.T + Wb + Rb
        i, o, f, g = np.split(z, 4, axis=-1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        out.append(h)
    return np.array(out)


def gru_ref(X, W, R, B, h):
    Wb, Rb = np.split(B, 2)
    Wz, Wr, Wh = np.split(W, 3)
    Rz, Rr, Rh = np.split(R, 3)
    Wbz, Wbr, Wbh = np.split(Wb, 3)
    Rbz, Rbr, Rbh = np.split(Rb, 3)
    out = []
    for x in X:
        z = sigmoid(x @ Wz.T + h @ Rz.T + Wbz + Rbz)
        r = sigmoid(x @ Wr.T + h @ Rr.T + Wbr + Rbr)
        g = np.tanh(x @ Wh.T + (r * h) @ Rh.T + Rbh + Wbh)
        h = (1 - z) * g + z * h
        out.append(h)
    return np.array(out)


def recurrent_file():
    t = TestFile("ml/recurrent.ein", "std::ml rnn, lstm, gru (ONNX gate layouts, one direction)",
                 uses=["std::ml::*"])
    for i, (T, N, I, H, kind) in enumerate([(4, 1, 2, 3, "f64"), (3, 2, 3, 2, "f32"),
                                            (1, 2, 1, 1, "f64")]):
        X = t.let(f"X{i}", decimals(800 + i, (T, N, I), -1, 1), kind)
        h0 = t.let(f"h{i}", decimals(801 + i, (N, H), -0.5, 0.5), kind)
        c0 = t.let(f"c{i}", decimals(802 + i, (N, H), -0.5, 0.5), kind)
        for name, G in (("rnn", 1), ("lstm", 4), ("gru", 3)):
            W = t.let(f"{name}W{i}", decimals(810 + 3 * G + i, (G * H, I), -1, 1), kind)
            R = t.let(f"{name}R{i}", decimals(820 + 3 * G + i, (G * H, H), -1, 1), kind)
            B = t.let(f"{name}B{i}", decimals(830 + 3 * G + i, (2 * G * H,), -0.5, 0.5), kind)
            args = [f64(X), f64(W), f64(R), f64(B), f64(h0)]
            if name == "rnn":
                ref, call = rnn_ref(*args), f"rnn(X{i}, rnnW{i}, rnnR{i}, rnnB{i}, h{i})"
            elif name == "lstm":
                ref = lstm_ref(*args, f64(c0))
                call = f"lstm(X{i}, lstmW{i}, lstmR{i}, lstmB{i}, h{i}, c{i})"
            else:
                ref, call = gru_ref(*args), f"gru(X{i}, gruW{i}, gruR{i}, gruB{i}, h{i})"
            t.check(call, ref.astype(X.dtype), kind)
    t.write()


def generate():
    pooling_file()
    normalization_file()
    layer_norm_axis_error()
    attention_file()
    recurrent_file()
