#!/usr/bin/env python3
"""Benchmarks: each program in ein (native kernels, cache warm, best of N), idiomatic NumPy and
hand-written C++ (-O3 -march=native -fopenmp), in one run, with the machine's roofline.

Usage (NumPy is Debian's, so run the system interpreter):
  PYENV_VERSION=system python3 tests/bench/run.py [--ein build/ein] [--reps 5] [-k NAME]
                                                  [--write-doc docs/performance.md]

Times are milliseconds of the benchmarked statements only (inputs are built outside the timed
region in all three). For ein: the statements between `// bench: begin` and `// bench: end`,
run twice in one process (a renamed first copy, then the measured one), timed by
`ein --timings`; "ein first" is the first copy (the process's first BLAS call, first parallel
region, ...).
Not part of `scripts/test.sh`: timings are facts about a machine, not pass/fail conditions.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)



def blas_core_for_this_cpu():
    """The OpenBLAS core this CPU's features support: the one ein switches to when OpenBLAS
    falls back to a pre-AVX2 core on a CPU model newer than itself (engine/jit/blas_core.cpp)."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
    except OSError:
        return None
    if all(x in flags for x in ("avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd")):
        return "SkylakeX"
    if "avx2" in flags and "fma" in flags:
        return "Haswell"
    return None


# NumPy gets the same BLAS kernels as ein (set before numpy is imported; the C++ roofline and
# ein inherit it): otherwise BLAS-bound rows would compare ein's AVX-512 GEMMs with the SSE3
# ones OpenBLAS 0.3.21 picks for NumPy on this CPU. `--numpy-blas-as-installed` keeps
# NumPy's own choice (ein still switches).
BLAS_AS_INSTALLED = "--numpy-blas-as-installed" in sys.argv
if not BLAS_AS_INSTALLED and not os.environ.get("OPENBLAS_CORETYPE") and blas_core_for_this_cpu():
    os.environ["OPENBLAS_CORETYPE"] = blas_core_for_this_cpu()

try:
    import numpy as np
except ImportError:  # pragma: no cover
    sys.exit("numpy is missing: run with `PYENV_VERSION=system python3` (Debian python3-numpy)")
import transformer_np  # noqa: E402 (needs numpy)

# name, ein program, C++ program (+ argument), target: (baseline, max ratio)
BENCHES = [
    ("poly", "poly.ein", ("poly.cpp", None), ("numpy", 0.25)),
    ("matmul f32", "matmul_f32.ein", ("matmul.cpp", "f"), ("numpy", 1.1)),
    ("matmul f64", "matmul_f64.ein", ("matmul.cpp", "d"), ("numpy", 1.1)),
    ("conv3x3", "conv3x3.ein", ("conv3x3.cpp", None), ("numpy", 0.7)),
    ("softmax", "softmax.ein", ("softmax.cpp", None), ("numpy", 0.7)),
    ("prefix", "prefix.ein", ("prefix.cpp", None), ("cpp", 1.5)),
    ("editdist", "editdist.ein", ("editdist.cpp", None), ("cpp", 1.5)),
    ("heat", "heat.ein", ("heat.cpp", None), ("cpp", 1.5)),
    ("attention", "attention.ein", ("attention.cpp", None), ("numpy", 0.7)),
    ("rotation", "rotation.ein", ("rotation.cpp", None), ("numpy", 1.0)),
    # Everyday programs (issue 14): contraction-shaped ≤ 1.1 × NumPy (BLAS-bound), fusable or
    # loop-shaped ≤ 0.5 × NumPy, recurrences ≤ 1.5 × hand-written C++.
    ("linear", "linear.ein", ("everyday.cpp", "linear"), ("numpy", 1.1)),
    ("chain", "chain.ein", ("everyday.cpp", "chain"), ("numpy", 1.1)),
    ("bmm", "bmm.ein", ("everyday.cpp", "bmm"), ("numpy", 1.1)),
    ("sqdist", "sqdist.ein", ("everyday.cpp", "sqdist"), ("numpy", 0.5)),
    ("transpose", "transpose.ein", ("everyday.cpp", "transpose"), ("numpy", 0.5)),
    ("stencil", "stencil.ein", ("everyday.cpp", "stencil"), ("numpy", 0.5)),
    ("rnn", "rnn.ein", ("everyday.cpp", "rnn"), ("cpp", 1.5)),
    ("maxplus", "maxplus.ein", ("everyday.cpp", "maxplus"), ("cpp", 1.5)),
    # A real workload: conv1d front end and one transformer block (GEMM-bound, so 1.1 × NumPy).
    ("transformer", "transformer.ein", ("transformer.cpp", None), ("numpy", 1.1)),
]


