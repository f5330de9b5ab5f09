#!/usr/bin/python3
"""The number check of every view: renders the golden views, every step of the demo and
every lesson step to SVG with ttrace, and checks every number each prints against the
trace (checks.py computes them with numpy).

    check_numbers.py TTRACE REPO_ROOT [--only golden|views|pins|demo|lessons|grad|zoomed]... [--unmarked-ok]

zoomed: every lesson step and every demo step (also after a what-if: the baseline against
the variant) as a projector shows them (1920x1080 with the type 1.5 times as large, 1280x800
x1.6, 1280x720 x2, 1024x768 x1.5) and in small windows (800x600, and 640x400, the smallest
the window allows): every text inside the figure, none over another, none under 10 px.

--unmarked-ok counts texts with numbers that do not say what they are instead of failing.

Exits 1 and lists the failures when any number, label or caption is wrong.
"""
import codecs
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lesson"))

import checks  # noqa: E402
import svgnum  # noqa: E402


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\u00a1"), ord("\u00ac") + 1)) + \
        list(range(ord("\u00ae"), ord("\u00ff") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip([chr(c) for c in cs], bs))


def _hex(err):  # bytes that are not UTF-8 are shown as \xE4 (as the views show them)
    return "".join("\\x%02X" % b for b in err.object[err.start:err.end]), err.end


codecs.register_error("tt_hex", _hex)


def load_vocab(path):
    """id -> token text, from a GPT-2 vocab.json (byte-level symbols decoded)."""
    with open(path, encoding="utf-8") as f:
        enc = json.load(f)
    dec = bytes_to_unicode()
    out = [None] * (max(enc.values()) + 1)
    for s, i in enc.items():
        out[i] = bytes(dec[c] for c in s).decode("utf-8", errors="tt_hex")
    return out


def load_vocab_bytes(path):
    """id -> the token's bytes, from a GPT-2 vocab.json (byte-level symbols decoded)."""
    with open(path, encoding="utf-8") as f:
        enc = json.load(f)
    dec = bytes_to_unicode()
    out = [None] * (max(enc.values()) + 1)
    for s, i in enc.items():
        out[i] = bytes(dec[c] for c in s)
    return out


def load_merges(path, vocab_dec):
    """rank -> (left, right) as bytes."""
    out = []
    for line in open(path, encoding="utf-8").read().splitlines()[1:]:
        if not line:
            continue
        a, b = line.split(" ")
        out.append(tuple(bytes(vocab_dec[c] for c in x) for x in (a, b)))
    return out


def step_table(root):
    """(id, hook suffix, in_block) of every pipeline step, from the step table's source."""
    pat = re.compile(r'\{\{"(\w+)", "([\w.]+)", (true|false), TT_VIEW_\w+\}')
    for path in sorted(glob.glob(os.path.join(root, "src", "pipeline", "*.c"))) + \
            [os.path.join(root, "src", "render", "steps.c")]:
        if os.path.exists(path):
            text = open(path, encoding="utf-8").read()
            # GPT-2's table (steps[]), not the Llama block's (llama_steps[]) after it.
            start = text.find("step_def steps[] = {")
            if start >= 0:
                text = text[start:text.index("\n};", start)]
            found = pat.findall(text)
            if found:
                return [(i, s, b == "true") for i, s, b in found]
    raise SystemExit("check_numbers: cannot find the step table")


def overlaps(texts, overlay=False, slack=1.0):
    """Pairs of texts whose boxes (the drawn width; ascent and descent of the type) overlap
    by more than slack pixels each way. Rotated texts and the scrolling narration aside;
    with overlay (the window's frame), the pinned cell's box covers what is under it; the
    tooltip of a hovered cell (render --hover) always does."""
    boxes = sorted(((t.x, t.y - 0.74 * t.px, t.x + t.w, t.y + 0.22 * t.px), t) for t in texts
                   if t.w > 0 and not t.rotated and t.scope.get("panel") != "narration")
    out = []
    for i, (a, ta) in enumerate(boxes):
        for b, tb in boxes[i + 1:]:
            if b[0] >= a[2] - slack:
                break  # sorted by left edge: none further can reach a
            covered = overlay and (ta.scope.get("panel") == "inspector") != (tb.scope.get("panel") == "inspector")
            covered = covered or (ta.scope.get("panel") == "hover") != (tb.scope.get("panel") == "hover")  # a box over
            if a[1] + slack < b[3] and b[1] + slack < a[3] and not covered:
                out.append((ta, tb))
    return out


