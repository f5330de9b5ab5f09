#!/usr/bin/python3
"""Trains ttrace's default model (tiny-classroom) on the CPU and exports it.

  /usr/bin/python3 tools/corpus.py                 # writes out/corpus/
  /usr/bin/python3 tools/train.py                  # trains, writes assets/models/tiny-classroom/

The model is GPT-2's architecture with sinusoidal positions (no wpe tensor): pre-LN, GELU
(tanh form), causal self-attention, tied unembedding, GPT-2's 50257-token vocabulary.

Exact full-vocabulary training at small cost: the corpus uses only a few hundred of the
50257 ids. Only those ("used") ids get their own trainable embedding row; all the other
("unused") ids share ONE trainable vector u. Because every unused row is the same vector,
the full-vocabulary log-sum-exp is exactly
    logsumexp(used logits, h·u + log(N_unused)),
so the loss is the true 50257-way cross-entropy. At export every unused row of wte is u.
After export the script reloads model.safetensors and checks, with a plain full-vocabulary
forward pass, that the held-out loss is the same.

Outputs in the model folder: model.safetensors (F16), config.json, loss_curve.png,
training_log.json, corpus_stats.json (a copy of the corpus's stats.json). Needs /usr/bin/python3 with Debian's python3-torch and python3-numpy;
python3-matplotlib draws the loss curve (without it a plain PNG is drawn with zlib).
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gpt2_bpe import GPT2Tokenizer  # noqa: E402
import stio  # noqa: E402

ROOT = os.path.dirname(HERE)
NAME = "tiny-classroom"
V = 50257


# ----------------------------------------------------------------------------- data

def load_docs(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def tokenize_docs(tok, docs, n_ctx):
    """Each document -> its ids followed by <|endoftext|>, cut to n_ctx tokens."""
    cache = {}
    out = []
    cut = 0
    for d in docs:
        if d not in cache:
            cache[d] = tok.encode(d) + [tok.eot_id]
        ids = cache[d]
        if len(ids) > n_ctx:
            ids = ids[:n_ctx]
            cut += 1
        out.append(ids)
    return out, cache, cut


def check_with_node(cache, encoder_dir):
    """Tokenizes every distinct document with node + gpt-3-encoder and compares; returns a count."""
    node = shutil.which("node") or "/usr/bin/node"
    if not os.path.exists(node) or not os.path.isdir(encoder_dir):
        return None
    texts = list(cache.keys())
    script = ("const e=require(process.argv[1]);const fs=require('fs');"
              "const t=JSON.parse(fs.readFileSync(0,'utf8'));"
              "process.stdout.write(JSON.stringify(t.map(x=>e.encode(x))));")
    res = subprocess.run([node, "-e", script, encoder_dir], input=json.dumps(texts).encode("utf-8"),
                         capture_output=True, check=True)
    theirs = json.loads(res.stdout)
    bad = [t for t, ids in zip(texts, theirs) if cache[t][:-1] != ids]
    if bad:
        raise SystemExit("tokenizer disagrees with gpt-3-encoder on %d documents, e.g. %r" % (len(bad), bad[0]))
    return len(texts)


def make_batches(lengths, batch, rng):
    """Shuffled batches of documents of similar length (less padding)."""
    idx = rng.permutation(len(lengths))
    chunk = batch * 50
    batches = []
    for s in range(0, len(idx), chunk):
        part = sorted(idx[s:s + chunk], key=lambda i: lengths[i])
        batches += [part[j:j + batch] for j in range(0, len(part), batch)]
    rng.shuffle(batches)
    return batches


def pad(seqs, local):
    """(B, T) inputs, (B, T) targets (-1 = no loss), local ids."""
    T = max(len(s) for s in seqs) - 1
    x = np.zeros((len(seqs), T), dtype=np.int64)
    y = np.full((len(seqs), T), -1, dtype=np.int64)
    for b, s in enumerate(seqs):
        loc = local[np.asarray(s)]
        x[b, :len(s) - 1] = loc[:-1]
        y[b, :len(s) - 1] = loc[1:]
    return torch.from_numpy(x), torch.from_numpy(y)


# ----------------------------------------------------------------------------- model

def sinusoidal(P, C):
    """PE(pos, 2i) = sin(pos / 10000^(2i/C)), PE(pos, 2i+1) = cos(pos / 10000^(2i/C)); (P, C)."""
    pos = np.arange(P, dtype=np.float64)[:, None]
    i2 = np.arange(0, C, 2, dtype=np.float64)[None, :]
    ang = pos / np.power(10000.0, i2 / C)
    pe = np.zeros((P, C), dtype=np.float64)
    pe[:, 0::2] = np.sin(ang)
    pe[:, 1::2] = np.cos(ang)
    return pe.astype(np.float32)


class TinyGPT(torch.nn.Module):
    """GPT-2 blocks with weights stored in HF's Conv1D layout (x · W + b)."""

    def __init__(self, n_used, n_layer, n_head, C, P, emb_std):
        super().__init__()
        self.n_layer, self.n_head, self.C = n_layer, n_head, C
        F_ = 4 * C
        g = torch.Generator().manual_seed(0)

        def normal(*shape, std=0.02):
            return torch.nn.Parameter(torch.randn(*shape, generator=g) * std)

        def const(v, *shape):
            return torch.nn.Parameter(torch.full(shape, float(v)))

        self.emb = normal(n_used, C, std=emb_std)      # (U, C) rows of the used ids
        self.u = const(0.0, C)                         # (C) the one row shared by all unused ids
        self.register_buffer("pe", torch.from_numpy(sinusoidal(P, C)))  # (P, C)
        proj_std = 0.02 / math.sqrt(2 * n_layer)
        self.p = torch.nn.ParameterDict()
        for l in range(n_layer):
            h = "h.%d." % l
            self.p[h.replace(".", "_") + "ln_1_w"] = const(1, C)
            self.p[h.replace(".", "_") + "ln_1_b"] = const(0, C)
            self.p[h.replace(".", "_") + "c_attn_w"] = normal(C, 3 * C)
            self.p[h.replace(".", "_") + "c_attn_b"] = const(0, 3 * C)
            self.p[h.replace(".", "_") + "attn_c_proj_w"] = normal(C, C, std=proj_std)
            self.p[h.replace(".", "_") + "attn_c_proj_b"] = const(0, C)
            self.p[h.replace(".", "_") + "ln_2_w"] = const(1, C)
            self.p[h.replace(".", "_") + "ln_2_b"] = const(0, C)
            self.p[h.replace(".", "_") + "c_fc_w"] = normal(C, F_)
            self.p[h.replace(".", "_") + "c_fc_b"] = const(0, F_)
            self.p[h.replace(".", "_") + "mlp_c_proj_w"] = normal(F_, C, std=proj_std)
            self.p[h.replace(".", "_") + "mlp_c_proj_b"] = const(0, C)
        self.lnf_w = const(1, C)
        self.lnf_b = const(0, C)

    def w(self, l, name):
        return self.p["h_%d_%s" % (l, name)]

    def hidden(self, x):
        """x (B, T) local ids -> final normalized hidden states (B, T, C)."""
        B, T = x.shape
        C, H = self.C, self.n_head
        D = C // H
        h = self.emb[x] + self.pe[:T]                                          # (B, T, C)
        mask = torch.ones(T, T, dtype=torch.bool).triu(1)                     # (T, T) above the diagonal
        for l in range(self.n_layer):
            a = F.layer_norm(h, (C,), self.w(l, "ln_1_w"), self.w(l, "ln_1_b"), 1e-5)
            qkv = a @ self.w(l, "c_attn_w") + self.w(l, "c_attn_b")          # (B, T, 3C)
            q, k, v = qkv.split(C, dim=-1)
            q = q.view(B, T, H, D).transpose(1, 2)                             # (B, H, T, D)
            k = k.view(B, T, H, D).transpose(1, 2)
            v = v.view(B, T, H, D).transpose(1, 2)
            s = (q @ k.transpose(-1, -2)) / math.sqrt(D)                       # (B, H, T, T)
            s = s.masked_fill(mask, float("-inf"))
            z = torch.softmax(s, dim=-1) @ v                                   # (B, H, T, D)
            z = z.transpose(1, 2).reshape(B, T, C)
            h = h + z @ self.w(l, "attn_c_proj_w") + self.w(l, "attn_c_proj_b")
            m = F.layer_norm(h, (C,), self.w(l, "ln_2_w"), self.w(l, "ln_2_b"), 1e-5)
            m = F.gelu(m @ self.w(l, "c_fc_w") + self.w(l, "c_fc_b"), approximate="tanh")  # (B, T, F)
            h = h + m @ self.w(l, "mlp_c_proj_w") + self.w(l, "mlp_c_proj_b")
        return F.layer_norm(h, (C,), self.lnf_w, self.lnf_b, 1e-5)

    def loss(self, x, y, n_unused):
        """Mean full-vocabulary cross-entropy over targets y >= 0 (exact; see the module doc)."""
        return full_vocab_nll(self.hidden(x), self.emb, self.u, y, n_unused)


