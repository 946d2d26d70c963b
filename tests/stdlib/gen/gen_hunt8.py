"""The eighth outside-programs hunt (session 23, issue 13 item 3), on ground no hunt reached:
quantized inference (quantize_linear / dequantize_linear / qlinear / qmatmul / qconv chained as
small int8 networks, per-axis scales, uint8 saturation), recurrent networks with the ONNX
rnn / gru / lstm parameter lists (both weight layouts, directions, initial states, biases,
linear_before_reset, clip), conv_transpose with output_padding / pads / strides as decoders
pass them (1-D, 2-D, 3-D), resize / upsample inside image pipelines, the std::numerics step
functions and 2-D optimisation helpers inside user recurrences, value_iteration /
discounted_return / returns_to_go in RL loops, std::io file operations in a temp directory,
std::array partition / top-k forms. Expected values: NumPy written from the ONNX operator text
and the algorithms' definitions (gen_ml_nn's recurrent references, gen_ml's conv_transpose
reference, attrs_ref's resize). Files under cases/outside/hunt8_*.ein, EIN_JIT=never and always
(the I/O programs once: both runs would share their files). The std::io and std::array
programs and a second batch of forms are in gen_hunt8b.py.
"""
import numpy as np

import attrs_ref as A
from gen_hunt2 import F, rnd
from gen_ml import conv_transpose_ref
from gen_ml_nn import directions, gru_ref, lstm_ref, rnn_ref
from gen_select import modes_file

F32 = "f32"


def prog(name, purpose, uses=("std::ml::*",)):
    return modes_file(f"outside/hunt8_{name}.ein", purpose, uses=list(uses))


def sig(z):
    return 1 / (1 + np.exp(-z))


def quant(x, s, zp, lo=-128, hi=127):
    """ONNX QuantizeLinear: round half to even, plus the zero point, saturated."""
    return np.clip(np.rint(x / s) + zp, lo, hi).astype(np.int64)


# ---- quantized inference -------------------------------------------------------------------------

def q_mlp():
    t = prog("q_mlp", "an int8 MLP: inputs quantized (i8 zero point 0), two qlinear layers with relu between, "
             "the hidden activations requantized per tensor, logits and the argmax class of each row")
    g = np.random.default_rng(8101)
    X = t.let("X", np.round(g.uniform(-2, 2, (5, 4)), 2), F32).astype(np.float64)
    W1 = t.let("W1", g.integers(-60, 60, (6, 4)), "i8")
    W2 = t.let("W2", g.integers(-60, 60, (3, 6)), "i8")
    b1 = t.let("b1", np.round(g.uniform(-0.5, 0.5, 6), 2), F32).astype(np.float64)
    b2 = t.let("b2", np.round(g.uniform(-0.5, 0.5, 3), 2), F32).astype(np.float64)
    t.raw("let zp: i8 = 0;",
          "let sx = 0.02;",
          "let sw = 0.01;",
          "let sh = 0.05;",
          "let xq = quantize_linear(X, sx, zp);",
          "let h = relu(qlinear(xq, sx, W1, sw, b1));",
          "let hq = quantize_linear(h, sh, zp);",
          "let logits = qlinear(hq, sh, W2, sw, b2);",
          "let cls = std::array::argmax_axis(logits, 1);")
    f = np.float32
    xq = quant(X.astype(f), f(0.02), 0)
    h = np.maximum((xq.astype(f) * f(0.02)) @ (W1.astype(f) * f(0.01)).T + b1.astype(f), 0)
    hq = quant(h, f(0.05), 0)
    logits = (hq.astype(f) * f(0.05)) @ (W2.astype(f) * f(0.01)).T + b2.astype(f)
    t.check("xq", xq, "i32")
    t.check("hq", hq, "i32")
    t.check("logits", logits, F32)
    t.check("cls", logits.argmax(1), "i32")
    t.write()


