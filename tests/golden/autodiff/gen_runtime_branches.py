#!/usr/bin/env python3
"""Writes ad_runtime_branches.ein: gradients requested inside generic functions through `if`s
whose condition is known only at run time and whose arms are arrays with statements or
non-elementwise calls (a user's flag, a test on an active value, std::ml's broadcasting
arithmetic, `where` and `gemm` with transposition flags). Each function is called with inputs
that take different arms. The reverse pass differentiates each arm under the same condition
(lang/passes/ad_variants.cpp); before, these were E013. Expected values are NumPy central
finite differences of the same functions written in NumPy, never ein's output.

  PYENV_VERSION=system python3 tests/golden/autodiff/gen_runtime_branches.py
"""
import os

import numpy as np

from gen_reverse_windows import fd, fmt

HERE = os.path.dirname(os.path.abspath(__file__))


def show(v):
    if isinstance(v, tuple):
        return "(" + ", ".join(show(e) for e in v) + ")"
    v = np.asarray(v)
    if v.ndim == 0:
        return fmt(float(v))
    return "[" + ", ".join(show(e) for e in v) + "]"


def user_branch(x, w, flag):
    y = np.sum(np.tanh(x * w)) * x if flag > 0 else x[::-1] * w
    return float(np.sum(y * y))


def active_branch(x, w):
    y = np.sum(x * w) * x if np.sum(x) > 0 else x[::-1] * w
    return float(np.sum(y * y * w))


def bcast(a, b):
    o = (a + b) * b
    return float(np.sum(o * o))


def wh(c, x, y):
    o = np.where(c, x, y)
    return float(np.sum(o * o * x))


def gm(A, B, ta, tb):
    At = A.T if ta else A
    Bt = B.T if tb else B
    o = 1.5 * (At @ Bt) + 2.0 * np.array([0.5, -0.5])
    return float(np.sum(o * o))


x = np.array([0.3, -0.2, 0.5, 0.1])
w = np.array([1.1, 0.7, -0.4, 0.9])
xn = np.array([-0.3, -0.2, 0.5, -0.1])
A = np.array([[0.1, 0.2, -0.3], [0.4, -0.5, 0.6]])
b1 = np.array([[0.7, -0.8, 0.9]])
b2 = np.array([[0.7, -0.8, 0.9], [0.2, 0.3, -0.1]])
C = np.array([[True, False, True], [False, False, True]])
B = np.array([[0.3, -0.6], [0.9, 0.2]])
A2 = np.array([[0.1, 0.2], [0.4, -0.5]])

SRC = """use std::math::{tanh};
use std::ml::{multiply, where, gemm, add};
// A user's flag: a block with a reduction, or a reversed read.
fn user_branch(x, w, flag) {
  let y = if flag > 0 {
    let t[i] = tanh(x[i] * w[i]);
    let u[i] = sum[j](t[j]) * x[i];
    u
  } else {
    let r[i] = x[len(x) - 1 - i] * w[i];
    r
  };
  let loss = sum[i](y[i] * y[i]);
  @loss / @x
}
let x: [f64; 4] = [0.3, -0.2, 0.5, 0.1];
let w: [f64; 4] = [1.1, 0.7, -0.4, 0.9];
print(user_branch(x, w, 1));
//> {ub1}
print(user_branch(x, w, 0));
//> {ub0}
// A test on an active value: piecewise, each piece's derivative.
fn active_branch(x, w) {
  let y = if sum[i](x[i]) > 0.0 {
    let u[i] = sum[j](x[j] * w[j]) * x[i];
    u
  } else {
    let r[i] = x[len(x) - 1 - i] * w[i];
    r
  };
  let loss = sum[i](y[i] * y[i] * w[i]);
  @loss / @x
}
print(active_branch(x, w));
//> {ab1}
print(active_branch([-0.3, -0.2, 0.5, -0.1], w));
//> {ab0}
// std::ml's broadcasting arithmetic, nested, two parameters of one sweep: b broadcast over the
// rows, then b of the same shape as a (the same specialisation, extents known only at run time).
fn bcast(a, b) {
  let o = multiply(add(a, b), b);
  let l = sum[i, j](o[i, j] * o[i, j]);
  (@l / @a, @l / @b)
}
let A: [f64; 2, 3] = [[0.1, 0.2, -0.3], [0.4, -0.5, 0.6]];
print(bcast(A, [[0.7, -0.8, 0.9]]));
//> {bc1}
print(bcast(A, [[0.7, -0.8, 0.9], [0.2, 0.3, -0.1]]));
//> {bc2}
// where: a run-time shape test, then broadcasting pairs inside the other arm.
fn wh(c, x, y) {
  let o = where(c, x, y);
  let l = sum[i, j](o[i, j] * o[i, j] * x[i, j]);
  (@l / @x, @l / @y)
}
let C = [[true, false, true], [false, false, true]];
print(wh(C, A, [[0.7, -0.8, 0.9]]));
//> {wh1}
print(wh(C, A, [[0.7, -0.8, 0.9], [0.2, 0.3, -0.1]]));
//> {wh2}
// gemm with transposition flags given at run time (two branches: four combinations).
fn gm(A, B, ta, tb) {
  let o = gemm(A, B, [0.5, -0.5], 1.5, 2.0, ta, tb);
  let l = sum[i, j](o[i, j] * o[i, j]);
  @l / @A
}
let B: [f64; 2, 2] = [[0.3, -0.6], [0.9, 0.2]];
let A2: [f64; 2, 2] = [[0.1, 0.2], [0.4, -0.5]];
print(gm(A2, B, 0, 0));
//> {gm00}
print(gm(A2, B, 1, 0));
//> {gm10}
print(gm(A2, B, 1, 1));
//> {gm11}
"""

