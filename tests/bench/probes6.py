#!/usr/bin/env python3
"""Per-call cost, sixth probe set (issues 13/14, session 18): programs dominated by calls of
library and user functions on small shapes — a forward pass that calls std layers statement
after statement, a recurrence that calls a std function at every step, one user function called
again and again with the same shapes, a notebook cell run again. The other probe sets time the
statements between `// bench: begin/end` only; here what a call costs before it runs (analysis
of the callee's specialisation, kernel planning, source hashing, loading) is the point, so the
measure is the process's CPU time (user + sys of the child, `getrusage`) of the program with 0,
1 and R calls:

    first call = CPU(1) - CPU(0)        (loads the std modules, compiles or loads kernels)
    later calls = (CPU(R) - CPU(1)) / (R - 1)

each program's CPU the minimum of --reps interleaved runs, beside NumPy's per-call
`process_time` over the same R calls (values of the last call checked against NumPy in every row).
  PYENV_VERSION=system python3 tests/bench/probes6.py [--ein build/ein] [--reps 3] [-k NAME]
No target is met or missed here: the table is the measurement docs/performance.md quotes.
Not part of scripts/test.sh (timings are facts about a machine)."""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import probes3  # noqa: E402  (nd: the inputs built as the ein programs build them)
variants, nd = probes3.variants, probes3.nd
bench, np = variants.bench, variants.np
f32, f64 = np.float32, np.float64
P = []  # (name, R, make(R) -> ein source, numpy(R) -> (ms per call, checks), cells?)


def probe(name, calls, cells=False):
    def deco(fn):
        P.append((name, calls, fn, cells))
        return fn
    return deco


def numpy_per_call(R, step, init):
    """CPU ms per call of `step` chained R times from `init` (best of 3), and the last value."""
    best, out = float("inf"), None
    for _ in range(3):
        t0 = time.process_time()
        v = init
        for _ in range(R):
            v = step(v)
        best, out = min(best, (time.process_time() - t0) * 1e3 / max(R, 1)), v
    return best, out


def chained_probe(name, R, head, var, call, picks, setup):
    """A probe of R statements `let {var}k = call({var}(k-1));` after `head`'s lines, printing the
    last value at `picks` (index strings); `setup()` gives NumPy's (first value, step)."""
    def make(R):
        lines = list(head) + [f"let {var}{k} = {call.format(f'{var}{k - 1}')};" for k in range(1, R + 1)]
        ein = "\n".join(lines + [f"print({', '.join(f'{var}{R}[{p}]' for p in picks)});"])

        def numpy(R):
            init, step = setup()
            ms, Y = numpy_per_call(R, step, init)
            return ms, tuple(Y[tuple(int(i) for i in p.split(", "))] for p in picks)
        return ein, numpy
    P.append((name, R, make, False))


def np_avgpool_small(X):
    Xp = np.pad(X, [(0, 0), (0, 0), (1, 1), (1, 1)])
    cnt = np.pad(np.ones(X.shape[2:], f32), 1)
    s = sum(Xp[:, :, a:a + 12, b:b + 12] for a in range(3) for b in range(3))
    c = sum(cnt[a:a + 12, b:b + 12] for a in range(3) for b in range(3))
    return s / c


# A std function called statement after statement with the same shapes and attributes (the pool
# helper's finding: ~9 ms CPU a call).
chained_probe("std_pool_straight", 60,
              ["let X[n in 0..1, c in 0..8, h in 0..12, w in 0..12] = ((c * 7 + h * 3 + w * 5) % 23) as f32 * 0.1 - 1.0;",
               "let Y0 = X;"], "Y", "std::ml::average_pool({}, [3, 3], [1, 1], [1, 1, 1, 1])",
              ["0, 1, 2, 3", "0, 7, 11, 11"],
              lambda: (nd((1, 8, 12, 12), (0, 7, 3, 5), 23, 0.1, 1.0, f32), np_avgpool_small))


def np_mlp_setup():
    W = nd((64, 64), (5, 11), 13, 0.02, 0.12, f32)
    b = (np.arange(64) % 7).astype(f32) * f32(0.01) + f32(0.05)
    return nd((16, 64), (7, 3), 17, 0.1, 0.8, f32), lambda h: np.maximum(h @ W.T + b, f32(0))


# A forward pass over R dense layers through std::ml::linear and relu, 16 x 64 f32.
chained_probe("mlp_layers_straight", 40,
              ["let H0[n in 0..16, d in 0..64] = ((n * 7 + d * 3) % 17) as f32 * 0.1 - 0.8;",
               "let W[o in 0..64, d in 0..64] = ((o * 5 + d * 11) % 13) as f32 * 0.02 - 0.12;",
               "let b[o in 0..64] = (o % 7) as f32 * 0.01 + 0.05;"],
              "H", "std::ml::relu(std::ml::linear({}, W, b))", ["0, 0", "15, 63", "7, 31"], np_mlp_setup)


def np_rows_step(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True) * 4.0


# One user function (a row-normalising softmax-like step) called R times, same shapes.
chained_probe("user_fn_straight", 60,
              ["fn step(x) { let m[r] = max[j](x[r, j]); let e[r, j] = std::math::exp(x[r, j] - m[r]);",
               "  let s[r] = sum[j](e[r, j]); let y[r, j] = e[r, j] / s[r] * 4.0; y }",
               "let A0[r in 0..8, j in 0..32] = ((r * 7 + j * 3) % 17) as f64 * 0.1 - 0.8;"],
              "A", "step({})", ["0, 0", "7, 31", "3, 17"],
              lambda: (nd((8, 32), (7, 3), 17, 0.1, 0.8, f64), np_rows_step))