def q_conv_net():
    t = prog("q_conv_net", "a quantized conv block: qconv (stride 1, pads 1) of an i8 image with i8 filters, relu, "
             "max_pool 2x2 stride 2, per-channel requantization (a scale per channel, axis 1), dequantization and "
             "global_average_pool")
    g = np.random.default_rng(8102)
    Xq = t.let("Xq", g.integers(-20, 20, (1, 2, 4, 4)), "i8")
    Wq = t.let("Wq", g.integers(-10, 10, (3, 2, 3, 3)), "i8")
    B = t.let("B", np.round(g.uniform(-0.2, 0.2, 3), 2), F32).astype(np.float64)
    sc = t.let("sc", [0.01, 0.02, 0.04], F32).astype(np.float64)
    t.raw("let zc: [i8; 3] = [0, 1, -1];",
          "let Y = relu(qconv(Xq, 0.05, Wq, 0.1, B, [1, 1], [1, 1, 1, 1], [1, 1], 1));",
          "let P = max_pool(Y, [2, 2], [2, 2], []);",
          "let Pq = quantize_linear(P, sc, zc);",
          "let Pd = dequantize_linear(Pq, sc, zc);",
          "let G = global_average_pool(Pd);")
    f = np.float32
    Y = np.maximum(A.conv(Xq.astype(f) * f(0.05), Wq.astype(f) * f(0.1), B.astype(f), [1, 1], [1, 1, 1, 1], [1, 1], 1), 0).astype(f)
    P = A.pool(Y, [2, 2], [2, 2], [], "max").astype(f)
    zc = np.array([0, 1, -1])
    scf = sc.astype(f)
    Pq = np.clip(np.rint(P / scf[None, :, None, None]) + zc[None, :, None, None], -128, 127).astype(np.int64)
    Pd = ((Pq - zc[None, :, None, None]).astype(f) * scf[None, :, None, None]).astype(f)
    t.check("Pq", Pq, "i32")
    t.check("G", Pd.mean((2, 3), keepdims=True), F32)
    t.write()


def qmatmul_chain():
    t = prog("qmatmul_chain", "qmatmul of two int8 matrices, then a weight matrix quantized per column "
             "(a per-axis scale along axis 1) and back, the largest round-trip error, and a qmatmul of the "
             "result against an int8 vector")
    g = np.random.default_rng(8103)
    Aq = t.let("Aq", g.integers(-100, 100, (3, 5)), "i8")
    Bq = t.let("Bq", g.integers(-100, 100, (5, 2)), "i8")
    W = t.let("W", np.round(g.uniform(-1, 1, (4, 3)), 3), F).astype(np.float64)
    sc = t.let("sc", [0.008, 0.004, 0.01], F)
    v = t.let("v", g.integers(-50, 50, 3), "i8")
    t.raw("let zp: [i8; 3] = [0, 0, 0];",
          "let C = qmatmul(Aq, 0.01, Bq, 0.02);",
          "let Wq = quantize_linear(W, sc, zp);",
          "let Wd = dequantize_linear(Wq, sc, zp);",
          "let err = max[i, j](abs(Wd[i, j] - W[i, j]));",
          "let y = qmatmul(Wq, 0.5, v, 0.25);")
    C = (Aq * 0.01) @ (Bq * 0.02)
    Wq = np.clip(np.rint(W / sc[None, :]), -128, 127).astype(np.int64)
    Wd = Wq * sc[None, :]
    t.check("C", C, F)
    t.check("Wq", Wq, "i32")
    t.check("err", np.abs(Wd - W).max(), F)
    t.check("y", (Wq * 0.5) @ (v * 0.25), F)
    t.write()


def q_uint8():
    t = prog("q_uint8", "uint8 quantization (an i32 zero point 128): values past the range saturate at 0 and 255, "
             "halves round to even, the round trip through dequantize_linear, and an image normalised to [0, 1] "
             "quantized with zero point 0")
    x = t.let("x", [-3.0, -1.0, -0.25, 0.0, 0.125, 0.375, 1.0, 2.5, 10.0], F32).astype(np.float32)
    img = t.let("img", [[0.0, 0.1, 0.5], [0.999, 1.0, 0.25]], F32).astype(np.float32)
    t.raw("let z: i32 = 128;", "let z0: i32 = 0;",
          "let q = quantize_linear(x, 0.0625, z);",
          "let back = dequantize_linear(q, 0.0625, z);",
          "let qi = quantize_linear(img, 1.0 / 255.0, z0);")
    q = quant(x, np.float32(0.0625), 128, 0, 255)
    t.check("q", q, "i32")
    t.check("back", ((q - 128) * np.float32(0.0625)).astype(np.float32), F32)
    t.check("qi", quant(img, np.float32(1.0) / np.float32(255.0), 0, 0, 255), "i32")
    t.write()