class Run:
    def __init__(self, ttrace, root, out):
        self.ttrace, self.root, self.out = ttrace, root, out
        self.jobs = []  # (name, argv, svg, traces)
        self.vocab = load_vocab(os.path.join(root, "assets", "tokenizer", "vocab.json"))
        checks.VOCAB_BYTES = load_vocab_bytes(os.path.join(root, "assets", "tokenizer", "vocab.json"))
        self.merges = load_merges(os.path.join(root, "assets", "tokenizer", "merges.txt"), bytes_to_unicode())
        self.traces = {}

    def trace(self, path):
        if path not in self.traces:
            self.traces[path] = checks.Trace(path)
        return self.traces[path]

    def render(self, name, trace, args, compare=None):
        svg = os.path.join(self.out, re.sub(r"[^\w.-]", "_", name) + ".svg")
        argv = [self.ttrace, "render", trace] + args + ["-o", svg]
        if compare:
            argv += ["--compare", compare]
        trs = {"A": trace}
        if compare:
            trs["B"] = compare
        self.jobs.append((name, argv, svg, trs))

    def lesson(self, name, lesson, step, traces_dir, extra=()):
        svg = os.path.join(self.out, re.sub(r"[^\w.-]", "_", name) + ".svg")
        argv = [self.ttrace, "lesson", "--svg", svg, "--step", str(step), "--traces", traces_dir, *extra, lesson]
        self.jobs.append((name, argv, svg, None))

    def render_all(self):
        """Runs every ttrace command, two at a time (the views are independent)."""
        jobs = os.cpu_count() or 1
        with concurrent.futures.ThreadPoolExecutor(max_workers=min(jobs, 2)) as pool:
            return list(pool.map(lambda j: subprocess.run(j[1], capture_output=True, text=True), self.jobs))

    def run(self):
        fails, n_texts, n_checked = [], 0, 0
        for (name, argv, svg, trs), p in zip(self.jobs, self.render_all()):
            if p.returncode != 0:
                fails.append("%s: %s failed (%d): %s" % (name, " ".join(argv[1:]), p.returncode, p.stderr.strip()))
                continue
            texts = svgnum.texts(svg)
            w, h = svgnum.size(svg)
            fails += ["%s: %s is placed at (%g, %g), outside the %gx%g figure" % (name, t.where(), t.x, t.y, w, h)
                      for t in texts if not (0 <= t.x <= w and 0 <= t.y <= h)
                      and t.scope.get("panel") != "narration"]  # the narration scrolls (its ▼ says so)
            fails += ["%s: %s runs to x = %g, past the %gx%g figure's right edge" % (name, t.where(), t.x + t.w, w, h)
                      for t in texts if not t.rotated and 0 <= t.x <= w and t.x + t.w > w + 2]
            fails += ["%s: %s is drawn over %s" % (name, a.where(), b.where()) for a, b in overlaps(texts, "--frame" in argv)]
            fails += ["%s: %s is %g px, too small to read (10 at least)" % (name, t.where(), t.px)
                      for t in texts if t.px < 10]
            if trs is None:  # a lesson page: ttrace names the trace files it shows
                trs = dict(line.split(" ", 1) for line in p.stdout.splitlines() if line[:2] in ("A ", "B "))
            c = checks.Checker({k: self.trace(v) for k, v in trs.items()}, self.vocab, name, self.merges)
            fails += c.check(texts)
            full = name.endswith("-table-en") or name.endswith("-heatmap-ko")  # 01-weather records every hook
            full = full or "-frame-" in name  # a top column or bar pinned in the window's frame
            if name.startswith("pin-") and full and not any(t.kind == "pin_recorded" for t in texts):
                fails.append("%s: the pinned cell shows no arithmetic (no recomputed and recorded value)" % name)
            if "--hover" in argv:  # the tooltip is there, and of the cell asked for
                want, tips = argv[argv.index("--hover") + 1], [t for t in texts if t.kind == "hover_index"]
                if len(tips) != 1 or "%s,%s" % (tips[0].note["r"], tips[0].note["c"]) != want:
                    fails.append("%s: --hover %s drew %s" % (name, want, [t.where() for t in tips] or "no tooltip"))
            if name.endswith("-continued") and not any(t.kind == "merge_group_again" for t in texts):
                fails.append("%s: no column of merges continues a heading (the case this view is for)" % name)
            n_texts += len(texts)
            n_checked += c.checked
        return fails, n_texts, n_checked


