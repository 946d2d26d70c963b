"""std tests in the style of whole programs: a 1-D signal classifier, a 3-D volume encoder /
decoder, a 2-D image pipeline, a transformer block, an indexing / ordering workload. Library
calls are chained the way user programs chain them (results of one call fed to the next,
attributes bound to variables, calls inside user functions, several ranks in one program), and
every intermediate a program prints is recomputed by NumPy with the reference formulas of the
other generators (gen_ml, gen_ml_nn, gen_ml_onnx)."""
import numpy as np

from common import TestFile, decimals
from gen_ml import conv_ref, conv_transpose_ref, f64, full_pads, quarters, softmax, log_softmax
from gen_ml_nn import pool_ref, heads_ref
from gen_ml_onnx import resize_ref, slice_ref, topk_ref


def relu(x):
    return np.maximum(x, 0)


def layer_norm(X, sc, B, eps, axis):
    ax = tuple(range(axis % X.ndim, X.ndim))
    m = X.mean(axis=ax, keepdims=True)
    v = X.var(axis=ax, keepdims=True)
    return (X - m) / np.sqrt(v + eps) * sc + B


def lst(v):
    return "[" + ", ".join(str(int(a)) for a in v) + "]"


def check_big(t, name, expr, ref, kind):
    """Binds expr to name and prints it whole, or (past the size at which `print` elides) its
    shape and then one [n, c] block at a time."""
    t.raw(f"let {name} = {expr};")
    if ref.size <= 400:
        t.check(name, ref, kind)
        return
    t.check(f"shape({name})", np.array(ref.shape), "i32")
    for n in range(ref.shape[0]):
        for c in range(ref.shape[1]):
            t.check(f"{name}[{n}, {c}]", ref[n, c], kind)


def signal_classifier():
    """1-D convolutions with strides, dilations, groups, every pads form; pooling; a head."""
    t = TestFile("programs/signal_classifier.ein", "a 1-D signal classifier: conv (strides, "
                 "dilations, groups, pads per side / per axis / empty), relu, max_pool, "
                 "average_pool, lp_pool, global pools, linear, softmax, log_softmax, argmax",
                 uses=["std::ml::*"])
    X = t.let("x", quarters(9000, (2, 3, 20)), "f32")
    W1 = t.let("w1", quarters(9001, (4, 3, 5)), "f32")
    B1 = t.let("b1", quarters(9002, (4,)), "f32")
    t.raw("let stride1 = [2];", "let pads1 = [2, 1];", "let dil1 = [1];")
    t.raw("fn block(x, w, b, s, p, d, g) { relu(conv(x, w, b, s, p, d, g)) }")
    h1 = relu(conv_ref(f64(X), f64(W1), f64(B1), [2], [2, 1], [1], 1))
    t.raw("let h1 = block(x, w1, b1, stride1, pads1, dil1, 1);")
    t.check("h1", h1.astype(np.float32), "f32")
    t.check("shape(h1)", np.array(h1.shape), "i32")
    p1 = pool_ref(h1, [3], [2], [1, 1], "max")
    t.raw("let p1 = max_pool(h1, [3], [2], [1]);")
    t.check("p1", p1.astype(np.float32), "f32")
    W2 = t.let("w2", quarters(9003, (6, 2, 3)), "f32")
    B2 = t.let("b2", quarters(9004, (6,)), "f32")
    h2 = conv_ref(p1, f64(W2), f64(B2), [1], [2], [2], 2)
    t.raw("let h2 = conv(p1, w2, b2, [1], [2], [2], 2);")
    t.check("h2", h2.astype(np.float32), "f32")
    a2 = pool_ref(h2, [2], [1], [1, 0], "avg")
    t.raw("let a2 = average_pool(h2, [2], [1], [1, 0]);")
    t.check("a2", a2.astype(np.float32), "f32")
    t.check("lp_pool(h2, [3], [2], 2)", pool_ref(h2, [3], [2], [], "lp", 2.0).astype(np.float32), "f32")
    g = a2.mean(axis=2)
    t.raw("let g = global_average_pool(a2);", "let flat[n, c] = g[n, c, 0];")
    t.check("flat", g.astype(np.float32), "f32")
    t.check("global_max_pool(a2)", a2.max(axis=2, keepdims=True).astype(np.float32), "f32")
    Wl = t.let("wl", quarters(9005, (3, 6)), "f32")
    Bl = t.let("bl", quarters(9006, (3,)), "f32")
    logits = g @ f64(Wl).T + f64(Bl)
    t.raw("let logits = linear(flat, wl, bl);")
    t.check("logits", logits.astype(np.float32), "f32")
    t.check("softmax(logits)", softmax(logits).astype(np.float32), "f32")
    t.check("log_softmax(logits)", log_softmax(logits).astype(np.float32), "f32")
    t.check("std::array::argmax(logits)", logits.argmax(axis=-1), "i32")
    # the same network in f64 with no bias and no padding, stride 3, dilation 3
    Xd = t.let("xd", decimals(9007, (1, 2, 17)), "f64")
    Wd = t.let("wd", decimals(9008, (2, 2, 4)), "f64")
    t.raw("let none: [f64] = [];")
    t.check("conv(xd, wd, none, [3], [], [3], 1)",
            conv_ref(f64(Xd), f64(Wd), np.zeros(0), [3], [], [3], 1), "f64")
    t.check("conv(xd, wd, none, [], [0, 3], [], 1)",
            conv_ref(f64(Xd), f64(Wd), np.zeros(0), [], [0, 3], [], 1), "f64")
    # depthwise with two filters per channel, stride 2, asymmetric pads
    Wq = t.let("wdw", decimals(9009, (4, 1, 3)), "f64")
    Bq = t.let("bdw", decimals(9010, (4,)), "f64")
    t.check("depthwise_conv(xd, wdw, bdw, [2], [0, 2], [2])",
            conv_ref(f64(Xd), f64(Wq), f64(Bq), [2], [0, 2], [2], 2), "f64")
    # pools whose pads exceed half the window and strides larger than the window
    for k, s, p in [([4], [3], [3, 2]), ([2], [5], [1, 1]), ([5], [1], [2])]:
        for how, fn in (("max", "max_pool"), ("avg", "average_pool")):
            t.check(f"{fn}(xd, {lst(k)}, {lst(s)}, {lst(p)})", pool_ref(f64(Xd), k, s, p, how), "f64")
    t.write()


