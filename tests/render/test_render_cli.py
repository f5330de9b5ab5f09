#!/usr/bin/python3
"""`ttrace render` from the command line: PNG and SVG outputs, hook names and suffixes,
composite views, and the errors a user can make.

    test_render_cli.py TTRACE FIXTURE
"""
import os
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ttrace, fixture = sys.argv[1], sys.argv[2]
failures = []


def run(*args):
    env = dict(os.environ, SDL_VIDEODRIVER="dummy")
    return subprocess.run([ttrace, "render", *args], capture_output=True, text=True, env=env, timeout=60)


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    check(head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is a PNG")
    return struct.unpack(">II", head[16:24])


with tempfile.TemporaryDirectory() as tmp:
    # Full name, suffix + --layer, composite views, sizes, both themes and languages.
    cases = [
        (["--step", "blocks.0.attn.hook_pattern", "--head", "1"], "blocks.0.attn.hook_pattern"),
        (["--step", "attn.hook_pattern", "--layer", "1", "--view", "grid"], "blocks.1.attn.hook_pattern"),
        (["--step", "attn.hook_attn_scores", "--frame", "--pin", "2,1", "--lang", "ko", "--theme", "dark"],
         "blocks.0.attn.hook_attn_scores"),
        (["--step", "hook_probs"], "hook_probs"),  # not recorded: the bars come from the logits
        (["--step", "tokens", "--size", "800x500"], "tokens"),
        (["--step", "hook_logits", "--zoom", "64", "--pan", "0,100"], "hook_logits"),
        (["--step", "mlp.hook_post", "--layer", "1"], "blocks.1.mlp.hook_post"),
    ]
    for i, (args, hook) in enumerate(cases):
        out = os.path.join(tmp, f"fig{i}.png")
        r = run(fixture, *args, "-o", out)
        check(r.returncode == 0, f"render {args}: exit {r.returncode} {r.stderr.strip()}")
        check(r.stdout.startswith(hook + ":"), f"render {args} names {hook}: {r.stdout.strip()}")
        if r.returncode == 0:
            w, h = png_size(out)
            # --size is the most a figure takes: it is cut to what it shows.
            most = (800, 500) if "800x500" in args else (1600, 1000)
            check(w <= most[0] and h <= most[1] and (w, h) != most or "--frame" in args,
                  f"render {args}: size {w}x{h}, wanted at most {most}, cut to the content")
        check(not [n for n in os.listdir(tmp) if ".tmp." in n], "no temporary files left")

    # SVG: parses as XML, has the title text and cells.
    out = os.path.join(tmp, "fig.svg")
    r = run(fixture, "--step", "blocks.0.attn.hook_attn_scores", "-o", out)
    check(r.returncode == 0, f"svg: exit {r.returncode} {r.stderr.strip()}")
    if r.returncode == 0:
        root = ET.parse(out).getroot()
        ns = "{http://www.w3.org/2000/svg}"
        texts = [t.text or "" for t in root.iter(ns + "text")]
        check(any("blocks.0.attn.hook_attn_scores" in t for t in texts), "svg has the title")
        check(any("weather" in t for t in texts), "svg has token labels")
        check(len(list(root.iter(ns + "rect"))) >= 16, "svg has a rect per cell")

    # The FFN drawn without its activation is titled with the FFN's output of the layer, whatever
    # step was asked for (it once took the step's name: "blocks.0.attn.hook_pattern").
    out = os.path.join(tmp, "collapse.svg")
    r = run(fixture, "--step", "blocks.0.attn.hook_pattern", "--layer", "1", "--view", "collapse", "-o", out)
    check(r.returncode == 0, f"collapse: exit {r.returncode} {r.stderr.strip()}")
    if r.returncode == 0:
        titles = [t.text for t in ET.parse(out).getroot().iter("{http://www.w3.org/2000/svg}text")
                  if t.get("data-tt") == "title"]
        check(titles[:1] == ["blocks.0.hook_mlp_out  \u00b7  layer 0"], f"collapse titled {titles[:1]}")
    r = run(fixture, "--step", "tokens", "--layer", "1", "--view", "collapse", "-o", out)
    if r.returncode == 0:
        titles = [t.text for t in ET.parse(out).getroot().iter("{http://www.w3.org/2000/svg}text")
                  if t.get("data-tt") == "title"]
        check(titles[:1] == ["blocks.1.hook_mlp_out  \u00b7  layer 1"], f"collapse at --layer 1 titled {titles[:1]}")

    # --hover: the window's tooltip on the cell asked for (tests/numbers checks what it prints),
    # of the --head's panel in the grid, and recorded for --again.
    out = os.path.join(tmp, "hover.svg")
    r = run(fixture, "--step", "blocks.0.attn.hook_pattern", "--view", "grid", "--head", "1", "--hover", "3,2", "-o", out)
    check(r.returncode == 0, f"hover: exit {r.returncode} {r.stderr.strip()}")
    if r.returncode == 0:
        tips = [t.text for t in ET.parse(out).getroot().iter("{http://www.w3.org/2000/svg}text")
                if (t.get("data-tt") or "").startswith("hover_index")]
        check(tips == ["blocks.0.attn.hook_pattern[1, 3, 2]"], f"hover names its cell: {tips}")
        again = os.path.join(tmp, "hover-again.svg")
        r = run("--again", out, "-o", again)
        check(r.returncode == 0 and open(again, "rb").read() == open(out, "rb").read(), "--again draws the hover again")
    out = os.path.join(tmp, "hover-compare.png")
    r = run(fixture, "--compare", fixture, "--step", "blocks.0.attn.hook_pattern", "--hover", "1,0", "-o", out)
    check(r.returncode == 0 and os.path.exists(out), f"hover on a comparison: exit {r.returncode} {r.stderr.strip()}")
    no_hover = os.path.join(tmp, "no-hover.svg")
    r = run(fixture, "--step", "blocks.0.attn.hook_pattern", "-o", no_hover)
    check(r.returncode == 0 and "hover_value" not in open(no_hover, encoding="utf-8").read(), "no tooltip unasked")

    # Errors: exit codes 2 (usage) and 3 (bad input) with one clear line.
    bad = [
        ([fixture, "--step", "blocks.0.attn.hook_pattern", "--hover", "4,0", "-o", os.path.join(tmp, "h.png")], 3,
         "--hover 4,0"),
        ([fixture, "--step", "blocks.0.attn.hook_pattern", "--hover", "1", "-o", os.path.join(tmp, "h.png")], 2,
         "--hover wants ROW,COL"),
        ([fixture, "--step", "blocks.0.attn.hook_pattern", "--hover", "0,9", "--compare", fixture, "-o",
          os.path.join(tmp, "h.png")], 3, "--hover 0,9"),
        ([fixture, "--step", "attn.hook_nothing", "-o", os.path.join(tmp, "x.png")], 3, "attn.hook_nothing"),
        ([fixture, "--step", "tokens", "--view", "pie", "-o", os.path.join(tmp, "x.png")], 2, "unknown view"),
        ([fixture, "--step", "tokens", "-o", os.path.join(tmp, "x.jpg")], 2, ".png or .svg"),
        ([fixture, "--step", "tokens", "--size", "10x10", "-o", os.path.join(tmp, "x.png")], 3, "out of range"),
        ([os.path.join(tmp, "missing.safetensors"), "--step", "tokens", "-o", os.path.join(tmp, "x.png")], 4, "missing"),
        ([fixture, "--step", "tokens", "-o", os.path.join(tmp, "no/such/dir/x.png")], 4, "x.png"),
    ]
    for args, code, text in bad:
        r = run(*args)
        check(not os.path.exists(os.path.join(tmp, "h.png")), f"render {args[1:]}: no figure written")
        check(r.returncode == code, f"render {args[1:]}: exit {r.returncode}, wanted {code} ({r.stderr.strip()})")
        check(text in r.stderr and r.stderr.count("\n") == 1, f"render {args[1:]}: message names {text!r}: {r.stderr!r}")

sys.exit(1 if failures else 0)
