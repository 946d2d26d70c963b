#!/usr/bin/env python3
"""Writes entry_tested_divisors.ein: integer quotients and remainders by a scalar fixed at kernel
entry (engine/codegen/gen_check.cpp: the divisor is tested once at entry, the fast version
divides in plain C; subscripts `m / c`, `m % c` are entry-tested). Values by hand (truncating
division, the remainder takes the dividend's sign, MIN / -1 wraps: SPEC section 4)."""


def tdiv(a, b):
    q = abs(a) // abs(b)
    q = q if (a >= 0) == (b > 0) else -q
    return ((q + 2**31) % 2**32) - 2**31  # i32 wraps


def trem(a, b):
    return a - b * int(abs(a) // abs(b) * (1 if (a >= 0) == (b > 0) else -1))


out = []
w = out.append
w("// Integer quotients and remainders by a scalar fixed at kernel entry (a function's parameter,")
w("// an extent): engine/codegen/gen_check.cpp tests such a divisor once at entry (neither 0 nor")
w("// -1) and the fast version divides in plain C, moved out of the loops; a subscript `m / c`")
w("// or `m % c` (std conv's grouped read `Yg[m / MG, m % MG, ..]`) is decided at entry too.")
w("// Divisors 1, 3, -3 and -1 (MIN / -1 wraps), dividends of both signs, a divisor of 0 under a")
w("// branch that is never taken, groups of one, rows of 1, 17 and 257 values; last, E007 for a")
w("// zero divisor. Values by hand (entry_tested_divisors.py writes this file).")
w("//$ EIN_JIT=never|always")
w("fn grp(Yg, G) { let MG = len(Yg[0]); let Y[m in 0..G * MG, o in 0..len(Yg[0, 0])] = Yg[m / MG, m % MG, o] + 0.5; Y }")
w("fn qr(x, d) { let y[i in 0..len(x)] = x[i] / d * 1000 + x[i] % d; y }")
w("fn safe(x, d) { let y[i in 0..len(x)] = if d != 0 { x[i] / d } else { -7 }; y }")
w("fn wrapped(T, k) { let y[i in 0..len(T) * 3] = T[(i + 5) % k]; y }")

for G, MG, L in ((2, 3, 17), (3, 1, 5), (1, 4, 257), (4, 2, 1)):
    name = f"Yg{G}_{MG}_{L}"
    w(f"let {name}[g in 0..{G}, j in 0..{MG}, o in 0..{L}] = (g * 100 + j * 10 + o % 7) as f32;")
    vals = {}
    for m in range(G * MG):
        for o in range(L):
            vals[(m, o)] = (m // MG) * 100 + (m % MG) * 10 + o % 7 + 0.5
    pts = [(0, 0), (G * MG - 1, L - 1), (G * MG // 2, L // 2)]
    total = sum(vals.values())
    w(f"let Y = grp({name}, {G});")
    w("print(" + ", ".join(f"Y[{m}, {o}]" for m, o in pts) + ", sum[m, o](Y[m, o]));")
    w("//> " + " ".join(repr(vals[p]) for p in pts) + " " + repr(total))

xs = [i * 7 - 50 for i in range(19)]
w("let x[i in 0..19] = i * 7 - 50;")
for d in (1, 3, -3, -1):
    ys = [tdiv(a, d) * 1000 + trem(a, d) for a in xs]
    w(f"let q = qr(x, {d});")
    w("print(q[0], q[7], q[18], sum[i](q[i]));")
    w("//> " + " ".join(str(v) for v in (ys[0], ys[7], ys[18], sum(ys))))
w("let mn[i in 0..3] = if i == 0 { -2147483647 - 1 } else { i * 5 };")
mn = [-2**31, 5, 10]
ys = [tdiv(a, -1) for a in mn]
w("let qm = safe(mn, -1);")
w("print(qm[0], qm[1], qm[2]);")
w("//> " + " ".join(str(v) for v in ys))
w("let s0 = safe(x, 0);")
w("print(s0[0], s0[18], sum[i](s0[i]));")
w(f"//> -7 -7 {-7 * 19}")
w("let T[i in 0..4] = i * 11;")
for k in (4, 3, 1):
    ys = [[0, 11, 22, 33][(i + 5) % k] for i in range(12)]
    w(f"let r = wrapped(T, {k});")
    w("print(r[0], r[11], sum[i](r[i]));")
    w("//> " + " ".join(str(v) for v in (ys[0], ys[11], sum(ys))))
w("let bad = qr(x, 0);")
w("print(bad[0]);")
w("//! E007 @10")  # the quotient in qr
open(__file__.replace(".py", ".ein"), "w").write("\n".join(out) + "\n")