def best_of(reps, f):
    best, out = float("inf"), None
    for _ in range(reps):
        t0 = time.perf_counter()
        out = f()
        best = min(best, (time.perf_counter() - t0) * 1e3)
    return best, out


# ---- NumPy, idiomatic ------------------------------------------------------------------------

def np_poly(reps):
    x = (np.arange(1 << 24) % 1000).astype(np.float32) * np.float32(0.001)
    ms, p = best_of(reps, lambda: ((np.float32(0.5) * x - np.float32(1.25)) * x + np.float32(2.0)) * x - np.float32(0.75))
    return ms, (p[12345], p[-1])


def np_matmul(dt):
    def run(reps):
        i = np.arange(1024)
        A = (((i[:, None] * 7 + i[None, :] * 3) % 17).astype(dt) * dt(0.1) - dt(0.8))
        B = (((i[:, None] * 5 + i[None, :] * 11) % 13).astype(dt) * dt(0.1) - dt(0.6))
        ms, C = best_of(reps, lambda: A @ B)
        return ms, (C[3, 5], C[1000, 17])
    return run


def np_conv(reps):
    n = 2048
    i = np.arange(n)
    img = ((i[:, None] * 3 + i[None, :] * 7) % 23).astype(np.float32) * np.float32(0.05)
    a = np.arange(3)
    w = (a[:, None] * 3 + a[None, :] + 1).astype(np.float32) * np.float32(0.1) - np.float32(0.5)

    def conv():
        out = np.zeros((n - 2, n - 2), np.float32)
        for da in range(3):
            for db in range(3):
                out += w[da, db] * img[da:da + n - 2, db:db + n - 2]
        return out
    ms, out = best_of(reps, conv)
    return ms, (out[10, 20], out[2045, 2045])


