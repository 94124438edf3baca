"""Strided innermost walks of a candidate pair, not counting the pair's private intermediates.

The cpu guard of the interchange-to-align rescue (`loop_optimization/fusion.py`) refuses a permutation
that adds accesses whose innermost loop walks a non-last dimension (`codegen/cpu/plan/locality.py`). An
intermediate that only the two loops touch is different: once they fuse it is written and read
in the same fused iteration (a legal fusion's distance is 0 or more), and contraction usually
replaces it by the stored values. Its walks in the permuted (then fused) nest are not memory traffic, so they are
left out of the count after the permutation (before it, unfused, they are traffic): a consumer
that reads an intermediate in the producer's order may then be permuted even though its own
walk of the intermediate becomes strided (MLIR's loop-fusion.mlir `@should_fuse_loop_nest`).

The same rescue may not split a product's reduction loops around its output loops
(`split_reductions`): a 1-D convolution interchanged to fuse with its padding copy at
the channel loop (`for c { pad row c; for f, ow, kw: O[f, ow] += ... }`) keeps its sums in
memory, loaded and stored once per channel, where the register tile keeps them in registers
across the whole reduction band (docs/cpu_codegen.md section 17).
"""
from __future__ import annotations

from .... import mlir
from ....analysis.affine import Scope
from ....analysis.effects import READ_OPS, WRITE_OPS
from ....analysis.loops import nested_in
from ....analysis.memory import buffer_key_of, escaping_use, is_placed
from ....mlir import ir


def pair_private_buffers(l1: ir.Operation, l2: ir.Operation) -> frozenset:
    """Buffer keys of the placed buffers that do not escape and whose every use other than their
    dealloc sits inside `l1` or `l2`, the first writing them and the second reading them. Each
    memref a store of `l1` names is judged once (the verdict is the memref's alone): a loop that
    absorbed N steps' stores to one output would otherwise scan its N-step users N times."""
    keys = set()
    judged = set()
    for op in mlir.walk(l1):
        if op.name not in WRITE_OPS:
            continue
        buf = op.operands[WRITE_OPS[op.name]]
        if buf in judged:
            continue
        judged.add(buf)
        if not is_placed(buf) or escaping_use(buf, {**READ_OPS, **WRITE_OPS}) is not None:
            continue
        users = [mlir.operation(u.owner) for u in buf.uses]
        users = [u for u in users if u.name != "memref.dealloc"]
        if all(nested_in(u, l1) or nested_in(u, l2) for u in users) and \
                any(u.name in READ_OPS and nested_in(u, l2) for u in users):
            keys.add(buffer_key_of(buf))
    return frozenset(keys)


def strided_walks(root: ir.Operation, skip: frozenset = frozenset(), scope: Scope | None = None) -> int:
    """locality.strided_innermost_accesses of `root`, leaving out the buffers whose keys are in
    `skip` (the pair's private intermediates, `pair_private_buffers`)."""
    from .locality import strided_innermost_accesses

    return strided_innermost_accesses(root, scope, skip)


def split_reductions(root: ir.Operation, scope: Scope | None = None) -> int:
    """Pairs (a reduction loop, an output loop inside it) of the sums of `root`'s perfect band
    that have more than one reduction loop: for every write in the band's innermost loop that a
    read there reads back (a sum kept in memory), the loops of the band and below it that its
    index does not use are its reductions, the band loops it uses its outputs. A product with one
    reduction loop outside its outputs (a k-outer GEMM) is not counted: loop order puts k back
    inside once the product has a nest of its own. A reduction band (a convolution's c and kw)
    split around the outputs it cannot repair (scalar replacement has made the inner loops carry
    the sums), and the register tile then keeps the sums in memory across the outer reduction."""
    from ....analysis.accesses import collect_accesses
    from ....analysis.loops import collect_interchangeable_loops

    band = collect_interchangeable_loops(root) if root.name == "affine.for" else []
    if len(band) < 2:
        return 0
    scope = scope or Scope()
    accesses = [a for a in collect_accesses(band[-1], scope) if a.index is not None]
    if not accesses or len(accesses[0].loops) < len(band):
        return 0
    loops = accesses[0].loops
    outer = [lp.op for lp in loops]
    at = next((k for k, op in enumerate(outer) if op == band[0]), None)
    if at is None:
        return 0
    names = [lp.name for lp in loops[at:at + len(band)]]
    below = [lp.name for lp in loops[at + len(band):]]
    count = 0
    for w in accesses:
        if not w.is_write or not any(not a.is_write and a.root == w.root and a.index == w.index for a in accesses):
            continue
        if len(w.loops) != len(loops):
            continue
        uses = [w.uses_iv(n) for n in names]
        if sum(1 for u in uses if not u) + sum(1 for n in below if not w.uses_iv(n)) < 2:
            continue
        count += sum(1 for i in range(len(names)) for j in range(i + 1, len(names)) if not uses[i] and uses[j])
    return count
