"""A minimal safetensors reader and writer in pure Python + torch.

It exists so that bertlab's Python reference scripts need nothing beyond
Debian's python3-torch (the `safetensors` package is not installed). Format
(https://github.com/huggingface/safetensors, "Format"; also
/work/shared/docs/PAPER.md section 4c and model/safetensors.h):

  bytes [0, 8)        N, the header length, a little-endian uint64
  bytes [8, 8 + N)    a UTF-8 JSON object, padded at the end with spaces
                      (0x20); this writer pads so that 8 + N is a multiple
                      of 8, which keeps every tensor 8-byte aligned
  bytes [8 + N, end)  the byte buffer: every tensor's data, row-major and
                      little-endian

The header maps each tensor name to {"dtype", "shape", "data_offsets":
[begin, end)} (offsets relative to the byte buffer) and may hold
"__metadata__", a map of strings to strings. This writer packs the tensors
contiguously in sorted-name order; the reader accepts any order but, like the
official implementation, insists that the tensors tile the buffer exactly.

  from safetensors_io import save_file, load_file
  save_file({"w": torch.zeros(2, 3)}, "x.safetensors", {"note": "hi"})
  tensors, metadata = load_file("x.safetensors")
"""

import json
import struct
import sys

import torch

if sys.byteorder != "little":  # tensor bytes are written in native order
    raise RuntimeError("safetensors_io assumes a little-endian machine")

_DTYPES = {
    "F64": torch.float64,
    "F32": torch.float32,
    "F16": torch.float16,
    "BF16": torch.bfloat16,
    "I64": torch.int64,
    "I32": torch.int32,
    "I16": torch.int16,
    "I8": torch.int8,
    "U8": torch.uint8,
    "BOOL": torch.bool,
}
_NAMES = {dtype: name for name, dtype in _DTYPES.items()}

# The official implementation refuses headers over 100 MB.
_MAX_HEADER = 100_000_000


def _tensor_bytes(tensor):
    flat = tensor.detach().cpu().contiguous().reshape(-1)
    if flat.numel() == 0:
        return b""
    if flat.dtype == torch.bool:
        flat = flat.to(torch.uint8)
    return bytes(flat.view(torch.uint8).numpy())


def save_bytes(tensors, metadata=None):
    """Returns the safetensors encoding of {name: tensor} as bytes."""
    header = {}
    if metadata:
        for key, value in metadata.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise TypeError("__metadata__ must map str to str")
        header["__metadata__"] = dict(metadata)
    chunks = []
    offset = 0
    for name in sorted(tensors):
        if name == "__metadata__":
            raise ValueError("'__metadata__' cannot name a tensor")
        tensor = tensors[name]
        if tensor.dtype not in _NAMES:
            raise TypeError("%s: unsupported dtype %s" % (name, tensor.dtype))
        data = _tensor_bytes(tensor)
        header[name] = {
            "dtype": _NAMES[tensor.dtype],
            "shape": list(tensor.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def save_file(tensors, path, metadata=None):
    with open(path, "wb") as f:
        f.write(save_bytes(tensors, metadata))


def load_bytes(data, source="<bytes>"):
    """Parses safetensors bytes; returns ({name: tensor}, metadata dict)."""
    if len(data) < 8:
        raise ValueError("%s: shorter than the 8-byte header length" % source)
    (header_len,) = struct.unpack("<Q", data[:8])
    if header_len > _MAX_HEADER or 8 + header_len > len(data):
        raise ValueError("%s: bad header length %d" % (source, header_len))
    header = json.loads(data[8:8 + header_len].decode("utf-8"))
    if not isinstance(header, dict):
        raise ValueError("%s: header is not a JSON object" % source)
    metadata = header.pop("__metadata__", None) or {}
    buffer = memoryview(data)[8 + header_len:]
    tensors = {}
    spans = []
    for name, info in header.items():
        dtype = _DTYPES.get(info.get("dtype"))
        if dtype is None:
            raise ValueError("%s: %s: unsupported dtype %r" %
                             (source, name, info.get("dtype")))
        shape = [int(d) for d in info["shape"]]
        begin, end = (int(x) for x in info["data_offsets"])
        count = 1
        for d in shape:
            count *= d
        itemsize = torch.empty((), dtype=dtype).element_size()
        if not 0 <= begin <= end <= len(buffer) or end - begin != count * itemsize:
            raise ValueError("%s: %s: data_offsets [%d, %d) do not fit "
                             "shape %s of %s" % (source, name, begin, end,
                                                 shape, info["dtype"]))
        spans.append((begin, end, name))
        raw = bytearray(buffer[begin:end])
        if count == 0:
            tensor = torch.empty(shape, dtype=dtype)
        else:
            load_dtype = torch.uint8 if dtype == torch.bool else dtype
            tensor = torch.frombuffer(raw, dtype=load_dtype).reshape(shape)
            if dtype == torch.bool:
                tensor = tensor.to(torch.bool)
        tensors[name] = tensor.clone()
    position = 0
    for begin, end, name in sorted(spans):
        if begin != position:
            raise ValueError("%s: %s: tensors overlap or leave a hole at "
                             "byte %d" % (source, name, position))
        position = end
    if position != len(buffer):
        raise ValueError("%s: %d trailing bytes after the last tensor" %
                         (source, len(buffer) - position))
    return tensors, metadata


def load_file(path):
    with open(path, "rb") as f:
        return load_bytes(f.read(), path)