vals = {
    "ub1": show(fd(lambda v: user_branch(v, w, 1), x)),
    "ub0": show(fd(lambda v: user_branch(v, w, 0), x)),
    "ab1": show(fd(lambda v: active_branch(v, w), x)),
    "ab0": show(fd(lambda v: active_branch(v, w), xn)),
    "bc1": show((fd(lambda v: bcast(v, b1), A), fd(lambda v: bcast(A, v), b1))),
    "bc2": show((fd(lambda v: bcast(v, b2), A), fd(lambda v: bcast(A, v), b2))),
    "wh1": show((fd(lambda v: wh(C, v, b1), A), fd(lambda v: wh(C, A, v), b1))),
    "wh2": show((fd(lambda v: wh(C, v, b2), A), fd(lambda v: wh(C, A, v), b2))),
    "gm00": show(fd(lambda v: gm(v, B, 0, 0), A2)),
    "gm10": show(fd(lambda v: gm(v, B, 1, 0), A2)),
    "gm11": show(fd(lambda v: gm(v, B, 1, 1), A2)),
}
with open(os.path.join(HERE, "ad_runtime_branches.ein"), "w") as out:
    out.write("// Generated by gen_runtime_branches.py (expected: NumPy central finite differences).\n"
              "//$ EIN_JIT=never|always\n")
    src = SRC
    for k, v in vals.items():
        src = src.replace("{" + k + "}", v)
    out.write(src)

# Library cases of tests/stdlib/autodiff/grad (their expected values: NumPy central differences)
# rewritten by tests/stdlib/survey_in_fn.py inside generic functions, where the library's shape
# tests and flags are known only at run time: one per kind of branch.
import sys  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "..", "stdlib"))
from survey_in_fn import rewrite  # noqa: E402

STD = ["add_broadcast", "cosine_similarity_broadcast", "where", "batch_matmul", "matmul_batch_broadcast",
       "gemm_trans", "gemm_c_column", "linear", "lstm_reverse", "gru_bidirectional", "rnn_bidirectional_sigmoid"]
for name in STD:
    case = os.path.join(HERE, "..", "..", "stdlib", "autodiff", "grad", name + ".ein")
    text = rewrite(open(case, encoding="utf-8").read())
    body = "\n".join(line for line in text.split("\n") if not line.startswith("// Generated by"))
    with open(os.path.join(HERE, f"ad_rtb_std_{name}.ein"), "w") as out:
        out.write(f"// Generated by gen_runtime_branches.py from tests/stdlib/autodiff/grad/{name}.ein, rewritten\n"
                  "// inside generic functions (tests/stdlib/survey_in_fn.py); expected: the case's NumPy central\n"
                  "// finite differences.\n//$ EIN_JIT=never|always\n" + body)
