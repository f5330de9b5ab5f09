#!/usr/bin/python3
"""An independent check of ttrace's backward pass: GPT-2 in torch, float64, autograd.

    torch_grad_ref.py MODEL_DIR TRACE_FILE [--fd N] [--quiet]

Reads the model folder's weights and the trace (both parsed with numpy here, not with
ttrace's code), runs the trace's tokens through a float64 torch GPT-2 built from the
trace's own `config` metadata (never config.json's knobs or the command line), takes
L = mean over t = 0..T-2 of -log p(token t+1), and lets autograd compute dL/d(every hook)
and dL/d(every weight). Every grad.* tensor of the trace is compared with it:
max |got - ref| <= 1e-3 * max |ref| + max(1e-7, 1e-6 * G), G the largest max |ref| of
the run's weight gradients: a gradient that is zero by cancellation (a prompt whose tokens
repeat can make every attention weight irrelevant, so dL/dW_q is 0) keeps the float32
round-off of the terms that cancel, which scales with the gradients flowing through the
pass (2.4e-7 against G = 9.0 in such a Llama case). Every gradient the backward pass should
record must be there (unless the trace's record filter left it out), and no other grad.*
tensor may be. With --fd N, N weight entries are also checked against central finite
differences of the float64 forward (no autograd): a second, independent check.
Prints one row per tensor and "N passed, M failed"; exits 1 on any failure.
"""
import argparse
import fnmatch
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
from gpt2_ref import Config, check_variant, read_safetensors  # noqa: E402  (parsing and the config, not the math)

import torch  # noqa: E402

torch.set_default_dtype(torch.float64)
REL, ABS, OF_LARGEST = 1e-3, 1e-7, 1e-6

# The hooks whose gradients the backward pass records, by where they are.
HEAD_HOOKS = ["ln_final.hook_normalized", "ln_final.hook_out", "hook_logits"]
BLOCK_HOOKS = [
    "hook_resid_pre", "ln1.hook_normalized", "ln1.hook_out", "attn.hook_qkv", "attn.hook_q", "attn.hook_k",
    "attn.hook_v", "attn.hook_attn_scores_raw", "attn.hook_attn_scores_scaled", "attn.hook_attn_scores",
    "attn.hook_pattern", "attn.hook_z", "hook_attn_out", "hook_resid_mid", "ln2.hook_normalized", "ln2.hook_out",
    "mlp.hook_pre", "mlp.hook_post", "hook_mlp_out", "hook_resid_post",
]


def act(x, kind):
    if kind in ("gelu_new", "gelu_pytorch_tanh", "gelu_tanh"):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    if kind == "gelu":
        return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))
    if kind == "relu":
        return torch.relu(x)
    if kind in ("silu", "swish"):
        return x * torch.sigmoid(x)
    if kind in ("identity", "linear"):
        return x * 1.0
    raise SystemExit(f"torch_grad_ref.py: unknown activation {kind}")


