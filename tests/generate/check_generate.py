#!/usr/bin/python3
"""Generation with the KV cache against full recomputation, on one model:

  1. `ttrace generate -o G` with the given sampling settings;
  2. the ids it appended are what sampling_ref.py (an independent implementation of the
     rule and generator) draws from the logits rows the trace recorded (prompt pass's last
     row, then decode.S.hook_logits), with the same seed; generated_probs / generated_kept
     agree; for temperature 0 each id is also the argmax of the independent numpy forward
     pass (tests/reference/gpt2_ref.py, or llama_ref.py with --llama) of prompt + the ids
     before it;
  3. every decode.S.* tensor equals (1e-4 of max |ref|) the row of the numpy forward pass
     of prompt + generated ids at position T_prompt + S (the keys of its scores and pattern:
     the first T_prompt + S + 1 columns);
  4. `ttrace trace --ids prompt+generated` gives logits rows equal to each decode step's
     hook_logits, and its q/k/v (rotated q/k with RoPE)/pattern rows equal decode.S.*'s
     (1e-4 normalized).

    check_generate.py TTRACE [--llama] [--model DIR | -- MAKE_MODEL_ARGS...] [--gen-arg=ARG]...

With --llama the model is a Llama folder (tests/llama/make_llama.py takes the arguments
after --) and the reference is tests/reference/llama_ref.py.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.join(HERE, "..", "reference")
sys.path.insert(0, HERE)
sys.path.insert(0, REF)
import gpt2_ref  # noqa: E402
import llama_ref  # noqa: E402
from sampling_ref import Rng, sample  # noqa: E402

TOL = 1e-4
failures = []


def check(ok, msg):
    if not ok:
        failures.append(msg)
        print("FAIL", msg)


def close(name, got, ref):
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if got.shape != ref.shape:
        check(False, f"{name}: shape {got.shape} vs {ref.shape}")
        return
    scale = max(1.0, float(np.max(np.abs(ref))))
    err = float(np.max(np.abs(got - ref))) if got.size else 0.0
    check(err <= TOL * scale, f"{name}: max |diff| {err:.3g} > {TOL} x {scale:.3g}")


def query_axes(suffix):
    """-> (query axis, key axis or None) of a hook, from the catalogue's shape letters."""
    if suffix.startswith("attn.hook_attn_scores") or suffix in ("attn.hook_pattern", "attn.hook_alibi"):
        return 1, 2
    if suffix in ("attn.hook_q", "attn.hook_k", "attn.hook_v", "attn.hook_z", "attn.hook_rot_q", "attn.hook_rot_k"):
        return 1, None
    return 0, None


def row_of(full, suffix, pos):
    """The decode step's view of a full-pass tensor: position pos on the query axis, the
    first pos + 1 keys."""
    qa, ka = query_axes(suffix)
    sl = [slice(None)] * full.ndim
    sl[qa] = slice(pos, pos + 1)
    if ka is not None:
        sl[ka] = slice(0, pos + 1)
    return full[tuple(sl)]


def split_decode(name):
    """decode.S.<rest> -> (S, rest)."""
    _, s, rest = name.split(".", 2)
    return int(s), rest


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ttrace")
    ap.add_argument("--model")
    ap.add_argument("--llama", action="store_true", help="a Llama model (make_llama.py, llama_ref.py)")
    ap.add_argument("--prompt", default="The weather is nice")
    ap.add_argument("--gen-arg", action="append", default=[])
    ap.add_argument("--skip-without-device", action="store_true",
                    help="exit 77 (skipped) when ttrace generate reports a device failure (exit status 5)")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = ap.parse_args(argv[:cut])
    a.make_args = argv[cut + 1 :]
    with tempfile.TemporaryDirectory() as tmp:
        model = a.model
        if not model:
            model = os.path.join(tmp, "model")
            maker = os.path.join(HERE, "..", "llama", "make_llama.py") if a.llama else os.path.join(REF, "make_model.py")
            subprocess.run([sys.executable, maker, model] + a.make_args, check=True)
        gpath, tpath = os.path.join(tmp, "g.safetensors"), os.path.join(tmp, "t.safetensors")
        r = subprocess.run([a.ttrace, "generate", "-q", "-m", model, "-o", gpath] + a.gen_arg + [a.prompt],
                           capture_output=True, text=True)
        if r.returncode == 5 and a.skip_without_device:
            print("check_generate.py: no usable device, skipped")
            sys.exit(77)
        if r.returncode != 0:
            sys.exit(f"ttrace generate failed ({r.returncode}): {r.stderr.strip()}")
        g_tensors, meta = gpt2_ref.read_safetensors(gpath)
        g = dict(g_tensors)
        prompt_ids = json.loads(meta["token_ids"])
        gen = json.loads(meta["generated_ids"])
        sampling = json.loads(meta["sampling"])
        cfg_json = json.loads(meta["config"])
        check_sampling(g, prompt_ids, gen, meta, sampling)
        ref = reference(model, cfg_json, prompt_ids + gen, a.llama)
        check_against_reference(g, prompt_ids, gen, ref, sampling)
        ids = ",".join(str(i) for i in prompt_ids + gen)
        sets = [x for x in a.gen_arg if x.startswith("--set")]
        subprocess.run([a.ttrace, "trace", "-q", "-m", model, "--ids", ids, "-o", tpath] + sets, check=True)
        full = dict(gpt2_ref.read_safetensors(tpath)[0])
        check_against_trace(g, prompt_ids, full)
    print(f"generate: {len(gen)} tokens, {len([n for n in g if n.startswith('decode.')])} decode tensors: "
          + ("ok" if not failures else f"{len(failures)} failures"))
    sys.exit(1 if failures else 0)


