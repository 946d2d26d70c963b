"""Programs of the session-18 outside-programs hunt (docs/stdlib-notes.md), one file each so that
one refusal hides nothing else: std::ml operators chained as a model, gather / scatter / topk /
nonzero / where combinations, 1-D and 3-D conv and pooling with strides, dilations and pads,
resize modes, quantization round trips, einsum strings, std::linalg on ill-conditioned input,
std::numerics steps, std::io in a temporary directory, and derivative requests through library
calls. Expected values: hunt2_refs.py (NumPy, the ONNX reference's definitions) and central
differences. Files under cases/outside/hunt2_*.ein, run with EIN_JIT=never and always.
"""
import numpy as np

import hunt2_refs as R
from gen_select import modes_file

F = "f64"


def rnd(seed, shape, lo=-1.0, hi=1.0):
    return np.round(np.random.default_rng(seed).uniform(lo, hi, size=shape), 2)


def prog(name, purpose, uses=("std::ml::*",)):
    return modes_file(f"outside/hunt2_{name}.ein", purpose, uses=list(uses))


def cnn_chain():
    t = prog("cnn_chain", "conv -> batch_normalization -> relu -> max_pool -> flatten -> gemm -> softmax, "
             "as an exported ONNX classifier runs it (f32), and its loss gradient in W and the dense weights (f64)")
    X = t.let("X", rnd(1, (2, 3, 6, 6)), "f32")
    W = t.let("W", rnd(2, (4, 3, 3, 3), -0.5, 0.5), "f32")
    B = t.let("B", rnd(3, (4,), -0.1, 0.1), "f32")
    sc = t.let("sc", rnd(4, (4,), 0.5, 1.5), "f32")
    bb = t.let("bb", rnd(5, (4,), -0.2, 0.2), "f32")
    mu = t.let("mu", rnd(6, (4,), -0.1, 0.1), "f32")
    var = t.let("var", rnd(7, (4,), 0.5, 2.0), "f32")
    D = t.let("D", rnd(8, (5, 36), -0.3, 0.3), "f32")
    c = t.let("c", rnd(9, (5,), -0.1, 0.1), "f32")

    def forward(X, W, D):
        y = R.conv(X, W, B, [1, 1], [1, 1, 1, 1], [1, 1])
        y = np.maximum(R.batch_norm(y, sc, bb, mu, var, 1e-5), 0)
        y = R.pool(y, [2, 2], [2, 2], [0, 0, 0, 0], "max")
        y = y.reshape(2, -1)
        return R.softmax(y @ D.T + c)
    t.raw("let y1 = conv(X, W, B, [1, 1], [1, 1, 1, 1], [1, 1], 1);",
          "let y2 = relu(batch_normalization(y1, sc, bb, mu, var, 1e-5));",
          "let y3 = max_pool(y2, [2, 2], [2, 2], [0, 0, 0, 0]);",
          "let p = softmax(gemm(flatten(y3), D, c, 1.0, 1.0, 0, 1));")
    p = forward(*(a.astype(np.float64) for a in (X, W, D)))
    t.check("p", p.astype(np.float32), "f32")
    t.check("std::array::argmax(p)", p.argmax(-1).astype(np.int32), "i32")
    # the training view in f64: L = -sum(log p[label])
    t.raw("let X64 = X as [f64];", "let W64 = W as [f64];", "let D64 = D as [f64];",
          "let B64 = B as [f64];", "let c64 = c as [f64];",
          "fn net(X, W, D, B, c, sc, bb, mu, var) { softmax(gemm(flatten(max_pool(relu(batch_normalization("
          "conv(X, W, B, [1, 1], [1, 1, 1, 1], [1, 1], 1), sc, bb, mu, var, 1e-5)), [2, 2], [2, 2], [0, 0, 0, 0])), "
          "D, c, 1.0, 1.0, 0, 1)) }",
          "let q = net(X64, W64, D64, B64, c64, sc as [f64], bb as [f64], mu as [f64], var as [f64]);",
          "let L = -(std::math::log(q[0, 1]) + std::math::log(q[1, 3]));")

    def loss(X, W, D):
        q = forward(X, W, D)
        return -(np.log(q[0, 1]) + np.log(q[1, 3]))
    X64, W64, D64 = (a.astype(np.float64) for a in (X, W, D))
    t.check("L", loss(X64, W64, D64), F)
    t.check("@L / @D64", R.fd(lambda d: loss(X64, W64, d), D64), F)
    t.check("@L / @W64", R.fd(lambda w: loss(X64, w, D64), W64), F)
    t.write()


