"""The eighth outside-programs hunt, second batch (session 23; gen_hunt8.py is the first): the
same ground with the other forms programs pass: a quantized depthwise conv and qlinear over
[B, T, in], recurrent layers in the 2-D weight layout (no direction axis) and hidden_size 0,
conv_transpose with pads once per axis and empty strides, resize with one scale per spatial
axis, the generic numerics (euler / rk4 with user functions and closures, gradient_descent in
3-D), std::io file operations, listing and paths relative to the script, std::array partition and
top-k forms (quickselect by partition), a bandit's incremental means as a recurrence.
NumPy references; files cases/outside/hunt8_*.ein.
"""
import numpy as np

import attrs_ref as A
from common import TestFile
from gen_hunt2 import F
from gen_ml import conv_transpose_ref
from gen_ml_nn import gru_ref, rnn_ref
from gen_hunt8 import F32, prog
def q_depthwise():
    t = prog("q_depthwise", "a quantized depthwise conv (qconv with group = channels, stride 2, pads per axis "
             "[1, 1]) and a qlinear over a batch of sequences [B, T, in] (the layer applied to the last axis)")
    g = np.random.default_rng(8601)
    Xq = t.let("Xq", g.integers(-30, 30, (1, 3, 5, 5)), "i8")
    Wq = t.let("Wq", g.integers(-8, 8, (3, 1, 3, 3)), "i8")
    Sq = t.let("Sq", g.integers(-40, 40, (2, 3, 4)), "i8")
    Lq = t.let("Lq", g.integers(-40, 40, (2, 4)), "i8")
    bl = t.let("bl", [0.25, -0.5], F32).astype(np.float64)
    t.raw("let Y = qconv(Xq, 0.1, Wq, 0.05, [], [2, 2], [1, 1], [], 3);",
          "let Z = qlinear(Sq, 0.02, Lq, 0.03, bl);")
    f = np.float32
    Y = A.conv(Xq.astype(f) * f(0.1), Wq.astype(f) * f(0.05), np.zeros(0), [2, 2], [1, 1], [1, 1], 3)
    t.check("Y", Y.astype(f), F32)
    t.check("Z", ((Sq.astype(f) * f(0.02)) @ (Lq.astype(f) * f(0.03)).T + bl.astype(f)).astype(f), F32)
    t.write()


def rnn_layouts():
    t = prog("rnn_layouts", "recurrent layers in the 2-D weight layout (no direction axis): an RNN with Sigmoid "
             "in reverse, a GRU with hidden_size 0 (taken from R) and initial_h [N, H], and the same GRU in the "
             "3-D layout, whose Y has the direction axis")
    g = np.random.default_rng(8602)
    T, N, I, H = 3, 2, 2, 3
    X = t.let("X", np.round(g.uniform(-1, 1, (T, N, I)), 2), F)
    W = t.let("W", np.round(g.uniform(-0.8, 0.8, (H, I)), 2), F)
    R = t.let("R", np.round(g.uniform(-0.8, 0.8, (H, H)), 2), F)
    Wg = t.let("Wg", np.round(g.uniform(-0.8, 0.8, (3 * H, I)), 2), F)
    Rg = t.let("Rg", np.round(g.uniform(-0.8, 0.8, (3 * H, H)), 2), F)
    Bg = t.let("Bg", np.round(g.uniform(-0.2, 0.2, 6 * H), 2), F)
    h0 = t.let("h0", np.round(g.uniform(-0.5, 0.5, (N, H)), 2), F)
    t.raw("let Yr = rnn(X, W, R, [], [], 3, \"reverse\", \"Sigmoid\");",
          "let Yg = gru(X, Wg, Rg, Bg, h0, 0, \"forward\", 0);",
          "let Wg3 = unsqueeze(Wg, [0]);",
          "let Rg3 = unsqueeze(Rg, [0]);",
          "let Bg3 = unsqueeze(Bg, [0]);",
          "let h03 = unsqueeze(h0, [0]);",
          "let Yg3 = gru(X, Wg3, Rg3, Bg3, h03, 3, \"forward\", 0);")
    Yr = rnn_ref(X[::-1], W, R, np.zeros(2 * H), np.zeros((N, H)), act="Sigmoid")[::-1]
    Yg = gru_ref(X, Wg, Rg, Bg, h0)
    t.check("Yr", Yr, F)
    t.check("Yg", Yg, F)
    t.check("shape(Yg3)", np.array([T, 1, N, H]), "i32")
    t.check("Yg3[2, 0]", Yg[2], F)
    t.write()


