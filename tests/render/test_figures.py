#!/usr/bin/python3
"""Figures for writing, from the outside: `ttrace render` cuts the figure to its content,
titles it, labels the colour bar, leaves out the window's hints, and records where it came
from (PNG text chunks, SVG <metadata>), read here independently (struct + zlib, xml.etree);
`render --again FIG` draws the same bytes again, and refuses when the trace is gone or changed.

    test_figures.py TTRACE FIXTURE
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import xxhash
import zlib

ttrace, fixture = sys.argv[1], sys.argv[2]
failures = []
SVG = "{http://www.w3.org/2000/svg}"
META = "{https://ttrace.invalid/figure-metadata}"


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args):
    env = dict(os.environ, SDL_VIDEODRIVER="dummy")
    return subprocess.run([ttrace, "render", *args], capture_output=True, text=True, env=env, timeout=120)


def png_chunks(path):
    """[(type, data)] with every CRC checked."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    out, at = [], 8
    while at < len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + n]
        (crc,) = struct.unpack(">I", data[at + 8 + n:at + 12 + n])
        check(zlib.crc32(kind + body) & 0xFFFFFFFF == crc, "%s: the CRC of a %s chunk" % (path, kind))
        out.append((kind.decode("ascii"), body))
        at += 12 + n
    return out


def png_text(path):
    meta = {}
    for kind, body in png_chunks(path):
        if kind == "tEXt":
            k, v = body.split(b"\0", 1)
            meta[k.decode("latin-1")] = v.decode("latin-1")
        elif kind == "iTXt":
            k, rest = body.split(b"\0", 1)
            flag, method, rest = rest[0], rest[1], rest[2:]
            lang, rest = rest.split(b"\0", 1)
            trans, text = rest.split(b"\0", 1)
            meta[k.decode("latin-1")] = (zlib.decompress(text) if flag else text).decode("utf-8")
    return meta


def png_pixels(path):
    """(width, height, rows of RGB bytes) of an 8-bit RGB PNG."""
    ch = png_chunks(path)
    w, h, depth, ctype = struct.unpack(">IIBB", ch[0][1][:10])
    assert depth == 8 and ctype == 2, (depth, ctype)
    raw = zlib.decompress(b"".join(b for k, b in ch if k == "IDAT"))
    rows, prev, stride, at = [], bytearray(w * 3), w * 3, 0
    for _ in range(h):
        f, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            a = line[i - 3] if i >= 3 else 0
            b, c = prev[i], prev[i - 3] if i >= 3 else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, rows


def svg_meta(path):
    root = ET.parse(path).getroot()
    return {v.get("k"): (v.text or "") for v in root.iter(META + "v")}


def svg_texts(path):
    root = ET.parse(path).getroot()
    return [(t.get("data-tt") or "", "".join(t.itertext())) for t in root.iter(SVG + "text")]


def identity(path):
    """What a figure records of a trace: XXH3-64 of its header when the header holds
    data_xxh3 (the XXH3-64 of everything after the header), else of the whole file."""
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    meta = json.loads(data[8:8 + n]).get("__metadata__", {})
    if "data_xxh3" in meta:
        check(meta["data_xxh3"] == "%016x" % xxhash.xxh3_64_intdigest(data[8 + n:]),
              "%s: data_xxh3 is the hash of the data" % path)
        return "%016x" % xxhash.xxh3_64_intdigest(data[:8 + n])
    return "%016x" % xxhash.xxh3_64_intdigest(data)


def trace_prompt(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(n))["__metadata__"]["prompt"]


