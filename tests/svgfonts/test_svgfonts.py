#!/usr/bin/env python3
"""Every SVG embeds the glyphs it draws. An English and a Korean figure are exported; each
must carry @font-face rules whose data are subsets of the bundled fonts holding exactly
the characters its <text> elements draw (no more: the file stays small). Then the
subsets alone are installed as the only fonts (a private fontconfig) and rsvg-convert
renders the SVG: the text must show as it does with the full fonts (the pixels where text
is drawn agree with the rendering with all fonts, not with the one without text). Last,
headless Chromium, with one serif font without Hangul as its only installed font, renders
the Korean figure inside a page and its Hangul must show.

  test_svgfonts.py TTRACE SOURCE_ROOT WORK_DIR
"""
import base64
import html
import io
import os
import re
import shutil
import subprocess
import sys

from PIL import Image, ImageChops

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "html"))
import cdp  # noqa: E402

TTRACE, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def fontconfig(name, font_dir):
    path = os.path.join(WORK, name + ".conf")
    with open(path, "w") as f:
        f.write('<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>%s</dir>'
                '<cachedir>%s</cachedir></fontconfig>\n' % (font_dir, os.path.join(WORK, "fc-cache-" + name)))
    return dict(os.environ, FONTCONFIG_FILE=path)


def rsvg(svg_text, env):
    r = subprocess.run(["rsvg-convert", "-f", "png"], input=svg_text.encode(), capture_output=True, env=env,
                       check=True)
    return Image.open(io.BytesIO(r.stdout)).convert("RGB")


def text_shown(img, ref, bare):
    d_ref = ImageChops.difference(img, ref).convert("L").getdata()
    d_bare = ImageChops.difference(img, bare).convert("L").getdata()
    mask = [i for i, v in enumerate(ImageChops.difference(ref, bare).convert("L").getdata()) if v > 60]
    return sum(1 for i in mask if d_ref[i] < d_bare[i]) / max(1, len(mask)), len(mask)


def charset(path):
    out = subprocess.run(["fc-scan", "--format", "%{charset}", path], capture_output=True, text=True,
                         check=True).stdout
    chars = set()
    for part in out.split():
        a, _, b = part.partition("-")
        chars.update(range(int(a, 16), int(b or a, 16) + 1))
    return chars


def one(name, args):
    svg_path = os.path.join(WORK, name + ".svg")
    subprocess.run([TTRACE, "render"] + args + ["-o", svg_path], check=True, capture_output=True)
    svg = open(svg_path, encoding="utf-8").read()
    print("%s.svg: %d bytes" % (name, len(svg.encode())))
    check("@font-face" in svg, name + ": no @font-face")
    faces = re.findall(r'@font-face\{font-family:"([^"]+)";font-weight:(\w+);src:url\(data:font/ttf;base64,'
                       r'([A-Za-z0-9+/=]+)\)', svg)
    check(len(faces) >= 2, name + ": %d embedded faces" % len(faces))
    font_dir = os.path.join(WORK, name + "-subsets")
    os.makedirs(font_dir)
    covered = set()
    for i, (family, weight, data) in enumerate(faces):
        path = os.path.join(font_dir, "%d.ttf" % i)
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        covered |= charset(path)
        check(os.path.getsize(path) < 60000, "%s: the %s %s subset is %d bytes" % (name, family, weight,
                                                                                   os.path.getsize(path)))
    drawn = set(ord(c) for t in re.findall(r"<text\b[^>]*>(.*?)</text>", svg, re.S) for c in html.unescape(t))
    missing = sorted(c for c in drawn if c not in covered and c >= 0x20)
    check(not missing, "%s: characters drawn but not embedded: %s" % (name, "".join(map(chr, missing[:20]))))
    bare_svg = re.sub(r"<text\b.*?</text>", "", svg, flags=re.S)
    full = fontconfig("full", os.path.join(ROOT, "assets", "fonts"))
    ref, bare = rsvg(svg, full), rsvg(bare_svg, full)
    shown, n = text_shown(rsvg(svg, fontconfig(name, font_dir)), ref, bare)
    print("%s: with the subsets alone, %.3f of %d text pixels show text" % (name, shown, n))
    check(shown > 0.75, "%s: the subsets alone draw %.3f of the text" % (name, shown))
    return svg, ref, bare


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    trace = os.path.join(WORK, "weather.safetensors")
    subprocess.run([TTRACE, "trace", "The weather is nice", "-o", trace], check=True, capture_output=True)
    one("en", [trace, "--step", "attn.hook_pattern", "--frame", "--size", "1200x750"])
    svg, ref, bare = one("ko", [trace, "--step", "attn.hook_pattern", "--frame", "--lang", "ko", "--size",
                               "1200x750"])
    # In a browser with no font that has Hangul: the embedded subsets must draw it.
    serif = os.path.join(WORK, "serif-only")
    os.makedirs(serif)
    shutil.copy(subprocess.run(["fc-match", "-f", "%{file}", "DejaVu Serif"], capture_output=True, text=True,
                               check=True).stdout, serif)
    page = os.path.join(WORK, "ko.html")
    with open(page, "w", encoding="utf-8") as f:
        f.write('<!DOCTYPE html><html lang="ko"><head><meta charset="utf-8"><title>ko</title>'
                '<style>body{margin:0}svg{display:block}</style></head><body>%s</body></html>'
                % svg[svg.index("<svg"):])
    b = cdp.Browser(1200, 750, env=fontconfig("serif", serif))
    try:
        b.load("file://" + page)
        shot = Image.open(io.BytesIO(b.screenshot(0, 0, 1200, 750))).convert("RGB")
    finally:
        b.close()
    shot.save(os.path.join(WORK, "ko-chromium.png"))
    shown, n = text_shown(shot, ref, bare)
    print("ko in Chromium without Hangul fonts: %.3f of %d text pixels show text" % (shown, n))
    check(shown > 0.5, "Chromium draws only %.3f of the Korean figure's text" % shown)
    if failures:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
