#!/usr/bin/env python3
"""Differential test of ptescope's CPU kernels against ExecuTorch's own runtime.

For each case of the table below (an operator, the dtypes the upstream portable
kernel accepts, and an input class), this writes a one-operator program with
`ptescope-cli synth`, writes its inputs as raw files, runs it through the
runtime (ET_ORACLE: upstream's examples/portable/executor_runner, built as
DEVELOPERS.md describes: --model_path --inputs --output_file) and through
`ptescope-cli run --runtime host`, and compares the output bytes.

Each case ends in one of:
  same          both ran and every output's bytes agree
  both-refused  both refused the program (an error from the kernel)
  differs       both ran and some output bytes differ (the first few are listed)
  oracle-refused / ptescope-refused   one ran, the other refused

    differential.py --cli PATH [--oracle PATH] [--record FILE] [--check FILE] [-k SUBSTRING] [--work DIR]

--record writes the outcome of every case (kernel, dtype, input class, outcome)
as a TSV; --check compares the outcomes with such a record (a TSV committed as
tests/oracle/record.tsv) and fails on any case whose outcome changed. Without
an oracle (no --oracle and no ET_ORACLE) it exits 77, which CTest reports as
skipped: nothing is compared, so nothing passes.
"""
import argparse
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile

# ---- dtypes and edge values ---------------------------------------------------

FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
REAL = FLOATS + INTS          # REALHBF16
REALB = REAL + ["bool"]       # REALHBBF16
INTB = INTS + ["bool"]

SIZE = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "uint8": 1, "int8": 1,
        "int16": 2, "int32": 4, "int64": 8, "bool": 1}
INT_RANGE = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767),
             "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}
DENORMAL = {"float32": 1e-40, "float64": 5e-324, "float16": 6e-8, "bfloat16": 1e-40}
MAXIMUM = {"float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308, "float16": 65504.0,
           "bfloat16": 3.3895313892515355e38}


def edges(dtype):
    """The edge values of a dtype: ±0, ±1, NaN, ±inf, a denormal, the extremes, ordinary values."""
    if dtype == "bool":
        return [0, 1, 1, 0]
    if dtype in INT_RANGE:
        lo, hi = INT_RANGE[dtype]
        values = [0, 1, -1, 2, -3, 7, -7, 31, 32, 33, 63, 64, -32, lo, hi, 100]
        return [v for v in values if lo <= v <= hi]
    return [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.75, 1e-3, 100.0, -7.0, float("nan"), float("inf"),
            float("-inf"), DENORMAL[dtype], MAXIMUM[dtype], 0.9999, -0.3, 0.7]


def ordinary(dtype, count, salt=0):
    """Ordinary values, as the kernel tests use: ((k*7919 + 131 salt) mod 1013) / 127 - 4."""
    values = [((k * 7919 + salt * 131) % 1013) / 127.0 - 4.0 for k in range(count)]
    if dtype == "bool":
        return [int(v > 0) for v in values]
    if dtype in INT_RANGE:
        lo, hi = INT_RANGE[dtype]
        return [max(lo, min(hi, int(round(v * 3)))) for v in values]
    return values


def pack(dtype, values):
    out = bytearray()
    for v in values:
        if dtype == "float32":
            out += struct.pack("<f", v)
        elif dtype == "float64":
            out += struct.pack("<d", v)
        elif dtype == "float16":
            out += struct.pack("<e", v) if math.isnan(v) or abs(v) <= 65504 else struct.pack("<H", 0x7c00 if v > 0 else 0xfc00)
        elif dtype == "bfloat16":
            bits = struct.unpack("<I", struct.pack("<f", v))[0] if math.isnan(v) or abs(v) < 3.5e38 else (0x7f800000 if v > 0 else 0xff800000)
            if math.isnan(v):
                out += struct.pack("<H", 0x7fc0)
            else:
                bits += 0x7fff + ((bits >> 16) & 1)
                out += struct.pack("<H", (bits >> 16) & 0xffff)
        elif dtype == "bool":
            out += struct.pack("<B", 1 if v else 0)
        else:
            fmt = {"uint8": "<B", "int8": "<b", "int16": "<h", "int32": "<i", "int64": "<q"}[dtype]
            out += struct.pack(fmt, int(v))
    return bytes(out)


def numel(sizes):
    n = 1
    for s in sizes:
        n *= s
    return n


def broadcast(a, b):
    a, b = list(a), list(b)
    while len(a) < len(b):
        a.insert(0, 1)
    while len(b) < len(a):
        b.insert(0, 1)
    return [max(x, y) for x, y in zip(a, b)]


def promote(a, b):
    """c10's promoteTypes for the dtypes above."""
    if a == b:
        return a
    if a == "bool":
        return b
    if b == "bool":
        return a
    fa, fb = a in FLOATS, b in FLOATS
    if fa and fb:
        return "float64" if "float64" in (a, b) else "float32"
    if fa or fb:
        return a if fa else b
    if "uint8" in (a, b):
        other = b if a == "uint8" else a
        return "int16" if other in ("int8", "int16") else other
    order = ["int8", "int16", "int32", "int64"]
    return max(a, b, key=order.index)


# ---- the cases ----------------------------------------------------------------

