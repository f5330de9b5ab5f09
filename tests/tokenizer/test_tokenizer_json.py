#!/usr/bin/python3
"""ttrace reading a Hugging Face tokenizer.json, from the outside.

    test_tokenizer_json.py TTRACE FIXTURE GPT2_DIR MAKE_TOKENIZER_JSON

- tokenizer.json files written by make_tokenizer_json.py from GPT-2's vocab.json and
  merges.txt (merges as pairs and as "a b" strings; ByteLevel alone and a Split inside a
  Sequence) give exactly the fixture's GPT-2 ids;
- Llama-3's and Qwen2's Split patterns and SmolLM's Digits step give the ids that a BPE
  written here (Python's `regex` for the patterns, encoder.py's merge loop) gives;
- added tokens: non-special ones are found in the text, special ones only by --bos;
- files ttrace does not implement are refused with one line, exit code 3.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import regex

TTRACE, FIXTURE, GPT2, MAKE = sys.argv[1:5]
failures = []
checks = 0


def check(name, cond, detail=""):
    global checks
    checks += 1
    if not cond:
        failures.append(f"{name}: {detail}")


def tokenize(folder, *args, text=None):
    argv = [TTRACE, "tokenize", "--dir", folder, *args]
    stdin = None
    if text is not None:
        if text.endswith("\n") or text.strip() == "" or text.startswith("-"):
            argv += ["-"]
            stdin = (text + "\n").encode()  # "-" drops one trailing newline
        else:
            argv += ["--", text]
    p = subprocess.run(argv, input=stdin, capture_output=True)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def ids_of(folder, text, *args):
    rc, out, err = tokenize(folder, "--ids", *args, text=text)
    return [int(x) for x in out.split()] if rc == 0 else f"exit {rc}: {err.strip()}"


# ---- an independent byte-level BPE, written from encoder.py -------------------------------
def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


B2U = bytes_to_unicode()
VOCAB = json.load(open(os.path.join(GPT2, "vocab.json"), encoding="utf-8"))
RANKS = {tuple(l.split(" ")): i for i, l in enumerate(open(os.path.join(GPT2, "merges.txt"), encoding="utf-8")
                                                   .read().split("\n")[1:]) if l}


def bpe(piece):
    word = [B2U[b] for b in piece.encode("utf-8")]
    while len(word) > 1:
        pairs = {(word[i], word[i + 1]) for i in range(len(word) - 1)}
        best = min(pairs, key=lambda p: RANKS.get(p, float("inf")))
        if best not in RANKS:
            break
        out, i = [], 0
        while i < len(word):
            if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                out.append(word[i] + word[i + 1])
                i += 2
            else:
                out.append(word[i])
                i += 1
        word = out
    return [VOCAB[w] for w in word]


def isolated(pattern, pieces):
    """Hugging Face's Split(behavior=Isolated): matches and the text between them."""
    out = []
    for p in pieces:
        at = 0
        for m in regex.finditer(pattern, p):
            if m.start() == m.end():
                continue
            if m.start() > at:
                out.append(p[at:m.start()])
            out.append(m.group())
            at = m.end()
        if at < len(p):
            out.append(p[at:])
    return out


def reference(text, patterns, added=()):
    """Ids for text: non-special added tokens first (leftmost, longest), then each pattern."""
    ids, seg, i = [], 0, 0
    segments = []
    while i < len(text):
        hit = max((a for a in added if text.startswith(a[0], i)), key=lambda a: len(a[0]), default=None)
        if hit:
            segments.append(text[seg:i])
            segments.append(hit)
            i = seg = i + len(hit[0])
        else:
            i += 1
    segments.append(text[seg:])
    for s in segments:
        if isinstance(s, tuple):
            ids.append(s[1])
            continue
        pieces = [s] if s else []
        for pat in patterns:
            pieces = isolated(pat, pieces)
        for p in pieces:
            ids += bpe(p)
    return ids


GPT2_RE = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
LLAMA3_RE = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
             r"\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_RE = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
            r"\s*[\r\n]+|\s+(?!\S)|\s+")


