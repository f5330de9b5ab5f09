#!/usr/bin/python3
"""Readable on a projector: the sizes the window draws, read from SVG exports of the same
painters (`render --frame`, `lesson --svg`) at 1280x800 and 1920x1080.

- every text is at least as large as its kind needs at 1280x800: cell numbers 14 px, labels
  (axis labels, ticks, axis titles, indices, ids) 16 px, narration (the step's words, the
  lesson's narration) 20 px;
- the 4 x 4 attention pattern fills its pane (its cells, measured between the centres of
  their numbers, are over 105 px at 1280x800) and grows with the window (larger at
  1920x1080, never larger in a smaller window);
- lesson 9 step 3 (GELU against ReLU) and the embedding step draw no text over another;
- the embedding step labels every looked-up row (each token's id is written once);
- the axis labels of a 22-token prompt are as large and none is over another;
- the residual step shows h, o and h' = h + o (the step before it, x + p, stays as it was).

    test_sizes.py TTRACE LESSONS_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from window_state import check, failures  # noqa: E402

ttrace, lessons = sys.argv[1], sys.argv[2]
trace = os.path.join(lessons, "traces", "01-weather.safetensors")
env = dict(os.environ, SDL_VIDEODRIVER="dummy")

MIN = {"cell": 14, "label": 16, "narration": 20}
LABEL_KINDS = {"label", "index", "axis_title", "tick", "axis_number", "token_id", "head_label", "layer_label",
               "bar_id", "bar_token", "vocab_last", "legend_title", "header", "top_token", "top_value",
               "rank_header"}
HOOKS = ["tokens", "hook_embed", "hook_pos_embed", "blocks.0.hook_resid_pre", "blocks.0.ln1.hook_out", "blocks.0.attn.hook_qkv",
         "blocks.0.attn.hook_q", "blocks.0.attn.hook_attn_scores", "blocks.0.attn.hook_pattern", "blocks.0.attn.hook_z",
         "blocks.0.hook_resid_mid", "blocks.0.mlp.hook_pre", "blocks.0.mlp.hook_post", "hook_logits", "hook_probs"]


def texts(path):
    """(kind, panel, font size, x, y, width, rotated, string) of every <text> of an SVG."""
    out = []
    with open(path, encoding="utf-8") as f:
        svg = f.read()
    for m in re.finditer(r"<text ([^>]*)>([^<]*)", svg):
        a = m.group(1)
        num = lambda k: float(re.search(k + r'="([-\d.]+)"', a).group(1))  # noqa: E731
        kind = re.search(r'data-tt="([^" ]*)', a)
        panel = re.search(r'data-tt-panel="panel=(\w+)', a)
        width = re.search(r'textLength="([\d.]+)"', a)
        out.append({"kind": kind.group(1) if kind else "", "panel": panel.group(1) if panel else "",
                    "note": re.search(r'data-tt="([^"]*)"', a).group(1) if kind else "",
                    "fs": num("font-size"), "x": num("x"), "y": num("y"), "w": float(width.group(1)) if width else 0,
                    "rot": "rotate" in a, "s": m.group(2)})
    return out


def class_of(t):
    if t["kind"] == "cell":
        return "cell"
    if t["kind"] in LABEL_KINDS:
        return "label"
    if t["panel"] == "narration" or (t["kind"] == "prose" and t["panel"] == "header"):
        return "narration"
    return None


def check_minimums(name, ts):
    worst = {}
    for t in ts:
        c = class_of(t)
        if c and (c not in worst or t["fs"] < worst[c]["fs"]):
            worst[c] = t
    for c, t in sorted(worst.items()):
        check(t["fs"] >= MIN[c], f"{name}: {c} text at least {MIN[c]} px: smallest {t['fs']:g} px ({t['s'][:30]!r})")


def box(t):
    """A text's box: along its baseline from x, or, turned (reading upwards), up from y."""
    if t["rot"]:
        return (t["x"] - t["fs"] * 0.8, t["y"] - t["w"], t["x"] + t["fs"] * 0.2, t["y"], t["s"])
    return (t["x"], t["y"] - t["fs"] * 0.8, t["x"] + t["w"], t["y"] + t["fs"] * 0.2, t["s"])


def overlaps(ts, slack=2):
    """Pairs of texts whose boxes overlap by more than slack pixels both ways."""
    boxes = [box(t) for t in ts if t["s"].strip()]
    bad = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if min(a[2], b[2]) - max(a[0], b[0]) > slack and min(a[3], b[3]) - max(a[1], b[1]) > slack:
                bad.append((a[4][:30], b[4][:30]))
    return bad


def render(tmp, hook, size):
    out = os.path.join(tmp, f"{hook}-{size}.svg")
    r = subprocess.run([ttrace, "render", trace, "--step", hook, "--frame", "--size", size, "-o", out],
                       capture_output=True, text=True, env=env)
    check(r.returncode == 0, f"render --frame {hook} at {size} {r.stderr.strip()[-200:]}")
    return texts(out) if r.returncode == 0 else []


def lesson(tmp, number, step, size, extra=()):
    out = os.path.join(tmp, f"lesson{number}-{step}-{size}{'-'.join(extra)}.svg")
    r = subprocess.run([ttrace, "lesson", "--svg", out, "--step", str(step), "--size", size, *extra, str(number)],
                       capture_output=True, text=True, env=dict(env, TTRACE_LESSONS=lessons))
    check(r.returncode == 0, f"lesson --svg {number} step {step} at {size} {r.stderr.strip()[-200:]}")
    return texts(out) if r.returncode == 0 else []


