#!/usr/bin/python3
"""The second classroom model (assets/models/tiny-llama, LlamaForCausalLM), checked through ttrace.

    test_model_llama.py TTRACE SOURCE_ROOT

- the folder: config.json (Llama fields: RMSNorm, RoPE, SwiGLU, 4 query heads sharing 2 K/V
  heads, tied unembedding, GPT-2's 50257 ids), model.safetensors (F16, save_pretrained's
  names and nn.Linear shapes, at most 16 MiB), tokenizer.json and tokenizer_config.json and
  no vocab.json / merges.txt, so the ids come from tokenizer.json;
- the trace says it used tokenizer.json and no BOS;
- for every prompt in expected.json (tools/probe.py, its own forward pass): ids, top-5 and
  probabilities; "The weather is nice" has the ids it has in the first model;
- the heads the card names, in ttrace's hook_pattern;
- tests/reference/llama_ref.py (an independent numpy Llama) agrees with the whole trace.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "model_default"))
from model_checks import (Checks, check_expected, check_heads, check_reference, probe_files,  # noqa: E402
                          read_safetensors, run_checks, trace)

TTRACE, ROOT = sys.argv[1], sys.argv[2]
MODEL = os.path.join(ROOT, "assets", "models", "tiny-llama")
check = Checks()


def check_files():
    with open(os.path.join(MODEL, "config.json")) as f:
        cfg = json.load(f)
    C, H, G, D, Fi = (cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"],
                      cfg["intermediate_size"])
    check("config: a LlamaForCausalLM with grouped-query attention and GPT-2's vocabulary",
          cfg["model_type"] == "llama" and cfg["architectures"] == ["LlamaForCausalLM"] and cfg["vocab_size"] == 50257
          and cfg["hidden_act"] == "silu" and cfg["tie_word_embeddings"] is True and cfg["rope_scaling"] is None
          and H == 4 and G == 2 and H * D == C and cfg["num_hidden_layers"] >= 2
          and cfg["max_position_embeddings"] >= 64 and not cfg["attention_bias"], json.dumps(cfg))
    st = os.path.join(MODEL, "model.safetensors")
    size = os.path.getsize(st)
    check("model.safetensors is at most 16 MiB", size <= 16 * 2 ** 20, str(size))
    w, meta, header = read_safetensors(st)
    p = "model.layers.0."
    shapes = {"model.embed_tokens.weight": (50257, C), p + "input_layernorm.weight": (C,),
              p + "self_attn.q_proj.weight": (H * D, C), p + "self_attn.k_proj.weight": (G * D, C),
              p + "self_attn.v_proj.weight": (G * D, C), p + "self_attn.o_proj.weight": (C, H * D),
              p + "post_attention_layernorm.weight": (C,), p + "mlp.gate_proj.weight": (Fi, C),
              p + "mlp.up_proj.weight": (Fi, C), p + "mlp.down_proj.weight": (C, Fi), "model.norm.weight": (C,)}
    check("weights: F16, LlamaForCausalLM's names and (out, in) shapes, tied (no lm_head.weight)",
          all(h["dtype"] == "F16" for h in header.values()) and "lm_head.weight" not in w
          and all(k in w and w[k].shape == s for k, s in shapes.items())
          and len(w) == 2 + 9 * cfg["num_hidden_layers"] and meta.get("format") == "pt",
          str(sorted((k, v.shape) for k, v in w.items())[:12]))
    have = set(os.listdir(MODEL))
    check("the tokenizer is tokenizer.json (+ tokenizer_config.json), without vocab.json / merges.txt",
          {"tokenizer.json", "tokenizer_config.json"} <= have and not {"vocab.json", "merges.txt"} & have, str(have))
    with open(os.path.join(MODEL, "tokenizer_config.json")) as f:
        check("tokenizer_config.json: no BOS is added", json.load(f).get("add_bos_token") is False)


def main():
    check_files()
    expected, heads = probe_files(MODEL)

    def body(tmp):
        traces = check_expected(check, TTRACE, tmp, MODEL, expected)
        # tiny-llama's card says that no head passes probe.py's thresholds (no induction head yet).
        check_heads(check, traces, heads, at_least_one=False)
        _, meta, _ = trace(TTRACE, tmp, "The weather is nice", MODEL, tag="meta")
        check("the trace used tokenizer.json and no BOS", meta.get("tokenizer") == "tokenizer.json"
              and meta.get("bos") == "false", str({k: meta.get(k) for k in ("tokenizer", "bos")}))
        check("'The weather is nice' has the first model's ids", traces["The weather is nice"]["tokens"].tolist()
              == [464, 6193, 318, 3621])
        check_reference(check, TTRACE, tmp, MODEL, ROOT, "llama_ref.py")

    run_checks("ttrace-llama-", body)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
