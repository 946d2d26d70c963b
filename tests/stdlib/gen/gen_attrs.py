"""The attribute survey's cases as goldens (session 22): every case of attrs_table.py (std::ml's
ONNX operators with the attribute values programs pass, and the same operators over f64, f32,
i32, i64 and bool; values from attrs_ref.py's loops written from the ONNX operator text, or
NumPy) printed with its type, one file per operator family, each run with EIN_JIT=never and
always; the refusals each in a file of their own under outside/errors/.
"""
import re

import attrs_table
from common import fmt
from gen_select import modes_file

FAMILIES = (("conv", ("conv(",)), ("pool", ("max_pool(", "average_pool(", "lp_pool(")),
            ("resize", ("resize(", "upsample(")), ("select", ("topk(", "argmax(", "argmin(", "std::array::")),
            ("slice_split", ("slice(", "split(")), ("indexing", ("gather", "scatter")),
            ("einsum_pad", ("einsum(", "pad(")), ("reduce", ("cumsum(", "reduce_")))


def family(expr):
    for name, heads in FAMILIES:
        if any(expr.startswith(h) for h in heads):
            return name
    raise ValueError(expr)


def generate():
    cases = attrs_table.cases()
    for name, _ in FAMILIES:
        mine = [c for c in cases if family(c[0]) == name and c[1] is not None]
        # Files of at most 60 checks, so that a failure is found quickly and a run stays short.
        for part in range(0, len(mine), 60):
            suffix = f"_{part // 60 + 1}" if len(mine) > 60 else ""
            t = modes_file(f"outside/attrs_{name}{suffix}.ein", f"std::ml {name} with the attribute values and "
                           "element types programs pass (values from loops written from the ONNX operator "
                           "text, tests/stdlib/gen/attrs_ref.py, or NumPy)", uses=[])
            t.raw(*attrs_table.PRELUDE)
            for expr, value, ty in mine[part:part + 60]:
                t.check_text(expr, fmt(value, ty.split(";")[0].strip("[")))
                t.check_text(f"typeof({expr})", ty)
            t.write()
    for expr, value, code in cases:
        if value is not None:
            continue
        slug = re.sub(r"[^a-z0-9]+", "_", expr.lower()).strip("_")[:40]
        t = modes_file(f"outside/errors/attrs_{slug}.ein", f"{expr}: refused with {code} at the call "
                       "(ONNX refuses it too, or the language does)", uses=[])
        t.raw(*attrs_table.PRELUDE)
        t.raw(f"print({expr});")
        t.expect_error(code)
        t.write()
