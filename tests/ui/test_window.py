#!/usr/bin/python3
"""The real window under xvfb-run: synthetic key and mouse events (a --script) go through
the window's event loop; the test checks the view state after each group of events, that
the hover inspector shows the trace's value at that cell (read here with the test's own
safetensors reader), that a screenshot equals the headless renderer's picture of the same
view, and that a typed prompt is retraced in the window.

    test_window.py TTRACE MAKE_MODEL_PY
Exit 77 (skipped) when xvfb-run is missing.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from window_state import check, failures, require_xvfb, view_script  # noqa: E402
from window_state import read_state as state  # noqa: E402
from pngread import differing_from_figure, read_png  # noqa: E402
from safetensors_read import read_tensor  # noqa: E402

ttrace, make_model = sys.argv[1], sys.argv[2]
require_xvfb()


with tempfile.TemporaryDirectory() as tmp:
    model, trace = os.path.join(tmp, "model"), os.path.join(tmp, "weather.safetensors")
    subprocess.run([sys.executable, make_model, model, "--layers", "2", "--heads", "4", "--embd", "32", "--seed", "3"],
                   check=True)
    subprocess.run([ttrace, "trace", "-q", "-m", model, "-o", trace, "The weather is nice"], check=True)
    S = lambda name: os.path.join(tmp, name)  # noqa: E731
    right = "key Right\n"
    script = "".join([
        "wait 200\n",
        right * 11,                  # tokenize → ... → softmax (step 12)
        "key ]\n",                   # head 1
        f"state {S('s1')}\n",
        "cell 3 1\n",                # hover query 3, key 1
        f"state {S('s2')}\n",
        "move 4 796\n",              # pointer off the heatmap, onto the key line
        f"shot {S('window.png')}\n",
        "clickcell 3 1\n",           # pin
        f"state {S('s3')}\n",
        "key Down\n", "key Tab\n",   # layer 1, numeric table
        f"state {S('s4')}\n",
        "key Tab\n",
        right * 10,                  # → logits (step 22)
        "cell 3 20000\n", "wheel 5\n",
        f"state {S('s5')}\n",
        "drag 900 400 500 400\n",    # pan right by dragging left
        f"state {S('s6')}\n",
        "key s\n",
        f"state {S('s7')}\n",
        "key g\n", "key g\n",  # the grid goes to the softmax step; back to its heatmap
        "clickcell 3 1\n", "key g\n", f"state {S('s7g')}\n", "key g\n",  # a pin there, then the grid
        "key p\n", "key Backspace\n" * len("The weather is nice"),  # the box opens with the prompt
        "text Hello there\n", "key Return\n",
        "key g\n", "key l\n", "key d\n", "key F1\n",
        f"state {S('s8')}\n",
        "quit\n",
    ])
    shots = S("shots")
    os.mkdir(shots)
    view_script(ttrace, trace, script, tmp, ["--shots", shots, "--state-out", S("final")])

    s1 = state(S("s1"))
    check(s1.get("step_id") == "softmax" and s1.get("head") == "1" and s1.get("hook") == "blocks.0.attn.hook_pattern",
          f"11 x Right and ] reach softmax, head 1: {s1.get('step_id')} head {s1.get('head')} {s1.get('hook')}")

    s2 = state(S("s2"))
    shape, values, meta = read_tensor(trace, "blocks.0.attn.hook_pattern")
    H, T = shape[0], shape[1]
    want = values[(1 * T + 3) * T + 1]
    check(s2.get("hover_index") == "1 3 1", f"hover on cell (3, 1) of head 1: {s2.get('hover_index')}")
    import struct
    got = float(s2.get("hover_value", "nan"))
    f32 = lambda v: struct.unpack("<f", struct.pack("<f", v))[0]  # noqa: E731
    check(f32(got) == want, f"hover value {got!r} equals the trace's value {want!r} (float32)")
    import json
    tokens = json.loads(meta["token_strings"])
    shown = lambda t: t.replace(" ", "\u2423")  # noqa: E731
    check(s2.get("hover_row_label") == shown(tokens[3]) and s2.get("hover_col_label") == shown(tokens[1]),
          f"hover labels {s2.get('hover_row_label')!r} / {s2.get('hover_col_label')!r} are tokens 3 and 1")

    # The window's pixels equal the headless renderer's for the same view.
    ref = S("render.png")
    rr = subprocess.run([ttrace, "render", trace, "--step", "blocks.0.attn.hook_pattern", "--head", "1", "--frame",
                         "--size", "1280x800", "-o", ref], capture_output=True, text=True,
                        env=dict(os.environ, SDL_VIDEODRIVER="dummy"))
    check(rr.returncode == 0, "headless render of the same view")
    if rr.returncode == 0 and os.path.exists(S("window.png")):
        a, b = read_png(S("window.png")), read_png(ref)
        check((a[0], a[1]) == (1280, 800), f"screenshot is 1280x800: {a[0]}x{a[1]}")
        share = differing_from_figure(a, b)
        check(share < 0.01, f"screenshot matches the headless render ({share * 100:.3f}% of pixels differ)")

    s3 = state(S("s3"))
    check(s3.get("pin") == "3 1", f"click pins cell (3, 1): {s3.get('pin')}")
    s4 = state(S("s4"))
    check(s4.get("layer") == "1" and s4.get("hook") == "blocks.1.attn.hook_pattern" and s4.get("view") == "table"
          and s4.get("pin") == "-1 -1", f"Down + Tab: layer 1 table, pin cleared: {s4.get('layer')} {s4.get('view')} {s4.get('pin')}")
    s5 = state(S("s5"))
    check(s5.get("step_id") == "logits" and float(s5.get("zoom", 0)) > 2,
          f"10 x Right reach the logits; the wheel zooms: {s5.get('step_id')} zoom {s5.get('zoom')}")
    s6 = state(S("s6"))
    pan5, pan6 = [float(v) for v in s5["pan"].split()], [float(v) for v in s6["pan"].split()]
    check(pan6[1] > pan5[1], f"dragging left pans right: column {pan5[1]} -> {pan6[1]}")
    s7 = state(S("s7"))
    saved = [n for n in os.listdir(shots) if n.endswith(".png")]
    check(s7.get("status", "").startswith("screenshot saved: ") and len(saved) == 1
          and s7["status"].endswith(saved[0]), f"S saves a screenshot and says where: {s7.get('status')!r} {saved}")
    s7g = state(S("s7g"))
    check(s7g.get("view") == "grid" and s7g.get("pin") == "-1 -1",
          f"g drops the heatmap's pin (the grid draws no pinned panel): {s7g.get('view')} pin {s7g.get('pin')}")
    s8 = state(S("s8"))
    check(s8.get("prompt") == "Hello there" and s8.get("tokens") == "2",
          f"typed prompt retraced in the window: {s8.get('prompt')!r}, {s8.get('tokens')} tokens")
    check(s8.get("view") == "grid" and s8.get("lang") == "ko" and s8.get("theme") == "dark" and s8.get("help") == "1",
          f"g, l, d, F1: {s8.get('view')} {s8.get('lang')} {s8.get('theme')} help {s8.get('help')}")
    check(os.path.exists(S("final")), "--state-out written on quit")

sys.exit(1 if failures else 0)
