"""NumPy baseline of tests/bench/programs/transformer.ein (imported by run.py): idiomatic code —
matrix products with `@`, conv1d as one product per filter tap on shifted (strided) views, the
causal mask as `np.where` with a mask built outside the timed region. NumPy has no erf, so the
exact GELU uses the Abramowitz–Stegun 7.1.26 rational form (|error| ≤ 1.5e-7), as code without
SciPy does."""
import numpy as np


def erf(x):
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t \
        * np.exp(-a * a)
    return (s * y).astype(x.dtype)


def gelu(x):
    return np.float32(0.5) * x * (np.float32(1.0) + erf(x * np.float32(0.7071067811865476)))


def inputs():
    f = np.float32
    C, L, T, D, H, E, F = 80, 1028, 512, 256, 4, 64, 1024
    g = np.indices
    c, t = g((C, L))
    mel = ((c * 7 + t * 3) % 17).astype(f) * f(0.1) - f(0.8)
    o, c, a = g((D, C, 3))
    W1 = ((o * 5 + c * 3 + a * 7) % 13).astype(f) * f(0.01) - f(0.06)
    o, c, a = g((D, D, 3))
    W2 = ((o * 3 + c * 11 + a * 5) % 19).astype(f) * f(0.005) - f(0.045)
    dd = np.arange(D)
    b1 = (dd % 7).astype(f) * f(0.01) - f(0.03)
    b2 = (dd % 5).astype(f) * f(0.01) - f(0.02)
    t, d = g((T, D))
    pos = ((t * 13 + d * 7) % 23).astype(f) * f(0.01) - f(0.11)
    g1 = f(1.0) + (dd % 3).astype(f) * f(0.1)
    be1 = (dd % 4).astype(f) * f(0.05) - f(0.1)
    g2 = f(1.0) - (dd % 5).astype(f) * f(0.05)
    be2 = (dd % 3).astype(f) * f(0.05) - f(0.05)
    d, h, e = g((D, H, E))
    Wq = ((d * 3 + h * 7 + e * 5) % 11).astype(f) * f(0.02) - f(0.1)
    Wk = ((d * 5 + h * 3 + e * 7) % 13).astype(f) * f(0.02) - f(0.12)
    Wv = ((d * 7 + h * 5 + e * 3) % 17).astype(f) * f(0.01) - f(0.08)
    h, e = g((H, E))
    bq = ((h + e) % 3).astype(f) * f(0.01)
    bk = ((h * 2 + e) % 5).astype(f) * f(0.01)
    bv = ((h * 3 + e) % 7).astype(f) * f(0.01)
    h, e, d = g((H, E, D))
    Wo = ((h * 11 + e * 3 + d * 5) % 19).astype(f) * f(0.005) - f(0.045)
    bo = (dd % 6).astype(f) * f(0.01) - f(0.025)
    d, q = g((D, F))
    Wf1 = ((d * 3 + q * 5) % 23).astype(f) * f(0.004) - f(0.044)
    bf1 = (np.arange(F) % 9).astype(f) * f(0.01) - f(0.04)
    q, d = g((F, D))
    Wf2 = ((q * 7 + d * 3) % 29).astype(f) * f(0.002) - f(0.028)
    bf2 = (dd % 8).astype(f) * f(0.01) - f(0.035)
    return dict(mel=mel, W1=W1, b1=b1, W2=W2, b2=b2, pos=pos, g1=g1, be1=be1, g2=g2, be2=be2, Wq=Wq, Wk=Wk,
                Wv=Wv, bq=bq, bk=bk, bv=bv, Wo=Wo, bo=bo, Wf1=Wf1, bf1=bf1, Wf2=Wf2, bf2=bf2)


def layer_norm(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + np.float32(1e-5)) * g + b


def block(p, causal):
    f = np.float32
    T, H, E = 512, 4, 64
    mel, W1, W2 = p["mel"], p["W1"], p["W2"]
    L1 = mel.shape[1] - 2
    h1 = gelu(sum(W1[:, :, a] @ mel[:, a:a + L1] for a in range(3)) + p["b1"][:, None])
    x = gelu(sum(W2[:, :, a] @ h1[:, a:a + 2 * T - 1:2] for a in range(3)) + p["b2"][:, None]).T + p["pos"]
    n1 = layer_norm(x, p["g1"], p["be1"])

    def heads(W, b):
        return (n1 @ W.reshape(W.shape[0], H * E) + b.reshape(H * E)).reshape(T, H, E).transpose(1, 0, 2)
    q, k, v = heads(p["Wq"], p["bq"]), heads(p["Wk"], p["bk"]), heads(p["Wv"], p["bv"])
    S = np.where(causal, (q @ k.transpose(0, 2, 1)) * f(0.125), f(-1e30))
    P = np.exp(S - S.max(axis=-1, keepdims=True))
    att = (P @ v) / P.sum(axis=-1, keepdims=True)
    r1 = x + att.transpose(1, 0, 2).reshape(T, H * E) @ p["Wo"].reshape(H * E, -1) + p["bo"]
    n2 = layer_norm(r1, p["g2"], p["be2"])
    return r1 + gelu(n2 @ p["Wf1"] + p["bf1"]) @ p["Wf2"] + p["bf2"]


def run(best_of, reps):
    p = inputs()
    causal = np.tril(np.ones((512, 512), dtype=bool))
    ms, y = best_of(reps, lambda: block(p, causal))
    return ms, (y[3, 5], y[511, 255], y[200, 100])


if __name__ == "__main__":
    y = block(inputs(), np.tril(np.ones((512, 512), dtype=bool)))
    print(y[3, 5], y[511, 255], y[200, 100])