# ---- recurrent networks ----------------------------------------------------------------------

def rnn_relu_bidir():
    t = prog("rnn_relu_bidir", "a bidirectional ONNX RNN with the Relu activation, W [2, H, I], R [2, H, H], "
             "B [2, 2H] and initial_h [2, N, H], hidden_size given; Y [T, 2, N, H] and the last step of each "
             "direction concatenated as features")
    g = np.random.default_rng(8201)
    T, N, I, H = 4, 2, 3, 3
    X = t.let("X", np.round(g.uniform(-1, 1, (T, N, I)), 2), F)
    W = t.let("W", np.round(g.uniform(-0.6, 0.6, (2, H, I)), 2), F)
    R = t.let("R", np.round(g.uniform(-0.6, 0.6, (2, H, H)), 2), F)
    B = t.let("B", np.round(g.uniform(-0.3, 0.3, (2, 2 * H)), 2), F)
    h0 = t.let("h0", np.round(g.uniform(-0.5, 0.5, (2, N, H)), 2), F)
    t.raw("let Y = rnn(X, W, R, B, h0, 3, \"bidirectional\", \"Relu\");",
          "let feat[n, j in 0..6] = if j < 3 { Y[3, 0, n, j] } else { Y[0, 1, n, j - 3] };")
    Y = directions(lambda *a: rnn_ref(*a, act="Relu"), X, W, R, B, [h0], "bidirectional", [])
    t.check("Y", Y, F)
    t.check("feat", np.concatenate([Y[3, 0], Y[0, 1]], axis=1), F)
    t.write()


def lstm_classify():
    t = prog("lstm_classify", "a sequence classifier: ONNX LSTM in the layout without a direction axis "
             "(W [4H, I], R [4H, H], B [8H], initial states [N, H]), the last hidden state through linear "
             "and softmax, and the cross-entropy against integer labels")
    g = np.random.default_rng(8202)
    T, N, I, H = 5, 3, 2, 4
    X = t.let("X", np.round(g.uniform(-1, 1, (T, N, I)), 2), F)
    W = t.let("W", np.round(g.uniform(-0.5, 0.5, (4 * H, I)), 2), F)
    R = t.let("R", np.round(g.uniform(-0.5, 0.5, (4 * H, H)), 2), F)
    B = t.let("B", np.round(g.uniform(-0.2, 0.2, 8 * H), 2), F)
    h0 = t.let("h0", np.round(g.uniform(-0.3, 0.3, (N, H)), 2), F)
    c0 = t.let("c0", np.round(g.uniform(-0.3, 0.3, (N, H)), 2), F)
    Wo = t.let("Wo", np.round(g.uniform(-1, 1, (2, H)), 2), F)
    bo = t.let("bo", [0.1, -0.1], F)
    t.raw("let lab = [0, 1, 1];",
          "let Y = lstm(X, W, R, B, h0, c0, 4, \"forward\", 0.0);",
          "let p = softmax(linear(Y[4], Wo, bo));",
          "let L = cross_entropy_loss(p, lab);")
    Y = lstm_ref(X, W, R, B, h0, c0)
    z = Y[4] @ Wo.T + bo
    p = np.exp(z - z.max(1, keepdims=True))
    p = p / p.sum(1, keepdims=True)
    t.check("Y", Y, F)
    t.check("p", p, F)
    t.check("L", -np.mean(np.log(p[np.arange(3), [0, 1, 1]])), F)
    t.write()


