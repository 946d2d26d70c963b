"""Running ein on generated programs and judging the result against the reference.

Programs are run in batches: several programs, their top-level names prefixed (`p3_v1`), in one
file, separated by marker lines, so that one process (and one native compile under
EIN_JIT=always) serves many programs. A program that fails inside a batch is run alone to
confirm; a failure that only happens in the batch is reported as such.
"""
import os
import re
import subprocess
import tempfile

from compare import check_lines
from render import render

MODES = {
    "never": {"EIN_JIT": "never"},
    # A tiny threshold makes `auto` mix tiers inside one program (the default, 32768 points,
    # would leave the small generated programs interpreted, as under `never`).
    "auto": {"EIN_JIT": "auto", "EIN_JIT_THRESHOLD": "20"},
    "always": {"EIN_JIT": "always"},
    "vector": {"EIN_JIT": "never", "EIN_INTERP": "vector"},
}
TIMEOUT = {"never": 30, "auto": 60, "always": 120, "vector": 30}
# On a loaded machine (four sessions on two cores) a program whose derivative compiles ~40
# kernels under `always` can pass 120 s: DIFFTEST_TIMEOUT_SCALE=3 gives every mode 3 x its limit.
SCALE = float(os.environ.get("DIFFTEST_TIMEOUT_SCALE", "1") or 1)
CRASH = {134, 136, 139}
DIAG = re.compile(r"error\[(E\d{3})\]")
LOC = re.compile(r" --> [^\n]*?:(\d+):(\d+)")
MARK = "@@P"


class Expect:
    """What the reference says a program prints, and the error it must end with (or None)."""

    def __init__(self, lines, error=None, compile_time=False):
        self.lines, self.error, self.compile_time = lines, error, compile_time


class Run:
    def __init__(self, rc, out, err, timed_out=False):
        self.rc, self.out, self.err, self.timed_out = rc, out, err, timed_out


def run_ein(ein, src, mode, workdir, name="prog.ein"):
    path = os.path.join(workdir, name)
    with open(path, "w") as f:
        f.write(src)
    env = dict(os.environ)
    env.pop("EIN_INTERP", None)
    env.update(MODES[mode])
    try:
        # A program with cell boundaries is a session (SPEC §11): `ein --cells`.
        cmd = [ein, "--cells", name] if "\n// %%\n" in src else [ein, name]
        p = subprocess.run(cmd, cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=TIMEOUT[mode] * SCALE)
        return Run(p.returncode, p.stdout.decode("utf-8", "replace"),
                   p.stderr.decode("utf-8", "replace"))
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")
        return Run(None, out, (e.stderr or b"").decode("utf-8", "replace"), timed_out=True)


def abnormal(run):
    """(category, message) for a hang, a crash or a failure without a proper diagnostic."""
    if run.timed_out:
        return ("hang", "no result within the time limit")
    if run.rc < 0 or run.rc in CRASH:
        return ("crash", f"exit status {run.rc}: {run.err.strip()[-300:]}")
    if run.rc != 0:
        codes = DIAG.findall(run.err)
        if run.rc != 1 or not codes or not LOC.search(run.err):
            return ("bad-diagnostic", f"exit {run.rc} without a coded diagnostic and span: "
                    f"{run.err.strip()[:300]}")
    return None


def judge(run, exp):
    """None when ein behaved as the reference says, else (category, message)."""
    bad = abnormal(run)
    if bad:
        return bad
    lines = run.out.splitlines()
    if run.rc != 0:
        codes = DIAG.findall(run.err)
        if exp.error is None:
            first = run.err.strip().splitlines()[0] if run.err.strip() else ""
            return (f"rejected-{codes[0]}", first[:200])
        if exp.error not in codes:
            return (f"wrong-error-{codes[0]}", f"expected {exp.error}, got {', '.join(codes)}")
        if len(lines) > len(exp.lines):
            return ("output-before-error", "printed more than the reference before failing")
        msg = check_lines(lines, exp.lines[:len(lines)])
        return None if msg is None else ("value", msg)
    if exp.error is not None:
        return (f"missing-error-{exp.error}", "exit status 0")
    msg = check_lines(lines, exp.lines)
    return None if msg is None else ("value", msg)


def batch_source(progs):
    """One file for several programs; returns (source, [(first line, last line)])."""
    parts, spans = [], []
    line = 1
    for n, p in enumerate(progs):
        head = f'print("{MARK}{n}");\n'
        body = render(p, prefix=f"p{n}_")
        text = head + body
        k = text.count("\n")
        spans.append((line, line + k - 1))
        parts.append(text)
        line += k
    return "".join(parts), spans


def split_output(out, mark=MARK):
    """Batch stdout -> {program number: [lines]} for every program that started (after its
    `mark` line)."""
    res = {}
    cur = None
    for ln in out.splitlines():
        if ln.startswith(mark) and ln[len(mark):].isdigit():
            cur = int(ln[len(mark):])
            res[cur] = []
        elif cur is not None:
            res[cur].append(ln)
    return res


def joined(lines):
    return "".join(ln + "\n" for ln in lines)


def culprits(err, spans):
    """Programs a batch's diagnostics point into."""
    hit = set()
    for m in LOC.finditer(err):
        ln = int(m.group(1))
        for n, (a, b) in enumerate(spans):
            if a <= ln <= b:
                hit.add(n)
    return hit


def run_batch(ein, progs, exps, mode, workdir, judge=judge):
    """Judge every program of the batch under `mode`: {index: None | (category, message)}."""
    verdict = {}
    todo = list(range(len(progs)))
    while todo:
        sub = [progs[i] for i in todo]
        src, spans = batch_source(sub)
        run = run_ein(ein, src, mode, workdir, "batch.ein")
        outs = split_output(run.out)
        if run.rc == 0 and not run.timed_out:
            for k, i in enumerate(todo):
                verdict[i] = judge(Run(0, joined(outs.get(k, [])), ""), exps[i])
            break
        bad = culprits(run.err, spans) if run.rc == 1 else set()
        if not bad:
            # a crash, a hang or an unlocated failure: run the rest one by one
            for i in todo:
                verdict[i] = judge(run_ein(ein, render(progs[i]), mode, workdir), exps[i])
            break
        # programs that completed before the failing one are judged from the batch output
        first_bad = min(bad)
        for k, i in enumerate(todo):
            if k < first_bad and k in outs and (k + 1) in outs:
                verdict[i] = judge(Run(0, joined(outs[k]), ""), exps[i])
        for k in bad:
            i = todo[k]
            verdict[i] = judge(run_ein(ein, render(progs[i]), mode, workdir), exps[i])
        todo = [i for i in todo if i not in verdict]
    return verdict