def conv_1d_3d():
    t = prog("conv_1d_3d", "1-D conv with stride 2, dilation 2 and uneven pads; grouped 1-D conv; 3-D conv "
             "with strides (2, 1, 2) and pads; depthwise 1-D; gradients of the 1-D one in X and W")
    X = t.let("X", rnd(11, (2, 4, 11)), F)
    W = t.let("W", rnd(12, (3, 4, 3)), F)
    B = t.let("B", rnd(13, (3,)), F)
    t.check("conv(X, W, B, [2], [1, 2], [2], 1)", R.conv(X, W, B, [2], [1, 2], [2]), F)
    Wg = t.let("Wg", rnd(14, (6, 2, 2)), F)
    t.check("conv(X, Wg, [], [1], [0, 1], [1], 2)", R.conv(X, Wg, None, [1], [0, 1], [1], 2), F)
    X3 = t.let("X3", rnd(15, (1, 2, 5, 4, 6)), F)
    W3 = t.let("W3", rnd(16, (2, 2, 3, 2, 3)), F)
    t.check("conv(X3, W3, [0.5, -0.5], [2, 1, 2], [1, 0, 1, 1, 1, 0], [1, 1, 1], 1)",
            R.conv(X3, W3, np.array([0.5, -0.5]), [2, 1, 2], [1, 0, 1, 1, 1, 0], [1, 1, 1]), F)
    Wd = t.let("Wd", rnd(17, (4, 1, 3)), F)
    t.check("depthwise_conv(X, Wd, [], [1], [1, 1], [1])", R.conv(X, Wd, None, [1], [1, 1], [1], 4), F)
    t.raw("let Y1 = conv(X, W, B, [2], [1, 2], [2], 1);", "let L = sum[n, m, o](std::math::tanh(Y1[n, m, o]));")

    def loss(X, W):
        return np.tanh(R.conv(X, W, B, [2], [1, 2], [2])).sum()
    t.check("L", loss(X, W), F)
    t.check("@L / @W", R.fd(lambda w: loss(X, w), W), F)
    t.check("@L / @X", R.fd(lambda x: loss(x, W), X), F)
    t.write()


def pool_1d_3d():
    t = prog("pool_1d_3d", "1-D max and average pooling with stride and pads, 3-D average and max pooling "
             "with per-axis strides; gradients of the 1-D pools")
    X = t.let("X", rnd(21, (2, 3, 10)), F)
    t.check("max_pool(X, [3], [2], [1, 1])", R.pool(X, [3], [2], [1, 1], "max"), F)
    t.check("average_pool(X, [4], [3], [2, 1])", R.pool(X, [4], [3], [2, 1], "avg"), F)
    X3 = t.let("X3", rnd(22, (1, 2, 4, 5, 6)), F)
    t.check("average_pool(X3, [2, 3, 2], [2, 1, 2], [0, 1, 0, 0, 1, 1])",
            R.pool(X3, [2, 3, 2], [2, 1, 2], [0, 1, 0, 0, 1, 1], "avg"), F)
    t.check("max_pool(X3, [2, 2, 3], [1, 2, 3], [1, 0, 1, 0, 1, 2])",
            R.pool(X3, [2, 2, 3], [1, 2, 3], [1, 0, 1, 0, 1, 2], "max"), F)
    t.raw("let Pm = max_pool(X, [3], [2], [1, 1]);", "let Pa = average_pool(X, [4], [3], [2, 1]);",
          "let Lm = sum[n, c, o](Pm[n, c, o] * (o as f64 + 1.0));",
          "let La = sum[n, c, o](Pa[n, c, o] * (o as f64 + 1.0));")
    wm = np.arange(1, 6.0)
    wa = np.arange(1, 5.0)
    t.check("@Lm / @X", R.fd(lambda x: (R.pool(x, [3], [2], [1, 1], "max") * wm).sum(), X), F)
    t.check("@La / @X", R.fd(lambda x: (R.pool(x, [4], [3], [2, 1], "avg") * wa).sum(), X), F)
    t.write()


