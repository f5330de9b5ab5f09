#!/usr/bin/python3
"""`ttrace generate` as a user meets it: bad input gives one line on stderr, the documented
exit code and no file; a run past the context stops there, keeps what it generated (exit 0,
a note, the trace written with that many ids); --record filters decode steps too; the
continuation printed is the generated text; the same seed gives the same ids.

    check_cli.py TTRACE
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.join(HERE, "..", "reference")
sys.path.insert(0, REF)
import gpt2_ref  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "numbers"))
from check_numbers import load_vocab_bytes  # noqa: E402  (registers the "tt_hex" decode errors: \xNN)

ttrace = sys.argv[1]
failures = 0


def check(ok, msg):
    global failures
    if not ok:
        failures += 1
        print("FAIL", msg)


def run(*args):
    return subprocess.run([ttrace, "generate"] + list(args), capture_output=True, text=True)


def on_terminal(text):
    """text as the continuation is printed: tab, CR, other C0 controls, DEL as \\t \\r \\xNN,
    C1 controls as \\u0080..\\u009F, newlines kept."""
    def one(c):
        o = ord(c)
        if c in "\t\r":
            return {"\t": "\\t", "\r": "\\r"}[c]
        if c != "\n" and (o < 0x20 or o == 0x7F):
            return "\\x%02X" % o
        return "\\u%04X" % o if 0x80 <= o <= 0x9F else c
    return "".join(one(c) for c in text)


ASSETS = os.path.join(HERE, "..", "..", "assets")


def generated_text(vocab_json, ids):
    """The ids' bytes from vocab_json, as UTF-8 with each byte that is not part of a whole
    character as \\xNN."""
    vocab = load_vocab_bytes(vocab_json)
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="tt_hex")


with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "model")
    subprocess.run([sys.executable, os.path.join(REF, "make_model.py"), model, "--layers", "1", "--heads", "2",
                    "--embd", "16", "--positions", "12"], check=True)
    out = os.path.join(tmp, "g.safetensors")
    bad = [
        (["-n", "0"], 2, "-n 0"), (["-n", "-3"], 2, "-n -3"), (["-n", "many"], 2, "-n many"),
        (["--temperature", "-0.5"], 2, "--temperature -0.5"), (["--temperature", "hot"], 2, "--temperature hot"),
        (["--temperature", "nan"], 2, "--temperature nan"),
        (["--top-k", "0"], 2, "--top-k 0"), (["--top-k", "2.5"], 2, "--top-k 2.5"),
        (["--top-p", "0"], 2, "--top-p 0"), (["--top-p", "1.5"], 2, "--top-p 1.5"), (["--top-p", "-1"], 2, "--top-p -1"),
        (["--seed", "abc"], 2, "--seed abc"), (["--seed", "-1"], 2, "--seed -1"),
        (["--seed", "18446744073709551616"], 2, "--seed 18446744073709551616"),
        (["--set", "causal=false"], 3, "causal attention"),
        (["--frobnicate"], 2, "--frobnicate"),
    ]
    for args, code, needle in bad:
        r = run("-m", model, "-o", out, *args, "Hello there")
        lines = r.stderr.strip().splitlines()
        check(r.returncode == code, f"{args}: exit {r.returncode}, want {code} ({r.stderr.strip()})")
        check(len(lines) == 1 and needle in lines[0], f"{args}: stderr {r.stderr!r} lacks {needle!r} on one line")
        check(not os.path.exists(out), f"{args}: {out} was written")
        check(r.stdout == "", f"{args}: printed {r.stdout!r}")
    r = run("-m", model, "-o", out, "")
    check(r.returncode == 3 and not os.path.exists(out), f"empty prompt: exit {r.returncode}")
    # A prompt that fills the context (12 positions): nothing to generate.
    r = run("-m", model, "-o", out, "a b c d e f g h i j k l")
    check(r.returncode == 3 and "fills the model's whole context" in r.stderr and not os.path.exists(out),
          f"full prompt: exit {r.returncode}, {r.stderr!r}")

    # Past the context: "Hello there" is 2 tokens, 12 positions: 10 tokens, exit 0, a note.
    r = run("-m", model, "-n", "50", "--seed", "4", "-o", out, "Hello there")
    check(r.returncode == 0, f"past the context: exit {r.returncode} ({r.stderr.strip()})")
    check("stopped at the model's context (12 tokens): 10 of the 50 tokens asked for" in r.stderr,
          f"past the context: stderr {r.stderr!r}")
    tensors, meta = gpt2_ref.read_safetensors(out)
    gen = json.loads(meta["generated_ids"])
    check(len(gen) == 10, f"past the context: {len(gen)} ids kept, want 10")
    names = [n for n, _ in tensors]
    check("decode.8.hook_logits" in names and "decode.9.hook_logits" not in names,
          "past the context: decode steps should be 0..8")
    want = generated_text(os.path.join(ASSETS, "tokenizer", "vocab.json"), gen)  # the folder has none: GPT-2's
    check(meta.get("generated_text") == want, f"generated_text {meta.get('generated_text')!r}, want {want!r}")
    check(r.stdout == on_terminal("Hello there" + want) + "\n", f"printed {r.stdout!r}, want the prompt and {want!r}")
    check(json.loads(meta["sampling"]) == {"temperature": 1.0, "top_k": 0, "top_p": 1.0,
                                           "generator": "xoshiro256** seeded by splitmix64", "seed": "4"},
          f"sampling metadata {meta['sampling']}")

    # The same seed, the same ids; another seed, (here) other ids.
    def ids(seed):
        o = os.path.join(tmp, f"s{seed}.safetensors")
        run("-m", model, "-n", "8", "--seed", str(seed), "-o", o, "Hello there")
        return json.loads(gpt2_ref.read_safetensors(o)[1]["generated_ids"])
    check(ids(77) == ids(77), "the same seed gave different ids")
    check(ids(77) != ids(78) or ids(77) != ids(79), "three seeds gave the same ids")

    # --record keeps only what matches, decode steps included; generation is unchanged.
    o2 = os.path.join(tmp, "rec.safetensors")
    r = run("-m", model, "-n", "5", "--seed", "4", "--record", "decode.*.hook_logits", "-o", o2, "Hello there")
    tensors, meta2 = gpt2_ref.read_safetensors(o2)
    check(sorted(n for n, _ in tensors) == [f"decode.{s}.hook_logits" for s in range(4)],
          f"--record: {[n for n, _ in tensors]}")
    full = json.loads(gpt2_ref.read_safetensors(out)[1]["generated_ids"])
    check(json.loads(meta2["generated_ids"]) == full[:5], "--record changed the generated ids")
    # Without -o nothing is written, the text is still printed.
    r = run("-m", model, "-n", "3", "--temperature", "0", "-q", "Hello there")
    check(r.returncode == 0 and r.stdout.startswith("") and r.stderr == "", f"-q: {r.returncode} {r.stderr!r}")
    # Korean on the embedded model, greedy: syllables cut across two tokens print whole, a
    # byte no token completes as \xNN, and the file's generated_text is the same text.
    kor = os.path.join(tmp, "kor.safetensors")
    r = run("-n", "30", "--temperature", "0", "-o", kor, "오늘 날씨는")
    meta = gpt2_ref.read_safetensors(kor)[1]
    gen = json.loads(meta["generated_ids"])
    embedded = os.path.join(ASSETS, "models", "tiny-classroom", "vocab.json")
    vocab = load_vocab_bytes(embedded)
    want = generated_text(embedded, gen)
    cut = [i for i in gen if vocab[i].decode("utf-8", errors="replace") != vocab[i].decode("utf-8", errors="ignore")]
    check(cut and any(0xAC00 <= ord(c) <= 0xD7A3 for c in want),
          f"Korean: the test needs syllables cut across tokens ({len(cut)} such tokens, text {want!r})")
    check(r.returncode == 0 and r.stdout == on_terminal("오늘 날씨는" + want) + "\n",
          f"Korean: printed {r.stdout!r}, want {want!r} after the prompt ({r.stderr.strip()})")
    check(meta.get("generated_text") == want, f"Korean: generated_text {meta.get('generated_text')!r}, want {want!r}")
    # The trace loads (its decode shapes pass the loader's catalogue checks).
    r = subprocess.run([ttrace, "dump", out], capture_output=True, text=True)
    check(r.returncode == 0 and "decode.0.blocks.0.attn.hook_pattern" in r.stdout, f"dump: {r.stderr.strip()}")

print("generate cli: %s" % ("ok" if failures == 0 else f"{failures} failures"))
sys.exit(1 if failures else 0)
