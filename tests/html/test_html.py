#!/usr/bin/env python3
"""ttrace export-html in a real browser: a lesson exported in both languages and a trace
are parsed strictly (html5lib) and checked for anything that would need the network; then
headless Chromium, with one serif font without Hangul as the only font installed (Chromium
stops rendering with no font at all), opens the lesson
page, steps through it with the keyboard (arrows, Home, End, L) and by #step=N links, and
each step's view is compared with rsvg-convert's rendering of the same SVG made with the
bundled fonts: the pixels must agree within a tolerance, and the text must be there (the
pixels where text is drawn match the rendering with text, not the one without).

  test_html.py TTRACE SOURCE_ROOT WORK_DIR
"""
import io
import os
import re
import shutil
import subprocess
import sys

import html5lib
from PIL import Image, ImageChops

sys.path.insert(0, os.path.dirname(__file__))
import cdp  # noqa: E402

TTRACE, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def fontconfig(path, font_dir):
    os.makedirs(font_dir, exist_ok=True)
    with open(path, "w") as f:
        f.write('<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>%s</dir>'
                '<cachedir>%s</cachedir></fontconfig>\n' % (font_dir, os.path.join(WORK, "fc-cache")))
    return path


def rsvg(svg_text, env):
    r = subprocess.run(["rsvg-convert", "-f", "png"], input=svg_text.encode(), capture_output=True, env=env,
                       check=True)
    return Image.open(io.BytesIO(r.stdout)).convert("RGB")


def compare(shot, ref, bare):
    """(mean |shot - ref| per channel, share of the text pixels that show text)."""
    if shot.size != ref.size:
        return 255.0, 0.0
    d = ImageChops.difference(shot, ref).convert("L")
    mean = sum(d.getdata()) / (shot.size[0] * shot.size[1])
    text = ImageChops.difference(ref, bare).convert("L")
    dref = d.getdata()
    dbare = ImageChops.difference(shot, bare).convert("L").getdata()
    mask = [i for i, v in enumerate(text.getdata()) if v > 60]
    shown = sum(1 for i in mask if dref[i] < dbare[i])
    return mean, shown / max(1, len(mask))


def sections(page):
    """{id: svg text} of every step section."""
    out = {}
    for m in re.finditer(r'<section class="step" id="([a-z]+-\d+)"[^>]*>.*?<div class="view">(<svg.*?</svg>)',
                         page, re.S):
        out[m.group(1)] = m.group(2)
    return out


def strict_parse(path):
    with open(path, "rb") as f:
        data = f.read()
    try:
        html5lib.HTMLParser(strict=True).parse(data)
    except Exception as e:  # html5lib raises ParseError on the first error in strict mode
        check(False, "%s: HTML parse error: %s" % (path, e))
    text = data.decode("utf-8")
    check(not re.search(r'\s(src|href)\s*=', text), "%s: refers to another file or address" % path)
    check(all(u.startswith(("data:", "#")) for u in re.findall(r"url\(([^)]{0,10})", text)),
          "%s: a url() that is not inline data" % path)
    check("@font-face" in text, "%s: no embedded fonts" % path)
    return text


