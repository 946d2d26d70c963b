"""The fifth outside-programs hunt (session 21, issue 13 item 2): small models end to end, written
the way NumPy / ONNX users write them -- a ResNet basic block, GRU and LSTM cells unrolled as
recurrences beside std::ml::gru / lstm, a quantized linear layer, a U-Net style down / up path,
k-means iterations, PCA by power iteration, ODEs through std::numerics and by hand, Viterbi in
max-plus, attention with a padding mask, integer layers (session 21's exact gemm / linear /
conv), std::io on a temporary directory, the print format of every dtype and rank (SPEC 8), and
derivative requests through these against central differences. Expected values: NumPy written
from the ONNX / NumPy definitions here and in hunt2_refs.py, central differences, the SPEC's
print rules by hand. Files under cases/outside/hunt6_*.ein, run with EIN_JIT=never and always
(the I/O program once: both modes would share its directory).
"""
import numpy as np

import hunt2_refs as R
from common import TestFile
from gen_hunt2 import F, rnd
from gen_select import modes_file


def prog(name, purpose, uses=("std::ml::*",)):
    return modes_file(f"outside/hunt6_{name}.ein", purpose, uses=list(uses))


def sig(z):
    return 1 / (1 + np.exp(-z))


def relu(z):
    return np.maximum(z, 0)


# ---- ResNet basic block ------------------------------------------------------------------------

def bn(x, g, b, m, v, eps=1e-5):
    return R.batch_norm(x, g, b, m, v, eps)


def resnet(X, W1, W2, g1, b1, m1, v1, g2, b2, m2, v2):
    y = relu(bn(R.conv(X, W1, None, [1, 1], [1, 1, 1, 1], [1, 1]), g1, b1, m1, v1))
    y = bn(R.conv(y, W2, None, [1, 1], [1, 1, 1, 1], [1, 1]), g2, b2, m2, v2)
    return relu(y + X)


RESNET_LINES = [
    "fn block(x, w1, w2, g1, b1, m1, v1, g2, b2, m2, v2) {",
    "  let y = relu(batch_normalization(conv(x, w1, [], [1, 1], [1, 1, 1, 1], [1, 1], 1), g1, b1, m1, v1, 1e-5));",
    "  let z = batch_normalization(conv(y, w2, [], [1, 1], [1, 1, 1, 1], [1, 1], 1), g2, b2, m2, v2, 1e-5);",
    "  relu(z + x)",
    "}",
]


def resnet_lets(t, seed):
    X = t.let("X", rnd(seed, (2, 2, 4, 4)), F)
    W1 = t.let("W1", rnd(seed + 1, (2, 2, 3, 3), -0.5, 0.5), F)
    W2 = t.let("W2", rnd(seed + 2, (2, 2, 3, 3), -0.5, 0.5), F)
    g1 = t.let("g1", rnd(seed + 3, (2,), 0.5, 1.5), F)
    b1 = t.let("b1", rnd(seed + 4, (2,), -0.2, 0.2), F)
    m1 = t.let("m1", rnd(seed + 5, (2,), -0.1, 0.1), F)
    v1 = t.let("v1", rnd(seed + 6, (2,), 0.5, 1.5), F)
    g2 = t.let("g2", rnd(seed + 7, (2,), 0.5, 1.5), F)
    b2 = t.let("b2", rnd(seed + 8, (2,), -0.2, 0.2), F)
    m2 = t.let("m2", rnd(seed + 9, (2,), -0.1, 0.1), F)
    v2 = t.let("v2", rnd(seed + 10, (2,), 0.5, 1.5), F)
    return X, W1, W2, g1, b1, m1, v1, g2, b2, m2, v2


def resnet_block():
    t = prog("resnet_block", "a ResNet basic block: conv 3x3 (pad 1) -> batch_normalization -> relu -> conv "
             "-> batch_normalization -> + identity -> relu, two blocks stacked, then global_average_pool and a "
             "linear head")
    a = resnet_lets(t, 701)
    Wh = t.let("Wh", rnd(712, (3, 2)), F)
    t.raw(*RESNET_LINES)
    t.raw("let Y1 = block(X, W1, W2, g1, b1, m1, v1, g2, b2, m2, v2);",
          "let Y2 = block(Y1, W1, W2, g1, b1, m1, v1, g2, b2, m2, v2);",
          "let feats[n, c] = global_average_pool(Y2)[n, c, 0, 0];",
          "let logits = linear(feats, Wh, [0.1, 0.0, -0.1]);")
    Y1 = resnet(*a)
    Y2 = resnet(Y1, *a[1:])
    feats = Y2.mean(axis=(2, 3))
    t.check("Y1", Y1, F)
    t.check("feats", feats, F)
    t.check("logits", feats @ Wh.T + np.array([0.1, 0.0, -0.1]), F)
    t.check("std::array::argmax_axis(logits, 1)", np.argmax(feats @ Wh.T + np.array([0.1, 0.0, -0.1]), 1).astype(np.int32), "i32")
    t.write()


def resnet_grads():
    t = prog("resnet_grads", "derivatives of a loss through the ResNet basic block (conv, batch_normalization, "
             "relu, residual) in the first conv's weights, the batch-norm scale and the input, against central "
             "differences")
    a = resnet_lets(t, 721)
    t.raw(*RESNET_LINES)
    t.raw("let Y = block(X, W1, W2, g1, b1, m1, v1, g2, b2, m2, v2);",
          "let L = sum[n, c, h, w](Y[n, c, h, w] * Y[n, c, h, w] * 0.5);")
    X, W1 = a[0], a[1]
    rest = list(a)

    def loss(i):
        def f(v):
            b = list(rest)
            b[i] = v
            return (resnet(*b) ** 2).sum() * 0.5
        return f
    t.check("@L / @W1", R.fd(loss(1), W1), F)
    t.check("@L / @g1", R.fd(loss(3), a[3]), F)
    t.check("@L / @X", R.fd(loss(0), X), F)
    t.write()


# ---- recurrent cells ---------------------------------------------------------------------------

def gru_ref(X, W, Rr, B, h0):
    """ONNX GRU (linear_before_reset 0), one direction: [T, N, H]."""
    return R.gru(X, W[None], Rr[None], B[None], h0[None])


