#!/usr/bin/python3
"""pytorch_model.bin: ttrace refuses a folder that has only it, in one line that points to
tools/convert_checkpoint.py; the converter's model.safetensors traces exactly as the
safetensors the .bin was made from; pickles that are not a state dict of tensors are refused
with nothing written (and a pickle that would run os.system does not run it).

The .bin files are written here with torch.save from the weights of a random GPT-2 made by
tests/reference/make_model.py (read with stfile.py), as Hugging Face's GPT2LMHeadModel's
state_dict() holds them: the attention-mask buffers h.N.attn.bias and h.N.attn.masked_bias
included, lm_head.weight the same tensor as wte.weight when tied.

    test_convert.py TTRACE
"""
import collections
import os
import shutil
import subprocess
import tempfile

import common
import stfile

CONVERT = os.path.join(common.HERE, "..", "..", "tools", "convert_checkpoint.py")


def state_dict(torch, model_dir, prefix):
    """The model's tensors as torch tensors, in GPT2LMHeadModel's state_dict() form."""
    import numpy as np

    entries, _ = stfile.read(os.path.join(model_dir, "model.safetensors"))
    sd = collections.OrderedDict()
    for name, dtype, shape, blob in entries:
        if dtype == "BF16":
            t = torch.from_numpy(np.frombuffer(blob, "<i2").copy()).view(torch.bfloat16)
        else:
            t = torch.from_numpy(np.frombuffer(blob, {"F32": "<f4", "F16": "<f2"}[dtype]).copy())
        name = name if name.startswith(("transformer.", "lm_head.")) or not prefix else "transformer." + name
        sd[name] = t.reshape(shape)
    n_layer = 1 + max(int(n.split("h.")[1].split(".")[0]) for n in sd if ".h." in "." + n)
    p = "transformer." if prefix else ""
    for layer in range(n_layer):
        sd[f"{p}h.{layer}.attn.bias"] = torch.tril(torch.ones(64, 64, dtype=torch.bool)).view(1, 1, 64, 64)
        sd[f"{p}h.{layer}.attn.masked_bias"] = torch.tensor(-1e4)
    if "lm_head.weight" not in sd:
        sd["lm_head.weight"] = sd[p + "wte.weight"]  # tied: the same storage
    return sd


def bin_folder(torch, src, dst, prefix, legacy=False):
    os.makedirs(dst)
    shutil.copy(os.path.join(src, "config.json"), dst)
    torch.save(state_dict(torch, src, prefix), os.path.join(dst, "pytorch_model.bin"),
               _use_new_zipfile_serialization=not legacy)
    return dst


def convert(c, folder, *extra):
    return subprocess.run([common.PY, CONVERT, folder] + list(extra), capture_output=True, text=True)


class Evil:
    def __reduce__(self):
        return (os.system, ("touch " + Evil.marker,))


def main():
    c = common.Checks(common.ttrace_arg())
    try:
        import torch
    except ImportError:
        print("no python3-torch (apt-get install python3-torch): skipped")
        return 77
    torch.manual_seed(0)
    tmp = tempfile.mkdtemp(prefix="ttrace-convert-")
    try:
        o = os.path.join(tmp, "out.safetensors")
        cases = [
            ("F32, names as GPT2Model", ["--layers", "2", "--heads", "4", "--embd", "32"], False, False, []),
            ("F16, transformer. prefix, own lm_head, restricted unpickler",
             ["--layers", "2", "--heads", "3", "--embd", "24", "--dtype", "F16", "--prefix", "--untied"], True, False,
             ["--unpickler", "restricted"]),
            ("BF16, transformer. prefix, tied, legacy torch.save, weights_only",
             ["--layers", "1", "--heads", "2", "--embd", "16", "--dtype", "BF16"], True, True,
             ["--unpickler", "weights_only"]),
            ("F32, tied (one storage), restricted unpickler", ["--layers", "2", "--heads", "2", "--embd", "16"], False, False,
             ["--unpickler", "restricted"]),
        ]
        for i, (what, model_args, prefix, legacy, conv_args) in enumerate(cases):
            src = common.make_model(os.path.join(tmp, f"src{i}"), *model_args)
            b = bin_folder(torch, src, os.path.join(tmp, f"bin{i}"), prefix, legacy)
            if i == 0:
                c.refused("a folder with only pytorch_model.bin points to the converter",
                          ["trace", "-m", b, "-o", o, "hi"], 3, f"convert it with `tools/convert_checkpoint.py {b}`", o)
            r = convert(c, b, *conv_args)
            c.check(f"converts ({what})", r.returncode == 0 and "wrote" in r.stdout and "dropped" in r.stdout,
                    r.stdout + r.stderr)
            entries, meta = stfile.read(os.path.join(b, "model.safetensors"))
            c.check(f"no mask buffers, every weight ({what})",
                    not any(".attn.bias" in e[0] or "masked_bias" in e[0] for e in entries)
                    and len(entries) == len(stfile.read(os.path.join(src, "model.safetensors"))[0]) + (0 if "--untied" in model_args else 1)
                    and meta == {"format": "pt"}, [e[0] for e in entries])
            c.same_trace(f"the converted folder traces as the original ({what})", src, b, tmp)
            if i == 0:
                r = convert(c, b)
                c.check("an existing model.safetensors is kept", r.returncode == 3 and "already exists" in r.stderr,
                        r.stderr)

        def refused_pickle(what, obj, needle, unpickler):
            d = os.path.join(tmp, "bad-" + unpickler + "-" + str(abs(hash(what))))
            os.makedirs(d)
            torch.save(obj, os.path.join(d, "pytorch_model.bin"))
            r = convert(c, d, "--unpickler", unpickler)
            err = r.stderr.strip()
            c.check(f"{what} is refused ({unpickler})",
                    r.returncode == 3 and needle in err and len(err.splitlines()) == 1
                    and not os.path.exists(os.path.join(d, "model.safetensors")), f"exit {r.returncode}: {err!r}")

        Evil.marker = os.path.join(tmp, "pwned")
        for u in ("weights_only", "restricted"):
            refused_pickle("a pickle that calls os.system", {"wte.weight": torch.zeros(2), "x": Evil()}, "refused by",
                           u)
            c.check(f"os.system did not run ({u})", not os.path.exists(Evil.marker))
            refused_pickle("a non-tensor value", {"wte.weight": torch.zeros(2), "step": 3}, "'step' is a int", u)
            refused_pickle("a list, not a state dict", [torch.zeros(2)], "not a state dict", u)
        d = os.path.join(tmp, "legacy")
        os.makedirs(d)
        torch.save({"wte.weight": torch.zeros(2)}, os.path.join(d, "pytorch_model.bin"), _use_new_zipfile_serialization=False)
        r = convert(c, d, "--unpickler", "restricted")
        c.check("the restricted unpickler refuses the legacy format", r.returncode == 3 and "legacy" in r.stderr, r.stderr)
        r = convert(c, os.path.join(tmp, "nowhere"))
        c.check("a folder without pytorch_model.bin", r.returncode == 4 and "does not exist" in r.stderr, r.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return c.done()


if __name__ == "__main__":
    raise SystemExit(main())
