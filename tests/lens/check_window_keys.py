"""The window's E and C keys: the lens and cost views, toggled, under xvfb-run, and the
window's picture of the lens view equal to the headless renderer's.

  /usr/bin/python3 tests/lens/check_window_keys.py TTRACE REPO
Exit 77 (skipped) without xvfb-run.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ui"))
from pngread import differing_from_figure, read_png  # noqa: E402


def state(path):
    with open(path, encoding="utf-8") as f:
        return dict(line.rstrip("\n").partition(" ")[::2] for line in f)


def main():
    ttrace, root = sys.argv[1], sys.argv[2]
    if not shutil.which("xvfb-run"):
        print("xvfb-run not installed: skipped")
        sys.exit(77)
    trace = os.path.join(root, "lessons", "traces", "01-weather.safetensors")
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        S = lambda n: os.path.join(tmp, n)  # noqa: E731
        script = "".join(["wait 200\n", "key e\n", f"state {S('s1')}\n", "move 4 796\n", f"shot {S('lens.png')}\n",
                          "key c\n", f"state {S('s2')}\n", "key c\n", f"state {S('s3')}\n", "quit\n"])
        open(S("script.txt"), "w").write(script)
        os.mkdir(S("shots"))
        env = dict(os.environ)
        env.pop("SDL_VIDEODRIVER", None)
        r = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", ttrace, "view", trace, "--size",
                            "1280x800", "--script", S("script.txt"), "--shots", S("shots")],
                           capture_output=True, text=True, env=env, timeout=120)
        if r.returncode != 0:
            raise SystemExit("the window failed: %s" % r.stderr[-400:])
        got = [state(S(n)).get("view") for n in ("s1", "s2", "s3")]
        if got != ["lens", "cost", "auto"]:
            fails.append("E, C, C give the views %s, expected lens, cost, auto" % got)
        ref = S("ref.png")
        rr = subprocess.run([ttrace, "render", trace, "--view", "lens", "--frame", "--size", "1280x800", "-o", ref],
                            capture_output=True, text=True, env=dict(os.environ, SDL_VIDEODRIVER="dummy"))
        if rr.returncode != 0:
            fails.append("headless lens render failed: %s" % rr.stderr)
        elif differing_from_figure(read_png(S("lens.png")), read_png(ref)) > 0.01:
            fails.append("the window's lens view differs from the headless render (%.3f of the pixels)" %
                         differing_from_figure(read_png(S("lens.png")), read_png(ref)))
        print("views after E, C, C: %s" % got)
    for f in fails:
        print("FAIL", f)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
