"""Reads one tensor of a safetensors file with the standard library (the test's own reader)."""
import json
import struct
from array import array


def read_tensor(path, name):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        meta = header.get("__metadata__", {})
        if name not in header:
            return None, None, meta
        info = header[name]
        start, end = info["data_offsets"]
        f.seek(8 + n + start)
        buf = f.read(end - start)
    assert info["dtype"] == "F32", info["dtype"]
    values = array("f")
    values.frombytes(buf)
    return info["shape"], values, meta
