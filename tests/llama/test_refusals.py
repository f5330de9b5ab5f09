#!/usr/bin/python3
"""What ttrace does not implement of a Llama folder is refused: one line on stderr naming
the key or file, the documented exit code, no trace written.

    test_refusals.py TTRACE
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"


def make(folder, *args):
    subprocess.check_call([PY, os.path.join(HERE, "make_llama.py"), folder, "--layers", "1", "--vocab", "300"] + list(args))


def edit_config(folder, **changes):
    path = os.path.join(folder, "config.json")
    with open(path) as f:
        c = json.load(f)
    for k, v in changes.items():
        if v is None and k.startswith("del_"):
            c.pop(k[4:], None)
        else:
            c[k] = v
    with open(path, "w") as f:
        json.dump(c, f)


def expect(ttrace, folder, code, words, extra=()):
    out = os.path.join(folder, "out.safetensors")
    r = subprocess.run([ttrace, "trace", "-q", "-m", folder, "-o", out] + list(extra) + ["--", "Hi there"],
                       capture_output=True, text=True)
    err = r.stderr.strip()
    problems = []
    if r.returncode != code:
        problems.append(f"exit {r.returncode}, expected {code}")
    if len(err.splitlines()) != 1:
        problems.append(f"stderr is {len(err.splitlines())} lines")
    for w in words:
        if w not in err:
            problems.append(f"message lacks {w!r}")
    if os.path.exists(out):
        problems.append("a trace was written")
    status = "ok" if not problems else "FAIL " + "; ".join(problems)
    print(f"{os.path.basename(folder):<22} {status}: {err}")
    return not problems


def main():
    ttrace = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="ttrace-llama-")
    ok = True
    cases = [
        ("model_type", {"model_type": "mistral"}, 3, ["model_type 'mistral'"]),
        ("hidden_act", {"hidden_act": "tanh_weird"}, 3, ["hidden_act 'tanh_weird'"]),
        ("kv_heads", {"num_key_value_heads": 3}, 3, ["num_attention_heads 4", "num_key_value_heads 3"]),
        ("rope_scaling", {"rope_scaling": {"rope_type": "linear", "factor": 2.0}}, 3, ["rope_scaling (linear)"]),
        ("rope_parameters", {"rope_parameters": {"rope_type": "yarn", "rope_theta": 10000.0}}, 3, ["'yarn'"]),
        ("odd_head_dim", {"head_dim": 7}, 3, ["head_dim 7 is odd"]),
        ("missing_size", {"del_hidden_size": None}, 3, ["missing 'hidden_size'"]),
        ("ttrace_key", {"ttrace_norm": "layernorm"}, 3, ["'ttrace_norm'"]),
        ("untied_no_head", {"tie_word_embeddings": False}, 3, ["no lm_head.weight"]),
        ("bias_missing", {"attention_bias": True}, 3, ["missing tensor 'model.layers.0.self_attn.q_proj.bias'"]),
        ("shape", {"intermediate_size": 50}, 3, ["model.layers.0.mlp.gate_proj.weight", "(50, 32)"]),
    ]
    for name, changes, code, words in cases:
        folder = os.path.join(tmp, name)
        make(folder, "--tied" if name == "untied_no_head" else "--heads", *([] if name == "untied_no_head" else ["4"]))
        edit_config(folder, **changes)
        ok &= expect(ttrace, folder, code, words)
    # A shard the index names is missing.
    folder = os.path.join(tmp, "missing_shard")
    make(folder, "--shards", "2")
    os.remove(os.path.join(folder, "model-00002-of-00002.safetensors"))
    ok &= expect(ttrace, folder, 4, ["model-00002-of-00002.safetensors"])
    # GPT-2 knobs and gradients are refused.
    folder = os.path.join(tmp, "knob")
    make(folder)
    ok &= expect(ttrace, folder, 3, ["'causal'", "Llama block"], ["--set", "causal=false"])
    ok &= expect(ttrace, folder, 3, ["gradients of the Llama block"], ["--grad"])
    subprocess.call(["rm", "-rf", tmp])
    print("all refused as expected" if ok else "some refusals are wrong")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
