#!/usr/bin/python3
"""A lesson's narration that does not fit its panel at the body type size scrolls (Down,
Up) instead of shrinking, and a new step starts at its top. Under xvfb-run, lesson 9 at
1280x800 with --font-scale 2.5 (type large enough that its first step overflows).

    test_narration_scroll.py TTRACE LESSONS_DIR
Exit 77 (skipped) when xvfb-run is missing.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from window_state import check, failures, require_xvfb  # noqa: E402
from window_state import read_state as state  # noqa: E402
from pngread import differing, read_png  # noqa: E402

ttrace, lessons = sys.argv[1], sys.argv[2]
require_xvfb()


with tempfile.TemporaryDirectory() as tmp:
    S = lambda name: os.path.join(tmp, name)  # noqa: E731
    script = "".join([
        "wait 300\n", f"state {S('a')}\n", f"shot {S('a.png')}\n",
        "key Down\n", "wait 100\n", f"state {S('b')}\n", f"shot {S('b.png')}\n",
        "key Up\n", f"state {S('c')}\n",
        "key Down\n", "key Down\n", "key Right\n", "wait 200\n", f"state {S('d')}\n",
        "quit\n",
    ])
    with open(S("script.txt"), "w") as f:
        f.write(script)
    env = dict(os.environ, TTRACE_UI_SCRIPT=S("script.txt"), TTRACE_UI_SIZE="1280x800")
    env.pop("SDL_VIDEODRIVER", None)
    lesson = os.path.join(lessons, "en", "09-ffn.lesson")
    r = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", ttrace, "lesson", "--font-scale", "2.5",
                        lesson], capture_output=True, text=True, env=env, timeout=120)
    check(r.returncode == 0, f"lesson window ran and closed (exit {r.returncode}) {r.stderr.strip()[-300:]}")
    a, b, c, d = (state(S(n)) if os.path.exists(S(n)) else {} for n in "abcd")
    below = int(a.get("lesson_narration_below", "0"))
    check(a.get("lesson_narration_scroll") == "0" and below > 0,
          f"the narration overflows its panel at this size and is not shrunk: {below} lines below")
    check(b.get("lesson_narration_scroll") == "1" and int(b.get("lesson_narration_below", "-1")) == below - 1,
          f"Down scrolls one line: scroll {b.get('lesson_narration_scroll')}, below {b.get('lesson_narration_below')}")
    if os.path.exists(S("a.png")) and os.path.exists(S("b.png")):
        share = differing(read_png(S("a.png")), read_png(S("b.png")))
        check(share > 0.005, f"the picture moves ({share * 100:.2f}% of pixels)")
    check(c.get("lesson_narration_scroll") == "0", f"Up scrolls back: {c.get('lesson_narration_scroll')}")
    check(d.get("lesson_step") == "2" and d.get("lesson_narration_scroll") == "0",
          f"the next step starts at the top: step {d.get('lesson_step')} scroll {d.get('lesson_narration_scroll')}")
sys.exit(1 if failures else 0)
