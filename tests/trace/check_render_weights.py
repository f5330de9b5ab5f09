#!/usr/bin/python3
"""`ttrace render` reads the model's weights only for the view that draws them (embed):
an F16 model, whose weights are converted to F32 when loaded, makes the difference
visible in the peak memory of the process (ru_maxrss), without timing anything.

    check_render_weights.py TTRACE SOURCE_ROOT
"""
import os
import resource
import shutil
import subprocess
import sys
import tempfile

TTRACE, ROOT = sys.argv[1], sys.argv[2]


def peak_kib(*args):
    """Runs ttrace alone in a fresh child and returns its peak resident memory in KiB."""
    code = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], capture_output=True);"
            "sys.stdout.write(str(r.returncode) + ' ' + str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))")
    out = subprocess.run([sys.executable, "-c", code, TTRACE, *args], capture_output=True, text=True, check=True)
    rc, kib = out.stdout.split()
    assert rc == "0", f"ttrace {' '.join(args)} exited {rc}"
    return int(kib)


with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "m")
    # W_E alone is 50257 x 512 F32 = 98 MiB once converted.
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tests", "reference", "make_model.py"), model, "--layers",
                    "1", "--heads", "2", "--embd", "512", "--vocab", "50257", "--positions", "16", "--dtype", "F16"],
                   check=True, capture_output=True)
    for f in ("vocab.json", "merges.txt"):
        shutil.copy(os.path.join(ROOT, "assets", "tokenizer", f), model)
    trace = os.path.join(tmp, "t.safetensors")
    subprocess.run([TTRACE, "trace", "-q", "-m", model, "-o", trace, "The weather is nice"], check=True)
    png = os.path.join(tmp, "v.png")
    embed = peak_kib("render", trace, "--step", "hook_embed", "-o", png)
    failed = 0
    for view in (["--step", "attn.hook_pattern", "--view", "overview"], ["--step", "tokens"],
                 ["--step", "hook_probs"], ["--step", "hook_embed", "--view", "table"]):
        kib = peak_kib("render", trace, *view, "-o", png)
        ok = kib + 60 * 1024 < embed
        print(("ok    " if ok else "FAIL  ") + f"{' '.join(view)}: peak {kib} KiB, the embed view's {embed} KiB")
        failed += not ok
sys.exit(1 if failed else 0)
