"""A small, independent safetensors reader for the lesson checks (numpy only).

    tensors, metadata = load(path)   # {name: np.ndarray (float32 or int32)}, {key: str}
"""
import json
import struct

import numpy as np


def _bf16(raw):
    u = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
    return u.view(np.float32)


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", {})
    base = 8 + n
    out = {}
    for name, info in header.items():
        b, e = info["data_offsets"]
        raw = data[base + b:base + e]
        dt = info["dtype"]
        if dt == "F32":
            a = np.frombuffer(raw, dtype="<f4")
        elif dt == "F16":
            a = np.frombuffer(raw, dtype="<f2").astype(np.float32)
        elif dt == "BF16":
            a = _bf16(raw)
        elif dt == "I32":
            a = np.frombuffer(raw, dtype="<i4")
        elif dt == "I64":
            a = np.frombuffer(raw, dtype="<i8")
        else:
            raise ValueError(f"{path}: {name}: dtype {dt} not handled")
        out[name] = a.reshape(info["shape"]).copy()
    return out, meta
