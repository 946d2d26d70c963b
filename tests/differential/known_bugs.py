"""Known-bug switches: constructs the generator leaves out (or writes in a safer form) while a
reported bug makes ein fail on them. Each switch names its pending reproducer
(tests/golden/pending/) and the owning area. When the fix lands, the pending file moves to
tests/golden/regressions/ and the switch is deleted here, so the construct is generated again.
`run.py --all-constructs` ignores the switches (to see whether a bug is fixed)."""
import os

KNOWN = {
    # name: (pending reproducer, area, what goes wrong)
    "plain_and_inner_offset_use": (
        "tests/golden/ranges/dependent_inner_inferred_outer.ein", "ranges / differential",
        "`c[o] = s[o] * sum[k](t[o + k])`: ein infers o from s[o] first and gives k the "
        "dependent range 0..len(t) - o (docs/language.md, Dependent inner ranges); the reference "
        "counts t[o + k] as a use of o only (k: E004). Explicit outer indices are generated."),
    "ad_recurrence_row_call": (
        "tests/golden/pending/ad_recurrence_step_calls_row.ein", "autodiff (lang/passes/ad_*)",
        "a derivative through a recurrence whose step calls a function on the previous row "
        "(`R[t, j] = F(R[t - 1])[j]`, softmax, a function with a local declaration) is E013. "
        "Derivative programs draw only scalar steps (rec_call) and no call moving with an "
        "index (`softmax(M[q])[n]`, the same E013: pending/ad_call_on_moving_row.ein)."),
    "call_extent_reduction_arg": (
        "tests/golden/pending/call_extent_reduction_argument.ein", "ranges (lang/passes/range*)",
        "`F(v, sum[k](v[k]))[j]`: a reduction in an argument keeps the call's extent from "
        "bounding j (E004). Extra arguments of array-valued calls are drawn without reductions."),
    "ad_fn_reads_global": (
        "tests/golden/pending/ad_fn_reads_global_zero.ein", "autodiff (lang/passes/ad_*)",
        "WRONG VALUE: a derivative flowing through a function body that reads a top-level "
        "binding (`fn F(a) { t[2] * a }`) is 0. Derivative programs' step functions read only "
        "their parameters."),
    "ad_indexed_whole_array_call": (
        "tests/golden/pending/ad_indexed_whole_array_call.ein", "autodiff (lang/passes/ad_*)",
        "`C(v)[j]` with C a whole-array expression (user `a * c`, tanh, relu, sigmoid) is E013 "
        "under a derivative. Derivative programs index only softmax and local declarations."),
    "ad_closure_in_fn_reduction": (
        "tests/golden/pending/ad_closure_in_fn_reduction_e003.ein", "autodiff (lang/passes/ad_*)",
        "`fn F(f, x) { sum[n](f(x[n])) }` called with a lambda: E003 on n under a derivative. "
        "Derivative programs draw no reducing higher-order function."),
    "call_extent_local_recurrence": (
        "tests/golden/pending/call_extent_local_recurrence.ein", "ranges (lang/passes/range*)",
        "`softmax(l)[n, k]` on a block-local array of several clauses: E004 on n, k (a derivative "
        "inside a scope recomputes such arrays as locals). Derivative programs' indexed calls "
        "take input arrays only."),
    "ad_lambda_in_fn": (
        "tests/golden/pending/ad_lambda_made_in_fn_e013.ein", "autodiff (lang/passes/ad_*)",
        "a lambda written inside a function body (passed on or returned) is E013 under a "
        "derivative. Derivative programs write lambdas at top level and in blocks only."),
    "lambda_captured_index_range": (
        "tests/golden/pending/lambda_captured_index_bounds_reduction.ein", "ranges / closures",
        "inside a lambda a captured index of the declaration does not bound a reduction's "
        "range (`|u| max[q](v1[m + q, q])`: E005). Lambda bodies written where indices are in "
        "scope draw no reductions."),
}


def active():
    """The switches in force: all of KNOWN, or the comma-separated list in DIFFTEST_BUGS."""
    env = os.environ.get("DIFFTEST_BUGS")
    if env is not None:
        return {x for x in env.split(",") if x}
    return set(KNOWN)


def describe():
    return [f"{k} ({v[1]}: {v[2]}; {v[0]})" for k, v in sorted(KNOWN.items())]