def convt_forms():
    t = prog("convt_forms", "conv_transpose with the forms programs pass: pads once per axis ([1] for 1-D), empty "
             "strides and output_padding, a 2-D kernel 2x2 at stride 2 (pixel shuffle-like, no overlap), and "
             "the result's shape from the ONNX formula")
    g = np.random.default_rng(8603)
    x = t.let("x", np.round(g.uniform(-1, 1, (1, 1, 6)), 2), F)
    w = t.let("w", np.round(g.uniform(-1, 1, (1, 2, 3)), 2), F)
    X = t.let("X", np.round(g.uniform(-1, 1, (2, 1, 2, 3)), 2), F)
    W = t.let("W", np.round(g.uniform(-1, 1, (1, 1, 2, 2)), 2), F)
    t.raw("let y = conv_transpose(x, w, [], [], [1], []);",
          "let Y = conv_transpose(X, W, [], [2, 2], [], []);")
    t.check("y", conv_transpose_ref(x, w, np.zeros(0), [1], [1, 1], []), F)
    Y = conv_transpose_ref(X, W, np.zeros(0), [2, 2], [0, 0, 0, 0], [])
    t.check("shape(Y)", np.array(Y.shape), "i32")
    t.check("Y", Y, F)
    t.write()


def resize_spatial_scales():
    t = prog("resize_spatial_scales", "resize and upsample with one scale per spatial axis of [N, C, H, W] "
             "(2 entries), upsample in linear mode, and nearest downsampling of a 1-D signal by 0.5")
    g = np.random.default_rng(8604)
    X = t.let("X", np.round(g.uniform(0, 1, (1, 2, 2, 3)), 2), F)
    s = t.let("s", np.round(g.uniform(-1, 1, (1, 1, 7)), 2), F)
    t.raw("let a = resize(X, [2.0, 1.5], \"nearest\");",
          "let b = upsample(X, [1.0, 1.0, 2.0, 2.0], \"linear\");",
          "let c = resize(s, [1.0, 1.0, 0.5], \"nearest\");")
    t.check("a", A.resize(X, [1, 1, 2.0, 1.5], "nearest"), F)
    t.check("b", A.resize(X, [1, 1, 2, 2], "linear", asym=True), F)
    t.check("c", A.resize(s, [1, 1, 0.5], "nearest"), F)
    t.write()