@probe("recurrence_std_softmax", 100)
def rec_softmax(R):
    """A recurrence whose step calls std::ml::softmax on the previous row (R steps of 32)."""
    ein = f"""let x0[i in 0..32] = ((i * 7) % 17) as f64 * 0.1 - 0.8;
let H[0, i] = x0[i];
let H[t in 1..{R + 1}, i] = {{ let hp[e] = H[t - 1, e] * 3.0; let p = std::ml::softmax(hp); p[i] + x0[i] }};
print(H[{R}, 0], H[{R}, 31], H[{R}, 17]);"""

    def numpy(R):
        x0 = ((np.arange(32) * 7) % 17).astype(f64) * 0.1 - 0.8

        def step(h):
            e = np.exp(3 * h - (3 * h).max())
            return e / e.sum() + x0
        ms, Y = numpy_per_call(R, step, x0)
        return ms, (Y[0], Y[31], Y[17])
    return ein, numpy


@probe("cell_rerun_layernorm", 20, cells=True)
def cell_rerun(R):
    """The same notebook cell (a layer norm and a softmax of a 64 x 64 f32 block) run R times."""
    head = ["let X[n in 0..64, d in 0..64] = ((n * 7 + d * 3) % 17) as f32 * 0.1 - 0.8;",
            "let g[d in 0..64] = 1.0 + (d % 5) as f32 * 0.1;",
            "let b[d in 0..64] = (d % 3) as f32 * 0.1 - 0.1;",
            "let Y = X;"]
    cell = ["let Y = std::ml::softmax(std::ml::layer_normalization(Y, g, b, 0.00001, -1));"]
    parts = ["\n".join(head)] + ["\n".join(cell) for _ in range(R)] + ["print(Y[0, 0], Y[63, 63], Y[5, 7]);"]

    def numpy(R):
        X = nd((64, 64), (7, 3), 17, 0.1, 0.8, f32)
        g = f32(1) + (np.arange(64) % 5).astype(f32) * f32(0.1)
        b = (np.arange(64) % 3).astype(f32) * f32(0.1) - f32(0.1)

        def step(y):
            mu = y.mean(-1, keepdims=True)
            var = ((y - mu) ** 2).mean(-1, keepdims=True)
            z = (y - mu) / np.sqrt(var + f32(1e-5)) * g + b
            e = np.exp(z - z.max(-1, keepdims=True))
            return e / e.sum(-1, keepdims=True)
        ms, Y = numpy_per_call(R, step, X)
        return ms, (Y[0, 0], Y[63, 63], Y[5, 7])
    return "\n// %%\n".join(parts), numpy


def run_cpu(cmd, env):
    """CPU time (user + sys) of one run in ms (getrusage of the waited-for child), stdout, stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, env=env, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise RuntimeError(f"ein failed on {cmd[-1]}:\n{p.stderr}")
    ms = ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1e3
    return ms, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ein", default=os.path.join(bench.ROOT, "build", "ein"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("-k", default="")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ein-probes6-")
    env = dict(os.environ, EIN_CACHE_DIR=os.path.join(tmp, "cache"), EIN_JIT="auto")
    rows = []
    for name, R, make, cells in P:
        if args.k not in name:
            continue
        paths = {}
        for r in (0, 1, R):
            src, numpy = make(r)
            paths[r] = os.path.join(tmp, f"{name}_{r}.ein")
            with open(paths[r], "w") as f:
                f.write(src + "\n")
        mode = ["--cells"] if cells else []
        try:
            for r in (0, 1, R):
                run_cpu([args.ein, *mode, paths[r]], env)  # cold: compiles
            c = {0: float("inf"), 1: float("inf"), R: float("inf")}
            for _ in range(args.reps):  # interleaved; the minimum of each program's CPU time
                for r in (0, 1, R):
                    ms, out, _ = run_cpu([args.ein, *mode, paths[r]], env)
                    c[r] = min(c[r], ms)
            first, later = c[1] - c[0], (c[R] - c[1]) / (R - 1)
        except RuntimeError as e:
            print(f"{name:24s} ein FAILED: {str(e).splitlines()[-1]}", flush=True)
            continue
        np_ms, check = make(R)[1](R)
        ok = bench.close(tuple(bench.numbers(out)), tuple(float(v) for v in check))
        rows.append((name, R, first, later, np_ms, "" if ok else " (CHECKSUM MISMATCH)"))
        print(f"{name:24s} R={R:4d} ein first {first:8.2f} ms, later {later:8.3f} ms/call  numpy {np_ms:8.4f} ms/call"
              f"  ratio {later / np_ms:8.1f}{rows[-1][-1]}", flush=True)
    print("\n| probe | calls | ein first call, CPU ms | ein later calls, CPU ms/call | NumPy ms/call | later / NumPy |\n"
          "|---|---:|---:|---:|---:|---:|")
    for name, R, fi, la, n, bad in rows:
        print(f"| {name}{bad} | {R} | {fi:.2f} | {la:.3f} | {n:.4f} | {la / n:.0f} |")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
