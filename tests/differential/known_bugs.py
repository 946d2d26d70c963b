"""Known-bug switches: constructs the generator leaves out (or writes in a safer form) while a
reported bug makes ein fail on them. Each switch names its pending reproducer
(tests/golden/pending/) and the owning area. When the fix lands, the pending file moves to
tests/golden/regressions/ and the switch is deleted here, so the construct is generated again.
`run.py --all-constructs` ignores the switches (to see whether a bug is fixed)."""
import os

KNOWN = {
    # name: (pending reproducer, area, what goes wrong)
    "plain_and_inner_offset_use": (
        "tests/golden/pending/range_inner_offset_out_of_bounds.ein", "ranges",
        "`s[o] + sum[k](s[o + k] * w[k])`: the use with the inner index does not narrow o "
        "when o has another use (E005 at run time, or a wrong shape)"),
}


def active():
    """The switches in force: all of KNOWN, or the comma-separated list in DIFFTEST_BUGS."""
    env = os.environ.get("DIFFTEST_BUGS")
    if env is not None:
        return {x for x in env.split(",") if x}
    return set(KNOWN)


def describe():
    return [f"{k} ({v[1]}: {v[2]}; {v[0]})" for k, v in sorted(KNOWN.items())]
