"""Locality: how many accesses walk memory with a stride in the innermost loop.

An access is strided when the innermost loop around it indexes a non-last dimension of a
multi-dimensional buffer and not the last one (a column walk of a row-major buffer). Used as a
guard on the cpu target: a restructuring may not increase the count (MLIR 22's fusion makes
atax/bicg 4x slower by creating such walks).
"""
from __future__ import annotations

from .. import mlir
from ..mlir import ir
from .accesses import collect_accesses
from .affine import Scope
from .loops import body_ops


def strided_innermost_accesses(root: ir.Operation, scope: Scope | None = None) -> int:
    scope = scope or Scope()
    count = 0
    loops = [root] if root.name == "affine.for" else []
    loops += [o for o in mlir.walk(root) if o.name == "affine.for"]
    for lp in loops:
        if any(o.name == "affine.for" for o in body_ops(lp)):
            continue  # not innermost
        for a in collect_accesses(lp, scope):
            if a.index is None or len(a.index) < 2 or not a.loops:
                continue
            iv = a.loops[-1].name
            last = len(a.index) - 1
            if any(a.uses_iv(iv, d) for d in range(last)) and not a.uses_iv(iv, last):
                count += 1
    return count
