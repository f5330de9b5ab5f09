#!/usr/bin/python3
"""The fair torch baseline for the Llama block: a LlamaForCausalLM forward pass written
from the mathematics in torch that keeps every activation the way TransformerLens'
run_with_cache does, timed like bench_forward times ttrace.

    torch_llama_cache.py MODEL_DIR T1,T2,... [--threads 1,2]

The model folder is tests/llama/make_llama.py's (Hugging Face's layout, F32); the token
ids are bench_forward's ((7919*t + 464) mod V). Set up the way torch runs fastest: float32,
the q/k/v/o, gate/up/down and lm_head weights already in the (out, in) layout F.linear
wants (nn.Linear's), made contiguous once at load; the RoPE cos/sin table computed once;
grouped-query attention as one batched product per key/value head group (query heads
gR..gR+R-1 against key head g, no repeat_kv copy: in torch's favour);
torch.inference_mode(), torch.set_num_threads(n), one warm-up run, then the median of
20 / 10 / 5 / 3 runs (T <= 4 / 64 / 256 / larger). Every run fills a fresh dict with the
hooks run_with_cache holds for a Llama block (embed; per block resid_pre, ln1 scale,
normalized and out, q, k, v, rot_q, rot_k, attn_scores (scaled, masked), pattern, z,
attn_out, resid_mid, ln2 scale, normalized and out, mlp pre (gate), pre_linear (up),
post, mlp_out, resid_post; ln_final scale and normalized) and the outputs ttrace also
computes: logits, probabilities and the per-token loss.

Prints "torch T <T> threads <n> median_ms <ms> min_ms <ms> cache_mib <MiB>" per T and
thread count, as bench/torch_cache.py does for GPT-2.
"""
import json
import os
import statistics
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests", "reference"))
import llama_ref  # noqa: E402  (the safetensors reader of the numpy Llama reference)
from torch_cache import cache_bytes  # noqa: E402


def load(model_dir):
    with open(os.path.join(model_dir, "config.json")) as f:
        cfg = json.load(f)
    w = {k: torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32)) for k, a in
         llama_ref.load_weights(model_dir).items()}
    if cfg.get("tie_word_embeddings", False) or "lm_head.weight" not in w:
        w["lm_head.weight"] = w["model.embed_tokens.weight"]
    return cfg, w


def rope_table(P, D, theta):
    """(P, D) cos and sin of p * theta^(-2i/D), each half repeated (the rotate-half layout)."""
    inv_freq = 1.0 / theta ** (torch.arange(0, D, 2, dtype=torch.float64) / D)
    freqs = torch.arange(P, dtype=torch.float64)[:, None] * inv_freq[None, :]
    emb = torch.cat([freqs, freqs], -1)
    return emb.cos().float(), emb.sin().float()


def rms_norm(x, g, eps, cache, name):
    scale = (x.pow(2).mean(-1, keepdim=True) + eps).sqrt()
    cache[name + ".hook_scale"] = scale
    normalized = x / scale
    cache[name + ".hook_normalized"] = normalized
    out = normalized * g
    cache[name + ".hook_out"] = out
    return out


def rotate(x, cos, sin):
    """x (heads, T, D) -> x * cos + rotate_half(x) * sin."""
    half = x.shape[-1] // 2
    return x * cos + torch.cat([-x[..., half:], x[..., :half]], -1) * sin


def attention(cfg, w, h, l, cache, tables):
    T, H, C = h.shape[0], cfg["num_attention_heads"], cfg["hidden_size"]
    G = cfg.get("num_key_value_heads") or H
    D, R = cfg.get("head_dim") or C // H, H // G
    p, c = f"model.layers.{l}.self_attn.", f"blocks.{l}.attn."
    q = F.linear(h, w[p + "q_proj.weight"]).view(T, H, D).transpose(0, 1)  # (H,T,D)
    k = F.linear(h, w[p + "k_proj.weight"]).view(T, G, D).transpose(0, 1)  # (G,T,D)
    v = F.linear(h, w[p + "v_proj.weight"]).view(T, G, D).transpose(0, 1)
    cache[c + "hook_q"], cache[c + "hook_k"], cache[c + "hook_v"] = q, k, v
    cos, sin, mask = tables[0][:T], tables[1][:T], tables[2][:T, :T]
    rq, rk = rotate(q, cos, sin), rotate(k, cos, sin)
    cache[c + "hook_rot_q"], cache[c + "hook_rot_k"] = rq, rk
    s = torch.matmul(rq.reshape(G, R * T, D), rk.transpose(1, 2)).view(H, T, T) * D**-0.5
    s = s.masked_fill(mask, float("-inf"))
    cache[c + "hook_attn_scores"] = s
    pattern = torch.softmax(s, -1)
    cache[c + "hook_pattern"] = pattern
    z = torch.matmul(pattern.view(G, R * T, T), v).view(H, T, D)
    cache[c + "hook_z"] = z
    out = F.linear(z.transpose(0, 1).reshape(T, H * D), w[p + "o_proj.weight"])
    cache[f"blocks.{l}.hook_attn_out"] = out
    return out


