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