class Case:
    def __init__(self, kernel, dtype, klass, inputs, args, outs, node=None):
        self.kernel, self.dtype, self.klass = kernel, dtype, klass
        self.inputs = inputs      # [(dtype, sizes, values)]
        self.args = args          # literals after the inputs
        self.outs = outs          # [(dtype, sizes)]
        # The node's arguments in schema order when the inputs are not simply
        # first (gather's index after its dim, cat's list): names "x0", "x1", ...,
        # a list of names is a TensorList; None: the inputs, then args.
        self.node = node
        # Dim orders of tensors that are not contiguous: {"x0": [0, 2, 3, 1], "y0": ...}.
        # Input values are given in logical (contiguous) order; the raw files hold
        # them in memory order.
        self.dim_orders = {}
        # The outs are one Tensor[] argument (split_copy's out).
        self.out_list = False

    def with_dim_orders(self, orders):
        self.dim_orders = orders
        return self

    def with_out_list(self):
        self.out_list = True
        return self

    def signature(self):
        """The dtypes of the operator's tensors as core/exec/BitExact.cpp spells an instruction's:
        the distinct input dtypes in order, '->', the distinct output dtypes; one name when both are
        the same single dtype ("float32", "int32->float32", "bool,float16->float16")."""
        def distinct(names):
            return list(dict.fromkeys(names))

        def token(dtype, name):
            order = self.dim_orders.get(name)
            if not order or order == list(range(len(order))):
                return dtype
            if order == [0, 2, 3, 1]:
                return dtype + "/channels_last"
            return dtype + "/dim_order=" + ".".join(map(str, order))
        ins = distinct(token(d, f"x{i}") for i, (d, _, _) in enumerate(self.inputs))
        outs = distinct(token(d, f"y{i}") for i, (d, _) in enumerate(self.outs))
        return ins[0] if ins == outs and len(ins) == 1 else ",".join(ins) + "->" + ",".join(outs)

    def key(self):
        return f"{self.kernel}\t{self.signature()}\t{self.klass}"

    def spec(self):
        tensors, names = {}, []
        for i, (dtype, sizes, _) in enumerate(self.inputs):
            tensors[f"x{i}"] = {"dtype": dtype, "sizes": sizes}
            names.append(f"x{i}")
        outs = []
        for i, (dtype, sizes) in enumerate(self.outs):
            tensors[f"y{i}"] = {"dtype": dtype, "sizes": sizes}
            outs.append(f"y{i}")
        for name, order in self.dim_orders.items():
            tensors[name]["dim_order"] = order
        node = {"op": self.kernel, "inputs": names + self.args if self.node is None else self.node,
                "outputs": [outs] if self.out_list else outs}
        return {"methods": [{"name": "forward", "inputs": names, "outputs": outs, "tensors": tensors,
                             "nodes": [node]}]}


UNARY_FLOAT_MATH = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "erf", "exp", "expm1",
                    "log", "log10", "log1p", "log2", "reciprocal", "rsqrt", "sin", "sinh", "sqrt", "tan", "tanh"]


def float_out(dtype):
    return dtype if dtype in FLOATS else "float32"


def unary_cases():
    for op in UNARY_FLOAT_MATH:
        for d in REALB:
            v = edges(d)
            yield Case(f"aten::{op}.out", d, "edges", [(d, [len(v)], v)], [], [(float_out(d), [len(v)])])
            if d in FLOATS:
                # 256 ordinary values in [-1, 1) and 256 in (0.01, 12]: the last bits of the math
                small = [x / 4 for x in ordinary(d, 256)]
                positive = [abs(x) * 3 + 0.01 for x in ordinary(d, 256, 1)]
                yield Case(f"aten::{op}.out", d, "[-1, 1)", [(d, [256], small)], [], [(d, [256])])
                yield Case(f"aten::{op}.out", d, "(0, 12]", [(d, [256], positive)], [], [(d, [256])])
    for op in ["ceil", "floor", "trunc", "abs", "neg", "round"]:
        for d in REAL:
            v = edges(d)
            yield Case(f"aten::{op}.out", d, "edges", [(d, [len(v)], v)], [], [(d, [len(v)])])
    for op in ["sigmoid"]:
        for d in REALB:
            v = edges(d)
            yield Case(f"aten::{op}.out", d, "edges", [(d, [len(v)], v)], [], [(float_out(d), [len(v)])])
    for op in ["relu", "sign"]:
        for d in REAL:
            v = edges(d)
            yield Case(f"aten::{op}.out", d, "edges", [(d, [len(v)], v)], [], [(d, [len(v)])])
    for op in ["isnan", "isinf", "logical_not"]:
        for d in REALB:
            v = edges(d)
            yield Case(f"aten::{op}.out", d, "edges", [(d, [len(v)], v)], [], [("bool", [len(v)])])
    for d in INTB:
        v = edges(d)
        yield Case("aten::bitwise_not.out", d, "edges", [(d, [len(v)], v)], [], [(d, [len(v)])])
    for d in FLOATS:
        v = edges(d)
        for mode in ["none", "tanh"]:
            yield Case("aten::gelu.out", d, f"edges/{mode}", [(d, [len(v)], v)], [{"string": mode}], [(d, [len(v)])])
        yield Case("aten::elu.out", d, "edges", [(d, [len(v)], v)], [1.0, 1.0, 1.0], [(d, [len(v)])])
        yield Case("aten::leaky_relu.out", d, "edges", [(d, [len(v)], v)], [0.01], [(d, [len(v)])])
        yield Case("aten::hardtanh.out", d, "edges", [(d, [len(v)], v)], [-1.0, 1.0], [(d, [len(v)])])


def pair_inputs(a, b):
    """Every pair of edge values: a repeated, b tiled."""
    va, vb = edges(a), edges(b)
    n = len(va) * len(vb)
    return (a, [n], [x for x in va for _ in vb]), (b, [n], [y for _ in va for y in vb]), n


