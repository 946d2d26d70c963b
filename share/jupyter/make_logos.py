#!/usr/bin/env python3
"""Draws the kernel logos (logo-32x32.png, logo-64x64.png) next to this script.

A summation sign on a rounded blue tile, the symbol of Einstein notation. Pure standard library
(zlib + struct write the PNG) so it runs anywhere; the PNGs are committed, this script only
documents how they were made:  python3 share/jupyter/make_logos.py
"""
import math
import os
import struct
import zlib

BG = (31, 78, 121)      # tile
FG = (255, 255, 255)    # sigma
DOT = (242, 142, 43)    # accent: an index
SIGMA = [(0.70, 0.24), (0.30, 0.24), (0.53, 0.50), (0.30, 0.76), (0.70, 0.76)]
STROKE = 0.085
SS = 4  # supersampling per axis


def seg_dist(px, py, ax, ay, bx, by):
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def inside_tile(x, y, r=0.18):
    # Rounded square covering [0.03, 0.97]^2.
    lo, hi = 0.03, 0.97
    cx = min(max(x, lo + r), hi - r)
    cy = min(max(y, lo + r), hi - r)
    return lo <= x <= hi and lo <= y <= hi and math.hypot(x - cx, y - cy) <= r


def colour_at(x, y):
    """RGBA of one sample point in unit coordinates."""
    if not inside_tile(x, y):
        return (0, 0, 0, 0)
    if math.hypot(x - 0.78, y - 0.80) <= 0.075:
        return DOT + (255,)
    for (ax, ay), (bx, by) in zip(SIGMA, SIGMA[1:]):
        if seg_dist(x, y, ax, ay, bx, by) <= STROKE / 2:
            return FG + (255,)
    return BG + (255,)


def render(n):
    rows = []
    for j in range(n):
        row = bytearray([0])  # filter type 0
        for i in range(n):
            acc = [0, 0, 0, 0]
            for sj in range(SS):
                for si in range(SS):
                    r, g, b, a = colour_at((i + (si + 0.5) / SS) / n, (j + (sj + 0.5) / SS) / n)
                    acc[0] += r * a
                    acc[1] += g * a
                    acc[2] += b * a
                    acc[3] += a
            a = acc[3]
            px = [round(acc[k] / a) if a else 0 for k in range(3)] + [round(a / (SS * SS))]
            row += bytes(px)
        rows.append(bytes(row))
    return b"".join(rows)


def png(n, raw):
    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))
    header = struct.pack(">IIBBBBB", n, n, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for n in (32, 64):
        with open(os.path.join(here, f"logo-{n}x{n}.png"), "wb") as f:
            f.write(png(n, render(n)))