def volume_codec():
    """3-D conv / pool / conv_transpose with every attribute, normalisation of 5-D tensors."""
    t = TestFile("programs/volume_codec.ein", "a 3-D volume encoder and decoder: conv with "
                 "strides, per-side pads, dilations and groups; max / average / lp pools with "
                 "pads; conv_transpose with strides, pads and output_padding; instance and batch "
                 "normalization of 5-D tensors", uses=["std::ml::*"])
    X = t.let("vol", quarters(9100, (1, 2, 5, 6, 7)), "f64")
    W = t.let("k1", quarters(9101, (4, 1, 2, 3, 2)), "f64")
    B = t.let("c1", quarters(9102, (4,)), "f64")
    t.raw("let st = [2, 1, 2];", "let pd = [1, 0, 1, 0, 2, 1];", "let dl = [1, 2, 1];")
    h = conv_ref(f64(X), f64(W), f64(B), [2, 1, 2], [1, 0, 1, 0, 2, 1], [1, 2, 1], 2)
    check_big(t, "h", "conv(vol, k1, c1, st, pd, dl, 2)", h, "f64")
    sc = t.let("gam", decimals(9103, (4,), 0.5, 1.5), "f64")
    be = t.let("bet", decimals(9104, (4,), -0.5, 0.5), "f64")
    t.raw("let eps: f64 = 1e-05;")
    ax = (2, 3, 4)
    n = (h - h.mean(axis=ax, keepdims=True)) / np.sqrt(h.var(axis=ax, keepdims=True) + 1e-5) \
        * sc.reshape(1, 4, 1, 1, 1) + be.reshape(1, 4, 1, 1, 1)
    check_big(t, "hn", "instance_normalization(h, gam, bet, eps)", n, "f64")
    mu = t.let("rmu", decimals(9105, (4,), -0.5, 0.5), "f64")
    var = t.let("rvar", decimals(9106, (4,), 0.5, 1.5), "f64")
    shp = (1, 4, 1, 1, 1)
    bn = (h - mu.reshape(shp)) / np.sqrt(var.reshape(shp) + 1e-5) * sc.reshape(shp) + be.reshape(shp)
    check_big(t, "bn", "batch_normalization(h, gam, bet, rmu, rvar, eps)", bn, "f64")
    for k, s, p in [([2, 2, 2], [1, 2, 1], [1, 0, 1, 0, 1, 1]), ([3, 1, 2], [2, 1, 3], [1, 0, 1]),
                    ([1, 3, 3], [], [])]:
        t.check(f"max_pool(hn, {lst(k)}, {lst(s)}, {lst(p)})", pool_ref(n, k, s, p, "max"), "f64")
        t.check(f"average_pool(hn, {lst(k)}, {lst(s)}, {lst(p)})", pool_ref(n, k, s, p, "avg"), "f64")
    t.check("lp_pool(hn, [2, 2, 2], [1, 1, 2], 3)", pool_ref(n, [2, 2, 2], [1, 1, 2], [], "lp", 3.0), "f64")
    Wt = t.let("kt", quarters(9107, (4, 3, 3, 2, 3)), "f64")
    Bt = t.let("ct", quarters(9108, (3,)), "f64")
    for i, (s, p, op) in enumerate([([2, 2, 2], [1, 0, 1, 1, 0, 0], [1, 0, 1]), ([1, 3, 2], [1, 1, 0], []),
                                    ([3, 1, 1], [], [2, 0, 0])]):
        check_big(t, f"up{i}", f"conv_transpose(hn, kt, ct, {lst(s)}, {lst(p)}, {lst(op)})",
                  conv_transpose_ref(n, f64(Wt), f64(Bt), s, p, op), "f64")
    t.check("global_average_pool(hn)", n.mean(axis=ax, keepdims=True), "f64")
    t.write()


