"""ttrace tokenize from the outside: output formats, standard input, errors and exit codes.
usage: test_cli.py TTRACE FIXTURE MERGES"""
import json
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

# --merges: every step's rank is the pair's line in merges.txt minus 2
lines = open(merges_path, encoding="utf-8").read().split("\n")
rank_of = {tuple(l.split(" ")): i - 1 for i, l in enumerate(lines) if i >= 1 and l}
rc, out, err = run(["--merges", "The weather"])
check("merges rc", rc == 0, err)
steps = [l.split() for l in out.splitlines() if "→" in l and l.split()[0].isdigit()]
check("merges count", len(steps) >= 5, out)
for s in steps:  # "1  h + e → he  2"
    step, left, plus, right, arrow, merged, rank = s
    check(f"merge {s}", rank_of.get((left, right)) == int(rank) and merged == left + right, str(s))
check("merges last", steps and steps[-1][5] == "Ġweather", out)
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