GOLDEN = [  # as tests/render/test_render.c draws them (name, hook, view, head, layer, frame, lang, pin)
    ("pattern", "blocks.0.attn.hook_pattern", None, 1, 0, False, "en", None),
    ("scores_masked", "blocks.1.attn.hook_attn_scores", None, 0, 1, False, "en", None),
    ("grid", "blocks.0.attn.hook_pattern", "grid", 0, 0, False, "en", None),
    ("overview", "blocks.0.attn.hook_pattern", "overview", 0, 0, False, "en", None),
    ("table_q", "blocks.0.attn.hook_q", "table", 1, 0, False, "en", None),
    ("qkv_fused", "blocks.0.attn.hook_qkv", None, 0, 0, False, "en", None),
    ("tokens", "tokens", None, 0, 0, False, "en", None),
    ("bars", "hook_probs", "bars", 0, 0, False, "en", None),
    ("layernorm", "blocks.0.ln1.hook_out", None, 0, 0, False, "en", None),
    ("gelu", "blocks.1.mlp.hook_post", None, 0, 1, False, "en", None),
    ("positions", "hook_pos_embed", None, 0, 0, False, "en", None),
    ("logits", "hook_logits", "heatmap", 0, 0, False, "en", None),
    ("frame_pin_ko_dark", "blocks.1.attn.hook_pattern", None, 2, 1, True, "ko", "3,1"),
    ("pin_masked", "blocks.1.attn.hook_pattern", None, 2, 1, False, "en", "1,3"),
    ("pin_scores", "blocks.0.attn.hook_attn_scores", None, 0, 0, False, "en", "3,1"),
]


def add_golden(run, fixture):
    for name, hook, view, head, layer, frame, lang, pin in GOLDEN:
        args = ["--step", hook, "--head", str(head), "--layer", str(layer), "--lang", lang, "--size", "960x600"]
        if view:
            args += ["--view", view]
        if frame:
            args.append("--frame")
        if pin:
            args += ["--pin", pin]
        run.render("golden-" + name, fixture, args)


