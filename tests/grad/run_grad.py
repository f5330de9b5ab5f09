#!/usr/bin/python3
"""One gradient check as one command: make a random model (or take the default one), trace
a prompt with --grad, compare with the torch reference.

    run_grad.py TTRACE [--default] [--prompt TEXT] [--repeat N] [--trace-arg ARG]... [--fd N] -- MAKE_MODEL_OPTIONS...

Generates the model into a temporary folder with tests/reference/make_model.py (or, with
--default, uses the default model, found from the trace's `model` metadata), runs
`TTRACE trace --grad -m DIR -o DIR/trace.safetensors [ARGS] PROMPT`, then torch_grad_ref.py.
Exits with the first non-zero status.
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"


def trace_model_dir(trace):
    with open(trace, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(n))["__metadata__"]["model"]


def main():
    argv = sys.argv[1:]
    model_args = []
    if "--" in argv:
        i = argv.index("--")
        argv, model_args = argv[:i], argv[i + 1 :]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ttrace")
    ap.add_argument("--default", action="store_true", help="the default model instead of a random one")
    ap.add_argument("--prompt", default="The weather is nice today")
    ap.add_argument("--trace-arg", action="append", default=[], help="extra argument for `ttrace trace`")
    ap.add_argument("--repeat", type=int, default=1, help="the prompt this many times over, space-separated")
    ap.add_argument("--fd", default="0", help="weight entries checked by central differences")
    args = ap.parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="ttrace-grad-")
    try:
        model = os.path.join(tmp, "model")
        trace = os.path.join(tmp, "trace.safetensors")
        steps = [] if args.default else [[PY, os.path.join(HERE, "..", "reference", "make_model.py"), model] + model_args]
        steps.append([args.ttrace, "trace", "-q", "--grad"] + ([] if args.default else ["-m", model]) +
                     ["-o", trace] + args.trace_arg + ["--", " ".join([args.prompt] * args.repeat)])
        steps.append(None)  # the reference, once the trace says which model it used
        for cmd in steps:
            if cmd is None:
                cmd = [PY, os.path.join(HERE, "torch_grad_ref.py"), trace_model_dir(trace) if args.default else model,
                       trace, "--fd", args.fd]
            print("$ " + " ".join(cmd), flush=True)
            rc = subprocess.call(cmd)
            if rc != 0:
                print(f"run_grad.py: exit status {rc} from {os.path.basename(cmd[1] if cmd[0] == PY else cmd[0])}")
                return rc
        return 0
    finally:
        subprocess.call(["rm", "-rf", tmp])


if __name__ == "__main__":
    sys.exit(main())