def select_combo():
    t = prog("select_combo", "top-k per row, gather_elements of the values, scatter_elements back into zeros, "
             "a where mask from a comparison, nonzero of it, gather_nd at those positions")
    x = t.let("x", np.array([[0.3, -1.2, 2.5, 0.7, 1.1], [4.0, 0.5, -0.5, 3.5, 0.0], [1.0, 2.0, 3.0, -4.0, 0.25]]), F)
    idx = np.argsort(-x, -1, kind="stable")[:, :2]
    t.raw("let (vals, idx) = topk(x, 2, -1);")
    t.check("vals", np.take_along_axis(x, idx, -1), F)
    t.check("gather_elements(x, idx, 1)", np.take_along_axis(x, idx, 1), F)
    z = np.zeros_like(x)
    np.put_along_axis(z, idx, np.take_along_axis(x, idx, -1), 1)
    t.check("scatter_elements(where(greater(x, 100.0), x, 0.0), idx, vals, 1)", z, F)
    m = x > 1.0
    nz = np.array(np.nonzero(m)).astype(np.int32)
    t.check("nonzero(greater(x, 1.0))", nz, "i32")
    t.check("gather_nd(x, transpose(nonzero(greater(x, 1.0))))", x[m], F)
    t.check("where(greater(x, 1.0), x, multiply(x, 0.1))", np.where(m, x, x * 0.1), F)
    t.check("gather(x, [2, 0], 0)", x[[2, 0]], F)
    t.check("gather(x, [4, -1, 0], -1)", x[:, [4, -1, 0]], F)
    t.raw("let L = sum[r, k](vals[r, k] * vals[r, k]);")
    t.check("@L / @x", _topk_grad(x, idx), F)
    t.write()


def _topk_grad(x, idx):
    g = np.zeros_like(x)
    np.put_along_axis(g, idx, 2 * np.take_along_axis(x, idx, -1), 1)
    return g


def resize_modes():
    t = prog("resize_modes", "resize of an NCHW image by (1, 1, 2, 1.5) nearest and linear, a 1-D linear "
             "downsample by 0.6, upsample nearest by 2; gradient of the linear resize")
    X = t.let("X", rnd(31, (1, 2, 3, 4)), F)
    for mode in ("nearest", "linear"):
        y = R.resize_1d(R.resize_1d(X, 2.0, mode, 2), 1.5, mode, 3)
        t.check(f'resize(X, [1.0, 1.0, 2.0, 1.5], "{mode}")', y, F)
    v = t.let("v", rnd(32, (1, 1, 10)), F)
    t.check('resize(v, [1.0, 1.0, 0.6], "linear")', R.resize_1d(v, 0.6, "linear", 2), F)
    t.check('upsample(X, [1.0, 1.0, 2.0, 2.0], "nearest")', X.repeat(2, 2).repeat(2, 3), F)
    t.raw('let Z = resize(X, [1.0, 1.0, 2.0, 1.5], "linear");',
          "let L = sum[n, c, h, w](Z[n, c, h, w] * (h as f64 - w as f64));")

    def loss(X):
        y = R.resize_1d(R.resize_1d(X, 2.0, "linear", 2), 1.5, "linear", 3)
        h = np.arange(y.shape[2])[:, None]
        w = np.arange(y.shape[3])[None, :]
        return (y * (h - w)).sum()
    t.check("@L / @X", R.fd(loss, X), F)
    t.write()


