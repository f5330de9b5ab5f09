#!/usr/bin/python3
"""The Llama block's views and the rope_offset what-if, against numpy.

Random LlamaForCausalLM folders (make_llama.py: GQA with head_dim != C/H; one K/V head with
rope_theta 500000 in BF16) and the default GPT-2 model with --set positions=rope are traced
with and without --set rope_offset=N. Checked here from the trace files:
  * the what-if: hook_q and hook_k are the same, hook_rot_q is not (the rotation moved), and
    the raw scores equal the unshifted trace's (max |difference| <= 1e-4 · max |score|);
  * its refusals: rope_offset on a model without rotary positions (exit 3, one line, no
    file), a value that is not a position (exit 3, as every bad --set value);
  * every number the rope, gqa, swiglu and blocks views print (`ttrace render` to SVG, en and
    ko, several heads, layers and positions) by tests/numbers/checks_llama.py, which
    computes them with numpy from the mathematics; every kind of number must appear;
  * the views as PNG at 1280 x 800, and the views' message on a trace they cannot show.

    check_views.py TTRACE
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "lesson"))  # safetensors_np
sys.path.insert(0, os.path.join(ROOT, "tests", "numbers"))
import checks  # noqa: E402
import svgnum  # noqa: E402

PY = "/usr/bin/python3"
PROMPT = "The weather is nice today, isn't it? Yes, very nice."
ttrace = sys.argv[1]
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
    return cond


def run(args, **kw):
    return subprocess.run([ttrace] + args, capture_output=True, text=True, **kw)


def trace(model, out, *sets, prompt=PROMPT):
    args = ["trace", "-q", "-o", out] + (["-m", model] if model else [])
    for s in sets:
        args += ["--set", s]
    r = run(args + [prompt])
    check(r.returncode == 0, "trace %s %s failed: %s" % (model, sets, r.stderr.strip()))
    return checks.Trace(out)


def what_if(name, base, shifted, L):
    """The rope_offset trace against the one at positions 0, 1, ..."""
    for l in range(L):
        p = "blocks.%d.attn." % l
        for hook in ("hook_q", "hook_k"):  # block 0's are the same numbers; later ones within rounding
            a, b = base.get(p + hook).astype(np.float64), shifted.get(p + hook)
            same = np.array_equal(a, b) if l == 0 else np.abs(a - b).max() <= 1e-4 * max(1.0, np.abs(a).max())
            check(same, "%s: %s%s changed" % (name, p, hook))
        moved = np.abs(base.get(p + "hook_rot_q").astype(np.float64) - shifted.get(p + "hook_rot_q")).max()
        check(moved > 1e-3, "%s: %shook_rot_q did not move (%.3g)" % (name, p, moved))
        a, b = base.get(p + "hook_attn_scores_raw").astype(np.float64), shifted.get(p + "hook_attn_scores_raw")
        diff, big = float(np.abs(a - b).max()), float(np.abs(a).max())
        check(diff <= 1e-4 * max(1.0, big), "%s: layer %d raw scores moved by %.3g (max %.3g)" % (name, l, diff, big))
        print("%s layer %d: rope_offset leaves the raw scores: max |difference| %.3g of max |score| %.3g"
              % (name, l, diff, big))


def render_checked(tr, name, args, tmp, kinds):
    svg = os.path.join(tmp, name + ".svg")
    r = run(["render", tr.path] + args + ["-o", svg])
    if not check(r.returncode == 0, "%s: render failed: %s" % (name, r.stderr.strip())):
        return 0
    texts = svgnum.texts(svg)
    c = checks.Checker({"A": tr}, None, name)
    fails.extend(c.check(texts))
    kinds |= {t.kind for t in texts if t.kind.split("_")[0] in ("rope", "gqa", "swiglu", "blocks")
              or t.kind.startswith(("pin_rope", "pin_glu", "pin_mm_sum"))}
    return c.checked


def refusals(tmp):
    out = os.path.join(tmp, "refused.safetensors")
    r = run(["trace", "--set", "rope_offset=3", "-o", out, "hello"])
    check(r.returncode == 3 and len(r.stderr.strip().splitlines()) == 1 and "rope_offset=3" in r.stderr
          and "not rotary" in r.stderr, "rope_offset without rotary positions: exit %d, %r" % (r.returncode, r.stderr))
    check(not os.path.exists(out), "a refused trace was written")
    for bad in ("x", "-1", "2.5", "99999999"):
        r = run(["trace", "--set", "positions=rope", "--set", "rope_offset=" + bad, "-o", out, "hello"])
        check(r.returncode == 3 and "rope_offset=" + bad in r.stderr and len(r.stderr.strip().splitlines()) == 1,
              "rope_offset=%s: exit %d, %r" % (bad, r.returncode, r.stderr))
    check(not os.path.exists(out), "a refused trace was written")


def main():
    kinds, n = set(), 0
    with tempfile.TemporaryDirectory() as tmp:
        gqa, mqa = os.path.join(tmp, "gqa-llama"), os.path.join(tmp, "mqa-llama")
        subprocess.run([PY, os.path.join(HERE, "make_llama.py"), gqa, "--layers", "2", "--heads", "4", "--kv-heads", "2",
                        "--embd", "32", "--head-dim", "12", "--inner", "48"], check=True)
        subprocess.run([PY, os.path.join(HERE, "make_llama.py"), mqa, "--layers", "3", "--heads", "6", "--kv-heads",
                        "1", "--embd", "36", "--head-dim", "10", "--inner", "40", "--theta", "500000", "--dtype",
                        "BF16", "--tied", "--seed", "4"], check=True)
        t = {"gqa": trace(gqa, os.path.join(tmp, "g0.safetensors")),
             "gqa6": trace(gqa, os.path.join(tmp, "g6.safetensors"), "rope_offset=6"),
             "mqa": trace(mqa, os.path.join(tmp, "m0.safetensors")),
             "mqa5": trace(mqa, os.path.join(tmp, "m5.safetensors"), "rope_offset=5"),
             "gpt2": trace(None, os.path.join(tmp, "p0.safetensors"), "positions=rope"),
             "gpt2_3": trace(None, os.path.join(tmp, "p3.safetensors"), "rope_offset=3", "positions=rope"),
             "plain": trace(None, os.path.join(tmp, "plain.safetensors")),
             "long": trace(gqa, os.path.join(tmp, "long.safetensors"), "rope_offset=2", prompt=PROMPT * 5)}
        if fails:
            return
        what_if("gqa", t["gqa"], t["gqa6"], 2)
        what_if("mqa", t["mqa"], t["mqa5"], 3)
        what_if("gpt2 positions=rope", t["gpt2"], t["gpt2_3"], 4)
        refusals(tmp)
        jobs = []
        for key in ("gqa", "gqa6", "mqa5", "gpt2_3"):
            L = 3 if key.startswith("mqa") else 4 if key.startswith("gpt2") else 2
            for layer, head, pos, lang in ((0, 0, -1, "en"), (L - 1, 3, 2, "ko")):
                base = ["--step", "blocks.%d.attn.hook_q" % layer, "--head", str(head), "--lang", lang]
                if pos >= 0:
                    base += ["--position", str(pos)]
                jobs.append((t[key], "%s_rope_%d_%s" % (key, layer, lang), base + ["--view", "rope"]))
                jobs.append((t[key], "%s_gqa_%d_%s" % (key, layer, lang), base + ["--view", "gqa"]))
                jobs.append((t[key], "%s_blocks_%s" % (key, lang), base + ["--view", "blocks"]))
                if not key.startswith("gpt2"):
                    jobs.append((t[key], "%s_swiglu_%d_%s" % (key, layer, lang), base + ["--view", "swiglu"]))
        # A prompt longer than the circles: the window of positions follows --position.
        jobs.append((t["long"], "long_rope", ["--step", "blocks.1.attn.hook_q", "--head", "2", "--position", "40",
                                              "--size", "1280x800", "--view", "rope"]))
        jobs.append((t["long"], "long_rope_pair", ["--step", "blocks.0.attn.hook_q", "--pair", "1", "--view", "rope"]))
        # Zoomed on a projector: wrapped titles and lines, and what the rope view leaves out said.
        for view in ("rope", "gqa"):
            jobs.append((t["long"], "zoomed_" + view, ["--step", "blocks.1.attn.hook_q", "--position", "40", "--size",
                                                       "1280x800", "--font-scale", "1.6", "--view", view]))
        jobs.append((t["long"], "long_swiglu", ["--step", "blocks.1.mlp.hook_post", "--position", "40",
                                                "--view", "swiglu"]))
        # Pinned cells of the Llama block and of GPT-2's rotary what-if: the arithmetic of each.
        pins = ["attn.hook_q", "attn.hook_k", "attn.hook_v", "attn.hook_rot_q", "attn.hook_rot_k", "hook_attn_out",
                "ln1.hook_out", "mlp.hook_pre", "mlp.hook_pre_linear", "mlp.hook_post", "hook_mlp_out"]
        for key, head, cell in (("gqa", 1, "2,7"), ("mqa5", 0, "4,8"), ("gpt2_3", 2, "3,20")):
            for hook in pins:
                if key.startswith("gpt2") and hook in ("mlp.hook_pre_linear",):
                    continue
                jobs.append((t[key], "pin_%s_%s" % (key, hook), ["--step", "blocks.1.%s" % hook, "--head", str(head),
                                                                 "--pin", cell]))
        for tr, name, args in jobs:
            n += render_checked(tr, name, args, tmp, kinds)
        for view in ("rope", "gqa", "swiglu", "blocks"):
            png = os.path.join(tmp, view + ".png")
            r = run(["render", t["mqa5"].path, "--step", "blocks.1.attn.hook_q", "--view", view, "--size", "1280x800",
                     "-o", png])
            check(r.returncode == 0 and os.path.getsize(png) > 10000, "%s: PNG %s" % (view, r.stderr.strip()))
        for view, words in (("rope", "no rotary positions"), ("swiglu", "not gated")):
            svg = os.path.join(tmp, "none_" + view + ".svg")
            r = run(["render", t["plain"].path, "--step", "blocks.0.attn.hook_q", "--view", view, "-o", svg])
            said = " ".join(x.s for x in svgnum.texts(svg)) if r.returncode == 0 else ""
            check(words in said, "%s on a GPT-2 trace says %r" % (view, said[-200:]))
    want = {"rope_title", "rope_pair", "rope_freq", "rope_turn", "rope_angle", "rope_pos", "rope_tok", "rope_at",
            "rope_num", "rope_shift", "rope_measure", "rope_pos_more", "rope_more", "gqa_title", "gqa_q", "gqa_kv", "gqa_group", "gqa_token",
            "gqa_mha", "gqa_prompt", "gqa_ctx", "gqa_saves", "swiglu_title", "swiglu_max", "swiglu_head",
            "swiglu_cell", "blocks_T", "blocks_cfg", "blocks_each", "blocks_shape", "pin_rope_pair", "pin_rope_theta",
            "pin_rope_angle", "pin_rope_out", "pin_glu_g", "pin_glu_act", "pin_glu_up", "pin_glu_out", "pin_mm_sum"}
    check(kinds == want, "kinds of numbers seen: missing %s, unexpected %s" % (sorted(want - kinds),
                                                                              sorted(kinds - want)))
    print("Llama views: %d texts checked" % n)


main()
for f in fails:
    print("FAIL", f)
print("%d failures" % len(fails))
sys.exit(1 if fails else 0)
