"""Scalar arithmetic of the reference evaluator, straight from SPEC §3-4, with a running error
bound.

A scalar is a pair (v, e): v is what the canonical evaluation gives (IEEE arithmetic at the
operand type, reductions left to right, math functions correctly rounded from f64), e bounds
how far any result the SPEC allows may lie from v. The SPEC allows two freedoms only: the
order of a float sum or product (reassociation, SPEC §5.3 / docs/jit.md) and the last bits of a
math library function. Every other operation is IEEE and deterministic, so a value whose bound
is 0 must be reproduced bit for bit, by every tier. Bounds propagate to first order (the
derivative of the operation times the operands' bounds) plus the rounding of the result.

Outcomes that the freedoms could flip (a comparison of two values closer than their bounds, a
cast truncating near an integer, a non-finite value with a non-zero bound) raise
IllConditioned: the program has no single expected output, and the generator draws another.
What the SPEC leaves open raises Unspecified. Errors the SPEC prescribes raise RefError.
"""
import math

import numpy as np

U = {"f32": 2.0 ** -24, "f64": 2.0 ** -53}
TINY = {"f32": 2.0 ** -149, "f64": 2.0 ** -1074}
FMAX = {"f32": float(np.finfo(np.float32).max), "f64": float(np.finfo(np.float64).max)}
BITS = {"i8": 8, "i32": 32, "i64": 64}
LIBM_ULPS = 4          # vectorised libm (libmvec) is within 4 ulp; scalar glibc within 1


class IllConditioned(Exception):
    pass


class Unspecified(Exception):
    pass


class RefError(Exception):
    """The SPEC requires the program to fail with `code`; `compile_time` if before any output."""

    def __init__(self, code, msg, compile_time=False):
        super().__init__(f"{code}: {msg}")
        self.code = code
        self.compile_time = compile_time


# Branch outcomes taken by the last evaluation (finite differences compare them, see deriv.py).
TRACE = None


def trace(x):
    if TRACE is not None:
        TRACE.append(x)


def rnd(dt, x):
    if dt == "f32":
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            return float(np.float32(x))
    return float(x)


def wrap(dt, n):
    b = BITS[dt]
    m = 1 << b
    n = int(n) & (m - 1)
    return n - m if n >= (m >> 1) else n


def int_limits(dt):
    b = BITS[dt]
    return -(1 << (b - 1)), (1 << (b - 1)) - 1


def zero(dt):
    if dt == "bool":
        return False
    return 0.0 if dt in U else 0


def finish(dt, v, e):
    """Result of an inexact float operation: check the bound still means something."""
    if e:
        if not math.isfinite(v) or abs(v) + e >= FMAX[dt]:
            raise IllConditioned(f"non-finite {dt} value with error bound {e:g}")
        e += TINY[dt]
    return v, e


def slack(dt, v, e):
    """Propagated bound e plus the rounding of the two results it separates."""
    return e * (1 + 4 * U[dt]) + 3 * U[dt] * abs(v) if e else 0.0


# ---------------------------------------------------------------------------------- arithmetic
def arith(dt, op, a, b):
    (x, ex), (y, ey) = a, b
    if dt in U:
        return farith(dt, op, x, ex, y, ey)
    if dt == "bool":
        raise TypeError("arithmetic on bool")
    if op == "+":
        return wrap(dt, x + y), 0.0
    if op == "-":
        return wrap(dt, x - y), 0.0
    if op == "*":
        return wrap(dt, x * y), 0.0
    if op in ("/", "%"):
        if y == 0:
            raise RefError("E007", "integer division by zero")
        q = abs(x) // abs(y)
        if (x < 0) != (y < 0):
            q = -q
        return (wrap(dt, q), 0.0) if op == "/" else (wrap(dt, x - y * q), 0.0)
    if op == "**":
        if y < 0:
            raise Unspecified("integer power with a negative exponent")
        return wrap(dt, pow(x, y, 1 << BITS[dt]) if y > 64 else x ** y), 0.0
    raise TypeError(op)


