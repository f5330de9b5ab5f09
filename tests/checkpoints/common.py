"""What the checkpoint tests share: a model made by tests/reference/make_model.py, running
ttrace, checking a refusal (exit status, one line on stderr, no output written) and that
two folders give the same trace (`ttrace diff --tol 0`)."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE_MODEL = os.path.join(HERE, "..", "reference", "make_model.py")
PY = "/usr/bin/python3"
PROMPT = "The weather is nice today"


class Checks:
    def __init__(self, ttrace):
        self.ttrace, self.passed, self.failed = ttrace, 0, 0

    def check(self, what, ok, detail=""):
        if ok:
            self.passed += 1
            print("ok   " + what)
        else:
            self.failed += 1
            print(f"FAIL {what}: {detail}")

    def run(self, *args):
        return subprocess.run([self.ttrace] + list(args), capture_output=True, text=True)

    def trace(self, model, out):
        return self.run("trace", "-q", "-m", model, "-o", out, "--", PROMPT)

    def refused(self, what, args, code, needle, output=None):
        r = self.run(*args)
        err = r.stderr.strip()
        ok = r.returncode == code and needle in err and len(err.splitlines()) == 1
        if output is not None:
            ok = ok and not os.path.exists(output)
        self.check(what, ok, f"exit {r.returncode}, stderr {err!r}")

    def same_trace(self, what, model_a, model_b, tmp, expect_same=True):
        a, b = os.path.join(tmp, "a.safetensors"), os.path.join(tmp, "b.safetensors")
        ra, rb = self.trace(model_a, a), self.trace(model_b, b)
        if ra.returncode or rb.returncode:
            self.check(what, False, ra.stderr + rb.stderr)
            return
        d = self.run("diff", "--tol", "0", a, b)
        same = d.returncode == 0 and "SAME" in d.stdout
        self.check(what, same if expect_same else d.returncode == 1 and "DIFFERENT" in d.stdout,
                   d.stdout[-800:] + d.stderr)
        os.remove(a)
        os.remove(b)

    def done(self):
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


def make_model(out, *args):
    subprocess.run([PY, MAKE_MODEL, out] + list(args), check=True)
    return out


def ttrace_arg():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} TTRACE")
    return sys.argv[1]