def generic_numerics():
    t = prog("generic_numerics", "the generic numerics with user functions: euler and rk4 on the logistic "
             "equation u' = u (1 - u) (a closure), gradient_descent_path / gradient_descent / quadratic_value in "
             "3-D with a non-symmetric A", uses=["std::numerics::*"])
    t.raw("fn logistic(u) { u * (1.0 - u) }",
          "let e = euler(logistic, 0.1, 0.5, 8);",
          "let r = rk4(|u| u * (1.0 - u), 0.1, 0.5, 8);",
          "let A: [f64; 3, 3] = [[4.0, 1.0, 0.0], [0.0, 3.0, 1.0], [0.5, 0.0, 2.0]];",
          "let b: [f64; 3] = [1.0, 0.0, -1.0];",
          "let x0: [f64; 3] = [0.0, 1.0, 0.0];",
          "let P = gradient_descent_path(A, b, x0, 0.2, 15);",
          "let x = gradient_descent(A, b, x0, 0.2, 15);",
          "let f = quadratic_value(A, b, x);",
          "let g = quadratic_gradient(A, b, x);")
    f_ = lambda u: u * (1 - u)
    e = [0.1]
    r = [0.1]
    for _ in range(8):
        e.append(e[-1] + 0.5 * f_(e[-1]))
        u = r[-1]
        k1 = f_(u)
        k2 = f_(u + 0.25 * k1)
        k3 = f_(u + 0.25 * k2)
        k4 = f_(u + 0.5 * k3)
        r.append(u + 0.5 / 6 * (k1 + 2 * k2 + 2 * k3 + k4))
    Am = np.array([[4.0, 1.0, 0.0], [0.0, 3.0, 1.0], [0.5, 0.0, 2.0]])
    b = np.array([1.0, 0.0, -1.0])
    x = np.array([0.0, 1.0, 0.0])
    P = [x]
    for _ in range(15):
        x = x - 0.2 * (0.5 * (Am + Am.T) @ x - b)
        P.append(x)
    t.check("e", np.array(e), F)
    t.check("r", np.array(r), F)
    t.check("P[7]", P[7], F)
    t.check("x", x, F)
    t.check("f", 0.5 * x @ Am @ x - b @ x, F)
    t.check("g", 0.5 * (Am + Am.T) @ x - b, F)
    t.write()


def io_listing():
    t = TestFile("outside/hunt8_io_listing.ein", "std::io listing: files written in a fresh directory, list_dir "
                 "(sorted here by the program), split_path / basename / dirname / join_path round trips, "
                 "absolute_path of a relative name, a moved file's size (one mode)", uses=["std::io::*"])
    t.raw("let d = \"/tmp/ein_hunt8_list\";",
          "create_dir(d);",
          "write_file(join_path([d, \"b.txt\"]), \"bb\");",
          "write_file(join_path([d, \"a.txt\"]), \"a\");",
          "write_file(join_path([d, \"c.txt\"]), \"ccc\");",
          "move_file(join_path([d, \"c.txt\"]), join_path([d, \"d.txt\"]));",
          "let names = list_dir(d);",
          "let sizes = [file_size(join_path([d, n])) | n in names];",
          "let total = sum[i](sizes[i]);",
          "let p = join_path([d, \"a.txt\"]);")
    t.check_text("len(names)", "3")
    t.check_text("total", "6")
    t.check_text("basename(p)", "a.txt")
    t.check_text("dirname(p)", "/tmp/ein_hunt8_list")
    t.check_text("join_path(split_path(p)) == p", "true")
    t.check_text("file_exists(join_path([d, \"c.txt\"]))", "false")
    t.check_text("file_size(join_path([d, \"d.txt\"]))", "3")
    t.raw("delete_file(join_path([d, \"a.txt\"]));", "delete_file(join_path([d, \"b.txt\"]));",
          "delete_file(join_path([d, \"d.txt\"]));", "remove_dir(d);")
    t.check_text("is_dir(d)", "false")
    t.write()


