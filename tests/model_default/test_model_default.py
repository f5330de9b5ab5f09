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
import struct
import subprocess
import sys
import tempfile

import numpy as np

TTRACE, ROOT = sys.argv[1], sys.argv[2]
NAME = "tiny-classroom"
MODEL = os.path.join(ROOT, "assets", "models", NAME)
PY = "/usr/bin/python3"
passed, failed = 0, 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok    {name}")
    else:
        failed += 1
        print(f"FAIL  {name}: {detail}")


def read_safetensors(path):
    """As in docs/trace-format.md: 8-byte header length, JSON header, raw little-endian data."""
    dtypes = {"F32": np.float32, "F16": np.float16, "I32": np.int32, "BF16": None}
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__", {})
    out = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + begin:8 + n + end], dtype=dtypes[info["dtype"]]).reshape(info["shape"])
    return out, meta, header


def trace(tmp, prompt, model=True, tag="t"):
    out = os.path.join(tmp, tag + ".safetensors")
    args = [TTRACE, "trace", "-q"] + (["-m", MODEL] if model else []) + ["-o", out, "--", prompt]
    r = subprocess.run(args, capture_output=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.decode(errors="replace")))
    t, meta, _ = read_safetensors(out)
    return t, meta, out


def same_top5(probs, exp_ids, exp_probs, tol):
    """The recorded top-5, allowing neighbours whose probabilities differ by less than tol to swap."""
    order = np.argsort(-probs, kind="stable")[:5].tolist()
    return all(a == b or abs(probs[a] - probs[b]) < tol for a, b in zip(order, exp_ids))


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

    with open(os.path.join(MODEL, "expected.json"), encoding="utf-8") as f:
        expected = json.load(f)
    with open(os.path.join(MODEL, "heads.json")) as f:
        heads = json.load(f)
    tmp = tempfile.mkdtemp(prefix="ttrace-default-")
    try:
        traces = {}
        for i, e in enumerate(expected["prompts"]):
            t, _, _ = trace(tmp, e["prompt"], tag="p%d" % i)
            traces[e["prompt"]] = t
            ids = t["tokens"].tolist()
            check(f"ids of {e['prompt']!r}", ids == e["ids"], f"{ids} != {e['ids']}")
            last = t["hook_probs"][-1].astype(np.float64)
            check(f"probabilities of {e['prompt']!r} sum to 1", abs(last.sum() - 1) < 1e-4, str(last.sum()))
            top = np.argsort(-last, kind="stable")[:5].tolist()
            check(f"top-5 after {e['prompt']!r}", same_top5(last, e["top5_ids"], e["top5_probs"], 1e-4),
                  f"{top} != {e['top5_ids']}")
            diff = max(abs(last[i] - p) for i, p in zip(e["top5_ids"], e["top5_probs"]))
            check(f"top-5 probabilities after {e['prompt']!r}", diff < 1e-4, f"max diff {diff:.2e}")

        # The heads the model card names, measured on ttrace's own hook_pattern.
        drill = next(p for p in traces if p.startswith("Say the words:"))
        ids = traces[drill]["tokens"].tolist()
        second = len(ids) - 1 - ids[::-1].index(25)          # the last ':' starts the second list
        for l, h, v in heads["induction_heads"]:
            P = traces[drill]["blocks.%d.attn.hook_pattern" % l][h]
            vals = [P[q, ids.index(ids[q]) + 1] for q in range(second + 1, len(ids))]
            check(f"induction head {l}.{h} looks at what followed the earlier copy (mean {np.mean(vals):.2f})",
                  np.mean(vals) > 0.5, f"{vals} (heads.json {v})")
        for l, h, v in heads["first_token_heads"]:
            vals = [traces[p]["blocks.%d.attn.hook_pattern" % l][h][q, 0]
                    for p in ("The weather is nice", "The dog bit the") for q in range(2, len(traces[p]["tokens"]))]
            check(f"first-token head {l}.{h} looks at 'The' (mean {np.mean(vals):.2f})", np.mean(vals) > 0.5,
                  f"{vals} (heads.json {v})")
        check("the card names at least one interpretable head",
              len(heads["induction_heads"]) + len(heads["first_token_heads"]) > 0)

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
        for tag, prompt in (("ref_en", "The weather is nice"), ("ref_ko", "철수는 영희에게 책을 주었다. 그는 기뻐했다.")):
            _, _, path = trace(tmp, prompt, tag=tag)
            r = subprocess.run([PY, os.path.join(ROOT, "tests", "reference", "gpt2_ref.py"), "--quiet", MODEL, path],
                               capture_output=True, timeout=300)
            check(f"gpt2_ref.py agrees with the trace of {prompt!r}", r.returncode == 0,
                  (r.stdout + r.stderr).decode(errors="replace")[-800:])
    finally:
        subprocess.call(["rm", "-rf", tmp])

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
