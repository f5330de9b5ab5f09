#!/usr/bin/python3
"""Without a display: `ttrace view` says so in one line and points to `render`; `ttrace demo`
says so and writes the whole step sequence as numbered PNGs into the folder it names.

    test_headless.py TTRACE MAKE_MODEL_PY
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from window_state import check, failures  # noqa: E402

ttrace, make_model = sys.argv[1], sys.argv[2]

with tempfile.TemporaryDirectory() as tmp:
    model, trace = os.path.join(tmp, "model"), os.path.join(tmp, "t.safetensors")
    subprocess.run([sys.executable, make_model, model, "--layers", "2", "--heads", "2", "--embd", "16", "--seed", "5"],
                   check=True)
    subprocess.run([ttrace, "trace", "-q", "-m", model, "-o", trace, "The weather is nice"], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    r = subprocess.run([ttrace, "view", trace], capture_output=True, text=True, env=env, timeout=60)
    check(r.returncode != 0 and r.stderr.count("\n") == 1 and "no display" in r.stderr and "ttrace render" in r.stderr,
          f"view without a display: one line pointing to render: {r.stderr!r}")
    out = os.path.join(tmp, "demo")
    env["TTRACE_DEMO_OUT"] = out
    r = subprocess.run([ttrace, "demo", "-m", model, "--size", "640x400"], capture_output=True, text=True, env=env,
                       timeout=300)
    check(r.returncode == 0, f"demo without a display exits 0: {r.returncode} {r.stderr.strip()}")
    check(r.stdout.splitlines()[0].startswith("ttrace demo: no display") and out in r.stdout.splitlines()[0],
          f"demo says so and names the folder: {r.stdout.splitlines()[:1]}")
    files = sorted(os.listdir(out)) if os.path.isdir(out) else []
    # 5 steps before the blocks, 15 per block for 2 layers (+ a heads grid each), 3 after.
    check(len(files) == 5 + 2 * 16 + 3, f"{len(files)} images written")
    check(files[:1] == ["001-tokenize.png"] and files[-1].endswith("-probs.png"), f"numbered in order: {files[:1]} … {files[-1:]}")
    for name in files:
        with open(os.path.join(out, name), "rb") as f:
            head = f.read(24)
        if head[:8] != b"\x89PNG\r\n\x1a\n" or int.from_bytes(head[16:20], "big") != 640:
            check(False, f"{name} is a 640-wide PNG")
            break

    # --out writes the frames without a display question; --font-scale makes their type larger.
    plain, big = os.path.join(tmp, "plain"), os.path.join(tmp, "big")
    for d, extra in ((plain, []), (big, ["--font-scale", "1.5"])):
        r = subprocess.run([ttrace, "demo", "-m", model, "--size", "640x400", "--out", d] + extra, capture_output=True,
                           text=True, env=env, timeout=300)
        check(r.returncode == 0, f"demo --out {' '.join(extra)} exits 0: {r.returncode} {r.stderr.strip()}")
    names = sorted(os.listdir(plain)) if os.path.isdir(plain) else []
    same = [n for n in names if os.path.exists(os.path.join(big, n))
            and open(os.path.join(plain, n), "rb").read() == open(os.path.join(big, n), "rb").read()]
    check(names and sorted(os.listdir(big)) == names and not same,
          f"demo --out --font-scale 1.5 draws every frame with other type: {len(same)} of {len(names)} unchanged")

sys.exit(1 if failures else 0)