def image_pipeline():
    """2-D: strided conv down, conv_transpose back up to the input size, resize, pads."""
    t = TestFile("programs/image_pipeline.ein", "a 2-D image pipeline: strided conv down and "
                 "conv_transpose back (output_padding restores odd sizes), depthwise conv, resize "
                 "and upsample of NCHW tensors (spatial and full scales), pad, depth_to_space, "
                 "space_to_depth, max_pool with per-side pads", uses=["std::ml::*"])
    X = t.let("img", quarters(9200, (2, 3, 7, 9)), "f32")
    Wd = t.let("wdown", quarters(9201, (4, 3, 3, 3)), "f32")
    Bd = t.let("bdown", quarters(9202, (4,)), "f32")
    down = relu(conv_ref(f64(X), f64(Wd), f64(Bd), [2, 2], [1, 1, 1, 1], [1, 1], 1))
    t.raw("let down = relu(conv(img, wdown, bdown, [2, 2], [1, 1, 1, 1], [1, 1], 1));")
    t.check("down", down.astype(np.float32), "f32")
    Wu = t.let("wup", quarters(9203, (4, 3, 3, 3)), "f32")
    Bu = t.let("bup", quarters(9204, (3,)), "f32")
    up = conv_transpose_ref(down, f64(Wu), f64(Bu), [2, 2], [1, 1, 1, 1], [0, 0])
    t.raw("let up = conv_transpose(down, wup, bup, [2, 2], [1, 1, 1, 1], [0, 0]);")
    t.check("up", up.astype(np.float32), "f32")
    t.check("shape(up) == shape(img)", bool(up.shape == X.shape), "bool")
    t.check("conv_transpose(down, wup, bup, [2, 3], [1, 0], [1, 2])",
            conv_transpose_ref(down, f64(Wu), f64(Bu), [2, 3], [1, 0], [1, 2]).astype(np.float32), "f32")
    Wdw = t.let("wdw", quarters(9205, (3, 1, 2, 3)), "f32")
    t.raw("let nob: [f32] = [];")
    t.check("depthwise_conv(img, wdw, nob, [1, 2], [0, 1, 1, 0], [2, 1])",
            conv_ref(f64(X), f64(Wdw), np.zeros(0), [1, 2], [0, 1, 1, 0], [2, 1], 3).astype(np.float32), "f32")
    t.check("max_pool(img, [3, 2], [2, 3], [1, 0, 1, 1])",
            pool_ref(f64(X), [3, 2], [2, 3], [1, 0, 1, 1], "max").astype(np.float32), "f32")
    t.check("average_pool(img, [2, 4], [2, 2], [0, 2])",
            pool_ref(f64(X), [2, 4], [2, 2], [0, 2], "avg").astype(np.float32), "f32")
    Y = t.let("small", decimals(9206, (1, 2, 3, 4)), "f64")
    for scales in ([2.0, 2.0], [1.0, 1.0, 0.5, 1.5], [3.0, 0.75], [1.0, 2.0, 1.0, 1.0]):
        full = scales if len(scales) == 4 else [1.0, 1.0] + scales
        for mode in ("nearest", "linear", "cubic"):
            t.check(f'resize(small, {scales}, "{mode}")', resize_ref(Y, full, mode, False), "f64")
        t.check(f'upsample(small, {scales}, "nearest")', resize_ref(Y, full, "nearest", True), "f64")
    t.raw('let sc2 = [1.0, 1.0, 2.0, 2.0];')
    t.check('resize(small, sc2, "bilinear")', resize_ref(Y, [1, 1, 2, 2], "linear", False), "f64")
    for pads in ([0, 0, 1, 2, 0, 0, 2, 1], [0, 1, 0, 0, 0, 0, 1, 1], [0, 0, -1, 1, 0, 0, 1, -2]):
        widths = [(pads[a], pads[a + 4]) for a in range(4)]
        crop = tuple(slice(-min(b, 0), Y.shape[a] + min(e, 0) if e < 0 else None)
                     for a, (b, e) in enumerate(widths))
        ref = np.pad(Y[crop], [(max(b, 0), max(e, 0)) for b, e in widths], constant_values=-1.0)
        t.check(f"pad(small, {lst(pads)}, -1.0)", ref, "f64")
    # integer images keep their type through max_pool (ONNX MaxPool takes int8 / uint8)
    for i, (shape, k, st, p) in enumerate([((1, 2, 7), [3], [2], [1, 1]), ((1, 1, 4, 5), [2, 3], [2, 1], [0, 1, 1, 0]),
                                           ((1, 1, 3, 3, 4), [2, 2, 2], [1, 1, 2], [1, 0, 0])]):
        q = t.let(f"qi{i}", np.random.default_rng(9210 + i).integers(-50, 50, size=shape), "i32")
        ref = pool_ref(q.astype(np.float64), k, st, p, "max").astype(np.int32)
        t.check(f"max_pool(qi{i}, {lst(k)}, {lst(st)}, {lst(p)})", ref, "i32")
    Z = t.let("deep", decimals(9207, (1, 8, 2, 3)), "f64")
    b = 2
    d2s = Z.reshape(1, b, b, 2, 2, 3).transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 4, 6)
    t.check("depth_to_space(deep, 2)", d2s, "f64")
    t.check("space_to_depth(depth_to_space(deep, 2), 2)", Z, "f64")
    t.write()


