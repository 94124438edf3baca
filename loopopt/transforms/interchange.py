"""Loop interchange: permute the levels of a perfect loop nest.

A permutation is written `perm[k]` = the original level that ends at position k, so `[1, 0]`
swaps a 2-deep nest and `[2, 0, 1]` moves the innermost of three loops outermost. It is legal
when (analysis/legality.py) every dependence keeps its direction over the full iteration vector,
no loop moves outside a loop whose IV its bounds use, and, on a partitioned target, a loop newly
placed outermost walks the partition dim (seed 001's `invalid b/c not on partition dim`).
"""
from __future__ import annotations

from .. import mlir
from ..analysis.affine import Scope
from ..analysis.legality import (accesses_dim0, bounds_violation, induction_var, is_band,
                                 is_permutation, permutation_violation)
from ..analysis.refusal import Code, Refusal
from ..analysis.loops import body_block, collect_interchangeable_loops, has_iter_args, is_outermost_loop
from ..mlir import affine_d, ir
from ..remarks import PASSED, RemarkLog
from ..step import StepContext

INTERCHANGE = "interchange"
NOT_ON_PARTITION_DIM = Code.INTERCHANGE_NOT_ON_PARTITION_DIM.message  # seed 001, verbatim
STOP_NOT_PERFECT = Code.INTERCHANGE_NOT_PERFECT.message
STOP_BAD_PERM = Code.INTERCHANGE_BAD_PERMUTATION.message
STOP_ITER_ARGS = Code.INTERCHANGE_ITER_ARGS.message
STOP_BOUNDS = Code.INTERCHANGE_BOUNDS.message
STOP_DEPENDENCE = Code.INTERCHANGE_DEPENDENCE.message


def check_loop_interchange(nest: list[ir.Operation], perm: list[int], scope: Scope | None = None,
                           options=None) -> Refusal | None:
    """None iff `loop_interchange(nest, perm)` is legal; else the reason, for a remark.

    Checks, in order: `perm` permutes the levels; the nest is perfect and carries no values; on a
    partitioned target (options.target.partitioned, the default when options is None is to skip),
    a loop moved outermost indexes dim 0 of some access; bounds only use IVs of loops that stay
    outside; every dependence keeps its lexicographic direction.
    """
    scope = scope or Scope()
    nest = list(nest)
    loops = tuple(nest)
    if not is_permutation(perm, len(nest)):
        return Refusal(Code.INTERCHANGE_BAD_PERMUTATION, f"{list(perm)} for {len(nest)} levels", loops)
    if not is_band(nest):
        return Refusal(Code.INTERCHANGE_NOT_PERFECT, ops=loops)
    if list(perm) == list(range(len(nest))):
        return None
    for lp in nest:
        if has_iter_args(lp):
            return Refusal(Code.INTERCHANGE_ITER_ARGS, ops=(lp,))
    partitioned = options is not None and options.target.partitioned
    if partitioned and perm[0] != 0 and not accesses_dim0(nest, perm[0], scope):
        return Refusal(Code.INTERCHANGE_NOT_ON_PARTITION_DIM, "the loop to move outermost does not index dim 0",
                          (nest[perm[0]],))
    bad = bounds_violation(nest, perm)
    if bad:
        return Refusal(Code.INTERCHANGE_BOUNDS, bad, loops)
    bad = permutation_violation(nest, perm, scope)
    if bad:
        return Refusal(Code.INTERCHANGE_DEPENDENCE, bad, loops)
    return None


