#!/usr/bin/python3
"""The gradients of a Llama trace (ttrace trace --grad) against float64 torch autograd.

    torch_llama_grad.py MODEL_DIR TRACE [--quiet]

The forward pass is written here with torch from Hugging Face's LlamaForCausalLM
(RMSNorm, nn.Linear q/k/v/o with grouped-query heads via repeat_kv, rotate-half RoPE,
softmax(q k^T / sqrt(D) + causal mask), down(act(gate) * up)); every tensor ttrace records
gets retain_grad; L = the mean next-token loss, as ttrace's. Every grad.<hook> and
grad.<weight> of the trace is compared (max error <= REL * max|ref| + the round-off floor, as
tests/grad/torch_grad_ref.py) and every one the reference has must be in the trace.
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "grad"))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
from llama_ref import Config, load_weights  # noqa: E402
from torch_grad_ref import compare, read_safetensors, round_off_floor  # noqa: E402

torch.set_default_dtype(torch.float64)


def act(x, kind):
    if kind in ("silu", "swish"):
        return torch.nn.functional.silu(x)
    if kind == "gelu":
        return torch.nn.functional.gelu(x)
    if kind in ("gelu_new", "gelu_pytorch_tanh", "gelu_tanh"):
        return torch.nn.functional.gelu(x, approximate="tanh")
    if kind == "relu":
        return torch.relu(x)
    raise SystemExit(f"torch_llama_grad.py: activation {kind} not in this reference")


def rope(x, theta):
    _, T, D = x.shape
    inv = 1.0 / theta ** (torch.arange(0, D, 2, dtype=torch.float64) / D)
    ang = torch.arange(T, dtype=torch.float64)[:, None] * inv[None, :]
    emb = torch.cat([ang, ang], dim=-1)
    rot = torch.cat([-x[..., D // 2 :], x[..., : D // 2]], dim=-1)
    return x * emb.cos() + rot * emb.sin()


def forward(cfg, w, ids, hooks):
    def keep(name, t):
        t.retain_grad()
        hooks[name] = t
        return t

    def rms(prefix, x, g):
        scale = torch.sqrt((x * x).mean(-1) + cfg.eps)  # its gradient is inside the norm's, as in ttrace
        nrm = keep(prefix + "hook_normalized", x / scale[:, None])
        return keep(prefix + "hook_out", nrm * g)

    def lin(x, name, bias):
        y = x @ w[name + ".weight"].T
        return y + w[name + ".bias"] if bias else y

    T, H, G, D = len(ids), cfg.H, cfg.G, cfg.D
    x = keep("hook_embed", w["model.embed_tokens.weight"][ids])
    for l in range(cfg.L):
        p, n = f"blocks.{l}.", f"model.layers.{l}."
        x = keep(p + "hook_resid_pre", x if l else x * 1.0)
        h = rms(p + "ln1.", x, w[n + "input_layernorm.weight"])
        a = n + "self_attn."
        q = keep(p + "attn.hook_q", lin(h, a + "q_proj", cfg.attn_bias).reshape(T, H, D).transpose(0, 1))
        k = keep(p + "attn.hook_k", lin(h, a + "k_proj", cfg.attn_bias).reshape(T, G, D).transpose(0, 1))
        v = keep(p + "attn.hook_v", lin(h, a + "v_proj", cfg.attn_bias).reshape(T, G, D).transpose(0, 1))
        rq, rk = keep(p + "attn.hook_rot_q", rope(q, cfg.theta)), keep(p + "attn.hook_rot_k", rope(k, cfg.theta))
        kk, vv = rk.repeat_interleave(H // G, dim=0), v.repeat_interleave(H // G, dim=0)
        raw = keep(p + "attn.hook_attn_scores_raw", rq @ kk.transpose(1, 2))
        scaled = keep(p + "attn.hook_attn_scores_scaled", raw * D**-0.5)
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
        masked = keep(p + "attn.hook_attn_scores", scaled.masked_fill(mask, float("-inf")))
        pattern = keep(p + "attn.hook_pattern", torch.softmax(masked, -1))
        z = keep(p + "attn.hook_z", pattern @ vv)
        o = keep(p + "hook_attn_out", lin(z.transpose(0, 1).reshape(T, H * D), a + "o_proj", cfg.attn_bias))
        mid = keep(p + "hook_resid_mid", x + o)
        h = rms(p + "ln2.", mid, w[n + "post_attention_layernorm.weight"])
        m = n + "mlp."
        gate = keep(p + "mlp.hook_pre", lin(h, m + "gate_proj", cfg.mlp_bias))
        up = keep(p + "mlp.hook_pre_linear", lin(h, m + "up_proj", cfg.mlp_bias))
        post = keep(p + "mlp.hook_post", act(gate, cfg.act) * up)
        out = keep(p + "hook_mlp_out", lin(post, m + "down_proj", cfg.mlp_bias))
        x = keep(p + "hook_resid_post", mid + out)
    h = rms("ln_final.", x, w["model.norm.weight"])
    logits = keep("hook_logits", h @ w.get("lm_head.weight", w["model.embed_tokens.weight"]).T)
    return torch.nn.functional.cross_entropy(logits[:-1], torch.tensor(ids[1:]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model_dir")
    ap.add_argument("trace")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    trace, meta = read_safetensors(args.trace)
    cfg = Config(json.loads(meta["config"]))
    ids = [int(i) for i in json.loads(meta["token_ids"])]
    with open(os.path.join(args.model_dir, "config.json")) as f:
        tied = json.load(f).get("tie_word_embeddings", False)
    w = {k: torch.tensor(v, requires_grad=True) for k, v in load_weights(args.model_dir).items()}
    if tied:
        w.pop("lm_head.weight", None)
    hooks = {}
    loss = forward(cfg, w, ids, hooks)
    loss.backward()
    ref = {"grad." + n: t.grad.numpy() for n, t in hooks.items() if t.grad is not None}
    ref.update({"grad." + n: t.grad.numpy() for n, t in w.items()})
    got = {n: np.asarray(a, dtype=np.float64) for n, a in trace if n.startswith("grad.")}
    fails, rows, floor = 0, [], round_off_floor(t.grad.numpy() for t in w.values())
    for n in ref:
        if n not in got:
            fails += 1
            rows.append(f"FAIL {n}: missing from the trace")
            continue
        ok, maxref, err, allowed, note = compare(got[n], ref[n], floor)
        fails += not ok
        rows.append(f"{'ok  ' if ok else 'FAIL'} {n:56s} max|ref| {maxref:10.4g}  err {err:10.3g}  allowed {allowed:10.3g} {note}")
    for n in sorted(set(got) - set(ref)):
        fails += 1
        rows.append(f"FAIL {n}: in the trace but not a gradient the reference has")
    for r in rows:
        if not args.quiet or r.startswith("FAIL"):
            print(r)
    print(f"{len(rows) - fails} passed, {fails} failed")
    return 1 if fails or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
