#!/usr/bin/python3
"""Writes a random Hugging Face LlamaForCausalLM folder as save_pretrained lays it out:
config.json and model.safetensors (or, with --shards N, model-0000i-of-0000N.safetensors
and model.safetensors.index.json). Written with numpy here, not with ttrace's code.

    make_llama.py OUT_DIR [--layers 2 --heads 4 --kv-heads 2 --embd 32 --head-dim 0
                           --inner 48 --vocab 50257 --dtype F32|F16|BF16 --tied
                           --attention-bias --mlp-bias --shards N --set key=value ...]
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
from make_model import write_safetensors  # noqa: E402


def tensors_of(args, rng):
    L, H, G, C, F, V = args.layers, args.heads, args.kv_heads or args.heads, args.embd, args.inner, args.vocab
    D = args.head_dim or C // H

    def normal(shape, std):
        return rng.normal(0.0, std, size=shape).astype(np.float32)

    t = [("model.embed_tokens.weight", normal((V, C), 1.0))]
    for l in range(L):
        p = f"model.layers.{l}."
        t += [(p + "input_layernorm.weight", 1.0 + normal((C,), 0.1)),
              (p + "self_attn.q_proj.weight", normal((H * D, C), 1.5 / np.sqrt(C))),
              (p + "self_attn.k_proj.weight", normal((G * D, C), 1.5 / np.sqrt(C))),
              (p + "self_attn.v_proj.weight", normal((G * D, C), 1.0 / np.sqrt(C))),
              (p + "self_attn.o_proj.weight", normal((C, H * D), 1.0 / np.sqrt(H * D)))]
        if args.attention_bias:
            t += [(p + "self_attn.q_proj.bias", normal((H * D,), 0.1)), (p + "self_attn.k_proj.bias", normal((G * D,), 0.1)),
                  (p + "self_attn.v_proj.bias", normal((G * D,), 0.1)), (p + "self_attn.o_proj.bias", normal((C,), 0.1))]
        t += [(p + "post_attention_layernorm.weight", 1.0 + normal((C,), 0.1)),
              (p + "mlp.gate_proj.weight", normal((F, C), 1.0 / np.sqrt(C))),
              (p + "mlp.up_proj.weight", normal((F, C), 1.0 / np.sqrt(C))),
              (p + "mlp.down_proj.weight", normal((C, F), 1.0 / np.sqrt(F)))]
        if args.mlp_bias:
            t += [(p + "mlp.gate_proj.bias", normal((F,), 0.1)), (p + "mlp.up_proj.bias", normal((F,), 0.1)),
                  (p + "mlp.down_proj.bias", normal((C,), 0.1))]
    t.append(("model.norm.weight", 1.0 + normal((C,), 0.1)))
    if not args.tied:
        t.append(("lm_head.weight", normal((V, C), 1.0)))
    return t


def config_of(args):
    c = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": args.embd,
         "intermediate_size": args.inner, "num_attention_heads": args.heads,
         "num_key_value_heads": args.kv_heads or args.heads, "num_hidden_layers": args.layers,
         "max_position_embeddings": args.positions, "vocab_size": args.vocab, "rms_norm_eps": args.eps,
         "rope_theta": args.theta, "rope_scaling": None, "hidden_act": "silu", "attention_bias": args.attention_bias,
         "attention_dropout": 0.0, "mlp_bias": args.mlp_bias, "tie_word_embeddings": args.tied,
         "pretraining_tp": 1, "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "float32", "use_cache": True}
    if args.head_dim:
        c["head_dim"] = args.head_dim
    for kv in args.set:
        key, _, value = kv.partition("=")
        c[key] = json.loads(value) if value[:1] in "[{0123456789-tfn\"" else value
    return c


def write_shards(out, tensors, dtype, n):
    parts = np.array_split(np.arange(len(tensors)), n)
    weight_map = {}
    for i, idx in enumerate(parts):
        name = f"model-{i + 1:05d}-of-{n:05d}.safetensors"
        write_safetensors(os.path.join(out, name), [tensors[j] for j in idx], dtype, {"format": "pt"})
        weight_map.update({tensors[j][0]: name for j in idx})
    with open(os.path.join(out, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f, indent=2)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--kv-heads", type=int, default=0)
    ap.add_argument("--embd", type=int, default=32)
    ap.add_argument("--head-dim", type=int, default=0)
    ap.add_argument("--inner", type=int, default=48)
    ap.add_argument("--vocab", type=int, default=50257)
    ap.add_argument("--positions", type=int, default=128)
    ap.add_argument("--eps", type=float, default=1e-5)
    ap.add_argument("--theta", type=float, default=10000.0)
    ap.add_argument("--dtype", choices=["F32", "F16", "BF16"], default="F32")
    ap.add_argument("--tied", action="store_true")
    ap.add_argument("--attention-bias", action="store_true")
    ap.add_argument("--mlp-bias", action="store_true")
    ap.add_argument("--shards", type=int, default=0)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=JSON")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    os.makedirs(args.out, exist_ok=True)
    tensors = tensors_of(args, rng)
    if args.shards:
        write_shards(args.out, tensors, args.dtype, args.shards)
    else:
        write_safetensors(os.path.join(args.out, "model.safetensors"), tensors, args.dtype, {"format": "pt"})
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(config_of(args), f, indent=2)


if __name__ == "__main__":
    main()
