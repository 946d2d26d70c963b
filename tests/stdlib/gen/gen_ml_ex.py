"""std::ml::ml_ex tests: matrix helpers (eye, diagonals, trace, norms, outer, kron, triangles,
roll, repeat_interleave, flip), ImageScaler, the losses and cosine similarity, against NumPy."""
import numpy as np

from common import TestFile, decimals
from gen_ml import f64, log_softmax


def ints(seed, shape, lo=-5, hi=6):
    return np.random.default_rng(seed).integers(lo, hi, size=shape)


def matrix_file():
    t = TestFile("ml/ml_ex.ein", "std::ml image_scaler, eye, diag_extract, diag_construct, trace, "
                 "frobenius_norm, outer, kron, tril, triu, roll, repeat_interleave, flip, flipud",
                 uses=["std::ml::*"])
    for i, (xs, kind) in enumerate([((1, 2, 2, 3), "f32"), ((2, 3, 2), "f64")]):
        x = t.let(f"is{i}", decimals(1290 + i, xs), kind)
        b = t.let(f"ib{i}", decimals(1295 + i, (xs[1],)), kind)
        t.raw(f"let isc{i}: {kind} = 1.5;")
        t.check(f"image_scaler(is{i}, isc{i}, ib{i})",
                (1.5 * f64(x) + f64(b).reshape((1, -1) + (1,) * (len(xs) - 2))).astype(x.dtype), kind)
    for n in (1, 3):
        t.check(f"eye({n})", np.eye(n, dtype=np.float32), "f32")
    t.check("typeof(eye(2))", "[f32; 2, 2]", "str")
    for i, (shape, kind) in enumerate([((3, 3), "f64"), ((2, 4), "i32"), ((4, 2), "f32")]):
        x = t.let(f"m{i}", ints(1300 + i, shape) if kind[0] == "i" else decimals(1300 + i, shape),
                  kind)
        t.check(f"trace(m{i})", np.trace(x), kind)
        t.check(f"diag_extract(m{i})", np.diag(x), kind)
        if kind != "i32":
            t.check(f"frobenius_norm(m{i})", np.linalg.norm(f64(x)), kind)
        for k in (-1, 0, 2):
            t.check(f"tril(m{i}, {k})", np.tril(x, k), kind)
            t.check(f"triu(m{i}, {k})", np.triu(x, k), kind)
        t.check(f"flip(m{i})", np.flip(x), kind)
        t.check(f"flipud(m{i})", np.flip(x, 0), kind)
        for sh in (1, -3, 7, 0):
            t.check(f"roll(m{i}, {sh})", np.roll(x, sh), kind)
        t.check(f"repeat_interleave(m{i}, 2)", np.repeat(x, 2), kind)
        reps = ints(1305 + i, (x.size,), 0, 3)
        t.let(f"rp{i}", reps, "i32")
        t.check(f"repeat_interleave(m{i}, rp{i})", np.repeat(x.flatten(), reps), kind)
    for i, (n, kind) in enumerate([(3, "f64"), (1, "i32"), (4, "f32")]):
        v = t.let(f"dv{i}", ints(1315 + i, (n,)) if kind[0] == "i" else decimals(1315 + i, (n,)), kind)
        t.check(f"diag_construct(dv{i})", np.diag(v), kind)
    x3 = t.let("t3", decimals(1310, (2, 3, 3)), "f64")
    t.check("trace(t3)", np.trace(x3), "f64")
    t.check("tril(t3, 0)", np.tril(x3), "f64")
    t.check("triu(t3, 1)", np.triu(x3, 1), "f64")
    t.check("flip(t3)", np.flip(x3), "f64")
    t.check("flipud(t3)", np.flip(x3, 0), "f64")
    t.check("roll(t3, 5)", np.roll(x3, 5), "f64")
    t.check("frobenius_norm(t3)", np.sqrt((x3 ** 2).sum()), "f64")
    v = t.let("fv", ints(1312, (5,)), "i64")
    t.check("flip(fv)", np.flip(v), "i64")
    t.check("roll(fv, -2)", np.roll(v, -2), "i64")
    a = t.let("oa", decimals(1320, (3,)), "f64")
    b = t.let("ob", decimals(1321, (4,)), "f64")
    t.check("outer(oa, ob)", np.outer(a, b), "f64")
    a2 = t.let("oa2", decimals(1322, (2, 2)), "f64")
    t.check("outer(oa2, ob)", np.outer(a2, b), "f64")
    A = t.let("KA", ints(1330, (2, 3)), "i32")
    B = t.let("KB", ints(1331, (2, 2)), "i32")
    t.check("kron(KA, KB)", np.kron(A, B), "i32")
    Af = t.let("KAf", decimals(1332, (1, 2)), "f64")
    Bf = t.let("KBf", decimals(1333, (3, 1)), "f64")
    t.check("kron(KAf, KBf)", np.kron(Af, Bf), "f64")
    va = t.let("Kva", ints(1334, (3,)), "i32")
    vb = t.let("Kvb", ints(1335, (2,)), "i32")
    t.check("kron(Kva, Kvb)", np.kron(va, vb), "i32")
    t.check("kron(Kva, KB)", np.kron(va, B), "i32")
    t.check("kron(KB, Kvb)", np.kron(B, vb), "i32")
    t.write()


