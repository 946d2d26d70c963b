#!/usr/bin/env python3
"""Checks the standard library against stdlib_surface.md: every (module path, function) pair
the surface lists -- directly or through a re-export -- must resolve, and must take the listed
number of parameters.

    python3 tests/stdlib/check_surface.py --ein build/ein [-v]

The surface is read from ../shared/stdlib_surface.md beside the checkout (the shared spec) when
it exists, else from the copy tests/stdlib/stdlib_surface.md. One program per module path
imports every name with `use PATH::{...};` (an unresolved name is E003/E010) and calls each as
`PATH::name(...)` with one argument too many, so that the compiler's arity error states the
parameter count; a program that does not resolve is retried one name at a time to list exactly
what is missing. Standard library only.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "stdlib_surface.md")
COPY = os.path.join(HERE, "stdlib_surface.md")
# (module path, function) pairs that cannot resolve yet because of a compiler bug owned by
# another area: "PATH::NAME  reason". They are checked one by one and must still fail; one that
# passes is reported so that its line is removed.
PENDING = os.path.join(HERE, "surface_pending.txt")

SECTION = re.compile(r"^## `([A-Za-z_:]+)`\s*$")
REEXPORT = re.compile(r"^- `([A-Za-z_:]+)`: (.*)$")


def split_top(s, sep=","):
    """s split at `sep` outside brackets and parentheses."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [p.strip() for p in out]


def parse_functions(line):
    """[(name, arity)] of a line like "`f(a, b: [f64; ?, ?])`, `g() -> f64`"."""
    fns = []
    for code in re.findall(r"`([^`]*)`", line):
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)\((.*)\)(\s*->.*)?$", code)
        if not m:
            raise SystemExit(f"surface: cannot read the function `{code}`")
        params = split_top(m.group(2))
        fns.append((m.group(1), len(params)))
    return fns


def parse_surface(text):
    """({module: {name: arity}}, [(target, source_module, name_or_*, alias)])."""
    modules, reexports = {}, []
    lines = text.split("\n")
    current = None
    in_reexports = False
    for line in lines:
        m = SECTION.match(line)
        if m:
            current, in_reexports = m.group(1), False
            modules.setdefault(current, {})
            continue
        if line.startswith("## "):
            current = None
            in_reexports = line.strip() == "## Re-exports"
            continue
        if current and line.startswith("`"):
            for name, arity in parse_functions(line):
                modules[current][name] = arity
        elif in_reexports:
            m = REEXPORT.match(line)
            if not m:
                continue
            target = m.group(1)
            for item in re.findall(r"`([^`]*)`", m.group(2)):
                path = item if item.startswith("std::") else target + "::" + item
                if path.endswith("::*"):
                    reexports.append((target, path[:-3], "*", None))
                    continue
                lm = re.match(r"^(.*)::\{(.*)\}$", path)
                if lm:
                    src, names = lm.group(1), split_top(lm.group(2))
                else:
                    src, names = path.rsplit("::", 1)[0], [path.rsplit("::", 1)[1]]
                for n in names:
                    parts = n.split(" as ")
                    reexports.append((target, src, parts[0].strip(),
                                      parts[1].strip() if len(parts) > 1 else None))
    return modules, reexports


def closure(modules, reexports):
    """{module path: {name: set of arities}} with every re-export applied (to a fixed point)."""
    avail = {m: {n: {a} for n, a in fns.items()} for m, fns in modules.items()}
    changed = True
    while changed:
        changed = False
        for target, src, name, alias in reexports:
            tgt = avail.setdefault(target, {})
            srcfns = avail.get(src, {})
            pairs = srcfns.items() if name == "*" else [(name, srcfns.get(name))]
            for n, ar in pairs:
                if ar is None:
                    continue  # perhaps defined by a re-export not applied yet
                key = alias or n
                before = set(tgt.get(key, set()))
                tgt.setdefault(key, set()).update(ar)
                changed = changed or tgt[key] != before
    for target, src, name, alias in reexports:
        if name != "*" and name not in avail.get(src, {}):
            raise SystemExit(f"surface: {target} re-exports {src}::{name}, which does not exist")
    return avail


