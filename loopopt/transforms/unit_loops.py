"""Loops that run exactly once, replaced by their body (a single-iteration loop promoted).

The rule: an `affine.for` whose lower and upper bounds are single constants `c` and `d` with
`0 < d - c <= step` runs its body once, with its induction variable equal to `c` and each value
it carries equal to its init. Its body (without the terminator) is moved before it, the
induction variable replaced by an `arith.constant c : index` (a valid affine symbol), each block
argument of a carried value by the init, each result by the value yielded for it; the loop is
erased. The program computes the same ops in the same order on the same values: nothing else
changes, whatever the body does.

Why it is here: `convert-linalg-to-affine-loops` writes a 1x1 convolution with loops of one
iteration over the kernel's rows and columns (`for kh = 0 to 1 iter_args(..) { for kw = 0 to 1
.. }`); without them the nest is a matrix product (codegen/cpu/register_tile.py takes it as one).
"""
from __future__ import annotations

from .. import mlir
from ..analysis.loops import body_block, constant_bounds
from ..mlir import ir


def runs_once(loop: ir.Operation) -> bool:
    """An affine.for with single constant bounds whose range holds exactly one iteration."""
    if loop.name != "affine.for":
        return False
    cb = constant_bounds(loop)
    return cb is not None and 0 < cb[1] - cb[0] <= mlir.int_attr(loop, "step")


def promote_unit_loop(loop: ir.Operation, iv: ir.Value | None = None) -> None:
    """Replace `loop` (runs_once) by its body, in place (see the module docstring). `iv`: an
    index value equal to the lower bound, defined where it dominates the loop, to use for the
    induction variable (default: a new `arith.constant` just before the loop)."""
    lo, _ = constant_bounds(loop)
    block = body_block(loop)
    n_bounds = mlir.affine_map_attr(loop, "lowerBoundMap").n_inputs + mlir.affine_map_attr(loop, "upperBoundMap").n_inputs
    inits = list(loop.operands)[n_bounds:]
    if iv is None:
        with loop.context, loop.location:
            iv = ir.Operation.create("arith.constant", results=[ir.IndexType.get()],
                                     attributes={"value": ir.IntegerAttr.get(ir.IndexType.get(), lo)},
                                     ip=ir.InsertionPoint(loop)).result
    block.arguments[0].replace_all_uses_with(iv)
    for arg, init in zip(list(block.arguments)[1:], inits):
        arg.replace_all_uses_with(init)
    ops = mlir.block_ops(block)
    y = ops[-1]
    for op in ops[:-1]:
        op.move_before(loop)
    for res, val in zip(loop.results, list(y.operands)):
        res.replace_all_uses_with(val)
    loop.erase()


# op -> (map attribute, index of its first operand) of every affine map an op applies to operands
_MAPS = {"affine.load": (("map", 1),), "affine.vector_load": (("map", 1),), "affine.store": (("map", 2),),
         "affine.vector_store": (("map", 2),), "affine.apply": (("map", 0),), "affine.min": (("map", 0),),
         "affine.max": (("map", 0),)}


def _map_slots(op: ir.Operation) -> list[tuple[str, int]]:
    if op.name == "affine.for":
        lb = mlir.affine_map_attr(op, "lowerBoundMap")
        return [("lowerBoundMap", 0), ("upperBoundMap", lb.n_inputs)]
    return list(_MAPS.get(op.name, ()))


def fold_constant_operand(value: ir.Value, constant: int) -> None:
    """Write `constant` into the maps of every affine op that takes `value` (an index equal to
    `constant`, an `arith.constant`) as a dimension operand: the dimension's expressions become
    the constant (the operand stays, unused by the map), so a bound `(d0) -> (d0 + 4)` of it reads
    as the constant bound 4 and an access index as a constant, as the analyses read constants in
    maps. Exact: the map computes the same values."""
    for use in list(value.uses):
        op = mlir.operation(use.owner)
        for attr, first in _map_slots(op):
            amap = mlir.affine_map_attr(op, attr)
            k = use.operand_number - first
            if not 0 <= k < amap.n_dims:
                continue
            with op.context:
                dims = [ir.AffineConstantExpr.get(constant) if d == k else ir.AffineDimExpr.get(d)
                        for d in range(amap.n_dims)]
                sub = ir.AffineMap.get(amap.n_dims, amap.n_symbols, dims)
                new = ir.AffineMap.get(amap.n_dims, amap.n_symbols, [e.compose(sub) for e in amap.results])
                op.attributes[attr] = ir.AffineMapAttr.get(new)