def binary_cases():
    arith = {"add.out": REALB, "sub.out": REAL, "mul.out": REALB, "div.out": REALB,
             "floor_divide.out": REAL, "remainder.Tensor_out": REAL, "fmod.Tensor_out": REAL,
             "pow.Tensor_Tensor_out": REAL, "atan2.out": REALB, "maximum.out": REALB, "minimum.out": REALB}
    for op, dtypes in arith.items():
        for d in dtypes:
            xa, xb, n = pair_inputs(d, d)
            args = [1] if op in ("add.out", "sub.out") else []
            common = promote(d, d)
            if op in ("div.out", "atan2.out", "pow.Tensor_Tensor_out") and common not in FLOATS and op != "pow.Tensor_Tensor_out":
                common = "float32"
            yield Case(f"aten::{op}", d, "pairs", [xa, xb], args, [(common, [n])])
            if d in ("float32", "int32"):
                sa, sb = [3, 1], [1, 4]
                yield Case(f"aten::{op}", d, "broadcast", [(d, sa, ordinary(d, 3)), (d, sb, ordinary(d, 4, 1))], args,
                           [(common, [3, 4])])
                yield Case(f"aten::{op}", d, "empty", [(d, [0], []), (d, [0], [])], args, [(common, [0])])
    for d in ["float32", "int32", "float16"]:
        xa, xb, n = pair_inputs(d, d)
        yield Case("aten::add.out", d, "pairs/alpha", [xa, xb], [3 if d == "int32" else 0.3], [(d, [n])])
        yield Case("aten::sub.out", d, "pairs/alpha", [xa, xb], [3 if d == "int32" else 0.3], [(d, [n])])
    for mode in ["trunc", "floor"]:
        for d in REAL:
            xa, xb, n = pair_inputs(d, d)
            yield Case("aten::div.out_mode", d, f"pairs/{mode}", [xa, xb], [{"string": mode}], [(d, [n])])
            v = edges(d)
            for s in ([0, 2, -3] if d in INTS else [0.0, 2.5]):
                yield Case("aten::div.Scalar_mode_out", d, f"scalar {s}/{mode}", [(d, [len(v)], v)], [s, {"string": mode}],
                           [(d, [len(v)])])
    for op in ["remainder.Scalar_out", "fmod.Scalar_out"]:
        for d in REAL:
            v = edges(d)
            for s in ([0, 2, -3] if d in INTS else [0.0, 2.5, -0.75]):
                yield Case(f"aten::{op}", d, f"scalar {s}", [(d, [len(v)], v)], [s], [(d, [len(v)])])
    for op in ["eq", "ne", "lt", "le", "gt", "ge"]:
        for d in REALB:
            xa, xb, n = pair_inputs(d, d)
            yield Case(f"aten::{op}.Tensor_out", d, "pairs", [xa, xb], [], [("bool", [n])])
    for op in ["logical_and", "logical_or", "logical_xor"]:
        for d in REALB:
            xa, xb, n = pair_inputs(d, d)
            yield Case(f"aten::{op}.out", d, "pairs", [xa, xb], [], [("bool", [n])])
    for op in ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"]:
        scalar = "Tensor_Scalar_out" if "shift" in op else "Scalar_out"
        for d in INTB:
            xa, xb, n = pair_inputs(d, d)
            yield Case(f"aten::{op}.Tensor_out", d, "pairs", [xa, xb], [], [(d, [n])])
            v = edges(d)
            for s in ([-7, 33, 3] if d != "bool" else [True]):
                yield Case(f"aten::{op}.{scalar}", d, f"scalar {s}", [(d, [len(v)], v)], [s], [(d, [len(v)])])
        xa, xb, n = pair_inputs("int8", "int32")
        yield Case(f"aten::{op}.Tensor_out", "int8+int32", "pairs", [xa, xb], [], [("int32", [n])])


def reduction_cases():
    for d in FLOATS:
        for sizes, dims, klass in [([3, 5], [1], "rows"), ([3, 5], [0], "columns"), ([4, 3, 5], [0, 2], "two dims"),
                                   ([2, 6], [], "all")]:
            v = ordinary(d, numel(sizes))
            out = [s for i, s in enumerate(sizes) if i not in dims] if dims else []
            yield Case("aten::sum.IntList_out", d, klass, [(d, sizes, v)], [dims, False, None], [(d, out)])
            yield Case("aten::mean.out", d, klass, [(d, sizes, v)], [dims, False, None], [(d, out)])
            yield Case("aten::var.correction_out", d, klass, [(d, sizes, v)], [dims, 1, False], [(d, out)])
            if dims:
                yield Case("aten::amax.out", d, klass, [(d, sizes, v)], [dims, False], [(d, out)])
        e = edges(d)
        yield Case("aten::sum.IntList_out", d, "edges", [(d, [len(e)], e)], [[0], False, None], [(d, [])])
        for dim in [0, 1]:
            v = ordinary(d, 15)
            yield Case("aten::_softmax.out", d, f"dim {dim}", [(d, [3, 5], v)], [dim, False], [(d, [3, 5])])
            yield Case("aten::_log_softmax.out", d, f"dim {dim}", [(d, [3, 5], v)], [dim, False], [(d, [3, 5])])
            yield Case("aten::cumsum.out", d, f"dim {dim}", [(d, [3, 5], v)], [dim, None], [(d, [3, 5])])
    for d in ["int32", "int64", "int8"]:
        v = ordinary(d, 15)
        yield Case("aten::sum.IntList_out", d, "rows", [(d, [3, 5], v)], [[1], False, None], [(d, [3])])


def norm_cases():
    for d in ["float32", "float64"]:
        x = ordinary(d, 2 * 3 * 4)
        w, b = ordinary(d, 3, 1), ordinary(d, 3, 2)
        mean, var = ordinary(d, 3, 3), [abs(v) + 0.1 for v in ordinary(d, 3, 4)]
        yield Case("aten::_native_batch_norm_legit_no_training.out", d, "affine",
                   [(d, [2, 3, 4], x), (d, [3], w), (d, [3], b), (d, [3], mean), (d, [3], var)], [0.1, 1e-5],
                   [(d, [2, 3, 4]), (d, [0]), (d, [0])])
        yield Case("aten::native_layer_norm.out", d, "affine",
                   [(d, [2, 3, 4], x), (d, [4], ordinary(d, 4, 1)), (d, [4], ordinary(d, 4, 2))], [[4], 1e-5],
                   [(d, [2, 3, 4]), (d, [2, 3, 1]), (d, [2, 3, 1])])
        yield Case("aten::native_group_norm.out", d, "affine",
                   [(d, [2, 4, 3], x), (d, [4], ordinary(d, 4, 1)), (d, [4], ordinary(d, 4, 2))], [2, 4, 3, 2, 1e-5],
                   [(d, [2, 4, 3]), (d, [2, 2]), (d, [2, 2])])


