"""Minimal PNG reader (8-bit RGB/RGBA, not interlaced) for the tests: no PIL on Debian's python3."""
import struct
import zlib


def read_png(path):
    """Returns (width, height, rows) with rows a list of bytes objects of RGB triples."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError(f"{path}: unsupported PNG (depth {depth}, colour type {ctype})")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        ft, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ft == 1:
                line[x] = (line[x] + a) & 255
            elif ft == 2:
                line[x] = (line[x] + b) & 255
            elif ft == 3:
                line[x] = (line[x] + ((a + b) >> 1)) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        rows.append(bytes(line) if bpp == 3 else bytes(v for k, v in enumerate(line) if k % 4 != 3))
    return w, h, rows


def differing(a, b, tol=24):
    """Share of pixels whose channels differ by more than tol (images of one size)."""
    (wa, ha, ra), (wb, hb, rb) = a, b
    if (wa, ha) != (wb, hb):
        return 1.0
    n = 0
    for la, lb in zip(ra, rb):
        if la == lb:
            continue
        for x in range(0, len(la), 3):
            if max(abs(la[x] - lb[x]), abs(la[x + 1] - lb[x + 1]), abs(la[x + 2] - lb[x + 2])) > tol:
                n += 1
    return n / (wa * ha)


def differing_from_figure(window, figure, key_line=48):
    """Share of differing pixels between a window screenshot and the headless figure of the
    same view: a figure leaves out the window's key line at the bottom and is cut to what it
    shows, so the rows above the key line are compared (images of one width)."""
    (wa, ha, ra), (wb, hb, rb) = window, figure
    if wa != wb:
        return 1.0
    h = min(ha, hb) - key_line
    return differing((wa, h, ra[:h]), (wb, h, rb[:h]))
