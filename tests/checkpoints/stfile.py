"""Reads and writes safetensors files byte for byte with the standard library, for the
checkpoint tests (independent of ttrace's reader and of tools/convert_checkpoint.py).

read(path) -> (entries, metadata): entries is a list of (name, dtype, shape, raw bytes) in
data-offset order. write(path, entries, metadata) lays them out back to back after a JSON
header padded with spaces to a multiple of 8 bytes.
"""
import json
import struct


def read(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    meta = header.pop("__metadata__", None)
    data = raw[8 + n :]
    entries = []
    for name, info in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
        b, e = info["data_offsets"]
        entries.append((name, info["dtype"], list(info["shape"]), data[b:e]))
    return entries, meta


def write(path, entries, metadata=None):
    header, offset = {}, 0
    for name, dtype, shape, blob in entries:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
    if metadata is not None:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, _, _, blob in entries:
            f.write(blob)