def full_vocab_nll(h, emb, u, y, n_unused):
    """Summed exact 50257-way NLL over targets y >= 0 and their count.

    h (B, T, C) final hidden states, emb (U, C) rows of the used ids, u (C) the row shared by
    the n_unused other ids, y (B, T) local target ids (-1 = no loss)."""
    used = h @ emb.t()                                                         # (B, T, U)
    unused = (h @ u).unsqueeze(-1) + math.log(n_unused)                        # (B, T, 1)
    lse = torch.logsumexp(torch.cat([used, unused], dim=-1), dim=-1)          # (B, T)
    keep = y >= 0
    tgt = used.gather(-1, y.clamp(min=0).unsqueeze(-1)).squeeze(-1)            # (B, T)
    nll = (lse - tgt)[keep]
    return nll.sum(), int(keep.sum())


def full_wte(model, used_ids):
    """(V, C) embedding matrix: every row u except the used ids' own rows."""
    wte = np.tile(model.u.detach().numpy()[None, :], (V, 1))                  # (V, C) every row u ...
    wte[used_ids] = model.emb.detach().numpy()                                 # ... except the used ids
    return wte


# ----------------------------------------------------------------------------- export

def export_tensors(model, used_ids):
    """HF GPT-2 names -> float32 numpy arrays (the exporter stores them as F16)."""
    C = model.C
    t = {"wte.weight": full_wte(model, used_ids)}
    names = {"ln_1_w": "ln_1.weight", "ln_1_b": "ln_1.bias", "c_attn_w": "attn.c_attn.weight",
             "c_attn_b": "attn.c_attn.bias", "attn_c_proj_w": "attn.c_proj.weight",
             "attn_c_proj_b": "attn.c_proj.bias", "ln_2_w": "ln_2.weight", "ln_2_b": "ln_2.bias",
             "c_fc_w": "mlp.c_fc.weight", "c_fc_b": "mlp.c_fc.bias", "mlp_c_proj_w": "mlp.c_proj.weight",
             "mlp_c_proj_b": "mlp.c_proj.bias"}
    for l in range(model.n_layer):
        for k, hf in names.items():
            t["h.%d.%s" % (l, hf)] = model.w(l, k).detach().numpy()
    t["ln_f.weight"] = model.lnf_w.detach().numpy()
    t["ln_f.bias"] = model.lnf_b.detach().numpy()
    assert t["h.0.attn.c_attn.weight"].shape == (C, 3 * C)
    return t


