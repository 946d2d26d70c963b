#!/usr/bin/env python3
"""Checks that every public function's doc comment in share/std says its parameters and shapes
(issue 13: `?name` shows it): each parameter is named in the comment (as a word, `x`, or a
plural/`..` form the text reads as it), and the comment says what shape or kind goes in or comes
out (a `[..]` shape, or one of the words scalar, vector, matrix, array, shape, axis, rank,
elementwise, element, string, path, bool, number, count, tuple, list). Reports the gaps; exit 1
if any. Standard library only:

    python3 tests/stdlib/check_doc_params.py [--list]
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_stdlib_docs as D  # noqa: E402

SHAPE_WORDS = re.compile(r"\[|\b(scalars?|vectors?|matri(x|ces)|arrays?|shapes?|ax(is|es)|rank|elementwise|"
                         r"elements?|strings?|paths?|bools?|numbers?|counts?|tuples?|lists?|rows?|columns?|"
                         r"values?|images?|signals?|volumes?|batch(es)?|sequences?|states?|text|file|dir(ectory)?)\b",
                         re.IGNORECASE)


def params_of(sig):
    if not sig:
        return []
    inner = sig[sig.index("(") + 1:sig.index(")")]
    out, depth, cur = [], 0, ""
    for ch in inner + ",":
        if ch == "," and depth == 0:
            if cur.strip():
                out.append(cur.split(":")[0].strip())
            cur = ""
            continue
        depth += (ch == "[") - (ch == "]")
        cur += ch
    return out


def gaps():
    res = []
    for dirpath, _, files in os.walk(D.STD):
        for fn in sorted(files):
            if not fn.endswith(".ein"):
                continue
            path = os.path.join(dirpath, fn)
            _, _, items = D.parse(path)
            for kind, name, sig, doc, line in items:
                if kind != "fn":
                    continue
                text = " ".join(doc) if isinstance(doc, list) else (doc or "")
                miss = [p for p in params_of(sig) if not re.search(r"(?<![A-Za-z0-9_])" + re.escape(p) + r"(?![A-Za-z0-9_])", text)]
                # a typed signature (`x: [f64; 2]`) shows the shapes itself
                shape = bool(SHAPE_WORDS.search(text)) or not params_of(sig) or ":" in sig
                if miss or not shape:
                    res.append((os.path.relpath(path, D.ROOT), line, name, miss, shape))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    g = gaps()
    if args.list:
        for path, line, name, miss, shape in g:
            why = []
            if miss:
                why.append("does not name " + ", ".join(miss))
            if not shape:
                why.append("says no shape")
            print(f"{path}:{line}: {name}: {'; '.join(why)}")
    print(f"{len(g)} public function(s) whose doc comment misses a parameter or a shape")
    return 1 if g else 0


if __name__ == "__main__":
    sys.exit(main())
