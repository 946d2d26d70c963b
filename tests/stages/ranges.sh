#!/bin/bash
# The range rule of SPEC §5.2 as a property: generated declarations with affine index
# expressions (offsets, strides constant and run-time, dependent inner ranges, where-derived
# indices, literals, several uses) whose printed tensors must equal a brute-force enumeration
# of the valid output indices in Python (tests/ranges/property_ranges.py), in EIN_JIT=never and
# auto. EIN_RANGE_CASES (default 240) sets the number of cases; a few seconds.
set -u
EIN="${EIN_BUILD:-build}/ein"
[ -x "$EIN" ] || { echo "no $EIN" >&2; exit 77; }
fail=0
for seed in 1 2; do
  python3 tests/ranges/property_ranges.py --ein "$EIN" --seed "$seed" || fail=1
done
exit $fail