def transformer_block():
    """Layer norm, projections, heads through reshape / einsum, causal mask, GELU MLP."""
    t = TestFile("programs/transformer_block.ein", "a transformer block: layer_normalization "
                 "(axis -1 and 1), split of a fused qkv projection, reshape with 0 and -1, einsum "
                 "per head, multi_head_attention with a causal mask, softmax / log_softmax, gelu, "
                 "topk of the logits", uses=["std::ml::*"])
    T, D, H = 4, 6, 2
    X = t.let("x", decimals(9300, (T, D)), "f64")
    g = t.let("ln_g", decimals(9301, (D,), 0.5, 1.5), "f64")
    b = t.let("ln_b", decimals(9302, (D,), -0.5, 0.5), "f64")
    t.raw("let eps: f64 = 1e-05;")
    xn = layer_norm(X, g, b, 1e-5, -1)
    t.raw("let xn = layer_normalization(x, ln_g, ln_b, eps, -1);")
    t.check("xn", xn, "f64")
    Wqkv = t.let("w_qkv", decimals(9303, (D, 3 * D), -0.5, 0.5), "f64")
    qkv = xn @ Wqkv
    t.raw("let qkv[t, j] = sum[d](xn[t, d] * w_qkv[d, j]);")
    t.raw(f"let (q, k, v) = split(qkv, [{D}, {D}, {D}], 1);")
    q, k, v = qkv[:, :D], qkv[:, D:2 * D], qkv[:, 2 * D:]
    t.check("q", q, "f64")
    t.check("v", v, "f64")
    t.raw(f"let (q2, k2, v2) = split(qkv, 3, -1);")
    t.check("k2", k, "f64")
    causal = np.tril(np.ones((T, T), dtype=bool))
    t.raw(f"let causal[i in 0..{T}, j in 0..{T}] = j <= i;")
    scale = 1 / np.sqrt(D // H)
    t.raw(f"let scale: f64 = {scale!r};")
    att = heads_ref(q, k, v, H, scale, causal)
    t.raw(f"let att = multi_head_attention(q, k, v, {H}, scale, causal);")
    t.check("att", att, "f64")
    # the same heads by hand: reshape to [T, H, dh], einsum logits per head
    t.raw(f"let qh: [f64; {T}, {H}, {D // H}] = reshape(q, [0, {H}, -1]);",
          f"let kh: [f64; {T}, {H}, {D // H}] = reshape(k, [{T}, -1, {D // H}]);")
    qh, kh = q.reshape(T, H, -1), k.reshape(T, H, -1)
    lg = np.einsum("qhd,khd->hqk", qh, kh) * scale
    t.raw(f'let lg: [f64; {H}, {T}, {T}] = einsum("qhd,khd->hqk", (qh, kh));')
    t.check("lg * scale", lg, "f64")
    t.check('einsum("thd->ht", qh)', np.einsum("thd->ht", qh), "f64")
    t.check('einsum("thd,thd->h", (qh, kh))', np.einsum("thd,thd->h", qh, kh), "f64")
    t.check('einsum("...d,...d->...", (qh, kh))', np.einsum("...d,...d->...", qh, kh), "f64")
    t.check('einsum("hqk->", lg)', np.einsum("hqk->", lg / scale), "f64")
    t.check('einsum("ij,jk,kl->il", (x, w_qkv, transpose(w_qkv)))',
            np.einsum("ij,jk,kl->il", X, Wqkv, Wqkv.T), "f64")
    t.check('einsum("i,i->", (ln_g, ln_b))', np.einsum("i,i->", g, b), "f64")
    t.check('einsum("ii->", einsum("ij,kj->ik", (x, x)))', np.trace(X @ X.T), "f64")
    t.check('einsum("ba", x)', np.einsum("ba", X), "f64")
    t.check('einsum("i,j", (ln_g, ln_b))', np.einsum("i,j", g, b), "f64")
    masked = np.where(causal[None], lg, -np.inf)
    t.raw(f"let masked[h, i, j] = if causal[i, j] {{ lg[h, i, j] * scale }} else {{ -1.0 / 0.0 }};")
    t.check("softmax(masked)", softmax(masked), "f64")
    t.check("softmax_axis(lg * scale, 1)", np.exp(lg - lg.max(axis=1, keepdims=True)) /
            np.exp(lg - lg.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True), "f64")
    t.check("log_softmax_axis(lg * scale, -3)", lg - lg.max(axis=0, keepdims=True) -
            np.log(np.exp(lg - lg.max(axis=0, keepdims=True)).sum(axis=0, keepdims=True)), "f64")
    # residual and a GELU MLP, then layer norm over the last two axes of a batch
    from math import erf
    gelu = np.vectorize(lambda z: 0.5 * z * (1 + erf(z / np.sqrt(2))))
    W1 = t.let("w1", decimals(9304, (D, 8), -0.5, 0.5), "f64")
    W2 = t.let("w2", decimals(9305, (8, D), -0.5, 0.5), "f64")
    r = X + att
    hdn = gelu(layer_norm(r, g, b, 1e-5, -1) @ W1)
    out = r + hdn @ W2
    t.raw("let r = x + att;",
          "let hdn = gelu(linear(layer_normalization(r, ln_g, ln_b, eps, 1), transpose(w1), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]));",
          "let out[t, d] = r[t, d] + sum[j](hdn[t, j] * w2[j, d]);")
    t.check("out", out, "f64")
    t.raw("let batch = [out, x];")
    bt = np.stack([out, X])
    g2 = t.let("g2", decimals(9306, (T, D), 0.5, 1.5), "f64")
    b2 = t.let("b2", decimals(9307, (T, D), -0.5, 0.5), "f64")
    t.check("layer_normalization(batch, g2, b2, eps, 1)", layer_norm(bt, g2, b2, 1e-5, 1), "f64")
    t.check("layer_normalization(batch, g2, b2, eps, -2)", layer_norm(bt, g2, b2, 1e-5, -2), "f64")
    vals, idx = topk_ref(out, 2, 1)
    t.check("topk(out, 2, -1)", (vals, idx), ("f64", "i32"))
    vals, idx = topk_ref(out, 3, 0)
    t.check("topk(out, 3, 0)", (vals, idx), ("f64", "i32"))
    t.write()


def indexing_workload():
    """Ties, negative indices, negative steps, huge slice bounds, cumsum, reductions."""
    t = TestFile("programs/indexing_workload.ein", "indexing and ordering as programs use them: "
                 "topk with ties along every axis, gather / gather_elements / scatter_elements / "
                 "gather_nd / scatter_nd with negative indices, slice with negative steps and "
                 "out-of-range bounds, cumsum, reduce_* of 4-D arrays, argmax / argmin",
                 uses=["std::ml::*"])
    S = t.let("scores", np.array([[3, 1, 3, 2, 1], [0, 0, 5, 5, 0], [2, 2, 2, 2, 2]]), "i32")
    for k, axis in [(2, 1), (3, -1), (5, 1), (1, 0), (3, 0), (0, 1)]:
        vals, idx = topk_ref(S, k, axis % 2)
        t.check(f"topk(scores, {k}, {axis})", (vals, idx), ("i32", "i32"))
    F = t.let("fs", np.array([[0.5, -1.0, 0.5, 2.0], [-0.0, 0.0, -3.0, 0.25]]), "f32")
    vals, idx = topk_ref(F, 3, 1)
    t.check("topk(fs, 3, 1)", (vals, idx), ("f32", "i32"))
    t.check("topk_1d_helper([1.0, 4.0, 4.0, -2.0, 4.0], 4)",
            (np.array([4.0, 4.0, 4.0, 1.0]), np.array([1, 2, 4, 0])), ("f32", "i32"))
    D3 = t.let("d3", np.arange(24).reshape(2, 3, 4) * 10, "i32")
    t.raw("let neg = [-1, 0, -3];")
    for axis in (0, 1, 2, -1, -2):
        n = D3.shape[axis]
        idx = np.array([-1, 0, -3]) % n if n >= 3 else None
        if idx is None:
            continue
        t.check(f"gather(d3, neg, {axis})", np.take(D3, idx, axis=axis), "i32")
    ie = np.array([[[-1, 0, 1, -2], [2, -3, 0, 0]], [[1, 1, -1, 0], [0, 2, -2, 1]]])
    t.let("ie", ie, "i32")
    ge = np.take_along_axis(D3, ie % 3, axis=1)
    # gather_elements along axis 1 with indices shorter than data on axis 1
    t.check("gather_elements(d3, ie, 1)", ge, "i32")
    t.check("gather_elements(d3, ie, -2)", ge, "i32")
    up = t.let("up", -np.arange(16).reshape(2, 2, 4) - 1, "i32")
    ref = D3.copy()
    for p in np.ndindex(*ie.shape):
        ref[p[0], ie[p] % 3, p[2]] = up[p]
    t.check("scatter_elements(d3, ie, up, 1)", ref, "i32")
    nd = np.array([[-1, 0], [0, -1], [1, 1]])
    t.let("nd", nd, "i32")
    t.check("gather_nd(d3, nd)", np.stack([D3[tuple(r % np.array([2, 3]))] for r in nd]), "i32")
    upd = t.let("upd", np.array([[7, 7, 7, 7], [8, 8, 8, 8], [9, 9, 9, 9]]), "i32")
    ref = D3.copy()
    for r, u in zip(nd, upd):
        ref[tuple(r % np.array([2, 3]))] = u
    t.check("scatter_nd(d3, nd, upd)", ref, "i32")
    t.check("gather(d3, 1, -1)", D3[:, :, 1], "i32")
    big = 2147483647
    for starts, ends, axes, steps in [([-1], [-big], [2], [-1]), ([0], [big], [-1], [2]),
                                      ([2, -1], [-big, 0], [1, 2], [-2, -1]),
                                      ([-100], [100], [0], [1]), ([1, 1], [0, 3], [0, 2], [1, 1]),
                                      ([3], [-5], [2], [-3])]:
        t.check(f"slice(d3, {starts}, {ends}, {axes}, {steps})",
                slice_ref(D3, starts, ends, axes, steps), "i32")
    C = t.let("cx", decimals(9400, (2, 3, 4)), "f64")
    t.check("cumsum(cx)", np.cumsum(C, axis=-1), "f64")
    t.check("cumsum(cx[1])", np.cumsum(C[1], axis=-1), "f64")
    R = t.let("r4", decimals(9401, (2, 1, 3, 2), 0.1, 2.0), "f32")
    keep = dict(axis=None, keepdims=True)
    R64 = f64(R)
    for name, ref in [("reduce_sum", R64.sum(**keep)), ("reduce_mean", R64.mean(**keep)),
                      ("reduce_max", R64.max(**keep)), ("reduce_min", R64.min(**keep)),
                      ("reduce_prod", R64.prod(**keep)), ("reduce_l1", np.abs(R64).sum(**keep)),
                      ("reduce_l2", np.sqrt((R64 ** 2).sum(**keep))),
                      ("reduce_sum_square", (R64 ** 2).sum(**keep)),
                      ("reduce_log_sum", np.log(R64.sum(**keep))),
                      ("reduce_log_sum_exp", np.log(np.exp(R64).sum(**keep)))]:
        t.check(f"{name}(r4)", ref.astype(np.float32), "f32")
    t.check("argmax(scores)", S.argmax(axis=0)[None], "i32")
    t.check("argmin(scores)", S.argmin(axis=0)[None], "i32")
    t.check("argmax(d3)", D3.argmax(axis=0)[None], "i32")
    t.check("std::array::argmax(scores)", S.argmax(axis=-1), "i32")
    t.check("std::array::argmin(scores)", S.argmin(axis=-1), "i32")
    t.write()


def arrays_and_numerics():
    """std::array's NumPy forms and the surface notes, std::numerics as a small study uses it."""
    t = TestFile("programs/arrays_numerics.ein", "std::array partition, partition_2d, argmax_all / "
                 "argmin_all with ties and NaN, topk_extract beyond the length, "
                 "topk_with_indices_extract, concatenate, flatten, transpose of 3-D; std::numerics "
                 "trajectories fed to std::array", uses=["std::array::*", "std::numerics::*"])
    a = np.array([3.0, -1.0, 3.0, 0.5, 7.0, -1.0, 3.0])
    t.let("a", a, "f64")
    t.check("partition(a, 3.0)", (a[a < 3], a[a == 3], a[a > 3]), ("f64", "f64", "f64"))
    t.check("partition(a, 10.0).0", a, "f64")
    m = np.array([[2, 5, 1], [0, 4, 4], [2, 2, 9], [7, 1, 0]])
    t.let("m", m, "i32")
    for axis in (0, 1):
        keyed = m if axis == 0 else m.T
        parts = (keyed[keyed[:, 0] < 2], keyed[keyed[:, 0] == 2], keyed[keyed[:, 0] > 2])
        if axis == 1:
            parts = tuple(p.T for p in parts)
        for k, p in enumerate(parts):
            if p.size:
                t.check(f"partition_2d(m, 2, {axis}).{k}", p, "i32")
    t.check("argmax_all(a)", np.flatnonzero(a == a.max()), "i32")
    t.check("argmin_all(a)", np.flatnonzero(a == a.min()), "i32")
    t.check("argmax_all(m)", np.flatnonzero(m == m.max()), "i32")
    t.check("argmin_all(m)", np.flatnonzero(m == m.min()), "i32")
    t.raw("let withnan = [1.0, 0.0 / 0.0, 5.0, 0.0 / 0.0];")
    t.check("argmax_all(withnan)", np.array([1, 3]), "i32")
    order = np.argsort(-a, kind="stable")
    t.check("topk_extract(a, 3)", a[order[:3]], "f64")
    t.check("topk_extract(a, 20)", a[order], "f64")
    t.check("topk_extract(m, 2)", -np.sort(-m, axis=-1, kind="stable")[:, :2], "i32")
    ids = np.array([10, 11, 12, 13, 14, 15, 16])
    t.let("ids", ids, "i32")
    t.check("topk_with_indices_extract(a, ids, 4)", (a[order[:4]], ids[order[:4]]), ("f64", "i32"))
    c3 = np.arange(24).reshape(2, 3, 4)
    t.let("c3", c3, "i32")
    t.check("transpose(c3)", c3.T, "i32")
    t.check("flatten(transpose(c3))", c3.T.flatten(), "i32")
    t.check("concatenate(c3, [c3[1]])", np.concatenate([c3, c3[1:2]]), "i32")
    t.check("sum(c3)", c3.sum(), "i32")
    t.check("argmax(c3)", c3.argmax(axis=-1), "i32")
    # a decay trajectory sorted and ranked
    traj = [1.0]
    for _ in range(6):
        traj.append(traj[-1] - 0.3 * 0.5 * traj[-1])
    traj = np.array(traj)
    t.raw("let traj = euler_decay(1.0, 0.5, 0.3, 6);")
    t.check("traj", traj, "f64")
    t.check("topk_extract(traj, 2)", traj[:2], "f64")
    t.check("argmin_all(traj)", np.array([6]), "i32")
    t.check("discounted_return(traj, 0.9, 5)", sum(traj[k] * 0.9 ** k for k in range(5)), "f64")
    t.write()


def broadcasting_products():
    """np.matmul's batch broadcasting, ONNX Gemm's C forms, Where with same-rank broadcasting."""
    t = TestFile("programs/broadcasting_products.ein", "matmul / batch_matmul with batch axes that "
                 "broadcast (extent 1, missing leading axes), gemm with C of every ONNX form "
                 "([1], [N], [M, 1], [1, N], [M, N], scalar), where and add with same-rank "
                 "broadcasting", uses=["std::ml::*"])
    A = t.let("A", quarters(9500, (2, 3, 4)), "f32")
    for i, shp in enumerate([(1, 4, 2), (4, 2), (3, 1, 4, 2), (2, 1, 4, 5)]):
        B = t.let(f"B{i}", quarters(9501 + i, shp), "f32")
        t.check(f"matmul(A, B{i})", np.matmul(f64(A), f64(B)).astype(np.float32), "f32")
        if len(shp) >= 3:
            t.check(f"batch_matmul(A, B{i})", np.matmul(f64(A), f64(B)).astype(np.float32), "f32")
    C4 = t.let("C4", quarters(9510, (2, 1, 2, 3)), "f32")
    t.check("matmul(C4, A)", np.matmul(f64(C4), f64(A)).astype(np.float32), "f32")
    t.check("matmul(A, [1.0, 0.5, -1.0, 2.0])", (f64(A) @ np.array([1.0, 0.5, -1.0, 2.0])).astype(np.float32), "f32")
    t.check("matmul([1.0, 0.5, -1.0], A)", (np.array([1.0, 0.5, -1.0]) @ f64(A)).astype(np.float32), "f32")
    P = t.let("GA", quarters(9520, (3, 4)), "f64")
    Q = t.let("GB", quarters(9521, (4, 2)), "f64")
    for i, cshape in enumerate([(1,), (2,), (3, 1), (1, 2), (3, 2), ()]):
        C = t.let(f"GC{i}", quarters(9530 + i, cshape), "f64")
        for alpha, beta, ta, tb in [(1.0, 1.0, 0, 0), (0.5, -2.0, 0, 0)]:
            t.check(f"gemm(GA, GB, GC{i}, {alpha}, {beta}, {ta}, {tb})", alpha * (P @ Q) + beta * C, "f64")
    t.check("gemm(transpose(GA), GB, GC1, 1.0, 1.0, 1, 0)", P @ Q + quarters(9531, (2,)), "f64")
    t.check("gemm(GA, transpose(GB), GC2, 1.0, 1.0, 0, 1)", P @ Q + quarters(9532, (3, 1)), "f64")
    c = t.let("wc", np.array([[True], [False], [True]]), "bool")
    x = t.let("wx", quarters(9540, (3, 2)), "f64")
    y = t.let("wy", quarters(9541, (1, 2)), "f64")
    t.check("where(wc, wx, wy)", np.where(c, x, y), "f64")
    t.check("add(wx, wy)", x + y, "f64")
    t.check("greater(wx, wy)", x > y, "bool")
    t.write()


def generate():
    broadcasting_products()
    arrays_and_numerics()
    signal_classifier()
    volume_codec()
    image_pipeline()
    transformer_block()
    indexing_workload()
