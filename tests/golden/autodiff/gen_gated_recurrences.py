#!/usr/bin/env python3
"""Writes the ad_gated_*.ein goldens: gradients of gated recurrences written as one
clause per step (a GRU with a reset gate, an LSTM whose cell state and output are two rows of one
state tensor, a tanh RNN feeding a minimal gated unit). Their adjoints read the gate arguments and
the gates' pointwise derivatives from intermediates stored after the primal (lang/passes/
ad_stored.cpp) when the budget allows, and recompute them otherwise: the `_stored` files run with
the default budget, the `_recomputed` ones with EIN_AD_MEMORY=2K (nothing stored; the checkpoint
pass may place checkpoints). Expected values are NumPy central finite differences of the same
programs written in NumPy, never ein's output.

  PYENV_VERSION=system python3 tests/golden/autodiff/gen_gated_recurrences.py
"""
import os

import numpy as np

from gen_reverse_windows import fd, fmt

HERE = os.path.dirname(os.path.abspath(__file__))


def sig(v):
    return 1.0 / (1.0 + np.exp(-v))


def mat(rows, cols, f, a, b, scale):
    j, k = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    return f((j * a + k) * b) * scale


def inputs(T, K):
    t, k = np.meshgrid(np.arange(T), np.arange(K), indexing="ij")
    return np.sin((t * 7 + k * 3) * 0.05)


# --- A: GRU, the update gate written twice, the reset gate inside the candidate's sum -----------
T_A, H_A, K_A = 16, 5, 3
GRU = {
    "Wz": mat(H_A, K_A, np.cos, 5, 0.11, 0.4), "Uz": mat(H_A, H_A, np.sin, 3, 0.13, 0.3),
    "Wh": mat(H_A, K_A, np.cos, 7, 0.05, 0.4), "Uh": mat(H_A, H_A, np.cos, 2, 0.17, 0.3),
    "Wr": mat(H_A, K_A, np.sin, 2, 0.21, 0.4), "Ur": mat(H_A, H_A, np.cos, 4, 0.07, 0.3),
    "x": inputs(T_A, K_A),
}


def gru(p):
    h = 0.1 * np.sin(np.arange(H_A))
    mid = None
    for t in range(1, T_A):
        z = sig(p["Wz"] @ p["x"][t] + p["Uz"] @ h)
        r = sig(p["Wr"] @ p["x"][t] + p["Ur"] @ h)
        n = np.tanh(p["Wh"] @ p["x"][t] + p["Uh"] @ (r * h))
        h = (1 - z) * h + z * n
        if t == T_A // 2:
            mid = h
    return float((h * h).sum() + 0.5 * mid.sum())


GRU_SRC = f"""use std::math::{{sin, cos, tanh}};
use std::ml::{{sigmoid}};
let x[t in 0..{T_A}, k in 0..{K_A}] = sin(((t * 7 + k * 3) as f64) * 0.05);
let Wz[j in 0..{H_A}, k in 0..{K_A}] = cos(((j * 5 + k) as f64) * 0.11) * 0.4;
let Uz[j in 0..{H_A}, l in 0..{H_A}] = sin(((j * 3 + l) as f64) * 0.13) * 0.3;
let Wh[j in 0..{H_A}, k in 0..{K_A}] = cos(((j * 7 + k) as f64) * 0.05) * 0.4;
let Uh[j in 0..{H_A}, l in 0..{H_A}] = cos(((j * 2 + l) as f64) * 0.17) * 0.3;
let Wr[j in 0..{H_A}, k in 0..{K_A}] = sin(((j * 2 + k) as f64) * 0.21) * 0.4;
let Ur[j in 0..{H_A}, l in 0..{H_A}] = cos(((j * 4 + l) as f64) * 0.07) * 0.3;
let h[0, j in 0..{H_A}] = 0.1 * sin(j as f64);
let h[t in 1..{T_A}, j in 0..{H_A}] = (1.0 - sigmoid(sum[k](Wz[j, k] * x[t, k]) + sum[l](Uz[j, l] * h[t - 1, l]))) * h[t - 1, j]
  + sigmoid(sum[k](Wz[j, k] * x[t, k]) + sum[l](Uz[j, l] * h[t - 1, l]))
  * tanh(sum[k](Wh[j, k] * x[t, k]) + sum[l](Uh[j, l] * sigmoid(sum[k](Wr[l, k] * x[t, k]) + sum[m](Ur[l, m] * h[t - 1, m])) * h[t - 1, l]));
let L = sum[j](h[{T_A - 1}, j] * h[{T_A - 1}, j]) + 0.5 * sum[j](h[{T_A // 2}, j]);
"""

