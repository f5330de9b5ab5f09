#!/usr/bin/python3
"""The window's value <-> gradient key (B) under xvfb-run: on a trace made with --grad it
shows grad.<hook> of the step (heatmap, the pinned cell's gradient arithmetic), keeps the
gradient while stepping and changing layers, and goes back to the value; on a trace
without gradients it says so on the status line and stays on the value.

    test_grad_window.py TTRACE MAKE_MODEL_PY
Exit 77 (skipped) when xvfb-run is missing.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ui"))
from window_state import check, failures, require_xvfb, view_script  # noqa: E402
from window_state import read_state as state  # noqa: E402

ttrace, make_model = sys.argv[1], sys.argv[2]
require_xvfb()


def window(trace, script, tmp):
    view_script(ttrace, trace, script, tmp)


with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "model")
    subprocess.run([sys.executable, make_model, model, "--layers", "2", "--heads", "2", "--embd", "16"], check=True)
    graded, plain = os.path.join(tmp, "g.safetensors"), os.path.join(tmp, "p.safetensors")
    subprocess.run([ttrace, "trace", "-q", "--grad", "-m", model, "-o", graded, "The weather is nice"], check=True)
    subprocess.run([ttrace, "trace", "-q", "-m", model, "-o", plain, "The weather is nice"], check=True)
    S = lambda n: os.path.join(tmp, n)  # noqa: E731
    window(graded, "".join(["wait 100\n", "key Right\n" * 11, "key b\n", f"state {S('g1')}\n",
                            "key Right\n", f"state {S('g2')}\n", "key Down\n", f"state {S('g3')}\n",
                            "key Left\n" * 7, f"state {S('g4')}\n", "key b\n", f"state {S('g5')}\n",
                            "key b shift\n", f"state {S('g6')}\n", "quit\n"]), tmp)
    g = [state(S("g%d" % i)) for i in range(1, 7)]
    check(g[0].get("hook") == "grad.blocks.0.attn.hook_pattern" and g[0].get("grad") == "1" and
          g[0].get("view") == "heatmap", f"B at softmax shows its gradient: {g[0].get('hook')} ({g[0].get('view')})")
    check(g[1].get("hook") == "grad.blocks.0.attn.hook_z", f"Right keeps the gradient: {g[1].get('hook')}")
    check(g[2].get("hook") == "grad.blocks.1.attn.hook_z", f"Down keeps the gradient: {g[2].get('hook')}")
    check(g[3].get("hook") == "grad.blocks.1.ln1.hook_out" and g[3].get("view") == "heatmap",
          f"the LayerNorm step's gradient as a heatmap: {g[3].get('hook')} ({g[3].get('view')})")
    check(g[4].get("hook") == "blocks.1.ln1.hook_out" and g[4].get("grad") == "0" and g[4].get("view") == "layernorm",
          f"B again: the value in the step's own view: {g[4].get('hook')} ({g[4].get('view')})")
    check(g[5].get("view") == "gradnorm", f"Shift+B opens the gradient-norm view: {g[5].get('view')}")
    window(plain, "".join(["wait 100\n", "key Right\n" * 11, "key b\n", f"state {S('p1')}\n", "quit\n"]), tmp)
    p = state(S("p1"))
    check(p.get("hook") == "blocks.0.attn.hook_pattern" and p.get("grad") == "0" and "--grad" in p.get("status", ""),
          f"without gradients B says so: {p.get('hook')}, status {p.get('status')!r}")
print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