def sinusoid(T, C):
    p = torch.arange(T, dtype=torch.float64)[:, None]
    two_i = (torch.arange(C) // 2 * 2).to(torch.float64)
    angle = p / torch.pow(torch.tensor(10000.0), two_i / C)
    return torch.where(torch.arange(C) % 2 == 0, torch.sin(angle), torch.cos(angle))


def forward(cfg, w, ids, hooks):
    """The loss L; every hook tensor into `hooks` (name -> tensor, gradients retained)."""
    T, C, H, D = len(ids), cfg.C, cfg.H, cfg.D

    def keep(name, t):
        if t.requires_grad:
            t.retain_grad()
        hooks[name] = t
        return t

    def norm(p, x, g, b):
        if cfg.norm == "rmsnorm":
            n = x / torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + cfg.eps)
            return keep(p + "hook_out", keep(p + "hook_normalized", n) * g)
        mu = torch.mean(x, dim=-1, keepdim=True)
        n = (x - mu) / torch.sqrt(torch.mean((x - mu) ** 2, dim=-1, keepdim=True) + cfg.eps)
        return keep(p + "hook_out", keep(p + "hook_normalized", n) * g + b)

    def attention(p, x, l):
        qkv = keep(p + "attn.hook_qkv", x @ w[f"h.{l}.attn.c_attn.weight"] + w[f"h.{l}.attn.c_attn.bias"])
        q, k, v = (qkv[:, i * C : (i + 1) * C].reshape(T, H, D).transpose(0, 1) for i in range(3))
        q, k, v = keep(p + "attn.hook_q", q), keep(p + "attn.hook_k", k), keep(p + "attn.hook_v", v)
        raw = keep(p + "attn.hook_attn_scores_raw", q @ k.transpose(1, 2))
        s = 1.0
        if cfg.scale_attn:
            s /= math.sqrt(D)
        if cfg.scale_by_layer:
            s /= l + 1
        scaled = keep(p + "attn.hook_attn_scores_scaled", raw * s)
        if cfg.causal:
            above = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
            masked = scaled.masked_fill(above, -math.inf)
        else:
            masked = scaled * 1.0
        masked = keep(p + "attn.hook_attn_scores", masked)
        pattern = keep(p + "attn.hook_pattern", torch.softmax(masked, dim=-1))
        z = keep(p + "attn.hook_z", pattern @ v)
        merged = z.transpose(0, 1).reshape(T, C)
        return keep(p + "hook_attn_out", merged @ w[f"h.{l}.attn.c_proj.weight"] + w[f"h.{l}.attn.c_proj.bias"])

    def mlp(p, x, l):
        pre = keep(p + "mlp.hook_pre", x @ w[f"h.{l}.mlp.c_fc.weight"] + w[f"h.{l}.mlp.c_fc.bias"])
        post = keep(p + "mlp.hook_post", act(pre, cfg.act))
        return keep(p + "hook_mlp_out", post @ w[f"h.{l}.mlp.c_proj.weight"] + w[f"h.{l}.mlp.c_proj.bias"])

    def add(a, b):
        return a + b if cfg.residual else b

    idx = torch.tensor(ids)
    x = keep("hook_embed", w["wte.weight"][idx])
    if cfg.positions == "learned":
        x = x + keep("hook_pos_embed", w["wpe.weight"][:T])
    elif cfg.positions == "sinusoidal":
        x = x + keep("hook_pos_embed", sinusoid(T, C).requires_grad_(True))
    for l in range(cfg.L):
        p = f"blocks.{l}."
        x = keep(p + "hook_resid_pre", x * 1.0)  # its own node: resid_pre of a block is not the embedding
        g1, b1, g2, b2 = (w[f"h.{l}.{n}"] for n in ("ln_1.weight", "ln_1.bias", "ln_2.weight", "ln_2.bias"))
        if not cfg.post_ln:
            mid = keep(p + "hook_resid_mid", add(x, attention(p, norm(p + "ln1.", x, g1, b1), l)))
            x = keep(p + "hook_resid_post", add(mid, mlp(p, norm(p + "ln2.", mid, g2, b2), l)))
        else:
            mid = keep(p + "hook_resid_mid", add(x, attention(p, x, l)))
            h = norm(p + "ln1.", mid, g1, b1)
            post = keep(p + "hook_resid_post", add(h, mlp(p, h, l)))
            x = norm(p + "ln2.", post, g2, b2)
    h = norm("ln_final.", x, w["ln_f.weight"], w["ln_f.bias"])
    logits = keep("hook_logits", h @ w["lm_head.weight"].T)
    logp = torch.log_softmax(logits, dim=-1)
    return -logp[torch.arange(T - 1), idx[1:]].mean()


def load_weights(model_dir):
    tensors, _ = read_safetensors(os.path.join(model_dir, "model.safetensors"))
    w = {}
    for name, a in tensors:
        name = name[len("transformer.") :] if name.startswith("transformer.") else name
        w[name] = torch.tensor(np.array(a, dtype=np.float64), requires_grad=True)
    tied = "lm_head.weight" not in w
    if tied:
        w["lm_head.weight"] = w["wte.weight"]
    return w, tied


def expected_names(cfg, w, tied):
    names = ["hook_embed"] + (["hook_pos_embed"] if cfg.positions != "none" else [])
    names += [f"blocks.{l}.{h}" for l in range(cfg.L) for h in BLOCK_HOOKS] + HEAD_HOOKS
    if cfg.L == 0:
        names.append("blocks.0.hook_resid_pre")
    # wpe.weight only when the positions are learned (a file's wpe is unused otherwise)
    weights = [n for n in w if not (tied and n == "lm_head.weight") and (n != "wpe.weight" or cfg.positions == "learned")]
    return ["grad." + n for n in names], ["grad." + n for n in weights]


def round_off_floor(weight_grads):
    """The absolute part of the allowed error for a run whose reference weight gradients are
    weight_grads (arrays): ABS, or OF_LARGEST of the largest of them if that is more."""
    largest = max((float(np.max(np.abs(a))) for a in weight_grads if a.size), default=0.0)
    return max(ABS, OF_LARGEST * largest)


def compare(got, ref, floor=ABS):
    """-> (ok, max|ref|, max error, allowed, note); floor: the absolute part of the allowed
    error (round_off_floor)."""
    if tuple(got.shape) != tuple(ref.shape):
        return False, 0.0, math.inf, 0.0, f"shape {tuple(got.shape)} != {tuple(ref.shape)}"
    if not np.isfinite(got).all():
        return False, 0.0, math.inf, 0.0, "not finite in the trace"
    maxref = float(np.max(np.abs(ref))) if ref.size else 0.0
    err = float(np.max(np.abs(got - ref))) if ref.size else 0.0
    allowed = REL * maxref + floor
    return err <= allowed, maxref, err, allowed, ""


