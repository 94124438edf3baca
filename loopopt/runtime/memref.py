"""numpy arrays as MLIR memref descriptors (the C interface), and the C header that declares them.

A ranked memref of rank r crosses MLIR's C interface (`_mlir_ciface_NAME`, one pointer per memref
argument) as a pointer to

    struct { T *allocated; T *aligned; int64_t offset; int64_t sizes[r]; int64_t strides[r]; }

with offset and strides counted in elements; rank 0 has only the first three fields. A numpy
array is passed without a copy: both pointers are its data pointer, offset 0, its shape, and the
row-major strides of its shape (the callable accepts C-contiguous arrays only, whose strides are
exactly those; numpy may give a dimension of extent 1 any stride, which no index ever multiplies).
Scalars pass by value; one scalar result is returned by value.
"""
from __future__ import annotations

import ctypes
import struct

from .spec import KernelSpec, Param, message_function, wrapper_name

WORD = 8  # every descriptor field is 8 bytes on the 64-bit hosts the build supports


def descriptor_words(rank: int) -> int:
    """Number of 8-byte fields in a rank-r descriptor."""
    return 3 + 2 * rank


def row_major_strides(shape) -> tuple[int, ...]:
    """Strides in elements of a C-contiguous array of `shape`."""
    out, step = [], 1
    for d in reversed(shape):
        out.append(step)
        step *= max(int(d), 1)
    return tuple(reversed(out))


def descriptor_format(ranks) -> struct.Struct:
    """A struct packing the descriptors of memrefs of the given ranks back to back (native
    alignment: every field is 8 bytes, so there is no padding)."""
    return struct.Struct("=" + "".join("QQq" + "q" * (2 * r) for r in ranks))


def data_pointer(a) -> int:
    """The address of a numpy array's first element without making a ctypes view of the array
    (the cheapest way for a writable, non-empty array; any array through its interface)."""
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(a))
    except (TypeError, ValueError, BufferError):  # read-only, empty, or not a simple buffer
        return a.__array_interface__["data"][0]


ALIGNMENT = 64  # a cache line, and one AVX-512 vector: the harness's memref.alloc {alignment = 64}


def aligned_empty(shape, dtype, alignment: int = ALIGNMENT):
    """An uninitialised C-contiguous numpy array of `shape` and `dtype` whose data starts at a
    multiple of `alignment` bytes (numpy's own arrays are 16-byte aligned: a vector of 64 bytes
    at a 16-byte offset spans two cache lines, and every such load splits). The array is a view
    of a byte buffer it keeps alive; an array of no elements is numpy's own."""
    import numpy as np

    dtype = np.dtype(dtype)
    shape = tuple(int(d) for d in shape)
    nbytes = dtype.itemsize
    for d in shape:
        nbytes *= d
    if nbytes == 0:  # no element to place (numpy gives an empty view any data pointer)
        return np.empty(shape, dtype)
    raw = np.empty(nbytes + alignment, np.uint8)
    start = (-data_pointer(raw)) % alignment
    return np.ndarray(shape, dtype, raw, start)  # a view of raw from `start` (its base keeps raw alive)


def descriptor_bytes(arrays) -> bytes:
    """The descriptors of C-contiguous numpy arrays back to back (tests and the C example)."""
    fmt = descriptor_format([a.ndim for a in arrays])
    values = []
    for a in arrays:
        p = data_pointer(a)
        values += [p, p, 0, *a.shape, *row_major_strides(a.shape)]
    return fmt.pack(*values)


# ----------------------------------------------------------------------------- the C header

C_ELEMENT = {"f16": "_Float16", "f32": "float", "f64": "double", "i1": "bool", "i8": "int8_t", "i16": "int16_t",
             "i32": "int32_t", "i64": "int64_t", "index": "int64_t"}


def struct_name(p: Param) -> str:
    return f"loopopt_memref_{p.elem}_{p.rank}d"


def _struct_text(p: Param) -> str:
    """The typedef of the descriptor a memref argument like `p` is passed as."""
    t = C_ELEMENT[p.elem]
    fields = [f"{t} *allocated;", f"{t} *aligned;", "int64_t offset;"]
    if p.rank:
        fields += [f"int64_t sizes[{p.rank}];", f"int64_t strides[{p.rank}];"]
    return f"typedef struct {{ {' '.join(fields)} }} {struct_name(p)};"


