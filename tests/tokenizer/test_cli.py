"""ttrace tokenize from the outside: output formats, standard input, errors and exit codes.
usage: test_cli.py TTRACE FIXTURE MERGES"""
import json
import os
import re
import subprocess
import sys

ttrace, fixture, merges_path = sys.argv[1:4]
failures = []


def run(args, stdin=None):
    p = subprocess.run([ttrace, "tokenize", *args], input=stdin, capture_output=True)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def check(name, cond, detail=""):
    if not cond:
        failures.append(f"{name}: {detail}")


# --ids: the seed's example, and every fixture case given as one argument
rc, out, err = run(["--ids", "The weather is nice"])
check("ids", rc == 0 and out == "464 6193 318 3621\n", repr((rc, out, err)))
cases = {c["text"]: c["ids"] for c in json.load(open(fixture, encoding="utf-8"))["cases"]}
for text, ids in cases.items():
    if "\0" in text or text.strip() == "" or text.endswith("\n"):
        continue  # argv cannot carry NUL; blank and newline-ended prompts are covered below
    rc, out, err = run(["--ids", "--", text])
    want = " ".join(map(str, ids)) + "\n"
    check(f"ids {text!r}", rc == 0 and out == want, repr((rc, out, err)))

# words are joined with spaces; "-" reads standard input, one trailing newline dropped
rc, out, _ = run(["--ids", "The", "weather", "is", "nice"])
check("words", out == "464 6193 318 3621\n", out)
rc, out, _ = run(["--ids", "-"], stdin="The weather is nice\n".encode())
check("stdin", rc == 0 and out == "464 6193 318 3621\n", out)
rc, out, _ = run(["--ids", "-"], stdin=b"para\n\nnext\n")
check("stdin newlines", out == " ".join(map(str, cases["para\n\nnext"])) + "\n", out)

# the table: index, id, spelling, visible text
rc, out, _ = run(["The weather is nice"])
rows = [line.split() for line in out.splitlines()]
check("table header", rows and rows[0] == ["index", "id", "piece", "text"], out)
check("table rows", rows[1:] == [["0", "464", "The", "The"], ["1", "6193", "Ġweather", "␣weather"],
                                 ["2", "318", "Ġis", "␣is"], ["3", "3621", "Ġnice", "␣nice"]], out)
rc, out, _ = run(["나"])
check("table split hangul", "\\xEB" in out and "\\x98" in out, out)

# --merges: every step's rank is the pair's line in merges.txt minus 2. Pieces are shown as
# bytes (␣ a space; ‹EB 8B:다› bytes of a character, with the character), not GPT-2's
# byte-to-unicode letters: read back to bytes here and compared with merges.txt's pairs.
def byte_table():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


BYTE_OF = byte_table()
# The labels read back to bytes as the number check reads them (tests/numbers/svgnum.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "numbers"))
from svgnum import label_bytes  # noqa: E402


lines = open(merges_path, encoding="utf-8").read().split("\n")
rank_of = {tuple(bytes(BYTE_OF[c] for c in x) for x in l.split(" ")): i - 1
           for i, l in enumerate(lines) if i >= 1 and l}
for text, last in (("The weather", "␣weather"), ("먹었다", "‹EB 8B:다›")):
    rc, out, err = run(["--merges", text])
    check("merges rc", rc == 0, err)
    steps = [m.groups() for m in (re.match(r"\s*(\d+)  (.+?) \+ (.+?) → (.+?) +(\d+)$", l) for l in out.splitlines())
             if m]
    check("merges count", len(steps) >= 1, out)
    for s in steps:  # "1  h + e → he  2"
        step, left, right, merged, rank = s
        try:
            a, b, ab = label_bytes(left), label_bytes(right), label_bytes(merged)
            check(f"merge {s}", rank_of.get((a, b)) == int(rank) and ab == a + b, str(s))
        except ValueError as e:
            check(f"merge {s}", False, str(e))
    check("merges no byte-to-unicode letters", "ë" not in out.split("pieces:")[0].split("spelled")[-1].split("\n", 1)[1],
          out)
    check("merges last", steps and steps[-1][3] == last, out)
rc, out, err = run(["--merges", "The weather"])
check("merges total", out.rstrip().endswith("2 tokens: 464 6193"), out)

# errors: one line on stderr, documented exit codes, nothing on stdout
for args, stdin, code, needle in [
    ([], None, 2, "missing TEXT"),
    (["--bogus", "x"], None, 2, "--bogus"),
    (["--dir"], None, 2, "needs a value"),
    (["--ids", "--merges", "x"], None, 2, "do not go together"),
    (["--dir", "/nonexistent/tok", "x"], None, 4, "/nonexistent/tok/vocab.json"),
    (["abc\udcff"], None, 3, "offset 3"),
    (["-"], b"", 3, "empty"),
    (["-"], b"ok \xc3\x28", 3, "offset 3"),
]:
    try:
        rc, out, err = run([a.encode("utf-8", "surrogateescape") for a in args], stdin=stdin)
    except Exception as e:  # noqa: BLE001
        failures.append(f"{args}: {e}")
        continue
    check(f"error {args}", rc == code and out == "" and err.count("\n") == 1 and needle in err,
          repr((rc, out, err)))

rc, out, _ = run(["--help"])
check("help", rc == 0 and "--merges" in out and "<|endoftext|>" in out, out)

for f in failures:
    print("FAIL", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