def linear_cases():
    for d in ["float32", "float64", "int32", "int8"]:
        a, b = ordinary(d, 3 * 7), ordinary(d, 7 * 4, 1)
        yield Case("aten::mm.out", d, "3x7 by 7x4", [(d, [3, 7], a), (d, [7, 4], b)], [], [(d, [3, 4])])
        yield Case("aten::bmm.out", d, "2x3x7 by 2x7x2", [(d, [2, 3, 7], ordinary(d, 42)), (d, [2, 7, 2], b)], [],
                   [(d, [2, 3, 2])])
        if d in FLOATS:
            yield Case("aten::addmm.out", d, "beta 1 alpha 1", [(d, [4], ordinary(d, 4, 2)), (d, [3, 7], a), (d, [7, 4], b)],
                       [1, 1], [(d, [3, 4])])
            yield Case("aten::addmm.out", d, "beta 0.5 alpha 2", [(d, [4], ordinary(d, 4, 2)), (d, [3, 7], a), (d, [7, 4], b)],
                       [0.5, 2.0], [(d, [3, 4])])
            yield Case("aten::linear.out", d, "with bias", [(d, [3, 7], a), (d, [4, 7], b), (d, [4], ordinary(d, 4, 2))], [],
                       [(d, [3, 4])])
        x, w = ordinary(d, 1 * 2 * 5 * 5), ordinary(d, 3 * 2 * 3 * 3, 1)
        bias = [(d, [3], ordinary(d, 3, 2))]
        for klass, args, out in [("2-D", [[1, 1], [1, 1], [1, 1], False, [0, 0], 1], [1, 3, 5, 5]),
                                 ("2-D stride 2", [[2, 2], [0, 0], [1, 1], False, [0, 0], 1], [1, 3, 2, 2])]:
            yield Case("aten::convolution.out", d, klass, [(d, [1, 2, 5, 5], x), (d, [3, 2, 3, 3], w)] + bias, args, [(d, out)])


def upsample_cases():
    for d in ["float32", "float64", "int32", "uint8"]:
        v = ordinary(d, 12)
        yield Case("aten::upsample_nearest2d.vec_out", d, "to 3x5", [(d, [1, 2, 2, 3], v)], [[3, 5], None], [(d, [1, 2, 3, 5])])
        yield Case("aten::upsample_nearest2d.vec_out", d, "by 1.7", [(d, [1, 2, 2, 3], v)], [None, [1.7, 1.7]],
                   [(d, [1, 2, 3, 5])])


def conversion_cases():
    """_to_copy between every pair of dtypes on the edge values (NaN, ±inf, out of range)."""
    for src in REALB:
        v = edges(src)
        for dst in REALB:
            if dst != src:
                yield Case("aten::_to_copy.out", f"{src}->{dst}", "edges", [(src, [len(v)], v)], [False, None],
                           [(dst, [len(v)])])


def other_cases():
    for d in ["float32", "float64", "float16", "int32", "int64", "uint8", "bool"]:
        v = edges(d)
        n = len(v)
        if d != "bool":
            lo, hi = (-1.0, 2.5) if d in FLOATS else (-3, 7)
            yield Case("aten::clamp.out", d, "edges", [(d, [n], v)], [lo, hi], [(d, [n])])
            yield Case("aten::amin.out", d, "rows", [(d, [3, 5], ordinary(d, 15))], [[1], False], [(d, [3])])
            yield Case("aten::argmax.out", d, "edges", [(d, [n], v)], [0, False], [("int64", [])])
            yield Case("aten::prod.out", d, "ordinary", [(d, [7], ordinary(d, 7))], [None], [(d, [])])
        yield Case("aten::where.self_out", d, "edges", [("bool", [n], [k % 3 == 0 for k in range(n)]), (d, [n], v),
                                                         (d, [n], list(reversed(v)))], [], [(d, [n])])
        yield Case("aten::permute_copy.out", d, "3-D", [(d, [2, 3, 4], ordinary(d, 24))], [[2, 0, 1]], [(d, [4, 2, 3])])
        yield Case("aten::constant_pad_nd.out", d, "pad 1, 2", [(d, [2, 3], ordinary(d, 6))], [[1, 2], 0],
                   [(d, [2, 6])])
        yield Case("aten::index_select.out", d, "int64 index", [(d, [4, 3], ordinary(d, 12)), ("int64", [3], [3, 0, 3])],
                   [], [(d, [3, 3])], node=["x0", 0, "x1"])
    for d in ["float32", "float64", "float16"]:
        v = edges(d)
        for e in ([2.0, 0.5, -1.0, 3.0] if d in FLOATS else []):
            yield Case("aten::pow.Tensor_Scalar_out", d, f"exponent {e}", [(d, [len(v)], v)], [e], [(d, [len(v)])])
        x = ordinary(d, 2 * 4 * 4)
        yield Case("aten::avg_pool2d.out", d, "2x2 stride 2", [(d, [1, 2, 4, 4], x)], [[2, 2], [2, 2], [0, 0], False, True, None],
                   [(d, [1, 2, 2, 2])])
        yield Case("aten::max_pool2d_with_indices.out", d, "3x3 stride 1 pad 1", [(d, [1, 2, 4, 4], x)],
                   [[3, 3], [1, 1], [1, 1], [1, 1], False], [(d, [1, 2, 4, 4]), ("int64", [1, 2, 4, 4])])
        yield Case("aten::upsample_bilinear2d.vec_out", d, "to 3x5", [(d, [1, 2, 2, 3], ordinary(d, 12))], [[3, 5], False, None],
                   [(d, [1, 2, 3, 5])])


COPY_DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8", "bool"]


