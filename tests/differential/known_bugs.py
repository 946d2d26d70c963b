"""Known-bug switches: constructs the generator leaves out (or writes in a safer form) while a
reported bug makes ein fail on them. Each switch names its pending reproducer
(tests/golden/pending/) and the owning area. When the fix lands, the pending file moves to
tests/golden/regressions/ and the switch is deleted here, so the construct is generated again.
`run.py --all-constructs` ignores the switches (to see whether a bug is fixed)."""
import os

KNOWN = {
    # name: (pending reproducer, area, what goes wrong)
    "strided_index": ("tests/golden/pending/range_strided_use.ein", "ranges",
                      "strided uses `x[o * 2 + k]` do not determine a range (E004)"),
    "dependent_range": ("tests/golden/pending/range_dependent_inner.ein", "ranges",
                        "`sum[k in 0..i + 1](x[i - k])` fails with E002 at run time"),
    "cast_whole_array": ("tests/golden/pending/cast_whole_array.ein", "lang",
                         "`a as [f64]` is E002"),
    "literal_binding_by_use": ("tests/golden/pending/literal_binding_typed_by_use.ein", "lang",
                               "`let k = 0.5; k * x_f64` is E002 (SPEC §3: k is f64)"),
    "const_if_typing": ("tests/golden/pending/if_constant_condition_type.ein", "lang",
                        "`if false { x_f64 } else { 0.1 }` is f32"),
    "generic_literal_args": ("tests/golden/pending/generic_literal_arguments.ein", "lang",
                             "`ln(2.0) / k_f64` is E002 (SPEC §3: the literal is f64)"),
    "generic_call_on_later_typed_self_read": (
        "tests/golden/pending/recurrence_generic_call_before_base.ein", "lang",
        "`h[t in 1..5] = sin(h[t - 1]); h[0] = x_f64;` is E002 (the self-read typed f32)"),
}


def active():
    """The switches in force: all of KNOWN, or the comma-separated list in DIFFTEST_BUGS."""
    env = os.environ.get("DIFFTEST_BUGS")
    if env is not None:
        return {x for x in env.split(",") if x}
    return set(KNOWN)


def describe():
    return [f"{k} ({v[1]}: {v[2]}; {v[0]})" for k, v in sorted(KNOWN.items())]
