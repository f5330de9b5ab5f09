"""The window's state dump (the script command `state PATH`): one "key value" line each."""
import os
import shutil
import subprocess
import sys


def read_state(path):
    """The dump at path as a dict of strings ({} when the window never wrote it)."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition(" ")
            out[k] = v
    return out


# ---- what every window test does first and last --------------------------------------
failures = []


def check(cond, what):
    """Prints ok / FAIL and what; a failure is kept in failures."""
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def require_xvfb():
    """Exits 77 (meson's skipped) when xvfb-run is missing."""
    if not shutil.which("xvfb-run"):
        print("xvfb-run not installed: skipped")
        sys.exit(77)


def run_window(args, screen="1280x800", timeout=120):
    """args (a ttrace command that opens a window) under xvfb-run on a screen of that size,
    with SDL's own video driver; checks that the window ran and closed; returns the process."""
    env = dict(os.environ)
    env.pop("SDL_VIDEODRIVER", None)
    r = subprocess.run(["xvfb-run", "-a", "-s", f"-screen 0 {screen}x24"] + list(args), capture_output=True, text=True,
                       env=env, timeout=timeout)
    check(r.returncode == 0, f"window ran and closed (exit {r.returncode}) {r.stderr.strip()[-300:]}")
    return r


def view_script(ttrace, trace, script, tmp, more=(), screen="1280x800", timeout=120):
    """Plays script (the text of a --script file) in `ttrace view trace --size 1280x800`, with
    more arguments after it, through run_window; returns the process."""
    path = os.path.join(tmp, "script.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write(script)
    return run_window([ttrace, "view", trace, "--size", "1280x800", "--script", path] + list(more), screen, timeout)
