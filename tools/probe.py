#!/usr/bin/python3
"""What did the default model learn? A plain numpy forward pass over the exported files.

  /usr/bin/python3 tools/probe.py [--model assets/models/tiny-classroom] [--corpus out/corpus]
  /usr/bin/python3 tools/probe.py --model assets/models/tiny-llama

Reads config.json, model.safetensors, vocab.json and merges.txt (or tokenizer.json) from the
model folder (not the training code), runs GPT-2's forward pass (or, for model_type llama,
train_llama.py's plain Llama forward) in float64 over all 50257 logits and writes:
  - expected.json in the model folder: each demo prompt's token ids and its top-5 next
    tokens with probabilities (what the model card records and the CI test checks);
  - heads.json in the model folder: attention statistics of every head on held-out text
    and on fresh repeat-after-me drills, and the heads that look interpretable;
  - a Markdown summary on stdout for the model card.
"""

import argparse
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gpt2_bpe import GPT2Tokenizer  # noqa: E402
import stio  # noqa: E402

ROOT = os.path.dirname(HERE)
PROMPTS = [
    "The weather is nice",
    "The weather",
    "I love",
    "The dog bit the",
    "What day is it today?",
    "Say the words: red dog milk book. Say them again: red dog milk",
    "철수는 영희에게 책을",
    "나는 오늘 밥을",
]


def sinusoidal(P, C):
    pe = np.zeros((P, C))
    for pos in range(P):
        for i in range(0, C, 2):
            a = pos / 10000 ** (i / C)
            pe[pos, i] = math.sin(a)
            pe[pos, i + 1] = math.cos(a)
    return pe


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