def reference(model, cfg_json, ids, llama):
    """The independent float64 forward pass of ids: every hook of every position."""
    if llama:
        w = llama_ref.load_weights(model)
        with open(os.path.join(model, "config.json")) as f:
            if json.load(f).get("tie_word_embeddings", False):
                w.pop("lm_head.weight", None)
        return llama_ref.forward(llama_ref.Config(cfg_json), w, ids)
    model_tensors, _ = gpt2_ref.read_safetensors(os.path.join(model, "model.safetensors"))
    return gpt2_ref.forward(gpt2_ref.Config(cfg_json), gpt2_ref.weights_of(model_tensors), ids)


def check_sampling(g, prompt_ids, gen, meta, sampling):
    """The ids are what the independent rule draws from the recorded logits rows."""
    rng = Rng(int(sampling["seed"]))
    probs = json.loads(meta["generated_probs"])
    kept = json.loads(meta["generated_kept"])
    check(len(gen) == len(probs) == len(kept), "generated_ids, _probs and _kept have different lengths")
    for i, gid in enumerate(gen):
        row = g["hook_logits"][-1] if i == 0 else g[f"decode.{i - 1}.hook_logits"][0]
        want = sample(list(row), sampling["temperature"], sampling["top_k"], sampling["top_p"], rng)
        check(want[0] == gid, f"token {i}: generated {gid}, the rule draws {want[0]}")
        check(abs(want[1] - probs[i]) <= 1e-9, f"token {i}: generated_probs {probs[i]} vs {want[1]}")
        check(want[2] == kept[i], f"token {i}: generated_kept {kept[i]} vs {want[2]}")
        src = g["hook_probs"][-1] if i == 0 else g[f"decode.{i - 1}.hook_probs"][0]
        check(abs(src[gid] - probs[i]) <= 1e-5, f"token {i}: generated_probs {probs[i]} vs hook_probs {src[gid]}")


def check_against_reference(g, prompt_ids, gen, ref, sampling):
    Tp = len(prompt_ids)
    if sampling["temperature"] == 0:  # greedy = the argmax chain of full recomputation
        for i, gid in enumerate(gen):
            row = ref["hook_logits"][Tp - 1 + i]
            check(int(np.argmax(row)) == gid, f"greedy token {i}: {gid}, numpy's argmax {int(np.argmax(row))}")
    steps = sorted({split_decode(n)[0] for n in g if n.startswith("decode.")})
    check(steps == list(range(len(gen) - 1)), f"decode steps {steps}, want 0..{len(gen) - 2}")
    for name, got in g.items():
        if not name.startswith("decode."):
            continue
        s, rest = split_decode(name)
        suffix = rest.split(".", 2)[2] if rest.startswith("blocks.") else rest
        if rest == "tokens":
            check(list(got) == [gen[s]], f"{name}: {list(got)}, want [{gen[s]}]")
            continue
        if rest not in ref:
            check(False, f"{name}: no such hook in the reference")
            continue
        close(name + " vs numpy", got, row_of(ref[rest], suffix, Tp + s))


def check_against_trace(g, prompt_ids, full):
    Tp = len(prompt_ids)
    close("prompt pass hook_logits vs trace", g["hook_logits"], full["hook_logits"][:Tp])
    for name, got in g.items():
        if not name.startswith("decode."):
            continue
        s, rest = split_decode(name)
        suffix = rest.split(".", 2)[2] if rest.startswith("blocks.") else rest
        if rest == "hook_logits" or suffix in ("attn.hook_q", "attn.hook_k", "attn.hook_v", "attn.hook_rot_q",
                                               "attn.hook_rot_k", "attn.hook_pattern"):
            close(name + " vs ttrace trace", got, row_of(full[rest], suffix, Tp + s))


if __name__ == "__main__":
    main()
