#!/usr/bin/python3
"""docs/trace-format.md's TransformerLens snippet, run on a trace of a random model: every
hook comes out in TransformerLens' layout ([batch, pos, head_index, d_head] for q, k, v, z;
[batch, head_index, query_pos, key_pos] for scores and pattern; [batch, pos, 1] for a
norm's scale), checked by computing in TransformerLens' own conventions (its einsums as in
abstract_attention.py, its LayerNorm's hook_normalized = (x - mean) / scale) from the
converted cache and the model's weights, not from ttrace's layouts.

    test_tl_snippet.py TTRACE
"""
import os
import re
import shutil
import tempfile

import numpy as np

import common
import stfile

DOC = os.path.join(common.HERE, "..", "..", "docs", "trace-format.md")


def snippets():
    """The numpy section's load_trace block and the TransformerLens section's block."""
    text = open(DOC, encoding="utf-8").read()
    numpy_part = text.split("## Reading a trace with numpy", 1)[1].split("\n## ", 1)[0]
    tl_part = text.split("## TransformerLens", 1)[1].split("\n## ", 1)[0]
    block = re.compile(r"```python\n(.*?)```", re.S)
    return block.findall(numpy_part)[0], block.findall(tl_part)[0]


def weights(model):
    entries, _ = stfile.read(os.path.join(model, "model.safetensors"))
    return {n: np.frombuffer(b, "<f4").reshape(s) for n, d, s, b in entries}


def main():
    c = common.Checks(common.ttrace_arg())
    tmp = tempfile.mkdtemp(prefix="ttrace-tl-")
    try:
        H, C, L = 3, 24, 2
        D = C // H
        model = common.make_model(os.path.join(tmp, "m"), "--layers", str(L), "--heads", str(H), "--embd", str(C))
        trace = os.path.join(tmp, "weather.safetensors")
        r = c.trace(model, trace)
        c.check("trace", r.returncode == 0, r.stderr)
        load, convert = snippets()
        scope = {}
        cwd = os.getcwd()
        os.chdir(tmp)  # the snippets read weather.safetensors
        try:
            exec(load.split("\nmeta, t = ")[0], scope)  # load_trace, without its example lines
            exec(convert, scope)
        finally:
            os.chdir(cwd)
        cache, t, w = scope["cache"], scope["t"], weights(model)
        T = len(t["tokens"])
        c.check("logits [1, pos, d_vocab]", scope["logits"].shape == (1, T, 50257), scope["logits"].shape)
        own = [n for n in cache if n.rsplit(".", 1)[-1] in ("hook_mean", "hook_out", "hook_qkv")]
        c.check("ttrace's own hooks are left out", not own and "tokens" not in cache, own)
        for l in range(L):
            b, h = f"blocks.{l}.", f"h.{l}."
            q, k, v, z = (cache[b + "attn.hook_" + x] for x in "qkvz")
            c.check(f"{b}attn.hook_q/k/v/z are [batch, pos, head_index, d_head]",
                    all(x.shape == (1, T, H, D) for x in (q, k, v, z)), [x.shape for x in (q, k, v, z)])
            # TransformerLens: q = ln1(resid_pre) @ W_Q + b_Q, W_Q [head_index, d_model, d_head].
            x = cache[b + "ln1.hook_normalized"][0] * w[h + "ln_1.weight"] + w[h + "ln_1.bias"]
            qkv = x @ w[h + "attn.c_attn.weight"] + w[h + "attn.c_attn.bias"]
            W_Q = w[h + "attn.c_attn.weight"][:, :C].reshape(C, H, D).transpose(1, 0, 2)
            b_Q = w[h + "attn.c_attn.bias"][:C].reshape(H, D)
            q_tl = np.einsum("pm,hmd->phd", x, W_Q) + b_Q
            c.check(f"{b}attn.hook_q is ln1 · W_Q + b_Q in TransformerLens' layout",
                    np.allclose(q[0], q_tl, atol=1e-4) and np.allclose(q[0].reshape(T, C), qkv[:, :C], atol=1e-4),
                    np.abs(q[0] - q_tl).max())
            scores = np.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(D)
            scores = np.where(np.tril(np.ones((T, T), bool)), scores, -np.inf)
            got = cache[b + "attn.hook_attn_scores"]
            c.check(f"{b}attn.hook_attn_scores is [batch, head, query_pos, key_pos], masked with -inf",
                    got.shape == (1, H, T, T) and np.array_equal(np.isinf(got), np.isinf(scores))
                    and np.allclose(got[np.isfinite(got)], scores[np.isfinite(scores)], atol=1e-4))
            e = np.exp(got - got.max(-1, keepdims=True))
            pattern = cache[b + "attn.hook_pattern"]
            c.check(f"{b}attn.hook_pattern = softmax(hook_attn_scores)", np.allclose(pattern, e / e.sum(-1, keepdims=True),
                                                                                    atol=1e-6))
            z_tl = np.einsum("bhqk,bkhd->bqhd", pattern, v)
            c.check(f"{b}attn.hook_z = pattern · v (TransformerLens' einsum)", np.allclose(z, z_tl, atol=1e-5))
            resid = cache[b + "hook_resid_pre"][0]
            centred = resid - resid.mean(-1, keepdims=True)
            scale = cache[b + "ln1.hook_scale"]
            c.check(f"{b}ln1.hook_scale is [batch, pos, 1]", scale.shape == (1, T, 1), scale.shape)
            c.check(f"{b}ln1.hook_normalized = (x - mean) / hook_scale",
                    np.allclose(cache[b + "ln1.hook_normalized"][0], centred / scale[0], atol=1e-5))
            for name in ("hook_resid_pre", "hook_resid_mid", "hook_resid_post", "hook_attn_out", "hook_mlp_out"):
                c.check(f"{b}{name} is [batch, pos, d_model]", cache[b + name].shape == (1, T, C))
            c.check(f"{b}hook_resid_mid = resid_pre + attn_out",
                    np.allclose(cache[b + "hook_resid_mid"], cache[b + "hook_resid_pre"] + cache[b + "hook_attn_out"],
                                atol=1e-5))
            c.check(f"{b}mlp.hook_pre is [batch, pos, d_mlp]", cache[b + "mlp.hook_pre"].shape == (1, T, 4 * C))
        c.check("hook_embed [batch, pos, d_model]", cache["hook_embed"].shape == (1, T, C))
        c.check("ln_final.hook_scale [batch, pos, 1]", cache["ln_final.hook_scale"].shape == (1, T, 1))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return c.done()


if __name__ == "__main__":
    raise SystemExit(main())
