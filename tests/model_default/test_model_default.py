#!/usr/bin/python3
"""The embedded default model (assets/models/tiny-classroom), checked through ttrace itself.

    test_model_default.py TTRACE SOURCE_ROOT

- the folder: config.json (GPT-2 fields, sinusoidal positions, sizes the issue asks for),
  model.safetensors (F16, no wpe, at most 16 MiB), GPT-2's vocab.json and merges.txt;
- assets/models/default names it, and `ttrace trace` with no -m uses it;
- for every prompt in expected.json (written by tools/probe.py with its own numpy forward
  pass): ttrace's token ids, its top-5 next tokens and their probabilities are the recorded
  ones; "The weather is nice" continues plausibly;
- tests/reference/gpt2_ref.py (an independent numpy GPT-2) agrees with the whole trace;
- the heads that the model card calls induction and first-token heads (heads.json, from
  probe.py) do so in ttrace's own hook_pattern.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from model_checks import Checks, check_expected, check_heads, check_reference, probe_files, read_safetensors, trace as trace_in

TTRACE, ROOT = sys.argv[1], sys.argv[2]
NAME = "tiny-classroom"
MODEL = os.path.join(ROOT, "assets", "models", NAME)
check = Checks()


def trace(tmp, prompt, model=True, tag="t"):
    return trace_in(TTRACE, tmp, prompt, MODEL if model else None, tag)


def main():
    with open(os.path.join(MODEL, "config.json")) as f:
        cfg = json.load(f)
    C = cfg["n_embd"]
    check("config: GPT-2 fields and the issue's sizes",
          cfg["model_type"] == "gpt2" and cfg["vocab_size"] == 50257 and cfg["n_layer"] >= 2
          and cfg["n_head"] >= 4 and cfg["n_inner"] == 4 * C and cfg["n_positions"] >= 64
          and cfg["activation_function"] == "gelu_new" and cfg["layer_norm_epsilon"] == 1e-5
          and cfg["ttrace_positions"] == "sinusoidal", json.dumps(cfg))
    st = os.path.join(MODEL, "model.safetensors")
    size = os.path.getsize(st)
    check("model.safetensors is at most 16 MiB", size <= 16 * 2 ** 20, str(size))
    w, meta, header = read_safetensors(st)
    check("weights: F16, no wpe, HF GPT-2 names and Conv1D shapes",
          all(h["dtype"] == "F16" for h in header.values()) and "wpe.weight" not in w
          and w["wte.weight"].shape == (50257, C) and w["h.0.attn.c_attn.weight"].shape == (C, 3 * C)
          and w["h.0.mlp.c_fc.weight"].shape == (C, 4 * C) and w["h.0.mlp.c_proj.weight"].shape == (4 * C, C)
          and "ln_f.weight" in w and meta.get("format") == "pt", str(sorted(w)[:6]))
    for fname in ("vocab.json", "merges.txt"):
        with open(os.path.join(MODEL, fname), "rb") as a, open(os.path.join(ROOT, "assets", "tokenizer", fname), "rb") as b:
            check(f"{fname} is GPT-2's (same as assets/tokenizer)", a.read() == b.read())
    with open(os.path.join(ROOT, "assets", "models", "default")) as f:
        check("assets/models/default names the model", f.read().strip() == NAME)

    expected, heads = probe_files(MODEL)
    tmp = tempfile.mkdtemp(prefix="ttrace-default-")
    try:
        traces = check_expected(check, TTRACE, tmp, MODEL, expected)
        check_heads(check, traces, heads)

        # The bar: plausible continuations of the demo prompt.
        nice = next(e for e in expected["prompts"] if e["prompt"] == "The weather is nice")
        t, _, _ = trace(tmp, nice["prompt"], tag="nice")
        top = np.argsort(-t["hook_probs"][-1], kind="stable")[:5].tolist()
        check("'The weather is nice' continues with ' today' and '.' in the top 5",
              {1909, 13} <= set(top), str(top))

        # No -m: the default model is this one.
        t2, meta2, _ = trace(tmp, nice["prompt"], model=False, tag="default")
        check("ttrace trace without -m uses the default model",
              np.array_equal(t2["hook_probs"], t["hook_probs"]), meta2.get("model", ""))

        # The whole trace against the independent numpy reference.
        check_reference(check, TTRACE, tmp, MODEL, ROOT, "gpt2_ref.py")
    finally:
        subprocess.call(["rm", "-rf", tmp])

    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
