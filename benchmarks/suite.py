"""The benchmark programs and the static facts the report needs about each variant.

A program is one `.mlir` file in benchmarks/programs whose kernel is the function named like
the file. Header comments carry what the harness cannot read from the types:

  // bench.let: N = 8388608, M = 2048      names for the sizes below
  // bench.args: N, [N], [N], 1.5          one entry per kernel argument: an index/float value,
                                           or a memref shape ([M, N]); `_` = the static shape
  // bench.tags: memory, symbolic          memory: a streaming chain (gets a bandwidth figure);
                                           symbolic: bounds are function arguments;
                                           bandwidth: a streaming kernel that measures the machine;
                                           peak: an FMA kernel that measures the peak FLOP/s
  // bench.rtol: 1e-6                      allowed relative difference (default 0: identical bits)
  // bench.flops: 2 * N * N * N            FLOPs of one call, declared (default: counted from the
                                           program, loopopt.analysis.roofline; declare it where the
                                           count is not exact)

Without bench.args every argument must be a statically shaped memref.
"""
from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field

from loopopt import mlir
from loopopt.mlir import ir

PROGRAM_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")
_HEADER = re.compile(r"^//\s*bench\.(\w+):\s*(.*)$")


@dataclass(frozen=True)
class Program:
    name: str
    path: str
    text: str
    kernel: str
    sizes: tuple  # one entry per kernel argument, as native.run_native takes them
    tags: frozenset = field(default_factory=frozenset)
    rtol: float = 0.0
    summary: str = ""
    flops: int | None = None  # declared in the header (bench.flops); None: counted

    def has(self, tag: str) -> bool:
        return tag in self.tags


class SuiteError(Exception):
    """A program file is malformed; the message names the file."""


def _eval_size(node: ast.AST, names: dict[str, int], where: str):
    """Integers, floats, names from bench.let, + - * // and [lists]; `_` is None (static)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval_size(node.operand, names, where)
    if isinstance(node, ast.Name):
        if node.id == "_":
            return None
        if node.id not in names:
            raise SuiteError(f"{where}: unknown size name {node.id!r}")
        return names[node.id]
    if isinstance(node, ast.List):
        return [_eval_size(e, names, where) for e in node.elts]
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
        a, b = _eval_size(node.left, names, where), _eval_size(node.right, names, where)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        return a * b if isinstance(node.op, ast.Mult) else a // b
    raise SuiteError(f"{where}: cannot read size expression {ast.unparse(node)!r}")


def _parse_lets(text: str, where: str) -> dict[str, int]:
    names: dict[str, int] = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip().isidentifier():
            raise SuiteError(f"{where}: bench.let wants NAME = VALUE, got {item!r}")
        names[key.strip()] = _eval_size(ast.parse(value.strip(), mode="eval").body, names, where)
    return names


def parse_program(path: str, text: str | None = None) -> Program:
    """A Program from a file's text and its bench.* header lines."""
    text = open(path).read() if text is None else text
    name = os.path.splitext(os.path.basename(path))[0]
    fields: dict[str, str] = {}
    summary = ""
    for line in text.splitlines():
        m = _HEADER.match(line.strip())
        if m:
            fields[m.group(1)] = m.group(2).strip()
        elif line.startswith("//") and not summary:
            summary = line[2:].strip()
    names = _parse_lets(fields.get("let", ""), path)
    kernel = fields.get("kernel", name)
    if "args" in fields:
        tree = ast.parse("[" + fields["args"] + "]", mode="eval").body
        sizes = tuple(_eval_size(tree, names, path))
    else:
        sizes = tuple(None for _ in _kernel_arg_types(text, kernel))
    tags = frozenset(t.strip() for t in fields.get("tags", "").split(",") if t.strip())
    flops = _eval_size(ast.parse(fields["flops"], mode="eval").body, names, path) if "flops" in fields else None
    return Program(name, path, text, kernel, sizes, tags, float(fields.get("rtol", 0.0)), summary, flops)


def load_programs(directory: str = PROGRAM_DIR) -> list[Program]:
    return [parse_program(os.path.join(directory, f)) for f in sorted(os.listdir(directory)) if f.endswith(".mlir")]


# ----------------------------------------------------------------------------- static facts

