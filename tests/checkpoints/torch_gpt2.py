#!/usr/bin/python3
"""An independent GPT-2 forward pass in PyTorch, written from the model's definition, that
saves what other tools save: a Hugging Face output_hidden_states dump (hidden_states.N,
[1,T,C], the last one after ln_f, and logits) and a TransformerLens-style cache (its hook
names and layouts, batch 1: q/k/v/z [batch,pos,head,d_head], scores and pattern
[batch,head,q,k] masked with -inf, hook_scale [batch,pos,1], hook_normalized before γ and β).

    torch_gpt2.py MODEL_DIR TRACE HF_OUT TL_OUT [--gelu tanh|erf]

The token ids are read from TRACE (a ttrace trace of the same prompt); nothing else is.
"""
import argparse
import json
import math
import os

import numpy as np
import torch

import stfile


def load(model_dir):
    entries, _ = stfile.read(os.path.join(model_dir, "model.safetensors"))
    w = {}
    for name, dtype, shape, blob in entries:
        assert dtype == "F32"
        w[name.removeprefix("transformer.")] = torch.from_numpy(np.frombuffer(blob, "<f4").copy()).reshape(shape).double()
    with open(os.path.join(model_dir, "config.json")) as f:
        return w, json.load(f)


def tokens_of(trace):
    entries, _ = stfile.read(trace)
    blob = next(b for n, d, s, b in entries if n == "tokens")
    return torch.from_numpy(np.frombuffer(blob, "<i4").astype(np.int64))


def layer_norm(x, g, b, eps, cache, name):
    mu = x.mean(-1, keepdim=True)
    scale = ((x - mu).pow(2).mean(-1, keepdim=True) + eps).sqrt()
    cache[name + ".hook_scale"] = scale
    cache[name + ".hook_normalized"] = (x - mu) / scale
    return (x - mu) / scale * g + b


def forward(w, cfg, ids, gelu):
    L, H, C, eps = cfg["n_layer"], cfg["n_head"], cfg["n_embd"], cfg["layer_norm_epsilon"]
    D, T = C // H, len(ids)
    act = {"tanh": lambda x: 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
           "erf": lambda x: 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))}[gelu]
    cache, hidden = {}, []
    x = w["wte.weight"][ids] + w["wpe.weight"][:T]
    cache["hook_embed"], cache["hook_pos_embed"] = w["wte.weight"][ids], w["wpe.weight"][:T]
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
    for l in range(L):
        p, b = f"h.{l}.", f"blocks.{l}."
        hidden.append(x)
        cache[b + "hook_resid_pre"] = x
        h = layer_norm(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps, cache, b + "ln1")
        qkv = h @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]
        q, k, v = (qkv[:, i * C:(i + 1) * C].reshape(T, H, D) for i in range(3))  # [pos, head, d_head]
        for n, t in zip("qkv", (q, k, v)):
            cache[b + "attn.hook_" + n] = t
        scores = torch.einsum("qhd,khd->hqk", q, k) / math.sqrt(D)
        scores = torch.where(mask, scores, torch.tensor(-math.inf, dtype=scores.dtype))
        pattern = torch.softmax(scores, -1)
        cache[b + "attn.hook_attn_scores"], cache[b + "attn.hook_pattern"] = scores, pattern
        z = torch.einsum("hqk,khd->qhd", pattern, v)
        cache[b + "attn.hook_z"] = z
        attn_out = z.reshape(T, C) @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        cache[b + "hook_attn_out"] = attn_out
        x = x + attn_out
        cache[b + "hook_resid_mid"] = x
        h = layer_norm(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps, cache, b + "ln2")
        pre = h @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]
        post = act(pre)
        cache[b + "mlp.hook_pre"], cache[b + "mlp.hook_post"] = pre, post
        mlp_out = post @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
        cache[b + "hook_mlp_out"] = mlp_out
        x = x + mlp_out
        cache[b + "hook_resid_post"] = x
        cache[b + "attn.hook_result"] = torch.zeros(T, H, C)  # a TransformerLens-only hook
    x = layer_norm(x, w["ln_f.weight"], w["ln_f.bias"], eps, cache, "ln_final")
    hidden.append(x)
    logits = x @ w.get("lm_head.weight", w["wte.weight"]).T
    return hidden, logits, cache


def f32(t):
    a = t.detach().float().numpy()
    return ("F32", list(a.shape), a.astype("<f4").tobytes())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("trace")
    ap.add_argument("hf_out")
    ap.add_argument("tl_out")
    ap.add_argument("--gelu", choices=["tanh", "erf"], default="tanh")
    args = ap.parse_args()
    w, cfg = load(args.model)
    hidden, logits, cache = forward(w, cfg, tokens_of(args.trace), args.gelu)
    hf = [(f"hidden_states.{i}",) + f32(h[None]) for i, h in enumerate(hidden)] + [("logits",) + f32(logits[None])]
    stfile.write(args.hf_out, hf, {"format": "pt"})
    tl = []
    for name, t in cache.items():
        if name.endswith(("hook_attn_scores", "hook_pattern")):
            t = t[None]  # [batch, head, q, k]
        else:
            t = t[None]  # [batch, pos, ...]; q/k/v/z are already [pos, head, d_head]
        tl.append((name,) + f32(t))
    stfile.write(args.tl_out, tl, {"format": "pt"})


if __name__ == "__main__":
    main()
