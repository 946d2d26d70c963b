"""Known-bug switches: constructs the generator leaves out (or writes in a safer form) while a
reported bug makes ein fail on them. Each switch names its pending reproducer
(tests/golden/pending/) and the owning area. When the fix lands, the pending file moves to
tests/golden/regressions/ and the switch is deleted here, so the construct is generated again.
`run.py --all-constructs` ignores the switches (to see whether a bug is fixed)."""
import os

KNOWN = {
    # name: (pending reproducer, area, what goes wrong)
    "dependent_range": ("tests/golden/pending/ad_dependent_range_in_fn.ein", "autodiff",
                        "a derivative through a fn whose local has `sum[n in 0..m](a[m - n])` is "
                        "E002 `expected an integer, found ()` under EIN_JIT=never"),
    "plain_and_inner_offset_use": (
        "tests/golden/pending/range_inner_offset_out_of_bounds.ein", "ranges",
        "`s[o] + sum[k](s[o + k] * w[k])`: the use with the inner index does not narrow o "
        "when o has another use (E005 at run time, or a wrong shape)"),
    "ad_mixed_float_e002": ("tests/golden/pending/ad_mixed_float_e002.ein", "autodiff",
                            "some derivative requests whose primal type-checks are E002 "
                            "`f64 * f32` (a literal in generated adjoint code typed f32); "
                            "not yet reduced, so the generator cannot leave the construct "
                            "out: such rejections are printed and not counted as failures"),
    "ad_scope_fn": ("tests/golden/pending/ad_request_in_fn_point_clauses.ein", "autodiff",
                    "a request inside a function body is E012 for a recurrence with point "
                    "clauses (top level and blocks run it)"),
    "ad_always_array_call": (
        "tests/golden/pending/jit_always_ad_call_cast_argument.ein", "perf",
        "EIN_JIT=always: a derivative through `w[n in 3..6] = f(v, n as f64)` (v an array) "
        "is E002 `cannot cast () to f64`; derivative programs give functions no array "
        "parameter"),
    "ad_reverse_recurrence": ("tests/golden/pending/ad_reverse_recurrence_point_target.ein",
                              "autodiff", "a derivative of one point of a reverse recurrence "
                              "is E012 on its forward-running adjoint (recurrence_cover checks "
                              "it); seen once seed 1000446 no longer stopped at an E002"),
    "ad_guard_else_mixed_float": ("tests/golden/pending/ad_guard_else_mixed_float.ein",
                                  "autodiff", "a derivative through a guard with `else if` "
                                  "chain feeding a max reduction with a where-bound `if` is "
                                  "E002 `f64 * f32` (the primal runs); derivative programs have no "
                                  "guard `else`"),
}


def active():
    """The switches in force: all of KNOWN, or the comma-separated list in DIFFTEST_BUGS."""
    env = os.environ.get("DIFFTEST_BUGS")
    if env is not None:
        return {x for x in env.split(",") if x}
    return set(KNOWN)


def describe():
    return [f"{k} ({v[1]}: {v[2]}; {v[0]})" for k, v in sorted(KNOWN.items())]