def round_to_f16(model):
    """Rounds every parameter to F16 precision in place (so training-code losses match the file)."""
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p.half().float())


def full_vocab_loss(tensors, cfg, seqs):
    """A plain forward pass over all 50257 logits from the exported tensors; mean NLL."""
    C, H, L = cfg["n_embd"], cfg["n_head"], cfg["n_layer"]
    D = C // H
    T_ = {k: torch.from_numpy(v.astype(np.float32)) for k, v in tensors.items()}
    pe = torch.from_numpy(sinusoidal(cfg["n_positions"], C))
    tot, n = 0.0, 0
    for s in seqs:
        ids = torch.tensor(s, dtype=torch.long)
        T = len(s) - 1
        h = T_["wte.weight"][ids[:-1]] + pe[:T]                               # (T, C)
        for l in range(L):
            p = "h.%d." % l
            a = F.layer_norm(h, (C,), T_[p + "ln_1.weight"], T_[p + "ln_1.bias"], 1e-5)
            qkv = a @ T_[p + "attn.c_attn.weight"] + T_[p + "attn.c_attn.bias"]   # (T, 3C)
            q, k, v = (t.view(T, H, D).transpose(0, 1) for t in qkv.split(C, -1))  # (H, T, D)
            s_ = q @ k.transpose(-1, -2) / math.sqrt(D)
            s_ = s_ + torch.full((T, T), float("-inf")).triu(1)
            z = (torch.softmax(s_, -1) @ v).transpose(0, 1).reshape(T, C)
            h = h + z @ T_[p + "attn.c_proj.weight"] + T_[p + "attn.c_proj.bias"]
            m = F.layer_norm(h, (C,), T_[p + "ln_2.weight"], T_[p + "ln_2.bias"], 1e-5)
            m = m @ T_[p + "mlp.c_fc.weight"] + T_[p + "mlp.c_fc.bias"]
            m = 0.5 * m * (1 + torch.tanh(math.sqrt(2 / math.pi) * (m + 0.044715 * m ** 3)))
            h = h + m @ T_[p + "mlp.c_proj.weight"] + T_[p + "mlp.c_proj.bias"]
        h = F.layer_norm(h, (C,), T_["ln_f.weight"], T_["ln_f.bias"], 1e-5)
        logits = h @ T_["wte.weight"].t()                                      # (T, V)
        tot += float(F.cross_entropy(logits, ids[1:], reduction="sum"))
        n += T
    return tot / n


