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
}


def active():
    """The switches in force: all of KNOWN, or the comma-separated list in DIFFTEST_BUGS."""
    env = os.environ.get("DIFFTEST_BUGS")
    if env is not None:
        return {x for x in env.split(",") if x}
    return set(KNOWN)


def describe():
    return [f"{k} ({v[1]}: {v[2]}; {v[0]})" for k, v in sorted(KNOWN.items())]