def shape_cases():
    """Copies and views: every element moved, none computed, so each dtype the kernels take."""
    for d in COPY_DTYPES:
        x = ordinary(d, 24)
        x3 = (d, [2, 3, 4], x)
        yield Case("aten::cat.out", d, "dim 1", [(d, [2, 3], ordinary(d, 6)), (d, [2, 2], ordinary(d, 4, 1))], [],
                   [(d, [2, 5])], node=[["x0", "x1"], 1])
        yield Case("aten::stack.out", d, "dim 1", [(d, [2, 3], ordinary(d, 6)), (d, [2, 3], ordinary(d, 6, 1))], [],
                   [(d, [2, 2, 3])], node=[["x0", "x1"], 1])
        yield Case("aten::clone.out", d, "3-D", [x3], [None], [(d, [2, 3, 4])])
        yield Case("aten::view_copy.out", d, "to 6x4", [x3], [[6, 4]], [(d, [6, 4])])
        yield Case("aten::transpose_copy.int_out", d, "0 and 2", [x3], [0, 2], [(d, [4, 3, 2])])
        yield Case("aten::t_copy.out", d, "2-D", [(d, [2, 3], ordinary(d, 6))], [], [(d, [3, 2])])
        yield Case("aten::squeeze_copy.dim_out", d, "dim 1", [(d, [2, 1, 3], ordinary(d, 6))], [1], [(d, [2, 3])])
        yield Case("aten::squeeze_copy.dims_out", d, "dims 0, 2", [(d, [1, 3, 1], ordinary(d, 3))], [[0, 2]], [(d, [3])])
        yield Case("aten::unsqueeze_copy.out", d, "dim 1", [(d, [2, 3], ordinary(d, 6))], [1], [(d, [2, 1, 3])])
        yield Case("aten::expand_copy.out", d, "3x1 to 2x3x4", [(d, [3, 1], ordinary(d, 3))], [[2, 3, 4], False],
                   [(d, [2, 3, 4])])
        for op in ["alias_copy.out", "detach_copy.out", "lift_fresh_copy.out"]:
            yield Case(f"aten::{op}", d, "3-D", [x3], [], [(d, [2, 3, 4])])
        yield Case("aten::select_copy.int_out", d, "dim 1 index -1", [x3], [1, -1], [(d, [2, 4])])
        yield Case("aten::slice_copy.Tensor_out", d, "dim 2 1:4:2", [x3], [2, 1, 4, 2], [(d, [2, 3, 2])])
        yield Case("aten::narrow_copy.out", d, "dim 1 from 1, 2", [x3], [1, 1, 2], [(d, [2, 2, 4])])
        yield Case("aten::flip.out", d, "dims 0, 2", [x3], [[0, 2]], [(d, [2, 3, 4])])
        yield Case("aten::repeat.out", d, "2, 1, 2", [(d, [2, 3], ordinary(d, 6))], [[2, 1, 2]], [(d, [2, 2, 6])])
        yield Case("aten::tril.out", d, "diagonal 1", [(d, [3, 4], ordinary(d, 12))], [1], [(d, [3, 4])])
        yield Case("aten::diagonal_copy.out", d, "offset 1", [(d, [3, 4], ordinary(d, 12))], [1, 0, 1], [(d, [3])])
        yield Case("aten::unfold_copy.out", d, "dim 2 size 2 step 1", [x3], [2, 2, 1], [(d, [2, 3, 3, 2])])
        yield Case("aten::as_strided_copy.out", d, "3x2 strides 4, 1 offset 1", [x3], [[3, 2], [4, 1], 1],
                   [(d, [3, 2])])
        yield Case("aten::select_scatter.out", d, "dim 1 index 2", [x3, (d, [2, 4], ordinary(d, 8, 1))], [1, 2],
                   [(d, [2, 3, 4])])
        yield Case("aten::slice_scatter.out", d, "dim 2 0:4:2", [x3, (d, [2, 3, 2], ordinary(d, 12, 1))], [2, 0, 4, 2],
                   [(d, [2, 3, 4])])
        yield Case("aten::copy.out", d, "broadcast src", [x3, (d, [4], ordinary(d, 4, 1))], [False], [(d, [2, 3, 4])])
        yield Case("dim_order_ops::_clone_dim_order.out", d, "contiguous", [x3], [False, [0, 1, 2]], [(d, [2, 3, 4])])
        x53 = (d, [5, 3], ordinary(d, 15))
        yield Case("aten::split_copy.Tensor_out", d, "size 2 dim 0", [x53], [2, 0],
                   [(d, [2, 3]), (d, [2, 3]), (d, [1, 3])]).with_out_list()
        yield Case("aten::split_with_sizes_copy.out", d, "sizes 1, 2 dim 1", [x53], [[1, 2], 1],
                   [(d, [5, 1]), (d, [5, 2])]).with_out_list()
        yield Case("aten::unbind_copy.int_out", d, "dim 1", [x53], [1], [(d, [5]), (d, [5]), (d, [5])]).with_out_list()
        yield Case("aten::full_like.out", d, "value 3", [x3], [3, None], [(d, [2, 3, 4])])
        yield Case("aten::fill.Scalar_out", d, "value 1", [x3], [1], [(d, [2, 3, 4])])
        yield Case("aten::fill.Tensor_out", d, "0-d value", [x3, (d, [], ordinary(d, 1, 2))], [], [(d, [2, 3, 4])])
    for src in COPY_DTYPES:
        v = edges(src)
        for dst in ["float32", "int32", "float16", "bool"]:
            if dst != src:
                yield Case("dim_order_ops::_to_dim_order_copy.out", f"{src}->{dst}", "edges", [(src, [len(v)], v)],
                           [False, [0]], [(dst, [len(v)])])


def indexing_cases():
    """Gathers and scatters by an int64 (or int32) index; masks."""
    for d in ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"]:
        x = (d, [3, 4], ordinary(d, 12))
        for idx in ["int64", "int32"]:
            yield Case("aten::embedding.out", d, f"{idx} indices", [x, (idx, [2, 2], [2, 0, 1, 2])], [-1, False, False],
                       [(d, [2, 2, 4])])
        index = ("int64", [3, 2], [3, 0, 1, 1, 0, 2])
        yield Case("aten::gather.out", d, "dim 1", [x, index], [], [(d, [3, 2])], node=["x0", 1, "x1", False])
        src = (d, [3, 2], ordinary(d, 6, 1))
        yield Case("aten::scatter.src_out", d, "dim 1", [x, index, src], [], [(d, [3, 4])], node=["x0", 1, "x1", "x2"])
        yield Case("aten::scatter.value_out", d, "dim 1", [x, index], [], [(d, [3, 4])], node=["x0", 1, "x1", 1])
        if d != "bool":
            yield Case("aten::scatter_add.out", d, "dim 1", [x, index, src], [], [(d, [3, 4])],
                       node=["x0", 1, "x1", "x2"])
        mask = ("bool", [3, 4], [k % 3 == 1 for k in range(12)])
        yield Case("aten::masked_scatter.out", d, "4 of 12", [x, mask, (d, [12], ordinary(d, 12, 2))], [], [(d, [3, 4])])
        yield Case("aten::masked_fill.Scalar_out", d, "broadcast mask", [x, ("bool", [4], [1, 0, 0, 1])], [0],
                   [(d, [3, 4])])
        rows, cols = ("int64", [2], [2, 0]), ("int64", [3], [3, 0, 1])
        yield Case("aten::index.Tensor_out", d, "rows", [x, rows], [], [(d, [2, 4])],
                   node=["x0", {"optional_tensors": ["x1"]}])
        yield Case("aten::index.Tensor_out", d, "None, columns", [x, cols], [], [(d, [3, 3])],
                   node=["x0", {"optional_tensors": [None, "x1"]}])
        yield Case("aten::index.Tensor_out", d, "rows and columns", [x, ("int64", [3], [2, 0, 2]), cols], [],
                   [(d, [3])], node=["x0", {"optional_tensors": ["x1", "x2"]}])
        values = (d, [2, 4], ordinary(d, 8, 3))
        yield Case("aten::index_put.out", d, "rows", [x, rows, values], [], [(d, [3, 4])],
                   node=["x0", {"optional_tensors": ["x1"]}, "x2", False])
        if d != "bool":
            yield Case("aten::index_put.out", d, "repeated rows, accumulate", [x, ("int64", [2], [1, 1]), values], [],
                       [(d, [3, 4])], node=["x0", {"optional_tensors": ["x1"]}, "x2", True])


