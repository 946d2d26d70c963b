"""Command line shared by the small property tests beside it (dynamic_reads.py, reduce_else.py, keyed_sums.py):
each generates `--count` programs from `--seed` and runs them in every `--modes` tier."""
import argparse
import random


def parse(default_count=40):
    """(args, random generator seeded from --seed)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--ein", required=True)
    ap.add_argument("--count", type=int, default=default_count)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--modes", default="never,always")
    a = ap.parse_args()
    return a, random.Random(a.seed)


def run_all(a, r, gen, check, label):
    """Runs `--count` programs from `gen(r)` -> (source, expected) in every mode; `check(proc,
    expected)` says whether a run is right. Prints mismatches and a summary; exits 1 on any."""
    import os
    import subprocess
    import sys
    import tempfile
    bad = 0
    for _ in range(a.count):
        src, want = gen(r)
        with tempfile.NamedTemporaryFile("w", suffix=".ein", delete=False) as f:
            f.write(src)
            path = f.name
        try:
            for mode in a.modes.split(","):
                p = subprocess.run([a.ein, path], capture_output=True, text=True, timeout=120,
                                   env=dict(os.environ, EIN_JIT=mode))
                if not check(p, want):
                    bad += 1
                    print(f"MISMATCH ({mode})\n{src}want: {want}\ngot rc={p.returncode}: {p.stdout}\n{p.stderr}")
        finally:
            os.unlink(path)
    print(f"{label}: {a.count} programs, {bad} mismatches")
    sys.exit(1 if bad else 0)