# --- B: LSTM, s[t, 0, j] the cell state, s[t, 1, j] the output ------------------------------
T_B, H_B, K_B = 20, 5, 3
LSTM = {
    "Wf": mat(H_B, K_B, np.cos, 5, 0.11, 0.4), "Uf": mat(H_B, H_B, np.sin, 3, 0.13, 0.3),
    "Wi": mat(H_B, K_B, np.sin, 2, 0.21, 0.4), "Ui": mat(H_B, H_B, np.cos, 4, 0.07, 0.3),
    "Wg": mat(H_B, K_B, np.cos, 7, 0.05, 0.4), "Ug": mat(H_B, H_B, np.cos, 2, 0.17, 0.3),
    "Wo": mat(H_B, K_B, np.sin, 3, 0.19, 0.4), "Uo": mat(H_B, H_B, np.sin, 5, 0.09, 0.3),
    "x": inputs(T_B, K_B),
}


def lstm(p):
    c = 0.1 * np.cos(np.arange(H_B))
    h = 0.1 * np.cos(np.arange(H_B) + 1)
    for t in range(1, T_B):
        xt = p["x"][t]
        c = (sig(p["Wf"] @ xt + p["Uf"] @ h) * c
             + sig(p["Wi"] @ xt + p["Ui"] @ h) * np.tanh(p["Wg"] @ xt + p["Ug"] @ h))
        h = sig(p["Wo"] @ xt + p["Uo"] @ h) * np.tanh(c)
    return float((h * h).sum() + c.sum())


LSTM_SRC = f"""use std::math::{{sin, cos, tanh}};
use std::ml::{{sigmoid}};
let x[t in 0..{T_B}, k in 0..{K_B}] = sin(((t * 7 + k * 3) as f64) * 0.05);
let Wf[j in 0..{H_B}, k in 0..{K_B}] = cos(((j * 5 + k) as f64) * 0.11) * 0.4;
let Uf[j in 0..{H_B}, l in 0..{H_B}] = sin(((j * 3 + l) as f64) * 0.13) * 0.3;
let Wi[j in 0..{H_B}, k in 0..{K_B}] = sin(((j * 2 + k) as f64) * 0.21) * 0.4;
let Ui[j in 0..{H_B}, l in 0..{H_B}] = cos(((j * 4 + l) as f64) * 0.07) * 0.3;
let Wg[j in 0..{H_B}, k in 0..{K_B}] = cos(((j * 7 + k) as f64) * 0.05) * 0.4;
let Ug[j in 0..{H_B}, l in 0..{H_B}] = cos(((j * 2 + l) as f64) * 0.17) * 0.3;
let Wo[j in 0..{H_B}, k in 0..{K_B}] = sin(((j * 3 + k) as f64) * 0.19) * 0.4;
let Uo[j in 0..{H_B}, l in 0..{H_B}] = sin(((j * 5 + l) as f64) * 0.09) * 0.3;
let s[0, q in 0..2, j in 0..{H_B}] = 0.1 * cos((j + q) as f64);
let s[t in 1..{T_B}, 0, j in 0..{H_B}] = sigmoid(sum[k](Wf[j, k] * x[t, k]) + sum[l](Uf[j, l] * s[t - 1, 1, l])) * s[t - 1, 0, j]
  + sigmoid(sum[k](Wi[j, k] * x[t, k]) + sum[l](Ui[j, l] * s[t - 1, 1, l])) * tanh(sum[k](Wg[j, k] * x[t, k]) + sum[l](Ug[j, l] * s[t - 1, 1, l]));
let s[t in 1..{T_B}, 1, j in 0..{H_B}] = sigmoid(sum[k](Wo[j, k] * x[t, k]) + sum[l](Uo[j, l] * s[t - 1, 1, l])) * tanh(s[t, 0, j]);
let L = sum[j](s[{T_B - 1}, 1, j] * s[{T_B - 1}, 1, j]) + sum[j](s[{T_B - 1}, 0, j]);
"""

# --- C: a tanh RNN feeding a minimal gated unit -----------------------------------------------
T_C, H_C, K_C = 18, 4, 3
TWO = {
    "W1": mat(H_C, K_C, np.cos, 5, 0.11, 0.5), "V1": mat(H_C, H_C, np.sin, 3, 0.13, 0.4),
    "A": mat(H_C, H_C, np.sin, 2, 0.21, 0.4), "B": mat(H_C, H_C, np.cos, 4, 0.07, 0.3),
    "C": mat(H_C, H_C, np.cos, 7, 0.05, 0.4), "D": mat(H_C, H_C, np.sin, 5, 0.09, 0.3),
    "x": inputs(T_C, K_C),
}