def farith(dt, op, x, ex, y, ey):
    u = U[dt]
    # A pole or an infinite operand is a singular point of the chain rule (d(1/h) = -1/h² at
    # h = 0 times a zero partial is nan, while y may be smooth there: 2.2 / (1 / h) = 2.2 h):
    # it goes into the trace, so finite differences around it are skipped, not compared.
    if not (math.isfinite(x) and math.isfinite(y)):
        trace(("nonfinite", op))
    if op == "/" and y == 0:
        trace(("pole",))
    if op == "+":
        v = rnd(dt, x + y)
        return finish(dt, v, slack(dt, v, ex + ey))
    if op == "-":
        v = rnd(dt, x - y)
        return finish(dt, v, slack(dt, v, ex + ey))
    if op == "*":
        v = rnd(dt, x * y)
        return finish(dt, v, slack(dt, v, abs(x) * ey + abs(y) * ex + ex * ey))
    if op == "/":
        if (ex or ey) and abs(y) <= ey * 1.01:
            raise IllConditioned("division by a value within its error bound of 0")
        with np.errstate(all="ignore"):
            v = rnd(dt, np.float64(x) / np.float64(y)) if y == 0 else rnd(dt, x / y)
        e = (ex + abs(x / y) * ey) / (abs(y) - ey) if (ex or ey) else 0.0
        return finish(dt, v, slack(dt, v, e))
    if op == "%":
        raise Unspecified("float remainder")
    if op == "**":
        return fpow(dt, x, ex, y, ey, int_exp=False)
    raise TypeError(op)


def fpow(dt, x, ex, y, ey, int_exp):
    """f ** f (powf) and f ** i (powi): libm or repeated multiplication, hence a freedom."""
    def f(a, b):
        with np.errstate(all="ignore"):
            try:
                return math.pow(a, b)
            except (OverflowError, ValueError):
                return float(np.power(np.float64(a), np.float64(b)))
    v = rnd(dt, f(x, y))
    if not math.isfinite(v):
        raise IllConditioned("power overflows")
    prop = 0.0
    if ex or ey:
        corners = [f(x + sx, y + sy) for sx in (-ex, ex) for sy in (-ey, ey)]
        if any(not math.isfinite(c) for c in corners):
            raise IllConditioned("power near a pole or outside its domain")
        prop = max(abs(c - v) for c in corners)
    steps = abs(int(y)) + 1 if int_exp else LIBM_ULPS
    free = 2 * steps * U[dt] * abs(v)
    return finish(dt, v, (slack(dt, v, prop) if prop else 0.0) + free)


def neg(dt, a):
    x, e = a
    return (-x, e) if dt in U else (wrap(dt, -x), 0.0)