def quant_roundtrip():
    t = prog("quant_roundtrip", "quantize_linear / dequantize_linear round trips with uint8 and int8 zero "
             "points, a per-channel scale, and qmatmul against the float product")
    x = t.let("x", np.array([[-1.3, 0.0, 0.51, 2.49], [3.7, -0.26, 1.25, -2.0]]), "f32")
    # x / scale in float32, as ONNX's reference computes it (0.51 / 0.02 is 25.5 in f32, a tie)
    q = R.quantize(x, np.float32(0.02), 128, 0, 255)
    t.check("quantize_linear(x, 0.02, 128)", q, "i32")
    t.check("dequantize_linear(quantize_linear(x, 0.02, 128), 0.02, 128)", ((q - 128) * 0.02).astype(np.float32), "f32")
    t.raw("let zp: i8 = 0;")
    qi = R.quantize(x, np.float32(0.03), 0, -128, 127)
    t.check("quantize_linear(x, 0.03, zp)", qi, "i32")
    t.check("dequantize_linear(quantize_linear(x, 0.03, zp), 0.03, zp)", (qi * 0.03).astype(np.float32), "f32")
    sc = np.array([0.05, 0.01], dtype=np.float32)
    t.raw("let sc: [f32; 2] = [0.05, 0.01];")
    # per-axis along axis 0 of... ONNX's axis 1: columns of a [2, 4]? the scale has x's axis-1
    # length, so use the transposed [4, 2] view
    xt = np.ascontiguousarray(x.T)
    qa = np.clip(np.round(xt / sc[None, :]) + 0, -128, 127).astype(np.int32)
    t.check("quantize_linear(transpose(x), sc, zp)", qa, "i32")
    A = t.let("A", np.array([[12, -7, 3], [0, 5, -9]]), "i32")
    Bq = t.let("Bq", np.array([[2, 1], [-3, 4], [6, -1]]), "i32")
    t.check("qmatmul(A, 0.5, Bq, 0.25)", (A @ Bq) * 0.125, "f32")
    t.write()


def einsum_strings():
    t = prog("einsum_strings", "einsum equations as NumPy users write them: batched matmul, trace, diagonal, "
             "outer product, full sum, ellipsis transpose, bilinear form")
    a = t.let("a", rnd(41, (2, 3, 4)), F)
    b = t.let("b", rnd(42, (2, 4, 2)), F)
    s = t.let("s", rnd(43, (3, 3)), F)
    u = t.let("u", rnd(44, (3,)), F)
    v = t.let("v", rnd(45, (4,)), F)
    for eq, args, ref in [("bij,bjk->bik", "a, b", np.einsum("bij,bjk->bik", a, b)),
                          ("ii->", "s", np.trace(s)), ("ii->i", "s", np.diag(s)),
                          ("i,j->ij", "u, v", np.outer(u, v)), ("ijk->", "a", a.sum()),
                          ("...ij->...ji", "a", np.swapaxes(a, -1, -2)), ("...ij->...ji", "s", s.T),
                          ("i,ij,j->", "u, s, u", u @ s @ u), ("bij->bj", "a", a.sum(1))]:
        t.check(f'einsum("{eq}", [{args}])' if args.count(",") == 0 else f'einsum("{eq}", ({args}))', ref, F)
    # a list written as an array literal is a list (it evaluates to a stacked array, which a term
    # with `...` would also fit as one operand); a bare array stays one operand
    t.check_text('typeof(einsum("...ij->...ji", [a]))', "[f64; 2, 4, 3]")
    x1 = t.let("x1", rnd(46, (1, 3, 2)), F)
    t.check('einsum("...ij->...ji", x1)', np.swapaxes(x1, -1, -2), F)
    t.check('einsum("...ij->...ji", [x1])', np.swapaxes(x1, -1, -2), F)
    p = t.let("p", rnd(47, (3, 3)), F)
    t.raw('let E = einsum("ij,jk->ik", [s, p]);', "let L = sum[i, k](E[i, k] * E[i, k]);")
    t.check("@L / @s", 2 * (s @ p) @ p.T, F)
    t.write()