def creation_cases():
    """Tensors from Scalars: no input tensor."""
    for d in ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"]:
        value = 1 if d == "bool" else (2.5 if d in FLOATS else 7)
        yield Case("aten::full.out", d, f"value {value}", [], [], [(d, [2, 3])], node=[[2, 3], value])
        yield Case("aten::zeros.out", d, "2x3", [], [], [(d, [2, 3])], node=[[2, 3]])
        yield Case("aten::ones.out", d, "2x3", [], [], [(d, [2, 3])], node=[[2, 3]])
        yield Case("aten::scalar_tensor.out", d, f"value {value}", [], [], [(d, [])], node=[value])
        if d != "bool":
            yield Case("aten::arange.out", d, "end 5", [], [], [(d, [5])], node=[5])
            start, end, step = (0.5, 3.0, 0.75) if d in FLOATS else (1, 10, 3)
            n = len(range(1, 10, 3)) if d not in FLOATS else math.ceil((end - start) / step)
            yield Case("aten::arange.start_out", d, f"{start} to {end} by {step}", [], [], [(d, [n])],
                       node=[start, end, step])


def more_reduction_cases():
    for d in ["float32", "float64", "float16", "bfloat16", "int32", "int64", "uint8", "bool"]:
        v = ordinary(d, 15)
        x = (d, [3, 5], v)
        e = edges(d)
        yield Case("aten::any.all_out", d, "edges", [(d, [len(e)], e)], [], [("bool", [])])
        yield Case("aten::any.dims_out", d, "dim 1", [x], [[1], False], [("bool", [3])])
        yield Case("aten::any.out", d, "dim 0 keepdim", [x], [0, True], [("bool", [1, 5])])
        if d != "bool":
            yield Case("aten::argmin.out", d, "edges", [(d, [len(e)], e)], [0, False], [("int64", [])])
            yield Case("aten::max.dim_max", d, "dim 1", [x], [1, False], [(d, [3]), ("int64", [3])])
            yield Case("aten::min.dim_min", d, "dim 0 keepdim", [x], [0, True], [(d, [1, 5]), ("int64", [1, 5])])
            yield Case("aten::max.unary_out", d, "edges", [(d, [len(e)], e)], [], [(d, [])])
            yield Case("aten::min.unary_out", d, "edges", [(d, [len(e)], e)], [], [(d, [])])
            yield Case("aten::topk.values", d, "k 2 dim 1", [x], [2, 1, True, True], [(d, [3, 2]), ("int64", [3, 2])])
            yield Case("aten::topk.values", d, "k 3 smallest", [x], [3, 0, False, True], [(d, [3, 5]), ("int64", [3, 5])])
            out = "int64" if d not in FLOATS else d
            yield Case("aten::prod.int_out", d, "dim 1", [x], [1, False, None], [(out, [3])])
            yield Case("aten::prod.out", d, "seven values", [(d, [7], ordinary(d, 7))], [None], [(out, [])])
        if d in FLOATS:
            yield Case("aten::mean.dtype_out", d, "all", [x], [None], [(d, [])])
            yield Case("aten::var.out", d, "dim 1 unbiased", [x], [[1], True, False], [(d, [3])])
            yield Case("aten::var_mean.correction_out", d, "dim 0", [x], [[0], 1, False], [(d, [5]), (d, [5])],
                       node=["x0", [0], 1, False])
            yield Case("aten::_adaptive_avg_pool2d.out", d, "5x5 to 2x3", [(d, [1, 2, 5, 5], ordinary(d, 50))], [[2, 3]],
                       [(d, [1, 2, 2, 3])])
            yield Case("aten::avg_pool2d.out", d, "3x3 stride 2 pad 1 no pad count",
                       [(d, [1, 2, 5, 5], ordinary(d, 50))], [[3, 3], [2, 2], [1, 1], False, False, None],
                       [(d, [1, 2, 3, 3])])
            yield Case("aten::avg_pool2d.out", d, "2x2 ceil divisor 3", [(d, [1, 2, 5, 5], ordinary(d, 50))],
                       [[2, 2], [2, 2], [0, 0], True, True, 3], [(d, [1, 2, 3, 3])])


def scalar_overload_cases():
    for d in REAL:
        v = edges(d)
        n = len(v)
        for s in ([2, -3] if d in INTS else [2.5, -0.75]):
            for op in ["add.Scalar_out", "sub.Scalar_out", "rsub.Scalar_out"]:
                yield Case(f"aten::{op}", d, f"scalar {s}", [(d, [n], v)], [s, 1], [(d, [n])])
            yield Case("aten::mul.Scalar_out", d, f"scalar {s}", [(d, [n], v)], [s], [(d, [n])])
        if d in FLOATS:
            yield Case("aten::pow.Scalar_out", d, "base 2", [(d, [n], v)], [], [(d, [n])], node=[2.0, "x0"])
            yield Case("aten::silu.out", d, "edges", [(d, [n], v)], [], [(d, [n])])
        for s in ([0, 3] if d in INTS else [0.0, -2.5]):
            yield Case("aten::div.Scalar_out", d, f"scalar {s}", [(d, [n], v)], [s], [(float_out(d), [n])])
            for op in ["eq", "ne", "lt", "le", "gt", "ge"]:
                yield Case(f"aten::{op}.Scalar_out", d, f"scalar {s}", [(d, [n], v)], [s], [("bool", [n])])
        lo, hi = (d, [n], [ordinary(d, 1)[0]] * n), (d, [n], [abs(ordinary(d, 1, 3)[0]) + 1] * n)
        yield Case("aten::clamp.Tensor_out", d, "edges", [(d, [n], v), lo, hi], [], [(d, [n])])