def gru_lbr_reverse():
    t = prog("gru_lbr_reverse", "ONNX GRU in the reverse direction with linear_before_reset 1, W [1, 3H, I], "
             "B [1, 6H], no initial state (zeros), and the same weights forward with linear_before_reset 0")
    g = np.random.default_rng(8203)
    T, N, I, H = 4, 2, 3, 2
    X = t.let("X", np.round(g.uniform(-1, 1, (T, N, I)), 2), F)
    W = t.let("W", np.round(g.uniform(-0.7, 0.7, (1, 3 * H, I)), 2), F)
    R = t.let("R", np.round(g.uniform(-0.7, 0.7, (1, 3 * H, H)), 2), F)
    B = t.let("B", np.round(g.uniform(-0.3, 0.3, (1, 6 * H)), 2), F)
    t.raw("let Yr = gru(X, W, R, B, [], 2, \"reverse\", 1);",
          "let Yf = gru(X, W, R, B, [], 2, \"forward\", 0);")
    z = np.zeros((1, N, H))
    t.check("Yr", directions(lambda *a: gru_ref(*a, lbr=1), X, W, R, B, [z], "reverse", []), F)
    t.check("Yf", directions(lambda *a: gru_ref(*a, lbr=0), X, W, R, B, [z], "forward", []), F)
    t.write()


def lstm_clip_bidir():
    t = prog("lstm_clip_bidir", "a bidirectional ONNX LSTM with clip_threshold 0.5 (gate pre-activations "
             "clipped), initial_h and initial_c [2, N, H], empty B; the mean over time of Y")
    g = np.random.default_rng(8204)
    T, N, I, H = 3, 1, 2, 2
    X = t.let("X", np.round(g.uniform(-2, 2, (T, N, I)), 2), F)
    W = t.let("W", np.round(g.uniform(-1, 1, (2, 4 * H, I)), 2), F)
    R = t.let("R", np.round(g.uniform(-1, 1, (2, 4 * H, H)), 2), F)
    h0 = t.let("h0", np.round(g.uniform(-0.5, 0.5, (2, N, H)), 2), F)
    c0 = t.let("c0", np.round(g.uniform(-0.5, 0.5, (2, N, H)), 2), F)
    t.raw("let Y = lstm(X, W, R, [], h0, c0, 2, \"bidirectional\", 0.5);",
          "let m[d, n, j] = sum[t](Y[t, d, n, j]) / 3.0;")
    B = np.zeros((2, 8 * H))
    Y = directions(lambda *a: lstm_ref(*a, clip=0.5), X, W, R, B, [h0, c0], "bidirectional", [])
    t.check("Y", Y, F)
    t.check("m", Y.mean(0), F)
    t.write()


# ---- conv_transpose decoders ---------------------------------------------------------------------

def convt_decoder_2d():
    t = prog("convt_decoder_2d", "a 2-D decoder step: conv_transpose with stride 2, pads 1 on each side and "
             "output_padding 1 (doubles 3x3 to 6x6), a bias, relu, then a 1x1 conv to one channel")
    g = np.random.default_rng(8301)
    X = t.let("X", np.round(g.uniform(-1, 1, (1, 2, 3, 3)), 2), F)
    W = t.let("W", np.round(g.uniform(-1, 1, (2, 3, 3, 3)), 2), F)
    B = t.let("B", [0.1, -0.2, 0.05], F)
    W1 = t.let("W1", np.round(g.uniform(-1, 1, (1, 3, 1, 1)), 2), F)
    t.raw("let U = relu(conv_transpose(X, W, B, [2, 2], [1, 1, 1, 1], [1, 1]));",
          "let O = conv(U, W1, [], [], [], [], 1);")
    U = np.maximum(conv_transpose_ref(X, W, B, [2, 2], [1, 1, 1, 1], [1, 1]), 0)
    t.check("shape(U)", np.array(U.shape), "i32")
    t.check("U", U, F)
    t.check("O", A.conv(U, W1, np.zeros(1), [1, 1], [], [1, 1], 1), F)
    t.write()


def convt_signal_1d():
    t = prog("convt_signal_1d", "1-D upsampling of a signal: conv_transpose with stride 3, pads per side "
             "[0, 2] (asymmetric) and output_padding [1], two input channels, one output channel")
    g = np.random.default_rng(8302)
    X = t.let("X", np.round(g.uniform(-1, 1, (2, 2, 5)), 2), F)
    W = t.let("W", np.round(g.uniform(-1, 1, (2, 1, 4)), 2), F)
    t.raw("let Y = conv_transpose(X, W, [0.5], [3], [0, 2], [1]);")
    t.check("Y", conv_transpose_ref(X, W, np.array([0.5]), [3], [0, 2], [1]), F)
    t.write()