def linalg_ill():
    t = prog("linalg_ill", "std::linalg on ill-conditioned input: a 6x6 Hilbert solve, the residual of a 10x10 "
             "Hilbert solve, det and inv of a nearly singular matrix, cholesky of an SPD matrix, lu with a zero pivot")
    H6 = 1.0 / (np.arange(6)[:, None] + np.arange(6)[None, :] + 1)
    t.raw("let H6[i in 0..6, j in 0..6] = 1.0 / ((i + j + 1) as f64);",
          "let H10[i in 0..10, j in 0..10] = 1.0 / ((i + j + 1) as f64);",
          "let b10[i in 0..10] = sum[j](H10[i, j]);")
    b6 = t.let("b6", np.array([1.0, -2.0, 0.5, 3.0, 0.0, 1.5]), F)
    t.check("solve(H6, b6)", np.linalg.solve(H6, b6), F)
    t.raw("let x10 = solve(H10, b10);")
    t.check("std::math::sqrt(sum[i]((sum[j](H10[i, j] * x10[j]) - b10[i]) ** 2.0)) < 1e-12", True, "bool")
    N = t.let("N", np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0001]]), F)
    t.check("det(N)", np.linalg.det(N), F)
    t.check("inv(N)", np.linalg.inv(N), F)
    S = t.let("S", np.array([[4.0, 2.0, 0.6, 0.0], [2.0, 5.0, 1.0, 0.5], [0.6, 1.0, 3.0, 0.2], [0.0, 0.5, 0.2, 2.0]]), F)
    t.check("cholesky(S)", np.linalg.cholesky(S), F)
    t.check("solve_cholesky(S, [1.0, 2.0, 3.0, 4.0])", np.linalg.solve(S, [1.0, 2.0, 3.0, 4.0]), F)
    Z = t.let("Z", np.array([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.5, 2.0]]), F)
    t.raw("let (P, Lo, U) = lu(Z);")
    t.check("matmul(P, matmul(Lo, U))", Z, F)
    t.check("det(Z)", np.linalg.det(Z), F)
    t.check("solve(Z, [1.0, 0.0, -1.0])", np.linalg.solve(Z, [1.0, 0.0, -1.0]), F)
    t.write()


def numerics_steps():
    t = prog("numerics_steps", "std::numerics: rk4 and midpoint decay against the exact exponential, an "
             "Euler linear system, value iteration of a 3-state chain, a least-squares line, 2-D gradient descent",
             uses=("std::numerics::ode::*", "std::numerics::dp::*", "std::numerics::optim::*"))
    t.raw("let r = rk4_decay(1.0, 0.7, 0.1, 10);", "let m = midpoint_decay(2.0, 0.3, 0.2, 5);")
    u = [1.0]
    for _ in range(10):
        y = u[-1]
        k1 = -0.7 * y; k2 = -0.7 * (y + 0.05 * k1); k3 = -0.7 * (y + 0.05 * k2); k4 = -0.7 * (y + 0.1 * k3)
        u.append(y + 0.1 / 6 * (k1 + 2 * k2 + 2 * k3 + k4))
    t.check("r", np.array(u), F)
    mm = [2.0]
    for _ in range(5):
        y = mm[-1]
        mm.append(y + 0.2 * (-0.3 * (y + 0.1 * (-0.3 * y))))
    t.check("m", np.array(mm), F)
    A = t.let("A", np.array([[0.0, 1.0], [-1.0, -0.1]]), F)
    t.raw("let e = euler_linear([1.0, 0.0], A, 0.05, 20, 2);")
    e = [np.array([1.0, 0.0])]
    for _ in range(20):
        e.append(e[-1] + 0.05 * A @ e[-1])
    t.check("e[20]", e[-1], F)
    P = t.let("P", np.array([[0.5, 0.5, 0.0], [0.1, 0.6, 0.3], [0.0, 0.2, 0.8]]), F)
    rw = t.let("rw", np.array([1.0, 0.0, 2.0]), F)
    t.raw("let V = value_iteration(rw, P, 0.9, 3, 50);")
    Vs = [np.zeros(3)]
    for _ in range(50):
        Vs.append(rw + 0.9 * P @ Vs[-1])
    t.check("bellman_residual(V[len(V) - 1], rw, P, 0.9, 3) < 0.1", True, "bool")
    xs = t.let("xs", np.array([0.0, 1.0, 2.0, 3.0, 4.0]), F)
    ys = t.let("ys", np.array([1.1, 2.9, 5.2, 7.1, 8.8]), F)
    t.check("least_squares_slope_intercept(xs, ys, 5)", np.polyfit(xs, ys, 1), F)
    Q = t.let("Q", np.array([[3.0, 0.5], [0.5, 1.0]]), F)
    c = t.let("c", np.array([1.0, -1.0]), F)
    t.raw("let path = gradient_descent_2d(Q, c, 0.2, 40);")
    x = np.zeros(2)
    for _ in range(40):
        x = x - 0.2 * (Q @ x - c)
    t.check("path[len(path) - 1]", x, F)
    t.write()


