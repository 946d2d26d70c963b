#!/usr/bin/env python3
"""Template kinds: random programs over constructs the tree generator (gen*.py) does not draw,
each written as Einlang text together with its expected output, computed in Python from SPEC
(NumPy loops, finite differences), never from ein's output.

  rowcall    per-row calls `A[h, i, j] = F(S[h, i])[j]` with j's range from the callee's result
             (user functions with locals, reductions, rest patterns; std::ml softmax & co.), in
             reductions, in recurrence steps, and derivative requests through them (gen_rowcall.py)
  match      match expressions: literal, or-, range, binding, guard, tuple and array patterns, in
             functions, clause bodies and recurrence steps; non-exhaustive ones (gen_match.py)
  cast       array casts, int<->float truncation, integer `/` `%` signs, E007, i8 / i64 wrap,
             per-unit literal inference, `**` (gen_cast.py)
  piecewise  multi-clause definitions with literal slots, recurrences across clauses, E012,
             `where .. else ..`, comprehensions with guards, bindings, membership (gen_piece.py)
  session    notebook sessions run as `ein --cells` against a model of the session (SPEC §11;
             gen_session.py, run by session_run.py)
  generic    generic functions over dtypes and ranks, hoisting, shadowed builtins, full paths,
             recursion, `@fn` rules, module files (SPEC §6; gen_generic.py)
  localreq   functions returning gradients called per row, differential bindings `df / dx`,
             `print(@y)` evaluated against central differences (SPEC §7; gen_localreq.py)
  window     pooling / convolution / stencil windows written by hand (strides, dilations, pads,
             guards, if-chains, clamped indices, means with and without the pads, NaN) and
             std::ml max_pool / average_pool / conv against ONNX's definitions (gen_window.py)
  scratch    clause bodies that are blocks with local arrays (row softmax, layer norm, ...), in
             declarations, reductions, functions and recurrence steps, with derivatives
             (gen_scratch.py)
  argred     argmax / argmin (ties, NaN, ints, top1, accuracy sums, nearest centres, Viterbi)
             and buffer reuse over large rebound arrays, in sessions and in one file
             (gen_argred.py)
  gemv       matrix-vector products: transposed, with bias / activation / scale, batched, in a
             function, as a recurrence step (gen_gemv.py)

    PYENV_VERSION=system python3 tests/differential/textkinds.py --ein build/ein --count 300 \
        --seed 3 --modes never,always [--kinds rowcall,match] [--jobs 2] [--show N]

A case is a source whose top-level names carry `$` (replaced by a per-program prefix, so that
several programs share one ein process) and the expected printed values (or an error code that
must end the run, after the values printed before it). Prints `textkinds: N programs, M
mismatches` and exits 1 on any mismatch; each mismatch is printed whole (programs are small).
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import runner                                 # noqa: E402  (run_ein, the tiers' settings)

MARK = "@@T"
DIAG = re.compile(r"error\[(E\d{3})\]")


class Val:
    """One expected printed line: a value of kind 'f' (float, within rtol/atol; exact when both
    are 0), 'i' (integer) or 'b' (bool)."""

    def __init__(self, v, kind, rtol=0.0, atol=0.0):
        self.v, self.kind, self.rtol, self.atol = np.asarray(v), kind, rtol, atol


class Case:
    """`session`, when set, is a gen_session.Session (cells run as `ein --cells`); src and
    vals are then None."""

    def __init__(self, kind, src, vals, error=None, session=None):
        self.kind, self.src, self.vals, self.error = kind, src, vals, error
        self.session = session
        self.alone = False      # runs in a process of its own (it shadows a builtin, ...)
        self.files = {}         # other files of the program (modules): name -> text, `$` too


def kinds():
    """name: (generator, weight)."""
    import gen_cast
    import gen_match
    import gen_piece
    import gen_rowcall
    import gen_generic
    import gen_localreq
    import gen_session
    import gen_window
    import gen_scratch
    import gen_argred
    import gen_gemv
    return {"rowcall": (gen_rowcall.gen, 4), "match": (gen_match.gen, 2),
            "cast": (gen_cast.gen, 2), "piecewise": (gen_piece.gen, 2),
            "session": (gen_session.gen, 1), "generic": (gen_generic.gen, 1.5),
            "localreq": (gen_localreq.gen, 1.5), "window": (gen_window.gen, 2),
            "scratch": (gen_scratch.gen, 2), "argred": (gen_argred.gen, 2),
            "gemv": (gen_gemv.gen, 1)}


def make(seed, names):
    """The case of one seed, drawn among the kinds `names`."""
    r = random.Random(seed)
    ks = kinds()
    names = [n for n in names if n in ks]
    k = r.choices(names, weights=[ks[n][1] for n in names])[0]
    return ks[k][0](r)


FLOAT_TOKEN = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+e[-+]?\d+|-?inf|nan")
INT_TOKEN = re.compile(r"-?\d+")


def parse(line):
    s = re.sub(r"-inf\b", '"-inf"', line.strip())
    s = re.sub(r"(?<![-\"])\binf\b", '"inf"', s)
    s = re.sub(r"\bnan\b", '"nan"', s)
    return json.loads(s)


def tokens(line):
    return re.findall(r"-?[\w.+-]+", line.replace("[", " ").replace("]", " ").replace(",", " "))


def check_line(line, val, prefix=""):
    """None when the printed line holds `val`, else a message. A Val with a `check` function
    judges the line itself (given the top-level names' prefix)."""
    if getattr(val, "check", None):
        return val.check(line, prefix)
    if val.kind == "s":             # an exact text line (typeof)
        return None if line == val.text else f"expected {val.text!r}, got {line[:200]!r}"
    try:
        got = parse(line)
    except ValueError:
        return f"cannot read {line[:80]!r}"
    toks = [t for t in tokens(line) if t not in ("true", "false")]
    if val.kind == "b":
        g = np.asarray(got)
        if g.dtype != bool or g.shape != val.v.shape or not np.array_equal(g, val.v):
            return f"expected {fmt(val.v)}, got {line[:200]}"
        return None
    if val.kind == "i" and any(not INT_TOKEN.fullmatch(t) for t in toks):
        return f"expected integers {fmt(val.v)}, got {line[:200]}"
    if val.kind == "f" and any(not FLOAT_TOKEN.fullmatch(t) for t in toks):
        return f"expected floats {fmt(val.v)}, got {line[:200]}"
    if val.kind == "i":             # exact, as Python ints (i64 extremes included)
        want = val.v.tolist()
        return None if got == want else f"expected {want}, got {line[:200]}"
    g = np.asarray(got, dtype=object)
    g = np.vectorize(lambda x: float(x), otypes=[float])(g) if g.size else g.astype(float)
    if g.shape != val.v.shape:
        return f"expected shape {val.v.shape}, got {g.shape}: {line[:200]}"
    w = val.v.astype(float)
    if val.v.dtype == np.float32:   # printed at f32's precision: compare as f32
        g = g.astype(np.float32).astype(float)
    if val.rtol == 0 and val.atol == 0:
        ok = np.array_equal(g, w, equal_nan=True)
    else:
        ok = np.allclose(g, w, rtol=val.rtol, atol=val.atol, equal_nan=True)
    return None if ok else f"expected {fmt(val.v)}, got {line[:300]}"


def fmt(v):
    return np.array2string(np.asarray(v), precision=17, threshold=60, separator=", ")


def judge(rc, out, err, case, prefix=""):
    lines = out.splitlines()
    if rc is None:
        return "hang"
    if rc != 0 and (rc != 1 or not DIAG.search(err)):
        return f"crash or uncoded failure (exit {rc}): {err.strip()[-300:]}"
    if rc != 0 and case.error is None:
        return f"rejected: {err.strip().splitlines()[0][:200] if err.strip() else ''}"
    if rc == 0 and case.error is not None:
        return f"missing error {case.error} (exit 0)"
    if rc != 0 and case.error not in DIAG.findall(err):
        return f"expected {case.error}, got {', '.join(DIAG.findall(err))}: {err.strip()[:200]}"
    if rc == 0 and len(lines) != len(case.vals):
        return f"printed {len(lines)} lines, expected {len(case.vals)}"
    if len(lines) > len(case.vals):
        return "printed more than expected before the error"
    for k, (ln, v) in enumerate(zip(lines, case.vals)):
        msg = check_line(ln, v, prefix)
        if msg:
            return f"line {k + 1}: {msg}"
    return None


def write_files(wd, case, prefix):
    for name, text in case.files.items():
        with open(os.path.join(wd, name.replace("$", prefix)), "w") as f:
            f.write(text.replace("$", prefix))


def run(ein, src, mode, wd, name):
    """(exit status or None on a time-out, stdout, stderr), by runner.py's run_ein."""
    p = runner.run_ein(ein, src, mode, wd, name)
    return (None if p.timed_out else p.rc), p.out, p.err


def work(ein, modes, seeds, names):
    """One batch: the error-free cases share one file per mode; the others run alone."""
    cases, res = [], []
    for s in seeds:
        try:
            cases.append((s, make(s, names)))
        except Exception as e:      # a bug in this tool: shown, counted as a mismatch
            res.append((s, "tool", "-", f"TOOL BUG {type(e).__name__}: {e}", ""))
    sessions = [(s, c) for s, c in cases if c.session is not None]
    cases = [(s, c) for s, c in cases if c.session is None]
    with tempfile.TemporaryDirectory(prefix="ein_tk_") as wd:
        for mode in modes:
            if sessions:
                import session_run
                group = [(n, f"q{n}_", c.session) for n, (_, c) in enumerate(sessions)]
                bad = session_run.run_sessions(ein, mode, wd, group)
                joined = [g for g in group if g[2].joinable]
                if joined:
                    bad += session_run.run_sessions(ein, mode, wd, joined, joined=True)
                for n, msg in bad:
                    s, c = sessions[n]
                    res.append((s, c.kind, mode, msg, session_run.render(c.session)))
            batch = [(s, c) for s, c in cases if c.error is None and not c.alone]
            alone = [(s, c) for s, c in cases if c.error is not None or c.alone]
            for n, (_, c) in enumerate(batch):
                write_files(wd, c, f"q{n}_")
            if batch:
                src = "".join(f'print("{MARK}{n}");\n' + c.src.replace("$", f"q{n}_")
                              for n, (_, c) in enumerate(batch))
                rc, out, err = run(ein, src, mode, wd, "batch.ein")
                if rc == 0:
                    parts, cur = {}, None
                    for ln in out.splitlines():
                        if ln.startswith(MARK):
                            cur = int(ln[len(MARK):])
                            parts[cur] = []
                        elif cur is not None:
                            parts[cur].append(ln)
                    for n, (s, c) in enumerate(batch):
                        msg = judge(0, "\n".join(parts.get(n, [])), "", c, f"q{n}_")
                        if msg:
                            res.append((s, c.kind, mode, msg, c.src))
                else:
                    alone += batch
            for s, c in alone:
                write_files(wd, c, "q_")
                rc, out, err = run(ein, c.src.replace("$", "q_"), mode, wd, "one.ein")
                msg = judge(rc, out, err, c, "q_")
                if msg:
                    res.append((s, c.kind, mode, msg, c.src))
    return len(cases) + len(sessions), res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ein", default=os.path.join(HERE, "..", "..", "build", "ein"))
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--modes", default="never,always")
    ap.add_argument("--kinds", default=None, help="comma-separated (default: all)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=12)
    ap.add_argument("--show", type=int, help="print the case of one program seed")
    a = ap.parse_args()
    a.ein = os.path.abspath(a.ein)
    names = a.kinds.split(",") if a.kinds else list(kinds())
    if a.show is not None:
        c = make(a.show, names)
        if c.session is not None:
            import session_run
            print("//# cells")
            print(session_run.render(c.session), end="")
            return 0
        for name, text in c.files.items():
            print(f"// file {name.replace('$', '')}:\n// " + text.replace("$", "").rstrip().replace("\n", "\n// "))
        print(c.src.replace("$", ""), end="")
        for v in c.vals:
            print("//>", (v.text or "(judged by a function)") if v.kind == "s"
                  else fmt(v.v).replace("\n", ""))
        if c.error:
            print("//!", c.error)
        return 0
    seeds = [a.seed * 1_000_000 + i for i in range(a.count)]
    chunks = [seeds[i:i + a.batch] for i in range(0, len(seeds), a.batch)]
    modes = [m for m in a.modes.split(",") if m]
    total, bad = 0, []
    with concurrent.futures.ProcessPoolExecutor(max_workers=a.jobs) as pool:
        for n, res in pool.map(work, *zip(*[(a.ein, modes, c, names) for c in chunks])):
            total += n
            for s, kind, mode, msg, src in res:
                bad.append(s)
                print(f"MISMATCH seed {s} [{kind}] EIN_JIT={mode}: {msg}")
                print("  " + src.replace("$", "").replace("\n", "\n  ").rstrip())
    print(f"textkinds: {total} programs, {len(bad)} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
