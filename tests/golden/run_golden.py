#!/usr/bin/env python3
"""Run the golden tests: every tests/golden/**/*.ein, checked against expectations written
inside the file as comments (format: tests/golden/README.md).

Usage: run_golden.py [--ein PATH] [--dir DIR] [-k SUBSTRING] [-v] [-j JOBS] [--timeout SECONDS]

Directives (each on its own line, leading whitespace allowed):
  //> text          the next expected stdout line (all of them, in order, exactly; numbers
                    compare with relative tolerance 1e-5, absolute 1e-6)
  //! E004 @3       the run must fail (non-zero exit, no crash) with `error[E004]` on stderr and
                    a ` --> FILE:3:COL` location; `//! E004` leaves the line open
  //$ NAME=VALUE    environment for the run, e.g. `//$ EIN_JIT=always`; `//$ NAME=A|B` runs
                    the file once per value (each run must meet every expectation)
  //# cells         run `ein --cells FILE` instead of `ein FILE`
  //# module        not a test: a module imported by other golden files

Standard library only (Python 3.11), so it runs before any test dependency is installed.
"""
import argparse
import concurrent.futures
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Same number syntax and tolerance as the shared conformance runner, so a program that passes
# there passes here; reimplemented rather than imported because ../shared is optional.
NUMBER = r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?inf|nan"
SPLIT = re.compile(f"({NUMBER})")
LOCATION = re.compile(r" --> [^\n]*?:(\d+):\d+")
EXPECT_ERROR = re.compile(r"(E\d{3})(?:\s+@(\d+))?")
CRASH_CODES = {134, 136, 139}  # abort, SIGFPE, SIGSEGV as reported through a shell


class BadTest(Exception):
    """The golden file itself is malformed."""


class Golden:
    def __init__(self, path):
        self.path = path
        self.stdout = []   # expected lines
        self.errors = []   # (code, line or None)
        self.env = {}
        self.variants = None  # (NAME, [values]): one run per value
        self.cells = False
        self.module = False
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, raw in enumerate(f, 1):
                self._directive(raw.strip(), n)

    def _directive(self, line, n):
        if line.startswith("//>"):
            text = line[3:]
            self.stdout.append(text[1:] if text.startswith(" ") else text)
        elif line.startswith("//!"):
            m = EXPECT_ERROR.fullmatch(line[3:].strip())
            if not m:
                raise BadTest(f"line {n}: expected `//! E004` or `//! E004 @LINE`")
            self.errors.append((m.group(1), int(m.group(2)) if m.group(2) else None))
        elif line.startswith("//$"):
            name, eq, value = line[3:].strip().partition("=")
            if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                raise BadTest(f"line {n}: expected `//$ NAME=VALUE`")
            if "|" in value:
                if self.variants:
                    raise BadTest(f"line {n}: only one `//$ NAME=A|B` line per file")
                self.variants = (name, value.split("|"))
            else:
                self.env[name] = value
        elif line.startswith("//#"):
            option = line[3:].strip()
            if option == "cells":
                self.cells = True
            elif option == "module":
                self.module = True
            else:
                raise BadTest(f"line {n}: unknown option `//# {option}`")


def numbers_close(a, b):
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= max(1e-6, 1e-5 * max(abs(x), abs(y)))


def line_matches(got, want):
    # re.split with a capturing group alternates text, number, text, ...: text at even indices.
    g, w = SPLIT.split(got.rstrip()), SPLIT.split(want.rstrip())
    if len(g) != len(w):
        return False
    return all(a == b if i % 2 == 0 else numbers_close(a, b)
               for i, (a, b) in enumerate(zip(g, w)))


def first_difference(got_text, want_lines):
    got = got_text.split("\n")
    if got and got[-1] == "":
        got.pop()  # the final newline ends the last line; it does not start a new one
    for i in range(max(len(got), len(want_lines))):
        if i >= len(got):
            return f"stdout line {i + 1}: expected {want_lines[i]!r}, got end of output"
        if i >= len(want_lines):
            return f"stdout line {i + 1}: unexpected {got[i]!r} (expected end of output)"
        if not line_matches(got[i], want_lines[i]):
            return f"stdout line {i + 1}: expected {want_lines[i]!r}, got {got[i]!r}"
    return None