def c_parameters(spec: KernelSpec) -> tuple[list[str], list[str]]:
    """(the C parameter declarations of `_mlir_ciface_NAME`, the parameter names)."""
    params = []
    for p in spec.params:
        if p.kind == "memref":
            params.append(f"{struct_name(p)} *{p.name}")
        else:
            params.append(f"{C_ELEMENT[p.elem]} {p.name}")
    return params, [p.name for p in spec.params]


def _comment(text: str) -> str:
    return text.replace("*/", "* /")


def _declaration(spec: KernelSpec, wrapped: bool) -> str:
    params, _ = c_parameters(spec)
    ret = C_ELEMENT[spec.result] if spec.result else "void"
    roles = "; ".join(f"{p.name} {p.type}" + (f" {p.role}" if p.kind == "memref" else "") for p in spec.params)
    lines = [f"/* @{spec.name}: {_comment(roles) or 'no arguments'} */",
             f"{ret} _mlir_ciface_{spec.name}({', '.join(params) or 'void'});"]
    if wrapped:
        wparams = params + ([f"{ret} *result"] if spec.result else [])
        lines += [f"int32_t {wrapper_name(spec.name)}({', '.join(wparams) or 'void'});",
                  f"const char *{message_function(spec.name)}(int32_t n);"]
    return "\n".join(lines)


def _checks_comment(messages: tuple | None) -> list[str]:
    """What a C caller sees of a failed run-time check, and the module's checks by number."""
    if messages is None:
        return ["/* Run-time checks (cf.assert): one that fails prints its message and calls abort(). */"]
    lines = ["/* Run-time checks (cf.assert). loopopt_call_NAME(...) runs the kernel and returns 0, or the number",
             "   n >= 1 of the run-time check that failed; loopopt_check_message_NAME(n) is its message. The kernel",
             "   stopped at that check: its outputs are partly written, and the heap temporaries that call had",
             "   allocated are not freed. A scalar result comes back through `result`. Calls from several",
             "   threads at once are independent. _mlir_ciface_NAME(...) is the kernel without the wrapper: a",
             "   failed check prints its message to stderr and calls abort()."]
    if messages:
        lines.append("   The checks:")
        lines += [f"     {n}: {_comment(m)}" for n, m in enumerate(messages, 1)]
    else:
        lines.append("   This module has none: the wrappers return 0.")
    lines[-1] += " */"
    return lines


def c_header(entries: list, guard: str, source: str = "", messages: tuple | None = None) -> str:
    """A C header declaring the C interface of each entry point and the descriptor structs they
    take. entries: (name, KernelSpec, "") or (name, None, why it is not declared). messages: the
    module's run-time checks by number when the library has the check wrappers
    (`loopopt_call_NAME`, runtime/checks.py); None for a build without them (LLVM IR)."""
    guard = "".join(c if c.isalnum() else "_" for c in guard.upper()) or "LOOPOPT_KERNEL"
    if guard[0].isdigit():
        guard = "_" + guard
    structs = []
    for _, spec, _ in entries:
        for p in (spec.params if spec else ()):
            if p.kind == "memref" and _struct_text(p) not in structs:
                structs.append(_struct_text(p))
    lines = [f"/* Generated by loopopt{' from ' + _comment(source) if source else ''}: the C interface of its entry points. */",
             "/* A memref is passed as a pointer to its descriptor: both pointers at the first element, offset and",
             "   strides in elements (row-major: strides[r-1] = 1). Outputs must not overlap inputs or each other. */",
             *_checks_comment(messages),
             f"#ifndef {guard}_H", f"#define {guard}_H", "", "#include <stdbool.h>", "#include <stdint.h>", "",
             "#ifdef __cplusplus", 'extern "C" {', "#endif", "", *structs, ""]
    for name, spec, why in entries:
        lines += [_declaration(spec, messages is not None) if spec else f"/* @{name} is not declared: {_comment(why)} */",
                  ""]
    lines += ["#ifdef __cplusplus", "}", "#endif", "", f"#endif /* {guard}_H */", ""]
    return "\n".join(lines)
