"""The window's state dump (the script command `state PATH`): one "key value" line each."""


def read_state(path):
    """The dump at path as a dict of strings."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition(" ")
            out[k] = v
    return out


# ---- what every window test does first and last --------------------------------------
failures = []


def check(cond, what):
    """Prints ok / FAIL and what; a failure is kept in failures."""
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)
    return cond


def require_xvfb():
    """Exits 77 (meson's skipped) when xvfb-run is missing."""
    import shutil
    import sys
    if not shutil.which("xvfb-run"):
        print("xvfb-run not installed: skipped")
        sys.exit(77)