def compare(op, a, b):
    (x, ex), (y, ey) = a, b
    if (ex or ey) and abs(x - y) <= (ex + ey) * 1.01:
        raise IllConditioned(f"comparison {op} of values within their error bounds")
    r = {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[op]
    trace(r)
    return r, 0.0


# ---------------------------------------------------------------------------------------- casts
def cast(src, dst, a):
    x, e = a
    if src == dst:
        return x, e
    if dst == "bool" or src == "bool":
        if src == "bool" and dst in BITS:
            return (1 if x else 0), 0.0
        raise Unspecified(f"cast {src} as {dst}")
    if dst in U:
        if src in U:
            v = rnd(dst, x)
            return finish(dst, v, slack(dst, v, e))
        if abs(x) > 2 ** 53:
            raise Unspecified("huge integer to float (reference would double-round)")
        return rnd(dst, float(x)), 0.0
    # to an integer type: truncation toward zero, saturating like Rust (docs/language.md)
    lo, hi = int_limits(dst)
    if src in U:
        if math.isnan(x):
            if e:
                raise IllConditioned("NaN cast to an integer")
            return 0, 0.0
        if e and (not math.isfinite(x + e) or math.trunc(x - e) != math.trunc(x + e)):
            raise IllConditioned("float to integer cast near an integer boundary")
        if math.isinf(x):
            return (hi if x > 0 else lo), 0.0
        t = math.trunc(x)
        trace(t)
        return min(max(t, lo), hi), 0.0
    return wrap(dst, x), 0.0


# ------------------------------------------------------------------------------ math functions
def _monotone_bound(f, x, e):
    lo, hi = f(x - e), f(x + e)
    return max(abs(lo - f(x)), abs(hi - f(x)))


MATH = {
    "exp": (math.exp, None, True),
    "ln": (math.log, (0.0, False), True),
    "sqrt": (math.sqrt, (0.0, True), False),     # IEEE: correctly rounded, no freedom
    "tanh": (math.tanh, None, True),
    "atan": (math.atan, None, True),
    "sin": (math.sin, None, True),
    "cos": (math.cos, None, True),
    "abs": (abs, None, False),
}
LIPSCHITZ_ONE = {"sin", "cos"}


def mathfn(dt, name, a):
    x, e = a
    if name in ("floor", "ceil"):
        f = math.floor if name == "floor" else math.ceil
        if e and f(x - e) != f(x + e):
            raise IllConditioned(f"{name} near an integer")
        if not math.isfinite(x):
            return x, 0.0
        trace(f(x))
        return float(f(x)), 0.0
    if name == "abs":
        trace(x >= 0)
    f, domain, libm = MATH[name]
    if domain is not None:
        lo, closed = domain
        bad = (x < lo) if closed else (x <= lo)
        if bad or (e and (x - e < lo or (not closed and x - e <= lo))):
            if e or not bad:
                raise IllConditioned(f"{name} near the edge of its domain")
            raise Unspecified(f"{name} outside its domain")
    try:
        r = f(x)
    except OverflowError:
        r = math.inf
    except ValueError:          # sin(inf) and the like: IEEE says NaN
        r = math.nan
    v = rnd(dt, r)
    if not math.isfinite(v):
        raise IllConditioned(f"{name} overflows")
    prop = 0.0
    if e:
        try:
            prop = min(e, 2.0) if name in LIPSCHITZ_ONE else _monotone_bound(f, x, e)
        except (OverflowError, ValueError):
            raise IllConditioned(f"{name} bound overflows")
    free = LIBM_ULPS * 2 * U[dt] * abs(v) + TINY[dt] if libm else 0.0
    return finish(dt, v, (slack(dt, v, prop) if prop else 0.0) + free)


def minmax2(dt, name, a, b):
    (x, ex), (y, ey) = a, b
    if dt in U and (math.isnan(x) or math.isnan(y)):
        raise Unspecified("min/max of NaN")
    pick = (x if x >= y else y) if name == "max" else (x if x <= y else y)
    trace(x >= y)
    e = max(ex, ey)
    return pick, e


# ---------------------------------------------------------------------------------- reductions
def reduce(dt, op, items):
    """Fold `items` ((v, e) pairs, in row-major order of the reduction indices)."""
    n = len(items)
    if op in ("all", "any"):
        vals = [x for x, _ in items]
        return (all(vals) if op == "all" else any(vals)), 0.0
    if op in ("max", "min"):
        if n == 0:
            if dt in U:
                return (-math.inf if op == "max" else math.inf), 0.0
            raise RefError("E006", f"{op} over an empty domain of integers")
        if dt in U and any(math.isnan(x) for x, _ in items):
            raise Unspecified("max/min reduction over NaN")
        best, at = items[0][0], 0
        for k, (x, _) in enumerate(items[1:], 1):
            if (op == "max" and x > best) or (op == "min" and x < best):
                best, at = x, k
        trace(at)
        return best, max(e for _, e in items)
    if op in ("argmax", "argmin"):
        raise TypeError("use argreduce")
    if dt not in U:
        acc = 0 if op == "sum" else 1
        for x, _ in items:
            acc = wrap(dt, acc + x if op == "sum" else acc * x)
        return acc, 0.0
    u = U[dt]
    if op == "sum":
        acc = 0.0
        for x, _ in items:
            acc = rnd(dt, acc + x)
        prop = sum(e for _, e in items)
        # Any association order, and products inside the sum may be fused into multiply-adds
        # (BLAS kernels do), which skips their rounding: hence u·Σ|t| besides γ.
        gamma = 2 * (n - 1) * u / (1 - n * u) + u if n >= 2 else 0.0
        free = gamma * sum(abs(x) for x, _ in items)
        e = slack(dt, acc, prop) + free if (prop or free) else 0.0
        return finish(dt, acc, e)
    acc = 1.0
    for x, _ in items:
        acc = rnd(dt, acc * x)
    mags = 1.0
    exact = 1.0
    for x, e in items:
        mags *= abs(x) + e
        exact *= abs(x)
    prop = mags - exact
    free = 4 * n * u * mags if n > 2 else 0.0
    e = slack(dt, acc, prop) + free if (prop or free) else 0.0
    return finish(dt, acc, e)


def argreduce(op, items):
    """First index of the extremum; items are (index, (v, e))."""
    if not items:
        raise Unspecified(f"{op} over an empty domain")
    best_i, (best, be) = items[0]
    for i, (x, e) in items[1:]:
        if (op == "argmax" and x > best) or (op == "argmin" and x < best):
            best_i, best, be = i, x, e
    for i, (x, e) in items:
        if i != best_i and (e or be) and abs(x - best) <= (e + be) * 1.01:
            raise IllConditioned(f"{op}: two candidates within their error bounds")
    trace(best_i)
    return best_i, 0.0
