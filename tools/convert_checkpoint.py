#!/usr/bin/python3
"""Converts a model folder's pytorch_model.bin (a PyTorch pickle) into model.safetensors
beside it, which ttrace reads.

    convert_checkpoint.py DIR [--unpickler auto|weights_only|restricted] [--force]

The pickle is never run as code: torch.load(..., weights_only=True) where this torch has it
(1.13 and later), else (or with --unpickler restricted) its own unpickler of torch.save's zip
format that resolves only OrderedDict, storage types and tensor constructors. The result must be a dict of tensors
(names to torch.Tensor), nothing else. GPT-2's attention-mask buffers (h.N.attn.bias,
h.N.attn.masked_bias), which Hugging Face ignores on load, are dropped. The file is written
atomically (a temporary file, then renamed); an existing model.safetensors is kept unless
--force.

Exit status: 0 written, 2 bad usage, 3 refused (not a state dict of tensors, a global that
is not a tensor's, an unsupported dtype, model.safetensors already there), 4 a file missing
or unwritable. Needs Debian's python3-torch and python3-numpy; run with /usr/bin/python3.
"""
import argparse
import collections
import inspect
import os
import pickle
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stio  # noqa: E402

# Buffers of Hugging Face's GPT2Attention (the causal mask and its fill value), not weights.
MASK_BUFFER = re.compile(r"(^|\.)attn\.(masked_)?bias$")

STORAGE_DTYPES = {"Float": "float32", "Half": "float16", "BFloat16": "bfloat16", "Double": "float64",
                  "Long": "int64", "Int": "int32", "Short": "int16", "Char": "int8", "Byte": "uint8", "Bool": "bool"}


class Refused(Exception):
    """The input is not something this converter accepts (exit status 3)."""


class RestrictedUnpickler(pickle.Unpickler):
    """Unpickles torch.save's zip format (archive/data.pkl) resolving only OrderedDict, the
    storage types and the tensor constructors, which it implements itself: nothing the pickle
    names is imported or called. (torch 1.13's torch.load ignores a pickle_module without
    weights_only, so it cannot be restricted that way.)"""

    def __init__(self, f, torch, records):
        super().__init__(f)
        self.torch, self.records = torch, records

    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        if module == "torch" and name.endswith("Storage") and name[: -len("Storage")] in STORAGE_DTYPES:
            return getattr(self.torch, STORAGE_DTYPES[name[: -len("Storage")]])  # a dtype stands for its storage
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return self.rebuild_tensor
        if (module, name) == ("torch._utils", "_rebuild_parameter"):
            return lambda data, requires_grad, hooks, *rest: data
        raise pickle.UnpicklingError(f"the pickle refers to {module}.{name}, which is not a tensor or an OrderedDict")

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unexpected persistent id {pid!r}")
        _, dtype, key, _, numel = pid
        if not isinstance(dtype, self.torch.dtype) or str(key) not in self.records:
            raise pickle.UnpicklingError(f"storage {key!r} is not in the archive")
        raw = bytearray(self.records[str(key)])
        flat = self.torch.frombuffer(raw, dtype=self.torch.uint8) if raw else self.torch.empty(0, dtype=self.torch.uint8)
        return flat.view(dtype)

    def rebuild_tensor(self, storage, offset, size, stride, requires_grad, hooks, *rest):
        if not isinstance(storage, self.torch.Tensor):
            raise pickle.UnpicklingError("a tensor without a storage")
        return self.torch.as_strided(storage, tuple(size), tuple(stride), int(offset))


def restricted_load(torch, path):
    import zipfile

    if not zipfile.is_zipfile(path):
        raise Refused(f"{path}: the legacy (before PyTorch 1.6) format, which the restricted unpickler does not read "
                      "(use a torch whose torch.load has weights_only)")
    with zipfile.ZipFile(path) as z:
        pkl = [n for n in z.namelist() if n.endswith("/data.pkl")]
        if len(pkl) != 1:
            raise Refused(f"{path}: not a torch.save archive (no single data.pkl)")
        prefix = pkl[0][: -len("data.pkl")] + "data/"
        records = {n[len(prefix):]: z.read(n) for n in z.namelist() if n.startswith(prefix)}
        return RestrictedUnpickler(z.open(pkl[0]), torch, records).load()


