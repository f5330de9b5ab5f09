#!/usr/bin/python3
"""The window on a generation trace, under xvfb-run: the step list continues after the
forward pass with the timeline and the KV cache; , and . pick the generated token, Page
Down / Page Up step through the decode steps (from the prompt pass to the last); the
window's picture of the KV cache after decode step 1 equals the headless render of the
same view; a trace without a generation keeps the forward pass's steps only.

    check_window.py TTRACE MAKE_MODEL_PY
Exit 77 (skipped) when xvfb-run is missing.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ui"))
from window_state import check, failures, require_xvfb, view_script  # noqa: E402
from window_state import read_state as state  # noqa: E402
from pngread import differing_from_figure, read_png  # noqa: E402

ttrace, make_model = sys.argv[1], sys.argv[2]
require_xvfb()


with tempfile.TemporaryDirectory() as tmp:
    S = lambda name: os.path.join(tmp, name)  # noqa: E731
    subprocess.run([sys.executable, make_model, S("model"), "--layers", "2", "--heads", "4", "--embd", "32"], check=True)
    g = S("g.safetensors")
    subprocess.run([ttrace, "generate", "-q", "-m", S("model"), "-n", "5", "--seed", "1", "-o", g,
                    "The weather is nice"], check=True, capture_output=True)
    script = "".join(["wait 200\n", "key Right\n" * 60, f"state {S('s1')}\n",     # → the last step: the KV cache
                      "key PageDown\n" * 2, f"state {S('s2')}\n",
                      "move 4 796\n", f"shot {S('kv.png')}\n",
                      "key PageDown\n" * 9, f"state {S('s3')}\n",
                      "key PageUp\n" * 9, f"state {S('s4')}\n",
                      "key Left\n", f"state {S('s5')}\n",                             # → the timeline
                      "key .\n", f"state {S('s6')}\n",
                      "key ,\n" * 2, f"state {S('s7')}\n", "quit\n"])
    view_script(ttrace, g, script, tmp)
    s1, s2, s3, s4, s5, s6, s7 = (state(S("s%d" % i)) for i in range(1, 8))
    check(s1.get("step_id") == "kvcache" and s1.get("view") == "kvcache" and s1.get("layer") == "1",
          f"the last step is the KV cache (layer 1): {s1.get('step_id')} {s1.get('view')} layer {s1.get('layer')}")
    check(s2.get("position") == "1", f"Page Down twice from the prompt pass: decode step 1: {s2.get('position')}")
    check(s3.get("position") == "3", f"Page Down stops at the last decode step (3 of 5 tokens): {s3.get('position')}")
    check(s4.get("position") == "-1", f"Page Up stops at the prompt pass (-1): {s4.get('position')}")
    check(s5.get("step_id") == "timeline" and s5.get("view") == "timeline",
          f"Left: the timeline ({s5.get('step_id')}, {s5.get('view')})")
    check(s6.get("position") == "4", f". from the prompt pass goes to the last of the 5 tokens: {s6.get('position')}")
    check(s7.get("position") == "2", f", twice: token 2: {s7.get('position')}")
    ref = S("ref.png")
    rr = subprocess.run([ttrace, "render", g, "--step", "blocks.1.attn.hook_k", "--view", "kvcache", "--position",
                         "1", "--frame", "--size", "1280x800", "-o", ref], capture_output=True, text=True,
                        env=dict(os.environ, SDL_VIDEODRIVER="dummy"))
    check(rr.returncode == 0, f"headless render of the same view {rr.stderr.strip()}")
    if rr.returncode == 0 and os.path.exists(S("kv.png")):
        share = differing_from_figure(read_png(S("kv.png")), read_png(ref))
        check(share < 0.01, f"the window's KV cache view matches the headless render ({share * 100:.3f}% differ)")
    # A plain trace: no generation steps.
    t = S("t.safetensors")
    subprocess.run([ttrace, "trace", "-q", "-m", S("model"), "-o", t, "The weather is nice"], check=True)
    r = view_script(ttrace, t, "wait 100\n" + "key Right\n" * 60 + f"state {S('p1')}\nquit\n", tmp)
    check(r.returncode == 0 and state(S("p1")).get("step_id") == "probs",
          f"a trace without a generation ends at the probabilities: {state(S('p1')).get('step_id')}")
print("generate window: %s" % ("ok" if not failures else f"{len(failures)} failures"))
sys.exit(1 if failures else 0)