def loop_interchange(nest: list[ir.Operation], perm: list[int]) -> list[ir.Operation]:
    """Rebuild the perfect band `nest` in the order `perm`; returns the new loops, outermost first.

    Mechanical: each loop keeps its bound maps, operands (outer IVs renamed to the new loops)
    and step; the innermost body moves unchanged. Raises ValueError when the band is not perfect,
    `perm` is not a permutation, or a bound would use an IV defined inside it; it does not check
    dependences (call check_loop_interchange first). The old loops are erased.
    """
    nest = list(nest)
    if not is_permutation(perm, len(nest)) or not is_band(nest):
        raise ValueError("loop_interchange needs a perfect nest and a permutation of its levels")
    if list(perm) == list(range(len(nest))):
        return nest
    bad = bounds_violation(nest, perm)
    if bad:
        raise ValueError(bad)
    if any(has_iter_args(lp) for lp in nest):
        raise ValueError("cannot interchange loops that carry values")
    old_ivs = [induction_var(lp) for lp in nest]
    new_iv = {}
    new_loops = []
    ip = ir.InsertionPoint(nest[0])
    with nest[0].context:
        for k in perm:
            old = nest[k]
            lb = mlir.affine_map_attr(old, "lowerBoundMap")
            ub = mlir.affine_map_attr(old, "upperBoundMap")
            ops = [new_iv.get(m, v) for v in old.operands for m in [_level_of(v, old_ivs)]]
            n_lb = lb.n_dims + lb.n_symbols
            with old.location:
                lp = affine_d.AffineForOp(lb, ub, mlir.int_attr(old, "step"), lower_bound_operands=ops[:n_lb],
                                          upper_bound_operands=ops[n_lb:], ip=ip)
                for name, attr in old.attributes.items():
                    if name not in ("lowerBoundMap", "upperBoundMap", "step", "operandSegmentSizes"):
                        lp.operation.attributes[name] = attr
                with ir.InsertionPoint(lp.body):
                    affine_d.AffineYieldOp([])
            new_iv[k] = lp.induction_variable
            new_loops.append(lp.operation)
            ip = ir.InsertionPoint.at_block_begin(lp.body)
        term = mlir.block_ops(body_block(new_loops[-1]))[-1]
        for op in mlir.block_ops(body_block(nest[-1]))[:-1]:
            op.move_before(term)
        for k, iv in enumerate(old_ivs):
            iv.replace_all_uses_with(new_iv[k])
        nest[0].erase()
    return new_loops


def _level_of(v: ir.Value, ivs: list[ir.Value]) -> int | None:
    for k, iv in enumerate(ivs):
        if v == iv:
            return k
    return None


def outermost_permutation(depth: int, level: int) -> list[int]:
    """The permutation that moves `level` outermost and keeps the other levels in order."""
    return [level] + [k for k in range(depth) if k != level]


def try_interchange(nest: list[ir.Operation], perm: list[int], scope: Scope | None = None, options=None,
                    log: RemarkLog | None = None, function: str = ""):
    """Check, apply and remark one interchange; returns (new nest, None) or (old nest, Refusal).

    The remark is `[LOOP INTERCHANGE] 1:0` when applied, else the reason's message (the detail goes
    into the remark's args). Nothing changes when the check refuses.
    """
    where = mlir.location_of(nest[0]) if nest else ""
    why = check_loop_interchange(nest, perm, scope, options)
    if why is not None:
        if log is not None:  # the seed logs its partition-dim refusal (seed 001, check_loop_interchange)
            log.refused(INTERCHANGE, why, function=function, location=where, args={"perm": list(perm)},
                        trace=why.code is Code.INTERCHANGE_NOT_ON_PARTITION_DIM)
        return list(nest), why
    new = loop_interchange(nest, perm)
    if log is not None:
        log.add(INTERCHANGE, PASSED, f"[LOOP INTERCHANGE] {':'.join(map(str, perm))}", function=function,
                location=where, args={"perm": list(perm)})
    return new, None


# ---------------------------------------------------------------------------------------------
# Standalone pass


def parse_permutation(text: str) -> list[int]:
    """`1:0` or `2,0,1` -> [1, 0] / [2, 0, 1]; raises ValueError with a one-line message."""
    parts = [p for p in text.replace(",", ":").split(":") if p.strip()]
    try:
        perm = [int(p) for p in parts]
    except ValueError:
        raise ValueError(f"interchange permutation '{text}' must be levels like 1:0 or 2:0:1") from None
    if not is_permutation(perm, len(perm)) or len(perm) < 2:
        raise ValueError(f"interchange permutation '{text}' must list each level 0..n-1 once (n >= 2)")
    return perm


def interchange_pass(module: ir.Module, options, log: RemarkLog, perm) -> int:
    """`--passes=interchange=1:0`: permute the top len(perm) levels of every outermost perfect nest
    at least that deep, where check_loop_interchange allows; returns the number of nests changed."""
    return sum(interchange_function(fn, options, log, perm) for fn in mlir.functions(module))


def interchange_function(fn: ir.Operation, options, log: RemarkLog, perm, filename: str = "<input>") -> int:
    """interchange_pass on one function."""
    perm = parse_permutation(perm) if isinstance(perm, str) else list(perm)
    count = 0
    name = mlir.func_name(fn)
    roots = [o for o in mlir.walk(fn) if o.name == "affine.for" and is_outermost_loop(o)]
    for root in roots:
        band = collect_interchangeable_loops(root)
        if len(band) < len(perm):
            continue
        _, why = try_interchange(band[:len(perm)], perm, Scope(), options, log, name)
        count += why is None
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `interchange` (loopopt/pipeline.py)."""
    return interchange_function(fn, ctx.options, ctx.log, ctx.argument, ctx.filename)
