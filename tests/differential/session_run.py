"""Running and judging `session` cases (gen_session.py) for textkinds.py.

Several sessions share one `ein --cells` process: each starts with a marker cell, its names are
prefixed, and ein's diagnostics are attributed to sessions and cells by their line numbers (a
session goes on after a failing cell, SPEC §11, so one session's errors do not disturb the
next). `Out[n]` counts every cell of the file. Joinable sessions also run as one file, without
cell boundaries and echoes, and must print the same values. A batch that crashes or hangs is
run again one session at a time, so that the report names the session.
"""
import re

from runner import split_output
from textkinds import MARK, check_line, run

SEP = "\n// %%\n"
ERR = re.compile(r"error\[(E\d{3})\][^\n]*\n\s*--> [^\n]*?:(\d+):\d+")
CODE = re.compile(r"error\[(E\d{3})\]")


def layout(sessions, joined=False):
    """(source, [(first line, last line, session k, cell c, global cell number)]) for sessions
    [(k, prefix, Session)]; the marker cells are (…, k, -1, …)."""
    parts, spans = [], []
    line, number = 1, 0
    for k, prefix, s in sessions:
        cells = [f'print("{MARK}{k}");'] + [c.replace("$", prefix) for c in s.cells]
        for c, text in enumerate(cells):
            if joined:
                text = echo_as_statement(text)
            number += 1
            n = text.count("\n") + 1
            spans.append((line, line + n - 1, k, c - 1, number))
            parts.append(text)
            line += n + (0 if joined else 1)     # the `// %%` line
    return ("\n" if joined else SEP).join(parts) + "\n", spans


def echo_as_statement(text):
    lines = text.split("\n")
    last = lines[-1].rstrip()
    if last and not last.endswith((";", "}")):
        lines[-1] = last + ";"
    return "\n".join(lines)


def judge_one(k, s, out_lines, cell_codes, spans, joined):
    """None, or a message for session k."""
    number = {c: g for (_, _, kk, c, g) in spans if kk == k}
    want = []
    for c, vals in enumerate(s.outs):
        for v in vals:
            if getattr(v, "echo", False):
                if not joined:
                    want.append((f"Out[{number[c]}]: ", v))
            else:
                want.append(("", v))
    if len(out_lines) != len(want):
        return (f"printed {len(out_lines)} lines, expected {len(want)}: "
                f"{' | '.join(out_lines)[:300]}")
    for n, (ln, (pre, v)) in enumerate(zip(out_lines, want)):
        if not ln.startswith(pre):
            return f"line {n + 1}: expected the prefix {pre!r}, got {ln[:100]!r}"
        msg = check_line(ln[len(pre):], v)
        if msg:
            return f"line {n + 1}: {msg}"
    for c, e in enumerate(s.errs):
        got = cell_codes.get((k, c), [])
        if joined:
            e = None
        if e is None and got:
            return f"cell {c + 1}: unexpected {', '.join(got)}"
        if e is not None and (not got or got[0] != e):
            return f"cell {c + 1}: expected {e}, got {', '.join(got) or 'no error'}"
    return None


def run_sessions(ein, mode, wd, sessions, joined=False):
    """[(k, message)] for the sessions [(k, prefix, Session)] that disagree with the model."""
    src, spans = layout(sessions, joined)
    rc, out, err = run(ein, src, mode, wd, "joined.ein" if joined else "cells.ein")
    if joined and "\n// %%\n" in src:
        raise AssertionError("joined source holds a cell boundary")
    bad_run = rc is None or rc not in (0, 1) or (rc == 1 and not CODE.search(err))
    codes = {}
    located = 0
    for m in ERR.finditer(err):
        located += 1
        ln = int(m.group(2))
        for a, b, k, c, _ in spans:
            if a <= ln <= b:
                codes.setdefault((k, c), []).append(m.group(1))
                break
    if len(CODE.findall(err)) != located or (joined and rc != 0):
        bad_run = True          # (one file stops at its first error: every session after it is lost)
    if bad_run and len(sessions) > 1:       # attribute it: one session at a time
        res = []
        for one in sessions:
            res += run_sessions(ein, mode, wd, [one], joined)
        return res
    if bad_run:
        what = "hang" if rc is None else f"exit {rc}"
        where = "one file: " if joined else ""
        return [(sessions[0][0], f"{where}crash, hang, unlocated diagnostic or error ({what}): "
                 f"{err.strip()[-300:]}")]
    parts = split_output(out, MARK)
    res = []
    for k, _, s in sessions:
        msg = judge_one(k, s, parts.get(k, []), codes, spans, joined)
        if msg:
            res.append((k, ("one file: " if joined else "") + msg))
    return res


def render(s):
    """The session as a golden-style text (cells, expected values and codes)."""
    from textkinds import fmt
    out = []
    for c, (text, vals, e) in enumerate(zip(s.cells, s.outs, s.errs)):
        if c:
            out.append("// %%")
        out.append(text.replace("$", ""))
        for v in vals:
            out.append(("//> Out[?]: " if getattr(v, "echo", False) else "//> ")
                       + fmt(v.v).replace("\n", ""))
        if e:
            out.append(f"//! {e}")
    return "\n".join(out) + "\n"