def background(tmp, number, step, size, extra):
    """The fill of the page's first rectangle (the window's background)."""
    lesson(tmp, number, step, size, extra)
    with open(os.path.join(tmp, f"lesson{number}-{step}-{size}{'-'.join(extra)}.svg"), encoding="utf-8") as f:
        m = re.search(r'<rect x="0" y="0" [^>]*fill="(#[0-9a-f]{6})"', f.read())
    return m.group(1) if m else None


def pattern_cell(ts):
    """The cell width of the pattern heatmap: the distance between the numbers of cells
    (0, 0) and (0, 3) over 3 (numbers are centred in their cells)."""
    xs = {}
    for t in ts:
        m = re.fullmatch(r"cell r=0 c=(\d)", t["note"])
        if m:
            xs[int(m.group(1))] = t["x"] + t["w"] / 2
    return (xs[3] - xs[0]) / 3 if 0 in xs and 3 in xs else 0


with tempfile.TemporaryDirectory() as tmp:
    cells = {}
    for size in ("1280x800", "1920x1080"):
        for hook in HOOKS:
            ts = render(tmp, hook, size)
            if size == "1280x800":
                check_minimums(f"{hook} at {size}", ts)
            if hook == "blocks.0.attn.hook_pattern":
                cells[size] = pattern_cell(ts)
            if hook == "blocks.0.hook_resid_pre":  # embedding + position: x + p
                check("x + p" in {t["s"] for t in ts}, f"the embedding + position step shows x + p at {size}")
            if hook == "blocks.0.hook_resid_mid":  # what is new at a residual step: h, o and their sum
                titles = {t["s"] for t in ts}
                check({"h", "o", "h' = h + o"} <= titles, f"the residual step shows h, o and h' = h + o at {size}")
            if hook == "hook_embed":
                bad = overlaps(ts)
                check(not bad, f"embedding step at {size}: no text over another {bad[:3]}")
                with open(trace, "rb") as f:
                    n = int.from_bytes(f.read(8), "little")
                    ids = json.loads(json.loads(f.read(n))["__metadata__"]["token_ids"])
                shown = sorted(int(t["s"]) for t in ts if t["kind"] == "token_id")
                check(shown == sorted(set(ids)), f"embedding step at {size}: every looked-up row labelled: {shown} of {ids}")
        for number, step in ((9, 3), (9, 1), (6, 2), (10, 1)):
            ts = lesson(tmp, number, step, size)
            if size == "1280x800":
                check_minimums(f"lesson {number} step {step} at {size}", ts)
            if (number, step) == (9, 3):
                bad = overlaps(ts)
                check(not bad, f"lesson 9 step 3 at {size}: no text over another {bad[:3]}")
    # A lesson figure is drawn as asked: the type --font-scale times as large, the colours of --theme.
    plain = [t["fs"] for t in lesson(tmp, 9, 1, "1920x1080") if t["kind"] == "title"]
    larger = [t["fs"] for t in lesson(tmp, 9, 1, "1920x1080", ("--font-scale", "1.5")) if t["kind"] == "title"]
    check(plain and larger and 1.4 < larger[0] / plain[0] < 1.7,
          f"lesson --svg --font-scale 1.5: the view's title {plain[:1]} -> {larger[:1]} px")
    light, dark = (background(tmp, 9, 1, "1280x800", ("--theme", th)) for th in ("light", "dark"))
    check(light and dark and light != dark and int(dark[1:3], 16) < 0x40 < int(light[1:3], 16),
          f"lesson --svg --theme dark draws on a dark background: {light} (light), {dark} (dark)")
    # Axis labels at 17 and more tokens: large enough, and none over another.
    long_prompt = "The cat sat on the mat because the cat was tired and the dog was not, so they slept all day"
    long_trace = os.path.join(tmp, "long.safetensors")
    r = subprocess.run([ttrace, "trace", "-q", "-o", long_trace, long_prompt], capture_output=True, text=True, env=env)
    check(r.returncode == 0, f"trace a 22-token prompt {r.stderr.strip()[-200:]}")
    for size in ("1280x800", "1920x1080"):
        out = os.path.join(tmp, f"long-{size}.svg")
        r = subprocess.run([ttrace, "render", long_trace, "--step", "blocks.0.attn.hook_pattern", "--frame", "--size",
                            size, "-o", out], capture_output=True, text=True, env=env)
        ts = texts(out) if r.returncode == 0 else []
        labels = [t for t in ts if t["kind"] == "label"]
        check(len(labels) >= 16 and min(t["fs"] for t in labels) >= MIN["label"],
              f"22 tokens at {size}: {len(labels)} axis labels, at least {MIN['label']} px")
        bad = overlaps(labels)
        check(not bad, f"22 tokens at {size}: no axis label over another {bad[:3]}")
    small = pattern_cell(render(tmp, "blocks.0.attn.hook_pattern", "1024x640"))
    check(cells["1280x800"] > 105, f"the 4 x 4 pattern fills its pane at 1280x800: cells {cells['1280x800']:.1f} px")
    check(cells["1920x1080"] > cells["1280x800"] * 1.2,
          f"and grows at 1920x1080: {cells['1920x1080']:.1f} px")
    check(0 < small <= cells["1280x800"], f"a smaller window (1024x640) gets no larger cells: {small:.1f} px")
sys.exit(1 if failures else 0)
