"""Checks that plots appear in a browser rendering of an executed notebook.

    check_screenshot.py PLOTS.png CONTROL.png

PLOTS.png is a headless-Chromium screenshot of a notebook's HTML export showing outputs only;
CONTROL.png is the same export with every image output removed. Text, tables and code are
black, grey or white; gnuplot curves and heat maps are saturated colour. So the plots page must
have many strongly coloured pixels, and many more than the control: that shows the images were
rendered, not just referenced. Prints the counts; exit status 1 if the check fails.

The PNG decoder is the standard library's zlib plus the five PNG row filters (8-bit RGB/RGBA,
non-interlaced, which is what Chromium writes).
"""
import struct
import sys
import zlib

MIN_COLOURED = 20000  # a 640x400 plot has ~100k pixels, a heat map mostly saturated ones
MIN_RATIO = 10


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"{path}: unsupported PNG (depth {depth}, colour {colour})")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        filt = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if filt == 1:
                line[i] = (line[i] + a) & 255
            elif filt == 2:
                line[i] = (line[i] + b) & 255
            elif filt == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif filt == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def census(path):
    """(pixels, non-white pixels, strongly coloured pixels)."""
    width, height, bpp, rows = read_png(path)
    nonwhite = coloured = 0
    for row in rows:
        for x in range(0, width * bpp, bpp):
            r, g, b = row[x], row[x + 1], row[x + 2]
            if r < 240 or g < 240 or b < 240:
                nonwhite += 1
            if max(r, g, b) - min(r, g, b) > 80:
                coloured += 1
    return width * height, nonwhite, coloured


def main(plots, control):
    total, nonwhite, coloured = census(plots)
    _, c_nonwhite, c_coloured = census(control)
    print(f"screenshot with plots: {total} px, {nonwhite} non-white, {coloured} coloured")
    print(f"control without plots: {c_nonwhite} non-white, {c_coloured} coloured")
    ok = coloured >= MIN_COLOURED and coloured >= MIN_RATIO * max(c_coloured, 1)
    print("plots are visible" if ok else
          f"FAIL: expected >= {MIN_COLOURED} coloured pixels and {MIN_RATIO}x the control")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
