#!/usr/bin/python3
"""The window's keys for the Llama block's views under xvfb-run: R (rope), H (gqa), U
(swiglu) and M (blocks) each show their view and toggle back to the step's own; , and .
move the token the rope and swiglu views show; the window's rope view has the pixels of
`ttrace render --frame --view rope` of the same step.

    test_view_keys.py TTRACE
Exit 77 (skipped) when xvfb-run is missing.
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ui"))
from pngread import differing_from_figure, read_png  # noqa: E402
from window_state import read_state  # noqa: E402

ttrace = sys.argv[1]
if not shutil.which("xvfb-run"):
    print("xvfb-run not installed: skipped")
    sys.exit(77)
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


with tempfile.TemporaryDirectory() as tmp:
    S = lambda name: os.path.join(tmp, name)  # noqa: E731
    subprocess.run([sys.executable, os.path.join(HERE, "make_llama.py"), S("m"), "--layers", "2", "--heads", "4",
                    "--kv-heads", "2", "--embd", "32", "--head-dim", "12", "--inner", "48"], check=True)
    subprocess.run([ttrace, "trace", "-q", "-m", S("m"), "-o", S("t.safetensors"), "The weather is nice today"],
                   check=True)
    # Step 4 (RMSNorm 1 of the Llama list), block 1; then the keys.
    script = ["wait 200\n"] + ["key Right\n"] * 3 + ["key Down\n", "state %s\n" % S("s0"), "key r\n", "wait 100\n",
              "shot %s\n" % S("rope.png"), "state %s\n" % S("s_rope"), "key .\n",
              "state %s\n" % S("s_rope_pos"), "key r\n", "state %s\n" % S("s_back"), "key h\n",
              "state %s\n" % S("s_gqa"), "key u\n", "state %s\n" % S("s_swiglu"), "key m\n",
              "state %s\n" % S("s_blocks"), "key m\n", "state %s\n" % S("s_end"), "quit\n"]
    with open(S("script.txt"), "w") as f:
        f.writelines(script)
    env = dict(os.environ)
    env.pop("SDL_VIDEODRIVER", None)
    r = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", ttrace, "view", S("t.safetensors"), "--size",
                        "1280x800", "--script", S("script.txt")], capture_output=True, text=True, env=env, timeout=120)
    check(r.returncode == 0, "window exit %d: %s" % (r.returncode, r.stderr.strip()[-300:]))
    if r.returncode == 0:
        s0 = read_state(S("s0"))
        hook = s0.get("hook")
        check(hook == "blocks.1.ln1.hook_out", "the script reaches blocks.1.ln1.hook_out, not %s" % hook)
        views = [(n, read_state(S(n)).get("view")) for n in ("s_rope", "s_back", "s_gqa", "s_swiglu", "s_blocks",
                                                             "s_end")]
        want = [("s_rope", "rope"), ("s_back", "auto"), ("s_gqa", "gqa"), ("s_swiglu", "swiglu"),
                ("s_blocks", "blocks"), ("s_end", "auto")]
        check(views == want, "R, R, H, U, M, M show %s, want %s" % (views, want))
        p0, p1 = read_state(S("s_rope")).get("position"), read_state(S("s_rope_pos")).get("position")
        check(p0 == "-1" and p1 == "4", ". from the last token moves to the last (T - 1 = 4): %s -> %s" % (p0, p1))
        ref = S("render.png")
        rr = subprocess.run([ttrace, "render", S("t.safetensors"), "--step", hook, "--view", "rope", "--frame",
                             "--size", "1280x800", "-o", ref], capture_output=True, text=True,
                            env=dict(os.environ, SDL_VIDEODRIVER="dummy"))
        check(rr.returncode == 0, "headless render of the rope view: %s" % rr.stderr.strip())
        if rr.returncode == 0 and os.path.exists(S("rope.png")):
            share = differing_from_figure(read_png(S("rope.png")), read_png(ref))
            check(share < 0.01, "the window's rope view matches the headless render (%.3f%% differ)" % (share * 100))
for f in fails:
    print("FAIL", f)
print("%d failures" % len(fails))
sys.exit(1 if fails else 0)