def quantized_cases():
    f = "float32"
    x = [v / 16 for v in ordinary(f, 24)] + [1e9, -1e9, float("nan"), 0.0]
    n = len(x)
    for dt, code, lo, hi in [("uint8", 0, 0, 255), ("int8", 1, -128, 127), ("int16", 2, -32768, 32767),
                             ("int32", 3, -2**31, 2**31 - 1)]:
        yield Case("quantized_decomposed::quantize_per_tensor.out", f"float32->{dt}", "scale 0.02 zp 3",
                   [(f, [n], x)], [0.02, 3, lo, hi, code], [(dt, [n])])
        yield Case("quantized_decomposed::quantize_per_tensor.Tensor_out", f"float32->{dt}", "scale 0.02 zp 3",
                   [(f, [n], x), ("float64", [1], [0.02]), ("int64", [1], [3])], [lo, hi, code], [(dt, [n])])
        q = edges(dt)
        yield Case("quantized_decomposed::dequantize_per_tensor.out", f"{dt}->float32", "scale 0.02 zp 3",
                   [(dt, [len(q)], q)], [0.02, 3, lo, hi, code, None], [(f, [len(q)])])
        yield Case("quantized_decomposed::dequantize_per_tensor.Tensor_out", f"{dt}->float32", "scale 0.02 zp 3",
                   [(dt, [len(q)], q), ("float64", [1], [0.02]), ("int64", [1], [3])], [lo, hi, code, None],
                   [(f, [len(q)])])
    scales, zps = ("float64", [4], [0.02, 0.1, 0.5, 0.003]), ("int64", [4], [0, 3, -2, 1])
    qx = ordinary("int8", 24)
    yield Case("quantized_decomposed::quantize_per_channel.out", "float32,float64,int64->int8", "axis 1",
               [(f, [6, 4], x[:24]), scales, zps], [1, -128, 127, 1], [("int8", [6, 4])])
    yield Case("quantized_decomposed::dequantize_per_channel.out", "int8,float64,int64->float32", "axis 1",
               [("int8", [6, 4], qx), scales, zps], [1, -128, 127, 1, None], [(f, [6, 4])])
    w = ("uint8", [5, 4], ordinary("uint8", 20))
    ws, wz = ("float32", [5], [0.5, 0.25, 0.1, 2.0, 0.01]), ("float32", [5], [3, 0, 1, 2, 7])
    ids = ("int64", [3], [4, 0, 2])
    yield Case("quantized_decomposed::embedding_byte.out", "uint8,float32,int64->float32", "zero points",
               [w, ws, wz, ids], [], [(f, [3, 4])], node=["x0", "x1", "x2", 0, 255, "x3"])
    yield Case("quantized_decomposed::embedding_byte.dtype_out", "uint8,float32,int64->float32", "zero points",
               [w, ws, wz, ids], [], [(f, [3, 4])], node=["x0", "x1", "x2", 0, 255, "x3", None])


def all_cases():
    for family in (unary_cases, binary_cases, reduction_cases, norm_cases, linear_cases, upsample_cases,
                   conversion_cases, other_cases, shape_cases, indexing_cases, creation_cases, more_reduction_cases,
                   scalar_overload_cases, quantized_cases, channels_last_cases):
        yield from family()


# ---- running ------------------------------------------------------------------

def in_memory_order(values, sizes, order):
    """Values given in logical (row-major) order, laid out as a tensor of that dim order holds them."""
    if not order or not values:
        return values
    strides = [1] * len(sizes)
    for d in range(len(sizes) - 2, -1, -1):
        strides[d] = strides[d + 1] * sizes[d + 1]
    out = []

    def walk(level, offset):
        if level == len(order):
            out.append(values[offset])
            return
        dim = order[level]
        for k in range(sizes[dim]):
            walk(level + 1, offset + k * strides[dim])
    walk(0, 0)
    return out


def channels_last_cases():
    """Non-contiguous tensors where ptescope's kernels take them: a 4-D tensor in dim order 0, 2, 3, 1
    (channels last) through the dim-order copies, convolution and quantize/dequantize per tensor.
    ptescope's other kernels leave an instruction with such a tensor not executed, so its outputs
    read "not proven"."""
    cl = [0, 2, 3, 1]
    for d in ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"]:
        x = (d, [1, 3, 2, 4], ordinary(d, 24))
        yield Case("dim_order_ops::_to_dim_order_copy.out", d, "to channels last", [x], [False, cl],
                   [(d, [1, 3, 2, 4])]).with_dim_orders({"y0": cl})
        yield Case("dim_order_ops::_to_dim_order_copy.out", d, "to contiguous", [x], [False, [0, 1, 2, 3]],
                   [(d, [1, 3, 2, 4])]).with_dim_orders({"x0": cl})
        yield Case("dim_order_ops::_clone_dim_order.out", d, "channels last", [x], [False, cl],
                   [(d, [1, 3, 2, 4])]).with_dim_orders({"x0": cl, "y0": cl})
    for d in ["float32", "float64", "int32", "int8"]:
        x, w = ordinary(d, 1 * 2 * 5 * 5), ordinary(d, 3 * 2 * 3 * 3, 1)
        for klass, orders in [("channels last", {"x0": cl, "x1": cl, "y0": cl}),
                              ("channels-last input only", {"x0": cl})]:
            yield Case("aten::convolution.out", d, klass,
                       [(d, [1, 2, 5, 5], x), (d, [3, 2, 3, 3], w), (d, [3], ordinary(d, 3, 2))],
                       [[1, 1], [1, 1], [1, 1], False, [0, 0], 1], [(d, [1, 3, 5, 5])]).with_dim_orders(orders)
    f = "float32"
    xs = [v / 16 for v in ordinary(f, 24)]
    yield Case("quantized_decomposed::quantize_per_tensor.out", "float32->int8", "channels last",
               [(f, [1, 3, 2, 4], xs)], [0.02, 3, -128, 127, 1], [("int8", [1, 3, 2, 4])]).with_dim_orders(
        {"x0": cl, "y0": cl})
    yield Case("quantized_decomposed::dequantize_per_tensor.out", "int8->float32", "channels last",
               [("int8", [1, 3, 2, 4], ordinary("int8", 24))], [0.02, 3, -128, 127, 1, None],
               [(f, [1, 3, 2, 4])]).with_dim_orders({"x0": cl, "y0": cl})