class Model:
    def __init__(self, d):
        with open(os.path.join(d, "config.json")) as f:
            self.cfg = json.load(f)
        raw, _ = stio.read(os.path.join(d, "model.safetensors"))
        self.w = {k: v.astype(np.float64) for k, v in raw.items()}
        c = self.cfg
        assert c.get("ttrace_positions") == "sinusoidal" and "wpe.weight" not in self.w
        self.L, self.H, self.P = c["n_layer"], c["n_head"], c["n_positions"]
        self.pe = sinusoidal(c["n_positions"], c["n_embd"])

    def forward(self, ids):
        """ids [T] -> probs (T, V), patterns [layer] (H, T, T)."""
        c, w = self.cfg, self.w
        C, H, eps = c["n_embd"], c["n_head"], c["layer_norm_epsilon"]
        D = C // H
        T = len(ids)
        x = w["wte.weight"][ids] + self.pe[:T]                                  # (T, C)
        pats = []
        for l in range(c["n_layer"]):
            p = "h.%d." % l
            a = layer_norm(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
            qkv = a @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]   # (T, 3C)
            q, k, v = (qkv[:, i * C:(i + 1) * C].reshape(T, H, D).transpose(1, 0, 2) for i in range(3))  # (H, T, D)
            s = q @ k.transpose(0, 2, 1) / math.sqrt(D)                          # (H, T, T)
            s = np.where(np.triu(np.ones((T, T), bool), 1), -np.inf, s)
            s = np.exp(s - s.max(-1, keepdims=True))
            pat = s / s.sum(-1, keepdims=True)
            pats.append(pat)
            z = (pat @ v).transpose(1, 0, 2).reshape(T, C)
            x = x + z @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
            m = layer_norm(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
            m = gelu_tanh(m @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"])  # (T, F)
            x = x + m @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
        x = layer_norm(x, w["ln_f.weight"], w["ln_f.bias"], eps)
        logits = x @ w["wte.weight"].T                                           # (T, V)
        logits -= logits.max(-1, keepdims=True)
        probs = np.exp(logits)
        probs /= probs.sum(-1, keepdims=True)
        return probs, pats


class LlamaModel:
    """The same interface for a LlamaForCausalLM folder: train_llama.py's plain forward pass
    (float64, written apart from its training model) over all 50257 logits."""

    def __init__(self, d):
        import train_llama
        with open(os.path.join(d, "config.json")) as f:
            self.cfg = json.load(f)
        raw, _ = stio.read(os.path.join(d, "model.safetensors"))
        self.W, self.wte32 = train_llama.float64_tensors(raw)
        self.run = train_llama.plain_forward
        c = self.cfg
        self.L, self.H, self.P = c["num_hidden_layers"], c["num_attention_heads"], c["max_position_embeddings"]

    def forward(self, ids):
        """ids [T] -> probs (T, V), patterns [layer] (H, T, T)."""
        logits, pats = self.run(self.W, self.cfg, ids, self.wte32)
        logits = logits.double().numpy()
        logits -= logits.max(-1, keepdims=True)
        probs = np.exp(logits)
        return probs / probs.sum(-1, keepdims=True), pats


def load(d):
    """The model (GPT-2 or Llama, by config.json's model_type) and its tokenizer: tokenizer.json
    when the folder has one, else GPT-2's vocab.json and merges.txt."""
    with open(os.path.join(d, "config.json")) as f:
        llama = json.load(f).get("model_type") == "llama"
    tj = os.path.join(d, "tokenizer.json")
    tok = (GPT2Tokenizer(tj) if os.path.exists(tj)
           else GPT2Tokenizer(os.path.join(d, "vocab.json"), os.path.join(d, "merges.txt")))
    return (LlamaModel(d) if llama else Model(d)), tok


def heldout_stats(model, tok, docs, limit):
    """Held-out text, query positions t >= 2: mean attention of each head to t-1, to 0 and to
    t, and the mean entropy of its rows; then, within the first sentence (up to the first
    '.', '?' or '!') of the documents that begin with "The " (shaped like the demo prompt),
    the mean attention to token 0."""
    L, H = model.L, model.H
    acc = {k: np.zeros((L, H)) for k in ("prev", "first", "self", "entropy", "first_in_the_sentence")}
    n = n1 = 0
    ends = {tok.encode(x)[0] for x in (".", "?", "!")}
    for d in docs[:limit]:
        ids = tok.encode(d)[:model.P]
        T = len(ids)
        if T < 3:
            continue
        end = next((i for i, x in enumerate(ids) if x in ends), T - 1)
        if not d.startswith("The ") or tok.encode(":")[0] in ids[:end]:
            end = 0   # only first sentences shaped like the demo prompt: "The ..."
        _, pats = model.forward(ids)
        t = np.arange(2, T)
        for l in range(L):
            P = pats[l][:, 2:, :]                                                  # (H, T-2, T)
            acc["prev"][l] += P[:, t - 2, t - 1].sum(-1)
            acc["first"][l] += P[:, :, 0].sum(-1)
            acc["self"][l] += P[:, t - 2, t].sum(-1)
            acc["entropy"][l] += -(P * np.log(np.maximum(P, 1e-30))).sum(-1).sum(-1)
            acc["first_in_the_sentence"][l] += P[:, :max(0, end - 1), 0].sum(-1)
        n += T - 2
        n1 += max(0, end - 1)
    out = {k: (v / (n1 if k == "first_in_the_sentence" else n)).round(4).tolist() for k, v in acc.items()}
    out.update({"documents": min(limit, len(docs)), "query_positions": n, "query_positions_the_sentence": n1})
    return out


def drill(tok, words):
    """A repeat-after-me drill as in the corpus; returns ids and where the two lists start."""
    head = tok.encode("Say the words:")
    lst = tok.encode(" " + " ".join(words))
    mid = tok.encode(". Say them again:")
    return head + lst + mid + lst, len(head), len(head) + len(lst) + len(mid), len(lst)


def drill_stats(model, tok, n_drills, seed):
    """Fresh random drills "Say the words: w1 .. w5. Say them again: w1 .. w5": at each token of
    the second list (but its last), the mean attention to the same token in the first list
    (same word) and to the token right after it (induction); and to t-1 over all t >= 2."""
    import random
    import corpus
    r = random.Random(seed)
    L, H = model.L, model.H
    acc = {k: np.zeros((L, H)) for k in ("induction", "same", "prev")}
    n = n_prev = 0
    for _ in range(n_drills):
        ids, a, b, k = drill(tok, [r.choice(corpus.DRILL_WORDS) for _ in range(5)])
        _, pats = model.forward(ids)
        q = np.arange(b, b + k - 1)                                               # second copy, not the last
        t = np.arange(2, len(ids))
        for l in range(L):
            P = pats[l]
            acc["same"][l] += P[:, q, q - b + a].sum(-1)
            acc["induction"][l] += P[:, q, q - b + a + 1].sum(-1)
            acc["prev"][l] += P[:, t, t - 1].sum(-1)
        n += k - 1
        n_prev += len(ids) - 2
    out = {"induction": (acc["induction"] / n).round(4).tolist(), "same": (acc["same"] / n).round(4).tolist(),
           "prev": (acc["prev"] / n_prev).round(4).tolist(), "drills": n_drills, "seed": seed, "query_positions": n}
    return out


def greedy(model, tok, ids, n):
    ids = list(ids)
    for _ in range(n):
        probs, _ = model.forward(ids)
        nxt = int(probs[-1].argmax())
        if nxt == tok.eot_id:
            break
        ids.append(nxt)
    return ids


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=os.path.join(ROOT, "assets", "models", "tiny-classroom"))
    ap.add_argument("--corpus", default=os.path.join(ROOT, "out", "corpus"))
    ap.add_argument("--docs", type=int, default=600, help="held-out documents for the head statistics")
    args = ap.parse_args()

    model, tok = load(args.model)
    expected = {"model": os.path.basename(os.path.abspath(args.model)), "top_k": 5, "prompts": []}
    print("## Top-5 next tokens\n")
    for text in PROMPTS:
        ids = tok.encode(text)
        probs, _ = model.forward(ids)
        last = probs[-1]
        top = np.argsort(-last, kind="stable")[:5]
        cont = greedy(model, tok, ids, 40)
        entry = {
            "prompt": text, "ids": ids,
            "top5_ids": [int(i) for i in top],
            "top5_tokens": [tok.token_str(int(i)) for i in top],
            "top5_probs": [round(float(last[i]), 6) for i in top],
            "greedy": tok.decode(cont[len(ids):]),
        }
        expected["prompts"].append(entry)
        cells = ", ".join("`%s` %.3f" % (repr(s)[1:-1], p) for s, p in zip(entry["top5_tokens"], entry["top5_probs"]))
        print("| %s | %s | %s | %s |" % (text, ids, cells, repr(entry["greedy"])[1:-1]))
    with open(os.path.join(args.model, "expected.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, ensure_ascii=False, indent=1)
        f.write("\n")

    held = []
    path = os.path.join(args.corpus, "heldout.jsonl")
    if not os.path.exists(path):
        raise SystemExit("no %s: run tools/corpus.py first" % path)
    with open(path, encoding="utf-8") as f:
        held = [json.loads(line) for line in f]
    L, H = model.L, model.H
    hs = heldout_stats(model, tok, held, args.docs)
    ds = drill_stats(model, tok, 100, 7)
    heads = {"heldout": hs, "drills": ds}
    cells = [(l, h) for l in range(L) for h in range(H)]
    heads["induction_heads"] = [[l, h, ds["induction"][l][h]] for l, h in cells if ds["induction"][l][h] > 0.5]
    heads["first_token_heads"] = [[l, h, hs["first_in_the_sentence"][l][h]] for l, h in cells
                                  if hs["first_in_the_sentence"][l][h] > 0.7]
    pl, ph = max(cells, key=lambda c: hs["prev"][c[0]][c[1]])
    heads["previous_token_head"] = [pl, ph, hs["prev"][pl][ph]]
    with open(os.path.join(args.model, "heads.json"), "w") as f:
        json.dump(heads, f, indent=1)
        f.write("\n")
    print("\n## Heads\n")
    print("held-out: %d documents, %d query positions (%d in first sentences that begin with \"The\"); drills: %d, %d query positions\n"
          % (hs["documents"], hs["query_positions"], hs["query_positions_the_sentence"], ds["drills"], ds["query_positions"]))
    print("| head | t-1 | 0 | t | entropy | 0, in \"The ...\" | drills: induction | drills: same word | drills: t-1 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for l, h in cells:
        print("| %d.%d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |" % (
            l, h, hs["prev"][l][h], hs["first"][l][h], hs["self"][l][h], hs["entropy"][l][h],
            hs["first_in_the_sentence"][l][h], ds["induction"][l][h], ds["same"][l][h], ds["prev"][l][h]))
    print("\ninduction heads:", heads["induction_heads"], " first-token heads:", heads["first_token_heads"],
          " strongest t-1 head:", heads["previous_token_head"])


if __name__ == "__main__":
    main()
