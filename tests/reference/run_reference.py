#!/usr/bin/python3
"""One reference check as one command: make a random model, trace a prompt, compare.

    run_reference.py TTRACE [--prompt TEXT] [--repeat N] [--trace-arg ARG]... -- MAKE_MODEL_OPTIONS...

Generates the model into a temporary folder with make_model.py, runs
`TTRACE trace -m DIR -o DIR/trace.safetensors [ARGS] PROMPT` and then gpt2_ref.py on
the model and the trace. Exits with the first non-zero status.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"


def main():
    argv = sys.argv[1:]
    model_args = []
    if "--" in argv:
        i = argv.index("--")
        argv, model_args = argv[:i], argv[i + 1 :]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ttrace")
    ap.add_argument("--prompt", default="The weather is nice")
    ap.add_argument("--trace-arg", action="append", default=[], help="extra argument for `ttrace trace`")
    ap.add_argument("--repeat", type=int, default=1, help="the prompt this many times over, space-separated")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("--llama", action="store_true",
                    help="a Llama model: tests/llama/make_llama.py and llama_ref.py instead of GPT-2's")
    ap.add_argument("--grad", action="store_true",
                    help="with --llama: trace with --grad, check with tests/llama/torch_llama_grad.py")
    ap.add_argument("--skip-without-device", action="store_true",
                    help="exit 77 (skipped) when ttrace reports a device failure (exit status 5)")
    args = ap.parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="ttrace-ref-")
    try:
        model = os.path.join(tmp, "model")
        trace = os.path.join(tmp, "trace.safetensors")
        steps = [
            [PY, os.path.join(HERE, "..", "llama", "make_llama.py") if args.llama else os.path.join(HERE, "make_model.py"),
             model] + model_args,
            [args.ttrace, "trace", "-q", "-m", model, "-o", trace] + (["--grad"] if args.grad else []) + args.trace_arg
            + ["--", " ".join([args.prompt] * args.repeat)],
            [PY, os.path.join(HERE, "..", "llama", "torch_llama_grad.py") if args.grad
             else os.path.join(HERE, "llama_ref.py" if args.llama else "gpt2_ref.py"), model, trace],
        ]
        for cmd in steps:
            print("$ " + " ".join(cmd), flush=True)
            rc = subprocess.call(cmd)
            if rc == 5 and args.skip_without_device and cmd[0] == args.ttrace:
                print("run_reference.py: no usable device, skipped")
                return 77
            if rc != 0:
                print(f"run_reference.py: exit status {rc} from {os.path.basename(cmd[1] if cmd[0] == PY else cmd[0])}")
                return rc
        return 0
    finally:
        if args.keep:
            print("kept " + tmp)
        else:
            subprocess.call(["rm", "-rf", tmp])


if __name__ == "__main__":
    sys.exit(main())