# ----------------------------------------------------------------------------- plot

def plot_loss(path, log, name=NAME):
    steps = [r["step"] for r in log["train_curve"]]
    tr = [r["loss"] for r in log["train_curve"]]
    hs = [r["step"] for r in log["heldout_curve"]]
    hl = [r["loss"] for r in log["heldout_curve"]]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return plot_loss_plain(path, steps, tr, hs, hl)
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    ax.plot(steps, tr, label="train (mean of the last 50 steps)", color="#1f77b4")
    ax.plot(hs, hl, "o-", label="held-out", color="#d62728", markersize=3)
    ax.set_yscale("log")
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy (nats, 50257-way)")
    ax.set_title("%s: training loss" % name)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
    return "matplotlib"


def plot_loss_plain(path, steps, tr, hs, hl):
    """No matplotlib: two polylines on white, log-scaled y, written as PNG with zlib."""
    import struct
    import zlib
    W, Hh = 640, 360
    img = np.full((Hh, W, 3), 255, dtype=np.uint8)
    ys = np.log([*tr, *hl])
    lo, hi = ys.min(), ys.max()
    smax = max(steps[-1], hs[-1] if hs else 1)

    def xy(s, v):
        return int(20 + (W - 40) * s / smax), int(Hh - 20 - (Hh - 40) * (math.log(v) - lo) / (hi - lo + 1e-9))

    for xs, vs, col in ((steps, tr, (31, 119, 180)), (hs, hl, (214, 39, 40))):
        pts = [xy(s, v) for s, v in zip(xs, vs)]
        for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
            n = max(abs(x1 - x0), abs(y1 - y0), 1)
            for t in range(n + 1):
                img[y0 + (y1 - y0) * t // n, x0 + (x1 - x0) * t // n] = col
    raw = b"".join(b"\x00" + img[r].tobytes() for r in range(Hh))

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, Hh, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
    return "plain"


# ----------------------------------------------------------------------------- main

def evaluate(model, seqs, local, n_unused, batch=128):
    model.eval()
    seqs = sorted(seqs, key=len)   # less padding; the sum does not depend on the order
    tot, n = 0.0, 0
    with torch.no_grad():
        for s in range(0, len(seqs), batch):
            x, y = pad(seqs[s:s + batch], local)
            l, k = model.loss(x, y, n_unused)
            tot += float(l)
            n += k
    model.train()
    return tot / n


def add_training_args(ap, name):
    """The options both trainers share (data, schedule, seed, threads)."""
    ap.add_argument("--corpus", default=os.path.join(ROOT, "out", "corpus"))
    ap.add_argument("--out", default=os.path.join(ROOT, "assets", "models", name))
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--embd", type=int, default=128)
    ap.add_argument("--positions", type=int, default=128)
    ap.add_argument("--steps", type=int, default=6000)
    ap.add_argument("--batch", type=int, default=64, help="documents per step")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--wd", type=float, default=0.05)
    ap.add_argument("--emb-std", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads; on the shared 2-core machine 1 thread was 3-4x faster than 2")
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--no-node-check", action="store_true")


def prepare(args, tok_dir):
    """Seeds torch and numpy, tokenizes the corpus; returns the data both trainers use."""
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    tok = GPT2Tokenizer(os.path.join(tok_dir, "vocab.json"), os.path.join(tok_dir, "merges.txt"))
    assert tok.encode("The weather is nice") == [464, 6193, 318, 3621]
    d = {"rng": np.random.RandomState(args.seed), "tok": tok}
    d["train_docs"] = load_docs(os.path.join(args.corpus, "train.jsonl"))
    d["held_docs"] = load_docs(os.path.join(args.corpus, "heldout.jsonl"))
    d["train"], cache, cut_tr = tokenize_docs(tok, d["train_docs"], args.positions)
    d["held"], cache_h, cut_h = tokenize_docs(tok, d["held_docs"], args.positions)
    cache.update(cache_h)
    d["node_checked"] = None
    if not args.no_node_check:
        d["node_checked"] = check_with_node(cache, "/tmp/npmw/node_modules/gpt-3-encoder")
    d["used_ids"] = np.array(sorted({i for s in d["train"] + d["held"] for i in s}), dtype=np.int64)
    d["local"] = np.full(V, -1, dtype=np.int64)
    d["local"][d["used_ids"]] = np.arange(len(d["used_ids"]))
    d["n_unused"] = V - len(d["used_ids"])
    d["cut"] = cut_tr + cut_h
    d["n_train_tok"] = sum(len(s) - 1 for s in d["train"])
    d["n_held_tok"] = sum(len(s) - 1 for s in d["held"])
    print("train %d docs %d targets, held-out %d docs %d targets, used ids %d, cut %d+%d, node-checked %s"
          % (len(d["train"]), d["n_train_tok"], len(d["held"]), d["n_held_tok"], len(d["used_ids"]), cut_tr, cut_h,
             d["node_checked"]), flush=True)
    return d


def fit(model, d, args):
    """AdamW with warm-up and cosine decay; returns the loss curves and the seconds of steps."""
    decay = [p for n, p in model.named_parameters() if p.dim() == 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.wd},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95), eps=1e-8)

    def lr_at(step):
        if step < args.warmup:
            return args.lr * (step + 1) / args.warmup
        t = (step - args.warmup) / max(1, args.steps - args.warmup)
        return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))

    train, held, local, n_unused = d["train"], d["held"], d["local"], d["n_unused"]
    lengths = [len(s) for s in train]
    log = {"train_curve": [], "heldout_curve": []}
    batches = []
    recent = []
    t0 = time.time()
    for step in range(args.steps):
        if not batches:
            batches = make_batches(lengths, args.batch, d["rng"])
        x, y = pad([train[i] for i in batches.pop()], local)
        for gp in opt.param_groups:
            gp["lr"] = lr_at(step)
        l, k = model.loss(x, y, n_unused)
        opt.zero_grad(set_to_none=True)
        (l / k).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        recent.append(float(l) / k)
        recent = recent[-50:]
        if step % 10 == 0 or step == args.steps - 1:
            log["train_curve"].append({"step": step, "loss": sum(recent) / len(recent)})
        if step % args.eval_every == 0 or step == args.steps - 1:
            hl = evaluate(model, held, local, n_unused)
            log["heldout_curve"].append({"step": step, "loss": hl})
            print("step %5d  train %.4f  held-out %.4f  lr %.2e  %.0fs"
                  % (step, sum(recent) / len(recent), hl, lr_at(step), time.time() - t0), flush=True)
    return log, time.time() - t0


