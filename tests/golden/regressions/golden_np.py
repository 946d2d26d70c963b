"""Helpers of the golden generators in this directory (guard_split_select.py,
fused_guard_split_rows.py, row_terms_prefix_range.py, clamp_split_user_windows.py,
len_row_extents_entry_test.py): a weighted checksum of a whole tensor, printed points, the
(i * a + j * b) % 23 score matrices the programs build the same way, and window sums in the
order of their taps."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "stdlib", "gen"))
from common import fmt_np as fmt, print_cases  # noqa: E402,F401  (how `print` shows a value)

f32, f64 = np.float32, np.float64


def tot(A):
    """sum of A * (index weights (i % 5) + 1 per axis) in f64: what the goldens' tot2/tot4 print."""
    wts = np.ones(A.shape, f64)
    for ax in range(A.ndim):
        shp = [1] * A.ndim
        shp[ax] = A.shape[ax]
        wts = wts * ((np.arange(A.shape[ax]) % 5) + 1).reshape(shp)
    return float((A.astype(f64) * wts).sum())


def pts(A, points):
    """A at each index tuple, as `print` shows them, space-separated."""
    return " ".join(fmt(A[p]) for p in points)


def scores(n, m, dt, a=7, b=3):
    """((i * a + j * b) % 23) * 0.1 - 1.0 over n x m, at type dt."""
    i, j = np.meshgrid(np.arange(n), np.arange(m), indexing="ij")
    return ((i * a + j * b) % 23).astype(dt) * dt(0.1) - dt(1.0)


def nan_scores():
    """scores(9, 9, f64, 5, 11) with a NaN at [4, 2], -inf at [6, 0] and row 7 all -inf: the
    matrix the goldens build as `if i == 4 && j == 2 { 0.0 / 0.0 } else if (i == 6 && j == 0) ||
    i == 7 { -1.0 / 0.0 } else { .. }`."""
    N = scores(9, 9, f64, 5, 11)
    N[4, 2] = np.nan
    N[6, 0] = -np.inf
    N[7, :] = -np.inf
    return N


def seq_sum(A, axis):
    """A sum in the order of its terms, in A's type (as a kernel adds a window's taps)."""
    acc = A.take(0, axis=axis).copy()
    for b in range(1, A.shape[axis]):
        acc = acc + A.take(b, axis=axis)
    return acc
