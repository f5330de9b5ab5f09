#!/usr/bin/python3
"""Trains ttrace's second classroom model (tiny-llama) on the CPU and exports it.

  /usr/bin/python3 tools/corpus.py                 # writes out/corpus/
  /usr/bin/python3 tools/train_llama.py            # trains, writes assets/models/tiny-llama/

The model is Hugging Face's LlamaForCausalLM: pre-norm blocks with RMSNorm (weight, no bias,
no mean), rotary positions (RoPE, HF's rotate-half convention) on q and k, grouped-query
attention (4 query heads share 2 key/value heads), a SwiGLU FFN (down(silu(gate x) * up x)),
no biases, tied unembedding, GPT-2's 50257-token vocabulary.

Corpus, tokenization, batches, the exact full-vocabulary loss (the used ids' own rows and one
shared row u for all unused ids), the AdamW schedule, the F16 rounding and the loss-curve
drawing are train.py's, imported. After export the script reloads model.safetensors and
checks, with a plain full-vocabulary forward pass written separately below, that the
held-out loss is the same. tokenizer.json is written by tools/hf_tokenizer.py.
"""

import argparse
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import train as gpt  # noqa: E402

ROOT = os.path.dirname(HERE)
NAME = "tiny-llama"
V = gpt.V


def rms_norm(x, w, eps):
    """x (..., C) / sqrt(mean(x^2) + eps) * w."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rope_tables(T, D, theta):
    """cos, sin (T, D) as HF's LlamaRotaryEmbedding builds them (frequencies repeated twice)."""
    inv = 1.0 / (theta ** (torch.arange(0, D, 2, dtype=torch.float32) / D))   # (D/2)
    ang = torch.arange(T, dtype=torch.float32)[:, None] * inv[None, :]         # (T, D/2)
    ang = torch.cat([ang, ang], dim=-1)                                        # (T, D)
    return ang.cos(), ang.sin()


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([-x2, x1], dim=-1)