def convt_volume_3d():
    t = prog("convt_volume_3d", "a 3-D conv_transpose with strides [1, 2, 2], no pads, output_padding [0, 1, 1], "
             "then average_pool 2x2x2 stride 2 back down")
    g = np.random.default_rng(8303)
    X = t.let("X", np.round(g.uniform(-1, 1, (1, 1, 2, 2, 2)), 2), F)
    W = t.let("W", np.round(g.uniform(-1, 1, (1, 2, 2, 2, 2)), 2), F)
    t.raw("let V = conv_transpose(X, W, [], [1, 2, 2], [], [0, 1, 1]);",
          "let P = average_pool(V, [2, 2, 2], [2, 2, 2], []);")
    V = conv_transpose_ref(X, W, np.zeros(2), [1, 2, 2], [0, 0, 0, 0, 0, 0], [0, 1, 1])
    t.check("shape(V)", np.array(V.shape), "i32")
    t.check("V", V, F)
    t.check("P", A.pool(V, [2, 2, 2], [2, 2, 2], [], "avg"), F)
    t.write()


# ---- resize in image pipelines ----------------------------------------------------------------

def laplacian_level():
    t = prog("laplacian_level", "one level of a Laplacian pyramid: the image resized by 0.5 (linear), back up "
             "by 2 (linear), the detail = image - blurred, and its energy")
    g = np.random.default_rng(8401)
    X = t.let("X", np.round(g.uniform(0, 1, (1, 1, 6, 6)), 2), F)
    t.raw("let small = resize(X, [1.0, 1.0, 0.5, 0.5], \"linear\");",
          "let up = resize(small, [1.0, 1.0, 2.0, 2.0], \"linear\");",
          "let detail = X - up;",
          "let energy = sum[n, c, i, j](detail[n, c, i, j] * detail[n, c, i, j]);")
    small = A.resize(X, [1, 1, 0.5, 0.5], "linear")
    up = A.resize(small, [1, 1, 2, 2], "linear")
    t.check("small", small, F)
    t.check("up", up, F)
    t.check("energy", ((X - up) ** 2).sum(), F)
    t.write()


def upsample_segment():
    t = prog("upsample_segment", "segmentation logits [1, 3, 2, 3] upsampled by 2 (nearest, ONNX Upsample), "
             "the class of each pixel by argmax over the channel axis, and the pixel count per class by onehot")
    g = np.random.default_rng(8402)
    Z = t.let("Z", np.round(g.uniform(-1, 1, (1, 3, 2, 3)), 2), F)
    t.raw("let U = upsample(Z, [1.0, 1.0, 2.0, 2.0], \"nearest\");",
          "let cls = std::array::argmax_axis(U[0], 0);",
          "let oh = onehot(cls, 3, [0.0, 1.0]);",
          "let counts[k] = sum[i, j](oh[i, j, k]);")
    U = A.resize(Z, [1, 1, 2, 2], "nearest", asym=True)
    cls = U[0].argmax(0)
    t.check("U", U, F)
    t.check("cls", cls, "i32")
    t.check("counts", np.array([(cls == k).sum() for k in range(3)], float), "f32")
    t.write()


def cubic_then_pool():
    t = prog("cubic_then_pool", "a 1-D signal [1, 1, 8] resized by 1.5 with cubic interpolation, then "
             "max_pool 3 stride 2 with pads [1, 1], and a 2-D image resized by [1, 1, 2, 0.5]")
    g = np.random.default_rng(8403)
    s = t.let("s", np.round(g.uniform(-1, 1, (1, 1, 8)), 2), F)
    im = t.let("im", np.round(g.uniform(0, 1, (1, 1, 3, 4)), 2), F)
    t.raw("let r = resize(s, [1.0, 1.0, 1.5], \"cubic\");",
          "let p = max_pool(r, [3], [2], [1, 1]);",
          "let q = resize(im, [1.0, 1.0, 2.0, 0.5], \"linear\");")
    r = A.resize(s, [1, 1, 1.5], "cubic")
    t.check("r", r, F)
    t.check("p", A.pool(r, [3], [2], [1, 1], "max"), F)
    t.check("q", A.resize(im, [1, 1, 2, 0.5], "linear"), F)
    t.write()