def gru_cell():
    t = prog("gru_cell", "a GRU cell unrolled over a sequence as a recurrence (gates z, r, h written out), "
             "beside std::ml::gru with the same weights; both against the ONNX definition")
    T_, N, I, H = 5, 2, 3, 4
    X = t.let("X", rnd(731, (T_, N, I)), F)
    W = t.let("W", rnd(732, (3 * H, I), -0.6, 0.6), F)
    Rr = t.let("Rr", rnd(733, (3 * H, H), -0.6, 0.6), F)
    B = t.let("B", rnd(734, (6 * H,), -0.2, 0.2), F)
    h0 = t.let("h0", rnd(735, (N, H), -0.5, 0.5), F)
    t.raw("let Hn = 4;",
          "fn gate(x, h, W, Rr, B, g, j, Hn) { sum[i](x[i] * W[g * Hn + j, i]) + sum[k](h[k] * Rr[g * Hn + j, k]) + B[g * Hn + j] + B[(3 + g) * Hn + j] }",
          "let S[0, n in 0..2, j in 0..4] = h0[n, j];",
          "let S[t in 1..6, n in 0..2, j in 0..4] = (1.0 - z) * c + z * S[t - 1, n, j] where",
          "    z = sigmoid(gate(X[t - 1, n], S[t - 1, n], W, Rr, B, 0, j, Hn)),",
          "    c = tanh(sum[i](X[t - 1, n, i] * W[2 * Hn + j, i]) + B[2 * Hn + j] + B[5 * Hn + j]",
          "             + sum[k](sigmoid(gate(X[t - 1, n], S[t - 1, n], W, Rr, B, 1, k, Hn)) * S[t - 1, n, k] * Rr[2 * Hn + j, k]));",
          "let Yg = gru(X, [W], [Rr], [B], [h0], 4, \"forward\", 0);")
    ref = gru_ref(X, W, Rr, B, h0)
    t.check("S[5]", ref[-1], F)
    t.check("Yg", ref[:, None], F)
    t.check("max[t, n, j](abs(Yg[t, 0, n, j] - S[t + 1, n, j]))", np.float64(0.0), F)
    t.write()


def lstm_ref(X, W, Rr, B, h0, c0):
    H = Rr.shape[1]
    h, c, out = h0, c0, []
    for x in X:
        z = x @ W.T + h @ Rr.T + B[:4 * H] + B[4 * H:]
        i, o, f, g = sig(z[:, :H]), sig(z[:, H:2 * H]), sig(z[:, 2 * H:3 * H]), np.tanh(z[:, 3 * H:])
        c = f * c + i * g
        h = o * np.tanh(c)
        out.append(h)
    return np.array(out)


def lstm_seq():
    t = prog("lstm_seq", "an LSTM over a sequence through std::ml::lstm in the reverse and bidirectional "
             "directions (ONNX gate order i, o, f, c), a classifier on the last hidden state, and the loss "
             "derivative in the recurrent weights against central differences")
    T_, N, I, H = 4, 1, 2, 3
    X = t.let("X", rnd(741, (T_, N, I)), F)
    W = t.let("W", rnd(742, (4 * H, I), -0.6, 0.6), F)
    Rr = t.let("Rr", rnd(743, (4 * H, H), -0.6, 0.6), F)
    B = t.let("B", rnd(744, (8 * H,), -0.2, 0.2), F)
    z = np.zeros((N, H))
    t.raw("let z[n in 0..1, j in 0..3] = 0.0;")
    fwd = lstm_ref(X, W, Rr, B, z, z)
    rev = lstm_ref(X[::-1], W, Rr, B, z, z)[::-1]
    t.check("lstm(X, [W], [Rr], [B], [z], [z], 3, \"reverse\", 0.0)", rev[:, None], F)
    t.check("lstm(X, [W, W], [Rr, Rr], [B, B], [z, z], [z, z], 3, \"bidirectional\", 0.0)",
            np.stack([fwd, rev], axis=1), F)
    t.raw("let Y = lstm(X, W, Rr, B, z, z, 3, \"forward\", 0.0);",
          "let p = softmax(Y[3, 0]);",
          "let L = -log(p[1]);")
    t.check("p", R.softmax(fwd[-1, 0]), F)
    t.check("@L / @Rr", R.fd(lambda r: -np.log(R.softmax(lstm_ref(X, W, r, B, z, z)[-1, 0])[1]), Rr), F)
    t.write()


def gru_grads():
    t = prog("gru_grads", "derivatives through std::ml::gru over a sequence (loss on every output) in W, R and "
             "the initial state, against central differences")
    T_, N, I, H = 3, 2, 2, 2
    X = t.let("X", rnd(751, (T_, N, I)), F)
    W = t.let("W", rnd(752, (3 * H, I), -0.6, 0.6), F)
    Rr = t.let("Rr", rnd(753, (3 * H, H), -0.6, 0.6), F)
    B = t.let("B", rnd(754, (6 * H,), -0.2, 0.2), F)
    h0 = t.let("h0", rnd(755, (N, H), -0.5, 0.5), F)
    t.raw("let Y = gru(X, [W], [Rr], [B], [h0], 2, \"forward\", 0);",
          "let L = sum[t, n, j](Y[t, 0, n, j] * ((j + 1) as f64));")
    wts = np.array([1.0, 2.0])
    f = lambda W_, R_, h_: (gru_ref(X, W_, R_, B, h_) * wts).sum()
    t.check("@L / @W", R.fd(lambda v: f(v, Rr, h0), W), F)
    t.check("@L / @Rr", R.fd(lambda v: f(W, v, h0), Rr), F)
    t.check("@L / @h0", R.fd(lambda v: f(W, Rr, v), h0), F)
    t.write()


# ---- quantized linear layer ---------------------------------------------------------------------

def quant_linear():
    t = prog("quant_linear", "a quantized linear layer: quantize_linear of activations (uint8, zero point) and "
             "weights (int8, symmetric), the integer product with the zero point removed (matmul of i32), "
             "rescaled, beside qmatmul / qlinear / dequantize_linear of the same tensors")
    x = t.let("x", rnd(761, (3, 4), -1, 2), F)
    Wt = t.let("Wt", rnd(762, (2, 4), -0.8, 0.8), F)
    b = t.let("b", rnd(763, (2,), -0.1, 0.1), F)
    sx, zx = 3.0 / 255, 85
    sw = 0.8 / 127
    t.raw(f"let sx: f64 = {sx!r};", f"let sw: f64 = {sw!r};", "let zx: i32 = 85;", "let zw: i8 = 0;")
    t.raw("let xq = quantize_linear(x, sx, zx);",
          "let wq = quantize_linear(Wt, sw, zw);",
          "let acc = matmul(xq - zx, transpose(wq));",
          "let y = add(dequantize_linear(acc, sx * sw, 0), b);")
    xq = np.clip(np.rint(x / sx) + zx, 0, 255).astype(np.int32)
    wq = np.clip(np.rint(Wt / sw), -128, 127).astype(np.int32)
    acc = (xq - zx) @ wq.T
    t.check("xq", xq, "i32")
    t.check("wq", wq, "i32")
    t.check("acc", acc.astype(np.int32), "i32")
    y = acc * (sx * sw) + b
    t.check("y", y, F)
    t.check("qlinear(xq - zx, sx, wq, sw, b)", y, F)
    t.check("qmatmul(xq - zx, sx, transpose(wq), sw)", acc * (sx * sw), F)
    t.check("max[i, j](abs(y[i, j] - linear(x, Wt, b)[i, j])) < 0.05", np.bool_(np.abs(y - (x @ Wt.T + b)).max() < 0.05), "bool")
    t.write()