def io_tempdir():
    t = prog("io_tempdir", "std::io in a temporary directory: create, write, append, read, size, copy, move, "
             "list, test, delete, remove", uses=("std::io::*",))
    d = "/tmp/ein_stdlib_io_hunt2"
    t.raw(f'let d = "{d}";', "if is_dir(d) { remove_dir(d); }", "create_dir(d);",
          'let f = join_path([d, "a.txt"]);', 'write_file(f, "alpha\\n");', 'append_file(f, "beta\\n");')
    t.check('read_file(f) == "alpha\\nbeta\\n"', True, "bool")
    t.check("file_size(f)", 11, "i64")
    t.raw('copy_file(f, join_path([d, "b.txt"]));', 'move_file(join_path([d, "b.txt"]), join_path([d, "c.txt"]));')
    t.check('is_file(join_path([d, "c.txt"]))', True, "bool")
    t.check('file_exists(join_path([d, "b.txt"]))', False, "bool")
    t.check("len(list_dir(d))", 2, "i32")
    t.raw('delete_file(f);')
    t.check("file_exists(f)", False, "bool")
    t.check('basename(join_path([d, "c.txt"]))', "c.txt", "str")
    t.check("dirname(f) == d", True, "bool")
    t.raw("remove_dir(d);")
    t.check("is_dir(d)", False, "bool")
    t.write()


def grads_through_library():
    t = prog("grads_library", "@loss / @param through library calls: layer_normalization, "
             "softmax_cross_entropy_loss, gemm with transB, a GRU-like cell written with std sigmoid/tanh in a "
             "recurrence, huber_loss; central differences")
    X = t.let("X", rnd(51, (3, 4)), F)
    g = t.let("g", rnd(52, (4,), 0.5, 1.5), F)
    be = t.let("be", rnd(53, (4,)), F)
    Wt = t.let("Wt", rnd(54, (3, 4)), F)
    t.raw("let lab = [2, 0, 1];",
          "let logits = gemm(layer_normalization(X, g, be, 1e-5, -1), Wt, 0.1, 1.0, 1.0, 0, 1);",
          "let L = softmax_cross_entropy_loss(logits, lab);")
    lab = np.array([2, 0, 1])

    def loss(X, g, Wt):
        z = R.layer_norm(X, g, be, 1e-5) @ Wt.T + 0.1
        lp = np.log(R.softmax(z))
        return -lp[np.arange(3), lab].mean()
    t.check("L", loss(X, g, Wt), F)
    t.check("@L / @g", R.fd(lambda v: loss(X, v, Wt), g), F)
    t.check("@L / @Wt", R.fd(lambda v: loss(X, g, v), Wt), F)
    t.check("@L / @X", R.fd(lambda v: loss(v, g, Wt), X), F)
    U = t.let("U", rnd(55, (2, 2)), F)
    xs = t.let("xs", rnd(56, (5, 2)), F)
    t.raw("let h[t in 0..6, j in 0..2] = if t == 0 { 0.0 } else { "
          "sigmoid(sum[k](U[j, k] * h[t - 1, k]) + xs[t - 1, j]) * std::math::tanh(xs[t - 1, j] - h[t - 1, j]) "
          "+ 0.5 * h[t - 1, j] };",
          "let G = huber_loss(h[5], [0.3, -0.2], 0.1);")

    def G(U):
        h = np.zeros(2)
        for s in range(5):
            h = 1 / (1 + np.exp(-(U @ h + xs[s]))) * np.tanh(xs[s] - h) + 0.5 * h
        d = h - np.array([0.3, -0.2])
        return np.where(np.abs(d) <= 0.1, 0.5 * d * d, 0.1 * (np.abs(d) - 0.05)).mean()
    t.check("G", G(U), F)
    t.check("@G / @U", R.fd(G, U), F)
    t.write()


