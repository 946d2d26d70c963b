"""Reading ein's printed values and comparing them with the reference.

Tolerance: a float whose reference error bound e is 0 must be equal bit for bit (after
rounding the printed shortest decimal back to its type; -0.0 equals 0.0, nan equals nan);
otherwise |printed - reference| <= TOL_FACTOR * e. Integers and bools are always exact.
"""
import math
import re

import numpy as np

from ref import Tensor

TOL_FACTOR = 2.0
TOKEN = re.compile(r"\s*(\.\.\.|\[|\]|,|\(|\)|true|false|-?inf|-?nan|[-+]?(?:\d+\.\d*|\.\d+|\d+)"
                   r"(?:[eE][-+]?\d+)?)")


class ParseError(Exception):
    pass


def parse_line(line):
    """A printed line -> list of values (nested lists of int/float/bool)."""
    pos = 0
    toks = []
    line = line.rstrip()
    while pos < len(line):
        m = TOKEN.match(line, pos)
        if not m:
            raise ParseError(f"cannot read {line[pos:pos + 20]!r}")
        toks.append(m.group(1))
        pos = m.end()
    out = []
    i = 0

    def value(i):
        t = toks[i]
        if t == "[":
            items = []
            i += 1
            if toks[i] == "]":
                return items, i + 1
            while True:
                v, i = value(i)
                items.append(v)
                if toks[i] == ",":
                    i += 1
                elif toks[i] == "]":
                    return items, i + 1
                else:
                    raise ParseError(f"unexpected {toks[i]!r}")
        if t in ("true", "false"):
            return t == "true", i + 1
        if t == "...":
            return ELLIPSIS, i + 1
        if re.fullmatch(r"[-+]?\d+", t):
            return int(t), i + 1
        if t in ("]", ",", "(", ")"):
            raise ParseError(f"unexpected {t!r}")
        return Num(t), i + 1

    try:
        while i < len(toks):
            v, i = value(i)
            out.append(v)
    except IndexError:
        raise ParseError("truncated value")
    return out


class _Ellipsis:
    def __repr__(self):
        return "..."


ELLIPSIS = _Ellipsis()   # `...` of a summarised array (SPEC §8)
SUMMARY_ABOVE, EDGE = 1000, 3


def summarised(x):
    """The nested list as SPEC §8 prints an array of more than 1000 elements: on every axis
    longer than 2·3, the first and last three items around `...`."""
    if not isinstance(x, list):
        return x
    items = [summarised(y) for y in x]
    if len(items) > 2 * EDGE:
        items = items[:EDGE] + [ELLIPSIS] + items[-EDGE:]
    return items


class Num(float):
    """A printed float, remembering that it was printed as a float."""

    def __new__(cls, text):
        return float.__new__(cls, float(text.replace("inf", "inf")))


def as_dt(x, dt):
    if dt == "f32":
        with np.errstate(all="ignore"):
            return float(np.float32(x))
    return float(x)


def same_float(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b


def check_scalar(got, dt, v, e, where):
    if dt == "bool":
        if got is not True and got is not False:
            return f"{where}: expected a bool {v}, got {got!r}"
        return None if got == v else f"{where}: expected {str(v).lower()}, got {str(got).lower()}"
    if dt in ("f32", "f64"):
        if not isinstance(got, Num):
            return f"{where}: expected a float ({dt}) {v!r}, got {got!r}"
        g = as_dt(got, dt)
        if e == 0 or math.isinf(v) or math.isnan(v):
            return None if same_float(g, v) else f"{where}: expected {v!r} exactly ({dt}), got {g!r}"
        if abs(g - v) <= TOL_FACTOR * e:
            return None
        return f"{where}: expected {v!r} +- {TOL_FACTOR * e:.3g} ({dt}), got {g!r}"
    if isinstance(got, bool) or not isinstance(got, int):
        return f"{where}: expected an integer ({dt}) {v}, got {got!r}"
    return None if got == v else f"{where}: expected {v}, got {got}"


def check_value(got, ref, where):
    if isinstance(ref, Tensor):
        if ref.shape and ref.shape[0] == 0:
            return None if got == [] else f"{where}: expected an empty array, got {got!r}"
        vals = ref.nested()
        errs = ref.nested(errs=True)
        if math.prod(ref.shape) > SUMMARY_ABOVE:
            vals, errs = summarised(vals), summarised(errs)
        return check_nested(got, vals, errs, ref.dt, where, 0, len(ref.shape))
    dt, v, e = ref
    return check_scalar(got, dt, v, e, where)


def check_nested(got, vals, errs, dt, where, depth, rank):
    if vals is ELLIPSIS:
        return None if got is ELLIPSIS else f"{where}: expected `...` (a summarised array), got {got!r}"
    if depth == rank:
        return check_scalar(got, dt, vals, errs, where)
    if not isinstance(got, list):
        return f"{where}: expected an array of rank {rank - depth}, got {got!r}"
    if len(got) != len(vals):
        return f"{where}: expected {len(vals)} elements on axis {depth}, got {len(got)}"
    for k, (g, v, e) in enumerate(zip(got, vals, errs)):
        msg = check_nested(g, v, e, dt, f"{where}[{k}]", depth + 1, rank)
        if msg:
            return msg
    return None


def check_lines(lines, expected):
    """None if the printed lines match the reference's output lines, else a message."""
    if len(lines) != len(expected):
        return f"expected {len(expected)} printed lines, got {len(lines)}"
    for n, (line, exp) in enumerate(zip(lines, expected), 1):
        try:
            got = parse_line(line)
        except ParseError as e:
            return f"line {n}: {e}: {line[:80]!r}"
        if len(got) != len(exp):
            return f"line {n}: expected {len(exp)} values, got {len(got)}: {line[:80]!r}"
        for k, (g, r) in enumerate(zip(got, exp)):
            msg = check_value(g, r, f"line {n} value {k + 1}")
            if msg:
                return msg
    return None


# ------------------------------------------------------------------------------ formatting
def fmt_float(v, dt):
    """SPEC §8: shortest round-trip decimal at the value's own precision."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if dt == "f64":
        return repr(float(v))
    s = np.format_float_scientific(np.float32(v), unique=True, trim="-")
    mant, exp = s.split("e")
    exp = int(exp)
    if -4 <= exp < 16:
        digits = mant.replace("-", "").replace(".", "")
        sign = "-" if mant.startswith("-") else ""
        point = exp + 1
        if point <= 0:
            out = "0." + "0" * (-point) + digits
        elif point >= len(digits):
            out = digits + "0" * (point - len(digits)) + ".0"
        else:
            out = digits[:point] + "." + digits[point:]
        return sign + out
    mant = mant if "." in mant else mant + ".0"
    return f"{mant}e{'-' if exp < 0 else '+'}{abs(exp):02d}"


def fmt_value(ref):
    if isinstance(ref, Tensor):
        def rec(x):
            if isinstance(x, list):
                return "[" + ", ".join(rec(y) for y in x) + "]"
            return fmt_scalar(ref.dt, x)
        return rec(ref.nested()) if ref.shape and ref.shape[0] else "[]"
    return fmt_scalar(ref[0], ref[1])


def fmt_scalar(dt, v):
    if dt == "bool":
        return "true" if v else "false"
    if dt in ("f32", "f64"):
        return fmt_float(v, dt)
    return str(v)


def fmt_lines(expected):
    return [" ".join(fmt_value(v) for v in line) for line in expected]