def crashed(rc):
    return rc < 0 or rc in CRASH_CODES


def check(golden, ein, timeout):
    """Returns (problem or None, details for -v); with variants, the first failing run's."""
    if not golden.variants:
        return check_run(golden, ein, timeout, golden.env)
    name, values = golden.variants
    for value in values:
        problem, details = check_run(golden, ein, timeout, dict(golden.env, **{name: value}))
        if problem:
            return f"[{name}={value}] {problem}", details
    return None, ""


def check_run(golden, ein, timeout, run_env):
    cwd, name = os.path.split(golden.path)
    cmd = [ein, "--cells", name] if golden.cells else [ein, name]
    env = dict(os.environ, **run_env)
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout}s", ""
    except OSError as e:
        return f"cannot run {ein}: {e.strerror}", ""
    out = p.stdout.decode("utf-8", errors="replace")
    err = p.stderr.decode("utf-8", errors="replace")
    details = f"$ {' '.join(cmd)}  (exit {p.returncode})\n--- stdout\n{out}--- stderr\n{err}"
    if crashed(p.returncode):
        return f"crashed (exit {p.returncode}): {err.strip()[-300:]!r}", details
    if golden.errors:
        if p.returncode == 0:
            return "expected a failure, but the exit status was 0", details
        lines = {int(x) for x in LOCATION.findall(err)}
        for code, line in golden.errors:
            if f"error[{code}]" not in err:
                return f"stderr lacks error[{code}]: {err.strip()[:300]!r}", details
            if line is not None and line not in lines:
                return (f"no ' --> FILE:{line}:COL' location for {code} "
                        f"(locations found: {sorted(lines)})"), details
    elif p.returncode != 0:
        return f"exit status {p.returncode}: {err.strip()[:300]!r}", details
    return first_difference(out, golden.stdout), details


def collect(directory, substring, exclude=()):
    found = []
    for root, dirs, files in os.walk(directory):
        dirs.sort()
        found += [os.path.join(root, f) for f in files if f.endswith(".ein")]
    rels = [(p, os.path.relpath(p, directory)) for p in found]
    return sorted(p for p, r in rels if substring in r and not any(x in r for x in exclude))


def run_one(path, ein, timeout):
    try:
        golden = Golden(path)
    except (BadTest, OSError) as e:
        return "FAIL", f"malformed golden file: {e}", ""
    if golden.module:
        return "MODULE", None, ""
    problem, details = check(golden, ein, timeout)
    return ("FAIL" if problem else "PASS"), problem, details


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ein", default=os.path.join(ROOT, "build", "ein"))
    ap.add_argument("--dir", default=HERE, help="directory searched for *.ein")
    ap.add_argument("-k", default="", metavar="SUBSTRING", help="only paths containing this")
    ap.add_argument("-v", action="store_true", help="show command, stdout and stderr of failures")
    ap.add_argument("-j", type=int, default=2, metavar="JOBS", help="parallel runs (default 2)")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per file (default 60)")
    ap.add_argument("--exclude", action="append", default=[], metavar="SUBSTRING",
                    help="skip paths containing this (repeatable), e.g. pending/")
    a = ap.parse_args()
    ein = os.path.abspath(a.ein)
    if not os.access(ein, os.X_OK):
        print(f"run_golden: {a.ein} is not an executable (build first: scripts/build.sh)")
        print("0 passed, 1 failed")
        return 1
    paths = collect(a.dir, a.k, a.exclude)
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.j)) as pool:
        results = pool.map(lambda p: run_one(p, ein, a.timeout), paths)
        for path, (status, problem, details) in zip(paths, results):
            rel = os.path.relpath(path, a.dir)
            if status == "MODULE":
                continue
            if status == "PASS":
                passed += 1
                print(f"PASS {rel}")
            else:
                failed += 1
                print(f"FAIL {rel}: {problem}")
                if a.v and details:
                    print("    " + details.rstrip("\n").replace("\n", "\n    "))
            sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