def npy_data(path):
    with open(path, "rb") as f:
        data = f.read()
    header_len = struct.unpack("<H", data[8:10])[0] if data[6] == 1 else struct.unpack("<I", data[8:12])[0]
    start = (10 if data[6] == 1 else 12) + header_len
    return data[start:]


def run_case(case, cli, oracle, work):
    os.makedirs(work, exist_ok=True)
    spec_path, pte = os.path.join(work, "spec.json"), os.path.join(work, "p.pte")
    with open(spec_path, "w") as f:
        json.dump(case.spec(), f)
    made = subprocess.run([cli, "synth", spec_path, "-o", pte, "--no-passes"], capture_output=True, text=True)
    if made.returncode != 0:
        return "synth-failed", made.stderr.strip().splitlines()[-1:] or [""]
    inputs = os.path.join(work, "in")
    os.makedirs(inputs, exist_ok=True)
    files = []
    for i, (dtype, sizes, values) in enumerate(case.inputs):
        path = os.path.join(inputs, f"{i}.raw")
        with open(path, "wb") as f:
            f.write(pack(dtype, in_memory_order(values, sizes, case.dim_orders.get(f"x{i}"))))
        files.append(path)
    ours_dir = os.path.join(work, "ours")
    if os.path.isdir(ours_dir):
        for name in os.listdir(ours_dir):
            os.remove(os.path.join(ours_dir, name))
    ours = subprocess.run([cli, "run", pte, "--inputs", inputs, "--outputs", ours_dir, "--runtime", "host"],
                          capture_output=True, text=True)
    theirs_base = os.path.join(work, "theirs")
    for i in range(len(case.outs)):
        if os.path.exists(f"{theirs_base}-{i}.bin"):
            os.remove(f"{theirs_base}-{i}.bin")
    theirs = subprocess.run([oracle, "--model_path", pte, "--inputs", ",".join(files), "--output_file", theirs_base,
                             "--print_output", "none"], capture_output=True, text=True)
    ours_ok = ours.returncode == 0 and all(os.path.exists(os.path.join(ours_dir, f"{i}.npy")) for i in range(len(case.outs)))
    theirs_ok = theirs.returncode == 0 and all(os.path.exists(f"{theirs_base}-{i}.bin") for i in range(len(case.outs)))
    # An instruction ptescope leaves not executed (a dtype or dim order its kernel does not take)
    # leaves the outputs as they were: that is no result.
    skipped = re.search(r"^\d+ instructions? run, ([1-9]\d*) not executed", ours.stdout, re.M)
    if skipped:
        ours_ok = False
    if not ours_ok and not theirs_ok:
        return "both-refused", []
    if not theirs_ok:
        return "oracle-refused", [line for line in theirs.stderr.splitlines() if " E " in line or "rror" in line][-1:]
    if not ours_ok:
        if skipped:
            return "ptescope-refused", [line.strip() for line in ours.stdout.splitlines() if "its outputs keep" in line][:1]
        return "ptescope-refused", (ours.stderr.strip().splitlines() or ours.stdout.strip().splitlines())[-1:]
    notes = []
    for i, (dtype, _) in enumerate(case.outs):
        mine = npy_data(os.path.join(ours_dir, f"{i}.npy"))
        with open(f"{theirs_base}-{i}.bin", "rb") as f:
            real = f.read()
        if mine != real:
            size = SIZE[dtype]
            bad = [k for k in range(0, min(len(mine), len(real)), size) if mine[k:k + size] != real[k:k + size]]
            notes.append(f"out {i}: {len(bad)} of {len(real) // size} elements differ" +
                         (f" (sizes {len(mine)} vs {len(real)} bytes)" if len(mine) != len(real) else "") +
                         "; first " + ", ".join(f"#{k // size} ours {mine[k:k + size].hex()} runtime {real[k:k + size].hex()}"
                                                for k in bad[:3]))
    return ("differs", notes) if notes else ("same", [])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cli", required=True, help="ptescope-cli")
    p.add_argument("--oracle", default=os.environ.get("ET_ORACLE", ""), help="the runtime's executor_runner (ET_ORACLE)")
    p.add_argument("--record", help="write every case's outcome to this TSV")
    p.add_argument("--check", help="fail on any case whose outcome differs from this TSV")
    p.add_argument("-k", dest="only", help="only cases whose kernel/dtype/class contains this")
    p.add_argument("--work", help="working folder (default: a temporary one)")
    a = p.parse_args()
    if not a.oracle:
        print("differential: skipped, no oracle (set ET_ORACLE to upstream's executor_runner)")
        return 77
    if not os.access(a.oracle, os.X_OK):
        print(f"differential: ET_ORACLE '{a.oracle}' is not an executable file", file=sys.stderr)
        return 2
    expected = {}
    if a.check:
        with open(a.check) as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                kernel, dtype, klass, outcome = line.rstrip("\n").split("\t")[:4]
                expected[f"{kernel}\t{dtype}\t{klass}"] = outcome
    work = a.work or tempfile.mkdtemp(prefix="ptescope-oracle-")
    rows, changed, counts = [], [], {}
    for case in all_cases():
        if a.only and a.only not in case.key():
            continue
        outcome, notes = run_case(case, a.cli, a.oracle, os.path.join(work, "case"))
        counts[outcome] = counts.get(outcome, 0) + 1
        rows.append(f"{case.key()}\t{outcome}\t{' | '.join(notes)}")
        if outcome not in ("same", "both-refused"):
            print(f"{case.key()}\t{outcome}\t{' | '.join(notes)}")
        if a.check and expected.get(case.key()) != outcome:
            changed.append(f"{case.key()}: {outcome}, the record says {expected.get(case.key(), 'nothing')}")
    if a.record:
        with open(a.record, "w") as f:
            f.write("# kernel\tdtypes\tinput class\toutcome\tnotes (tests/oracle/README.md says how this was made)\n")
            f.write("\n".join(rows) + "\n")
    print(", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
    for line in changed:
        print("changed:", line)
    agree = counts.get("same", 0) + counts.get("both-refused", 0)
    print(f"{agree} passed, {len(changed) if a.check else len(rows) - agree} failed")
    return 1 if (changed if a.check else len(rows) != agree) else 0


if __name__ == "__main__":
    sys.exit(main())