def rl_bandit():
    t = prog("rl_bandit", "an epsilon-free bandit value estimate: incremental means of recorded rewards per arm "
             "as a recurrence over steps, the greedy arm by argmax, discounted_return of the reward stream and "
             "returns_to_go of integer rewards with an integer gamma (exact)", uses=["std::numerics::*", "std::ml::argmax"])
    arms = [0, 1, 0, 2, 1, 0, 2, 2]
    rew = [1.0, 0.0, 0.5, 2.0, 1.0, 0.0, 1.5, 1.0]
    t.raw(f"let arm = {arms};",
          "let rew: [f64; 8] = [1.0, 0.0, 0.5, 2.0, 1.0, 0.0, 1.5, 1.0];",
          "let Cn[0, a in 0..3] = 0.0;",
          "let Cn[t in 1..9, a in 0..3] = Cn[t - 1, a] + (if arm[t - 1] == a { 1.0 } else { 0.0 });",
          "let Q[0, a in 0..3] = 0.0;",
          "let Q[t in 1..9, a in 0..3] = if arm[t - 1] == a { Q[t - 1, a] + (rew[t - 1] - Q[t - 1, a]) / Cn[t, a] } else { Q[t - 1, a] };",
          "let best = argmax(Q[8]);",
          "let G = discounted_return(rew, 0.9, 8);",
          "let ri = [1, 0, 2, 3];",
          "let T = returns_to_go(ri, 2);")
    Q = np.zeros(3)
    C = np.zeros(3)
    for a, r_ in zip(arms, rew):
        C[a] += 1
        Q[a] += (r_ - Q[a]) / C[a]
    t.check("Q[8]", Q, F)
    t.check("best", np.array([Q.argmax()]), "i32")
    t.check("G", sum(r_ * 0.9 ** i for i, r_ in enumerate(rew)), F)
    t.check("T", np.array([1 + 2 * (0 + 2 * (2 + 2 * 3)), 0 + 2 * (2 + 2 * 3), 2 + 2 * 3, 3]), "i32")
    t.write()


# ---- std::io -----------------------------------------------------------------------------------

def io_file_ops():
    t = TestFile("outside/hunt8_io_file_ops.ein", "std::io file operations in a temporary directory: create_dir, "
                 "write_file, append_file, copy_file, move_file, file_size, is_file / is_dir / file_exists, "
                 "list_dir, delete_file, remove_dir; a .npy saved, copied and loaded (one mode: both would share "
                 "the files)", uses=["std::io::*"])
    t.raw("let d = \"/tmp/ein_hunt8_io\";",
          "if file_exists(d) { if file_exists(join_path([d, \"b.txt\"])) { delete_file(join_path([d, \"b.txt\"])); } }",
          "create_dir(d);",
          "let a = join_path([d, \"a.txt\"]);",
          "let b = join_path([d, \"b.txt\"]);",
          "let c = join_path([d, \"c.txt\"]);",
          "write_file(a, \"alpha\\n\");",
          "append_file(a, \"beta\\n\");",
          "copy_file(a, b);",
          "move_file(b, c);")
    t.check_text("read_file(c)", "alpha")
    t.lines.append("//> beta")
    t.lines.append("//>")
    t.check_text("file_size(a)", "11")
    t.check_text("[file_exists(b), is_file(c), is_dir(d), is_dir(c)]", "[false, true, true, false]")
    t.check_text("len(list_dir(d))", "2")
    t.raw("let w: [f32; 2, 2] = [[1.5, -2.0], [0.25, 4.0]];",
          "let n1 = join_path([d, \"w.npy\"]);",
          "let n2 = join_path([d, \"w2.npy\"]);",
          "save_npy(n1, w);",
          "copy_file(n1, n2);")
    t.check_text("load_npy(n2)", "[[1.5, -2.0], [0.25, 4.0]]")
    t.raw("delete_file(a);", "delete_file(c);", "delete_file(n1);", "delete_file(n2);", "remove_dir(d);")
    t.check_text("file_exists(d)", "false")
    t.write()


def io_script_paths():
    t = TestFile("outside/hunt8_io_script_paths.ein", "paths relative to the script: script_dir, "
                 "resolve_relative_to_script, basename / dirname / split_path / relative_path of them, a file "
                 "written next to the script and found again, then removed", uses=["std::io::*"])
    t.raw("let here = script_dir();",
          "let p = resolve_relative_to_script(\"hunt8_tmp_note.txt\");",
          "write_file(p, \"note\");")
    t.check_text("basename(here)", "outside")
    t.check_text("dirname(p) == here", "true")
    t.check_text("basename(p)", "hunt8_tmp_note.txt")
    t.check_text("relative_path(p, here)", "hunt8_tmp_note.txt")
    t.check_text("read_file(join_path([here, \"hunt8_tmp_note.txt\"]))", "note")
    t.raw("delete_file(p);")
    t.check_text("file_exists(p)", "false")
    t.write()