# ---- U-Net style down / up ----------------------------------------------------------------------

def unet():
    t = prog("unet_down_up", "a U-Net style path: conv stride 2 (down), space_to_depth, depth_to_space and "
             "resize nearest x2 (up), the skip connection concatenated on the channel axis, a 1x1 conv")
    X = t.let("X", rnd(771, (1, 2, 4, 4)), F)
    Wd = t.let("Wd", rnd(772, (4, 2, 3, 3), -0.5, 0.5), F)
    Wf = t.let("Wf", rnd(773, (1, 3, 1, 1), -1, 1), F)
    t.raw("let down = relu(conv(X, Wd, [], [2, 2], [1, 1, 1, 1], [1, 1], 1));",
          "let up = depth_to_space(down, 2);",
          "let near = resize(down, [1.0, 1.0, 2.0, 2.0], \"nearest\");",
          "let s2d = space_to_depth(X, 2);",
          "let up1[n, c in 0..1, h, w] = up[n, c, h, w];",
          "let cat = std::array::concatenate_axis(X, up1, 1);",
          "let out = conv(cat, Wf, [0.5], [], [], [], 1);")
    down = relu(R.conv(X, Wd, None, [2, 2], [1, 1, 1, 1], [1, 1]))
    # ONNX DepthToSpace, DCR mode: [N, C, H, W] -> [N, C / b^2, H b, W b]
    n, c, h, w = down.shape
    up = down.reshape(n, 2, 2, c // 4, h, w).transpose(0, 3, 4, 1, 5, 2).reshape(n, c // 4, h * 2, w * 2)
    n, c, h, w = X.shape
    s2d = X.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 3, 5, 1, 2, 4).reshape(n, c * 4, h // 2, w // 2)
    cat = np.concatenate([X, up[:, 0:1]], 1)
    t.check("down", down, F)
    t.check("up", up, F)
    t.check("near", down.repeat(2, 2).repeat(2, 3), F)
    t.check("s2d", s2d, F)
    t.check("depth_to_space(space_to_depth(X, 2), 2)", X, F)
    t.check("out", R.conv(cat, Wf, np.array([0.5]), [1, 1], [0, 0, 0, 0], [1, 1]), F)
    t.write()


# ---- k-means, PCA --------------------------------------------------------------------------------

def kmeans_ref(P, C0, iters):
    C = C0.copy()
    hist = [C.copy()]
    for _ in range(iters):
        d = ((P[:, None, :] - C[None, :, :]) ** 2).sum(-1)
        a = d.argmin(1)
        C = np.array([P[a == k].mean(0) for k in range(len(C))])
        hist.append(C.copy())
    return np.array(hist), a


def kmeans():
    t = prog("kmeans", "k-means: assignments by argmin of squared distances, centroids as masked means, "
             "three iterations written as a recurrence over the centroid history, and the inertia")
    rng = np.random.default_rng(781)
    P = np.round(np.concatenate([rng.normal([0, 0], 0.3, (5, 2)), rng.normal([2, 1], 0.3, (5, 2)),
                                 rng.normal([0, 2], 0.3, (4, 2))]), 2)
    P = t.let("P", P, F)
    C0 = t.let("C0", np.array([[0.5, 0.5], [1.5, 1.5], [0.0, 1.5]]), F)
    t.raw("fn assign(P, C) {",
          "  let d[i, k] = sum[e]((P[i, e] - C[k, e]) * (P[i, e] - C[k, e]));",
          "  let a[i] = argmin[k](d[i, k]);",
          "  a",
          "}",
          "let Cs[0, k in 0..3, e in 0..2] = C0[k, e];",
          "let Cs[t in 1..4, k in 0..3, e in 0..2] = sum[i](if assign(P, Cs[t - 1])[i] == k { P[i, e] } else { 0.0 })",
          "    / sum[i](if assign(P, Cs[t - 1])[i] == k { 1.0 } else { 0.0 });",
          "let a = assign(P, Cs[3]);",
          "let inertia = sum[i, e]((P[i, e] - Cs[3, a[i], e]) * (P[i, e] - Cs[3, a[i], e]));")
    hist, _ = kmeans_ref(P, C0, 3)
    d = ((P[:, None, :] - hist[3][None, :, :]) ** 2).sum(-1)
    a = d.argmin(1)
    t.check("Cs", hist, F)
    t.check("a", a.astype(np.int32), "i32")
    t.check("inertia", ((P - hist[3][a]) ** 2).sum(), F)
    t.write()


def pca_power():
    t = prog("pca_power", "PCA by power iteration: centred data, covariance by matmul, 25 normalised "
             "iterations as a recurrence, the Rayleigh quotient, the projection, and the deflated second "
             "component")
    rng = np.random.default_rng(791)
    A = np.round(rng.normal(0, 1, (8, 3)) @ np.array([[2.0, 0.3, 0.1], [0.0, 0.8, 0.2], [0.0, 0.0, 0.3]]), 2)
    A = t.let("A", A, F)
    t.raw("let mu[j] = sum[i](A[i, j]) / 8.0;",
          "let Xc[i, j] = A[i, j] - mu[j];",
          "let Cv = matmul(transpose(Xc), Xc) / 7.0;",
          "let V[0, j in 0..3] = 1.0;",
          "let V[t in 1..26, j in 0..3] = w[j] / sqrt(sum[k](w[k] * w[k])) where w = matmul(Cv, V[t - 1]);",
          "let v = V[25];",
          "let lam = dot(v, matmul(Cv, v));",
          "let proj = matmul(Xc, v);",
          "let C2[i, j] = Cv[i, j] - lam * v[i] * v[j];",
          "let U[0, j in 0..3] = if j == 1 { 1.0 } else { 0.5 };",
          "let U[t in 1..41, j in 0..3] = w[j] / sqrt(sum[k](w[k] * w[k])) where w = matmul(C2, U[t - 1]);")
    Xc = A - A.mean(0)
    Cv = Xc.T @ Xc / 7
    v = np.ones(3)
    for _ in range(25):
        w = Cv @ v
        v = w / np.sqrt((w * w).sum())
    lam = v @ Cv @ v
    C2 = Cv - lam * np.outer(v, v)
    u = np.array([0.5, 1.0, 0.5])
    for _ in range(40):
        w = C2 @ u
        u = w / np.sqrt((w * w).sum())
    t.check("mu", A.mean(0), F)
    t.check("v", v, F)
    t.check("lam", lam, F)
    t.check("proj", Xc @ v, F)
    t.check("U[40]", u, F)
    ev = np.linalg.eigh(Cv)[0][::-1]
    t.check("abs(lam - %r) < 1e-6" % float(ev[0]), np.bool_(abs(lam - ev[0]) < 1e-6), "bool")
    t.write()


# ---- ODEs ----------------------------------------------------------------------------------------

def ode():
    t = prog("ode", "ODEs: std::numerics euler / midpoint / rk4 decay and euler_linear, beside a hand-written "
             "RK4 for a damped oscillator as a recurrence over the state",
             uses=("std::numerics::*", "std::ml::*"))
    k, dt, u0, n = 0.7, 0.1, 2.0, 10
    t.raw("let k: f64 = 0.7;", "let dt: f64 = 0.1;", "let u0: f64 = 2.0;")

    def steps(step):
        u = [u0]
        for _ in range(n):
            u.append(step(u[-1]))
        return np.array(u)
    eul = steps(lambda u: u - dt * k * u)
    mid = steps(lambda u: u - dt * k * (u - 0.5 * dt * k * u))

    def rk4s(u):
        f = lambda v: -k * v
        k1 = f(u)
        k2 = f(u + 0.5 * dt * k1)
        k3 = f(u + 0.5 * dt * k2)
        k4 = f(u + dt * k3)
        return u + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    t.check("euler_decay(u0, k, dt, 10)", eul, F)
    t.check("midpoint_decay(u0, k, dt, 10)", mid, F)
    t.check("rk4_decay(u0, k, dt, 10)", steps(rk4s), F)
    t.check("abs(rk4_decay(u0, k, dt, 10)[10] - 2.0 * exp(-0.7)) < 1e-6", np.bool_(abs(steps(rk4s)[-1] - 2 * np.exp(-0.7)) < 1e-6), "bool")
    A = t.let("A", np.array([[0.0, 1.0], [-4.0, -0.4]]), F)
    uv = t.let("uv", np.array([1.0, 0.0]), F)
    U = [uv]
    for _ in range(5):
        U.append(U[-1] + dt * (A @ U[-1]))
    t.check("euler_linear(uv, A, dt, 5, 2)", np.array(U), F)
    t.raw("fn f(s, A) { let d[i] = sum[j](A[i, j] * s[j]); d }",
          "let S[0, i in 0..2] = uv[i];",
          "let S[t in 1..21, i in 0..2] = S[t - 1, i] + dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) where",
          "    k1 = f(S[t - 1], A),",
          "    k2 = f(S[t - 1] + 0.5 * dt * k1, A),",
          "    k3 = f(S[t - 1] + 0.5 * dt * k2, A),",
          "    k4 = f(S[t - 1] + dt * k3, A);")
    s = uv.copy()
    hist = [s]
    for _ in range(20):
        fA = lambda v: A @ v
        k1 = fA(s)
        k2 = fA(s + 0.5 * dt * k1)
        k3 = fA(s + 0.5 * dt * k2)
        k4 = fA(s + dt * k3)
        s = s + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        hist.append(s)
    t.check("S[20]", hist[-1], F)
    t.check("S[5, 0]", hist[5][0], F)
    t.write()


def ode_grads():
    t = prog("ode_grads", "the derivative of an Euler-integrated decay's end point in its rate and initial "
             "value (a recurrence written by hand), against central differences and the closed form",
             uses=())
    t.raw("let k: f64 = 0.7;", "let y0: f64 = 2.0;",
          "let Y[0] = y0;",
          "let Y[t in 1..11] = Y[t - 1] - 0.1 * k * Y[t - 1];",
          "let end = Y[10];")
    f = lambda kk, yy: yy * (1 - 0.1 * kk) ** 10
    t.check("end", f(0.7, 2.0), F)
    t.check("@end / @k", (f(0.7 + 1e-6, 2.0) - f(0.7 - 1e-6, 2.0)) / 2e-6, F)
    t.check("@end / @y0", (1 - 0.07) ** 10, F)
    t.write()


# ---- Viterbi -------------------------------------------------------------------------------------

def viterbi():
    t = prog("viterbi", "Viterbi decoding in max-plus: the forward recurrence of best log scores, its back "
             "pointers by argmax, the best path by a backward recurrence, and its score")
    logA = np.log(np.array([[0.7, 0.2, 0.1], [0.3, 0.5, 0.2], [0.2, 0.3, 0.5]]))
    logB = np.log(np.array([[0.6, 0.3, 0.1], [0.1, 0.6, 0.3], [0.3, 0.1, 0.6]]))
    logp = np.log(np.array([0.5, 0.3, 0.2]))
    obs = np.array([0, 1, 2, 2, 1, 0, 2])
    t.raw(f"let logA: [f64; 3, 3] = {np.round(logA, 12).tolist()};".replace("e-", "e-"),
          f"let logB: [f64; 3, 3] = {np.round(logB, 12).tolist()};",
          f"let logp: [f64; 3] = {np.round(logp, 12).tolist()};",
          "let obs = [0, 1, 2, 2, 1, 0, 2];",
          "let D[0, j in 0..3] = logp[j] + logB[j, obs[0]];",
          "let D[t in 1..7, j in 0..3] = max[i](D[t - 1, i] + logA[i, j]) + logB[j, obs[t]];",
          "let bp[t in 1..7, j in 0..3] = argmax[i](D[t - 1, i] + logA[i, j]);",
          "let path[6] = argmax[j](D[6, j]);",
          "let path[t in 0..6] = bp[t + 1, path[t + 1]];",
          "let best = max[j](D[6, j]);")
    logA, logB, logp = np.round(logA, 12), np.round(logB, 12), np.round(logp, 12)
    T_ = len(obs)
    D = np.zeros((T_, 3))
    bp = np.zeros((T_, 3), dtype=int)
    D[0] = logp + logB[:, obs[0]]
    for s in range(1, T_):
        sc = D[s - 1][:, None] + logA
        bp[s] = sc.argmax(0)
        D[s] = sc.max(0) + logB[:, obs[s]]
    path = np.zeros(T_, dtype=int)
    path[-1] = D[-1].argmax()
    for s in range(T_ - 2, -1, -1):
        path[s] = bp[s + 1, path[s + 1]]
    t.check("D", D, F)
    t.check("path", path.astype(np.int32), "i32")
    t.check("best", D[-1].max(), F)
    # the path's score recomputed along it equals the best score
    t.check("abs(logp[path[0]] + logB[path[0], obs[0]] + sum[t in 1..7](logA[path[t - 1], path[t]] + logB[path[t], obs[t]]) - best) < 1e-12",
            np.bool_(True), "bool")
    t.write()


# ---- attention with a padding mask ---------------------------------------------------------------

def masked_attention(Q, K, V, ids):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    s = np.where(ids[None, :] == 0, -1e9, s)
    return R.softmax(s) @ V


def attention_mask():
    t = prog("attention_mask", "attention over a padded sequence: the padding mask from the token ids by "
             "equal / where, nonzero to list the real tokens, masked softmax, the output, and the loss "
             "derivative in Q and V against central differences")
    ids = np.array([5, 3, 9, 0, 0])
    Q = t.let("Q", rnd(801, (5, 4)), F)
    K = t.let("K", rnd(802, (5, 4)), F)
    V = t.let("V", rnd(803, (5, 3)), F)
    t.raw("let ids = [5, 3, 9, 0, 0];",
          "let pad = equal(ids, 0);",
          "let S[i, j] = sum[d](Q[i, d] * K[j, d]) / sqrt(4.0);",
          "let Sm[i in 0..5, j in 0..5] = where(pad, -1e9, 0.0)[j] + S[i, j];",
          "let P = softmax(Sm);",
          "let O = matmul(P, V);",
          "let L = sum[i, c](O[i, c] * O[i, c]);",
          "let real = nonzero(ids);")
    O = masked_attention(Q, K, V, ids)
    t.check("pad", ids == 0, "bool")
    t.check("real", np.array([[0, 1, 2]]).astype(np.int64), "i64")
    t.check("P[0, 3] + P[4, 4]", np.float64(0.0), F)
    t.check("O", O, F)
    t.check("sum[i](gather(O, real[0], 0)[i, 0])", O[:3, 0].sum(), F)
    t.check("@L / @Q", R.fd(lambda q: (masked_attention(q, K, V, ids) ** 2).sum(), Q), F)
    t.check("@L / @V", R.fd(lambda v: (masked_attention(Q, K, v, ids) ** 2).sum(), V), F)
    t.write()


def mha_padding():
    t = prog("mha_padding", "std::ml::multi_head_attention with two heads and an additive padding mask built "
             "with where, against NumPy's per-head softmax(QK^T * scale + mask) V")
    Q = t.let("Q", rnd(811, (1, 4, 4)), F)
    K = t.let("K", rnd(812, (1, 4, 4)), F)
    V = t.let("V", rnd(813, (1, 4, 4)), F)
    t.raw("let keep = [true, true, true, false];",
          "let M[i in 0..4, j in 0..4] = where(keep, 0.0, -1e9)[j];",
          "let out = multi_head_attention(Q, K, V, 2, 0.5, M);")
    keep = np.array([1, 1, 1, 0], bool)
    M = np.where(keep[None, :], 0.0, -1e9) * np.ones((4, 1))
    outs = []
    for h in range(2):
        q, k, v = Q[0][:, 2 * h:2 * h + 2], K[0][:, 2 * h:2 * h + 2], V[0][:, 2 * h:2 * h + 2]
        outs.append(R.softmax(q @ k.T * 0.5 + M) @ v)
    t.check("out", np.concatenate(outs, -1)[None], F)
    t.write()


# ---- small training loops ------------------------------------------------------------------------

def logistic_gd():
    t = prog("logistic_gd", "logistic regression trained by full-batch gradient descent written as a "
             "recurrence over the weight history (gradient by hand with sigmoid and matmul), then the loss "
             "gradient at the final weights by @ against the hand formula and central differences")
    rng = np.random.default_rng(821)
    X = t.let("X", np.round(rng.normal(0, 1, (10, 3)), 2), F)
    y = t.let("y", (X @ np.array([1.5, -2.0, 0.5]) > 0).astype(np.float64), F)
    t.raw("let Wt[0, j in 0..3] = 0.0;",
          "// (the range of i written out: pending/where_array_read_in_reduction)",
          "let Wt[t in 1..31, j in 0..3] = Wt[t - 1, j] - 0.5 * sum[i in 0..10](X[i, j] * (p[i] - y[i])) / 10.0",
          "    where p = sigmoid(matmul(X, Wt[t - 1]));",
          "let w = Wt[30];",
          "let L = binary_cross_entropy(sigmoid(matmul(X, w)), y);")
    w = np.zeros(3)
    for _ in range(30):
        p = sig(X @ w)
        w = w - 0.5 * X.T @ (p - y) / 10
    bce = lambda w_: -(y * np.log(sig(X @ w_)) + (1 - y) * np.log(1 - sig(X @ w_))).mean()
    t.check("w", w, F)
    t.check("L", bce(w), F)
    t.check("@L / @w", X.T @ (sig(X @ w) - y) / 10, F)
    t.check("@L / @w", R.fd(bce, w), F)
    t.write()


def mlp_grads():
    t = prog("mlp_grads", "a two-layer MLP classifier: gemm -> relu -> gemm -> softmax_cross_entropy_loss with "
             "integer class labels and onehot targets in cross_entropy_loss; derivatives in every weight and "
             "bias against central differences")
    X = t.let("X", rnd(831, (4, 3)), F)
    W1 = t.let("W1", rnd(832, (3, 5), -0.8, 0.8), F)
    b1 = t.let("b1", rnd(833, (5,), -0.1, 0.1), F)
    W2 = t.let("W2", rnd(834, (5, 3), -0.8, 0.8), F)
    b2 = t.let("b2", rnd(835, (3,), -0.1, 0.1), F)
    lab = np.array([0, 2, 1, 2])
    t.raw("let lab = [0, 2, 1, 2];",
          "let Hd = relu(gemm(X, W1, b1, 1.0, 1.0, 0, 0));",
          "let Z = gemm(Hd, W2, b2, 1.0, 1.0, 0, 0);",
          "let L = softmax_cross_entropy_loss(Z, lab);",
          "let L2 = cross_entropy_loss(softmax(Z), onehot(lab, 3, [0.0, 1.0]));")

    def loss(W1_, b1_, W2_, b2_):
        Z = relu(X @ W1_ + b1_) @ W2_ + b2_
        lp = Z - Z.max(1, keepdims=True)
        lp = lp - np.log(np.exp(lp).sum(1, keepdims=True))
        return -lp[np.arange(4), lab].mean()
    args = [W1, b1, W2, b2]
    t.check("L", loss(*args), F)
    t.check("L2", loss(*args), F)
    for i, name in enumerate(["W1", "b1", "W2", "b2"]):
        def f(v, i=i):
            a = list(args)
            a[i] = v
            return loss(*a)
        t.check(f"@L / @{name}", R.fd(f, args[i]), F)
    t.write()


def conv1d_classifier():
    t = prog("conv1d_classifier", "a 1-D signal classifier: conv (2 filters, dilation 2) -> relu -> max_pool -> "
             "global_average_pool -> linear, the logits and the loss derivative in the filters and in the "
             "signal against central differences")
    X = t.let("X", rnd(841, (2, 1, 12)), F)
    Wc = t.let("Wc", rnd(842, (2, 1, 3), -1, 1), F)
    Wl = t.let("Wl", rnd(843, (2, 2), -1, 1), F)
    t.raw("let h = relu(conv(X, Wc, [0.1, -0.1], [1], [2, 2], [2], 1));",
          "let pooled = max_pool(h, [2], [2], []);",
          "let g[n, c] = global_average_pool(pooled)[n, c, 0];",
          "let logits = linear(g, Wl, [0.0, 0.0]);",
          "let L = sum[n, c](logits[n, c] * logits[n, c]);")

    def fwd(X_, W_):
        h = relu(R.conv(X_, W_, np.array([0.1, -0.1]), [1], [2, 2], [2]))
        p = R.pool(h, [2], [2], [0, 0], "max")
        return p.mean(-1) @ Wl.T
    t.check("logits", fwd(X, Wc), F)
    t.check("@L / @Wc", R.fd(lambda w: (fwd(X, w) ** 2).sum(), Wc), F)
    t.check("@L / @X", R.fd(lambda x: (fwd(x, Wc) ** 2).sum(), X), F)
    t.write()


def transformer_ffn():
    t = prog("transformer_ffn", "a pre-norm transformer feed-forward sublayer: layer_normalization -> linear "
             "-> gelu -> linear -> residual, applied to every token, and its derivative in the first weights")
    X = t.let("X", rnd(851, (3, 4)), F)
    W1 = t.let("W1", rnd(852, (6, 4), -0.7, 0.7), F)
    W2 = t.let("W2", rnd(853, (4, 6), -0.7, 0.7), F)
    g = t.let("g", rnd(854, (4,), 0.8, 1.2), F)
    t.raw("let Y = X + linear(gelu(linear(layer_normalization(X, g, [0.0, 0.0, 0.0, 0.0], 1e-5, -1), W1, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0])), W2, [0.0, 0.0, 0.0, 0.0]);",
          "let L = sum[i, j](Y[i, j] * Y[i, j]);")
    from math import erf
    gelu = np.vectorize(lambda z: 0.5 * z * (1 + erf(z / np.sqrt(2))))
    fwd = lambda W1_: X + gelu(R.layer_norm(X, g, 0.0, 1e-5) @ W1_.T) @ W2.T
    t.check("Y", fwd(W1), F)
    t.check("@L / @W1", R.fd(lambda w: (fwd(w) ** 2).sum(), W1), F)
    t.write()


def batchnorm_stats():
    t = prog("batchnorm_stats", "batch normalization in training form: batch statistics by reduce_mean over "
             "axes [0, 2, 3] fed to batch_normalization, beside instance_normalization and "
             "mean_variance_normalization of the same tensor, and the derivative in the input")
    X = t.let("X", rnd(861, (3, 2, 2, 3), -2, 2), F)
    t.raw("let mu[c] = sum[n, h, w](X[n, c, h, w]) / 18.0;",
          "let var[c] = sum[n, h, w]((X[n, c, h, w] - mu[c]) * (X[n, c, h, w] - mu[c])) / 18.0;",
          "let Y = batch_normalization(X, [1.0, 2.0], [0.0, 0.5], mu, var, 1e-5);",
          "let L = sum[n, c, h, w](Y[n, c, h, w] * Y[n, c, h, w] * X[n, c, h, w]);")
    def bnf(x):
        m = x.mean((0, 2, 3))
        v = x.var((0, 2, 3))
        return R.batch_norm(x, np.array([1.0, 2.0]), np.array([0.0, 0.5]), m, v, 1e-5)
    t.check("mu", X.mean((0, 2, 3)), F)
    t.check("var", X.var((0, 2, 3)), F)
    t.check("Y", bnf(X), F)
    m = X.mean((2, 3), keepdims=True)
    v = X.var((2, 3), keepdims=True)
    t.check("instance_normalization(X, [1.0, 1.0], [0.0, 0.0], 1e-5)", (X - m) / np.sqrt(v + 1e-5), F)
    m = X.mean((0, 2, 3), keepdims=True)
    v = X.var((0, 2, 3), keepdims=True)
    t.check("mean_variance_normalization(X, [0, 2, 3])", (X - m) / np.sqrt(v + 1e-9), F)
    t.check("@L / @X", R.fd(lambda x: (bnf(x) ** 2 * x).sum(), X), F)
    t.write()


def rnn_std():
    t = prog("rnn_std", "an Elman RNN: std::ml::rnn (tanh) beside the same recurrence written by hand, "
             "and the derivative of the last state's norm in R against central differences")
    X = t.let("X", rnd(871, (4, 1, 2)), F)
    W = t.let("W", rnd(872, (3, 2), -0.8, 0.8), F)
    Rr = t.let("Rr", rnd(873, (3, 3), -0.8, 0.8), F)
    B = t.let("B", rnd(874, (6,), -0.2, 0.2), F)
    t.raw("let h0[n in 0..1, j in 0..3] = 0.0;",
          "let Y = rnn(X, W, Rr, B, h0, 3, \"forward\", \"Tanh\");",
          "let Hh[0, j in 0..3] = 0.0;",
          "let Hh[t in 1..5, j in 0..3] = tanh(sum[i](W[j, i] * X[t - 1, 0, i]) + sum[k](Rr[j, k] * Hh[t - 1, k]) + B[j] + B[3 + j]);",
          "let L = sum[j](Y[3, 0, j] * Y[3, 0, j]);")

    def run(Rv):
        h = np.zeros(3)
        out = []
        for x in X[:, 0]:
            h = np.tanh(W @ x + Rv @ h + B[:3] + B[3:])
            out.append(h)
        return np.array(out)
    t.check("Y", run(Rr)[:, None], F)
    t.check("Hh[4]", run(Rr)[-1], F)
    t.check("@L / @Rr", R.fd(lambda r: (run(r)[-1] ** 2).sum(), Rr), F)
    t.write()


def soft_kmeans_grads():
    t = prog("soft_kmeans_grads", "a soft k-means objective -sum_i logsumexp_k(-d(i, k)) with d from a user "
             "function, via reduce_log_sum_exp, and its derivative in the centroids against central differences")
    P = t.let("P", rnd(881, (6, 2), -2, 2), F)
    C = t.let("C", rnd(882, (3, 2), -1, 1), F)
    t.raw("fn dist(P, C) { let d[i, k] = sum[e]((P[i, e] - C[k, e]) * (P[i, e] - C[k, e])); d }",
          "let Dn = dist(P, C) * -1.0;",
          "let L = -sum[i](reduce_log_sum_exp(Dn[i])[0]);")

    def f(Cv):
        d = ((P[:, None] - Cv[None]) ** 2).sum(-1)
        m = (-d).max(1, keepdims=True)
        return -(m[:, 0] + np.log(np.exp(-d - m).sum(1))).sum()
    t.check("L", f(C), F)
    t.check("@L / @C", R.fd(f, C), F)
    t.write()


def unet_grads():
    t = prog("unet_grads", "the derivative of a loss through a U-Net style up path (resize linear x2 of a "
             "conv output, skip concat, 1x1 conv) in both convs' weights, against central differences")
    X = t.let("X", rnd(891, (1, 1, 4, 4)), F)
    Wd = t.let("Wd", rnd(892, (2, 1, 2, 2), -0.8, 0.8), F)
    Wf = t.let("Wf", rnd(893, (1, 3, 1, 1), -0.8, 0.8), F)
    t.raw("let down = conv(X, Wd, [], [2, 2], [], [], 1);",
          "let up = resize(down, [1.0, 1.0, 2.0, 2.0], \"linear\");",
          "let out = conv(std::array::concatenate_axis(X, up, 1), Wf, [], [], [], [], 1);",
          "let L = sum[n, c, h, w](out[n, c, h, w] * out[n, c, h, w]);")

    def f(Wd_, Wf_):
        down = R.conv(X, Wd_, None, [2, 2], [0, 0, 0, 0], [1, 1])
        up = R.resize_1d(R.resize_1d(down, 2.0, "linear", 2), 2.0, "linear", 3)
        out = R.conv(np.concatenate([X, up], 1), Wf_, None, [1, 1], [0, 0, 0, 0], [1, 1])
        return (out ** 2).sum(), up
    t.check("up", f(Wd, Wf)[1], F)
    t.check("@L / @Wd", R.fd(lambda w: f(w, Wf)[0], Wd), F)
    t.check("@L / @Wf", R.fd(lambda w: f(Wd, w)[0], Wf), F)
    t.write()


def recurrent_rank_error():
    t = prog("recurrent_rank_error", "std::ml::gru given a list of sequences [[T, N, I]] (one axis too many): "
             "E004 at the call naming the expected layout (was E011 \"array-valued elements\" inside the library)")
    t.let("X", rnd(901, (2, 1, 2)), F)
    t.let("W", rnd(902, (3, 2)), F)
    t.let("Rr", rnd(903, (3, 1)), F)
    t.raw("let B: [f64; 6] = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0];", "let h0: [f64; 1, 1] = [[0.0]];",
          "print(gru([X], [W], [Rr], [B], [h0], 1, \"forward\", 0));")
    t.expect_error("E004")
    t.write()


# ---- integer layers (session 21: exact or E006) ----------------------------------------------------

def int_layers():
    t = prog("int_layers", "integer models: a histogram by onehot and reduce_sum, integer gemm / linear / "
             "conv of counts (exact, i32), outer of counts, and an integer ConvInteger-style product "
             "of quantized values")
    t.raw("let ids = [2, 0, 1, 2, 2, 3, 0];",
          "let hot = onehot(ids, 4, [0, 1]);",
          "let hist = std::array::sum_axis(hot, 0);")
    ids = np.array([2, 0, 1, 2, 2, 3, 0])
    hot = np.eye(4, dtype=np.int32)[ids]
    t.check("hot", hot, "i32")
    t.check("hist", hot.sum(0).astype(np.int32), "i32")
    A = t.let("A", np.array([[120, -7, 33], [5, 64, -128]]), "i32")
    Bm = t.let("Bm", np.array([[3, 1], [-2, 5], [7, 0]]), "i32")
    t.check("gemm(A, Bm, [1000, -1000], 2, 3, 0, 0)", (2 * A @ Bm + 3 * np.array([1000, -1000])).astype(np.int32), "i32")
    t.check("linear(A, transpose(Bm), [1, 2])", (A @ Bm + np.array([1, 2])).astype(np.int32), "i32")
    t.check("outer(hist, hist)", np.outer(hot.sum(0), hot.sum(0)).astype(np.int32), "i32")
    Xq = t.let("Xq", np.array([[[12, -3, 100, 55, -128, 7]]]), "i32")
    Wq = t.let("Wq", np.array([[[2, -1, 3]], [[-5, 0, 1]]]), "i32")
    ref = np.stack([np.convolve(Xq[0, 0], Wq[m, 0][::-1], "valid") for m in range(2)])[None] + np.array([10, -10])[None, :, None]
    t.check("conv(Xq, Wq, [10, -10], [], [], [], 1)", ref.astype(np.int32), "i32")
    t.check_text("typeof(conv(Xq, Wq, [10, -10], [], [], [], 1))", "[i32; 1, 2, 4]")
    t.write()


def int_layers_overflow():
    t = prog("int_layers_overflow", "an integer linear layer whose exact result leaves i32: E006 at the call, "
             "never a wrapped value (np.matmul of int32 would wrap)")
    t.raw("let x: [i32; 1, 2] = [[65536, 65536]];",
          "let W: [i32; 1, 2] = [[32768, 32768]];",
          "print(linear(x, W, [0]));")
    t.expect_error("E006")
    t.write()


# ---- std::io on a temporary directory ---------------------------------------------------------------

def io_files():
    t = TestFile("outside/hunt6_io_files.ein", "std::io on a temporary directory: create_dir, write_file, "
                 "append_file, read_file, file_size, copy_file, move_file, list_dir, is_dir / is_file / "
                 "file_exists, save_npy / load_npy of f64, i32 and bool arrays, delete_file, remove_dir, path "
                 "helpers (one mode: both would share the directory)",
                 uses=["std::io::*"])
    d = "/tmp/ein_hunt6_io_dir"
    t.raw(f'let d = "{d}";', 'let f = join_path([d, "notes.txt"]);')
    t.raw('create_dir(d);')
    t.check("is_dir(d)", np.bool_(True), "bool")
    t.raw('write_file(f, "alpha\\n");', 'append_file(f, "beta\\n");')
    t.check('read_file(f) == "alpha\\nbeta\\n"', np.bool_(True), "bool")
    t.check("file_size(f)", np.int64(11), "i64")
    t.raw('copy_file(f, join_path([d, "copy.txt"]));',
          'move_file(join_path([d, "copy.txt"]), join_path([d, "moved.txt"]));')
    t.check('file_exists(join_path([d, "copy.txt"]))', np.bool_(False), "bool")
    t.check('is_file(join_path([d, "moved.txt"]))', np.bool_(True), "bool")
    t.check_text('basename(join_path([d, "moved.txt"]))', "moved.txt")
    t.check_text('dirname(f)', d)
    t.raw('let M: [f64; 2, 3] = [[1.5, -2.0, 0.25], [3.0, 1e-300, -0.0]];',
          'let I: [i32; 3] = [7, -8, 2147483647];',
          'let Bb = [true, false, true];',
          'save_npy(join_path([d, "m.npy"]), M);',
          'save_npy(join_path([d, "i.npy"]), I);',
          'save_npy(join_path([d, "b.npy"]), Bb);')
    t.check_text('load_npy(join_path([d, "m.npy"]))', "[[1.5, -2.0, 0.25], [3.0, 1e-300, -0.0]]")
    t.check_text('load_npy(join_path([d, "i.npy"]))', "[7, -8, 2147483647]")
    t.check_text('load_npy(join_path([d, "b.npy"]))', "[true, false, true]")
    t.check("len(list_dir(d))", np.int32(5), "i32")
    t.raw('delete_file(f);', 'delete_file(join_path([d, "moved.txt"]));',
          'delete_file(join_path([d, "m.npy"]));', 'delete_file(join_path([d, "i.npy"]));',
          'delete_file(join_path([d, "b.npy"]));', 'remove_dir(d);')
    t.check("file_exists(d)", np.bool_(False), "bool")
    t.write()


# ---- print formats (SPEC 8) ----------------------------------------------------------------------------

def print_formats():
    t = prog("print_formats", "print of every dtype and rank by the SPEC's rules (section 8): shortest "
             "round-trip floats at their own precision, exponent forms, -0.0, inf and nan, i8 / i32 / i64 "
             "limits, bools, strings in and out of containers, tuples, empty arrays, ranks 0-3, summaries of "
             "arrays above 1000 elements", uses=())
    cases = [
        ("let a = 1.0 / 3.0;", "a", "0.33333334"),
        ("let b: f64 = 1.0 / 3.0;", "b", "0.3333333333333333"),
        ("let c: f64 = 0.1 + 0.2;", "c", "0.30000000000000004"),
        (None, "2.0", "2.0"),
        (None, "1e-7", "1e-07"),
        ("let e16: f64 = 1e16;", "e16", "1e+16"),
        ("let e15: f64 = 1e15;", "e15", "1000000000000000.0"),
        ("let small: f64 = 0.0001;", "small", "0.0001"),
        ("let smaller: f64 = 0.00001;", "smaller", "1e-05"),
        ("let nz: f64 = -0.0;", "nz", "-0.0"),
        ("let inf: f64 = 1.0 / 0.0;", "inf", "inf"),
        (None, "-inf", "-inf"),
        (None, "inf - inf", "nan"),
        ("let big32: f32 = 16777216.0;", "big32 * 4.0", "67108864.0"),
        ("let e38: f32 = 3.4e38;", "e38", "3.4e+38"),
        ("let tiny: f64 = 5e-324;", "tiny", "5e-324"),
        ("let i8min: i8 = -128;", "i8min", "-128"),
        ("let i8max: i8 = 127;", "i8max", "127"),
        ("let i32min: i32 = -2147483648;", "i32min", "-2147483648"),
        ("let i64max: i64 = 9223372036854775807;", "i64max", "9223372036854775807"),
        (None, "true", "true"),
        (None, "[true, false]", "[true, false]"),
        (None, "\"plain\"", "plain"),
        (None, "[\"a\", \"b\"]", "[\"a\", \"b\"]"),
        (None, "(1, 2.5)", "(1, 2.5)"),
        (None, "(\"x\", [1, 2])", "(\"x\", [1, 2])"),
        (None, "[[1, 2], [3, 4]]", "[[1, 2], [3, 4]]"),
        ("let r3: [i8; 2, 1, 2] = [[[1, -2]], [[3, -4]]];", "r3", "[[[1, -2]], [[3, -4]]]"),
        ("let f3: [f64; 1, 2, 2] = [[[0.5, 1.0], [1e20, -2.5e-5]]];", "f3", "[[[0.5, 1.0], [1e+20, -2.5e-05]]]"),
        ("let f32s: [f32; 3] = [0.1, 0.2, 16777217.0];", "f32s", "[0.1, 0.2, 16777216.0]"),
        ("let E[i in 0..0] = 1.0;", "E", "[]"),
        ("let E2[i in 0..2, j in 0..0] = 1;", "E2", "[[], []]"),
        ("let typed: i64 = 5;", "typed", "5"),
        (None, "1, 2.5, \"s\", true", "1 2.5 s true"),
        ("let h16: f16 = 0.1;", "h16", "0.1"),
        ("let t16: f16 = 1.0 / 3.0;", "t16", "0.3333"),
        ("let tb: bf16 = 1.0 / 3.0;", "tb", "0.334"),
        ("let m16: f16 = 60000.0;", "m16 + m16", "inf"),
        ("let a16: [f16; 2] = [0.5, 1.5];", "typeof(a16)", "[f16; 2]"),
        ("let jg: jagged[i32] = [[1, 2, 3], [4]];", "jg", "[[1, 2, 3], [4]]"),
        (None, "()", "()"),
        (None, "(1.5, [true], \"s\")", "(1.5, [true], \"s\")"),
    ]
    for setup, expr, text in cases:
        if setup:
            t.raw(setup)
        t.check_text(expr, text)
    t.raw("let r[i in 0..1001] = i;")
    t.check_text("r", "[0, 1, 2, ..., 998, 999, 1000]")
    t.raw("let fr[i in 0..1200] = (i as f64) * 0.5;")
    t.check_text("fr", "[0.0, 0.5, 1.0, ..., 598.5, 599.0, 599.5]")
    t.raw("let w4[i in 0..4, j in 0..300] = i + j;")
    t.check_text("w4", "[" + ", ".join(f"[{i}, {i + 1}, {i + 2}, ..., {i + 297}, {i + 298}, {i + 299}]" for i in range(4)) + "]")
    t.raw("let m[i in 0..40, j in 0..30] = i * 30 + j;")
    rows = [f"[{30 * i}, {30 * i + 1}, {30 * i + 2}, ..., {30 * i + 27}, {30 * i + 28}, {30 * i + 29}]"
            for i in (0, 1, 2, 37, 38, 39)]
    t.check_text("m", "[" + ", ".join(rows[:3] + ["..."] + rows[3:]) + "]")
    t.write()


def generate():
    for f in (resnet_block, resnet_grads, gru_cell, lstm_seq, gru_grads, quant_linear, unet, kmeans,
              pca_power, ode, ode_grads, viterbi, attention_mask, mha_padding, logistic_gd, mlp_grads,
              conv1d_classifier, transformer_ffn, batchnorm_stats, rnn_std, soft_kmeans_grads, unet_grads,
              int_layers, int_layers_overflow, recurrent_rank_error, io_files, print_formats):
        f()
