#!/usr/bin/python3
"""The fair torch baseline: a GPT-2 forward pass that keeps every activation the way
TransformerLens' run_with_cache does, timed like bench_forward times ttrace.

    torch_cache.py MODEL_DIR T1,T2,... [--threads 1,2]

Same random GPT-2-small model folder and the same token ids ((7919*t + 464) mod V) as
bench/bench_forward. Set up the way torch runs fastest: float32, weights transposed once at
load into the (out, in) layout F.linear wants (contiguous), the fused Q/K/V product,
torch.inference_mode(), torch.set_num_threads(n), one warm-up run, then the median of
20 / 10 / 5 / 3 runs (T <= 4 / 64 / 256 / larger). Every run fills a fresh dict with the
hooks run_with_cache holds for GPT-2 (embed, pos_embed; per block resid_pre, ln1 scale and
normalized, q, k, v, attn_scores (scaled, masked), pattern, z, attn_out, resid_mid, ln2
scale and normalized, mlp pre and post, mlp_out, resid_post; ln_final scale and
normalized) and the outputs ttrace also computes: logits, probabilities and the
per-token loss. q, k and v are views of the fused product (no copy: in torch's favour).

Prints "torch T <T> threads <n> median_ms <ms> min_ms <ms> cache_mib <MiB>" per T and
thread count.
"""
import math
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import py_forward  # noqa: E402


def load(model_dir):
    cfg, arrays = py_forward.load(model_dir)  # the safetensors reader the numpy benchmark uses
    w = {k: torch.from_numpy(a.copy()) for k, a in arrays.items()}
    # Conv1D weights are (in, out); F.linear wants (out, in): transpose once, contiguous.
    for k in list(w):
        if k.endswith(("c_attn.weight", "c_proj.weight", "c_fc.weight")):
            w[k] = w[k].t().contiguous()
    return cfg, w


def layer_norm(x, g, b, cache, name):
    mean = x.mean(-1, keepdim=True)
    cent = x - mean
    scale = (cent.pow(2).mean(-1, keepdim=True) + 1e-5).sqrt()
    cache[name + ".hook_scale"] = scale
    normalized = cent / scale
    cache[name + ".hook_normalized"] = normalized
    return normalized * g + b


def forward(cfg, w, ids, mask):
    T, C, H = len(ids), cfg["n_embd"], cfg["n_head"]
    D = C // H
    cache = {}
    emb = F.embedding(ids, w["wte.weight"])
    pos = w["wpe.weight"][:T]
    cache["hook_embed"], cache["hook_pos_embed"] = emb, pos
    x = emb + pos
    for l in range(cfg["n_layer"]):
        p, c = f"h.{l}.", f"blocks.{l}."
        cache[c + "hook_resid_pre"] = x
        h = layer_norm(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"], cache, c + "ln1")
        qkv = F.linear(h, w[p + "attn.c_attn.weight"], w[p + "attn.c_attn.bias"])  # (T,3C)
        q, k, v = (qkv[:, i * C : (i + 1) * C].view(T, H, D) for i in range(3))
        cache[c + "attn.hook_q"], cache[c + "attn.hook_k"], cache[c + "attn.hook_v"] = q, k, v
        s = torch.matmul(q.transpose(0, 1), k.permute(1, 2, 0)) / math.sqrt(D)  # (H,T,T)
        s = s.masked_fill(mask[:T, :T], float("-inf"))
        cache[c + "attn.hook_attn_scores"] = s
        pattern = torch.softmax(s, -1)
        cache[c + "attn.hook_pattern"] = pattern
        z = torch.matmul(pattern, v.transpose(0, 1)).transpose(0, 1)  # (T,H,D)
        cache[c + "attn.hook_z"] = z
        attn_out = F.linear(z.reshape(T, C), w[p + "attn.c_proj.weight"], w[p + "attn.c_proj.bias"])
        cache[c + "hook_attn_out"] = attn_out
        x = x + attn_out
        cache[c + "hook_resid_mid"] = x
        h = layer_norm(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"], cache, c + "ln2")
        pre = F.linear(h, w[p + "mlp.c_fc.weight"], w[p + "mlp.c_fc.bias"])
        cache[c + "mlp.hook_pre"] = pre
        post = F.gelu(pre, approximate="tanh")
        cache[c + "mlp.hook_post"] = post
        mlp_out = F.linear(post, w[p + "mlp.c_proj.weight"], w[p + "mlp.c_proj.bias"])
        cache[c + "hook_mlp_out"] = mlp_out
        x = x + mlp_out
        cache[c + "hook_resid_post"] = x
    h = layer_norm(x, w["ln_f.weight"], w["ln_f.bias"], cache, "ln_final")
    logits = F.linear(h, w["lm_head.weight"])  # (T,V)
    cache["logits"] = logits
    cache["probs"] = torch.softmax(logits, -1)
    if T > 1:
        cache["loss"] = F.cross_entropy(logits[:-1], ids[1:], reduction="none")
    return cache


def cache_bytes(cache):
    """Bytes of the distinct storages the cache keeps (views share their base's)."""
    storages = {t.storage().data_ptr(): t.storage().nbytes() for t in cache.values()}
    return sum(storages.values())


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    model_dir, Ts = args[0], [int(t) for t in args[1].split(",")]
    threads = [1, 2]
    if "--threads" in args:
        threads = [int(n) for n in args[args.index("--threads") + 1].split(",")]
    cfg, w = load(model_dir)
    V, P = cfg["vocab_size"], cfg["n_positions"]
    mask = torch.triu(torch.ones(P, P, dtype=torch.bool), 1)
    for n in threads:
        torch.set_num_threads(n)
        for T in Ts:
            reps = 20 if T <= 4 else 10 if T <= 64 else 5 if T <= 256 else 3
            ids = torch.tensor([(t * 7919 + 464) % V for t in range(T)])
            with torch.inference_mode():
                cache = forward(cfg, w, ids, mask)  # warm-up
                mib = cache_bytes(cache) / 2**20
                del cache
                ts = []
                for _ in range(reps):
                    t0 = time.perf_counter()
                    cache = forward(cfg, w, ids, mask)
                    ts.append(time.perf_counter() - t0)
                    del cache  # a fresh cache each run, as each ttrace run makes a fresh trace
            print(f"torch T {T} threads {n} median_ms {statistics.median(ts) * 1e3:.3f} "
                  f"min_ms {min(ts) * 1e3:.3f} cache_mib {mib:.1f}", flush=True)


if __name__ == "__main__":
    main()