# ---- numerics ----------------------------------------------------------------------------------

def ode_orders():
    t = prog("ode_orders", "Euler, midpoint and RK4 on u' = -k u against exp(-k t): the final errors at two "
             "step sizes and the observed orders log2(e(dt) / e(dt / 2)); one step of each by the *_step "
             "functions inside a user recurrence", uses=["std::numerics::*"])
    t.raw("let k = 1.3;",
          "let e1 = euler_decay(1.0, k, 0.1, 10);",
          "let e2 = euler_decay(1.0, k, 0.05, 20);",
          "let m1 = midpoint_decay(1.0, k, 0.1, 10);",
          "let m2 = midpoint_decay(1.0, k, 0.05, 20);",
          "let r1 = rk4_decay(1.0, k, 0.1, 10);",
          "let r2 = rk4_decay(1.0, k, 0.05, 20);",
          "let ex = std::math::exp(-k);",
          "fn order(a, b, ex) { std::math::log2(std::math::abs(a - ex) / std::math::abs(b - ex)) }",
          "let orders = [order(e1[10], e2[20], ex), order(m1[10], m2[20], ex), order(r1[10], r2[20], ex)];",
          "let u[0] = 1.0;",
          "let u[t in 1..11] = rk4_decay_step(midpoint_decay_step(euler_decay_step(u[t - 1], k, 0.01), k, 0.01), k, 0.01);")
    k = 1.3

    def run(step, dt, n):
        u = [1.0]
        for _ in range(n):
            u.append(step(u[-1], dt))
        return np.array(u)
    eu = lambda u, dt: u - dt * k * u
    mid = lambda u, dt: u - dt * k * (u - 0.5 * dt * k * u)

    def rk(u, dt):
        k1 = -k * u
        k2 = -k * (u + 0.5 * dt * k1)
        k3 = -k * (u + 0.5 * dt * k2)
        k4 = -k * (u + dt * k3)
        return u + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    ex = np.exp(-k)
    e1, e2 = run(eu, 0.1, 10), run(eu, 0.05, 20)
    m1, m2 = run(mid, 0.1, 10), run(mid, 0.05, 20)
    r1, r2 = run(rk, 0.1, 10), run(rk, 0.05, 20)
    o = [np.log2(abs(a[-1] - ex) / abs(b[-1] - ex)) for a, b in ((e1, e2), (m1, m2), (r1, r2))]
    t.check("e2", e2, F)
    t.check("r1", r1, F)
    t.check("orders", np.array(o), F)
    t.check("u", run(lambda u, dt: rk(mid(eu(u, dt), dt), dt), 0.01, 10), F)
    t.write()


def oscillator():
    t = prog("oscillator", "explicit Euler on the harmonic oscillator u' = A u, A = [[0, 1], [-w^2, 0]], embedded "
             "in a 3-component state whose last component stays put (n = 2 of 3), the energy growth per step, "
             "and one euler_linear_step applied by hand", uses=["std::numerics::*"])
    t.raw("let A: [f64; 3, 3] = [[0.0, 1.0, 0.0], [-4.0, 0.0, 0.0], [0.0, 0.0, 0.0]];",
          "let u0: [f64; 3] = [1.0, 0.0, 7.0];",
          "let P = euler_linear(u0, A, 0.05, 40, 2);",
          "let E[t in 0..41] = 4.0 * P[t, 0] * P[t, 0] + P[t, 1] * P[t, 1];",
          "let growth = E[40] / E[0];",
          "let one = euler_linear_step(u0, A, 0.05, 2);")
    Am = np.array([[0.0, 1.0], [-4.0, 0.0]])
    u = np.array([1.0, 0.0])
    P = [u]
    for _ in range(40):
        u = u + 0.05 * Am @ u
        P.append(u)
    P = np.array(P)
    E = 4 * P[:, 0] ** 2 + P[:, 1] ** 2
    t.check("P[40]", P[40], F)
    t.check("growth", E[40] / E[0], F)
    t.check("one", np.array([1.0, 0.0]) + 0.05 * Am @ np.array([1.0, 0.0]), F)
    t.write()