def finite_differences(cfg, w, ids, got, count, rng):
    """Central differences of the float64 forward at `count` weight entries vs the trace."""
    fails, rows = 0, []
    names = sorted(n for n in got if n.startswith("grad.") and n[5:] in w and not n.startswith("grad.blocks."))
    picks = [names[i % len(names)] for i in rng.permutation(max(count, len(names)))[:count]]
    h = 1e-5
    for gname in picks:
        wt = w[gname[5:]]
        g = got[gname]
        flat = int(rng.integers(g.size))
        if gname in ("grad.wte.weight", "grad.lm_head.weight"):  # a row the prompt uses, so the entry matters
            flat = int(ids[int(rng.integers(len(ids)))]) * g.shape[1] + int(rng.integers(g.shape[1]))
        if gname == "grad.wpe.weight":
            flat = int(rng.integers(len(ids) - 1)) * g.shape[1] + int(rng.integers(g.shape[1]))
        with torch.no_grad():
            view = wt.view(-1)
            keep = view[flat].item()
            view[flat] = keep + h
            lp = forward(cfg, w, ids, {}).item()
            view[flat] = keep - h
            lm = forward(cfg, w, ids, {}).item()
            view[flat] = keep
        fd = (lp - lm) / (2 * h)
        val = float(g.reshape(-1)[flat])
        scale = float(np.max(np.abs(g)))
        ok = abs(val - fd) <= REL * max(scale, abs(fd)) + 1e-6
        fails += not ok
        rows.append(f"{'ok  ' if ok else 'FAIL'} fd {gname}[{flat}]  trace {val:.6g}  differences {fd:.6g}")
    return fails, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model_dir")
    ap.add_argument("trace")
    ap.add_argument("--fd", type=int, default=0, help="weight entries to check by central differences")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    trace, meta = read_safetensors(args.trace)
    if meta.get("format") != "ttrace-trace":
        sys.exit(f"torch_grad_ref.py: {args.trace} is not a ttrace trace")
    cfg_json = json.loads(meta["config"])
    check_variant(cfg_json, json.loads(meta.get("variant", "{}") or "{}"))
    cfg = Config(cfg_json)
    ids = [int(i) for i in json.loads(meta["token_ids"])]
    w, tied = load_weights(args.model_dir)
    hooks = {}
    loss = forward(cfg, w, ids, hooks)
    loss.backward()
    ref = {"grad." + n: t.grad.numpy() for n, t in hooks.items() if t.grad is not None}
    ref.update({"grad." + n: t.grad.numpy() for n, t in w.items() if t.grad is not None})
    hook_names, weight_names = expected_names(cfg, w, tied)
    for n in weight_names:  # a weight the loss does not reach (an RMSNorm's bias) has gradient 0
        ref.setdefault(n, np.zeros(tuple(w[n[5:]].shape)))
    got = {n: np.asarray(a, dtype=np.float64) for n, a in trace if n.startswith("grad.")}
    globs = json.loads(meta.get("record", "[]") or "[]")
    wanted = [n for n in hook_names + weight_names
              if not globs or (globs != ["none"] and any(fnmatch.fnmatchcase(n, g) for g in globs))]
    fails, rows, floor = 0, [], round_off_floor(t.grad.numpy() for t in w.values() if t.grad is not None)
    for n in wanted:
        if n not in got:
            fails += 1
            rows.append(f"FAIL {n}: missing from the trace")
            continue
        ok, maxref, err, allowed, note = compare(got[n], ref[n], floor)
        fails += not ok
        rows.append(f"{'ok  ' if ok else 'FAIL'} {n:48s} max|ref| {maxref:10.4g}  err {err:10.3g}  allowed {allowed:10.3g} {note}")
    for n in sorted(set(got) - set(wanted)):
        fails += 1
        rows.append(f"FAIL {n}: in the trace but not a gradient this run should record")
    trace_loss = dict(trace).get("hook_loss")
    if trace_loss is not None and abs(float(np.mean(trace_loss)) - loss.item()) > 1e-4 * max(1.0, abs(loss.item())):
        fails += 1
        rows.append(f"FAIL loss: trace mean {float(np.mean(trace_loss)):.6g} != reference {loss.item():.6g}")
    if args.fd:
        f2, r2 = finite_differences(cfg, w, ids, got, args.fd, np.random.default_rng(7))
        fails, rows = fails + f2, rows + r2
    for r in rows:
        if not args.quiet or r.startswith("FAIL"):
            print(r)
    print(f"{len(rows) - fails} passed, {fails} failed")
    return 1 if fails or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
