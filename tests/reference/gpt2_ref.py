#!/usr/bin/python3
"""An independent GPT-2 forward pass in numpy (float64) that checks a ttrace trace.

    gpt2_ref.py MODEL_DIR TRACE_FILE [--tol 1e-4] [--quiet]

Reads MODEL_DIR/model.safetensors and the trace (both parsed here with numpy, not with
ttrace's code), runs the tokens recorded in the trace through the model with the config
stored in the trace's metadata (never config.json's knobs or the command line: a knob
the engine records but applies wrongly fails here), and compares every
recorded tensor: max |trace - ref| <= tol * max(1, max |ref|), with -inf only where the
reference has -inf. Every hook the forward pass should record must be there (unless the
trace's record filter left it out) and no other tensor may be. Prints one row per tensor
and "N passed, M failed"; exits 1 on any failure.
"""
import argparse
import fnmatch
import json
import math
import struct
import sys

import numpy as np

DTYPES = {"F32": "<f4", "F16": "<f2", "BF16": "<u2", "I32": "<i4", "I64": "<i8", "U8": "u1", "F64": "<f8"}


def read_safetensors(path):
    """-> (ordered list of (name, array), metadata dict). Arrays are float64 for floats."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", {}) or {}
    base = 8 + n
    out = []
    for name, info in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
        b, e = info["data_offsets"]
        dt = info["dtype"]
        raw = np.frombuffer(blob[base + b : base + e], dtype=DTYPES[dt])
        if dt == "BF16":
            arr = (raw.astype(np.uint32) << 16).view(np.float32)
        else:
            arr = raw
        arr = arr.reshape(info["shape"])
        if arr.dtype.kind == "f":
            arr = arr.astype(np.float64)
        out.append((name, arr))
    return out, meta


# ---- the model ---------------------------------------------------------------------------
# Every key of the trace's `config` metadata this reference implements; any other key is a
# knob it does not know, and the check refuses to guess.
KNOWN_KEYS = {
    "n_layer", "n_head", "n_embd", "n_positions", "vocab_size", "n_inner", "layer_norm_epsilon",
    "activation_function", "ttrace_positions", "ttrace_norm", "ttrace_block", "ttrace_scale_attn",
    "ttrace_causal", "ttrace_residual", "scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn",
    "ttrace_ablate", "ttrace_rope_offset",
}


class Config:
    """The configuration the trace says its forward pass ran with (its `config` metadata),
    never the model folder's config.json or the command line: a knob the engine records
    but applies wrongly must fail here."""

    def __init__(self, d):
        unknown = sorted(set(d) - KNOWN_KEYS)
        if unknown:
            raise SystemExit(f"gpt2_ref.py: the trace's config has keys this reference does not implement: {unknown}")
        self.L, self.H, self.C = d["n_layer"], d["n_head"], d["n_embd"]
        self.P, self.V = d["n_positions"], d["vocab_size"]
        self.F = d.get("n_inner") or 4 * self.C
        self.D = self.C // self.H
        self.eps = float(d.get("layer_norm_epsilon", 1e-5))
        self.act = d.get("activation_function", "gelu_new")
        self.positions = d.get("ttrace_positions", "learned")
        self.rope_offset = int(d.get("ttrace_rope_offset", 0))  # positions=rope: the first position
        self.norm = d.get("ttrace_norm", "layernorm")
        self.post_ln = d.get("ttrace_block", "pre_ln") == "post_ln"
        self.scale_attn = bool(d.get("ttrace_scale_attn", True))
        self.causal = bool(d.get("ttrace_causal", True))
        self.residual = bool(d.get("ttrace_residual", True))
        self.scale_by_layer = bool(d.get("scale_attn_by_inverse_layer_idx", False))
        # reorder_and_upcast_attn changes only the float32 rounding order (HF folds the scale
        # into the score product and computes it in float32); in float64 it is the same math.
        self.reorder_upcast = bool(d.get("reorder_and_upcast_attn", False))
        # ttrace_ablate "L.H,L.H": knocked-out heads, whose z (pattern · v) is zero
        self.ablate = set()
        for item in filter(None, d.get("ttrace_ablate", "").split(",")):
            layer, head = item.split(".")
            self.ablate.add((int(layer), int(head)))


def check_variant(cfg_json, variant):
    """Every knob the trace's `variant` metadata names must have that value in its config."""
    for key, value in variant.items():
        if cfg_json.get(key) != value:
            raise SystemExit(f"gpt2_ref.py: the trace's variant says {key}={value!r} but its config says {cfg_json.get(key)!r}")


