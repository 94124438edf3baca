"""Locality: how accesses walk memory along a loop.

`strided_innermost_accesses`: an access is strided when the innermost loop around it indexes a
non-last dimension of a multi-dimensional buffer and not the last one (a column walk of a
row-major buffer). Used as a guard on the cpu target: a restructuring may not increase the
count (MLIR 22's fusion makes atax/bicg 4x slower by creating such walks).

`index_strides` / `stride_class`: how far an access's index moves per iteration of one loop, per
dimension (isl, exact for affine indices), and whether that makes it invariant, contiguous (a
row-major vector: what the cpu plan vectorizes) or strided.
"""
from __future__ import annotations

import re

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


# ----------------------------------------------------------------------------- strides

_ISL_WORDS = frozenset({"mod", "floor", "ceil", "min", "max", "and", "or", "exists"})


def index_strides(a, iv: str) -> tuple[int | None, ...] | None:
    """Per dimension of the access `a` (an analysis.accesses.AccessPattern), how far its index
    moves when the IV named `iv` grows by one, the other IVs and the parameters fixed: an int
    where that is the same for every value of them, None where it is not (a `mod` or `floor`
    of the IV). None for an access at unknown elements."""
    import islpy as isl

    if a.index is None:
        return None
    out = []
    for text in a.index:
        names = sorted(set(re.findall(r"\b[A-Za-z_]\w*\b", text)) - _ISL_WORDS)
        if iv not in names:
            out.append(0)
            continue
        params = [n for n in names if n != iv]
        moved = re.sub(rf"\b{re.escape(iv)}\b", f"({iv} + 1)", text)
        head = f"[{', '.join(params)}] -> " if params else ""
        try:
            delta = isl.PwAff(f"{head}{{ [{iv}] -> [({moved}) - ({text})] }}").coalesce()
        except isl.Error:
            out.append(None)
            continue
        out.append(_constant(delta))
    return tuple(out)


def _constant(pw) -> int | None:
    if not pw.is_cst():
        return None
    vals = []
    pw.foreach_piece(lambda s, aff: vals.append(aff.get_constant_val().to_python()))
    return int(vals[0]) if len(set(vals)) == 1 and vals and float(vals[0]).is_integer() else None


def stride_class(strides: tuple[int | None, ...] | None) -> str:
    """"invariant" (the same element every iteration), "contiguous" (the next element of the last
    dimension: a row-major vector), or "strided" (anything else, unknown included)."""
    if strides is None or any(s is None for s in strides):
        return "strided"
    if all(s == 0 for s in strides):
        return "invariant"
    if all(s == 0 for s in strides[:-1]) and strides[-1] == 1:
        return "contiguous"
    return "strided"