def losses_file():
    t = TestFile("ml/losses.ein", "std::ml losses (mean reduction) and cosine_similarity",
                 uses=["std::ml::*"])
    for i, (shape, kind) in enumerate([((5,), "f64"), ((2, 3), "f32"), ((2, 2, 2), "f64")]):
        p = t.let(f"p{i}", decimals(1200 + i, shape), kind)
        y = t.let(f"y{i}", decimals(1210 + i, shape), kind)
        d = f64(p) - f64(y)
        t.check(f"mse_loss(p{i}, y{i})", (d ** 2).mean(), kind)
        t.check(f"mae_loss(p{i}, y{i})", np.abs(d).mean(), kind)
        t.check(f"l1_loss(p{i}, y{i})", np.abs(d).mean(), kind)
        delta = 0.75
        a = np.abs(d)
        huber = np.where(a <= delta, 0.5 * a * a, delta * (a - 0.5 * delta)).mean()
        if kind == "f32":
            t.check(f"huber_loss(p{i}, y{i}, {delta})", huber, kind)
        else:
            t.raw(f"let delta{i}: f64 = {delta};")
            t.check(f"huber_loss(p{i}, y{i}, delta{i})", huber, kind)
        s = t.let(f"sc{i}", decimals(1220 + i, shape, -2, 2), kind)
        lab = t.let(f"lab{i}", np.where(ints(1230 + i, shape) > 0, 1.0, -1.0), kind)
        t.check(f"hinge_loss(sc{i}, lab{i})", np.maximum(0, 1 - f64(lab) * f64(s)).mean(), kind)
        pr = t.let(f"pr{i}", decimals(1240 + i, shape, 0.05, 0.95), kind)
        yy = t.let(f"yy{i}", (ints(1250 + i, shape) > 0).astype(float), kind)
        pr64, yy64 = f64(pr), f64(yy)
        t.check(f"binary_cross_entropy(pr{i}, yy{i})",
                -(yy64 * np.log(pr64) + (1 - yy64) * np.log(1 - pr64)).mean(), kind)
        z = t.let(f"z{i}", decimals(1260 + i, shape, -4, 4), kind)
        z64 = f64(z)
        t.check(f"binary_cross_entropy_with_logits(z{i}, yy{i})",
                (np.maximum(z64, 0) - z64 * yy64 + np.log1p(np.exp(-np.abs(z64)))).mean(), kind)
        cos = (f64(p) * f64(y)).sum(-1) / np.maximum(np.linalg.norm(f64(p), axis=-1) *
                                                    np.linalg.norm(f64(y), axis=-1), 1e-8)
        t.check(f"cosine_similarity(p{i}, y{i})", cos, kind)
        if len(shape) == 2:  # a batch of rows against one vector broadcasts (PyTorch)
            v = f64(y)[0]
            cosb = (f64(p) * v).sum(-1) / np.maximum(np.linalg.norm(f64(p), axis=-1) * np.linalg.norm(v), 1e-8)
            t.check(f"cosine_similarity(p{i}, y{i}[0])", cosb, kind)
            t.check(f"cosine_similarity(y{i}[0], p{i})", cosb, kind)
    t.check("binary_cross_entropy([1.0, 0.0], [0.0, 1.0])", 100.0, "f32")
    for i, (N, C, kind) in enumerate([(3, 4, "f64"), (2, 5, "f32"), (1, 2, "f64")]):
        lg = t.let(f"lg{i}", decimals(1270 + i, (N, C), -3, 3), kind)
        tg = t.let(f"tg{i}", ints(1280 + i, (N,), 0, C), "i32")
        ls = log_softmax(f64(lg))
        t.check(f"softmax_cross_entropy_loss(lg{i}, tg{i})", -ls[np.arange(N), tg].mean(), kind)
        soft = np.exp(log_softmax(decimals(1285 + i, (N, C), -2, 2)))
        st = t.let(f"st{i}", np.round(soft, 3), kind)
        t.check(f"softmax_cross_entropy_loss(lg{i}, st{i})", -(f64(st) * ls).sum() / N, kind)
        lp = t.let(f"lp{i}", np.round(ls, 2), kind)
        t.check(f"nll_loss(lp{i}, tg{i})", -f64(lp)[np.arange(N), tg].mean(), kind)
        # cross_entropy_loss takes probabilities: class indices or one-hot / soft targets
        pb = t.let(f"pb{i}", np.round(np.exp(ls), 3), kind)
        t.check(f"cross_entropy_loss(pb{i}, tg{i})", -np.log(f64(pb)[np.arange(N), tg]).mean(), kind)
        oh = t.let(f"oh{i}", np.eye(C)[tg], kind)
        t.check(f"cross_entropy_loss(pb{i}, oh{i})", -(f64(oh) * np.log(f64(pb))).sum() / N, kind)
    v = t.let("pv", np.array([0.2, 0.7, 0.1]), "f64")
    w = t.let("tv", np.array([0.0, 1.0, 0.0]), "f64")
    t.check("cross_entropy_loss(pv, tv)", -np.log(0.7), "f64")
    t.check("cross_entropy_loss([0.0, 1.0], [1.0, 0.0])", -np.log(np.float32(1e-12)), "f32")
    t.check("softmax_cross_entropy_loss([1.0, 2.0, 3.0], 2)", -log_softmax(np.array([1.0, 2, 3]))[2], "f32")
    t.write()


def generate():
    matrix_file()
    losses_file()