def final_losses(model, d):
    """Rounds the model to F16 and measures train, train-texts-seen-once and held-out losses."""
    round_to_f16(model)
    local, n_unused = d["local"], d["n_unused"]
    counts = {}
    for doc in d["train_docs"] + d["held_docs"]:
        counts[doc] = counts.get(doc, 0) + 1
    # Held-out texts occur once in the corpus; the same kind of training texts, for comparison.
    train_once = [s for s, doc in zip(d["train"], d["train_docs"]) if counts[doc] == 1]
    return {"final_train_loss": evaluate(model, d["train"], local, n_unused),
            "final_heldout_loss": evaluate(model, d["held"], local, n_unused),
            "final_train_loss_texts_seen_once": evaluate(model, train_once, local, n_unused),
            "train_documents_seen_once": len(train_once)}


def check_export(final_held, check, t1, t2):
    print("final evaluation %.0f s, full-vocab check %.0f s" % (t2 - t1, time.time() - t2), flush=True)
    print("held-out loss: training code (F16 weights) %.6f, full-vocab forward from the file %.6f"
          % (final_held, check), flush=True)
    if abs(check - final_held) > 1e-3:
        raise SystemExit("exported model disagrees with the training code")


def write_config(out, cfg):
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")


def write_log(args, d, log, losses, extra, name):
    """training_log.json, loss_curve.png and corpus_stats.json in the model folder."""
    log.update({
        "model": name, "args": vars(args), "torch": torch.__version__, "threads": args.threads,
        "train_documents": len(d["train"]), "heldout_documents": len(d["held"]),
        "train_targets": d["n_train_tok"], "heldout_targets": d["n_held_tok"],
        "documents_cut_to_n_positions": d["cut"],
        "used_token_ids": int(len(d["used_ids"])), "unused_token_ids": int(d["n_unused"]),
        "node_gpt3_encoder_checked_documents": d["node_checked"],
    })
    log.update(losses)
    log.update(extra)
    log["plot"] = plot_loss(os.path.join(args.out, "loss_curve.png"), log, name)
    if os.path.exists(os.path.join(args.corpus, "stats.json")):
        shutil.copy(os.path.join(args.corpus, "stats.json"), os.path.join(args.out, "corpus_stats.json"))
    with open(os.path.join(args.out, "training_log.json"), "w") as f:
        json.dump(log, f, indent=1)
        f.write("\n")
    print("final train %.4f (texts seen once %.4f) held-out %.4f, %d parameters, %d bytes, %.0f s"
          % (losses["final_train_loss"], losses["final_train_loss_texts_seen_once"], losses["final_heldout_loss"],
             log["parameters"], log["file_bytes"], log["total_seconds"]))