def two(p):
    h1 = np.zeros(H_C)
    h2 = 0.2 * np.cos(np.arange(H_C))
    for t in range(1, T_C):
        h1 = np.tanh(p["W1"] @ p["x"][t] + p["V1"] @ h1)
        f = sig(p["A"] @ h1 + p["B"] @ h2)
        h2 = (1 - f) * h2 + f * np.tanh(p["C"] @ h1 + p["D"] @ h2)
    return float((h2 * h2).sum())


TWO_SRC = f"""use std::math::{{sin, cos, tanh}};
use std::ml::{{sigmoid}};
let x[t in 0..{T_C}, k in 0..{K_C}] = sin(((t * 7 + k * 3) as f64) * 0.05);
let W1[j in 0..{H_C}, k in 0..{K_C}] = cos(((j * 5 + k) as f64) * 0.11) * 0.5;
let V1[j in 0..{H_C}, l in 0..{H_C}] = sin(((j * 3 + l) as f64) * 0.13) * 0.4;
let A[j in 0..{H_C}, l in 0..{H_C}] = sin(((j * 2 + l) as f64) * 0.21) * 0.4;
let B[j in 0..{H_C}, l in 0..{H_C}] = cos(((j * 4 + l) as f64) * 0.07) * 0.3;
let C[j in 0..{H_C}, l in 0..{H_C}] = cos(((j * 7 + l) as f64) * 0.05) * 0.4;
let D[j in 0..{H_C}, l in 0..{H_C}] = sin(((j * 5 + l) as f64) * 0.09) * 0.3;
let h1[0, j in 0..{H_C}] = 0.0;
let h1[t in 1..{T_C}, j in 0..{H_C}] = tanh(sum[k](W1[j, k] * x[t, k]) + sum[l](V1[j, l] * h1[t - 1, l]));
let h2[0, j in 0..{H_C}] = 0.2 * cos(j as f64);
let h2[t in 1..{T_C}, j in 0..{H_C}] = (1.0 - sigmoid(sum[k](A[j, k] * h1[t, k]) + sum[l](B[j, l] * h2[t - 1, l]))) * h2[t - 1, j]
  + sigmoid(sum[k](A[j, k] * h1[t, k]) + sum[l](B[j, l] * h2[t - 1, l])) * tanh(sum[k](C[j, k] * h1[t, k]) + sum[l](D[j, l] * h2[t - 1, l]));
let L = sum[j](h2[{T_C - 1}, j] * h2[{T_C - 1}, j]);
"""

# (program, NumPy forward, parameters, requested gradients with the entries printed)
CASES = [
    ("gru", GRU_SRC, gru, GRU, [("Uz", (1, 2)), ("Uh", (3, 4)), ("Ur", (0, 3)), ("x", (5, 1))]),
    ("lstm", LSTM_SRC, lstm, LSTM, [("Uf", (1, 2)), ("Uo", (3, 4)), ("Wi", (2, 1)), ("x", (5, 1))]),
    ("two_layer", TWO_SRC, two, TWO, [("V1", (1, 2)), ("B", (3, 0)), ("D", (2, 2)), ("x", (4, 2))]),
]


def program(src, f, params, wrts):
    lines = [src.rstrip("\n")]
    outs, expect = ["L"], [fmt(f(params))]
    for w, (a, b) in wrts:
        lines.append(f"let g{w} = @L / @{w};")
        g = fd(lambda v, w=w: f({**params, w: v}), params[w])
        outs += [f"g{w}[{a}, {b}]", f"sum[p, q](g{w}[p, q])"]
        expect += [fmt(g[a, b]), fmt(g.sum())]
    lines.append(f"print({', '.join(outs)});")
    lines.append("//> " + " ".join(expect))
    return "\n".join(lines) + "\n"


MODES = [
    ("stored", "never|always|auto", [], "default budget: gate arguments and derivatives stored"),
    ("recomputed", "never|always", ["EIN_AD_MEMORY=2K"],
     "EIN_AD_MEMORY=2K: nothing stored, the sweep recomputes them (and may place checkpoints)"),
]

if __name__ == "__main__":
    for stem, src, f, params, wrts in CASES:
        text = program(src, f, params, wrts)
        for mode, jit, env, what in MODES:
            with open(os.path.join(HERE, f"ad_gated_{stem}_{mode}.ein"), "w") as out:
                out.write("// Generated by gen_gated_recurrences.py (expected: NumPy central finite differences).\n"
                          f"// {what}\n//$ EIN_JIT={jit}\n" + "".join(f"//$ {e}\n" for e in env) + text)
