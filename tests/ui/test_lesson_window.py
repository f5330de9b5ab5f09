#!/usr/bin/python3
"""Lessons and comparisons in the real window under xvfb-run, driven by scripts.

- `ttrace lesson FILE`: a small two-language lesson made here (a random model, traces
  made by `ttrace lesson --make-traces`): next / previous / Home / End / number + Enter
  jumps and a bad jump, the step's hook, head, row, view and temperature in the window's
  state, the compare step's hovered difference cell equal to A - B read from the files,
  the vector lengths of a norms step equal to numpy's, L switching to the Korean twin at
  the same step, S saving a screenshot, F1 and Esc; the screenshots differ from step to
  step and have the window's size.
- Every lesson in lessons/ (English and Korean) played to its last step without an error,
  from traces made with a random model, and from lessons/traces/ when its traces are there.
- `ttrace view A --compare B`: stepping and the head key drive both sides; the hovered
  difference cell equals A - B; max |A - B| equals numpy's; `ttrace render A --compare B`
  draws the same figure headless.

    test_lesson_window.py TTRACE MAKE_MODEL_PY LESSONS_DIR
Exit 77 (skipped) when xvfb-run is missing.
"""
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pngread import differing, read_png  # noqa: E402
from safetensors_read import read_tensor  # noqa: E402
from window_state import check, failures, require_xvfb  # noqa: E402
from window_state import read_state as state  # noqa: E402

ttrace, make_model, lessons_dir = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
require_xvfb()
if not os.environ.get("TT_UNDER_XVFB"):
    # One X server for every window this test opens.
    env = dict(os.environ, TT_UNDER_XVFB="1")
    env.pop("SDL_VIDEODRIVER", None)
    r = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", sys.executable] + sys.argv, env=env)
    sys.exit(r.returncode)

f32 = lambda v: struct.unpack("<f", struct.pack("<f", v))[0]  # noqa: E731


def tensor(path, name):
    shape, values, _ = read_tensor(path, name)
    return np.array(values, dtype=np.float32).reshape(shape)


def lesson_env(script, state_out=None, shots=None):
    env = dict(os.environ, TTRACE_UI_SCRIPT=script, TTRACE_UI_SIZE="1280x800")
    if state_out:
        env["TTRACE_UI_STATE_OUT"] = state_out
    if shots:
        env["TTRACE_UI_SHOTS"] = shots
    return env


LESSON_EN = """title: A small lesson for the window test
lang: en
model: default
trace main: prompt="The weather is nice" file=fx-main.safetensors
trace flat: prompt="The weather is nice" set=scale_attn=false file=fx-flat.safetensors

---
show: tokens
view: tokens
title: Four tokens

The prompt becomes four tokens; the second is '{{token 1}}'.

---
show: attn.hook_pattern
layer: 0
head: 1
row: -1
view: heatmap
title: Where the last token looks

Head 1 of block 0. The last row belongs to '{{token 3}}' and sums to
{{sum blocks.0.attn.hook_pattern[1,-1] %.3f}}.

---
show: attn.hook_pattern
layer: 0
head: 1
compare: flat
view: heatmap
title: Without the division

The same weights without dividing by the square root of d_k.

---
show: hook_resid_post
layer: all
view: norms
title: Lengths through the blocks

Each token's vector grows as the blocks add to it.

---
show: hook_probs
row: -1
temperature: 2
view: bars
title: The next token

At temperature 2 the candidates move closer together.
"""

LESSON_KO = """title: 창 시험용 작은 수업
lang: ko
model: default
trace main: prompt="The weather is nice" file=fx-main.safetensors
trace flat: prompt="The weather is nice" set=scale_attn=false file=fx-flat.safetensors

---
show: tokens
view: tokens
title: 토큰 네 개

프롬프트는 토큰 네 개가 됩니다. 두 번째 토큰은 '{{token 1}}'입니다.

---
show: attn.hook_pattern
layer: 0
head: 1
row: -1
view: heatmap
title: 마지막 토큰이 보는 곳

0번 블록의 1번 헤드입니다. 마지막 줄은 '{{token 3}}'의 줄이고 합은
{{sum blocks.0.attn.hook_pattern[1,-1] %.3f}}입니다.

---
show: attn.hook_pattern
layer: 0
head: 1
compare: flat
view: heatmap
title: 나누지 않으면

같은 가중치로, d_k의 제곱근으로 나누는 단계만 뺐습니다.

---
show: hook_resid_post
layer: all
view: norms
title: 블록을 지나며 달라지는 길이

블록이 더해 줄 때마다 각 토큰 벡터의 길이가 달라집니다.

---
show: hook_probs
row: -1
temperature: 2
view: bars
title: 다음 토큰

온도를 2로 올리면 후보들의 확률이 서로 가까워집니다.
"""