class TinyLlama(torch.nn.Module):
    """Llama blocks with nn.Linear's (out, in) weights, as LlamaForCausalLM stores them."""

    def __init__(self, n_used, a):
        super().__init__()
        self.n_layer, self.n_head, self.n_kv, self.C, self.D = a.layers, a.heads, a.kv_heads, a.embd, a.head_dim
        self.F, self.theta, self.eps = a.intermediate, a.rope_theta, a.rms_eps
        C, D, L = a.embd, a.head_dim, a.layers
        g = torch.Generator().manual_seed(0)

        def normal(*shape, std=0.02):
            return torch.nn.Parameter(torch.randn(*shape, generator=g) * std)

        self.emb = normal(n_used, C, std=a.emb_std)    # (U, C) rows of the used ids
        self.u = torch.nn.Parameter(torch.zeros(C))    # (C) the one row shared by all unused ids
        out_std = 0.02 / math.sqrt(2 * L)
        self.p = torch.nn.ParameterDict()
        for l in range(L):
            self.p["%d_in_norm" % l] = torch.nn.Parameter(torch.ones(C))
            self.p["%d_q" % l] = normal(a.heads * D, C)          # (H*D, C)
            self.p["%d_k" % l] = normal(a.kv_heads * D, C)       # (Hkv*D, C)
            self.p["%d_v" % l] = normal(a.kv_heads * D, C)       # (Hkv*D, C)
            self.p["%d_o" % l] = normal(C, a.heads * D, std=out_std)
            self.p["%d_post_norm" % l] = torch.nn.Parameter(torch.ones(C))
            self.p["%d_gate" % l] = normal(a.intermediate, C)    # (F, C)
            self.p["%d_up" % l] = normal(a.intermediate, C)      # (F, C)
            self.p["%d_down" % l] = normal(C, a.intermediate, std=out_std)
        self.norm = torch.nn.Parameter(torch.ones(C))

    def w(self, l, name):
        return self.p["%d_%s" % (l, name)]

    def attention(self, l, a, cos, sin, mask):
        """a (B, T, C) normalized input -> attention output (B, T, C)."""
        B, T, _ = a.shape
        H, Hkv, D = self.n_head, self.n_kv, self.D
        q = (a @ self.w(l, "q").t()).view(B, T, H, D).transpose(1, 2)          # (B, H, T, D)
        k = (a @ self.w(l, "k").t()).view(B, T, Hkv, D).transpose(1, 2)        # (B, Hkv, T, D)
        v = (a @ self.w(l, "v").t()).view(B, T, Hkv, D).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(H // Hkv, dim=1)                               # (B, H, T, D)
        v = v.repeat_interleave(H // Hkv, dim=1)
        s = (q @ k.transpose(-1, -2)) / math.sqrt(D)                           # (B, H, T, T)
        z = torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1) @ v      # (B, H, T, D)
        return z.transpose(1, 2).reshape(B, T, H * D) @ self.w(l, "o").t()

    def hidden(self, x):
        """x (B, T) local ids -> final normalized hidden states (B, T, C)."""
        T = x.shape[1]
        cos, sin = rope_tables(T, self.D, self.theta)
        mask = torch.ones(T, T, dtype=torch.bool).triu(1)                     # (T, T) above the diagonal
        h = self.emb[x]                                                        # (B, T, C)
        for l in range(self.n_layer):
            h = h + self.attention(l, rms_norm(h, self.w(l, "in_norm"), self.eps), cos, sin, mask)
            m = rms_norm(h, self.w(l, "post_norm"), self.eps)
            m = F.silu(m @ self.w(l, "gate").t()) * (m @ self.w(l, "up").t())  # (B, T, F)
            h = h + m @ self.w(l, "down").t()
        return rms_norm(h, self.norm, self.eps)

    def loss(self, x, y, n_unused):
        """Summed full-vocabulary cross-entropy over targets y >= 0 and their count (exact)."""
        return gpt.full_vocab_nll(self.hidden(x), self.emb, self.u, y, n_unused)


def export_tensors(model, used_ids):
    """LlamaForCausalLM's names (tied: no lm_head.weight) -> float32 numpy arrays."""
    t = {"model.embed_tokens.weight": gpt.full_wte(model, used_ids)}
    names = {"in_norm": "input_layernorm.weight", "q": "self_attn.q_proj.weight", "k": "self_attn.k_proj.weight",
             "v": "self_attn.v_proj.weight", "o": "self_attn.o_proj.weight",
             "post_norm": "post_attention_layernorm.weight", "gate": "mlp.gate_proj.weight",
             "up": "mlp.up_proj.weight", "down": "mlp.down_proj.weight"}
    for l in range(model.n_layer):
        for k, hf in names.items():
            t["model.layers.%d.%s" % (l, hf)] = model.w(l, k).detach().numpy()
    t["model.norm.weight"] = model.norm.detach().numpy()
    return t


def llama_config(a):
    return {
        "model_type": "llama",
        "architectures": ["LlamaForCausalLM"],
        "num_hidden_layers": a.layers, "num_attention_heads": a.heads, "num_key_value_heads": a.kv_heads,
        "hidden_size": a.embd, "head_dim": a.head_dim, "intermediate_size": a.intermediate,
        "max_position_embeddings": a.positions, "vocab_size": V,
        "rms_norm_eps": a.rms_eps, "rope_theta": a.rope_theta, "rope_scaling": None,
        "hidden_act": "silu", "attention_bias": False, "mlp_bias": False, "tie_word_embeddings": True,
        "bos_token_id": 50256, "eos_token_id": 50256, "torch_dtype": "float16",
    }


def plain_forward(W, cfg, ids, wte32):
    """ids (T) -> logits (T, V) in float32 and the attention patterns [layer] (H, T, T).

    W: the exported tensors as float64 torch tensors. Written apart from TinyLlama: each head
    looks up its K/V head (h // group), and RoPE turns dimension pair (i, i + D/2) by the
    angle pos * theta^(-2i/D) with an explicit 2x2 rotation."""
    H, Hkv, D = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    eps, theta, group = cfg["rms_norm_eps"], cfg["rope_theta"], H // Hkv
    T = len(ids)

    def norm(x, w):
        return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * w

    ang = torch.arange(T, dtype=torch.float64)[:, None] * theta ** (-2.0 * torch.arange(D // 2) / D)
    c, s = torch.cos(ang), torch.sin(ang)                                      # (T, D/2)

    def rotate(x):  # x (n, T, D)
        a, b = x[..., :D // 2], x[..., D // 2:]
        return torch.cat([a * c - b * s, a * s + b * c], dim=-1)

    h = W["model.embed_tokens.weight"][torch.as_tensor(ids)]                   # (T, C)
    causal = torch.full((T, T), float("-inf"), dtype=torch.float64).triu(1)
    pats = []
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        a = norm(h, W[p + "input_layernorm.weight"])
        q = rotate((a @ W[p + "self_attn.q_proj.weight"].t()).view(T, H, D).transpose(0, 1))
        k = rotate((a @ W[p + "self_attn.k_proj.weight"].t()).view(T, Hkv, D).transpose(0, 1))
        v = (a @ W[p + "self_attn.v_proj.weight"].t()).view(T, Hkv, D).transpose(0, 1)
        pat = torch.stack([torch.softmax(q[hh] @ k[hh // group].t() / math.sqrt(D) + causal, -1)
                           for hh in range(H)])                                # (H, T, T)
        pats.append(pat.numpy())
        z = torch.stack([pat[hh] @ v[hh // group] for hh in range(H)])         # (H, T, D)
        h = h + z.transpose(0, 1).reshape(T, H * D) @ W[p + "self_attn.o_proj.weight"].t()
        m = norm(h, W[p + "post_attention_layernorm.weight"])
        g = m @ W[p + "mlp.gate_proj.weight"].t()
        m = g / (1 + torch.exp(-g)) * (m @ W[p + "mlp.up_proj.weight"].t())
        h = h + m @ W[p + "mlp.down_proj.weight"].t()
    return norm(h, W["model.norm.weight"]).float() @ wte32.t(), pats          # (T, V)


def float64_tensors(tensors):
    W = {k: torch.from_numpy(v.astype(np.float64)) for k, v in tensors.items()}
    return W, W["model.embed_tokens.weight"].float()                           # (V, C) the logits in float32


def full_vocab_loss(tensors, cfg, seqs):
    """A plain forward pass over all 50257 logits from the exported tensors; mean NLL."""
    W, wte32 = float64_tensors(tensors)
    tot, n = 0.0, 0
    for seq in seqs:
        logits, _ = plain_forward(W, cfg, seq[:-1], wte32)
        tot += float(F.cross_entropy(logits, torch.as_tensor(seq[1:]), reduction="sum"))
        n += len(seq) - 1
    return tot / n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    gpt.add_training_args(ap, NAME)
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--head-dim", type=int, default=32)
    ap.add_argument("--intermediate", type=int, default=384)
    ap.add_argument("--rope-theta", type=float, default=10000.0)
    ap.add_argument("--rms-eps", type=float, default=1e-5)
    ap.add_argument("--tokenizer", default=os.path.join(ROOT, "assets", "models", "tiny-classroom"),
                    help="folder with GPT-2's vocab.json and merges.txt")
    args = ap.parse_args()

    t_start = time.time()
    d = gpt.prepare(args, args.tokenizer)
    model = TinyLlama(len(d["used_ids"]), args)
    log, train_time = gpt.fit(model, d, args)

    gpt.export_and_check(args, d, model, log, llama_config(args), export_tensors, full_vocab_loss,
                         (t_start, train_time), NAME)


if __name__ == "__main__":
    main()
