#!/usr/bin/env python3
"""Writes and prints small .npy files without NumPy, for the lit tests.

  npy.py write OUT DESCR SHAPE ORDER VALUES
      DESCR like <f4, <i4, <c8; SHAPE like 2,3 ('' for a 0-d array); ORDER C
      or F; VALUES comma-separated, the array's elements in row-major (C)
      order, complex as re:im.
  npy.py read FILE
      prints 'descr=... fortran_order=... shape=(...)' and then the elements
      in row-major order, one per line.
  npy.py raw OUT BYTES
      writes arbitrary bytes (a Python bytes literal) for malformed files.
"""
import ast
import struct
import sys

CODES = {"b1": "?", "i1": "b", "i2": "h", "i4": "i", "i8": "q", "u2": "H",
         "f2": "e", "f4": "f", "f8": "d", "c8": "ff", "c16": "dd", "V2": "H"}


def c_to_f(values, shape):
    """Reorders row-major values into column-major order."""
    if len(shape) <= 1:
        return list(values)
    count = len(values)
    out = [None] * count
    for c_index in range(count):
        rest, idx = c_index, []
        for size in reversed(shape):
            idx.append(rest % size)
            rest //= size
        idx.reverse()
        f_index, stride = 0, 1
        for i, size in zip(idx, shape):
            f_index += i * stride
            stride *= size
        out[f_index] = values[c_index]
    return out


def f_to_c(values, shape):
    if len(shape) <= 1:
        return list(values)
    inverse = c_to_f(list(range(len(values))), shape)
    out = [None] * len(values)
    for f_index, c_index in enumerate(inverse):
        out[c_index] = values[f_index]
    return out


def write(path, descr, shape_text, order, values_text):
    shape = tuple(int(s) for s in shape_text.split(",") if s)
    code = CODES[descr[1:]]
    values = [v for v in values_text.split(",") if v]
    fmt = descr[0] if descr[0] in "<>" else "<"
    parsed = []
    for v in values:
        if len(code) == 2:
            re, im = v.split(":")
            parsed.append((float(re), float(im)))
        elif code in "efd":
            parsed.append(float(v))
        elif code == "?":
            parsed.append(v in ("1", "True", "true"))
        else:
            parsed.append(int(v, 0))
    if order == "F":
        parsed = c_to_f(parsed, shape)
    data = b"".join(struct.pack(fmt + code, *(p if isinstance(p, tuple) else (p,)))
                    for p in parsed)
    shape_repr = "(" + "".join(f"{s}, " for s in shape).rstrip(" ")
    shape_repr = shape_repr.rstrip(",") + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if order == "F" else "False", shape_repr)
    pad = (64 - (10 + len(header) + 1) % 64) % 64
    header = header + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1") + data)


def read(path):
    with open(path, "rb") as f:
        raw = f.read()
    assert raw[:6] == b"\x93NUMPY"
    length = struct.unpack("<H", raw[8:10])[0]
    header = ast.literal_eval(raw[10:10 + length].decode("latin1"))
    descr, shape = header["descr"], header["shape"]
    code = CODES[descr[1:]]
    size = struct.calcsize("<" + code)
    data = raw[10 + length:]
    values = [struct.unpack_from(descr[0] + code, data, i)
              for i in range(0, len(data), size)]
    if header["fortran_order"]:
        values = f_to_c(values, shape)
    print("descr=%s fortran_order=%s shape=%s" % (
        descr, header["fortran_order"], shape))
    for v in values:
        print(":".join("%g" % x for x in v))


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(*sys.argv[2:7])
    elif sys.argv[1] == "read":
        read(sys.argv[2])
    elif sys.argv[1] == "raw":
        with open(sys.argv[2], "wb") as f:
            f.write(ast.literal_eval(sys.argv[3]))