def load_state_dict(torch, path, unpickler):
    if unpickler == "auto":
        unpickler = "weights_only" if "weights_only" in inspect.signature(torch.load).parameters else "restricted"
    try:
        if unpickler == "weights_only":
            obj = torch.load(path, map_location="cpu", weights_only=True)
        else:
            obj = restricted_load(torch, path)
    except (pickle.UnpicklingError, AttributeError, TypeError, ValueError, EOFError) as e:
        first = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
        raise Refused(f"{path}: refused by the {unpickler} unpickler: {first}") from None
    except RuntimeError as e:  # torch's own "Weights only load failed" or a malformed archive
        first = str(e).strip().splitlines()
        raise Refused(f"{path}: refused by the {unpickler} unpickler: {first[-1] if first else 'RuntimeError'}") from None
    if not isinstance(obj, (dict, collections.OrderedDict)):
        raise Refused(f"{path}: holds a {type(obj).__name__}, not a state dict (names to tensors)")
    for k, v in obj.items():
        if not isinstance(k, str) or not isinstance(v, torch.Tensor):
            raise Refused(f"{path}: entry {k!r} is a {type(v).__name__}, not a tensor")
    return obj, unpickler


def to_arrays(torch, state):
    """name -> numpy array (or stio.Raw for BF16), without GPT-2's mask buffers."""
    import numpy as np

    kinds = {torch.float32: np.float32, torch.float16: np.float16, torch.float64: np.float64,
             torch.int64: np.int64, torch.int32: np.int32, torch.int16: np.int16, torch.int8: np.int8,
             torch.uint8: np.uint8, torch.bool: np.bool_}
    out, dropped = {}, []
    for name, t in state.items():
        if MASK_BUFFER.search(name):
            dropped.append(name)
            continue
        t = t.detach().cpu().contiguous()
        if t.dtype == torch.bfloat16:
            out[name] = stio.Raw("BF16", list(t.shape), t.view(torch.int16).numpy().astype("<i2").tobytes())
        elif t.dtype in kinds:
            out[name] = t.numpy().astype(np.dtype(kinds[t.dtype]).newbyteorder("<"), copy=False)
        else:
            raise Refused(f"tensor '{name}' has dtype {t.dtype}, which safetensors cannot hold here")
    return out, dropped


def convert(args):
    src = os.path.join(args.dir, "pytorch_model.bin")
    dst = os.path.join(args.dir, "model.safetensors")
    if not os.path.isfile(src):
        print(f"convert_checkpoint.py: {src} does not exist", file=sys.stderr)
        return 4
    if os.path.exists(dst) and not args.force:
        print(f"convert_checkpoint.py: {dst} already exists (--force replaces it)", file=sys.stderr)
        return 3
    try:
        import torch
    except ImportError:
        print("convert_checkpoint.py: needs PyTorch (Debian: apt-get install python3-torch)", file=sys.stderr)
        return 4
    try:
        state, how = load_state_dict(torch, src, args.unpickler)
        arrays, dropped = to_arrays(torch, state)
    except Refused as e:
        print(f"convert_checkpoint.py: {e}", file=sys.stderr)
        return 3
    try:
        stio.write(dst, arrays, {"format": "pt"})
    except OSError as e:
        print(f"convert_checkpoint.py: cannot write {dst}: {e.strerror}", file=sys.stderr)
        return 4
    params = sum(int(t.numel()) for n, t in state.items() if n not in dropped)
    note = f"; dropped {len(dropped)} attention-mask buffer{'s' * (len(dropped) != 1)}" if dropped else ""
    print(f"wrote {dst}: {len(arrays)} tensors, {params} values (read with {how}){note}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help="the model folder holding pytorch_model.bin")
    ap.add_argument("--unpickler", choices=["auto", "weights_only", "restricted"], default="auto",
                    help="auto: weights_only where torch.load has it, else restricted")
    ap.add_argument("--force", action="store_true", help="replace an existing model.safetensors")
    return convert(ap.parse_args())


if __name__ == "__main__":
    raise SystemExit(main())