def export(args):
    r = subprocess.run([TTRACE, "export-html"] + args, capture_output=True, text=True)
    check(r.returncode == 0, "export-html %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    page_path = os.path.join(WORK, "lesson.html")
    export(["1", "--lang", "both", "-o", page_path])
    trace_path = os.path.join(WORK, "weather.safetensors")
    subprocess.run([TTRACE, "trace", "The weather is nice", "-o", trace_path], check=True, capture_output=True)
    export([trace_path, "-o", os.path.join(WORK, "trace.html")])
    bad = os.path.join(WORK, "bad.html")
    for args, code in ((["99", "-o", bad], 3), (["1"], 2), (["1", "--lang", "fr", "-o", bad], 2),
                       ([os.path.join(WORK, "missing.safetensors"), "-o", bad], 4)):
        r = subprocess.run([TTRACE, "export-html"] + args, capture_output=True, text=True)
        check(r.returncode == code and len(r.stderr.strip().splitlines()) == 1 and not os.path.exists(bad),
              "export-html %s: exit %d (want %d), %r" % (" ".join(args), r.returncode, code, r.stderr))
    page = strict_parse(page_path)
    tpage = strict_parse(os.path.join(WORK, "trace.html"))
    check(len(sections(tpage)) >= 20, "trace page: %d steps, the demo walks more" % len(sections(tpage)))
    views = sections(page)
    n = len([k for k in views if k.startswith("en-")])
    check(n >= 5 and n == len([k for k in views if k.startswith("ko-")]), "lesson page: %d en steps" % n)
    print("lesson page: %d bytes, %d steps per language" % (os.path.getsize(page_path), n))
    check(not any("panel=lesson_bar" in v or "panel=narration" in v for v in views.values()),
          "a step's view repeats the window's title bar or narration (the page has its own)")

    serif = os.path.join(WORK, "serif-only")
    os.makedirs(serif)
    shutil.copy(subprocess.run(["fc-match", "-f", "%{file}", "DejaVu Serif"], capture_output=True, text=True,
                               check=True).stdout, serif)
    env_none = dict(os.environ, FONTCONFIG_FILE=fontconfig(os.path.join(WORK, "serif.conf"), serif))
    env_fonts = dict(os.environ, FONTCONFIG_FILE=fontconfig(os.path.join(WORK, "fonts.conf"),
                                                            os.path.join(ROOT, "assets", "fonts")))
    shots = os.path.join(WORK, "shots")
    os.makedirs(shots)
    b = cdp.Browser(1720, 900, env=env_none)
    try:
        walk(b, "file://" + page_path, views, n, env_fonts, shots)
    finally:
        b.close()
    if failures:
        print("%d failures" % len(failures))
        sys.exit(1)
    print("ok: screenshots in", shots)


def visible(b):
    return b.eval("(function () { var s = [].filter.call(document.querySelectorAll('section.step'),"
                  " function (e) { return e.offsetParent !== null; }); return s.map(function (e) { return e.id; });"
                  " })()")


def check_view(b, views, sid, env_fonts, shots, worst):
    ids = visible(b)
    check(ids == [sid], "expected %s alone on screen, saw %s" % (sid, ids))
    if ids != [sid]:
        return
    r = b.eval("(function () { var r = document.getElementById('%s').querySelector('svg').getBoundingClientRect();"
               " return [r.left + scrollX, r.top + scrollY, r.width, r.height]; })()" % sid)
    shot = Image.open(io.BytesIO(b.screenshot(*r))).convert("RGB")
    shot.save(os.path.join(shots, sid + ".png"))
    ref = rsvg(views[sid], env_fonts)
    bare = rsvg(re.sub(r"<text\b.*?</text>", "", views[sid], flags=re.S), env_fonts)
    mean, shown = compare(shot, ref, bare)
    print("%-6s mean |chromium - rsvg| %.2f, text pixels shown %.2f" % (sid, mean, shown))
    check(mean < 6.0, "%s: Chromium's view differs from rsvg's by %.2f on average" % (sid, mean))
    check(shown > 0.5, "%s: only %.2f of the text pixels show text" % (sid, shown))
    worst.append((sid, mean, shown))


def walk(b, url, views, n, env_fonts, shots):
    b.load(url)
    worst = []
    check_view(b, views, "en-1", env_fonts, shots, worst)
    for i in range(2, n + 1):
        b.key("ArrowRight")
        check_view(b, views, "en-%d" % i, env_fonts, shots, worst)
        check(b.eval("location.hash") == "#step=%d&lang=en" % i, "hash after step %d" % i)
    b.key("ArrowRight")
    check(visible(b) == ["en-%d" % n], "ArrowRight past the last step moved")
    b.key("Home")
    check(visible(b) == ["en-1"], "Home did not go to step 1")
    b.key("ArrowLeft")
    check(visible(b) == ["en-1"], "ArrowLeft before the first step moved")
    b.key("End")
    check(visible(b) == ["en-%d" % n], "End did not go to the last step")
    b.key("PageUp")
    check(visible(b) == ["en-%d" % (n - 1)], "PageUp did not go back")
    b.key("l")
    check_view(b, views, "ko-%d" % (n - 1), env_fonts, shots, worst)
    check(b.eval("document.documentElement.lang") == "ko", "L did not switch the page to Korean")
    b.load(url + "#step=2&lang=ko")
    check_view(b, views, "ko-2", env_fonts, shots, worst)
    b.load(url + "#step=3")
    check(visible(b) == ["en-3"], "#step=3 did not open step 3")
    # The comparison can tell steps apart: a step's view against the next step's rendering.
    other = Image.open(os.path.join(shots, "en-2.png")).convert("RGB")
    ref3 = rsvg(views["en-3"], env_fonts)
    bare3 = rsvg(re.sub(r"<text\b.*?</text>", "", views["en-3"], flags=re.S), env_fonts)
    mean, shown = compare(other, ref3, bare3)
    check(mean >= 6.0 or shown <= 0.5, "the comparison does not tell step 2 from step 3 (%.2f, %.2f)" % (mean, shown))
    # The whole page at step 2 in Korean, for a person to look at.
    b.load(url + "#step=2&lang=ko")
    with open(os.path.join(shots, "page-ko-2.png"), "wb") as f:
        f.write(b.screenshot(0, 0, 1720, 900))
    b.load(url + "#step=2")
    with open(os.path.join(shots, "page-en-2.png"), "wb") as f:
        f.write(b.screenshot(0, 0, 1720, 900))
    # A laptop's 1366 pixels: the view shrinks to the page's width, nothing scrolls sideways.
    b.call("Emulation.setDeviceMetricsOverride", width=1366, height=768, deviceScaleFactor=1, mobile=False)
    b.load(url + "#step=2")
    natural = float(re.search(r'<svg[^>]*\bwidth="([\d.]+)"', views["en-2"]).group(1))
    over = b.eval("document.scrollingElement.scrollWidth - innerWidth")
    shown_w = b.eval("document.getElementById('en-2').querySelector('svg').getBoundingClientRect().width")
    check(over <= 0 and 0 < shown_w < natural,
          "at 1366 pixels the page scrolls sideways by %s (the view %s wide of its %g)" % (over, shown_w, natural))
    print("worst mean %.2f, lowest text share %.2f" % (max(w[1] for w in worst), min(w[2] for w in worst)))


if __name__ == "__main__":
    main()
