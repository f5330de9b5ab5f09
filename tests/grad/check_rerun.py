#!/usr/bin/python3
"""A gradient run after another on the same engine equals one on a fresh engine (grad_rerun),
on random models with a tied and an untied embedding and with learned and sinusoidal
positions.

    check_rerun.py GRAD_RERUN MAKE_MODEL
"""
import os
import subprocess
import sys
import tempfile

MODELS = {
    "tied_learned": ["--layers", "2", "--heads", "2", "--embd", "16"],
    "untied_learned": ["--layers", "2", "--heads", "3", "--embd", "24", "--untied"],
    "untied_sinusoidal_post_ln": ["--layers", "1", "--heads", "2", "--embd", "16", "--untied", "--pos", "sinusoidal",
                                  "--set", "ttrace_block=post_ln"],
}


def main():
    exe, make_model = sys.argv[1], sys.argv[2]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, opts in MODELS.items():
            d = os.path.join(tmp, name)
            subprocess.run(["/usr/bin/python3", make_model, d, "--vocab", "300", "--positions", "32"] + opts,
                           check=True, stdout=subprocess.DEVNULL)
            r = subprocess.run([exe, d], capture_output=True, text=True)
            print(f"{name}: {r.stdout.strip()} {r.stderr.strip()}")
            bad += r.returncode != 0
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
