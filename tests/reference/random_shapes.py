#!/usr/bin/python3
"""Random shapes through the independent checks: GPT-2 and Llama models of shapes drawn
from a seed (heads 1-9, head widths 1-17, Llama head_dim unrelated to C/H, FFN widths from
1, F32/F16/BF16, tied or not, biases, position kinds, norms, activations), prompts of 3-31
words, each case one of:

  forward      tests/reference/run_reference.py (gpt2_ref.py or llama_ref.py, float64 numpy)
  gradients    tests/grad/run_grad.py (GPT-2) or run_reference.py --llama --grad (torch)
  generation   tests/generate/check_generate.py (KV-cache decode steps against full passes)

Every drawn case is one ttrace must compute (the prompt fits the context, gradients get at
least two tokens, no what-if it refuses), so any non-zero exit is a failure.

    random_shapes.py TTRACE [--seed S] [--cases N] [--kind forward|gradients|generation]...

Prints one line per case (its command, to rerun it alone) and the failures' output.
"""
import argparse
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..")
PY = "/usr/bin/python3"
WORDS = ["The", " weather", " is", " nice", " today", ",", " isn't", " it", "?", "\n", " 오늘", " 날씨", " ☀️",
         " 12345", " a", " cat"]
POSITIONS = 256  # every model's context: longer than any prompt drawn here (30 words, each ≤ 7 tokens) + 6


def prompt(rng):
    words = [rng.choice(WORDS) for _ in range(rng.choice([2, 3, 5, 8, 13, 21, 30]))]
    return "The" + "".join(words)  # starts with a word: at least two tokens


def gpt2_shape(rng):
    heads, width = rng.randint(1, 9), rng.randint(1, 17)
    a = ["--layers", str(rng.randint(1, 3)), "--heads", str(heads), "--embd", str(heads * width),
         "--positions", str(POSITIONS), "--seed", str(rng.randint(1, 10**6)),
         "--dtype", rng.choice(["F32", "F16", "BF16"])]
    if rng.random() < 0.5:
        a += ["--inner", str(rng.randint(1, 80))]
    a += ["--pos", rng.choice(["learned", "learned", "sinusoidal", "none"])]
    for flag, p in (("--untied", 0.4), ("--prefix", 0.3)):
        if rng.random() < p:
            a.append(flag)
    if rng.random() < 0.4:
        a += ["--activation", rng.choice(["relu", "gelu", "gelu_new", "silu"])]
    if rng.random() < 0.25:
        a += ["--set", "ttrace_block=post_ln"]
    if rng.random() < 0.25:
        a += ["--set", "ttrace_norm=rmsnorm"]
    return a, width


def llama_shape(rng):
    kv = rng.randint(1, 4)
    heads, width = kv * rng.randint(1, 3), rng.choice([2, 4, 6, 8, 10, 16])
    embd = heads * width if rng.random() < 0.5 else rng.randint(2, 48)  # head_dim unrelated to C/H
    a = ["--layers", str(rng.randint(1, 3)), "--heads", str(heads), "--kv-heads", str(kv), "--embd", str(embd),
         "--head-dim", str(width), "--inner", str(rng.randint(1, 80)), "--positions", str(POSITIONS),
         "--seed", str(rng.randint(1, 10**6)), "--dtype", rng.choice(["F32", "F16", "BF16"])]
    for flag, p in (("--tied", 0.4), ("--attention-bias", 0.3), ("--mlp-bias", 0.3)):
        if rng.random() < p:
            a.append(flag)
    if rng.random() < 0.3:
        a += ["--theta", rng.choice(["500", "10000", "1000000"])]
    return a


def what_ifs(rng, width, arg):
    """--set what-ifs for a GPT-2 forward pass or generation (each one ttrace implements)."""
    out = []
    if width % 2 == 0 and rng.random() < 0.2:
        out.append("positions=rope")
        if rng.random() < 0.5:
            out.append("rope_offset=%d" % rng.randint(1, 9))
    elif rng.random() < 0.15:
        out.append("positions=alibi")
    for knob in ("scale_attn=false", "activation=silu", "scale_attn_by_inverse_layer_idx=true"):
        if rng.random() < 0.12:
            out.append(knob)
    return [arg + "--set=" + k for k in out]


def draw(rng, kind):
    """-> the command of one case of this kind."""
    text, llama = prompt(rng), rng.random() < 0.5
    if kind == "forward":
        if llama:
            return [PY, os.path.join(HERE, "run_reference.py"), "--llama", "--prompt", text, "--"] + llama_shape(rng)
        shape, width = gpt2_shape(rng)
        extra = what_ifs(rng, width, "--trace-arg=")
        if rng.random() < 0.15:
            extra.append("--trace-arg=--set=causal=false")
        return [PY, os.path.join(HERE, "run_reference.py"), "--prompt", text] + extra + ["--"] + shape
    if kind == "gradients":
        if llama:
            return [PY, os.path.join(HERE, "run_reference.py"), "--llama", "--grad", "--prompt", text, "--"] + \
                llama_shape(rng)
        shape, _ = gpt2_shape(rng)
        return [PY, os.path.join(TESTS, "grad", "run_grad.py"), "--prompt", text, "--"] + shape
    n = ["--gen-arg=-n", "--gen-arg=%d" % rng.randint(1, 6)]
    if llama:
        return [PY, os.path.join(TESTS, "generate", "check_generate.py"), "--llama", "--prompt", text] + n + ["--"] + \
            llama_shape(rng)
    shape, width = gpt2_shape(rng)
    return [PY, os.path.join(TESTS, "generate", "check_generate.py"), "--prompt", text] + n + \
        what_ifs(rng, width, "--gen-arg=") + ["--"] + shape


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ttrace")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=24)
    ap.add_argument("--kind", action="append", choices=["forward", "gradients", "generation"])
    a = ap.parse_args()
    rng, kinds = random.Random(a.seed), a.kind or ["forward", "gradients", "generation"]
    failed = []
    for i in range(a.cases):
        kind = kinds[i % len(kinds)]
        cmd = draw(rng, kind)
        cmd.insert(2, a.ttrace)
        r = subprocess.run(cmd, capture_output=True, text=True)
        shown = " ".join(repr(c) if not c or any(ch in c for ch in " \n'\"?,") else c for c in cmd)
        print("%2d %-10s %s  %s" % (i, kind, "ok" if r.returncode == 0 else "FAILED (exit %d)" % r.returncode, shown),
              flush=True)
        if r.returncode != 0:
            failed.append(i)
            print("   " + (r.stdout + r.stderr)[-3000:].replace("\n", "\n   "), flush=True)
    print("%d cases (seed %d), %d failed%s" % (a.cases, a.seed, len(failed), (": " + str(failed)) if failed else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