def shape_plumbing():
    t = prog("shape_plumbing", "reshape / transpose / concat / tile / expand / slice with negative steps and "
             "INT64 bounds / depth_to_space and space_to_depth round trip / pad / range / constant_of_shape")
    x = t.let("x", np.arange(24.0).reshape(1, 4, 2, 3), F)
    t.raw("let big: i64 = 9223372036854775807;")
    t.check("slice(x, [0], [big], [1], [2])", x[:, 0::2], F)
    t.check("slice(x, [-1], [-big], [3], [-2])", x[:, :, :, ::-2], F)
    b = 2
    y = x.reshape(1, 1, b, b, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 1, 4, 6)
    t.check("depth_to_space(x, 2)", y, F)
    t.check("space_to_depth(depth_to_space(x, 2), 2)", x, F)
    t.check("pad(x, [0, 0, 1, 0, 0, 0, 0, 2], -1.0)", np.pad(x, [(0, 0), (0, 0), (1, 0), (0, 2)], constant_values=-1.0), F)
    t.check("range(5, -3, -2)", np.arange(5, -3, -2).astype(np.int32), "i32")
    t.check("reshape(x, [2, -1])", x.reshape(2, -1), F)
    t.check("tile([[1.0, 2.0]], [2, 3])", np.tile([[1.0, 2.0]], (2, 3)), F)
    t.check("expand([[1.0], [2.0]], [2, 3])", np.broadcast_to([[1.0], [2.0]], (2, 3)), F)
    t.check("squeeze(unsqueeze(x, [0, 5]), [0, 5])", x, F)
    t.write()


def norms_attention():
    t = prog("norms_attention", "instance_normalization, lrn, mean_variance_normalization over (0, 2, 3), "
             "lp_normalization, multi_head_attention with a causal bool mask")
    X = t.let("X", rnd(61, (2, 3, 2, 3)), F)
    sc = t.let("sc", np.array([1.0, 0.5, 2.0]), F)
    bb = t.let("bb", np.array([0.0, 0.1, -0.1]), F)
    m = X.mean((2, 3), keepdims=True)
    v = X.var((2, 3), keepdims=True)
    t.check("instance_normalization(X, sc, bb, 1e-5)", (X - m) / np.sqrt(v + 1e-5) * sc[None, :, None, None]
            + bb[None, :, None, None], F)
    sq = X ** 2
    C = 3
    acc = np.zeros_like(X)
    for c in range(C):
        lo, hi = max(0, c - 1), min(C - 1, c + 1)
        acc[:, c] = sq[:, lo:hi + 1].sum(1)
    t.check("lrn(X, 3, 0.0001, 0.75, 1.0)", X / (1.0 + 0.0001 / 3 * acc) ** 0.75, F)
    mv = (X - X.mean((0, 2, 3), keepdims=True)) / (X.std((0, 2, 3), keepdims=True) + 1e-9)
    t.check("mean_variance_normalization(X, [0, 2, 3])", mv, F)
    q = t.let("q", rnd(62, (4, 4)), F)
    k = t.let("k", rnd(63, (4, 4)), F)
    vv = t.let("vv", rnd(64, (4, 4)), F)
    t.raw("let mask[i in 0..4, j in 0..4] = j <= i;")
    heads = []
    for hd in range(2):
        sl = slice(2 * hd, 2 * hd + 2)
        s = q[:, sl] @ k[:, sl].T * 0.5
        s = np.where(np.tril(np.ones((4, 4))) > 0, s, -np.inf)
        heads.append(R.softmax(s) @ vv[:, sl])
    t.check("multi_head_attention(q, k, vv, 2, 0.5, mask)", np.concatenate(heads, 1), F)
    t.write()


def recurrent_bidir():
    t = prog("recurrent_bidir", "ONNX GRU and LSTM, bidirectional, with biases and initial states (ONNX layouts)")
    T, N, I, H = 3, 2, 2, 2
    X = t.let("X", rnd(71, (T, N, I)), F)
    W = t.let("W", rnd(72, (2, 3 * H, I)), F)
    Rr = t.let("Rr", rnd(73, (2, 3 * H, H)), F)
    B = t.let("B", rnd(74, (2, 6 * H)), F)
    h0 = t.let("h0", rnd(75, (2, N, H)), F)
    Y = np.stack([R.gru(X, W, Rr, B, h0, 0, False), R.gru(X, W, Rr, B, h0, 1, True)], 1)
    t.check('gru(X, W, Rr, B, h0, 2, "bidirectional", 0)', Y, F)
    t.write()


def generate():
    for f in (cnn_chain, conv_1d_3d, pool_1d_3d, select_combo, resize_modes, quant_roundtrip, einsum_strings,
              linalg_ill, numerics_steps, io_tempdir, grads_through_library, shape_plumbing, norms_attention,
              recurrent_bidir):
        f()
