#!/usr/bin/python3
"""An independent Llama forward pass in numpy (float64) that checks a ttrace trace.

    llama_ref.py MODEL_DIR TRACE_FILE [--tol 1e-4] [--quiet]

Written from Hugging Face's LlamaForCausalLM (modeling_llama.py): RMSNorm
x / sqrt(mean(x^2) + eps) * w; q, k, v = nn.Linear (x @ W.T + b); rotary positions in the
rotate-half layout (inv_freq = theta^(-2i/D), cos and sin of t * inv_freq repeated twice,
q * cos + rotate_half(q) * sin with rotate_half(x) = [-x2, x1]); grouped-query attention
(repeat_kv: query head h reads key/value head h // (H / G)); scores * head_dim^-0.5, causal
mask, softmax, o_proj; MLP down(act(gate(x)) * up(x)); final RMSNorm; lm_head (or the
embedding when tied). The weights are read here (model.safetensors, or the shards that
model.safetensors.index.json names), the config from the trace's own metadata; every
recorded tensor is compared as gpt2_ref.py does: max |trace - ref| <= tol * max(1, max |ref|).
"""
import argparse
import fnmatch
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpt2_ref import activation, compare, read_safetensors, softmax  # noqa: E402

KNOWN_KEYS = {
    "model_type", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "hidden_size", "head_dim",
    "intermediate_size", "max_position_embeddings", "vocab_size", "rms_norm_eps", "rope_theta", "hidden_act",
    "attention_bias", "mlp_bias", "ttrace_rope_offset",
}


class Config:
    def __init__(self, d):
        unknown = sorted(set(d) - KNOWN_KEYS)
        if unknown or d.get("model_type") != "llama":
            raise SystemExit(f"llama_ref.py: not a Llama config this reference implements: {unknown or d.get('model_type')}")
        self.L, self.H, self.C = d["num_hidden_layers"], d["num_attention_heads"], d["hidden_size"]
        self.G = d.get("num_key_value_heads") or self.H
        self.D = d.get("head_dim") or self.C // self.H
        self.F, self.V = d["intermediate_size"], d["vocab_size"]
        self.eps = float(d.get("rms_norm_eps", 1e-6))
        self.theta = float(d.get("rope_theta", 10000.0))
        self.offset = int(d.get("ttrace_rope_offset", 0))  # the prompt's first position
        self.act = d.get("hidden_act", "silu")
        self.attn_bias = bool(d.get("attention_bias", False))
        self.mlp_bias = bool(d.get("mlp_bias", False))


def load_weights(model_dir):
    index = os.path.join(model_dir, "model.safetensors.index.json")
    files = ["model.safetensors"]
    if not os.path.exists(os.path.join(model_dir, "model.safetensors")):
        with open(index) as f:
            files = sorted(set(json.load(f)["weight_map"].values()))
    w = {}
    for name in files:
        tensors, _ = read_safetensors(os.path.join(model_dir, name))
        w.update(dict(tensors))
    return w


def rms_norm(out, prefix, x, g, eps):
    scale = np.sqrt(np.mean(x * x, axis=-1) + eps)
    normalized = x / scale[:, None]
    y = normalized * g
    out[prefix + "hook_scale"] = scale
    out[prefix + "hook_normalized"] = normalized
    out[prefix + "hook_out"] = y
    return y


def linear(x, w, name, bias):
    y = x @ w[name + ".weight"].T
    return y + w[name + ".bias"] if bias else y