def run(ein, source, workdir):
    path = os.path.join(workdir, "surface_probe.ein")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    p = subprocess.run([ein, path], capture_output=True, text=True, timeout=120,
                       cwd=workdir, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout + p.stderr


ARITY = re.compile(r"error\[E002\]: `[A-Za-z_0-9]+` takes (\d+) arguments? but (\d+) (?:was|were) given"
                   r"\s*\n\s*--> [^\n]*surface_probe\.ein:(\d+):")
UNRESOLVED = re.compile(r"error\[E0(03|10)\]")


def check_module(ein, path, names, workdir, verbose):
    """Problems of one module path: [(name, message)]."""
    order = sorted(names)
    head = f"use {path}::{{{', '.join(order)}}};\n"
    calls = "".join(f"{path}::{n}({', '.join(['0'] * (max(names[n]) + 1))});\n" for n in order)
    rc, out = run(ein, head + calls, workdir)
    if UNRESOLVED.search(out):
        # find exactly which names do not resolve
        problems = []
        for n in order:
            rc1, out1 = run(ein, f"use {path}::{n};\nlet _f = {path}::{n};\n", workdir)
            if UNRESOLVED.search(out1):
                first = next((l for l in out1.split("\n") if l.startswith("error")), out1)
                problems.append((n, "does not resolve: " + first))
        if problems:
            return problems
        return [("*", "the names resolve one by one but not together:\n" + out)]
    seen = {}
    for m in ARITY.finditer(out):
        line = int(m.group(3))
        if 2 <= line < 2 + len(order):
            seen[order[line - 2]] = int(m.group(1))
    problems = []
    for n in order:
        if n not in seen:
            problems.append((n, "no arity error for a call with too many arguments"
                             + (":\n" + out if verbose else "")))
        elif seen[n] not in names[n]:
            problems.append((n, f"takes {seen[n]} parameters, the surface lists "
                             f"{' or '.join(map(str, sorted(names[n])))}"))
    return problems


def read_pending():
    pend = {}
    if os.path.exists(PENDING):
        with open(PENDING, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    key, _, why = line.partition(" ")
                    pend[key] = why.strip()
    return pend


def still_fails(ein, path, name, arity, workdir):
    rc, out = run(ein, f"use {path}::{name};\n{path}::{name}({', '.join(['0'] * (arity + 1))});\n", workdir)
    m = ARITY.search(out)
    return not (m and int(m.group(1)) == arity)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ein", default=os.path.join(ROOT, "build", "ein"))
    ap.add_argument("--surface", default=None)
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    surface = args.surface or (SHARED if os.path.exists(SHARED) else COPY)
    with open(surface, encoding="utf-8") as f:
        text = f.read()
    if surface == SHARED and os.path.exists(COPY):
        with open(COPY, encoding="utf-8") as f:
            if f.read() != text:
                print(f"note: {COPY} differs from {SHARED}; checking the shared one "
                      "(copy it over to update)")
    modules, reexports = parse_surface(text)
    avail = closure(modules, reexports)
    total = sum(len(v) for v in avail.values())
    pending = read_pending()
    bad = waiting = 0
    with tempfile.TemporaryDirectory(prefix="ein_surface_") as wd:
        for path in sorted(avail):
            names = {n: a for n, a in avail[path].items() if f"{path}::{n}" not in pending}
            for name, msg in check_module(args.ein, path, names, wd, args.v):
                bad += 1
                print(f"FAIL {path}::{name}: {msg}")
            for n in sorted(set(avail[path]) - set(names)):
                if still_fails(args.ein, path, n, max(avail[path][n]), wd):
                    waiting += 1
                    if args.v:
                        print(f"pending {path}::{n}: {pending[f'{path}::{n}']}")
                else:
                    bad += 1
                    print(f"FAIL {path}::{n} resolves now: remove it from {os.path.relpath(PENDING, ROOT)}")
    print(f"{total - bad - waiting} of {total} (module path, function) pairs of "
          f"{os.path.relpath(surface, ROOT)} resolve with the listed parameter count"
          + (f"; {waiting} pending on compiler fixes ({os.path.relpath(PENDING, ROOT)})" if waiting else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
