"""Kind `gemv` (textkinds.py): matrix-vector products as programs write them, small and large,
judged against NumPy (never against ein's output).

  `y[i] = sum[j](A[i, j] * x[j])`, transposed `sum[j](A[j, i] * x[j])`, with a bias and an
  activation after the sum (`+ b[i]`, `max(.., 0.0)`, tanh), scaled (`2.0 * sum[..](..)`), per
  batch row (`Y[n, i] = sum[j](A[i, j] * X[n, j])`), inside a function called on rows, and as a
  recurrence step on the earlier row. f32 / f64 (and i32 / i64 without the activation); shapes
  from 1 x 1 to a few hundred, vectors of length 1 included. Values are multiples of 1/8 with
  small sums, exact in f32, so every association order gives the same bits.
"""
import numpy as np

from gen_window import lit
from textkinds import Case, Val

FLOATS = ("f32", "f64")
NP = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}


def q(r, shape, dt, lo=-8, hi=8):
    v = np.array([r.randint(lo, hi) for _ in range(int(np.prod(shape)))], dtype=np.float64).reshape(shape)
    return v / 8 if dt in FLOATS else v.astype(np.int64)


def val(v, dt):
    if dt in FLOATS:
        return Val(np.asarray(v, dtype=NP[dt]), "f", rtol=1e-6 if dt == "f32" else 1e-13, atol=1e-7)
    return Val(np.asarray(v, dtype=np.int64), "i")


def gen(r):
    while True:                         # printed arrays stay under 1000 values (not summarised)
        c = one(r)
        if all(v.v.size <= 1000 for v in c.vals):
            return c


def one(r):
    dt = r.choices(["f32", "f64", "i32", "i64"], weights=[3, 3, 1, 1])[0]
    M, N = r.choice([1, 2, 3, 5, 8, 16, 17, 64, 100, 257]), r.choice([1, 2, 3, 4, 7, 16, 33, 128, 300])
    if M * N > 40000:
        N = max(1, 40000 // M)
    form = r.choice(["plain", "trans", "bias", "act", "scale", "batch", "fn", "rec"])
    if dt not in FLOATS and form == "act":
        form = "bias"
    one = "1.0" if dt in FLOATS else "1"
    zero = "0.0" if dt in FLOATS else "0"
    lines = []
    if form == "trans":
        A = q(r, (N, M), dt)
    else:
        A = q(r, (M, N), dt)
    lines.append(f"let $A = {lit(A, dt)};")
    if form == "rec":
        T = r.randint(2, 6)
        A = q(r, (N, N), dt, -2, 2) if dt in FLOATS else q(r, (N, N), dt, -1, 1)
        lines[0] = f"let $A = {lit(A, dt)};"
        X = q(r, (T, N), dt)
        lines.append(f"let $X = {lit(X, dt)};")
        c = "0.5" if dt in FLOATS else "1"
        lines.append(f"let $h[0, i in 0..{N}] = $X[0, i];")
        lines.append(f"let $h[t in 1..{T}, i in 0..{N}] = sum[j]($A[i, j] * $h[t - 1, j]) * {c} + $X[t, i];")
        lines.append("print($h);")
        H = np.zeros((T, N), dtype=np.float64 if dt in FLOATS else np.int64)
        H[0] = X[0]
        for t in range(1, T):
            H[t] = (A @ H[t - 1]) * (0.5 if dt in FLOATS else 1) + X[t]
        if dt in FLOATS and np.abs(H).max() > 2 ** 12:
            return one(r)               # sums no longer exact in f32
        if dt == "i32" and np.abs(H).max() > 2 ** 30:
            return one(r)
        v = val(H, dt)
        if dt == "f32":                 # steps scale by 1/16: later rows are not exact in f32
            v.rtol, v.atol = 2e-5 * T, 1e-6 * T
        return Case("gemv", "\n".join(lines) + "\n", [v])
    if form == "batch":
        B = r.randint(1, 6)
        X = q(r, (B, N), dt)
        lines.append(f"let $X = {lit(X, dt)};")
        lines.append("let $Y[n, i] = sum[j]($A[i, j] * $X[n, j]);")
        lines.append("print($Y);")
        return Case("gemv", "\n".join(lines) + "\n", [val(X @ A.T, dt)])
    x = q(r, (N,), dt)
    lines.append(f"let $x = {lit(x, dt)};")
    if form == "trans":
        lines.append("let $y[i] = sum[j]($A[j, i] * $x[j]);")
        want = A.T @ x
    elif form == "fn":
        lines.insert(0, "fn $mv(m, v) { let y[i] = sum[j](m[i, j] * v[j]); y }")
        lines.append("let $y = $mv($A, $x);")
        want = A @ x
    else:
        b = q(r, (M,), dt)
        lines.append(f"let $b = {lit(b, dt)};")
        s = "sum[j]($A[i, j] * $x[j])"
        want = A @ x
        if form == "plain":
            lines.append(f"let $y[i] = {s};")
        elif form == "bias":
            lines.append(f"let $y[i] = {s} + $b[i];")
            want = want + b
        elif form == "scale":
            lines.append(f"let $y[i] = {('2.0' if dt in FLOATS else '2')} * {s} - $b[i] * {one};")
            want = 2 * want - b
        else:
            act = r.choice(["relu", "tanh"])
            if act == "relu":
                lines.append(f"let $y[i] = max({s} + $b[i], {zero});")
                want = np.maximum(want + b, 0)
            else:
                lines.append(f"let $y[i] = std::math::tanh({s} + $b[i]);")
                want = np.tanh(want + b)
                lines.append("print($y);")
                return Case("gemv", "\n".join(lines) + "\n",
                            [Val(np.asarray(want, dtype=NP[dt]), "f", rtol=3e-6 if dt == "f32" else 1e-12,
                                 atol=1e-7)])
    lines.append("print($y);")
    return Case("gemv", "\n".join(lines) + "\n", [val(want, dt)])
