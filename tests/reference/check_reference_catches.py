#!/usr/bin/python3
"""The reference check must fail when a trace's tensors and its recorded config disagree.

    check_reference_catches.py TTRACE

Makes a random model, traces a prompt, checks that gpt2_ref.py passes on the trace as
written, then rewrites only the trace's metadata (the tensors stay) so that it claims a
knob the pass did not apply, a knob the reference does not know, or a variant its config
contradicts, and checks that gpt2_ref.py fails on each. This is what makes the reference
read the knobs from the trace: a knob applied wrongly but recorded consistently fails.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"


def rewrite_metadata(src, dst, edit):
    """Copies the safetensors file src to dst with edit(metadata dict) applied."""
    with open(src, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + n].decode("utf-8"))
    edit(header["__metadata__"])
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(dst, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + blob[8 + n :])


def set_config(key, value):
    def edit(meta):
        cfg = json.loads(meta["config"])
        cfg[key] = value
        meta["config"] = json.dumps(cfg)
    return edit


def set_variant(key, value):
    def edit(meta):
        meta["variant"] = json.dumps({key: value})
    return edit


def reference(model, trace):
    return subprocess.call([PY, os.path.join(HERE, "gpt2_ref.py"), "--quiet", model, trace],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    ttrace = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="ttrace-refcatch-") as tmp:
        model, trace = os.path.join(tmp, "model"), os.path.join(tmp, "trace.safetensors")
        subprocess.check_call([PY, os.path.join(HERE, "make_model.py"), model, "--layers", "3", "--heads", "2",
                               "--embd", "16"])
        subprocess.check_call([ttrace, "trace", "-q", "-m", model, "-o", trace, "--", "The weather is nice"])
        if reference(model, trace) != 0:
            print("FAIL: the reference rejects the trace as written")
            return 1
        lies = {
            "claims scale_attn_by_inverse_layer_idx": set_config("scale_attn_by_inverse_layer_idx", True),
            "claims no ÷√d_k": set_config("ttrace_scale_attn", False),
            "claims no causal mask": set_config("ttrace_causal", False),
            "claims post-LN": set_config("ttrace_block", "post_ln"),
            "claims relu": set_config("activation_function", "relu"),
            "has a knob the reference does not know": set_config("rotary_dim", 8),
            "variant contradicts config": set_variant("scale_attn_by_inverse_layer_idx", True),
        }
        failed = 0
        for what, edit in lies.items():
            bad = os.path.join(tmp, "bad.safetensors")
            rewrite_metadata(trace, bad, edit)
            rc = reference(model, bad)
            print(f"{'ok  ' if rc != 0 else 'FAIL'} trace that {what}: reference exit status {rc}")
            failed += rc == 0
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
