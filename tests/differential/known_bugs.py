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
    "ad_fn_reads_global": (
        "tests/golden/autodiff (fixed in ein, 537f315)", "differential (deriv.py)",
        "a limit of this tool, not an ein bug: a derivative requested inside a function or "
        "block recomputes the statements from x, but a function body reading a top-level "
        "binding still sees the top-level one, while finite differences perturb x everywhere "
        "(seed 1000263: ein's 0 is right). Derivative programs' step functions read only their "
        "parameters until deriv.py perturbs only the recomputed scope."),
    "ad_window_guarded_count": (
        "tests/golden/pending/ad_window_mean_guarded_count.ein", "autodiff",
        "`@L / @X` through `sum[p](X[i + p]) / sum[p](1.0 where ..)` (a window mean counting its "
        "points with a where guard) is E002 'expected an integer, found ()'; window asks no "
        "derivative of means counted so."),
    "block_local_chain_inferred": (
        "tests/golden/pending/block_local_chain_inferred_range.ein", "ranges",
        "`{ let e[k] = S[i, k] * 2.0; let a[k] = e[k] + 1.0; a[j] }` with j inferred is E004; "
        "scratch writes `j in 0..J` in declarations."),
    "rec_inferred_reduce_prev_row": (
        "tests/golden/pending/rec_inferred_column_reduction_of_earlier_row.ein", "ranges",
        "`R[t in 1..T, j] = max[k](R[t - 1, k]) + X[t, j]` with j and k inferred is E004 for k; "
        "scratch writes `j in 0..J` in recurrences."),
}


def active():
    """The switches in force: all of KNOWN, or the comma-separated list in DIFFTEST_BUGS."""
    env = os.environ.get("DIFFTEST_BUGS")
    if env is not None:
        return {x for x in env.split(",") if x}
    return set(KNOWN)


def describe():
    return [f"{k} ({v[1]}: {v[2]}; {v[0]})" for k, v in sorted(KNOWN.items())]