with tempfile.TemporaryDirectory() as tmp:
    S = lambda name: os.path.join(tmp, name)  # noqa: E731
    model = S("model")
    subprocess.run([sys.executable, make_model, model, "--layers", "2", "--heads", "4", "--embd", "32", "--seed", "11"],
                   check=True, stdout=subprocess.DEVNULL)
    for lang, text in (("en", LESSON_EN), ("ko", LESSON_KO)):
        os.makedirs(S(f"lessons/{lang}"))
        with open(S(f"lessons/{lang}/01-fix.lesson"), "w", encoding="utf-8") as f:
            f.write(text)
    os.makedirs(S("lessons/traces"))
    en, ko, traces = S("lessons/en/01-fix.lesson"), S("lessons/ko/01-fix.lesson"), S("lessons/traces")
    r = subprocess.run([ttrace, "lesson", "--make-traces", "-m", model, "-o", traces, en], capture_output=True, text=True)
    check(r.returncode == 0, f"traces of the test lesson made ({r.stderr.strip()[-200:]})")
    main, flat = os.path.join(traces, "fx-main.safetensors"), os.path.join(traces, "fx-flat.safetensors")

    # ---- the lesson window ------------------------------------------------------------------
    shots = S("shots")
    os.mkdir(shots)
    script = "".join([
        "move 4 796\n", "wait 200\n",
        f"state {S('l1')}\n",
        "key Right\n", f"state {S('l2')}\n", f"shot {S('step2.png')}\n",
        "key space\n", "cell 3 1 2\n", f"state {S('l3')}\n", f"shot {S('step3.png')}\n",
        "move 4 796\n",
        "key Left\n", f"state {S('l4')}\n", f"shot {S('step2b.png')}\n",
        "key End\n", f"state {S('l5')}\n",
        "key Home\n", f"state {S('l6')}\n",
        "key 4\n", "key Return\n", "cell 2 1\n", f"state {S('l7')}\n",
        "key 9\n", "key Return\n", f"state {S('l8')}\n",
        "key l\n", f"state {S('l9')}\n", f"shot {S('ko.png')}\n",
        "key s\n", f"state {S('l10')}\n",
        "key F1\n", f"state {S('l11')}\n",
        "key Escape\n", f"state {S('l12')}\n",
        "key Escape\n",
    ])
    with open(S("script.txt"), "w") as f:
        f.write(script)
    r = subprocess.run([ttrace, "lesson", en, "--traces", traces], capture_output=True, text=True, timeout=120,
                       env=lesson_env(S("script.txt"), S("final"), shots))
    check(r.returncode == 0, f"lesson window ran and closed (exit {r.returncode}) {r.stderr.strip()[-300:]}")
    check(os.path.exists(S("final")), "Esc with nothing open quits; the state is written on quit")

    T = 4
    l1 = state(S("l1"))
    check(l1.get("lesson_step") == "1" and l1.get("lesson_steps") == "5" and l1.get("hook") == "tokens"
          and l1.get("lesson_view") == "tokens" and l1.get("lang") == "en",
          f"opens at step 1 of 5, the tokens: {l1.get('lesson_step')}/{l1.get('lesson_steps')} {l1.get('hook')}")
    _, _, meta = read_tensor(main, "hook_embed")
    tok1 = json.loads(meta["token_strings"])[1]
    check(l1.get("lesson_narration", "").endswith(f"the second is '{tok1}'."),
          f"narration filled from the trace: {l1.get('lesson_narration')!r}")
    l2 = state(S("l2"))
    check(l2.get("lesson_step") == "2" and l2.get("hook") == "blocks.0.attn.hook_pattern" and l2.get("head") == "1"
          and l2.get("view") == "heatmap" and l2.get("lesson_row") == str(T - 1),
          f"Right: step 2, pattern of head 1, row {T - 1} outlined: {l2.get('hook')} head {l2.get('head')} "
          f"row {l2.get('lesson_row')}")
    l3 = state(S("l3"))
    A, B = tensor(main, "blocks.0.attn.hook_pattern"), tensor(flat, "blocks.0.attn.hook_pattern")
    check(l3.get("lesson_step") == "3" and l3.get("lesson_compare") == "flat" and l3.get("compare_diff") == "1",
          f"Space: step 3 compares with 'flat': {l3.get('lesson_compare')} diff {l3.get('compare_diff')}")
    vals = [f32(float(v)) for v in l3.get("compare_hover_values", "nan nan nan").split()]  # %.9g: float32 exactly
    check(l3.get("compare_hover") == "D" and l3.get("compare_hover_index") == "1 3 1",
          f"pointer on the difference panel, cell (3, 1) of head 1: {l3.get('compare_hover')} "
          f"{l3.get('compare_hover_index')}")
    a, b = float(A[1, 3, 1]), float(B[1, 3, 1])
    check(vals[0] == a and vals[1] == b and vals[2] == f32(a - b),
          f"hovered A, B, A - B = {vals} equal the files' {a!r}, {b!r}, {f32(a - b)!r}")
    check(f32(float(l3.get("compare_max_abs", "nan"))) == float(np.abs(A - B).max()),
          f"max |A - B| {l3.get('compare_max_abs')} equals numpy's {float(np.abs(A - B).max())!r}")
    l4 = state(S("l4"))
    check(l4.get("lesson_step") == "2", f"Left goes back to step 2: {l4.get('lesson_step')}")
    l5, l6 = state(S("l5")), state(S("l6"))
    check(l5.get("lesson_step") == "5" and l5.get("view") == "bars" and l5.get("temperature") == "2"
          and l5.get("position") == str(T - 1),
          f"End: step 5, bars at temperature 2 for the last token: {l5.get('view')} t={l5.get('temperature')} "
          f"pos {l5.get('position')}")
    check(l6.get("lesson_step") == "1", f"Home: step 1: {l6.get('lesson_step')}")
    l7 = state(S("l7"))
    check(l7.get("lesson_step") == "4" and l7.get("lesson_view") == "norms" and l7.get("lesson_tensors") == "2",
          f"4 Enter jumps to step 4, lengths of 2 layers: {l7.get('lesson_step')} {l7.get('lesson_view')} "
          f"{l7.get('lesson_tensors')}")
    R1 = tensor(main, "blocks.1.hook_resid_post")
    want = float(np.float32(np.sqrt((R1[2].astype(np.float64) ** 2).sum())))
    got = f32(float(l7.get("hover_value", "nan")))
    check(l7.get("hover_tensor") == "norms" and l7.get("hover_index") == "-1 2 1" and got == want,
          f"norms cell (token 2, block 1) = |resid_post[2]| of block 1: {got!r} vs {want!r}")
    l8 = state(S("l8"))
    check(l8.get("lesson_step") == "4" and "no step 9" in l8.get("status", ""),
          f"9 Enter: no such step, stays at 4: {l8.get('lesson_step')} {l8.get('status')!r}")
    l9 = state(S("l9"))
    check(l9.get("lesson_lang") == "ko" and l9.get("lang") == "ko" and l9.get("lesson_step") == "4"
          and l9.get("lesson_file", "").endswith("ko/01-fix.lesson") and "길이" in l9.get("lesson_narration", ""),
          f"L: the Korean twin at the same step: {l9.get('lesson_file')} step {l9.get('lesson_step')}")
    l10 = state(S("l10"))
    saved = sorted(glob.glob(os.path.join(shots, "*.png")))
    check(len(saved) == 1 and os.path.basename(saved[0]) == "01-fix-ko-step04.png"
          and l10.get("status", "").endswith("01-fix-ko-step04.png"),
          f"S saves a screenshot and says where: {l10.get('status')!r}")
    l11, l12 = state(S("l11")), state(S("l12"))
    check(l11.get("help") == "1" and l12.get("help") == "0", "F1 shows the keys, Esc closes them")

    pics = {}
    for name in ("step2.png", "step3.png", "step2b.png", "ko.png"):
        if os.path.exists(S(name)):
            pics[name] = read_png(S(name))
    check(len(pics) == 4 and all((p[0], p[1]) == (1280, 800) for p in pics.values()),
          "screenshots of the lesson window are 1280x800")
    if len(pics) == 4:
        check(differing(pics["step2.png"], pics["step3.png"]) > 0.05, "step 3 looks different from step 2")
        check(differing(pics["step2.png"], pics["step2b.png"]) < 0.001, "back at step 2, the same picture again")
        # The narration panel is not empty: many pixels differ from its background.
        w, h, rows = pics["step2.png"]
        panel = rows[200][3 * 20:3 * 400]
        check(len(set(panel[i:i + 3] for i in range(0, len(panel), 3))) > 1 or any(
            len(set(rows[y][3 * 20:3 * 400])) > 3 for y in range(120, 400, 8)), "the narration panel holds text")

    # Without a display the lesson plays as text (the window says TT_ERR_UNSUPPORTED).
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    r = subprocess.run([ttrace, "lesson", en, "--traces", traces], capture_output=True, text=True, env=env, timeout=60)
    check(r.returncode == 0 and "no display" in r.stderr and "1/5" in r.stdout and "5/5" in r.stdout,
          f"without a display the lesson plays as text: exit {r.returncode}, {r.stderr.strip()!r}")

    # A relative path finds its twin too (en/ <-> ko/).
    script2 = "".join(["move 4 796\n", "key l\n", f"state {S('rel')}\n", "quit\n"])
    with open(S("script2.txt"), "w") as f:
        f.write(script2)
    r = subprocess.run([ttrace, "lesson", "en/01-fix.lesson", "--traces", "traces"], capture_output=True, text=True,
                       timeout=60, cwd=S("lessons"), env=lesson_env(S("script2.txt")))
    rel = state(S("rel"))
    check(r.returncode == 0 and rel.get("lesson_file") == "ko/01-fix.lesson" and rel.get("lesson_step") == "1",
          f"L with a relative path: {rel.get('lesson_file')}")

    # ---- every lesson in lessons/ plays to its end ------------------------------------------
    big = S("big")  # the default model's shape (C = 128, F = 512): the lessons name cells by index
    subprocess.run([sys.executable, make_model, big, "--layers", "4", "--heads", "4", "--embd", "128", "--seed", "5"],
                   check=True, stdout=subprocess.DEVNULL)
    all_traces = S("all_traces")
    os.mkdir(all_traces)
    files = sorted(glob.glob(os.path.join(lessons_dir, "*", "*.lesson")))
    r = subprocess.run([ttrace, "lesson", "--make-traces", "-m", big, "-o", all_traces] + files, capture_output=True,
                       text=True)
    check(r.returncode == 0, f"traces for the {len(files)} lessons made with a random model ({r.stderr.strip()[-200:]})")
    # With the committed traces too, for the lessons whose traces are all there.
    committed = os.path.join(lessons_dir, "traces")
    runs = [(f, all_traces) for f in files] if r.returncode == 0 else []
    for f in files:
        with open(f, encoding="utf-8") as fp:
            needed = re.findall(r"file=(\S+)", fp.read())
        if needed and all(os.path.exists(os.path.join(committed, n)) for n in needed):
            runs.append((f, committed))
    bad = []
    for f, tdir in runs:
        tag = os.path.basename(os.path.dirname(f)) + "-" + os.path.basename(f) + ("-c" if tdir == committed else "")
        lines = ["move 4 796\n"]
        for i in range(40):
            lines += [f"state {S('p-%s-%02d' % (tag, i))}\n", "key Right\n"]
        lines.append("quit\n")
        with open(S("play.txt"), "w") as fp:
            fp.writelines(lines)
        p = subprocess.run([ttrace, "lesson", f, "--traces", tdir], capture_output=True, text=True, timeout=120,
                           env=lesson_env(S("play.txt")))
        states = [state(S("p-%s-%02d" % (tag, i))) for i in range(40)]
        n = int(states[0].get("lesson_steps", "0") or 0)
        errors = [s.get("lesson_error") for s in states if s.get("lesson_error", "-") != "-"]
        if p.returncode != 0 or n == 0 or states[-1].get("lesson_step") != str(n) or errors:
            bad.append(f"{tag}: exit {p.returncode}, {n} steps, ended at {states[-1].get('lesson_step')}, {errors[:1]}")
    check(not bad, f"all {len(files)} lessons play to their last step without an error "
                   f"({len(runs) - len(files)} also from lessons/traces) {bad[:3]}")

    # ---- view A --compare B -----------------------------------------------------------------
    script = "".join([
        "wait 200\n", "key Right\n" * 11, "key ]\n",
        "cell 3 1 2\n", f"state {S('c1')}\n", f"shot {S('compare.png')}\n",
        "cell 2 0 1\n", f"state {S('c2')}\n",
        "key Down\n", "move 4 796\n", f"state {S('c3')}\n",
        "quit\n",
    ])
    with open(S("cscript.txt"), "w") as f:
        f.write(script)
    env = dict(os.environ)
    r = subprocess.run([ttrace, "view", main, "--compare", flat, "--size", "1280x800", "--script", S("cscript.txt")],
                       capture_output=True, text=True, env=env, timeout=120)
    check(r.returncode == 0, f"view --compare ran and closed (exit {r.returncode}) {r.stderr.strip()[-300:]}")
    c1, c2, c3 = state(S("c1")), state(S("c2")), state(S("c3"))
    vals = [f32(float(v)) for v in c1.get("compare_hover_values", "nan nan nan").split()]
    check(c1.get("step_id") == "softmax" and c1.get("head") == "1" and c1.get("compare_hook") == "blocks.0.attn.hook_pattern"
          and c1.get("compare_b") == "fx-flat.safetensors",
          f"steps and ] drive both sides: {c1.get('step_id')} head {c1.get('head')} {c1.get('compare_hook')}")
    check(c1.get("compare_hover") == "D" and c1.get("compare_hover_index") == "1 3 1" and vals[2] == f32(a - b)
          and vals[0] == a and vals[1] == b,
          f"difference cell (3, 1) of head 1 = A - B: {vals} vs {a!r} - {b!r}")
    check(f32(float(c1.get("compare_max_abs", "nan"))) == float(np.abs(A - B).max()),
          f"max |A - B| in the header state: {c1.get('compare_max_abs')}")
    check(c2.get("compare_hover") == "B" and f32(float(c2.get("compare_hover_values", "nan nan").split()[1])) == float(B[1, 2, 0]),
          f"pointer on B's panel shows B's value: {c2.get('compare_hover_values')}")
    A1, B1 = tensor(main, "blocks.1.attn.hook_pattern"), tensor(flat, "blocks.1.attn.hook_pattern")
    check(c3.get("compare_hook") == "blocks.1.attn.hook_pattern"
          and f32(float(c3.get("compare_max_abs", "nan"))) == float(np.abs(A1 - B1).max()),
          f"Down: layer 1 on both sides: {c3.get('compare_hook')} max {c3.get('compare_max_abs')}")

    # The same comparison headless.
    fig = S("fig.png")
    rr = subprocess.run([ttrace, "render", main, "--compare", flat, "--step", "attn.hook_pattern", "--head", "1",
                         "--size", "1280x800", "-o", fig], capture_output=True, text=True,
                        env=dict(os.environ, SDL_VIDEODRIVER="dummy"))
    fw, fh = read_png(fig)[:2] if rr.returncode == 0 and os.path.exists(fig) else (0, 0)
    check(rr.returncode == 0 and 0 < fw <= 1280 and 0 < fh <= 800  # cut to the content, --size the most
          and f"max |A - B| = {float(np.abs(A - B).max()):.6g}" in rr.stdout,
          f"render --compare writes the figure and the largest difference: {rr.stdout.strip()!r}")
    rs = subprocess.run([ttrace, "render", main, "--compare", flat, "--step", "attn.hook_pattern", "-o", S("x.svg")],
                        capture_output=True, text=True, env=dict(os.environ, SDL_VIDEODRIVER="dummy"))
    check(rs.returncode == 0 and os.path.exists(S("x.svg")) and 'data-tt-trace="B"' in open(S("x.svg"), encoding="utf-8").read(),
          f"render --compare writes SVG whose texts say which trace they come from (exit {rs.returncode})")
    # Where the traces agree (the same tokens) the step's own view is drawn once, as A's.
    rt = subprocess.run([ttrace, "render", main, "--compare", flat, "--step", "tokens", "-o", S("t.svg")],
                        capture_output=True, text=True, env=dict(os.environ, SDL_VIDEODRIVER="dummy"))
    tsvg = open(S("t.svg"), encoding="utf-8").read() if rt.returncode == 0 and os.path.exists(S("t.svg")) else ""
    check("the traces agree here" in tsvg and 'data-tt-trace="A"' in tsvg and 'data-tt-trace="B"' not in tsvg,
          f"render --compare of a step where the traces agree draws its view once (exit {rt.returncode})")
    keep = os.environ.get("TT_KEEP_SHOTS")
    if keep:
        for name in ("step2.png", "step3.png", "ko.png", "compare.png", "fig.png"):
            if os.path.exists(S(name)):
                shutil.copy(S(name), os.path.join(keep, name))

sys.exit(1 if failures else 0)
