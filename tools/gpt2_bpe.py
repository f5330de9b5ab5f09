"""GPT-2's byte-level BPE tokenizer in plain Python (no third-party packages).

It reads GPT-2's own files: vocab.json (token string -> id) and merges.txt (one merge per
line, best first). Encoding follows OpenAI's encoder.py:

  1. split the text with GPT-2's pattern
       's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+
  2. map each piece's UTF-8 bytes to printable characters (bytes_to_unicode)
  3. merge adjacent symbols, always the pair with the best (lowest) merge rank first
  4. look every merged symbol up in vocab.json

Python's `re` has no \\p{L} / \\p{N}, so the two classes are built once from
`unicodedata` (every code point whose category starts with L, resp. N).
"""

import json
import re
import sys
import unicodedata

EOT = "<|endoftext|>"
GPT2_PATTERN_TEXT = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"


def bytes_to_unicode():
    """GPT-2's reversible map from the 256 byte values to printable characters."""
    bs = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
          + list(range(ord("®"), ord("ÿ") + 1)))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, (chr(c) for c in cs)))


def _category_class(prefix):
    """A regex character-class body listing every code point whose category starts with prefix."""
    ranges = []
    start = prev = None
    for cp in range(sys.maxunicode + 1):
        if unicodedata.category(chr(cp)).startswith(prefix):
            if start is None:
                start = cp
            elif cp != prev + 1:
                ranges.append((start, prev))
                start = cp
            prev = cp
    if start is not None:
        ranges.append((start, prev))

    def esc(cp):
        return "\\U%08x" % cp

    return "".join(esc(a) if a == b else esc(a) + "-" + esc(b) for a, b in ranges)


def _gpt2_pattern():
    L = _category_class("L")
    N = _category_class("N")
    return re.compile(
        r"'s|'t|'re|'ve|'m|'ll|'d"
        + r"| ?[" + L + r"]+"
        + r"| ?[" + N + r"]+"
        + r"| ?[^\s" + L + N + r"]+"
        + r"|\s+(?!\S)|\s+")


class GPT2Tokenizer:
    def __init__(self, vocab_path, merges_path=None):
        """GPT-2's vocab.json and merges.txt, or (merges_path None) a tokenizer.json whose BPE
        holds them and whose pre-tokenizer splits with GPT-2's own pattern."""
        with open(vocab_path, encoding="utf-8") as f:
            self.encoder = json.load(f)
        if merges_path is None:
            merges = self._from_tokenizer_json(vocab_path, self.encoder)
            self.encoder = self.encoder["model"]["vocab"]
        else:
            with open(merges_path, encoding="utf-8") as f:
                lines = f.read().split("\n")
            merges = [tuple(l.split()) for l in lines[1:] if l.strip()]
        self.decoder = {v: k for k, v in self.encoder.items()}
        self.ranks = {m: i for i, m in enumerate(merges)}
        self.byte_encoder = bytes_to_unicode()
        self.byte_decoder = {v: k for k, v in self.byte_encoder.items()}
        self.pat = _gpt2_pattern()
        self.cache = {}
        self.eot_id = self.encoder[EOT]

    @staticmethod
    def _from_tokenizer_json(path, doc):
        pre = json.dumps(doc.get("pre_tokenizer"))
        if doc["model"].get("type") != "BPE" or GPT2_PATTERN_TEXT.replace("\\", "\\\\") not in pre:
            raise SystemExit("%s: not a byte-level BPE split with GPT-2's pattern" % path)
        return [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in doc["model"]["merges"]]

    def bpe(self, token):
        if token in self.cache:
            return self.cache[token]
        word = list(token)
        while len(word) > 1:
            best = None
            best_rank = None
            for i in range(len(word) - 1):
                r = self.ranks.get((word[i], word[i + 1]))
                if r is not None and (best_rank is None or r < best_rank):
                    best, best_rank = (word[i], word[i + 1]), r
            if best is None:
                break
            merged = []
            i = 0
            while i < len(word):
                if i < len(word) - 1 and (word[i], word[i + 1]) == best:
                    merged.append(word[i] + word[i + 1])
                    i += 2
                else:
                    merged.append(word[i])
                    i += 1
            word = merged
        self.cache[token] = word
        return word

    def pieces(self, text):
        """The pre-tokenizer's pieces (before BPE)."""
        return self.pat.findall(text)

    def encode(self, text):
        ids = []
        for piece in self.pat.findall(text):
            mapped = "".join(self.byte_encoder[b] for b in piece.encode("utf-8"))
            ids.extend(self.encoder[t] for t in self.bpe(mapped))
        return ids

    def token_bytes(self, i):
        """The raw bytes of one token (may be part of a UTF-8 character)."""
        return bytes(self.byte_decoder[c] for c in self.decoder[i])

    def decode(self, ids):
        return b"".join(self.token_bytes(i) for i in ids).decode("utf-8", errors="replace")

    def token_str(self, i):
        """One token for display: its text, or its bytes as <xx> when not valid UTF-8 alone."""
        b = self.token_bytes(i)
        try:
            return b.decode("utf-8")
        except UnicodeDecodeError:
            return "".join("<%02X>" % x for x in b)


if __name__ == "__main__":
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    d = os.path.join(here, "..", "assets", "models", "tiny-classroom")
    tok = GPT2Tokenizer(os.path.join(d, "vocab.json"), os.path.join(d, "merges.txt"))
    for t in sys.argv[1:] or ["The weather is nice"]:
        ids = tok.encode(t)
        print(ids, [tok.token_str(i) for i in ids])
