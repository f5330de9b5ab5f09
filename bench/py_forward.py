#!/usr/bin/python3
"""The same GPT-2 forward pass in numpy and in torch (float32, logits + softmax + loss),
timed for comparison with ttrace's engine.

    py_forward.py MODEL_DIR T1,T2,... [--reps N] [--f64 T1,...]

Prints "python numpy T <T> median_ms <ms>", the same for torch (when importable), and
for the --f64 lengths the numpy forward in float64 (the precision of tests/reference).
"""
import json
import math
import os
import struct
import sys
import time

import numpy as np


def load(model_dir):
    with open(os.path.join(model_dir, "model.safetensors"), "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + n])
    header.pop("__metadata__", None)
    w = {}
    for name, info in header.items():
        b, e = info["data_offsets"]
        assert info["dtype"] == "F32"
        a = np.frombuffer(blob, dtype="<f4", count=(e - b) // 4, offset=8 + n + b).reshape(info["shape"])
        w[name.replace("transformer.", "")] = a
    w.setdefault("lm_head.weight", w["wte.weight"])
    with open(os.path.join(model_dir, "config.json")) as f:
        cfg = json.load(f)
    return cfg, w


def forward_numpy(cfg, w, ids):
    T, C, H = len(ids), cfg["n_embd"], cfg["n_head"]
    D = C // H
    f = w["wte.weight"].dtype.type

    def ln(x, g, b):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + 1e-5) * g + b

    x = w["wte.weight"][ids] + w["wpe.weight"][:T]
    mask = np.triu(np.ones((T, T), dtype=bool), 1)
    for l in range(cfg["n_layer"]):
        p = f"h.{l}."
        h = ln(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"])
        qkv = h @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]
        q, k, v = (qkv[:, i * C : (i + 1) * C].reshape(T, H, D).transpose(1, 0, 2) for i in range(3))
        s = q @ k.transpose(0, 2, 1) / f(math.sqrt(D))
        s[:, mask] = -np.inf
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        z = (s @ v).transpose(1, 0, 2).reshape(T, C)
        x = x + z @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        h = ln(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"])
        a = h @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]
        a = 0.5 * a * (1 + np.tanh(f(math.sqrt(2 / math.pi)) * (a + f(0.044715) * a**3)))
        x = x + a @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    h = ln(x, w["ln_f.weight"], w["ln_f.bias"])
    logits = h @ w["lm_head.weight"].T
    m = logits.max(-1, keepdims=True)
    e = np.exp(logits - m)
    se = e.sum(-1, keepdims=True)
    probs = e / se
    loss = (np.log(se[:-1, 0]) + m[:-1, 0]) - logits[np.arange(T - 1), ids[1:]]
    return probs, loss


def forward_torch(torch, cfg, w, ids):
    T, C, H = len(ids), cfg["n_embd"], cfg["n_head"]
    F = torch.nn.functional
    with torch.no_grad():
        x = w["wte.weight"][ids] + w["wpe.weight"][:T]
        for l in range(cfg["n_layer"]):
            p = f"h.{l}."
            h = F.layer_norm(x, (C,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], 1e-5)
            qkv = torch.addmm(w[p + "attn.c_attn.bias"], h, w[p + "attn.c_attn.weight"])
            q, k, v = (qkv[:, i * C : (i + 1) * C].reshape(T, H, C // H).transpose(0, 1) for i in range(3))
            s = q @ k.transpose(1, 2) / math.sqrt(C // H)
            s = s.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf"))
            z = (torch.softmax(s, -1) @ v).transpose(0, 1).reshape(T, C)
            x = x + torch.addmm(w[p + "attn.c_proj.bias"], z, w[p + "attn.c_proj.weight"])
            h = F.layer_norm(x, (C,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], 1e-5)
            a = F.gelu(torch.addmm(w[p + "mlp.c_fc.bias"], h, w[p + "mlp.c_fc.weight"]), approximate="tanh")
            x = x + torch.addmm(w[p + "mlp.c_proj.bias"], a, w[p + "mlp.c_proj.weight"])
        h = F.layer_norm(x, (C,), w["ln_f.weight"], w["ln_f.bias"], 1e-5)
        logits = h @ w["lm_head.weight"].T
        probs = torch.softmax(logits, -1)
        loss = F.cross_entropy(logits[:-1], ids[1:], reduction="none")
    return probs, loss


def timed(fn, reps):
    fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    return ts[len(ts) // 2] * 1e3


def main():
    model_dir, Ts = sys.argv[1], [int(t) for t in sys.argv[2].split(",")]
    opts = dict(zip(sys.argv[3::2], sys.argv[4::2]))
    reps = int(opts.get("--reps", 3))
    f64 = [int(t) for t in opts["--f64"].split(",")] if "--f64" in opts else []
    cfg, w = load(model_dir)
    V = cfg["vocab_size"]
    for T in Ts:
        ids = np.array([(t * 7919 + 464) % V for t in range(T)])
        ms = timed(lambda: forward_numpy(cfg, w, ids), reps)
        print(f"python numpy T {T} median_ms {ms:.3f}", flush=True)
    if f64:
        w64 = {k: a.astype(np.float64) for k, a in w.items()}
        for T in f64:
            ids = np.array([(t * 7919 + 464) % V for t in range(T)])
            ms = timed(lambda: forward_numpy(cfg, w64, ids), reps)
            print(f"python numpy64 T {T} median_ms {ms:.3f}", flush=True)
        del w64
    try:
        import torch
    except ImportError:
        return
    torch.set_num_threads(os.cpu_count() or 1)
    tw = {k: torch.from_numpy(np.array(a)) for k, a in w.items()}
    for T in Ts:
        ids = torch.tensor([(t * 7919 + 464) % V for t in range(T)])
        ms = timed(lambda: forward_torch(torch, cfg, tw, ids), reps)
        print(f"python torch T {T} median_ms {ms:.3f}", flush=True)


if __name__ == "__main__":
    main()
