#!/usr/bin/python3
"""The generation views against numpy: a generation of the default model is rendered to
SVG as the timeline (several tokens, both languages) and the KV cache (several decode
steps, layers and heads, and after the prompt pass), and every number they print is
checked by tests/numbers/checks.py (the probability of each token from the trace's
hook_probs rows, the ranked candidates, the cut, the cache's rows and labels, the new
query's weights from decode.S.*.hook_pattern). A number printed without saying what it
is fails too. Then the same for a Llama model with grouped-query attention (6 query heads
on 2 key/value heads, tests/llama/make_llama.py): the cache of the K/V head each query head
reads, which query heads share it, and the bytes it saves against 6 cached heads.

    check_views.py TTRACE REPO_ROOT
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ttrace, root = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(root, "tests", "lesson"))  # safetensors_np
sys.path.insert(0, os.path.join(root, "tests", "numbers"))
import check_numbers  # noqa: E402
import checks  # noqa: E402
import svgnum  # noqa: E402

vocab = check_numbers.load_vocab(os.path.join(root, "assets", "tokenizer", "vocab.json"))
fails, n_checked, kinds = [], 0, set()
with tempfile.TemporaryDirectory() as tmp:
    g = os.path.join(tmp, "g.safetensors")
    subprocess.run([ttrace, "generate", "-q", "-n", "9", "--temperature", "0.9", "--top-k", "6", "--top-p", "0.8",
                    "--seed", "21", "-o", g, "The weather is nice"], check=True, capture_output=True)
    tr = checks.Trace(g)
    n = len(json.loads(tr.meta["generated_ids"]))
    jobs = []
    for pos in [0, 3, n - 1]:
        for lang in ["en", "ko"]:
            jobs.append(("timeline_%d_%s" % (pos, lang), ["--step", "hook_probs", "--view", "timeline", "--position",
                                                          str(pos), "--lang", lang]))
    for step, layer, head in [(0, 0, 0), (3, 1, 2), (n - 2, 3, 3)]:
        jobs.append(("kv_%d_%d_%d" % (step, layer, head), ["--step", "decode.%d.blocks.%d.attn.hook_k" % (step, layer),
                                                           "--view", "kvcache", "--head", str(head)]))
    jobs.append(("kv_prefill", ["--step", "blocks.2.attn.hook_v", "--view", "kvcache", "--head", "1", "--lang", "ko"]))
    llama, gl = os.path.join(tmp, "llama"), os.path.join(tmp, "gl.safetensors")
    subprocess.run([sys.executable, os.path.join(root, "tests", "llama", "make_llama.py"), llama, "--layers", "2",
                    "--heads", "6", "--kv-heads", "2", "--embd", "36", "--head-dim", "8", "--inner", "40"], check=True)
    subprocess.run([ttrace, "generate", "-q", "-m", llama, "-n", "7", "--temperature", "0", "-o", gl,
                    "The weather is nice"], check=True, capture_output=True)
    tl = checks.Trace(gl)
    jobs = [(name, args, tr) for name, args in jobs]
    for step, layer, head, lang in [(0, 0, 0, "en"), (3, 1, 5, "en"), (5, 1, 2, "ko")]:
        jobs.append(("llama_kv_%d_%d_%d" % (step, layer, head), ["--step", "decode.%d.blocks.%d.attn.hook_k" % (step, layer),
                                                                "--view", "kvcache", "--head", str(head), "--lang", lang], tl))
    jobs.append(("llama_kv_prefill", ["--step", "blocks.0.attn.hook_v", "--view", "kvcache", "--head", "4"], tl))
    jobs.append(("llama_timeline", ["--step", "hook_probs", "--view", "timeline", "--position", "3"], tl))
    for name, args, trace in jobs:
        svg = os.path.join(tmp, name + ".svg")
        r = subprocess.run([ttrace, "render", trace.path] + args + ["-o", svg], capture_output=True, text=True)
        if r.returncode != 0:
            fails.append("%s: render failed: %s" % (name, r.stderr.strip()))
            continue
        texts = svgnum.texts(svg)
        c = checks.Checker({"A": trace}, vocab, name)
        fails += c.check(texts)
        n_checked += c.checked
        kinds |= {t.kind for t in texts if t.kind and (t.kind.startswith("tl_") or t.kind.startswith("kv_"))}
want = {"tl_title", "tl_prompt", "tl_token", "tl_p", "tl_drawn", "tl_bar_token", "tl_bar_p", "tl_cut", "tl_cut_at", "tl_foot",
        "kv_title", "kv_rows", "kv_label", "kv_w", "kv_gqa_share", "kv_gqa_saves"}
if kinds != want:
    fails.append("kinds of numbers seen %s, want %s" % (sorted(kinds), sorted(want)))
for f in fails:
    print("FAIL", f)
print("generation views: %d texts checked, %d failures" % (n_checked, len(fails)))
sys.exit(1 if fails else 0)
