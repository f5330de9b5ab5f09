#!/usr/bin/python3
"""The window on a Llama trace under xvfb-run: Right steps through the Llama block's list
(test_steps.STEPS) and Down changes the block; after each key the window's state names the
step and a hook the trace has (no fused Q/K/V, no position vectors).

    test_window.py TTRACE
Exit 77 (skipped) when xvfb-run is missing.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_steps import IDS, STEPS, fail, read_trace, run  # noqa: E402

ttrace = sys.argv[1]
if not shutil.which("xvfb-run"):
    print("xvfb-run not installed: skipped")
    sys.exit(77)


def state(path):
    with open(path, encoding="utf-8") as f:
        return dict(line.rstrip("\n").partition(" ")[::2] for line in f)


with tempfile.TemporaryDirectory() as tmp:
    model, trace = os.path.join(tmp, "m"), os.path.join(tmp, "t.safetensors")
    run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "make_llama.py"), model,
         "--layers", "2", "--heads", "4", "--kv-heads", "2", "--embd", "32", "--inner", "48"])
    run([ttrace, "trace", "-q", "-m", model, "--ids", IDS, "-o", trace])
    tensors = read_trace(trace)
    # Block 1 from the first block step on, so every block hook is layer 1's.
    lines = ["wait 200\n"]
    for i in range(len(STEPS)):
        if i == 3:
            lines.append("key Down\n")
        lines.append(f"state {os.path.join(tmp, f's{i}')}\n")
        lines.append("key Right\n")
    lines.append("quit\n")
    with open(os.path.join(tmp, "script.txt"), "w") as f:
        f.writelines(lines)
    env = dict(os.environ)
    env.pop("SDL_VIDEODRIVER", None)
    r = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", ttrace, "view", trace, "--size", "1280x800",
                        "--script", os.path.join(tmp, "script.txt")], capture_output=True, text=True, env=env,
                       timeout=120)
    if r.returncode != 0:
        fail(f"window exit {r.returncode}: {r.stderr.strip()[-300:]}")
    for i, (step, suffix, blk) in enumerate(STEPS):
        s = state(os.path.join(tmp, f"s{i}"))
        want = f"blocks.1.{suffix}" if blk else suffix
        if s.get("step_id") != step or s.get("hook") != want:
            fail(f"Right x {i}: step {s.get('step_id')} hook {s.get('hook')}, want {step} {want}")
        if s["hook"] not in tensors:
            fail(f"step {step} shows {s['hook']}, which the trace does not have")
    print(f"ok: the window walked {len(STEPS)} Llama steps, every hook in the trace")
