#!/usr/bin/env python3
"""Fails if a public std:: function is not called by any test under tests/stdlib/cases/.

A cheap guard that every function the library exports has NumPy-checked tests: it looks for
`name(` in the generated test programs. Standard library only.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_stdlib_docs  # noqa: E402


def main():
    text = ""
    for d, _, files in os.walk(os.path.join(HERE, "cases")):
        for f in files:
            if f.endswith(".ein"):
                with open(os.path.join(d, f), encoding="utf-8") as fh:
                    text += fh.read()
    untested = []
    total = 0
    for m, (file, _, _, items) in sorted(gen_stdlib_docs.collect().items()):
        for kind, name, _, _, line in items:
            if kind != "fn":
                continue
            total += 1
            if not re.search(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"\(", text):
                untested.append(f"{file}:{line}: {m}::{name} is not called by any test")
    for u in untested:
        print(u)
    print(f"{total - len(untested)} of {total} public functions are called by tests/stdlib/cases")
    return 1 if untested else 0


if __name__ == "__main__":
    sys.exit(main())
