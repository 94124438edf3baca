"""The cpu target's answers to what the seed's pass asks (loop_optimization/hooks.py).

Where the cpu departs from the seed (docs/cost_model.md): no partition dimension; a pair also
earns the bytes of an external buffer it reads twice or reads back (plan/sibling_reuse.py); two
innermost loops of which one is a reduction stay apart unless a shared input pays for it (the
vectorization guard); a loop holding a product's reduction loop takes on no sum from its partner
(the register tiling guard); a longer loop whose extra iterations are read later is split; a
consumer that reads an intermediate in another order recomputes it; an interchange that aligns a
pair may not add strided innermost walks (plan/pair_locality.py); a copy that feeds a matrix
product's operand is not fused with it (plan/copy_products.py).
"""
from __future__ import annotations

from ... import mlir
from ...analysis.refusal import Code, Refusal
from ...analysis.loops import body_block, body_ops, constant_bounds
from ...analysis.memory import UNTRACED
from ...analysis.vectorization import carried_dependence, is_innermost
from ...loop_optimization import rescues
from ...loop_optimization.pair_restructuring import known_trip_count as pr_trip_count
from ...loop_optimization.hooks import TargetHooks
from ...mlir import ir
from .plan.copy_products import copy_into_product
from .plan.cpu_plan import LANE_REDUCTIONS, LOOP_LIKE, memory_reductions, product_band_of, reductions_of
from .plan.pair_locality import pair_private_buffers, split_reductions, strided_walks
from .plan.sibling_reuse import (accumulates_only, reuse_reasons, reuses_produced_elements, reuses_read_elements,
                                 streams_shared_input)


class CpuHooks(TargetHooks):
    name = "cpu"
    requires_partition_dim = False
    rewards_shared_reads = True
    splits_read_tails = True
    # a pair over SBSize per partition row is measured per fused iteration, level by level down
    # (loop_optimization/inner_level.py)
    fuses_inner_level = True
    # a longer loop that writes nothing is shrunk last: an interchange may align it first
    rescues = {
        Code.UNMATCHED_TRIP_COUNT: (rescues.dead_written_iterations, rescues.interchange_to_align,
                                    rescues.recompute_at_depth, rescues.dead_read_only_iterations),
        Code.NEGATIVE_DISTANCE: (rescues.distribute, rescues.interchange_to_align, rescues.recompute),
        Code.BLOCKED_BY_OPS: (rescues.distribute,),
    }

    def pair_refusal(self, l1: ir.Operation, l2: ir.Operation, facts, options) -> Refusal | None:
        """A copy nest over the fusion budget whose destination a product in the other loop
        reads as an operand, the product's output over L2, is not fused with it
        (`plan/copy_products.py`): fused, the product would run in strips of its reduction, each
        loading and storing its output again; whole, the copy is read by the tile's packing."""
        l2_bytes = options.plan_cache_sizes[1]
        hit = copy_into_product(l1, l2, facts.scope, options.sb_budget, l2_bytes)
        return None if hit is None else Refusal(Code.COPY_INTO_PRODUCT, hit.text(l2_bytes), ops=(l1, l2))

    def vectorization_refusal(self, l1: ir.Operation, l2: ir.Operation, facts, options=None) -> Refusal | None:
        """The vectorization guard (`innermost_refusal`), then the register tiling guard
        (`product_refusal`)."""
        return innermost_refusal(l1, l2, facts, options) or product_refusal(l1, l2, facts)

    def split_refusal(self, loop: ir.Operation, keep: int, scope) -> str | None:
        """A loop over the rows, columns or reduction of a matrix product it holds
        (`isolate_products.product_dimension`) is not split for a head that fuses: the head would
        be a product of `keep` rows under its partner's loop (a batch of 8 against 1024 token
        rows) and the tail another one, each too short for the register tile's rows or fused
        with shifted work; kept whole, the product keeps all its rows (section 39)."""
        from .isolate_products import product_dimension

        dim = product_dimension(loop, scope)
        if dim is None:
            return None
        total = pr_trip_count(loop)
        return (f"the loop runs over the {dim} of a matrix product it holds: a split at iteration {keep}"
                f"{f' of {total}' if total else ''} would cut the product in two, its head under its "
                "partner's loop")

    def reads_same_elements(self, l1: ir.Operation, l2: ir.Operation, root, facts) -> bool:
        return reuses_read_elements(l1, l2, root, facts)

    def reads_produced_elements(self, l1: ir.Operation, l2: ir.Operation, root, facts) -> bool:
        return reuses_produced_elements(l1, l2, root, facts)

    def fused_detail(self, l1: ir.Operation, l2: ir.Operation, facts) -> list[str]:
        return reuse_reasons(l1, l2, facts)

    def interchange_locality(self, first: ir.Operation, second: ir.Operation):
        """The permuted nest may not have more strided innermost walks than the nest had, its
        walks of the pair's private intermediates (which the fusion turns into values of one
        fused iteration) left out; unfused, the intermediate's walks are traffic too. Nor may it
        split more sums' reduction loops around their output loops (`split_reductions`: the
        sums would then go through memory once per step of the reduction loop put outside)."""
        private = pair_private_buffers(first, second)

        def check(nest: ir.Operation):
            before, outside = strided_walks(nest), split_reductions(nest)
            return lambda root: strided_walks(root, private) <= before and split_reductions(root) <= outside

        return check


