#!/usr/bin/python3
"""Writes a randomly initialised GPT-2-style model folder: config.json + model.safetensors.

The safetensors file is written directly with numpy (8-byte little-endian header length,
JSON header padded to a multiple of 8, then the tensors back to back), so the test does
not depend on the code it tests. Tensor names follow Hugging Face's GPT2LMHeadModel.

    make_model.py OUT_DIR [--layers 2 --heads 5 --embd 60 --inner 100 --vocab 50257
                           --positions 64 --dtype F32|F16|BF16 --prefix --untied
                           --pos learned|sinusoidal|none --set ttrace_norm=rmsnorm ...]
"""
import argparse
import json
import os
import struct
import sys

import numpy as np


def to_storage(a, dtype):
    """float32 array -> (bytes, safetensors dtype name) in the requested storage type."""
    a = np.ascontiguousarray(a, dtype=np.float32)
    if dtype == "F32":
        return a.astype("<f4").tobytes(), "F32"
    if dtype == "F16":
        return a.astype("<f2").tobytes(), "F16"
    if dtype == "BF16":  # round to nearest even on the top 16 bits
        u = a.view(np.uint32).astype(np.uint64)
        r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")
        return r.tobytes(), "BF16"
    raise ValueError(dtype)


def write_safetensors(path, tensors, dtype, metadata=None):
    """tensors: list of (name, float32 array). Writes them contiguously in that order."""
    header, blobs, offset = {}, [], 0
    for name, arr in tensors:
        data, dt = to_storage(arr, dtype)
        header[name] = {"dtype": dt, "shape": list(arr.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)  # the data starts 8-byte aligned
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


def make(args):
    rng = np.random.default_rng(args.seed)
    L, H, C, V, P = args.layers, args.heads, args.embd, args.vocab, args.positions
    F = args.inner if args.inner else 4 * C
    if C % H:
        sys.exit(f"make_model.py: --embd {C} is not a multiple of --heads {H}")

    def normal(shape, std):
        return rng.normal(0.0, std, size=shape).astype(np.float32)

    w = 1.0 / np.sqrt(C)  # keeps scores and activations of order one
    tensors = [("wte.weight", normal((V, C), 1.0))]
    if args.pos == "learned":
        tensors.append(("wpe.weight", normal((P, C), 0.5)))
    for l in range(L):
        p = f"h.{l}."
        tensors += [
            (p + "ln_1.weight", 1.0 + normal((C,), 0.1)),
            (p + "ln_1.bias", normal((C,), 0.1)),
            (p + "attn.c_attn.weight", normal((C, 3 * C), 1.5 * w)),
            (p + "attn.c_attn.bias", normal((3 * C,), 0.1)),
            (p + "attn.c_proj.weight", normal((C, C), w)),
            (p + "attn.c_proj.bias", normal((C,), 0.1)),
            (p + "ln_2.weight", 1.0 + normal((C,), 0.1)),
            (p + "ln_2.bias", normal((C,), 0.1)),
            (p + "mlp.c_fc.weight", normal((C, F), w)),
            (p + "mlp.c_fc.bias", normal((F,), 0.1)),
            (p + "mlp.c_proj.weight", normal((F, C), 1.0 / np.sqrt(F))),
            (p + "mlp.c_proj.bias", normal((C,), 0.1)),
        ]
    tensors += [("ln_f.weight", 1.0 + normal((C,), 0.1)), ("ln_f.bias", normal((C,), 0.1))]
    if args.prefix:
        tensors = [("transformer." + n, a) for n, a in tensors]
    if args.untied:
        tensors.append(("lm_head.weight", normal((V, C), 1.0)))
    order = rng.permutation(len(tensors)) if args.shuffle else range(len(tensors))
    tensors = [tensors[i] for i in order]

    config = {
        "model_type": "gpt2",
        "architectures": ["GPT2LMHeadModel"],
        "n_layer": L, "n_head": H, "n_embd": C, "n_positions": P, "n_ctx": P, "vocab_size": V,
        "n_inner": args.inner if args.inner else None,
        "layer_norm_epsilon": args.eps,
        "activation_function": args.activation,
        "tie_word_embeddings": not args.untied,
    }
    if args.pos != "learned":
        config["ttrace_positions"] = args.pos
    if args.ctx_only:  # an older config: the context is n_ctx, there is no n_positions
        del config["n_positions"]
    for kv in args.set:
        key, _, value = kv.partition("=")
        config[key] = {"true": True, "false": False}.get(value, value)

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors, args.dtype, {"format": "pt"})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--embd", type=int, default=64)
    ap.add_argument("--inner", type=int, default=0, help="FFN width (default 4 * embd, written as null)")
    ap.add_argument("--vocab", type=int, default=50257)
    ap.add_argument("--positions", type=int, default=64)
    ap.add_argument("--eps", type=float, default=1e-5)
    ap.add_argument("--activation", default="gelu_new")
    ap.add_argument("--dtype", choices=["F32", "F16", "BF16"], default="F32")
    ap.add_argument("--prefix", action="store_true", help='names start with "transformer."')
    ap.add_argument("--untied", action="store_true", help="write a separate lm_head.weight")
    ap.add_argument("--pos", choices=["learned", "sinusoidal", "none"], default="learned")
    ap.add_argument("--shuffle", action="store_true", help="store the tensors in a random order")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="extra config.json key")
    ap.add_argument("--ctx-only", action="store_true", help="write n_ctx and no n_positions")
    ap.add_argument("--seed", type=int, default=1)
    make(ap.parse_args())


if __name__ == "__main__":
    main()