def np_softmax(reps):
    i = np.arange(4096)
    X = ((i[:, None] * 7 + i[None, :] * 13) % 101).astype(np.float32) * np.float32(0.01)

    def softmax():
        e = np.exp(X - X.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    ms, y = best_of(reps, softmax)
    return ms, (y[3, 4], y[4095, 4095])


def np_prefix(reps):
    t = np.arange(10_000_000)
    a = ((t * 7) % 13).astype(np.float64) * 0.01 - 0.06
    ms, s = best_of(reps, lambda: np.cumsum(a))
    return ms, (s[5_000_000], s[-1])


def np_editdist(reps):
    n = m = 2000
    a = (np.arange(n) * 7 + 3) % 26
    b = (np.arange(m) * 11 + 5) % 26
    ar = np.arange(m + 1)

    def dp():
        # Row by row; the in-row dependency D[i, j-1] + 1 is a running minimum.
        prev = ar.copy()
        for i in range(1, n + 1):
            cost = (a[i - 1] != b).astype(np.int64)
            tmp = np.empty(m + 1, np.int64)
            tmp[0] = i
            np.minimum(prev[1:] + 1, prev[:-1] + cost, out=tmp[1:])
            prev = np.minimum.accumulate(tmp - ar) + ar
        return prev
    ms, last = best_of(reps, dp)
    return ms, (last[m], last[m // 2])


def np_heat(reps):
    X, T = 10000, 1000

    def heat():
        u = np.zeros(X, np.float32)
        u[X // 2] = 1
        for _ in range(1, T):
            u[1:-1] = u[1:-1] + np.float32(0.25) * (u[:-2] - np.float32(2.0) * u[1:-1] + u[2:])
        return u
    ms, u = best_of(reps, heat)
    return ms, (u[X // 2], u[X // 2 + 10])


def np_attention(reps):
    BH, N, D = 64, 512, 64
    b = np.arange(BH)[:, None, None]
    i = np.arange(N)[None, :, None]
    d = np.arange(D)[None, None, :]
    f = np.float32
    Q = ((b * 3 + i * 5 + d * 7) % 17).astype(f) * f(0.05) - f(0.4)
    K = ((b * 5 + i * 3 + d * 11) % 19).astype(f) * f(0.05) - f(0.45)
    V = ((b * 7 + i * 13 + d * 5) % 23).astype(f) * f(0.04) - f(0.44)

    def attention():
        S = (Q @ K.transpose(0, 2, 1)) * f(0.125)
        P = np.exp(S - S.max(axis=-1, keepdims=True))
        P /= P.sum(axis=-1, keepdims=True)
        return P @ V
    ms, O = best_of(reps, attention)
    return ms, (O[3, 100, 5], O[63, 511, 63])


def np_rotation(reps, optimize):
    n = 16
    a = np.arange(n)
    g = ((a[:, None] * 3 + a[None, :] * 5) % 7).astype(np.float32) * np.float32(0.1) - np.float32(0.3)
    ix = np.indices((n, n, n, n))
    T = ((ix[0] + 2 * ix[1] + 3 * ix[2] + 5 * ix[3]) % 11).astype(np.float32) * np.float32(0.1)
    ms, R = best_of(reps, lambda: np.einsum("ai,bj,ck,dl,abcd->ijkl", g, g, g, g, T, optimize=optimize))
    return ms, (R[1, 2, 3, 4], R[15, 0, 7, 9])


def grid(*shape):
    return np.indices(shape)


def np_linear(reps):
    s, d = grid(1024, 512)
    X = ((s * 7 + d * 3) % 17).astype(np.float32) * np.float32(0.1) - np.float32(0.8)
    d, k = grid(512, 2048)
    W = ((d * 5 + k * 11) % 13).astype(np.float32) * np.float32(0.01) - np.float32(0.06)
    B = (np.arange(2048) % 7).astype(np.float32) * np.float32(0.1) - np.float32(0.3)
    ms, y = best_of(reps, lambda: X @ W + B)
    return ms, (y[3, 5], y[1000, 2000])


def np_chain(reps):
    i, j = grid(512, 512)
    f = np.float32
    A = ((i * 7 + j * 3) % 17).astype(f) * f(0.01) - f(0.08)
    B = ((i * 5 + j * 11) % 13).astype(f) * f(0.01) - f(0.06)
    C = ((i * 3 + j * 13) % 11).astype(f) * f(0.01) - f(0.05)
    ms, M = best_of(reps, lambda: A @ B @ C)
    return ms, (M[3, 5], M[500, 17])


def np_bmm(reps):
    f = np.float32
    b, i, j = grid(256, 96, 64)
    X = ((b * 3 + i * 7 + j * 5) % 17).astype(f) * f(0.1) - f(0.8)
    b, j, k = grid(256, 64, 96)
    Y = ((b * 5 + j * 3 + k * 11) % 13).astype(f) * f(0.1) - f(0.6)
    ms, Z = best_of(reps, lambda: X @ Y)
    return ms, (Z[3, 5, 7], Z[255, 95, 90])


def np_sqdist(reps):
    f = np.float32
    i, k = grid(2048, 64)
    P = ((i * 7 + k * 3) % 17).astype(f) * f(0.1) - f(0.8)
    Q = ((i * 5 + k * 11) % 13).astype(f) * f(0.1) - f(0.6)
    # The idiomatic form: |p|² + |q|² - 2 p·q (one GEMM; the broadcast difference would need 1 GiB).
    ms, D = best_of(reps, lambda: (P * P).sum(1)[:, None] + (Q * Q).sum(1)[None, :] - f(2) * (P @ Q.T))
    return ms, (D[3, 5], D[2000, 17])


def np_transpose(reps):
    i, j = grid(4096, 4096)
    A = ((i * 7 + j * 3) % 17).astype(np.float32) * np.float32(0.1) - np.float32(0.8)
    del i, j
    ms, S = best_of(reps, lambda: A + A.T)
    return ms, (S[3, 5], S[4000, 17])


def np_stencil(reps):
    n = 2048
    i, j = grid(n, n)
    u = ((i * 7 + j * 3) % 17).astype(np.float32) * np.float32(0.1) - np.float32(0.8)
    del i, j

    def lap():
        L = np.zeros_like(u)
        L[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - np.float32(4.0) * u[1:-1, 1:-1]
        return L
    ms, L = best_of(reps, lap)
    return ms, (L[3, 5], L[2000, 17])


def np_rnn(reps):
    T, H = 1000, 256
    f = np.float32
    j, k = grid(H, H)
    W = ((j * 7 + k * 3) % 17).astype(f) * f(0.004) - f(0.03)
    t, j = grid(T, H)
    x = ((t * 5 + j * 11) % 13).astype(f) * f(0.05) - f(0.3)

    def run():
        h = np.zeros(H, f)
        for t in range(1, T):
            h = np.tanh(W @ h + x[t])
        return h
    ms, h = best_of(reps, run)
    return ms, (h[3], h[200])


def np_maxplus(reps):
    T, S = 500, 400
    f = np.float32
    p, s = grid(S, S)
    A = ((p * 7 + s * 3) % 17).astype(f) * f(-0.1)
    t, s = grid(T, S)
    E = ((t * 5 + s * 11) % 13).astype(f) * f(-0.05)

    def run():
        V = E[0].copy()
        for t in range(1, T):
            V = (V[:, None] + A).max(axis=0) + E[t]
        return V
    ms, V = best_of(reps, run)
    return ms, (V[3], V[300])


NUMPY = {
    "poly": np_poly, "matmul f32": np_matmul(np.float32), "matmul f64": np_matmul(np.float64),
    "conv3x3": np_conv, "softmax": np_softmax, "prefix": np_prefix, "editdist": np_editdist,
    "heat": np_heat, "attention": np_attention, "rotation": lambda r: np_rotation(r, True),
    "linear": np_linear, "chain": np_chain, "bmm": np_bmm, "sqdist": np_sqdist, "transpose": np_transpose,
    "stencil": np_stencil, "rnn": np_rnn, "maxplus": np_maxplus,
    "transformer": lambda reps: transformer_np.run(best_of, reps),
}

# ---- ein --------------------------------------------------------------------------------------

STMT = re.compile(r"timing: stmt line=(\d+) ([0-9.]+) ms")
RUN = re.compile(r"timing: run ([0-9.]+) ms")
KERNELS = re.compile(r"kernels: (\d+) hits, (\d+) misses, compile ([0-9.]+) ms")


def with_warmup(path, tmp):
    """The program with its `// bench: begin` ... `// bench: end` region preceded by a renamed
    copy, so the measured statements run a second time in the process (as NumPy's in-process
    best-of-N does: libraries warm, OpenBLAS threads started). Returns the new file and the line
    ranges (1-based, inclusive) of the first and the measured copy."""
    lines = open(path).read().split("\n")
    b = next(i for i, l in enumerate(lines) if l.strip() == "// bench: begin")
    e = next(i for i, l in enumerate(lines) if l.strip() == "// bench: end")
    region = lines[b + 1:e]
    names = set(re.findall(r"^\s*let\s+([A-Za-z_]\w*)", "\n".join(region), re.M))
    pat = re.compile(r"\b(" + "|".join(sorted(names)) + r")\b") if names else None
    copy = [pat.sub(lambda m: m.group(1) + "_warm", l) if pat else l for l in region]
    out = lines[:b] + copy + region + lines[e + 1:]
    new = os.path.join(tmp, os.path.basename(path))
    with open(new, "w") as f:
        f.write("\n".join(out))
    first = (b + 1, b + len(copy))
    measured = (b + len(copy) + 1, b + 2 * len(copy))
    return new, first, measured


def run_ein(ein, prog, ranges, env, extra=()):
    """One run: ([ms per range], overhead ms, stdout, kernels (hits, misses, compile ms))."""
    p = subprocess.run([ein, "--timings", *extra, prog], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"ein failed on {prog}:\n{p.stderr}")
    stmts = [(int(m.group(1)), float(m.group(2))) for m in STMT.finditer(p.stderr)]
    per_range = [sum(ms for line, ms in stmts if lo <= line <= hi) for lo, hi in ranges]
    run = RUN.search(p.stderr)
    overhead = float(run.group(1)) - sum(ms for _, ms in stmts) if run else float("nan")
    k = KERNELS.search(p.stderr)
    kernels = (int(k.group(1)), int(k.group(2)), float(k.group(3))) if k else (0, 0, 0.0)
    return per_range, overhead, p.stdout, kernels


def peak_rss_kib(cmd, env):
    """Peak RSS of a run with its kernels cached (a first run may compile, and the compiler's
    own RSS would be reported as the child's). Linux carries a process's peak RSS across fork
    and exec, so a child forked from this Python process (hundreds of MiB of inputs) would
    report at least our size: GNU time forks ein from a small process and reports ein's own."""
    timer = shutil.which("time", path="/usr/bin:/bin")
    rss = float("nan")
    for _ in range(2):
        if timer:
            r = subprocess.run([timer, "-f", "%M", *cmd], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, env=env, text=True)
            last = r.stderr.strip().splitlines()[-1:] if r.returncode == 0 else []
            rss = float(last[0]) if last and last[0].isdigit() else float("nan")
        else:
            p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            _, status, usage = os.wait4(p.pid, 0)
            rss = usage.ru_maxrss if status == 0 else float("nan")
    return rss


def numbers(text):
    return [float(x) for x in re.findall(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?", text)]


def close(a, b, tol=1e-3):
    return all(abs(x - y) <= tol * max(1.0, abs(x), abs(y)) for x, y in zip(a, b)) and len(a) == len(b)


# ---- driver ------------------------------------------------------------------------------------

def build_cpp(cxx, tmp):
    exes = {}
    srcs = sorted({c for _, _, (c, _), _ in BENCHES} | {"roofline.cpp"})
    for src in srcs:
        exe = os.path.join(tmp, src[:-4])
        libs = ["-lopenblas"] if src == "roofline.cpp" else []
        subprocess.run([cxx, "-O3", "-march=native", "-fopenmp", "-std=c++17", "-I", os.path.join(HERE, "cpp"),
                        os.path.join(HERE, "cpp", src), "-o", exe, *libs], check=True)
        exes[src] = exe
    return exes


def run_cpp(exe, arg):
    out = subprocess.run([exe] + ([arg] if arg else []), capture_output=True, text=True, check=True).stdout
    m = re.search(r"ms=([0-9.]+) check=(.*)", out)
    return float(m.group(1)), tuple(numbers(m.group(2)))


def blas_cores():
    """Which OpenBLAS kernels NumPy and ein ran, and which OpenBLAS picks when not told."""
    probe = "import ctypes, numpy; from numpy.core import _multiarray_umath as m; " \
            "l = [x for x in open('/proc/self/maps').read().split() if 'libopenblas' in x][0]; " \
            "c = ctypes.CDLL(l); c.openblas_get_corename.restype = ctypes.c_char_p; " \
            "print(c.openblas_get_corename().decode())"
    def core(env):
        r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env)
        return r.stdout.strip() or "unknown"
    own = core({k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"})
    used = core(dict(os.environ))
    if used == own:
        return f"{used} for NumPy and ein (OpenBLAS's own choice)"
    return f"{used} for NumPy and ein; OpenBLAS picks {own} on this CPU when not told, which is what NumPy " \
           f"as installed runs (ein switches by itself, engine/jit/blas_core.cpp; `--numpy-blas-as-installed`)"


def fmt(x):
    if x != x:
        return "-"
    return f"{x:.2f}" if x < 100 else f"{x:.0f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ein", default=os.path.join(ROOT, "build", "ein"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("-k", default="", help="only benchmarks whose name contains this")
    ap.add_argument("--cxx", default=os.environ.get("EIN_CXX", "c++"))
    ap.add_argument("--write-doc", default="", help="replace the table in this markdown file")
    ap.add_argument("--numpy-blas-as-installed", action="store_true",
                    help="let OpenBLAS pick NumPy's kernels itself (see blas_core_for_this_cpu)")
    args = ap.parse_args()
    reps = max(5, args.reps)
    benches = [b for b in BENCHES if args.k in b[0]]
    tmp = tempfile.mkdtemp(prefix="ein-bench-")
    cache = os.path.join(tmp, "cache")
    env = dict(os.environ, EIN_CACHE_DIR=cache, EIN_JIT="auto")
    exes = build_cpp(args.cxx, tmp)
    roof = subprocess.run([exes["roofline.cpp"]], capture_output=True, text=True, check=True).stdout.strip()
    rows, notes = [], []
    load_start = os.getloadavg()
    for name, prog, (cpp, arg), (base, target) in benches:
        path = os.path.join(HERE, "programs", prog)
        warm_prog, first, measured = with_warmup(path, tmp)
        cold = run_ein(args.ein, warm_prog, [first, measured], env)  # compiles: cold cache
        runs = [run_ein(args.ein, warm_prog, [first, measured], env) for _ in range(reps)]
        first_ms = min(r[0][0] for r in runs)
        ein_ms = min(r[0][1] for r in runs)
        overhead = sorted(r[1] for r in runs)[len(runs) // 2]
        ein_check = tuple(numbers(runs[0][2]))
        np_ms, np_check = NUMPY[name](reps)
        cpp_ms, cpp_check = run_cpp(exes[cpp], arg)
        ok = close(ein_check, tuple(float(v) for v in np_check)) and close(ein_check, cpp_check)
        ratio_np, ratio_cpp = ein_ms / np_ms, ein_ms / cpp_ms
        ratio = ratio_np if base == "numpy" else ratio_cpp
        rows.append((name, ein_ms, first_ms, np_ms, cpp_ms, ratio_np, ratio_cpp, f"≤ {target} × {base}",
                     "yes" if ratio <= target else "**no**", cold[3][2], overhead, ok))
        if name == "rotation":
            plain_ms, _ = np_rotation(1, False)
            notes.append(f"rotation: NumPy `einsum` without `optimize` takes {fmt(plain_ms)} ms "
                         f"(ein is {ein_ms / plain_ms:.5f}× of that); the table compares with `optimize=True`.")
        if name == "heat":
            rss_win = peak_rss_kib([args.ein, path], env)
            rss_full = peak_rss_kib([args.ein, "--cells", path], env)
            notes.append(f"heat peak RSS of the whole `ein` process: {rss_win / 1024:.1f} MiB with the 2-row "
                         f"window (file run), {rss_full / 1024:.1f} MiB when all T × X values are stored "
                         f"(`--cells`: no window); T × X × 4 B = {1000 * 10000 * 4 / 2**20:.1f} MiB.")
        print(f"{name:12s} ein {fmt(ein_ms):>8} ms (first {fmt(first_ms):>8})  numpy {fmt(np_ms):>8} ms  "
              f"c++ {fmt(cpp_ms):>8} ms  ein/numpy {ratio_np:.2f}  ein/c++ {ratio_cpp:.2f}  "
              f"compile {fmt(cold[3][2])} ms  overhead {fmt(overhead)} ms{'' if ok else '  CHECKSUM MISMATCH'}",
              flush=True)
    m = re.search(r"triad_gbs=([0-9.]+) sgemm_gflops=([0-9.]+)", roof)
    table = ["| benchmark | ein ms | ein first ms | NumPy ms | C++ ms | ein/NumPy | ein/C++ | target | met | "
             "cold compile ms | cached overhead ms |",
             "|---|---:|---:|---:|---:|---:|---:|---|---|---:|---:|"]
    for (name, e, f1, n, c, rn, rc, tgt, met, comp, ovh, ok) in rows:
        table.append(f"| {name}{'' if ok else ' (checksum mismatch!)'} | {fmt(e)} | {fmt(f1)} | {fmt(n)} | {fmt(c)} | "
                     f"{rn:.2f} | {rc:.2f} | {tgt} | {met} | {fmt(comp)} | {fmt(ovh)} |")
    text = "\n".join(table)
    text += f"\n\nRoofline: STREAM triad {m.group(1)} GB/s, OpenBLAS sgemm {m.group(2)} GFLOP/s " \
            f"(2048², {os.cpu_count()} hardware threads).\n"
    text += f"\nOpenBLAS kernels: {blas_cores()}.\n"
    # The machine is shared: the load average says how far these numbers can be trusted.
    load_end = os.getloadavg()
    text += f"\nLoad average (1/5/15 min) at start {'/'.join(f'{v:.2f}' for v in load_start)}, " \
            f"at end {'/'.join(f'{v:.2f}' for v in load_end)}.\n"
    for n in notes:
        text += f"\n- {n}"
    print()
    print(text)
    if args.write_doc:
        with open(args.write_doc) as f:
            doc = f.read()
        stamp = time.strftime("%Y-%m-%d")
        block = f"<!-- bench:begin -->\n_Measured {stamp} with `PYENV_VERSION=system python3 tests/bench/run.py " \
                f"--reps {reps}`._\n\n{text}\n<!-- bench:end -->"
        doc = re.sub(r"<!-- bench:begin -->.*<!-- bench:end -->", lambda _: block, doc, flags=re.S)
        with open(args.write_doc, "w") as f:
            f.write(doc)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