def export_and_check(args, d, model, log, cfg, tensors_of, loss_of, times, name):
    """F16 export, config.json, the held-out loss of the file read back through loss_of (a plain
    full-vocabulary forward pass), then training_log.json. times: (start, end of the steps)."""
    t_start, train_time = times
    # Export in F16, then measure the losses of exactly what is on disk.
    t1 = time.time()
    losses = final_losses(model, d)
    tensors = tensors_of(model, d["used_ids"])
    st_path = os.path.join(args.out, "model.safetensors")
    stio.write(st_path, {k: v.astype(np.float16) for k, v in tensors.items()}, {"format": "pt"})
    write_config(args.out, cfg)
    # Independent check: reload the file, full 50257-way forward, same held-out loss.
    t2 = time.time()
    back, _ = stio.read(st_path)
    check = loss_of(back, cfg, d["held"])
    check_export(losses["final_heldout_loss"], check, t1, t2)
    write_log(args, d, log, losses, {
        "heldout_loss_full_vocab_from_file": check,
        "parameters": sum(int(np.prod(v.shape)) for v in tensors.values()), "file_bytes": os.path.getsize(st_path),
        "train_seconds": round(train_time, 1), "total_seconds": round(time.time() - t_start, 1),
    }, name)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_training_args(ap, NAME)
    args = ap.parse_args()

    t_start = time.time()
    d = prepare(args, args.out)
    model = TinyGPT(len(d["used_ids"]), args.layers, args.heads, args.embd, args.positions, args.emb_std)
    log, train_time = fit(model, d, args)
    cfg = {
        "model_type": "gpt2",
        "architectures": ["GPT2LMHeadModel"],
        "n_layer": args.layers, "n_head": args.heads, "n_embd": args.embd,
        "n_positions": args.positions, "n_ctx": args.positions, "vocab_size": V,
        "n_inner": 4 * args.embd, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new",
        "bos_token_id": 50256, "eos_token_id": 50256, "tie_word_embeddings": True,
        "torch_dtype": "float16",
        "ttrace_positions": "sinusoidal",
    }
    export_and_check(args, d, model, log, cfg, export_tensors, full_vocab_loss, (t_start, train_time), NAME)


if __name__ == "__main__":
    main()
