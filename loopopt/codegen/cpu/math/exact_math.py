"""Exact vector math (cpu): math.exp on f32 computed by libm's own algorithm, in ops LLVM widens.

`math.exp` on f32 lowers to a call of libm's `expf`, which LLVM's loop vectorizer cannot widen.
Where the host's `expf` is glibc's FMA build (codegen/cpu/math/libm.py checks it), the op is replaced by
that build's algorithm written as arith/math ops on f64 and i64, plus one load from a 32-entry
table of doubles (a private constant global): LLVM's loop vectorizer widens the loop, the load
becoming a gather, and each element gets exactly the bits libm's `expf` returns for it.

    xd  = extf x                      kds = fma(32/ln2, xd, 1.5 * 2^52)   ki = bits(kds)
    kd  = kds - 1.5 * 2^52            r   = fma(32/ln2, xd, -kd)
    s   = from_bits(T[ki & 31] + (ki << 47))
    y   = fma(fma(C0, r, C1), r * r, fma(C2, r, 1)) * s
    exp = truncf y; x > 88.72 -> inf; x < -103.97 -> +0; NaN -> x + x

The index `ki & 31` keeps the load inside the table for every input, NaN and infinities
included. No op carries fast-math flags, so LLVM evaluates each as written; `math.fma` is one
hardware FMA (`llvm.fma`). Where no FMA unit exists LLVM calls libm's `fma`, which rounds once
too: the bits stay the same, only slower.
"""
from __future__ import annotations

from . import libm
from ....mlir import ir, memref_d
from .math_approx import IROps

TABLE_NAME = "loopopt_expf_table"


def _table_attr() -> ir.Attribute:
    signed = [t - 2 ** 64 if t >= 2 ** 63 else t for t in libm.EXPF_TABLE]
    return ir.Attribute.parse(f"dense<[{', '.join(map(str, signed))}]> : tensor<32xi64>")


def _is_table(op: ir.Operation) -> bool:
    with op.context:
        return (op.name == "memref.global" and "constant" in op.attributes and "initial_value" in op.attributes
                and str(op.attributes["initial_value"]) == str(_table_attr()))


def table_name(module_op: ir.Operation) -> tuple[str, bool]:
    """The name of the module's expf table and whether it exists: a table this step made before
    (a global named from TABLE_NAME holding exactly EXPF_TABLE) when there is one, else a fresh
    name (mlir.fresh_symbol_name: TABLE_NAME, or TABLE_NAME_k when a symbol holds that name)."""
    from .... import mlir

    for op in mlir.block_ops(module_op.regions[0].blocks[0]):
        if ("sym_name" in op.attributes and ir.StringAttr(op.attributes["sym_name"]).value.startswith(TABLE_NAME)
                and _is_table(op)):
            return ir.StringAttr(op.attributes["sym_name"]).value, True
    return mlir.fresh_symbol_name(module_op, TABLE_NAME), False


def add_table(module_op: ir.Operation, name: str) -> None:
    """A private constant memref<32xi64> `name` holding EXPF_TABLE, first in the module's body."""
    body = module_op.regions[0].blocks[0]
    ops = list(body.operations)
    ip = ir.InsertionPoint(ops[0]) if ops else ir.InsertionPoint(body)
    with module_op.context, module_op.location:
        memref_t = ir.MemRefType.get([32], ir.IntegerType.get_signless(64))
        memref_d.GlobalOp(name, ir.TypeAttr.get(memref_t), sym_visibility="private", initial_value=_table_attr(),
                          constant=True, alignment=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 64), ip=ip)


def erase_unused_tables(module_op: ir.Operation) -> int:
    """Erase the module's private expf tables no `memref.get_global` names (left by a rolled-back
    step)."""
    from .... import mlir
    from ..fold_constant_copies import is_private

    body = module_op.regions[0].blocks[0]
    tables = [op for op in body.operations if "sym_name" in op.attributes and _is_table(op) and is_private(op)
              and ir.StringAttr(op.attributes["sym_name"]).value.startswith(TABLE_NAME)]
    if not tables:
        return 0
    used = {ir.FlatSymbolRefAttr(op.attributes["name"]).value for op in mlir.walk(module_op)
            if op.name == "memref.get_global"}
    dead = [op for op in tables if ir.StringAttr(op.attributes["sym_name"]).value not in used]
    for op in dead:
        op.erase()
    return len(dead)


