#!/usr/bin/python3
"""`ttrace train-step` against the torch reference: the new folder's weights equal
W − lr·∇W step after step (float64 autograd from the mathematics, torch_grad_ref.forward),
the printed losses are the reference's, config.json and the tokenizer's files are copied,
and bad input is refused in one line with NEWDIR untouched.

    check_train_step.py TTRACE [--steps N] [--lr LR] -- MAKE_MODEL_OPTIONS...
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from torch_grad_ref import forward, load_weights  # noqa: E402
from gpt2_ref import Config, read_safetensors  # noqa: E402  (on sys.path through torch_grad_ref)

import torch  # noqa: E402

PY = "/usr/bin/python3"


def trace_meta(ttrace, model, prompt, tmp):
    """The knobs and the tokens, from a trace of the original model (its own config metadata)."""
    path = os.path.join(tmp, "t.safetensors")
    subprocess.check_call([ttrace, "trace", "-q", "--record", "none", "-m", model, "-o", path, "--", prompt])
    _, meta = read_safetensors(path)
    return Config(json.loads(meta["config"])), [int(i) for i in json.loads(meta["token_ids"])]


def sgd_reference(cfg, w, ids, lr, steps):
    """-> (losses before each step and after the last, the weights after), in float64."""
    losses = []
    for _ in range(steps + 1):
        for t in w.values():
            t.grad = None
        loss = forward(cfg, w, ids, {})
        losses.append(loss.item())
        if len(losses) > steps:
            break
        loss.backward()
        with torch.no_grad():
            for name, t in w.items():
                if name == "lm_head.weight" and t is w["wte.weight"]:
                    continue  # tied: one tensor
                if t.grad is not None:
                    t -= lr * t.grad
    return losses, w


def bad_input(ttrace, model, tmp):
    full = os.path.join(tmp, "full")
    os.makedirs(full)
    open(os.path.join(full, "keep.txt"), "w").write("x")
    afile = os.path.join(tmp, "afile")
    open(afile, "w").write("x")
    cases = [(["--lr", "0", "-o", os.path.join(tmp, "a")], "positive number", 2),
             (["--lr", "-0.1", "-o", os.path.join(tmp, "a")], "positive number", 2),
             (["--lr", "0.1", "--steps", "x", "-o", os.path.join(tmp, "a")], "whole number", 2),
             (["--lr", "0.1", "-o", afile], "not a folder", 4),
             (["--lr", "0.1", "-o", os.path.join(tmp, "a"), "--", "Hello"], "at least 2 tokens", 3),
             (["--lr", "abc", "-o", os.path.join(tmp, "a")], "positive number", 2),
             (["--lr", "0.1", "--steps", "0", "-o", os.path.join(tmp, "a")], "whole number", 2),
             (["--lr", "0.1", "-o", full], "not empty", 4),
             (["--lr", "0.1", "-o", os.path.join(tmp, "no", "such", "dir")], "cannot", 4)]
    ok = True
    for args, msg, code in cases:
        prompt = [] if "--" in args else ["--", "The weather is nice"]
        r = subprocess.run([ttrace, "train-step", "-m", model] + args + prompt,
                           capture_output=True, text=True)
        lines = r.stderr.strip().split("\n")
        good = r.returncode == code and len(lines) == 1 and msg in lines[0] and not os.path.exists(os.path.join(tmp, "a"))
        ok &= good
        print(f"{'ok  ' if good else 'FAIL'} train-step {' '.join(args)}: exit {r.returncode} {r.stderr.strip()!r}")
    good = sorted(os.listdir(full)) == ["keep.txt"] and not [n for n in os.listdir(tmp) if ".tmp-" in n] and \
        open(afile).read() == "x"
    print(f"{'ok  ' if good else 'FAIL'} a non-empty NEWDIR is untouched and no temporary folder is left")
    return ok and good


def main():
    argv = sys.argv[1:]
    i = argv.index("--")
    ap = argparse.ArgumentParser()
    ap.add_argument("ttrace")
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--prompt", default="The weather is nice today")
    args = ap.parse_args(argv[:i])
    tmp = tempfile.mkdtemp(prefix="ttrace-train-")
    try:
        model, new = os.path.join(tmp, "model"), os.path.join(tmp, "new")
        subprocess.check_call([PY, os.path.join(HERE, "..", "reference", "make_model.py"), model] + argv[i + 1 :])
        cfg, ids = trace_meta(args.ttrace, model, args.prompt, tmp)
        r = subprocess.run([args.ttrace, "train-step", "-m", model, "--lr", repr(args.lr), "--steps", str(args.steps),
                            "-o", new, "--", args.prompt], capture_output=True, text=True, check=True)
        printed = [(float(a), float(b)) for a, b in re.findall(r"loss (\S+) -> (\S+)", r.stdout)]
        w, _ = load_weights(model)
        losses, w = sgd_reference(cfg, w, ids, args.lr, args.steps)
        fails = 0
        want = [(losses[k], losses[k + 1]) for k in range(args.steps)]
        good = len(printed) == args.steps and all(abs(p - q) <= 1e-4 * max(1, abs(q)) for pr, wr in zip(printed, want)
                                                   for p, q in zip(pr, wr))
        fails += not good
        print(f"{'ok  ' if good else 'FAIL'} printed losses {printed} vs reference {[(round(a, 6), round(b, 6)) for a, b in want]}")
        got, _ = read_safetensors(os.path.join(new, "model.safetensors"))
        orig, _ = read_safetensors(os.path.join(model, "model.safetensors"))
        orig = {n[12:] if n.startswith("transformer.") else n: a for n, a in orig}
        for name, a in got:
            ref = w[name].detach().numpy()
            moved = float(np.max(np.abs(ref - orig[name])))
            err = float(np.max(np.abs(a - ref)))
            allowed = 2e-3 * moved + 1e-6 * max(1.0, float(np.max(np.abs(ref))))
            good = err <= allowed
            fails += not good
            print(f"{'ok  ' if good else 'FAIL'} {name:28s} moved {moved:10.4g}  err {err:10.3g}  allowed {allowed:10.3g}")
        names = sorted(n for n, _ in got)
        good = set(names) == set(orig) - ({"lm_head.weight"} if w["lm_head.weight"] is w["wte.weight"] else set())
        fails += not good
        print(f"{'ok  ' if good else 'FAIL'} every weight written once ({len(names)})")
        for fname in ("config.json", "vocab.json", "merges.txt"):
            src = os.path.join(model, fname)
            if not os.path.exists(src):
                src = os.path.join(HERE, "..", "..", "assets", "tokenizer", fname)
            good = open(src, "rb").read() == open(os.path.join(new, fname), "rb").read()
            fails += not good
            print(f"{'ok  ' if good else 'FAIL'} {fname} copied")
        fails += not bad_input(args.ttrace, model, tmp)
        print(f"{fails} failed")
        return 1 if fails else 0
    finally:
        subprocess.call(["rm", "-rf", tmp])


if __name__ == "__main__":
    sys.exit(main())