# ---- std::array partition / top-k -----------------------------------------------------------------

def quickselect():
    t = prog("quickselect", "the k-th smallest element by recursive std::array::partition (quickselect with the "
             "first element as pivot), for every k, against np.sort", uses=["std::array::*"])
    x = np.array([5.0, 1.0, 4.0, 4.0, 9.0, -2.0, 0.5, 7.0, 4.0, 3.0])
    t.let("x", x, F)
    t.raw("fn kth(a, k) {",
          "  let (lo, eq, hi) = partition(a, a[0]);",
          "  if k < len(lo) { kth(lo, k) } else if k < len(lo) + len(eq) { a[0] } else { kth(hi, k - len(lo) - len(eq)) }",
          "}",
          "let ks = [kth(x, k) | k in 0..10];",
          "let med = (kth(x, 4) + kth(x, 5)) / 2.0;")
    t.check("ks", np.sort(x), F)
    t.check("med", np.median(x), F)
    t.write()


def topk_forms():
    t = prog("topk_forms", "the std::array top-k forms on scores with ties: topk_extract, topk_indices, "
             "topk_with_indices_extract carrying item ids, argmax_all / argmin_all, and std::ml::topk of "
             "each row of a matrix", uses=["std::array::*", "std::ml::topk"])
    s = np.array([0.3, 0.9, 0.1, 0.9, 0.5, 0.1, 0.7])
    M = np.array([[3.0, 1.0, 2.0, 3.0], [0.0, -1.0, 5.0, 5.0]])
    t.let("s", s, F)
    t.let("M", M, F)
    t.raw("let ids = [101, 102, 103, 104, 105, 106, 107];",
          "let (v, who) = topk_with_indices_extract(s, ids, 3);",
          "let (mv, mi) = topk(M, 2, 1);")
    order = np.argsort(-s, kind="stable")
    t.check("topk_extract(s, 3)", s[order[:3]], F)
    t.check("topk_indices(s, 4)", order[:4], "i32")
    t.check("v", s[order[:3]], F)
    t.check("who", np.array([101, 102, 103, 104, 105, 106, 107])[order[:3]], "i32")
    t.check("argmax_all(s)", np.flatnonzero(s == s.max()), "i32")
    t.check("argmin_all(s)", np.flatnonzero(s == s.min()), "i32")
    mo = np.argsort(-M, axis=1, kind="stable")[:, :2]
    t.check("mv", np.take_along_axis(M, mo, 1), F)
    t.check("mi", mo, "i32")
    t.write()


def partition_rows():
    t = prog("partition_rows", "std::array::partition_2d of a table's rows by their first column (axis 0 and -2) "
             "and of its columns by their first row (axis 1), the parts joined back with concatenate", uses=["std::array::*"])
    T = np.array([[2.0, 10.0, 1.0], [0.5, 20.0, 2.0], [2.0, 30.0, 3.0], [3.5, 40.0, 4.0]])
    t.let("T", T, F)
    t.raw("let (lo, eq, hi) = partition_2d(T, 2.0, 0);",
          "let (lo2, eq2, hi2) = partition_2d(T, 2.0, -2);",
          "let joined = concatenate(concatenate(lo, eq), hi);",
          "let (cl, ce, ch) = partition_2d(T, 2.0, 1);")
    k = T[:, 0]
    rows = np.concatenate([T[k < 2], T[k == 2], T[k > 2]])
    t.check("joined", rows, F)
    t.check("eq2", T[k == 2], F)
    c = T[0, :]
    t.check("cl", T[:, c < 2], F)
    t.check("ch", T[:, c > 2], F)
    t.write()


def generate():
    for f in (io_file_ops, io_script_paths, quickselect, topk_forms, partition_rows, q_depthwise, rnn_layouts, convt_forms, resize_spatial_scales, generic_numerics, io_listing, rl_bandit):
        f()