class _Builder(IROps):
    """math_approx's IR builder (ops before `anchor`, constants before `const_anchor` once per
    value through `cache`) with the f64, i64 and index types the algorithm needs, and the table."""

    def __init__(self, anchor: ir.Operation, const_anchor: ir.Operation, cache: dict) -> None:
        super().__init__(anchor, ir.F32Type.get(), const_anchor, cache)
        self.f32, self.f64 = self.ftype, ir.F64Type.get()
        self.i64, self.index = ir.IntegerType.get_signless(64), ir.IndexType.get()

    def op(self, name: str, operands: list, rtype: ir.Type, attributes: dict | None = None, ip=None) -> ir.Value:
        return self._op(name, operands, rtype, attributes, ip)

    def const(self, value, rtype: ir.Type) -> ir.Value:
        return self._const(float(value) if isinstance(rtype, ir.FloatType) else int(value), rtype, rtype)

    def gt(self, a, b) -> ir.Value:  # ordered >
        return self._cmpf("ogt", a, b)

    def table(self, name: str) -> ir.Value:
        key = ("exact-table", name)
        if key not in self.cache:
            memref_t = ir.MemRefType.get([32], self.i64)
            self.cache[key] = memref_d.GetGlobalOp(memref_t, name, ip=self.const_ip).result
        return self.cache[key]


def emit_expf(b: _Builder, x: ir.Value, table: str) -> ir.Value:
    """The module docstring's algorithm on the f32 value x; returns the f32 result."""
    f64, i64 = b.f64, b.i64
    inv, shift = b.const(libm.EXPF_INV_LN2_N, f64), b.const(libm.EXPF_SHIFT, f64)
    c0, c1, c2 = (b.const(c, f64) for c in libm.EXPF_POLY)
    xd = b.op("arith.extf", [x], f64)
    kds = b.op("math.fma", [inv, xd, shift], f64)
    ki = b.op("arith.bitcast", [kds], i64)
    kd = b.op("arith.subf", [kds, shift], f64)
    r = b.op("math.fma", [inv, xd, b.op("arith.negf", [kd], f64)], f64)
    low = b.op("arith.andi", [ki, b.const(2 ** libm.EXPF_TABLE_BITS - 1, i64)], i64)
    idx = b.op("arith.index_cast", [low], b.index)
    t0 = b.op("memref.load", [b.table(table), idx], i64)
    t = b.op("arith.addi", [t0, b.op("arith.shli", [ki, b.const(52 - libm.EXPF_TABLE_BITS, i64)], i64)], i64)
    s = b.op("arith.bitcast", [t], f64)
    p = b.op("math.fma", [c0, r, c1], f64)
    q = b.op("math.fma", [c2, r, b.const(1.0, f64)], f64)
    y = b.op("math.fma", [p, b.op("arith.mulf", [r, r], f64), q], f64)
    res = b.op("arith.truncf", [b.op("arith.mulf", [y, s], f64)], b.f32)
    big = b.gt(x, b.const(libm.EXPF_OVERFLOW, b.f32))
    small = b.lt(x, b.const(libm.EXPF_UNDERFLOW, b.f32))
    nan = b.isnan(x)
    res = b.op("arith.select", [big, b.const(float("inf"), b.f32), res], b.f32)
    res = b.op("arith.select", [small, b.const(0.0, b.f32), res], b.f32)
    return b.op("arith.select", [nan, b.op("arith.addf", [x, x], b.f32), res], b.f32)


def make_exact(op: ir.Operation, const_anchor: ir.Operation, cache: dict, table: str) -> ir.Value:
    """Replace `op` (libm.exact_refusal(op) is None) by emit_expf reading the global `table`
    (which the caller adds with add_table), built right before it (constants and the table's
    get_global before `const_anchor`); returns the value that now stands for its result. `op` is
    erased."""
    with op.context, op.location:
        value = emit_expf(_Builder(op, const_anchor, cache), op.operands[0], table)
    op.results[0].replace_all_uses_with(value)
    op.erase()
    return value
