#!/usr/bin/python3
"""The window's W and F keys under xvfb-run: W shows the embedding neighbours of the token
that , and . pick, F the FFN neurons as gates at that token; the window's pictures equal the
headless renderer's of the same view and token; F again goes back to the step's own view.
A click on a bar of the probabilities step and on a top column of the logits step pins that
cell (position, vocabulary id), and the window then shows its arithmetic as the headless
renderer's --frame --pin does.

    test_view_keys.py TTRACE REPO
Exit 77 (skipped) without xvfb-run.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pngread import differing_from_figure, read_png  # noqa: E402
from window_state import check, failures, require_xvfb, view_script  # noqa: E402
from window_state import read_state as state  # noqa: E402

ttrace, root = sys.argv[1], sys.argv[2]
require_xvfb()

trace = os.path.join(root, "lessons", "traces", "01-weather.safetensors")  # the default model's
sys.path.insert(0, os.path.join(root, "tests", "lesson"))
from safetensors_np import load  # noqa: E402
import numpy as np  # noqa: E402
second = int(np.argsort(-load(trace)[0]["hook_logits"][3], kind="stable")[1])  # the last token's second candidate
with tempfile.TemporaryDirectory() as tmp:
    S = lambda n: os.path.join(tmp, n)  # noqa: E731
    script = "".join(["wait 200\n", "key w\n", "key ,\n", "key ,\n", "key .\n", f"state {S('s1')}\n", "move 4 796\n",
                      f"shot {S('nb.png')}\n", "key f\n", f"state {S('s2')}\n", f"shot {S('gates.png')}\n",
                      "key f\n", f"state {S('s3')}\n",
                      "key End\n", "key .\n", f"clickcell 3 {second} 1\n", f"state {S('s4')}\n", "move 4 796\n",
                      f"shot {S('probs.png')}\n", "key Left\n", f"clickcell 3 {second} 19\n", f"state {S('s5')}\n",
                      "move 4 796\n", f"shot {S('logits.png')}\n", "quit\n"])
    os.mkdir(S("shots"))
    if view_script(ttrace, trace, script, tmp, ["--shots", S("shots")]).returncode != 0:
        sys.exit(1)
    s1, s2, s3 = state(S("s1")), state(S("s2")), state(S("s3"))
    check(s1.get("view") == "neighbours" and s1.get("position") == "2",
          "W, then , , .: the neighbours of token 2 (view %s, position %s)" % (s1.get("view"), s1.get("position")))
    check(s2.get("view") == "gates", "F: the gates view (%s)" % s2.get("view"))
    check(s3.get("view") == "auto", "F again: the step's own view (%s)" % s3.get("view"))
    headless = dict(os.environ, SDL_VIDEODRIVER="dummy")
    for name, view in (("nb", "neighbours"), ("gates", "gates")):
        ref = S(name + "-ref.png")
        rr = subprocess.run([ttrace, "render", trace, "--view", view, "--position", "2", "--frame", "--size", "1280x800",
                             "-o", ref], capture_output=True, text=True, env=headless)
        if rr.returncode != 0:
            check(False, "headless %s render: %s" % (view, rr.stderr.strip()))
            continue
        d = differing_from_figure(read_png(S(name + ".png")), read_png(ref))
        check(d <= 0.01, "the window's %s view is the headless one (%.4f of the pixels differ)" % (view, d))
    s4, s5 = state(S("s4")), state(S("s5"))
    for name, st, hook in (("probs", s4, "hook_probs"), ("logits", s5, "hook_logits")):
        check(st.get("hook") == hook and st.get("pin") == "3 %d" % second,
              "a click on the %s view's second candidate pins (3, %d): %s %s" % (name, second, st.get("hook"),
                                                                                  st.get("pin")))
        ref = S(name + "-ref.png")
        rr = subprocess.run([ttrace, "render", trace, "--step", hook, "--pin", "3,%d" % second, "--frame", "--size",
                             "1280x800", "-o", ref], capture_output=True, text=True, env=headless)
        d = differing_from_figure(read_png(S(name + ".png")), read_png(ref)) if rr.returncode == 0 else 1
        check(d <= 0.01, "the window's pinned %s cell is the headless one (%.4f of the pixels differ)" % (name, d))
sys.exit(1 if failures else 0)