def innermost_refusal(l1: ir.Operation, l2: ir.Operation, facts, options=None) -> Refusal | None:
    """Two innermost loops where exactly one carries a dependence (a reduction) must not
    fuse, since the parallel one's work would run sequentially in the fused loop and lose
    vectorization. Fusing two sequential loops, or two parallel ones, is left to the battery;
    outer loops are never refused here (their inner loops stay separate). Two exceptions, where
    the reduction loop only accumulates: the pair streams a shared input once; or the parallel
    loop runs first and the reduction reads, in the same iteration, what it has just written,
    and every accumulator is one the vectorizer keeps in vector partials (`vector_reductions`:
    the fused loop stays vector, and the intermediate lives in registers, not in a buffer read
    back: a sum of exponentials over a long row)."""
    if not (is_innermost(l1, facts) and is_innermost(l2, facts)):
        return None
    c1, c2 = carried_dependence(l1, facts), carried_dependence(l2, facts)
    if (c1 is None) == (c2 is None):
        return None
    par, seq, why = (l1, l2, c2) if c1 is None else (l2, l1, c1)
    if accumulates_only(seq, facts) and streams_shared_input(l1, l2, facts):
        return None  # the input streamed once pays for the scalar reduction (sibling_reuse)
    if par is l1 and accumulates_only(seq, facts) and vector_reductions(seq, facts, options) \
            and consumes_produced_elements(l1, l2, facts):
        return None
    return Refusal(Code.LOSES_VECTORIZATION, f"the loop at {mlir.location_of(par)} is parallel; the loop at "
                   f"{mlir.location_of(seq)} is sequential ({why.reason})", ops=(l1, l2))


def vector_reductions(loop: ir.Operation, facts, options) -> bool:
    """Every write of the innermost `loop` is a reduction in memory (`memory_reductions`) of a
    kind the vectorizer keeps in vector partial sums: one whose result is the same in any order
    (max/min, integers), or a float sum or product when `options.reassociate` allows reordering
    it. Without options (or with reassociation off) a float sum keeps its order: scalar."""
    writes = [a for a in facts.classes(loop).flat if a.is_write]
    reds = memory_reductions(loop, facts.scope)
    reassociate = bool(options is not None and getattr(options, "reassociate", False))
    return bool(reds) and len(reds) == len(writes) and all(r.exact or reassociate for r in reds)


def consumes_produced_elements(l1: ir.Operation, l2: ir.Operation, facts) -> bool:
    """Some buffer l1 writes and l2 reads but does not write is read by l2, per fused iteration,
    only at elements l1 has just written there (`reuses_produced_elements`)."""
    e1, e2 = facts.effects(l1), facts.effects(l2)
    for k in sorted(e1.writes & e2.reads - e2.writes, key=str):
        if k is not UNTRACED and reuses_produced_elements(l1, l2, k, facts):
            return True
    return False