def mlp(w, h, l, cache):
    p, c = f"model.layers.{l}.mlp.", f"blocks.{l}."
    gate = F.linear(h, w[p + "gate_proj.weight"])
    up = F.linear(h, w[p + "up_proj.weight"])
    post = F.silu(gate) * up
    cache[c + "mlp.hook_pre"], cache[c + "mlp.hook_pre_linear"], cache[c + "mlp.hook_post"] = gate, up, post
    out = F.linear(post, w[p + "down_proj.weight"])
    cache[c + "hook_mlp_out"] = out
    return out


def forward(cfg, w, ids, tables):
    eps, cache = float(cfg.get("rms_norm_eps", 1e-6)), {}
    x = F.embedding(ids, w["model.embed_tokens.weight"])
    cache["hook_embed"] = x
    for l in range(cfg["num_hidden_layers"]):
        n, c = f"model.layers.{l}.", f"blocks.{l}."
        cache[c + "hook_resid_pre"] = x
        h = rms_norm(x, w[n + "input_layernorm.weight"], eps, cache, c + "ln1")
        x = x + attention(cfg, w, h, l, cache, tables)
        cache[c + "hook_resid_mid"] = x
        h = rms_norm(x, w[n + "post_attention_layernorm.weight"], eps, cache, c + "ln2")
        x = x + mlp(w, h, l, cache)
        cache[c + "hook_resid_post"] = x
    h = rms_norm(x, w["model.norm.weight"], eps, cache, "ln_final")
    logits = F.linear(h, w["lm_head.weight"])  # (T,V)
    cache["logits"] = logits
    cache["probs"] = torch.softmax(logits, -1)
    if len(ids) > 1:
        cache["loss"] = F.cross_entropy(logits[:-1], ids[1:], reduction="none")
    return cache


def timed_runs(run, reps):
    """Seconds of each of reps runs of run() (whose result is dropped before the next)."""
    seconds = []
    for _ in range(reps):
        t0 = time.perf_counter()
        result = run()
        seconds.append(time.perf_counter() - t0)
        del result  # a fresh cache each run, as each ttrace run makes a fresh trace
    return seconds


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    model_dir, Ts = args[0], [int(t) for t in args[1].split(",")]
    threads = [int(n) for n in args[args.index("--threads") + 1].split(",")] if "--threads" in args else [1, 2]
    cfg, w = load(model_dir)
    C, H, P, V = cfg["hidden_size"], cfg["num_attention_heads"], max(Ts), cfg["vocab_size"]
    cos, sin = rope_table(P, cfg.get("head_dim") or C // H, float(cfg.get("rope_theta", 10000.0)))
    tables = (cos, sin, torch.triu(torch.ones(P, P, dtype=torch.bool), 1))
    for n in threads:
        torch.set_num_threads(n)
        for T in Ts:
            ids = torch.tensor([(t * 7919 + 464) % V for t in range(T)])
            with torch.inference_mode():
                mib = cache_bytes(forward(cfg, w, ids, tables)) / 2**20  # the warm-up run
                ts = timed_runs(lambda: forward(cfg, w, ids, tables), 20 if T <= 4 else 10 if T <= 64 else 5 if T <= 256 else 3)
            print(f"torch T {T} threads {n} median_ms {statistics.median(ts) * 1e3:.3f} "
                  f"min_ms {min(ts) * 1e3:.3f} cache_mib {mib:.1f}", flush=True)


if __name__ == "__main__":
    main()
