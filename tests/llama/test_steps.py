#!/usr/bin/python3
"""The step list of a Llama trace, as a user meets it: `ttrace demo --out` writes the Llama
block's steps (no fused Q/K/V, no position vectors, no GELU), and `ttrace render --frame`
draws every step of every block in both languages from hooks the trace has, with shape
lines whose numbers come from config.json and cells equal to the trace's tensors.

    test_steps.py TTRACE
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
IDS = "464,6193,318,3621,13"
T = 5

# The Llama block as the issue lists it: (step, hook suffix, in a block).
STEPS = [("tokenize", "tokens", False), ("ids", "tokens", False), ("embed", "hook_embed", False),
         ("ln1", "ln1.hook_out", True), ("q_proj", "attn.hook_q", True), ("kv_proj", "attn.hook_k", True),
         ("rope", "attn.hook_rot_q", True), ("scores", "attn.hook_attn_scores_raw", True),
         ("scale", "attn.hook_attn_scores_scaled", True), ("mask", "attn.hook_attn_scores", True),
         ("softmax", "attn.hook_pattern", True), ("weighted", "attn.hook_z", True),
         ("o_proj", "hook_attn_out", True), ("resid1", "hook_resid_mid", True), ("ln2", "ln2.hook_out", True),
         ("gate", "mlp.hook_pre", True), ("up", "mlp.hook_pre_linear", True), ("swiglu", "mlp.hook_post", True),
         ("down", "hook_mlp_out", True), ("resid2", "hook_resid_post", True),
         ("ln_final", "ln_final.hook_out", False), ("logits", "hook_logits", False), ("probs", "hook_probs", False)]
GPT2_ONLY = {"qkv", "split", "positions", "sum", "proj", "ffn_up", "gelu", "ffn_down"}


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} -> {p.returncode}: {p.stderr.strip()}")
    return p


def read_trace(path):
    """The tensors of a safetensors file, read with struct and numpy."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        head = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in head.items():
        if name == "__metadata__":
            continue
        a, b = t["data_offsets"]
        dt = {"F32": np.float32, "I32": np.int32}[t["dtype"]]
        out[name] = np.frombuffer(data[a:b], dtype=dt).reshape(t["shape"])
    return out


def texts(svg):
    return [re.sub(r"<[^>]*>", "", m) for m in re.findall(r"<text[^>]*>[^<]*", svg)]


def shape_lines(cfg):
    """The shape line of each step, written from the config: H query heads, G key/value
    heads of D, C, F."""
    C, H, F = cfg["hidden_size"], cfg["num_attention_heads"], cfg["intermediate_size"]
    G, L = cfg["num_key_value_heads"], cfg["num_hidden_layers"]
    D = cfg.get("head_dim") or C // H
    x, ar = "\u00d7", "\u2192"
    return {
        "q_proj": f"({T}, {C}) {x} ({C}, {H * D}) {ar} ({T}, {H * D}) {ar} ({H}, {T}, {D}),  H = {H}, D = {D}",
        # The KV cache of T positions in float32, K and V of every block: 2·L·G·D·T·4 bytes.
        "kv_proj": f"K, V 2 {x} ({G}, {T}, {D});  KV cache "
                   f"{2 * L * G * D * T * 4} B (G = {G}) vs {2 * L * H * D * T * 4} B (H = {H})",
        "scores": f"({H}, {T}, {D}) {x} ({G}, {D}, {T}) {ar} ({H}, {T}, {T});  K/V \u2190 q heads: "
                  + ", ".join(f"{g} \u2190 {g * (H // G)}\u2013{g * (H // G) + H // G - 1}" for g in range(G)),
        "weighted": f"({H}, {T}, {T}) {x} ({G}, {T}, {D}) {ar} ({H}, {T}, {D})",
        "o_proj": f"({T}, {H * D}) {x} ({H * D}, {C}) {ar} ({T}, {C})",
        "gate": f"({T}, {C}) {x} ({C}, {F}) {ar} ({T}, {F})",
        "up": f"({T}, {C}) {x} ({C}, {F}) {ar} ({T}, {F})",
        "swiglu": f"({T}, {F}) \u2299 ({T}, {F}) {ar} ({T}, {F})",
        "down": f"({T}, {F}) {x} ({F}, {C}) {ar} ({T}, {C})",
        "rope": f"q ({H}, {T}, {D}), k ({G}, {T}, {D}): {D // 2} pairs per head",
    }