def product_refusal(l1: ir.Operation, l2: ir.Operation, facts) -> Refusal | None:
    """A loop that holds a product's reduction loop or band (`product_band_of`: what register
    tiling blocks, one loop or, MLIR's elementwise fusion having reshaped the product, several
    nested: section 84) must not fuse with a loop that carries a reduction along itself of a kind
    whose partials may not start from the init (`unshared_reduction`: a sum): the fused loop would
    carry it, the tile would be refused, and the product would run one scalar dot product per
    element (layer norm's row sum after a projection). A maximum or minimum is not refused; nor
    is a sum an outer loop keeps in memory in its own body (a profit guard: refusing less only
    leaves a fusion that may cost the tile)."""
    for p, q in ((l1, l2), (l2, l1)):
        # cheap questions first: q carries a sum only in its iter_args or, innermost (loops of
        # one iteration aside), in memory; p, innermost, holds no loop (listing a fused chain's
        # long body, or asking an outer loop's dependences, on every pair made the guard quadratic)
        if is_innermost(p, facts):
            continue
        if len(q.results) or is_innermost(q, facts):
            kind = unshared_reduction(q, facts)
        else:
            kind = unit_nested_reduction(q, facts.scope)
        if kind is None or product_band_of(p, facts.scope) is None:
            continue
        return Refusal(Code.LOSES_REGISTER_TILING, f"the loop at {mlir.location_of(p)} holds a product's "
                       f"reduction loop; the loop at {mlir.location_of(q)} carries a reduction by {kind}, "
                       "not one the tile's lanes may share", ops=(l1, l2))
    return None


def unit_chain(q: ir.Operation) -> list[ir.Operation] | None:
    """The loops of one iteration nested in `q`, outermost first, when q's body holds one of them
    and nothing else, its body the next one and nothing else, ..., down to one that holds no
    loop (an interchanged matrix-vector product: `for k { for j = 0 to 1 { C[i, j] += ... } }`,
    whose column loop `unit-loops` later removes); None when q's nest has another shape or q
    holds no loop."""
    chain, at = [], q
    if len([o for o in mlir.first_ops(body_block(q), 3) if o.name != "affine.yield"]) != 1:
        return None  # q's body is not one op: no chain (a long fused body is not listed on every pair)
    while True:
        ops = [o for o in body_ops(at) if o.name != "affine.yield"]
        loops = [o for o in ops if o.name in LOOP_LIKE]
        if not loops:
            return chain or None
        if len(ops) != 1 or ops[0].name != "affine.for" or ops[0].results or not runs_once(ops[0]):
            return None
        at = ops[0]
        chain.append(at)


def runs_once(loop: ir.Operation) -> bool:
    """An affine.for of constant bounds whose trip count is one."""
    bounds = constant_bounds(loop)
    return bounds is not None and 0 < bounds[1] - bounds[0] <= mlir.int_attr(loop, "step")


def unit_nested_reduction(q: ir.Operation, scope) -> str | None:
    """The kind of a sum (not in LANE_REDUCTIONS) that `q` carries along itself in memory inside
    loops of one iteration (`unit_chain`): a memory reduction of the innermost of them whose
    address uses no counter of q's nest but those of the loops that run once (each is always its
    lower bound), so every iteration of q updates the same element; else None."""
    chain = unit_chain(q)
    if chain is None:
        return None
    fixed = frozenset(body_block(lp).arguments[0] for lp in chain)
    q_iv = body_block(q).arguments[0]
    for red in memory_reductions(chain[-1], scope, fixed=fixed):
        if red.kind not in LANE_REDUCTIONS and q_iv not in list(red.load.operands)[1:]:
            return red.kind
    return None


def unshared_reduction(q: ir.Operation, facts) -> str | None:
    """The kind of a reduction `q` carries along itself, in iter_args or in memory (a load and a
    store of one element that does not move with `q`), that is not in LANE_REDUCTIONS; else None."""
    if carried_dependence(q, facts) is None:
        return None
    reds, _ = reductions_of(q)
    kinds = [r.kind for r in reds] + [m.kind for m in memory_reductions(q, facts.scope)]
    return next((k for k in kinds if k not in LANE_REDUCTIONS), None)