def descent_2d():
    t = prog("descent_2d", "gradient descent on f(x) = x'Ax/2 - b'x in 2-D: gradient_descent_2d from 0 and "
             "gradient_descent_2d_from a start, the same steps by gradient_descent_step_2d in a user recurrence, "
             "quadratic_value_2d along the path, the residual norm at the end, and the exact minimiser by solve",
             uses=["std::numerics::*", "std::ml::solve"])
    t.raw("let A: [f64; 2, 2] = [[3.0, 0.5], [0.5, 1.0]];",
          "let b: [f64; 2] = [1.0, -2.0];",
          "let x0: [f64; 2] = [2.0, 2.0];",
          "let P = gradient_descent_2d(A, b, 0.3, 25);",
          "let Q = gradient_descent_2d_from(x0, A, b, 0.3, 25);",
          "let X[0, d in 0..2] = x0[d];",
          "let X[t in 1..26, d in 0..2] = gradient_descent_step_2d(X[t - 1], A, b, 0.3)[d];",
          "let f[t in 0..26] = quadratic_value_2d(Q[t], A, b);",
          "let res = quadratic_residual_norm_2d(Q[25], A, b);",
          "let xs = solve(A, b);",
          "let g = quadratic_gradient_2d(xs, A, b);")
    Am = np.array([[3.0, 0.5], [0.5, 1.0]])
    b = np.array([1.0, -2.0])

    def path(x):
        out = [x]
        for _ in range(25):
            x = x - 0.3 * (Am @ x - b)
            out.append(x)
        return np.array(out)
    P, Q = path(np.zeros(2)), path(np.array([2.0, 2.0]))
    t.check("P[25]", P[25], F)
    t.check("Q[25]", Q[25], F)
    t.check("X[25]", Q[25], F)
    t.check("f", np.array([0.5 * q @ Am @ q - b @ q for q in Q]), F)
    t.check("res", np.linalg.norm(Am @ Q[25] - b), F)
    t.check("xs", np.linalg.solve(Am, b), F)
    t.write()


def line_fit():
    t = prog("line_fit", "least_squares_slope_intercept on the first n points of noisy data for growing n "
             "(a comprehension of calls), and the residuals of the full fit", uses=["std::numerics::*"])
    g = np.random.default_rng(8501)
    x = np.round(np.linspace(0, 4, 9), 2)
    y = np.round(1.5 * x - 0.7 + g.normal(0, 0.2, 9), 2)
    t.let("x", x, F)
    t.let("y", y, F)
    t.raw("let fits = [least_squares_slope_intercept(x, y, n) | n in 3..10];",
          "let full = least_squares_slope_intercept(x, y, 9);",
          "let r[i] = y[i] - (full[0] * x[i] + full[1]);")
    fits = [np.polyfit(x[:n], y[:n], 1) for n in range(3, 10)]
    t.check("fits", np.array(fits), F)
    s, c = np.polyfit(x, y, 1)
    t.check("r", y - (s * x + c), F)
    t.write()


# ---- reinforcement learning -------------------------------------------------------------------

def rl_chain():
    t = prog("rl_chain", "a 4-state Markov reward process: value_iteration over 30 sweeps, the Bellman residual "
             "of each sweep (a comprehension), expected_value_at_state, one bellman_step by hand on the first 3 "
             "states, and the exact values by solve((I - beta P') V = r)", uses=["std::numerics::*", "std::ml::solve"])
    P = np.array([[0.5, 0.2, 0.0, 0.1], [0.3, 0.5, 0.4, 0.0], [0.2, 0.2, 0.5, 0.4], [0.0, 0.1, 0.1, 0.5]])
    r = np.array([1.0, 0.0, -0.5, 2.0])
    t.let("P", P, F)
    t.let("r", r, F)
    t.raw("let V = value_iteration(r, P, 0.9, 4, 30);",
          "let res = [bellman_residual(V[k], r, P, 0.9, 4) | k in 0..31];",
          "let ev = expected_value_at_state(V[30], P, 2, 4);",
          "let b3 = bellman_step(V[30], r, P, 0.9, 3);",
          "let M[i in 0..4, j in 0..4] = (if i == j { 1.0 } else { 0.0 }) - 0.9 * P[j, i];",
          "let Vx = solve(M, r);")
    V = [np.zeros(4)]
    for _ in range(30):
        V.append(r + 0.9 * P.T @ V[-1])
    V = np.array(V)
    t.check("V[30]", V[30], F)
    t.check("res", np.array([np.max(np.abs(r + 0.9 * P.T @ v - v)) for v in V]), F)
    t.check("ev", P[:, 2] @ V[30], F)
    t.check("b3", r[:3] + 0.9 * P[:3, :3].T @ V[30][:3], F)
    t.check("Vx", np.linalg.solve(np.eye(4) - 0.9 * P.T, r), F)
    t.write()