def make(folder, *args):
    os.makedirs(folder, exist_ok=True)
    subprocess.run([sys.executable, MAKE, GPT2, os.path.join(folder, "tokenizer.json"), *args], check=True)
    return folder


def edit(folder, src, change):
    """A copy of src's tokenizer.json with change(doc) applied."""
    os.makedirs(folder, exist_ok=True)
    doc = json.load(open(os.path.join(src, "tokenizer.json"), encoding="utf-8"))
    change(doc)
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False)
    return folder


def main():
    cases = [c for c in json.load(open(FIXTURE, encoding="utf-8"))["cases"] if "\0" not in c["text"]]
    tmp = tempfile.mkdtemp(prefix="tt_tokjson_")
    try:
        # 1. GPT-2 as tokenizer.json, four ways: the fixture's ids exactly. (The tokenizer
        # tests run every fixture string in-process on two of these; here a sample goes
        # through the command line, each case a separate run.)
        sample = cases[::5] + [c for c in cases if any(ord(ch) > 0x7F and regex.match(r"\s", ch) or ch == "\u180e"
                                                      for ch in c["text"])]
        for merges in ("pairs", "strings"):
            for pre in ("bytelevel", "split"):
                d = make(os.path.join(tmp, f"gpt2-{merges}-{pre}"), "--merges", merges, "--pre", pre)
                few = sample[::4]
                bad = [(c["text"], got) for c in few if (got := ids_of(d, c["text"])) != c["ids"]]
                check(f"GPT-2 tokenizer.json ({merges}, {pre}) on {len(few)} fixture strings", not bad, bad[:3])
        d = os.path.join(tmp, "gpt2-pairs-bytelevel")
        rc, out, err = tokenize(d, text="The weather is nice")
        check("table from tokenizer.json", rc == 0 and "Ġweather" in out and "3621" in out, out + err)

        # 2. Other models' pre-tokenizers on GPT-2's merges, against the BPE written above.
        texts = [c["text"] for c in sample[::2]] + ["I'M HERE, you'RE there", "12345 and 1234567", "call 5551234567 now", "a\r\n\r\nb  c\t\td",
                                              "x = f(1,22,333);\n\n  return y;"]
        for name, pre, patterns in [
            ("Llama-3 Split", [{"type": "Split", "pattern": {"Regex": LLAMA3_RE}, "behavior": "Isolated",
                                "invert": False}], [LLAMA3_RE]),
            ("Qwen2 Split", [{"type": "Split", "pattern": {"Regex": QWEN2_RE}, "behavior": "Isolated",
                              "invert": False}], [QWEN2_RE]),
            ("SmolLM Digits", [{"type": "Digits", "individual_digits": True}], [r"\p{N}", GPT2_RE]),
        ]:
            use_regex = name.startswith("SmolLM")
            seq = {"type": "Sequence", "pretokenizers": pre + [{"type": "ByteLevel", "add_prefix_space": False,
                                                                 "trim_offsets": True, "use_regex": use_regex}]}
            folder = edit(os.path.join(tmp, name.replace(" ", "-")), d, lambda doc: doc.update(pre_tokenizer=seq))
            bad = [(t, got, want) for t in texts if (got := ids_of(folder, t)) != (want := reference(t, patterns))]
            check(f"{name} on {len(texts)} strings", not bad, bad[:2])
        check("the Llama-3 pattern gives other ids than GPT-2's on these strings (the test can fail)",
              sum(reference(t, [LLAMA3_RE]) != reference(t, [GPT2_RE]) for t in texts) >= 2)

        # 2b. tokenizer_config.json beside a Llama-3-style file (GPT-2's merges in a Sequence
        # of Split + ByteLevel): add_bos_token puts bos_token first without --bos.
        cfgd = make(os.path.join(tmp, "config-bos"), "--merges", "pairs", "--pre", "split", "--special", "<|begin_of_text|>")
        plain = ids_of(cfgd, "The weather is nice")
        check("the Split layout gives GPT-2's ids", plain == [464, 6193, 318, 3621], plain)
        bos_id = 50257
        for conf, want in [({"add_bos_token": True, "bos_token": "<|begin_of_text|>"}, [bos_id] + plain),
                           ({"add_bos_token": True, "bos_token": {"__type": "AddedToken", "content": "<|endoftext|>"}},
                            [50256] + plain),
                           ({"add_bos_token": False, "bos_token": "<|begin_of_text|>"}, plain)]:
            with open(os.path.join(cfgd, "tokenizer_config.json"), "w") as f:
                json.dump(conf, f)
            got = ids_of(cfgd, "The weather is nice")
            check(f"tokenizer_config.json {conf}", got == want, (got, want))
        rc, out, err = tokenize(cfgd, "--ids", "--bos", text="The weather is nice")
        check("--bos uses tokenizer_config.json's bos_token", out.split()[:1] == [str(bos_id)], out + err)
        with open(os.path.join(cfgd, "tokenizer_config.json"), "w") as f:
            json.dump({"add_bos_token": True, "bos_token": "<nope>"}, f)
        rc, out, err = tokenize(cfgd, "--ids", text="hi")
        check("a bos_token that is no token is refused", rc == 3 and err.count("\n") == 1 and "<nope>" in err, (rc, err))
        # SentencePiece-style BPE (Llama 2): refused, naming it.
        sp = edit(os.path.join(tmp, "sentencepiece"), d, lambda doc: (doc["model"].update(byte_fallback=True),
                  doc.update(normalizer={"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "\u2581"}]})))
        rc, out, err = tokenize(sp, text="hi")
        check("SentencePiece byte_fallback is refused by name", rc == 3 and "SentencePiece" in err and out == "", (rc, err))

        # 3. Added tokens: non-special ones are found in text; special ones are ordinary text.
        a = make(os.path.join(tmp, "added"), "--added", "weather is", "--added", "ttrace", "--special", "<|im_start|>",
                 "--bos-template", "<|im_start|>")
        added = [("weather is", 50257), ("ttrace", 50258)]
        for t in ["The weather is nice", "ttrace: the weather isn't", "<|im_start|>ttrace<|endoftext|>", "ttraceweather is"]:
            want = reference(t, [GPT2_RE], added)
            check(f"added tokens in {t!r}", ids_of(a, t) == want, (ids_of(a, t), want))
        check("a non-special added token is one id", ids_of(a, "The weather is nice") == [464, 220, 50257, 3621],
              ids_of(a, "The weather is nice"))
        check("--bos takes the TemplateProcessing token", ids_of(a, "hi", "--bos") == [50259, 5303],
              ids_of(a, "hi", "--bos"))
        check("--bos of GPT-2's tokenizer.json is <|endoftext|>", ids_of(d, "hi", "--bos") == [50256, 5303],
              ids_of(d, "hi", "--bos"))
        rc, out, err = tokenize(a, text="ttrace")
        check("table shows the added token", rc == 0 and "50258" in out and "ttrace" in out, out + err)
        rc, out, err = tokenize(a, "--ids", "--bos", "--", "x")
        check("--bos --ids", rc == 0 and out == "50259 87\n", (rc, out, err))

        # 4. What ttrace does not implement, or a broken file: one line, exit 3.
        def setp(path, value):
            def change(doc):
                node = doc
                for k in path[:-1]:
                    node = node[k]
                node[path[-1]] = value
            return change

        metaspace = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}
        bad_files = [
            ("Metaspace pre-tokenizer", setp(["pre_tokenizer"], metaspace), "Metaspace"),
            ("NFC normalizer", setp(["normalizer"], {"type": "NFC"}), "normalizer NFC"),
            ("byte_fallback", setp(["model", "byte_fallback"], True), "byte_fallback"),
            ("Unigram model", setp(["model", "type"], "Unigram"), "Unigram"),
            ("dropout", setp(["model", "dropout"], 0.1), "dropout"),
            ("subword prefix", setp(["model", "continuing_subword_prefix"], "##"), "continuing_subword_prefix"),
            ("MergedWithPrevious", setp(["pre_tokenizer"], {"type": "Sequence", "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": "x"}, "behavior": "MergedWithPrevious", "invert": False},
                {"type": "ByteLevel", "add_prefix_space": False, "use_regex": False}]}), "MergedWithPrevious"),
            ("inverted Split", setp(["pre_tokenizer"], {"type": "Sequence", "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": "x"}, "behavior": "Isolated", "invert": True},
                {"type": "ByteLevel", "add_prefix_space": False, "use_regex": False}]}), "invert"),
            ("ByteLevel before Split", setp(["pre_tokenizer"], {"type": "Sequence", "pretokenizers": [
                {"type": "ByteLevel", "add_prefix_space": False, "use_regex": False},
                {"type": "Split", "pattern": {"Regex": "x"}, "behavior": "Isolated", "invert": False}]}),
             "after ByteLevel"),
            ("no ByteLevel", setp(["pre_tokenizer"], {"type": "Split", "pattern": {"Regex": "x"},
                                                      "behavior": "Isolated", "invert": False}), "ByteLevel"),
            ("add_prefix_space", setp(["pre_tokenizer", "add_prefix_space"], True), "add_prefix_space"),
            ("null pre-tokenizer", setp(["pre_tokenizer"], None), "pre-tokenizer null"),
            ("bad regex", setp(["pre_tokenizer"], {"type": "Sequence", "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": "(unclosed"}, "behavior": "Isolated", "invert": False},
                {"type": "ByteLevel", "add_prefix_space": False, "use_regex": False}]}), "PCRE2"),
            ("WordPiece decoder", setp(["decoder"], {"type": "WordPiece", "prefix": "##"}), "decoder WordPiece"),
            ("merge of unknown tokens", lambda doc: doc["model"]["merges"].append(["zzq", "qq"]), "\"zzq\""),
            ("bad merge string", lambda doc: doc["model"].update(merges=["a b c"]), "merge 0"),
            ("added token on a vocabulary id", lambda doc: doc["added_tokens"].append(
                {"id": 256, "content": "<x>", "special": True}), "gives to \"hi\""),
            ("gap in the ids", lambda doc: doc["added_tokens"].append({"id": 300, "content": "<x>", "special": True}),
             "no token has id 257"),
            ("lstrip on a non-special added token", lambda doc: doc["added_tokens"].append(
                {"id": 257, "content": "<x>", "special": False, "lstrip": True}), "lstrip"),
            ("not byte-level", lambda doc: doc["model"].update(vocab={"a": 0, "b": 1}, merges=[]), "single byte"),
        ]
        tiny = os.path.join(tmp, "tiny")  # the 256 byte tokens and "hi": quick to read
        edit(tiny, d, lambda doc: doc.update(added_tokens=[], model=dict(doc["model"], merges=[["h", "i"]], vocab=dict(
            {B2U[b]: b for b in range(256)}, hi=256))))
        check("the tiny tokenizer.json works", ids_of(tiny, "hi hi") == [256, 32, 256], ids_of(tiny, "hi hi"))
        rc, out, err = tokenize(tiny, "--bos", text="hi")
        check("--bos without a BOS token is refused in one line", rc == 3 and err.count("\n") == 1 and "--bos" in err,
              (rc, err))
        for name, change, needle in bad_files:
            folder = edit(os.path.join(tmp, "bad-" + name.replace(" ", "-")), tiny, change)
            rc, out, err = tokenize(folder, text="hi")
            check(f"refuses {name}", rc == 3 and out == "" and err.count("\n") == 1 and needle in err
                  and "tokenizer.json" in err, (rc, err))
        broken = os.path.join(tmp, "broken")
        os.makedirs(broken)
        with open(os.path.join(broken, "tokenizer.json"), "w") as f:
            f.write('{"model": {')
        rc, out, err = tokenize(broken, text="hi")
        check("refuses bad JSON", rc == 3 and err.count("\n") == 1 and "bad JSON" in err, (rc, err))
        # A folder with both: tokenizer.json wins (an unsupported one is refused, not skipped).
        both = edit(os.path.join(tmp, "both"), d, setp(["normalizer"], {"type": "NFC"}))
        for f in ("vocab.json", "merges.txt"):
            shutil.copy(os.path.join(GPT2, f), both)
        rc, out, err = tokenize(both, text="hi")
        check("tokenizer.json wins over vocab.json + merges.txt", rc == 3 and "NFC" in err, (rc, err))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    print(f"{checks - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
