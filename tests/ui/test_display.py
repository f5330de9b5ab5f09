#!/usr/bin/python3
"""The whole interface under xvfb-run: Ctrl + / Ctrl - / Ctrl 0 change the type size (and the
picture), F11 goes fullscreen and back, Home / End and a number then Enter jump, "/" and part
of a step's name jump there, the prompt box opens with the current prompt and keeps a
rejected one to correct, and the window draws after two live resizes (not black).

    test_display.py TTRACE MAKE_MODEL_PY
Exit 77 (skipped) when xvfb-run is missing.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from window_state import check, failures, require_xvfb, view_script  # noqa: E402
from window_state import read_state as state  # noqa: E402
from pngread import differing, read_png  # noqa: E402

ttrace, make_model = sys.argv[1], sys.argv[2]
require_xvfb()


def distinct_colours(png):
    rows = png[2]
    return len({tuple(row[i:i + 3]) for row in rows[::37] for i in range(0, len(row) - 2, 3 * 53)})


with tempfile.TemporaryDirectory() as tmp:
    S = lambda name: os.path.join(tmp, name)  # noqa: E731
    model, trace = S("model"), S("base.safetensors")
    subprocess.run([sys.executable, make_model, model, "--layers", "2", "--heads", "4", "--embd", "32", "--seed", "7"],
                   check=True)
    subprocess.run([ttrace, "trace", "-q", "-m", model, "-o", trace, "The weather is nice"], check=True)
    script = "".join([
        "wait 200\n", f"shot {S('a.png')}\n",
        "key = ctrl\n", "key = ctrl\n", f"state {S('z1')}\n", f"shot {S('b.png')}\n",
        "key 0 ctrl\n", f"state {S('z2')}\n",
        "key = ctrl\n" * 12, f"state {S('z3')}\n", "key - ctrl\n", f"state {S('z4')}\n", "key 0 ctrl\n",
        "key End\n", f"state {S('e')}\n", "key Home\n", f"state {S('h')}\n",
        "key 1\n", "key 2\n", "key Return\n", f"state {S('n')}\n",
        "key /\n", "text resid\n", "key Return\n", f"state {S('f')}\n",
        "key /\n", "text logit\n", "key Return\n", f"state {S('f2')}\n",
        "key p\n", f"state {S('p1')}\n", "key Escape\n",
        "key p\n", "key Backspace\n" * len("The weather is nice"), "key Return\n", f"state {S('p2')}\n",
        "text Hi\n", "key Return\n", f"state {S('p3')}\n",
        "key F11\n", "wait 400\n", f"state {S('full')}\n", "key F11\n", "wait 400\n", f"state {S('back')}\n",
        "size 1000 700\n", "size 1400 900\n", f"shot {S('r.png')}\n", f"state {S('r')}\n",
        "quit\n",
    ])
    view_script(ttrace, trace, script, tmp, ["--state-out", S("final")], screen="1600x1000", timeout=150)
    z1, z2 = state(S("z1")), state(S("z2"))
    check(abs(float(z1.get("font_scale", 0)) - 1.15 ** 2) < 1e-3, f"Ctrl + twice: font scale {z1.get('font_scale')}")
    check(z2.get("font_scale") == "1", f"Ctrl 0 resets it: {z2.get('font_scale')}")
    # Ctrl + stops where the window keeps 40 x 25 units of type (README), and Ctrl - acts at once.
    z3, z4 = state(S("z3")), state(S("z4"))
    w, h = (int(v) for v in z3.get("size", "0 0").split())
    unit = min(max(min(w / 64, h / 40), 13), 64)
    most = min(3.0, max(unit, min(w / 40, h / 25)) / unit)
    check(abs(float(z3.get("font_scale", 0)) - most) < 1e-3,
          f"Ctrl + twelve times in {w}x{h}: font scale {z3.get('font_scale')}, the most it draws {most:.4g}")
    check(abs(float(z4.get("font_scale", 0)) - most / 1.15) < 1e-3, f"then Ctrl -: {z4.get('font_scale')}")
    a, b = read_png(S("a.png")), read_png(S("b.png"))
    check(differing(a, b) > 0.02, f"the larger type changes the picture ({differing(a, b) * 100:.1f}% of pixels)")
    e, h, n = state(S("e")), state(S("h")), state(S("n"))
    check(e.get("step_id") == "probs" and h.get("step_id") == "tokenize", f"End / Home: {e.get('step_id')} {h.get('step_id')}")
    check(n.get("step") == "11", f"1 2 Enter goes to step 12: step index {n.get('step')}")
    f1, f2 = state(S("f")), state(S("f2"))
    check(f1.get("step_id") == "resid1", f"/resid Enter: the first residual step: {f1.get('step_id')}")
    check(f2.get("step_id") == "logits", f"/logit Enter: {f2.get('step_id')}")
    p1, p2, p3 = state(S("p1")), state(S("p2")), state(S("p3"))
    check(p1.get("editing") == "1" and p1.get("edit_text") == "The weather is nice",
          f"P opens the box with the current prompt: {p1.get('edit_text')!r}")
    check(p2.get("editing") == "1" and ("empty" in p2.get("status", "") or "no tokens" in p2.get("status", "")),
          f"an empty prompt is refused and the box stays open: {p2.get('status')!r}")
    check(p3.get("prompt") == "Hi" and p3.get("editing") == "0", f"the corrected prompt is traced: {p3.get('prompt')!r}")
    full, back = state(S("full")), state(S("back"))
    check(full.get("fullscreen") == "1" and full.get("size") == "1600 1000",
          f"F11: fullscreen on the 1600x1000 screen: {full.get('fullscreen')} {full.get('size')}")
    check(back.get("fullscreen") == "0", f"F11 again: windowed: {back.get('fullscreen')} {back.get('size')}")
    rs = state(S("r"))
    check(rs.get("size") == "1400 900", f"two live resizes: the window is 1400x900: {rs.get('size')}")
    rp = read_png(S("r.png"))
    check((rp[0], rp[1]) == (1400, 900) and distinct_colours(rp) > 5,
          f"after the second resize the window draws ({distinct_colours(rp)} colours seen), not black")
    # A --font-scale above what the window draws is drawn at the most it draws, and the first
    # Ctrl - steps down from there, not from the size asked.
    view_script(ttrace, trace, f"wait 100\nkey - ctrl\nstate {S('c1')}\nquit\n", tmp, ["--font-scale", "3"])
    c1 = state(S("c1"))
    check(abs(float(c1.get("font_scale", 0)) - most / 1.15) < 1e-3,
          f"--font-scale 3 in {c1.get('size')}, then Ctrl -: font scale {c1.get('font_scale')}, expected {most / 1.15:.4g}")
sys.exit(1 if failures else 0)