def rl_episodes():
    t = prog("rl_episodes", "discounted returns of 3 recorded episodes (rows of a matrix, each with its own "
             "length n), returns_to_go of each, and a Monte Carlo value estimate per first state",
             uses=["std::numerics::*"])
    Rw = np.array([[1.0, 0.0, 0.0, 2.0, 1.0], [0.0, 0.0, 1.0, 0.0, 0.0], [3.0, -1.0, 0.5, 0.0, 0.0]])
    ns = [5, 3, 3]
    t.let("Rw", Rw, F)
    t.raw("let ns = [5, 3, 3];",
          "let G = [discounted_return(Rw[e], 0.95, ns[e]) | e in 0..3];",
          "let T0 = returns_to_go(Rw[0], 0.95);",
          "let T2 = returns_to_go(Rw[2], 0.5);",
          "let first = [0, 1, 0];",
          "let mc[s in 0..2] = sum[e in 0..3](if first[e] == s { G[e] } else { 0.0 }) / "
          "sum[e in 0..3](if first[e] == s { 1.0 } else { 0.0 });")
    G = np.array([sum(Rw[e, t] * 0.95 ** t for t in range(ns[e])) for e in range(3)])

    def rtg(rw, gm):
        out = np.zeros_like(rw)
        acc = 0.0
        for i in range(len(rw) - 1, -1, -1):
            acc = rw[i] + gm * acc
            out[i] = acc
        return out
    t.check("G", G, F)
    t.check("T0", rtg(Rw[0], 0.95), F)
    t.check("T2", rtg(Rw[2], 0.5), F)
    t.check("mc", np.array([(G[0] + G[2]) / 2, G[1]]), F)
    t.write()


def mdp_policy():
    t = prog("mdp_policy", "a 3-state, 2-action decision process: value_iteration_mdp, one more bellman_step_mdp "
             "(converged: unchanged to 1e-6), and greedy_policy", uses=["std::numerics::*"])
    Rm = np.array([[0.0, 1.0], [2.0, -1.0], [0.5, 0.5]])
    Pm = np.array([[[0.9, 0.1, 0.0], [0.0, 0.5, 0.5]], [[0.2, 0.8, 0.0], [0.0, 0.0, 1.0]],
                   [[0.3, 0.3, 0.4], [1.0, 0.0, 0.0]]])
    t.let("Rm", Rm, F)
    t.let("Pm", Pm, F)
    t.raw("let V = value_iteration_mdp(Rm, Pm, 0.8, 80);",
          "let V2 = bellman_step_mdp(V, Rm, Pm, 0.8);",
          "let pi = greedy_policy(V, Rm, Pm, 0.8);",
          "let moved = max[s](std::math::abs(V2[s] - V[s])) < 0.000001;")
    V = np.zeros(3)
    for _ in range(80):
        V = (Rm + 0.8 * np.einsum("sat,t->sa", Pm, V)).max(1)
    Q = Rm + 0.8 * np.einsum("sat,t->sa", Pm, V)
    t.check("V", V, F)
    t.check("pi", Q.argmax(1), "i32")
    t.check_text("moved", "true")
    t.write()


def generate():
    for f in (q_mlp, q_conv_net, qmatmul_chain, q_uint8, rnn_relu_bidir, lstm_classify, gru_lbr_reverse,
              lstm_clip_bidir, convt_decoder_2d, convt_signal_1d, convt_volume_3d, laplacian_level,
              upsample_segment, cubic_then_pool, ode_orders, oscillator, descent_2d, line_fit, rl_chain,
              rl_episodes, mdp_policy):
        f()