def rotary(x, theta, offset=0):
    """x (heads, T, D) -> x * cos + rotate_half(x) * sin at positions offset .. offset + T - 1."""
    _, T, D = x.shape
    inv_freq = 1.0 / theta ** (np.arange(0, D, 2, dtype=np.float64) / D)
    freqs = (offset + np.arange(T, dtype=np.float64))[:, None] * inv_freq[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)  # (T, D)
    x1, x2 = x[..., : D // 2], x[..., D // 2 :]
    rotated = np.concatenate([-x2, x1], axis=-1)
    return x * np.cos(emb) + rotated * np.sin(emb)


def attention(out, p, cfg, w, x, l):
    T, H, G, D = x.shape[0], cfg.H, cfg.G, cfg.D
    n = f"model.layers.{l}.self_attn."
    q = linear(x, w, n + "q_proj", cfg.attn_bias).reshape(T, H, D).transpose(1, 0, 2)
    k = linear(x, w, n + "k_proj", cfg.attn_bias).reshape(T, G, D).transpose(1, 0, 2)
    v = linear(x, w, n + "v_proj", cfg.attn_bias).reshape(T, G, D).transpose(1, 0, 2)
    out[p + "attn.hook_q"], out[p + "attn.hook_k"], out[p + "attn.hook_v"] = q, k, v
    rq, rk = rotary(q, cfg.theta, cfg.offset), rotary(k, cfg.theta, cfg.offset)
    out[p + "attn.hook_rot_q"], out[p + "attn.hook_rot_k"] = rq, rk
    rep = H // G  # repeat_kv
    kk, vv = np.repeat(rk, rep, axis=0), np.repeat(v, rep, axis=0)
    raw = rq @ kk.transpose(0, 2, 1)
    out[p + "attn.hook_attn_scores_raw"] = raw
    scaled = raw * D**-0.5
    out[p + "attn.hook_attn_scores_scaled"] = scaled
    masked = scaled.copy()
    masked[:, np.triu(np.ones((T, T), dtype=bool), k=1)] = -np.inf
    out[p + "attn.hook_attn_scores"] = masked
    pattern = softmax(masked)
    out[p + "attn.hook_pattern"] = pattern
    z = pattern @ vv
    out[p + "attn.hook_z"] = z
    a = linear(z.transpose(1, 0, 2).reshape(T, H * D), w, n + "o_proj", cfg.attn_bias)
    out[p + "hook_attn_out"] = a
    return a


def mlp(out, p, cfg, w, x, l):
    n = f"model.layers.{l}.mlp."
    gate = linear(x, w, n + "gate_proj", cfg.mlp_bias)
    up = linear(x, w, n + "up_proj", cfg.mlp_bias)
    post = activation(gate, cfg.act) * up
    out[p + "mlp.hook_pre"], out[p + "mlp.hook_pre_linear"], out[p + "mlp.hook_post"] = gate, up, post
    m = linear(post, w, n + "down_proj", cfg.mlp_bias)
    out[p + "hook_mlp_out"] = m
    return m


def forward(cfg, w, ids):
    out = {"tokens": np.array(ids, dtype=np.int64)}
    T = len(ids)
    x = w["model.embed_tokens.weight"][ids]
    out["hook_embed"] = x
    for l in range(cfg.L):
        p = f"blocks.{l}."
        out[p + "hook_resid_pre"] = x
        n = f"model.layers.{l}."
        h = rms_norm(out, p + "ln1.", x, w[n + "input_layernorm.weight"], cfg.eps)
        mid = x + attention(out, p, cfg, w, h, l)
        out[p + "hook_resid_mid"] = mid
        h = rms_norm(out, p + "ln2.", mid, w[n + "post_attention_layernorm.weight"], cfg.eps)
        x = mid + mlp(out, p, cfg, w, h, l)
        out[p + "hook_resid_post"] = x
    h = rms_norm(out, "ln_final.", x, w["model.norm.weight"], cfg.eps)
    logits = h @ w.get("lm_head.weight", w["model.embed_tokens.weight"]).T
    out["hook_logits"] = logits
    out["hook_probs"] = softmax(logits)
    if T > 1:
        mx = np.max(logits, axis=-1)
        lse = mx + np.log(np.sum(np.exp(logits - mx[:, None]), axis=-1))
        out["hook_loss"] = lse[:-1] - logits[np.arange(T - 1), ids[1:]]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model_dir")
    ap.add_argument("trace")
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    trace, meta = read_safetensors(args.trace)
    if meta.get("format") != "ttrace-trace":
        sys.exit(f"llama_ref.py: {args.trace} is not a ttrace trace")
    cfg_json = json.loads(meta["config"])
    cfg = Config(cfg_json)
    with open(os.path.join(args.model_dir, "config.json")) as f:
        file_cfg = json.load(f)
    for key in ("num_hidden_layers", "num_attention_heads", "hidden_size", "intermediate_size", "vocab_size"):
        if file_cfg[key] != cfg_json[key]:
            sys.exit(f"llama_ref.py: trace config {key}={cfg_json[key]} but the model's is {file_cfg[key]}")
    w = load_weights(args.model_dir)
    if file_cfg.get("tie_word_embeddings", False):
        w.pop("lm_head.weight", None)
    ids = [int(i) for i in json.loads(meta["token_ids"])]
    ref = forward(cfg, w, ids)
    globs = json.loads(meta.get("record", "[]") or "[]")
    wanted = [n for n in ref if not globs or any(fnmatch.fnmatchcase(n, g) for g in globs)]
    got = dict(trace)
    order = [n for n, _ in trace]
    failed = passed = 0
    worst = 0.0
    for name in wanted:
        if name not in got:
            print(f"{name}: FAIL missing from the trace")
            failed += 1
            continue
        ok, maxref, err, allowed, note = compare(name, got[name], ref[name], args.tol)
        worst = max(worst, err / allowed if allowed and math.isfinite(err) else (0.0 if ok else math.inf))
        if not ok or not args.quiet:
            print(f"{name:<40} {'x'.join(map(str, got[name].shape)):>12} {maxref:10.4g} {err:9.3g} {allowed:9.3g} "
                  f"{'ok' if ok else 'FAIL ' + note}")
        passed += ok
        failed += not ok
    for name in order:
        if name not in wanted:
            print(f"{name}: FAIL not expected in this trace")
            failed += 1
    if [n for n in order if n in wanted] != [n for n in wanted if n in got]:
        print("(order): FAIL tensors are not in forward-pass order")
        failed += 1
    print(f"worst error / allowed: {worst:.3g}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