def check_cells(svg, tensors, where):
    """Every annotated cell of the heatmap equals the trace's tensor at its place (the cells
    print 2 to 3 significant digits)."""
    n = 0
    for attrs, txt in re.findall(r'<text([^>]*data-tt="cell r=\d+ c=\d+"[^>]*)>([^<]*)', svg):
        r, c = map(int, re.search(r'cell r=(\d+) c=(\d+)', attrs).groups())
        m = re.search(r'hook=(\S+?)(?: head=(\d+))?"', attrs)
        t = tensors[m.group(1)]
        ref = float(t[int(m.group(2)), r, c] if t.ndim == 3 else t[r, c])
        got = txt.strip().replace("\u2212", "-")
        if got in ("", "-\u221e") or got.startswith("\u2212\u221e"):
            continue
        if abs(float(got) - ref) > 0.006 + 0.006 * abs(ref):
            fail(f"{where}: cell ({r}, {c}) shows {got}, the trace has {ref:.5g}")
        n += 1
    return n


def check_rmsnorm(ttrace, trace, tensors, tmp):
    """The RMSNorm table: no mean column, the root mean square of each input row where
    LayerNorm has sigma, equal to sqrt(mean(x^2)) of hook_resid_pre from the trace."""
    svg_path = os.path.join(tmp, "ln1.svg")
    run([ttrace, "render", trace, "--step", "blocks.1.ln1.hook_out", "-o", svg_path])
    svg = open(svg_path, encoding="utf-8").read()
    lines = texts(svg)
    if any("\u03c3 (spread)" in t or "\u03b2" in t for t in lines):
        fail("the RMSNorm view speaks of a spread or a beta")
    if not any(t.startswith("rms") for t in lines):
        fail("the RMSNorm view has no rms column")
    x = tensors["blocks.1.hook_resid_pre"].astype(np.float64)
    rms = np.sqrt((x * x).mean(axis=1))
    n = 0
    for r, txt in re.findall(r'<text[^>]*data-tt="ln col=sigma r=(\d+)"[^>]*>([^<]*)', svg):
        got, ref = float(txt.replace("\u2212", "-")), rms[int(r)]
        if abs(got - ref) > 0.006 + 0.006 * ref:
            fail(f"RMSNorm row {r}: rms shows {got}, sqrt(mean(x^2)) is {ref:.5g}")
        n += 1
    if n != T:
        fail(f"{n} rms cells, want {T}")


def main():
    ttrace = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "m")
        run([sys.executable, os.path.join(HERE, "make_llama.py"), model, "--layers", "2", "--heads", "6",
             "--kv-heads", "2", "--embd", "36", "--head-dim", "8", "--inner", "40", "--attention-bias"])
        cfg = json.load(open(os.path.join(model, "config.json")))
        L = cfg["num_hidden_layers"]
        trace = os.path.join(tmp, "t.safetensors")
        run([ttrace, "trace", "-m", model, "--ids", IDS, "-o", trace])
        tensors = read_trace(trace)

        # The headless sequence: the Llama steps in order, each block's once per block.
        out = os.path.join(tmp, "demo")
        run([ttrace, "demo", "-m", model, "--ids", IDS, "--out", out, "--size", "960x600"])
        got = [re.sub(r"^\d{3}-(L\d+-)?", "", f[:-4]) for f in sorted(os.listdir(out))]
        want = []
        for i, (step, _, blk) in enumerate(STEPS):
            if blk and (i == 0 or not STEPS[i - 1][2]):
                for _ in range(L):
                    for s2, _, b2 in STEPS[i:]:
                        if not b2:
                            break
                        want += [s2] + (["softmax-heads"] if s2 == "softmax" else [])
            elif not blk:
                want.append(step)
        if got != want:
            fail(f"demo --out wrote {got}, want {want}")

        # Every step of every block, framed, in both languages.
        shapes = shape_lines(cfg)
        cells = 0
        for step, suffix, blk in STEPS:
            for layer in range(L) if blk else [0]:
                hook = f"blocks.{layer}.{suffix}" if blk else suffix
                if hook not in tensors:
                    fail(f"step {step} shows {hook}, which the trace does not have")
                for lang in ("en", "ko"):
                    svg_path = os.path.join(tmp, f"{step}-{layer}-{lang}.svg")
                    run([ttrace, "render", trace, "--step", hook, "--frame", "--lang", lang, "-o", svg_path])
                    svg = open(svg_path, encoding="utf-8").read()
                    lines = texts(svg)
                    for bad in ("hook_qkv", "hook_pos_embed", "Fused", "W_qkv"):
                        if any(bad in t for t in lines):
                            fail(f"{hook} ({lang}) shows '{bad}'")
                    if not any(hook in t for t in lines):
                        fail(f"{hook} ({lang}): the hook's name is not on the figure")
                    if lang == "en" and step in shapes and not any(t.startswith(shapes[step]) for t in lines):
                        fail(f"{hook}: no shape line '{shapes[step]}' among {lines[:40]}")
                    if lang == "en":
                        cells += check_cells(svg, tensors, hook)
        check_rmsnorm(ttrace, trace, tensors, tmp)
        if cells < 100:
            fail(f"only {cells} numbered cells checked")
        print(f"ok: {len(got)} demo images; every step of {L} blocks rendered in en and ko; {cells} cells checked")


if __name__ == "__main__":
    main()
