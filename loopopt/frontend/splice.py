"""A helper function's body spliced in place of a TMTensor op (scans.py, scatters.py, sorts.py).

The lowering steps that write a torch-mlir TMTensor op as loops build a helper function from the
op's shape, with one placeholder op (`combine`) standing for the op's region; the helper's body
replaces the op, and the region's ops replace the placeholder, on the placeholder's operands.
"""
from __future__ import annotations

from .. import mlir
from ..mlir import ir


def inline_helper(op: ir.Operation, helper: ir.Module, operands: tuple) -> list:
    """Inline the only function of `helper` in front of `op` on `operands`; returns the values the
    helper returns. `op` itself is left for the caller to replace and erase."""
    fn = helper.body.operations[0]
    return mlir.inline_block(fn.regions[0].blocks[0], tuple(operands), op)


def splice_helper(op: ir.Operation, helper: ir.Module, operands: tuple, combine: str) -> list:
    """`inline_helper`, then `op`'s region in place of the op named `combine` inside it, on that
    op's operands; returns the values the helper returns. `op` itself is left for the caller to
    replace and erase."""
    returned = inline_helper(op, helper, operands)
    placeholder = next(o for o in mlir.walk(op.parent) if o.name == combine)
    (combined,) = mlir.inline_block(op.regions[0].blocks[0], placeholder.operands, placeholder)
    placeholder.results[0].replace_all_uses_with(combined)
    placeholder.erase()
    return returned