with tempfile.TemporaryDirectory() as tmp:
    tr = os.path.join(tmp, "weather.safetensors")
    shutil.copy(fixture, tr)
    look = ["--step", "blocks.0.attn.hook_pattern", "--head", "2", "--theme", "dark",
            "--title", "Head 2 looks back\u2026 \uc5b4\ud150\uc158", "--size", "1400x900"]

    # PNG: cut to the content, provenance in text chunks.
    fig = os.path.join(tmp, "fig.png")
    r = run(tr, *look, "-o", fig)
    check(r.returncode == 0, "render png: %s" % r.stderr)
    w, h, rows = png_pixels(fig)
    check(w < 1400 and h < 900, "the figure is cut to what it shows, at most --size: %dx%d" % (w, h))
    bg = bytes([16, 18, 24])  # the dark theme's background
    check(all(rows[y][x * 3:x * 3 + 3] == bg for y in (0, h - 1) for x in range(w)),
          "a margin of background around the cut figure (top and bottom rows)")
    inner = [y for y in range(h) if rows[y] != bg * w]
    check(inner and inner[0] > 4 and h - 1 - inner[-1] > 4, "content does not touch the edges: rows %s" % inner[:1])
    m = png_text(fig)
    want = {"ttrace:trace": os.path.realpath(tr), "ttrace:trace-xxh3": identity(tr),
            "ttrace:prompt": trace_prompt(tr), "ttrace:hook": "blocks.0.attn.hook_pattern", "ttrace:layer": "0",
            "ttrace:head": "2", "ttrace:option --theme": "dark",
            "ttrace:option --title": look[look.index("--title") + 1], "ttrace:option --size": "1400x900",
            "ttrace:option --step": "blocks.0.attn.hook_pattern", "ttrace:option --lang": "en"}
    for k, v in want.items():
        check(m.get(k) == v, "png %s = %r, wanted %r" % (k, m.get(k), v))
    check(m.get("ttrace:version", "") != "", "png records the ttrace version")
    for opt in ("--zoom", "--pan", "--temperature", "--position", "--top", "--font-scale", "--layer", "--head"):
        check(("ttrace:option " + opt) in m, "png records %s" % opt)

    # --again: the same bytes, into another file and in place.
    again = os.path.join(tmp, "again.png")
    r = run("--again", fig, "-o", again)
    check(r.returncode == 0, "again png: %s" % r.stderr)
    check(os.path.exists(again) and open(again, "rb").read() == open(fig, "rb").read(), "--again draws the same PNG")
    before = open(fig, "rb").read()
    r = run("--again", fig)
    check(r.returncode == 0 and open(fig, "rb").read() == before, "--again FIG redraws FIG itself, identical")

    # SVG: metadata through xml.etree, a title, a labelled continuous colour bar, no hints.
    svg = os.path.join(tmp, "fig.svg")
    r = run(tr, *look, "-o", svg)
    check(r.returncode == 0, "render svg: %s" % r.stderr)
    sm = svg_meta(svg)
    for k, v in want.items():
        check(sm.get(k) == v, "svg %s = %r, wanted %r" % (k, sm.get(k), v))
    root = ET.parse(svg).getroot()
    vb = [int(x) for x in root.get("viewBox").split()]
    check(vb[2] < 1400 and vb[3] < 900 and root.get("width") == str(vb[2]), "svg cut to the content: %s" % vb)
    grads = list(root.iter(SVG + "linearGradient"))
    check(len(grads) == 1 and len(list(grads[0])) >= 32, "one continuous gradient for the colour bar")
    if grads:
        stops = [s.get("stop-color") for s in grads[0]]
        check(stops[0] == "#fde725" and stops[-1] == "#440154", "the bar runs viridis 1 to 0: %s" % stops[:1])
    texts = svg_texts(svg)
    check(("title", want["ttrace:option --title"]) in texts, "the --title is the figure's title")
    check(("legend_title", "attention weight (probability)") in texts, "the colour bar says what it measures")
    r = run("--again", svg, "-o", os.path.join(tmp, "again.svg"))
    check(r.returncode == 0 and open(os.path.join(tmp, "again.svg"), "rb").read() == open(svg, "rb").read(),
          "--again draws the same SVG: %s" % r.stderr)
    for step, view, words in (("blocks.0.attn.hook_pattern", "grid", "point at a cell"),
                              ("hook_logits", "bars", "(keys"), ("blocks.0.attn.hook_attn_scores", None, "F1")):
        out = os.path.join(tmp, "hint.svg")
        args = [tr, "--step", step, "-o", out] + (["--view", view] if view else ["--frame"])
        r = run(*args)
        all_text = " ".join(s for _, s in svg_texts(out)) if r.returncode == 0 else ""
        check(r.returncode == 0 and words not in all_text, "no window hint %r in an exported %s" % (words, step))
        if step.endswith("attn_scores"):
            check(any(k == "legend_title" and s == "score (logit units)" for k, s in svg_texts(out)),
                  "scores: the bar is in logit units")

    # A pinned cell is an option like the others.
    pin = os.path.join(tmp, "pin.png")
    r = run(tr, *look, "--pin", "2,1", "-o", pin)
    check(r.returncode == 0 and png_text(pin).get("ttrace:option --pin") == "2,1", "the pin is recorded")
    r = run("--again", pin, "-o", os.path.join(tmp, "pin2.png"))
    check(r.returncode == 0 and open(os.path.join(tmp, "pin2.png"), "rb").read() == open(pin, "rb").read(),
          "--again draws the pinned figure the same")

    # --compare to SVG, with both traces recorded.
    cmp = os.path.join(tmp, "cmp.svg")
    r = run(tr, "--compare", fixture, "--step", "blocks.0.attn.hook_pattern", "-o", cmp)
    check(r.returncode == 0 and svg_meta(cmp).get("ttrace:compare-xxh3") == identity(fixture),
          "--compare to SVG records B: %s" % r.stderr)

    # Axis labels of 17+ tokens: thinned or rotated, never overlapping (boxes from the SVG).
    ko = os.path.join(tmp, "ko.safetensors")
    p = subprocess.run([ttrace, "trace", "--record", "tokens", "--record", "blocks.0.attn.hook_pattern", "-o", ko,
                        "\ub098\ub294 \uc0ac\uacfc\ub97c \uba39\uc5c8\ub2e4. \uc624\ub298 \ub0a0\uc528\uac00 \uc88b\ub2e4"],
                       capture_output=True, text=True)
    check(p.returncode == 0, "trace the Korean prompt: %s" % p.stderr)
    for size in ("1600x1000", "900x600", "3000x1800"):
        out = os.path.join(tmp, "ko.svg")
        r = run(ko, "--step", "blocks.0.attn.hook_pattern", "--size", size, "-o", out)
        root = ET.parse(out).getroot() if r.returncode == 0 else None
        boxes = {"row": [], "col": []}
        for t in (root.iter(SVG + "text") if root is not None else []):
            note = t.get("data-tt") or ""
            if not note.startswith("label axis=T"):
                continue
            x, y, w, fs = (float(t.get(k)) for k in ("x", "y", "textLength", "font-size"))
            if t.get("transform"):  # reads upwards from (x, y)
                box = (x - fs * 0.8, y - w, x + fs * 0.25, y)
            else:
                box = (x, y - fs * 0.8, x + w, y + fs * 0.25)
            boxes["row" if "dir=row" in note else "col"].append(box)
        for d, bs in boxes.items():
            check(len(bs) >= 5, "%s: %s labels drawn (%d)" % (size, d, len(bs)))
            clash = [(a, b) for i, a in enumerate(bs) for b in bs[i + 1:]
                     if a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5]
            check(not clash, "%s: %s labels overlap: %s" % (size, d, clash[:1]))

    # Refusals: one line, an exit code, nothing written.
    shutil.move(tr, tr + ".moved")
    out = os.path.join(tmp, "never.png")
    r = run("--again", fig, "-o", out)
    check(r.returncode == 4 and r.stderr.count("\n") == 1 and "cannot be read" in r.stderr and not os.path.exists(out),
          "--again without the trace: %d %r" % (r.returncode, r.stderr))
    shutil.move(tr + ".moved", tr)
    with open(tr, "r+b") as f:  # one byte of the last tensor, the header as it was
        f.seek(-1, os.SEEK_END)
        last = f.read(1)
        f.seek(-1, os.SEEK_END)
        f.write(bytes([last[0] ^ 1]))
    r = run("--again", fig, "-o", out)
    check(r.returncode == 3 and "has changed" in r.stderr and not os.path.exists(out),
          "--again with a changed tensor: %d %r" % (r.returncode, r.stderr))
    with open(tr, "ab") as f:
        f.write(b" ")
    r = run("--again", fig, "-o", out)
    check(r.returncode == 3 and "has changed" in r.stderr and not os.path.exists(out),
          "--again with a changed trace: %d %r" % (r.returncode, r.stderr))
    plain = os.path.join(tmp, "plain.png")
    with open(plain, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
    r = run("--again", plain, "-o", out)
    check(r.returncode == 3 and "no ttrace figure metadata" in r.stderr, "--again of a PNG ttrace did not write: %r"
          % r.stderr)
    r = run("--again", fig, tr, "-o", out)
    check(r.returncode == 2, "--again with a TRACE too is a usage error")

print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
