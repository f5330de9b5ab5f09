"""A minimal safetensors reader and writer with numpy only (Debian has no safetensors package).

Layout: 8-byte little-endian header length N, N bytes of JSON header, then the data. The
header maps each tensor name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets
relative to the data start) and may hold "__metadata__" (string -> string). The header is
padded with spaces so the data starts at a multiple of 8.
"""

import collections
import json
import os
import struct

import numpy as np

DTYPES = {"F16": np.float16, "F32": np.float32, "F64": np.float64, "I32": np.int32, "I64": np.int64,
          "U8": np.uint8, "I8": np.int8, "I16": np.int16}
NAMES = {np.dtype(v).str: k for k, v in DTYPES.items()}
NAMES[np.dtype(np.bool_).str] = "BOOL"

# A tensor numpy has no dtype for (BF16): its safetensors dtype name, shape and raw bytes.
Raw = collections.namedtuple("Raw", "dtype shape data")


def write(path, tensors, metadata=None):
    """tensors: name -> numpy array (little-endian) or Raw; written in name order, atomically
    (a temporary file beside path, then renamed)."""
    header = {}
    if metadata is not None:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    offset = 0
    arrays = []
    for name in sorted(tensors):
        if isinstance(tensors[name], Raw):
            r = tensors[name]
            header[name] = {"dtype": r.dtype, "shape": list(r.shape), "data_offsets": [offset, offset + len(r.data)]}
            offset += len(r.data)
            arrays.append(r.data)
            continue
        a = np.ascontiguousarray(tensors[name])
        dt = NAMES[a.dtype.newbyteorder("<").str if a.dtype.byteorder == ">" else a.dtype.str]
        a = a.astype(a.dtype.newbyteorder("<"), copy=False)
        header[name] = {"dtype": dt, "shape": list(a.shape), "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
        arrays.append(a.tobytes())
    hb = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hb += b" " * ((8 - (8 + len(hb)) % 8) % 8)
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(struct.pack("<Q", len(hb)))
            f.write(hb)
            for a in arrays:
                f.write(a)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def read(path):
    """-> (name -> numpy array, metadata dict)."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", {})
    base = 8 + n
    out = {}
    for name, info in header.items():
        b, e = info["data_offsets"]
        dt = np.dtype(DTYPES[info["dtype"]]).newbyteorder("<")
        out[name] = np.frombuffer(data[base + b:base + e], dtype=dt).reshape(info["shape"])
    return out, meta