def _kernel_fn(module: ir.Module, kernel: str) -> ir.Operation:
    for fn in mlir.functions(module):
        if mlir.func_name(fn) == kernel:
            return fn
    raise SuiteError(f"no function @{kernel}")


def _kernel_arg_types(text: str, kernel: str) -> list:
    module = mlir.parse_module(text)
    with module.context:
        return list(_kernel_fn(module, kernel).attributes["function_type"].value.inputs)


_COMMENT = re.compile(r"//[^\n]*")


def count_loops(text: str) -> int:
    """Number of affine.for ops (counted in the text with comments removed)."""
    return len(re.findall(r"\baffine\.for\b", _COMMENT.sub("", text)))


def _arg_index(value: ir.Value, entry: ir.Block) -> int | None:
    if mlir.is_block_argument(value):
        arg = ir.BlockArgument(value) if not isinstance(value, ir.BlockArgument) else value
        if arg.owner == entry:
            return arg.arg_number
    return None


def _index_value(value: ir.Value, entry: ir.Block, sizes: tuple) -> int | None:
    """The run-time value of an index SSA value, when it is a kernel argument, a constant, or
    memref.dim of a kernel argument by a constant; None otherwise."""
    k = _arg_index(value, entry)
    if k is not None:
        return sizes[k] if isinstance(sizes[k], int) else None
    owner, _ = mlir.value_owner(value)
    if owner is None:
        return None
    if owner.name == "arith.constant":
        return ir.IntegerAttr(owner.attributes["value"]).value
    if owner.name == "memref.dim":
        src, idx = owner.operands[0], _index_value(owner.operands[1], entry, sizes)
        j = _arg_index(src, entry)
        if j is not None and idx is not None and isinstance(sizes[j], list):
            return sizes[j][idx]
    return None


@dataclass(frozen=True)
class Placed:
    """Bytes of every memref.alloc/alloca in the kernel (each op counted once, even inside a loop)."""

    bytes: int
    buffers: int
    unknown: int  # allocations whose size could not be evaluated

    def render(self) -> str:
        return human_bytes(self.bytes) + (f" + {self.unknown} unknown" if self.unknown else "")


def human_bytes(n: int) -> str:
    if n == 0:
        return "0"
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def placed_bytes(text: str, kernel: str, sizes: tuple) -> Placed:
    module = mlir.parse_module(text)
    with module.context:
        fn = _kernel_fn(module, kernel)
        entry = mlir.func_body(fn)
        sizes = _concrete(fn, sizes)
        total = buffers = unknown = 0
        for op in mlir.walk(fn):
            if op.name not in ("memref.alloc", "memref.alloca"):
                continue
            mt = op.results[0].type
            dyn = iter(op.operands)
            numel = 1
            for d in mt.shape:
                v = d if d != mlir.DYNAMIC else _index_value(next(dyn), entry, sizes)
                numel = None if v is None or numel is None else numel * v
            if numel is None:
                unknown += 1
            else:
                total += numel * mlir.element_size_bytes(mt.element_type)
                buffers += 1
        return Placed(total, buffers, unknown)


def _concrete(fn: ir.Operation, sizes: tuple) -> tuple:
    """sizes with `_` (None) replaced by the static shape of the argument's type."""
    types = fn.attributes["function_type"].value.inputs
    return tuple(list(t.shape) if s is None and isinstance(t, ir.MemRefType) else s for t, s in zip(types, sizes))


def traffic_bytes(text: str, kernel: str, sizes: tuple) -> tuple[int, int]:
    """(bytes of memref arguments the kernel reads, bytes of those it writes), each whole
    argument counted once: the least traffic any schedule of the program can have."""
    work = program_work(text, kernel, sizes)
    return work.read_bytes, work.written_bytes


def program_work(text: str, kernel: str, sizes: tuple, declared_flops: int | None = None):
    """The roofline facts of a program at its benchmark sizes (loopopt.analysis.roofline.Work);
    a declared FLOP count (bench.flops) replaces the counted one and is exact by declaration."""
    from dataclasses import replace

    from loopopt.analysis.roofline import program_work as count

    work = count(text, kernel, sizes)
    if declared_flops is not None:
        work = replace(work, flops=int(declared_flops), exact=True, why="declared")
    return work