def weights_of(model_tensors):
    w = {}
    for name, a in model_tensors:
        if name.startswith("transformer."):
            name = name[len("transformer.") :]
        w[name] = a
    if "lm_head.weight" not in w:
        w["lm_head.weight"] = w["wte.weight"]  # tied
    return w


def activation(x, kind):
    if kind in ("gelu_new", "gelu_pytorch_tanh", "gelu_tanh"):
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    if kind == "gelu":
        erf = np.vectorize(math.erf)
        return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))
    if kind == "relu":
        return np.maximum(x, 0.0)
    if kind in ("silu", "swish"):
        return x / (1.0 + np.exp(-x))
    if kind in ("identity", "linear"):
        return x.copy()
    raise SystemExit(f"gpt2_ref.py: unknown activation {kind}")


def softmax(x):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)  # exp(-inf) = 0
    return e / np.sum(e, axis=-1, keepdims=True)


def alibi_slopes(n):
    """Press et al.'s slopes: the geometric sequence starting at 2^(-8/n) with that ratio for
    a power of two n; otherwise those of the power of two below n, then every other slope of
    twice that power, up to n heads."""
    def power_of_2(m):
        start = 2.0 ** (-(2.0 ** -(math.log2(m) - 3)))
        return [start * start**i for i in range(m)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + alibi_slopes(2 * closest)[0::2][: n - closest]


def rotate_half_rope(x, theta=10000.0, offset=0):
    """x (heads, T, D): x*cos + rotate_half(x)*sin, angles t * theta^(-2i/D) repeated twice,
    t = offset .. offset + T - 1."""
    _, T, D = x.shape
    inv = theta ** (-np.arange(0, D, 2, dtype=np.float64) / D)
    ang = (offset + np.arange(T, dtype=np.float64))[:, None] * inv[None, :]
    ang = np.concatenate([ang, ang], axis=-1)
    half = np.concatenate([-x[..., D // 2 :], x[..., : D // 2]], axis=-1)
    return x * np.cos(ang) + half * np.sin(ang)


def forward(cfg, w, ids):
    """-> ordered dict name -> float64 array: every hook of the forward pass."""
    out = {}
    T, C, H, D = len(ids), cfg.C, cfg.H, cfg.D
    out["tokens"] = np.array(ids, dtype=np.int64)

    def norm(prefix, x, g, b):
        if cfg.norm == "rmsnorm":
            mean = np.zeros(T)
            scale = np.sqrt(np.mean(x * x, axis=-1) + cfg.eps)
            normalized = x / scale[:, None]
            y = normalized * g
        else:
            mean = np.mean(x, axis=-1)
            scale = np.sqrt(np.mean((x - mean[:, None]) ** 2, axis=-1) + cfg.eps)
            normalized = (x - mean[:, None]) / scale[:, None]
            y = normalized * g + b
        out[prefix + "hook_mean"] = mean
        out[prefix + "hook_scale"] = scale
        out[prefix + "hook_normalized"] = normalized
        out[prefix + "hook_out"] = y
        return y

    def attention(p, x, l):
        qkv = x @ w[f"h.{l}.attn.c_attn.weight"] + w[f"h.{l}.attn.c_attn.bias"]
        out[p + "attn.hook_qkv"] = qkv
        q, k, v = (qkv[:, i * C : (i + 1) * C].reshape(T, H, D).transpose(1, 0, 2) for i in range(3))
        out[p + "attn.hook_q"], out[p + "attn.hook_k"], out[p + "attn.hook_v"] = q, k, v
        if cfg.positions == "rope":  # positions as a rotation of q and k (rotate-half)
            q, k = rotate_half_rope(q, offset=cfg.rope_offset), rotate_half_rope(k, offset=cfg.rope_offset)
            out[p + "attn.hook_rot_q"], out[p + "attn.hook_rot_k"] = q, k
        raw = q @ k.transpose(0, 2, 1)
        out[p + "attn.hook_attn_scores_raw"] = raw
        scaled = raw.copy()
        if cfg.scale_attn:  # scale_attn_weights: ÷ √d_k
            scaled = scaled / math.sqrt(D)
        if cfg.scale_by_layer:  # scale_attn_by_inverse_layer_idx: layer l (from 0) also ÷ (l + 1)
            scaled = scaled / (l + 1)
        out[p + "attn.hook_attn_scores_scaled"] = scaled
        masked = scaled.copy()
        if cfg.positions == "alibi":  # -m_h * |i - j| added to the scaled scores
            dist = np.abs(np.arange(T)[:, None] - np.arange(T)[None, :]).astype(np.float64)
            bias = -np.array(alibi_slopes(H))[:, None, None] * dist[None]
            out[p + "attn.hook_alibi"] = bias
            masked = scaled + bias
        if cfg.causal:
            masked[:, np.triu(np.ones((T, T), dtype=bool), k=1)] = -np.inf
        out[p + "attn.hook_attn_scores"] = masked
        pattern = softmax(masked)
        out[p + "attn.hook_pattern"] = pattern
        z = pattern @ v
        for h in range(H):
            if (l, h) in cfg.ablate:  # a knocked-out head contributes nothing
                z[h] = 0.0
        out[p + "attn.hook_z"] = z
        merged = z.transpose(1, 0, 2).reshape(T, C)
        a = merged @ w[f"h.{l}.attn.c_proj.weight"] + w[f"h.{l}.attn.c_proj.bias"]
        out[p + "hook_attn_out"] = a
        return a

    def mlp(p, x, l):
        pre = x @ w[f"h.{l}.mlp.c_fc.weight"] + w[f"h.{l}.mlp.c_fc.bias"]
        out[p + "mlp.hook_pre"] = pre
        post = activation(pre, cfg.act)
        out[p + "mlp.hook_post"] = post
        m = post @ w[f"h.{l}.mlp.c_proj.weight"] + w[f"h.{l}.mlp.c_proj.bias"]
        out[p + "hook_mlp_out"] = m
        return m

    def add(a, b):
        return a + b if cfg.residual else b.copy()

    x = w["wte.weight"][ids]
    out["hook_embed"] = x
    if cfg.positions in ("learned", "sinusoidal"):
        if cfg.positions == "learned":
            pos = w["wpe.weight"][:T]
        else:  # PE(p, 2i) = sin(p / 10000^(2i/C)), PE(p, 2i+1) = cos(same)
            p = np.arange(T)[:, None].astype(np.float64)
            two_i = (np.arange(C) // 2 * 2).astype(np.float64)
            angle = p / np.power(10000.0, two_i / C)
            pos = np.where(np.arange(C) % 2 == 0, np.sin(angle), np.cos(angle))
        out["hook_pos_embed"] = pos
        x = x + pos
    for l in range(cfg.L):
        p = f"blocks.{l}."
        out[p + "hook_resid_pre"] = x
        if not cfg.post_ln:  # GPT-2: x + attn(ln1(x)); then + mlp(ln2(.))
            a = attention(p, norm(p + "ln1.", x, w[f"h.{l}.ln_1.weight"], w[f"h.{l}.ln_1.bias"]), l)
            mid = add(x, a)
            out[p + "hook_resid_mid"] = mid
            m = mlp(p, norm(p + "ln2.", mid, w[f"h.{l}.ln_2.weight"], w[f"h.{l}.ln_2.bias"]), l)
            x = add(mid, m)
            out[p + "hook_resid_post"] = x
        else:  # original Transformer: ln1(x + attn(x)); ln2(. + mlp(.))
            a = attention(p, x, l)
            mid = add(x, a)
            out[p + "hook_resid_mid"] = mid
            h = norm(p + "ln1.", mid, w[f"h.{l}.ln_1.weight"], w[f"h.{l}.ln_1.bias"])
            m = mlp(p, h, l)
            post = add(h, m)
            out[p + "hook_resid_post"] = post
            x = norm(p + "ln2.", post, w[f"h.{l}.ln_2.weight"], w[f"h.{l}.ln_2.bias"])
    h = norm("ln_final.", x, w["ln_f.weight"], w["ln_f.bias"])
    logits = h @ w["lm_head.weight"].T
    out["hook_logits"] = logits
    out["hook_probs"] = softmax(logits)
    if T > 1:
        m = np.max(logits, axis=-1)
        lse = m + np.log(np.sum(np.exp(logits - m[:, None]), axis=-1))
        out["hook_loss"] = lse[:-1] - logits[np.arange(T - 1), ids[1:]]
    return out


# ---- comparison ----------------------------------------------------------------------------
def compare(name, got, ref, tol):
    """-> (ok, max|ref|, max error, allowed, note)."""
    if tuple(got.shape) != tuple(ref.shape):
        return False, 0.0, math.inf, 0.0, f"shape {tuple(got.shape)} != {tuple(ref.shape)}"
    if name == "tokens":
        ok = np.array_equal(got.astype(np.int64), ref)
        return ok, 0.0, 0.0 if ok else math.inf, 0.0, "" if ok else "token ids differ"
    got = got.astype(np.float64)
    if np.isnan(got).any():
        return False, 0.0, math.inf, 0.0, "NaN in trace"
    ref_inf, got_inf = np.isinf(ref), np.isinf(got)
    if not np.array_equal(ref_inf, got_inf) or not np.array_equal(got[got_inf], ref[ref_inf]):
        return False, 0.0, math.inf, 0.0, "infinities differ (mask)"
    fin = ~ref_inf
    maxref = float(np.max(np.abs(ref[fin]))) if fin.any() else 0.0
    err = float(np.max(np.abs(got[fin] - ref[fin]))) if fin.any() else 0.0
    allowed = tol * max(1.0, maxref)
    return err <= allowed, maxref, err, allowed, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model_dir")
    ap.add_argument("trace")
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--quiet", action="store_true", help="print only failures and the summary")
    args = ap.parse_args()

    trace, meta = read_safetensors(args.trace)
    if meta.get("format") != "ttrace-trace":
        sys.exit(f"gpt2_ref.py: {args.trace} is not a ttrace trace (format {meta.get('format')!r})")
    cfg_json = json.loads(meta["config"])
    check_variant(cfg_json, json.loads(meta.get("variant", "{}") or "{}"))
    cfg = Config(cfg_json)
    ids = [int(i) for i in json.loads(meta["token_ids"])]
    model, _ = read_safetensors(args.model_dir + "/model.safetensors")
    with open(args.model_dir + "/config.json") as f:
        file_cfg = json.load(f)
    if file_cfg.get("n_positions") is None:  # older configs name the context n_ctx
        file_cfg["n_positions"] = file_cfg.get("n_ctx")
    # Only the sizes are compared with the folder (they pick the weights' shapes); every
    # knob of the computation comes from the trace.
    for key in ("n_layer", "n_head", "n_embd", "vocab_size", "n_positions"):
        if file_cfg[key] != cfg_json[key]:
            sys.exit(f"gpt2_ref.py: trace config {key}={cfg_json[key]} but the model's is {file_cfg[key]}")
    ref = forward(cfg, weights_of(model), ids)

    globs = json.loads(meta.get("record", "[]") or "[]")
    wanted = [n for n in ref if not globs or (globs != ["none"] and any(fnmatch.fnmatchcase(n, g) for g in globs))]
    got = dict(trace)
    order = [n for n, _ in trace]
    passed = failed = 0
    rows = []
    for name in wanted:
        if name not in got:
            rows.append((name, "-", "", "", "", "FAIL missing from the trace"))
            failed += 1
            continue
        ok, maxref, err, allowed, note = compare(name, got[name], ref[name], args.tol)
        shape = "x".join(str(s) for s in got[name].shape)
        rows.append((name, shape, f"{maxref:.4g}", f"{err:.3g}", f"{allowed:.3g}", ("ok" if ok else "FAIL ") + note))
        passed += ok
        failed += not ok
    for name in order:
        if name not in wanted:
            rows.append((name, "", "", "", "", "FAIL not expected in this trace"))
            failed += 1
    expected_order = [n for n in wanted if n in got]
    if [n for n in order if n in wanted] != expected_order:
        rows.append(("(order)", "", "", "", "", "FAIL tensors are not in forward-pass order"))
        failed += 1

    width = max([len(r[0]) for r in rows] + [6])
    print(f"{'tensor':<{width}}  {'shape':>14}  {'max|ref|':>10}  {'max err':>9}  {'allowed':>9}  result")
    for r in rows:
        if args.quiet and r[5] == "ok":
            continue
        print(f"{r[0]:<{width}}  {r[1]:>14}  {r[2]:>10}  {r[3]:>9}  {r[4]:>9}  {r[5]}")
    worst = max((float(r[3]) / float(r[4]) for r in rows if r[3] not in ("", "inf") and r[4] not in ("", "0")),
                default=0.0)
    print(f"worst error / allowed: {worst:.3g}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed or passed == 0 and wanted else 0)


if __name__ == "__main__":
    main()