def add_korean(run):
    """A Korean prompt, whose syllables GPT-2 splits across byte tokens: every label, bracket,
    candidate and merge is checked against the ids decoded here."""
    ko = os.path.join(run.out, "korean.safetensors")
    p = subprocess.run([run.ttrace, "trace", "--record", "tokens", "--record", "blocks.0.*", "--record", "hook_logits",
                        "-o", ko, "나는 사과를 먹었다. 오늘 날씨가 좋다 \U0001F600"], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("check_numbers: ttrace trace of the Korean prompt failed: " + p.stderr)
    for name, args in (("tokens", ["--step", "tokens"]),
                       ("tokens-small", ["--step", "tokens", "--size", "900x500"]),
                       ("tokens-frame-ko", ["--step", "tokens", "--frame", "--size", "1280x800", "--lang", "ko"]),
                       ("pattern", ["--step", "blocks.0.attn.hook_pattern"]),
                       ("pattern-table", ["--step", "blocks.0.attn.hook_pattern", "--view", "table"]),
                       ("bars-last", ["--step", "hook_logits", "--view", "bars", "--top", "40"]),
                       ("bars-mid", ["--step", "hook_logits", "--view", "bars", "--position", "1"]),
                       ("logits", ["--step", "hook_logits"]),
                       ("resid", ["--step", "blocks.0.hook_resid_post", "--lang", "ko"])):
        run.render("korean-" + name, ko, args)
    # A prompt longer than a view holds: what is left out is said ("… N more").
    long_ = os.path.join(run.out, "long.safetensors")
    p = subprocess.run([run.ttrace, "trace", "--record", "tokens", "--record", "hook_logits", "-o", long_,
                        " ".join(["The weather is nice today and the cat sat on the mat."] * 9)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("check_numbers: ttrace trace of the long prompt failed: " + p.stderr)
    for name, args in (("tokens", ["--step", "tokens"]), ("logits", ["--step", "hook_logits", "--size", "1200x700"]),
                       ("bars", ["--step", "hook_logits", "--view", "bars", "--top", "35"])):
        run.render("long-" + name, long_, args)
    # The demo's prompt at 900x480: its merges fill a column and go on in a second, whose
    # top repeats the last pre-token's heading marked as continued (checked in Run.run).
    weather = os.path.join(run.out, "weather.safetensors")
    p = subprocess.run([run.ttrace, "trace", "--record", "tokens", "-o", weather, "The weather is nice"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("check_numbers: ttrace trace of the demo's prompt failed: " + p.stderr)
    run.render("merges-continued", weather, ["--step", "tokens", "--size", "900x480"])


def add_compare(run):
    """Two traces side by side: each side labelled with its own tokens (lessons 3, 8, 12)."""
    lt = os.path.join(run.root, "lessons", "traces")
    a, b = os.path.join(lt, "03-perm-a.safetensors"), os.path.join(lt, "03-perm-b.safetensors")
    for size in ("1280x800", "2400x500", "1000x1000"):
        run.render("compare-perm-heatmap-" + size, a, ["--step", "ln_final.hook_out", "--view", "heatmap",
                                                      "--size", size], compare=b)
    run.render("compare-perm-resid", a, ["--step", "blocks.1.hook_resid_post", "--view", "table"], compare=b)
    m, n = os.path.join(lt, "08-nomask.safetensors"), os.path.join(lt, "08-nomask-bad.safetensors")
    run.render("compare-nomask-pattern", m, ["--step", "blocks.0.attn.hook_pattern", "--size", "1600x600"], compare=n)
    # the pointer's tooltip there: a, b and a − b (render --hover), and '—' where B's shape differs
    run.render("compare-perm-hover", a, ["--step", "blocks.1.hook_resid_post", "--view", "table", "--hover", "2,3"],
               compare=b)
    run.render("compare-perm-hover-ko", a, ["--step", "ln_final.hook_out", "--view", "heatmap", "--hover", "1,5",
                                            "--lang", "ko"], compare=b)
    run.render("compare-nomask-hover", m, ["--step", "blocks.0.attn.hook_pattern", "--head", "1", "--hover", "2,1"],
               compare=n)


PINS = [  # (hook, pin): a cell of every step's tensor whose arithmetic the inspector shows
    ("hook_embed", "1,7"), ("hook_pos_embed", "2,9"), ("blocks.0.hook_resid_pre", "3,4"),
    ("blocks.0.ln1.hook_out", "1,3"), ("blocks.1.attn.hook_qkv", "2,200"), ("blocks.0.attn.hook_q", "2,5"),
    ("blocks.1.attn.hook_k", "1,3"), ("blocks.1.attn.hook_v", "3,30"), ("blocks.1.attn.hook_z", "3,7"),
    ("blocks.0.hook_attn_out", "1,100"), ("blocks.2.hook_resid_mid", "2,5"), ("blocks.3.ln2.hook_out", "0,64"),
    ("blocks.1.mlp.hook_pre", "2,300"), ("blocks.2.mlp.hook_post", "1,11"), ("blocks.3.hook_mlp_out", "3,2"),
    ("blocks.0.hook_resid_post", "1,1"), ("ln_final.hook_out", "2,17"), ("hook_logits", "3,318"),
    ("hook_probs", "2,3621"), ("hook_loss", "1,0"),
]


def add_pins(run):
    """The pinned cell of every step, beside the view (render) and over it (the window's frame),
    on the default model's trace and on variants (post-LN, ReLU, no residual)."""
    lt = os.path.join(run.root, "lessons", "traces")
    for hook, pin in PINS:
        # the (T, V) views draw their top columns, not cells to pin in the window: beside only
        vocab = hook in ("hook_logits", "hook_probs")
        for view, frame, lang in (("table", False, "en"), ("heatmap", True, "ko"))[:1 if vocab else 2]:
            view = "heatmap" if vocab else view
            args = ["--step", hook, "--view", view, "--pin", pin, "--head", "2", "--lang", lang, "--size", "1280x800"]
            run.render("pin-%s-%s-%s" % (hook, view, lang), os.path.join(lt, "01-weather.safetensors"),
                       args + (["--frame"] if frame else []))
    # the window pins a (T, V) tensor's top column or bar: the last token's second candidate, over the view
    weather = os.path.join(lt, "01-weather.safetensors")
    second = int(np.argsort(-run.trace(weather).get("hook_logits")[3], kind="stable")[1])
    for hook, view in (("hook_logits", "heatmap"), ("hook_probs", "bars")):
        for lang in ("en", "ko"):
            run.render("pin-%s-%s-frame-%s" % (hook, view, lang), weather,
                       ["--step", hook, "--view", view, "--pin", "3,%d" % second, "--lang", lang, "--size", "1280x800",
                        "--frame"])
    for tr in ("10-postln", "09-relu", "10-noresidual"):
        have = run.trace(os.path.join(lt, tr + ".safetensors")).t
        for hook, pin in [hp for hp in PINS if hp[0] in have]:
            run.render("pin-%s-%s" % (tr, hook), os.path.join(lt, tr + ".safetensors"),
                       ["--step", hook, "--view", "heatmap", "--pin", pin, "--head", "1", "--size", "1280x800"])


def add_hover(run):
    """The tooltip of a hovered cell (render --hover: value, row and column labels, index) on
    every step's tensor in its own view, beside (en) and in the window's frame (ko, zoomed as
    on a projector), and on the grid, a masked score and a top column of the logits."""
    weather = os.path.join(run.root, "lessons", "traces", "01-weather.safetensors")
    second = int(np.argsort(-run.trace(weather).get("hook_logits")[3], kind="stable")[1])
    cells = [(h, "3,%d" % second if h in ("hook_logits", "hook_probs") else c) for h, c in PINS]
    cells += [("blocks.1.attn.hook_attn_scores", "0,3"), ("blocks.0.attn.hook_pattern", "3,1")]
    for hook, cell in cells:
        own = ["--view", "heatmap"] if hook.endswith("mlp.hook_post") else []  # the gates view draws no cells
        wide = ["--zoom", "8", "--pan", "2,256"] if hook.endswith("mlp.hook_pre") else []  # else cells under a pixel
        for lang, look in (("en", []), ("ko", ["--frame", "--font-scale", "1.6"] + wide)):
            run.render("hover-%s-%s" % (hook, lang), weather, ["--step", hook, "--head", "2", "--hover", cell, "--lang",
                                                               lang, "--size", "1280x800"] + own + look)
    run.render("hover-grid", weather, ["--step", "blocks.1.attn.hook_pattern", "--view", "grid", "--head", "1", "--hover",
                                       "2,1"])


def add_lens_cost(run, fixture):
    """The lens view (en, ko) and the cost view, untimed and with the times `ttrace cost -o` records."""
    weather = os.path.join(run.root, "lessons", "traces", "01-weather.safetensors")  # the default model's
    for lang in ("en", "ko"):
        run.render("lens-" + lang, weather, ["--view", "lens", "--lang", lang])
        run.render("cost-" + lang, fixture, ["--view", "cost", "--lang", lang])
    timed = os.path.join(run.out, "cost-timed.safetensors")
    p = subprocess.run([run.ttrace, "cost", "--repeats", "2", "-o", timed, "I love my dog"], capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise SystemExit("check_numbers: ttrace cost -o failed: %s" % p.stderr)
    run.render("cost-timed", timed, ["--view", "cost"])


def add_neighbours_gates(run, fixture):
    """The embedding-neighbours view (prompt tokens, --token, a token never seen in training whose
    row thousands share, a token whose nearest row is that shared one) and the gates view (GELU,
    ReLU, the identity; en and ko)."""
    lt = os.path.join(run.root, "lessons", "traces")
    words = os.path.join(run.out, "words.safetensors")
    p = subprocess.run([run.ttrace, "trace", "-q", "--record", "tokens", "-o", words, " banana Monday weather rain"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("check_numbers: ttrace trace of the neighbours' prompt failed: " + p.stderr)
    for pos in range(4):
        run.render("neighbours-pos%d" % pos, words, ["--view", "neighbours", "--position", str(pos)])
    run.render("neighbours-ko", words, ["--view", "neighbours", "--position", "2", "--lang", "ko", "--top", "16"])
    for name, tok in (("unseen", " telescope"), ("father", " Father"), ("pear", " pear")):
        run.render("neighbours-" + name, words, ["--view", "neighbours", "--token", tok, "--top", "16"])
    run.render("neighbours-weather-last", os.path.join(lt, "01-weather.safetensors"), ["--view", "neighbours"])
    for layer in (0, 3):
        run.render("gates-fixture-L%d" % layer, fixture, ["--view", "gates", "--layer", str(layer), "--position", "1"])
    run.render("gates-weather-ko", os.path.join(lt, "01-weather.safetensors"),
               ["--view", "gates", "--layer", "1", "--lang", "ko", "--top", "16"])
    run.render("gates-relu", os.path.join(lt, "09-relu.safetensors"), ["--view", "gates", "--layer", "0"])
    run.render("gates-identity", os.path.join(lt, "09-identity.safetensors"),
               ["--view", "gates", "--layer", "2", "--position", "0"])
    run.render("gates-frame", os.path.join(lt, "01-weather.safetensors"),
               ["--view", "gates", "--layer", "2", "--frame", "--size", "1280x800"])


def add_demo(run, trace, tag):
    """Every step the demo shows: block steps for each layer (up to 4, else the first and
    the last), with the window's frame, and the softmax step's grid of heads."""
    tr = run.trace(trace)
    L = int(tr.cfg["n_layer"])
    layers = list(range(L)) if L <= 4 else [0, L - 1]
    for sid, suffix, in_block in step_table(run.root):
        for layer in (layers if in_block else [0]):
            hook = "blocks.%d.%s" % (layer, suffix) if in_block else suffix
            base = ["--step", hook, "--layer", str(layer), "--frame"]
            run.render("demo-%s-L%d-%s" % (tag, layer, sid), trace, base)
            if sid == "softmax":
                run.render("demo-%s-L%d-softmax-heads" % (tag, layer), trace, base + ["--view", "grid"])


def lesson_pages(run):
    """(lang, lesson name, file, step) of every step of every lesson, en and ko."""
    for lang in ("en", "ko"):
        counts = lesson_steps(run.ttrace, lang)
        for path in sorted(glob.glob(os.path.join(run.root, "lessons", lang, "*.lesson"))):
            base = os.path.basename(path).split(".")[0]
            if base not in counts:
                raise SystemExit("check_numbers: `ttrace lesson --list` does not list %s" % path)
            for s in range(1, counts[base] + 1):
                yield lang, base, path, s


def add_lessons(run):
    """Every step of every lesson (en and ko), drawn as the lesson window draws it."""
    traces = os.path.join(run.root, "lessons", "traces")
    for lang, base, path, s in lesson_pages(run):
        run.lesson("lesson-%s-%s-%02d" % (lang, base, s), path, s, traces)
    for lang in ("en", "ko"):
        for base, s in (("13-training", 2), ("14-differentiable", 3), ("14-differentiable", 4)):
            path = os.path.join(run.root, "lessons", lang, base + ".lesson")
            for size, scale in (("1920x1080", "1.5"), ("1280x800", "1.6")):  # a projector; zoomed past the room
                run.lesson("lesson-%s-%s-%02d-%s-x%s" % (lang, base, s, size, scale), path, s, traces,
                           ["--size", size, "--font-scale", scale, "--theme", "dark"])


def add_grad(run, out):
    """Gradients of the default model: their heatmaps (diverging, the colour bar says
    gradient), the pinned cells' arithmetic (logits, softmax backward, dz·v) and the
    gradient-norm view, in both languages."""
    trace = os.path.join(out, "grad.safetensors")
    subprocess.run([run.ttrace, "trace", "-q", "--grad", "-o", trace, "The weather is nice today"], check=True)
    tr = run.trace(trace)
    ids = json.loads(tr.meta["token_ids"])
    T = len(ids)
    views = [("gradnorm", "hook_logits", ["--view", "gradnorm"]),
             ("pattern", "grad.blocks.1.attn.hook_pattern", ["--head", "2"]),
             ("resid", "grad.blocks.0.hook_resid_post", ["--view", "table"]),
             ("logits-true", "grad.hook_logits", ["--pin", "1,%d" % ids[2]]),
             ("logits-other", "grad.hook_logits", ["--pin", "2,%d" % ids[1]]),
             ("logits-last", "grad.hook_logits", ["--pin", "%d,7" % (T - 1)]),
             ("scores", "grad.blocks.1.attn.hook_attn_scores", ["--head", "1", "--pin", "3,1"]),
             ("scores-masked", "grad.blocks.1.attn.hook_attn_scores", ["--head", "1", "--pin", "1,3"]),
             ("scaled", "grad.blocks.0.attn.hook_attn_scores_scaled", ["--pin", "4,2"]),
             ("pattern-above", "grad.blocks.0.attn.hook_pattern", ["--head", "3", "--pin", "1,3"]),
             ("hover", "grad.blocks.1.mlp.hook_pre", ["--view", "table", "--hover", "2,4"])]
    for lang in ("en", "ko"):
        for name, hook, extra in views:
            run.render("grad-%s-%s" % (name, lang), trace, ["--step", hook, "--lang", lang, "--size", "1400x900"] + extra)
    # Twelve blocks (51 weight rows): in columns at a projector's size, and where even those
    # leave no room, a line that says so; the same trace on both sides of a comparison.
    model = os.path.join(out, "twelve")
    subprocess.run([sys.executable, os.path.join(run.root, "tests", "reference", "make_model.py"), model, "--layers",
                    "12", "--heads", "2", "--embd", "32", "--positions", "32", "--seed", "5"], check=True,
                   capture_output=True)
    twelve = os.path.join(out, "twelve.safetensors")
    subprocess.run([run.ttrace, "trace", "-q", "-m", model, "--grad", "-o", twelve, "The weather is nice today"],
                   check=True)
    for size, scale in (("1280x800", "1"), ("1920x1080", "1.5"), ("1280x800", "2")):
        run.render("grad-twelve-%s-x%s" % (size, scale), twelve, ["--step", "hook_logits", "--view", "gradnorm",
                                                                 "--frame", "--size", size, "--font-scale", scale])
    run.render("grad-twelve-compare", twelve, ["--step", "hook_logits", "--view", "gradnorm", "--size", "1600x1000"],
               compare=twelve)


# Projectors, the type zoomed for the room, then a small laptop window and the smallest window
# (SDL_SetWindowMinimumSize): every lesson page and demo step at each. TT_ZOOMED ("--size WxH
# --font-scale S") checks one other instead.
ZOOMED = [["--size", "1920x1080", "--font-scale", "1.5"],
          ["--size", "1280x800", "--font-scale", "1.6"],
          ["--size", "1280x720", "--font-scale", "2"],  # drawn as x1.6: zoomed type keeps 40 x 25 units
          ["--size", "1024x768", "--font-scale", "1.5"],
          ["--size", "800x600", "--font-scale", "1"],
          ["--size", "640x400", "--font-scale", "1"]]


def add_zoomed(run):
    """Every lesson step (en and ko), every demo step and the generation views, zoomed as in
    a classroom."""
    traces = os.path.join(run.root, "lessons", "traces")
    weather = os.path.join(traces, "01-weather.safetensors")
    sizes = [os.environ["TT_ZOOMED"].split()] if os.environ.get("TT_ZOOMED") else ZOOMED
    gen = os.path.join(run.out, "generated.safetensors")  # the generation views in the window's frame
    subprocess.run([run.ttrace, "generate", "-q", "-n", "12", "--seed", "7", "-o", gen, "The weather is"],
                   check=True, capture_output=True)
    # The window's what-if: the prompt on the embedded model, and again with one knob turned
    # (knob, the language its pages are checked in, baseline, variant).
    what_ifs = []
    for knob, lang in (("positions=none", "en"), ("scale_attn=false", "ko")):
        name = knob.split("=")[0]
        pair = [os.path.join(run.out, "whatif-%s-%s.safetensors" % (name, side)) for side in "ab"]
        for path, sets in zip(pair, ([], ["--set", knob])):
            subprocess.run([run.ttrace, "trace", "-q", "-o", path, "The weather is nice"] + sets,
                           check=True, capture_output=True)
        what_ifs.append((name, lang, pair[0], pair[1]))
    for z in sizes:
        tag = "%sx%s" % (z[1], z[3])
        for lang in ("en", "ko"):
            for view, step in (("timeline", "hook_probs"), ("kvcache", "decode.5.blocks.1.attn.hook_k")):
                run.render("zoomed-%s-generated-%s-%s" % (tag, lang, view), gen,
                           ["--step", step, "--view", view, "--frame", "--lang", lang] + z)
        for lang, base, path, s in lesson_pages(run):
            run.lesson("zoomed-%s-lesson-%s-%s-%02d" % (tag, lang, base, s), path, s, traces, z)
        for lang in ("en", "ko"):
            for sid, suffix, in_block in step_table(run.root):
                for layer in ([0, 3] if in_block else [0]):
                    hook = "blocks.%d.%s" % (layer, suffix) if in_block else suffix
                    run.render("zoomed-%s-demo-%s-L%d-%s" % (tag, lang, layer, sid), weather,
                               ["--step", hook, "--layer", str(layer), "--frame", "--lang", lang] + z)
    # The demo after a what-if key (K): every step of the baseline against the variant, at
    # these sizes and at render's own.
    for z in sizes + [["--size", "1600x1000", "--font-scale", "1"]]:
        tag = "%sx%s" % (z[1], z[3])
        for knob, lang, base, variant in what_ifs:
            for sid, suffix, in_block in step_table(run.root):
                hook = "blocks.0.%s" % suffix if in_block else suffix
                run.render("zoomed-%s-whatif-%s-%s-%s" % (tag, knob, lang, sid), base,
                           ["--step", hook, "--frame", "--lang", lang] + z, compare=variant)


def lesson_steps(ttrace, lang):
    p = subprocess.run([ttrace, "lesson", "--list", "--lang", lang], capture_output=True, text=True)
    out = {}
    for line in p.stdout.splitlines():
        m = re.match(r"\s+(\S+)\s.*\((\d+) steps\)\s*$", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    ttrace, root = sys.argv[1], sys.argv[2]
    only = [sys.argv[i + 1] for i, a in enumerate(sys.argv) if a == "--only"] or ["golden", "pins", "demo", "lessons", "grad", "zoomed"]
    strict = "--unmarked-ok" not in sys.argv  # by default a number without data-tt fails too
    t0 = time.time()
    with tempfile.TemporaryDirectory() as out:
        run = Run(ttrace, root, out)
        fixture = os.path.join(root, "tests", "render", "fixtures", "weather.safetensors")
        if "golden" in only:
            add_golden(run, fixture)
            add_compare(run)
            add_lens_cost(run, fixture)
            add_neighbours_gates(run, fixture)
        elif "views" in only:  # the neighbours and gates views alone (part of golden)
            add_neighbours_gates(run, fixture)
        if "pins" in only:
            add_pins(run)
            add_korean(run)
            add_hover(run)
        if "demo" in only:
            add_demo(run, fixture, "fixture")
            add_demo(run, os.path.join(root, "lessons", "traces", "01-weather.safetensors"), "weather")
        if "lessons" in only:
            add_lessons(run)
        if "grad" in only:
            add_grad(run, out)
        if "zoomed" in only:
            add_zoomed(run)
        fails, n_texts, n_checked = run.run()
    unmarked = [f for f in fails if f.endswith("a number without data-tt (what is it?)")]
    if not strict:
        fails = [f for f in fails if not f.endswith("a number without data-tt (what is it?)")]
    print("%d views, %d texts, %d checked against the traces, %d texts with numbers not yet marked "
          "(failures unless --unmarked-ok), %d failures (%.1f s)" %
          (len(run.jobs), n_texts, n_checked, len(unmarked), len(fails), time.time() - t0))
    for f in fails[:int(os.environ.get("TT_NUMBERS_SHOW", "400"))]:
        print("FAIL", f)
    if len(fails) > int(os.environ.get("TT_NUMBERS_SHOW", "400")):
        print("... and %d more" % (len(fails) - int(os.environ.get("TT_NUMBERS_SHOW", "400"))))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
