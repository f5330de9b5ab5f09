#!/usr/bin/python3
"""The command line as a user meets it: help and version, the numpy snippet from
docs/trace-format.md, and every kind of bad input giving one clear line on stderr, a
non-zero exit code and no output file.

    test_cli.py TTRACE SOURCE_ROOT
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

TTRACE, ROOT = sys.argv[1], sys.argv[2]
MAKE_MODEL = os.path.join(ROOT, "tests", "reference", "make_model.py")
MAKE_TOKENIZER_JSON = os.path.join(ROOT, "tests", "tokenizer", "make_tokenizer_json.py")
GPT2_TOKENIZER = os.path.join(ROOT, "assets", "tokenizer")
passed, failed = 0, 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok    {name}")
    else:
        failed += 1
        print(f"FAIL  {name}: {detail}")


def run(*args, stdin=None, env=None, prefix=()):
    kw = {"stdin": stdin} if isinstance(stdin, int) else {"input": stdin}
    return subprocess.run([*prefix, TTRACE, *args], capture_output=True, text=False, timeout=300,
                          env=dict(os.environ, **(env or {})), **kw)


def expect_failure(name, args, code, fragment, out_path=None, stdin=None, env=None):
    r = run(*args, stdin=stdin, env=env)
    err = r.stderr.decode("utf-8", "replace")
    lines = [l for l in err.splitlines() if l.strip()]
    ok = r.returncode == code and len(lines) == 1 and fragment in err
    if out_path:
        leftovers = [f for f in os.listdir(os.path.dirname(out_path)) if f.startswith(os.path.basename(out_path))]
        ok = ok and not leftovers
    check(name, ok, f"exit {r.returncode}, stderr {err!r}")


def make_model(path, *extra):
    subprocess.run([sys.executable, MAKE_MODEL, path, "--layers", "1", "--heads", "2", "--embd", "16",
                    "--positions", "8", *extra], check=True, capture_output=True)


def with_tensor_changed(src, dst, name, new_dtype=None, new_shape=None, drop=False):
    """Copies a model folder, rewriting one tensor's header entry (data kept consistent)."""
    shutil.copytree(src, dst)
    raw = open(os.path.join(src, "model.safetensors"), "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    items = [(k, v) for k, v in header.items() if k != "__metadata__"]
    out, blobs, off = {}, [], 0
    for k, v in sorted(items, key=lambda kv: kv[1]["data_offsets"][0]):
        blob = data[v["data_offsets"][0]:v["data_offsets"][1]]
        if k == name and drop:
            continue
        if k == name and new_dtype:
            v = dict(v, dtype=new_dtype)
        if k == name and new_shape:
            v = dict(v, shape=new_shape)
            count = 1
            for d in new_shape:
                count *= d
            blob = (blob * (4 * count // max(len(blob), 1) + 1))[:4 * count]
        out[k] = dict(v, data_offsets=[off, off + len(blob)])
        blobs.append(blob)
        off += len(blob)
    text = json.dumps(out).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(os.path.join(dst, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def trace_meta(path):
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    return json.loads(raw[8:8 + n])["__metadata__"]


def trace_tensor(path, name):
    import numpy as np
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    info = json.loads(raw[8:8 + n])[name]
    b, e = info["data_offsets"]
    return np.frombuffer(raw[8 + n + b:8 + n + e], dtype=np.float32).reshape(info["shape"])


def has_gui():
    """A build without SDL2 (-Dgui=disabled) has no demo, view or render."""
    return b"  demo " in run("--help").stdout


def sanitized():
    """valgrind cannot run a binary built with AddressSanitizer."""
    r = subprocess.run(["ldd", TTRACE], capture_output=True, text=True)
    return "libasan" in r.stdout


def command_line(tmp, good):
    """Issue 9's command-line defects, each checked as a user meets it."""
    gui = has_gui()
    o = os.path.join(tmp, "cl.safetensors")
    # Exit codes: standard input that cannot be read is a file that cannot be read (4).
    fd = os.open(tmp, os.O_RDONLY)  # a folder as standard input
    try:
        expect_failure("unreadable standard input exits 4", ["trace", "-m", good, "-o", o, "-"], 4,
                       "cannot read standard input", o, stdin=fd)
        expect_failure("tokenize: unreadable standard input exits 4", ["tokenize", "-"], 4, "standard input",
                       stdin=fd)
    finally:
        os.close(fd)
    expect_failure("unreadable trace exits 4", ["dump", os.path.join(tmp, "no-such.safetensors")], 4, "no-such")
    readme = os.path.join(ROOT, "README.md")
    expect_failure("dump README.md: not a trace file", ["dump", readme], 3, "README.md is not a trace file")
    expect_failure("diff with README.md: not a trace file", ["diff", readme, readme], 3, "is not a trace file")
    cut = os.path.join(tmp, "cut.safetensors")
    r = run("trace", "-m", good, "-o", cut, "hi")
    with open(cut, "r+b") as f:
        f.truncate(os.path.getsize(cut) // 2)
    expect_failure("a truncated trace is called truncated, not 'not a trace file'", ["dump", cut], 3, "truncated")
    if gui:
        expect_failure("render README.md: not a trace file", ["render", readme, "--step", "tokens", "-o",
                                                              os.path.join(tmp, "r.png")], 3, "is not a trace file")
    # One line per error: getopt prints nothing of its own, for every command.
    for cmd in ("trace", "tokenize", "dump", "diff", "lesson", "devices") + (("view", "demo", "render") if gui else ()):
        expect_failure(f"{cmd} --bogus: one line, exit 2", [cmd, "--bogus"], 2, "--bogus")
    expect_failure("trace -m without a value: one line naming -m", ["trace", "-o", o, "-m"], 2, "-m needs a value")
    expect_failure("trace -x: one line naming -x", ["trace", "-x", "-o", o, "hi"], 2, "unknown option -x")
    expect_failure("tokenize --dir without a value", ["tokenize", "--dir"], 2, "--dir needs a value")
    # --set a=1,b=2 is two --set.
    o1, o2 = os.path.join(tmp, "set1.safetensors"), os.path.join(tmp, "set2.safetensors")
    r1 = run("trace", "-m", good, "--set", "causal=false,residual=false", "-o", o1, "The weather")
    r2 = run("trace", "-m", good, "--set", "causal=false", "--set", "residual=false", "-o", o2, "The weather")
    ok = r1.returncode == 0 and r2.returncode == 0
    check("--set a=1,b=2 works like two --set",
          ok and trace_meta(o1)["variant"] == trace_meta(o2)["variant"] == '{"ttrace_causal":false,"ttrace_residual":false}'
          and (trace_tensor(o1, "hook_logits") == trace_tensor(o2, "hook_logits")).all(), (r1.stderr, r2.stderr))
    expect_failure("--set with a bad second knob names it", ["trace", "-m", good, "--set", "causal=false,colour=red",
                                                            "-o", o, "hi"], 3, "colour", o)
    expect_failure("--set with an empty item", ["trace", "-m", good, "--set", "causal=false,", "-o", o, "hi"], 3,
                   "key=value", o)
    singular_plural(tmp, good)
    if gui:
        view_and_demo(tmp, good, o1)
    else:
        print("skip  view and demo: this build has no window (-Dgui=disabled)")
    no_model_folder(tmp)


def view_and_demo(tmp, good, o1):
    """view and demo (a build with the window)."""
    # view of a file that is not a trace says so.
    expect_failure("view README.md: not a trace file", ["view", os.path.join(ROOT, "README.md")], 3,
                   "is not a trace file")
    expect_failure("view --compare README.md: not a trace file",
                   ["view", o1, "--compare", os.path.join(ROOT, "README.md")], 3, "is not a trace file")
    # demo --out DIR: the step sequence as PNGs, with or without a display, no window.
    r = run("demo", "--help")
    check("demo --help advertises --out DIR", r.returncode == 0 and b"--out DIR" in r.stdout, r.stdout)
    out_dir = os.path.join(tmp, "demo-out")
    r = run("demo", "-m", good, "--out", out_dir, "--size", "480x320")
    pngs = sorted(os.listdir(out_dir)) if os.path.isdir(out_dir) else []
    check("demo --out DIR writes the steps as PNGs", r.returncode == 0 and pngs and pngs[0] == "001-tokenize.png"
          and all(open(os.path.join(out_dir, f), "rb").read(8) == b"\x89PNG\r\n\x1a\n" for f in pngs)
          and f"wrote {len(pngs)} images: {out_dir}/001-tokenize.png".encode() in r.stdout, (r.stdout, r.stderr))
    if shutil.which("xvfb-run"):
        shown = os.path.join(tmp, "demo-display")
        r = run("demo", "-m", good, "--out", shown, "--size", "480x320", prefix=("xvfb-run", "-a"))
        check("demo --out DIR with a display writes PNGs and opens no window",
              r.returncode == 0 and len(os.listdir(shown)) == len(pngs), (r.returncode, r.stdout, r.stderr))
    else:
        print("skip  demo --out with a display: no xvfb-run")
    expect_failure("demo --out into a folder that cannot be made", ["demo", "-m", good, "--out", "/proc/no/dir"], 4,
                   "/proc/no/dir")
    expect_failure("--out goes with demo only", ["view", "--out", out_dir, o1], 2, "--out")


def singular_plural(tmp, good):
    o = os.path.join(tmp, "count.safetensors")
    r = run("tokenize", "--merges", "x")
    check("tokenize --merges says '1 token'", r.returncode == 0 and r.stdout.endswith(b"\n1 token: 87\n"), r.stdout)
    r = run("tokenize", "--merges", "hi there")
    check("tokenize --merges says '2 tokens'", r.returncode == 0 and b"\n2 tokens: 5303 612\n" in r.stdout, r.stdout)
    r = run("trace", "-m", good, "-o", o, "hi")
    check("trace says 'traced 1 token'", r.returncode == 0 and r.stdout.startswith(b"traced 1 token on "), r.stdout)
    r = run("trace", "-m", good, "--record", "tokens", "-o", o, "hi")
    check("trace says '1 tensor'", r.returncode == 0 and b": 1 tensor, " in r.stdout, r.stdout)
    en = os.path.join(ROOT, "lessons", "en")
    r = run("lesson", "--check", *[os.path.join(en, f) for f in sorted(os.listdir(en)) if f.endswith(".lesson")][:4])
    counts = re.findall(rb": (\d+) (steps?), (\d+) (claims?)\n", r.stdout)
    check("lesson --check counts steps and claims in the singular for one", r.returncode == 0 and counts and all(
        (n == b"1") == (w in (b"step", b"claim")) for c in counts for n, w in (c[0:2], c[2:4])), r.stdout)
    r = run("dump", o)
    check("dump says 'recorded 1 tensor' and shows tokenizer, bos, from_ids",
          r.returncode == 0 and re.search(rb"\nrecorded +1 tensor, ", r.stdout) is not None
          and re.search(rb"\ntokenizer +bundled gpt2\nbos +false\nfrom_ids +false\n", r.stdout) is not None, r.stdout)
    r = run("diff", o, o)
    check("diff says '(1 token)' and '1 shared hook'",
          r.returncode == 0 and b'"hi"  (1 token)\n' in r.stdout and b"\n1 shared hook, 1 identical" in r.stdout, r.stdout)


def no_model_folder(tmp):
    """No model folder found: the session must not use the folder name it never got."""
    o = os.path.join(tmp, "nm.safetensors")
    assets = os.path.join(tmp, "assets")
    os.makedirs(os.path.join(assets, "models", "default"))  # a folder where a file naming the model belongs
    vg = shutil.which("valgrind")
    if vg and not sanitized():
        r = run("trace", "-o", o, "hi", env={"TTRACE_ASSETS": assets},
                prefix=(vg, "-q", "--error-exitcode=99", "--undef-value-errors=yes"))
        err = r.stderr.decode("utf-8", "replace")
        check("no default model: one line, exit 4, no uninitialised read (valgrind)",
              r.returncode == 4 and "default model is not installed" in err and "uninitialised" not in err,
              (r.returncode, err[-800:]))
    else:
        print("skip  no default model under valgrind: " + ("an AddressSanitizer build" if vg else "no valgrind"))
    never = os.path.join(tmp, "never.safetensors")
    expect_failure("no default model: one line, exit 4", ["trace", "-o", never, "hi"], 4, "default model", never,
                   env={"TTRACE_ASSETS": assets})


def bos_and_ids(tmp, good):
    """--bos and --ids (TransformerLens habits) for trace, view -m and tokenize."""
    text_trace, bos_trace, ids_trace = (os.path.join(tmp, n + ".safetensors") for n in ("text", "bos", "ids"))
    r = run("trace", "-m", good, "-o", text_trace, "The weather is nice")
    m = trace_meta(text_trace) if r.returncode == 0 else {}
    check("a prompt trace records bos false, from_ids false", m.get("bos") == "false" and m.get("from_ids") == "false",
          m)
    r = run("trace", "-m", good, "--bos", "-o", bos_trace, "The weather is nice")
    m = trace_meta(bos_trace) if r.returncode == 0 else {}
    check("--bos prepends <|endoftext|> = 50256", m.get("token_ids") == "[50256,464,6193,318,3621]" and
          json.loads(m.get("token_strings", "[]"))[:1] == ["<|endoftext|>"], (r.stderr, m))
    check("--bos is recorded", m.get("bos") == "true" and m.get("prompt") == "The weather is nice", m)
    pre = json.loads(m.get("pretokens", "[]"))
    check("--bos: the pre-tokens cover the tokens after the BOS", [p["tokens"] for p in pre] == [[1, 1], [2, 1], [3, 1],
          [4, 1]] and run("dump", bos_trace).returncode == 0, pre)
    r = run("trace", "-m", good, "--ids", "464,6193, 318,3621", "-o", ids_trace)
    m = trace_meta(ids_trace) if r.returncode == 0 else {}
    check("--ids traces the ids", m.get("token_ids") == "[464,6193,318,3621]" and m.get("from_ids") == "true"
          and m.get("prompt") == "The weather is nice", (r.stderr, m))
    check("--ids: no pre-tokens (nothing was tokenized)", m and "pretokens" not in m and run("dump", ids_trace).returncode == 0,
          m)
    if m:
        check("--ids gives the same tensors as the prompt",
              (trace_tensor(ids_trace, "hook_logits") == trace_tensor(text_trace, "hook_logits")).all())
    r = run("trace", "-m", good, "--ids", "40,198,168", "-o", ids_trace)  # "I", "\n", half of a Hangul syllable
    m = trace_meta(ids_trace) if r.returncode == 0 else {}
    check("--ids: a byte that is not part of a whole character is kept as \\xNN", m.get("prompt") == "I\n\\xEC",
          (r.stderr, m.get("prompt")))
    r = run("trace", "-m", good, "--ids", "40,168,246,97,168", "-o", ids_trace)  # "I", 오 in three tokens, half of one
    m = trace_meta(ids_trace) if r.returncode == 0 else {}
    check("--ids: a character cut across tokens is kept whole", m.get("prompt") == "I\uc624\\xEC",
          (r.stderr, m.get("prompt")))
    r = run("trace", "-m", good, "--ids", "40,198,40", "-o", ids_trace)
    m = trace_meta(ids_trace) if r.returncode == 0 else {}
    check("--ids: the prompt is the ids decoded", m.get("prompt") == "I\nI", (r.stderr, m.get("prompt")))
    r = run("trace", "-m", good, "--bos", "--ids", "464", "-o", ids_trace)
    m = trace_meta(ids_trace) if r.returncode == 0 else {}
    check("--bos with --ids", m.get("token_ids") == "[50256,464]" and m.get("bos") == "true", (r.stderr, m))
    o = os.path.join(tmp, "bad-ids.safetensors")
    for name, ids, code, needle in [
        ("a word", "464,weather", 3, "'weather' is not a token id"),
        ("an empty entry", "464,,318", 3, "'' is not a token id"),
        ("beyond int32", "464,99999999999", 3, "99999999999 is beyond"),
        ("negative", "-1", 3, "token id -1 is outside the vocabulary (ids 0..50256)"),
        ("beyond the vocabulary", "50257", 3, "token id 50257 is outside the vocabulary"),
        ("beyond the context", ",".join(["464"] * 9), 3, "at most 8"),
    ]:
        expect_failure(f"--ids {name}", ["trace", "-m", good, "--ids", ids, "-o", o], code, needle, o)
    expect_failure("--bos beyond the context", ["trace", "-m", good, "--bos", "--ids", ",".join(["464"] * 8), "-o", o],
                   3, "at most 8", o)
    expect_failure("--ids and a prompt", ["trace", "-m", good, "--ids", "464", "-o", o, "hi"], 2, "without a PROMPT", o)
    small = os.path.join(tmp, "small-vocab")
    make_model(small, "--vocab", "1000")
    expect_failure("a prompt token beyond the model's vocabulary", ["trace", "-m", small, "-o", o, "The weather"], 3,
                   "token id 6193 (' weather') is outside the vocabulary (ids 0..999)", o)
    expect_failure("--bos beyond the model's vocabulary", ["trace", "-m", small, "--bos", "-o", o, "The"], 3,
                   "token id 50256", o)
    # tokenize
    r = run("tokenize", "--bos", "--ids", "The weather is nice")
    check("tokenize --bos --ids", r.returncode == 0 and r.stdout == b"50256 464 6193 318 3621\n", r.stdout)
    r = run("tokenize", "--ids=464,6193")
    rows = [l.split() for l in r.stdout.decode().splitlines()]
    check("tokenize --ids=LIST shows those tokens", r.returncode == 0 and rows[1:] == [["0", "464", "The", "The"],
          ["1", "6193", "Ġweather", "␣weather"]], r.stdout)
    expect_failure("tokenize --ids=LIST with a word", ["tokenize", "--ids=464,x"], 3, "'x' is not a token id")
    expect_failure("tokenize --ids=LIST beyond the vocabulary", ["tokenize", "--ids=50257"], 3, "outside the vocabulary")
    expect_failure("tokenize --ids=LIST and TEXT", ["tokenize", "--ids=464", "hi"], 2, "without a TEXT")
    if not has_gui():
        print("skip  view -m --bos --ids: this build has no window")
        return
    # view -m: the input is checked before the display is.
    expect_failure("view -m --ids with a word", ["view", "-m", good, "--ids", "1,x"], 3, "'x' is not a token id")
    expect_failure("view --ids without -m", ["view", "--ids", "1"], 2, "-m MODEL_DIR")
    if shutil.which("xvfb-run"):
        script, state = os.path.join(tmp, "quit.script"), os.path.join(tmp, "view.state")
        with open(script, "w") as f:
            f.write("wait 50\nstate " + state + "\nquit\n")
        r = run("view", "-m", good, "--bos", "--ids", "464,6193", "--script", script, prefix=("xvfb-run", "-a"))
        st = open(state).read() if os.path.exists(state) else ""
        check("view -m --bos --ids shows 3 tokens", r.returncode == 0 and "tokens 3\n" in st, (r.stderr, st))
    else:
        print("skip  view -m --ids in a window: no xvfb-run")


def tokenizer_files(tmp, good):
    """Which tokenizer a model folder gets, recorded in the trace."""
    o = os.path.join(tmp, "tok.safetensors")
    r = run("trace", "-m", good, "-o", o, "hi")
    check("a folder without tokenizer files: bundled gpt2, recorded",
          r.returncode == 0 and trace_meta(o)["tokenizer"] == "bundled gpt2", r.stderr)
    r = run("trace", "-o", o, "hi")
    check("the default model's own vocab.json + merges.txt, recorded",
          r.returncode == 0 and trace_meta(o)["tokenizer"] == "vocab.json+merges.txt", r.stderr)
    with_json = os.path.join(tmp, "with-json")
    shutil.copytree(good, with_json)
    subprocess.run([sys.executable, MAKE_TOKENIZER_JSON, GPT2_TOKENIZER, os.path.join(with_json, "tokenizer.json")],
                   check=True)
    r = run("trace", "-m", with_json, "--bos", "-o", o, "The weather")
    m = trace_meta(o) if r.returncode == 0 else {}
    check("a folder with tokenizer.json: read, recorded, --bos is its <|endoftext|>",
          m.get("tokenizer") == "tokenizer.json" and m.get("token_ids") == "[50256,464,6193]", (r.stderr, m))
    if has_gui():
        window_labels(tmp, with_json)
    with open(os.path.join(with_json, "tokenizer.json"), "r+", encoding="utf-8") as f:
        doc = json.load(f)
        doc["normalizer"] = {"type": "NFC"}
        f.seek(0)
        f.truncate()
        json.dump(doc, f)
    expect_failure("an unsupported tokenizer.json is refused, not replaced by GPT-2's",
                   ["trace", "-m", with_json, "-o", o + "2", "hi"], 3, "normalizer NFC is not supported", o + "2")


def window_labels(tmp, with_json):
    """The views' vocabulary strings (next-token candidates) come from the model's own
    tokenizer.json: here GPT-2's with the ids reversed, so GPT-2's bundled strings are wrong."""
    import numpy as np
    rev = os.path.join(tmp, "reversed")
    shutil.copytree(with_json, rev)
    path = os.path.join(rev, "tokenizer.json")
    doc = json.load(open(path, encoding="utf-8"))
    vocab = doc["model"]["vocab"]
    V = len(vocab)
    doc["model"]["vocab"] = {s: (V - 2 - i if i < V - 1 else i) for s, i in vocab.items()}  # <|endoftext|> stays
    json.dump(doc, open(path, "w", encoding="utf-8"), ensure_ascii=False)
    spelling = {i: s for s, i in doc["model"]["vocab"].items()}
    gpt2 = {i: s for s, i in vocab.items()}
    o, svg = os.path.join(tmp, "rev.safetensors"), os.path.join(tmp, "rev.svg")
    r = run("trace", "-m", rev, "-o", o, "The weather is nice")
    r2 = run("render", o, "--step", "hook_probs", "-o", svg) if r.returncode == 0 else r
    if r2.returncode != 0:
        check("render a trace of a tokenizer.json model", False, (r.stderr, r2.stderr))
        return
    probs = trace_tensor(o, "hook_probs")[-1]
    top = [int(i) for i in np.argsort(-probs, kind="stable")[:3]]
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", open(svg, encoding="utf-8").read())
    want = [spelling[i].replace("Ġ", "␣") for i in top]
    check("next-token labels come from the model's tokenizer.json", all(w in texts for w in want)
          and any(spelling[i] != gpt2[i] for i in top), (want, [gpt2[i] for i in top], texts[:20]))


def main():
    tmp = tempfile.mkdtemp(prefix="tt_cli_")
    try:
        r = run("--help")
        check("--help lists trace and dump", r.returncode == 0 and b"trace" in r.stdout and b"dump" in r.stdout)
        r = run("--version")
        check("--version", r.returncode == 0 and re.match(rb"ttrace \d+\.\d+", r.stdout) is not None)
        for cmd in ("trace", "dump", "tokenize"):
            r = run(cmd, "--help")
            check(f"{cmd} --help", r.returncode == 0 and b"usage: ttrace " + cmd.encode() in r.stdout)
        expect_failure("unknown command", ["frobnicate"], 2, "unknown command")

        good = os.path.join(tmp, "good")
        make_model(good)
        out = os.path.join(tmp, "out.safetensors")
        r = run("trace", "-m", good, "-o", out, "The weather is nice")
        check("trace a random model", r.returncode == 0 and os.path.exists(out), r.stderr)

        # The numpy snippet from the format documentation, run as a reader would.
        doc = open(os.path.join(ROOT, "docs", "trace-format.md"), encoding="utf-8").read()
        snippet = re.search(r"```python\n(.*?)```", doc, re.S).group(1).replace('"weather.safetensors"', repr(out))
        r = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, cwd=tmp)
        check("docs/trace-format.md snippet loads the trace",
              r.returncode == 0 and "The weather is nice" in r.stdout, r.stderr[-500:])

        r = run("dump", out, "blocks.0.attn.hook_pattern")
        check("dump a hook as a table", r.returncode == 0 and b"[h1]" in r.stdout and b"3: nice" in r.stdout)

        o = os.path.join(tmp, "x.safetensors")
        expect_failure("missing model folder", ["trace", "-m", os.path.join(tmp, "nope"), "-o", o, "hi"], 4, "nope", o)
        empty = os.path.join(tmp, "empty")
        os.mkdir(empty)
        expect_failure("folder without config.json", ["trace", "-m", empty, "-o", o, "hi"], 4, "config.json", o)
        trunc = os.path.join(tmp, "trunc")
        shutil.copytree(good, trunc)
        st = os.path.join(trunc, "model.safetensors")
        size = os.path.getsize(st)
        with open(st, "r+b") as f:
            f.truncate(size // 2)
        expect_failure("truncated safetensors", ["trace", "-m", trunc, "-o", o, "hi"], 3, "truncated", o)
        badjson = os.path.join(tmp, "badjson")
        shutil.copytree(good, badjson)
        with open(os.path.join(badjson, "model.safetensors"), "r+b") as f:
            f.seek(8)
            f.write(b"{{{{")
        expect_failure("corrupt header JSON", ["trace", "-m", badjson, "-o", o, "hi"], 3, "not valid JSON", o)
        missing = os.path.join(tmp, "missing")
        with_tensor_changed(good, missing, "h.0.ln_2.bias", drop=True)
        expect_failure("missing tensor", ["trace", "-m", missing, "-o", o, "hi"], 3, "h.0.ln_2.bias", o)
        shape = os.path.join(tmp, "shape")
        with_tensor_changed(good, shape, "h.0.mlp.c_fc.weight", new_shape=[16, 60])
        expect_failure("wrong shape", ["trace", "-m", shape, "-o", o, "hi"], 3, "(16, 64)", o)
        dtype = os.path.join(tmp, "dtype")
        with_tensor_changed(good, dtype, "ln_f.bias", new_dtype="I32")
        expect_failure("unsupported dtype", ["trace", "-m", dtype, "-o", o, "hi"], 3, "I32", o)
        expect_failure("prompt longer than n_positions",
                       ["trace", "-m", good, "-o", o, "one two three four five six seven eight nine"], 3, "at most 8", o)
        expect_failure("empty prompt", ["trace", "-m", good, "-o", o, ""], 3, "empty", o)
        expect_failure("invalid UTF-8 from stdin", ["trace", "-m", good, "-o", o, "-"], 3, "UTF-8", o,
                       stdin=b"caf\xe9 au lait")
        expect_failure("unwritable output", ["trace", "-m", good, "-o", "/nonexistent-dir/x.safetensors", "hi"], 4,
                       "/nonexistent-dir")
        expect_failure("unknown --set key", ["trace", "-m", good, "--set", "colour=red", "-o", o, "hi"], 3, "colour", o)
        expect_failure("missing -o", ["trace", "-m", good, "hi"], 2, "-o")
        garbage = os.path.join(tmp, "garbage.safetensors")
        with open(garbage, "wb") as f:
            f.write(b"\x00" * 3)
        expect_failure("dump of a malformed trace", ["dump", garbage], 3, "too short")
        expect_failure("a prompt where a trace goes", ["lens", "The weather is nice"], 4,
                       "cannot open The weather is nice: No such file or directory (a trace is a file that `ttrace "
                       "trace -o FILE PROMPT` writes)")
        expect_failure("dump of a model file (not a trace)", ["dump", os.path.join(good, "model.safetensors")], 3,
                       "not a ttrace trace")
        expect_failure("dump of a missing hook", ["dump", out, "blocks.9.*"], 3, "no tensor matching")
        r = run("trace", "-m", good, "--record", "none", "-o", o, "hi")
        check("--record none writes a trace with no tensors", r.returncode == 0 and b"0 tensors" in r.stdout, r.stdout)
        command_line(tmp, good)
        bos_and_ids(tmp, good)
        tokenizer_files(tmp, good)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
