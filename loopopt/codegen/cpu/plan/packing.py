"""Operand packing (cpu): which operand of a product the register tiling needs copied first.

The register tiling (cpu_plan.TilePlan) runs the lanes of a product's reduction along the loop
around it (C[i, j] += A[i, k] * B[k, j]: j's iterations are the lanes), so it needs B's rows
contiguous along j. A weight stored transposed, W[j, k] (torch's Linear layout, `x @ W^T`, once
fusion has read it in place of the transposed copy torch-mlir makes), walks j across rows: the
nest is left scalar. BLAS packs such an operand before the product; so does this step.

`plan_operand_packs(fn, scope)` finds the loads to pack. A load qualifies when:
- it is an affine.load of a scalar whose one use is an arith.mulf (a product's operand), with
  only affine.for loops between it and the loop the copy goes before (it runs in every
  iteration of them);
- of those loops, its index walks one, K, contiguously and the innermost one that moves it, J,
  across rows (locality.access_class); no other loop inside the copy's place moves it, and at
  least one (a row loop) runs there, the rows the copy is reused for; a store the product
  reaches (through adds and iter_args) walks J contiguously and does not use K (J the output
  dimension the register tiling runs in lanes, K the reduction);
- the copy goes before the outer of J and K, or further out over loops whose IVs the index does
  not use (a batch loop whose IV it uses, as attention's K[b, j, d], keeps the copy inside it:
  one copy per batch);
- J and K have constant bounds and step 1, each at least MIN_PACK_TRIPS iterations, and every
  element the copy will read, the load's index over the whole J x K box, lies inside the
  buffer's static shape (isl): the copy reads them even when the product's outer loops run no
  iteration, so none may be out of bounds;
- its buffer has a known identity (memory.buffer_key) and nothing in the loop the copy goes
  before writes a buffer that may alias it, nor has unknown effects: each value the nest reads
  is then the value the copy, placed just before that loop, reads.
Packing reads the same values in another place: results are bit-exact.
"""
from __future__ import annotations

from dataclasses import dataclass

from .... import mlir
from ....analysis.accesses import access_pattern
from ....analysis.affine import NonAffine, Scope
from ....analysis.effects import op_effects
from ....analysis.loops import ancestors, constant_bounds, loop_dims, nested_in
from ....analysis.memory import UNTRACED, alias_root, buffer_key
from ....mlir import ir
from .locality import access_class

MIN_PACK_TRIPS = 8


@dataclass(frozen=True)
class PackPlan:
    """Copy the elements `load` reads over J x K into a K x J buffer before `top`."""

    load: ir.Operation
    j_loop: ir.Operation
    k_loop: ir.Operation
    top: ir.Operation  # the loop around the product the copy goes before
    j_bounds: tuple[int, int]
    k_bounds: tuple[int, int]


def _unit_bounds(loop: ir.Operation) -> tuple[int, int] | None:
    b = constant_bounds(loop)
    if b is None or mlir.int_attr(loop, "step") != 1 or b[1] - b[0] < MIN_PACK_TRIPS:
        return None
    return b


def in_bounds(index: tuple[str, ...], dims: list[tuple[str, tuple, tuple]], shape: list[int]) -> bool:
    """Every point of the box of `dims` ((name, lower bounds, upper bounds) per loop: the copy's
    J and K and the loops around it whose IVs the index uses) maps, by `index`, into `shape`
    (isl; False when unknown, a symbolic bound included)."""
    import islpy as isl

    if len(index) != len(shape) or any(s < 0 for s in shape):
        return False
    names = [d[0] for d in dims]
    cons = [f"{lo} <= {n}" for n, los, _ in dims for lo in los] + [f"{n} < {up}" for n, _, ups in dims for up in ups]
    try:
        dom = isl.Set(f"{{ [{', '.join(names)}] : {' and '.join(cons)} }}")
        for expr, size in zip(index, shape):
            outside = isl.Set(f"{{ [{', '.join(names)}] : ({expr}) < 0 or ({expr}) >= {size} }}")
            if not outside.intersect(dom).is_empty():
                return False
    except isl.Error:
        return False
    return True


def _is_product_operand(load: ir.Operation) -> bool:
    """The load's value is used once, by an arith.mulf (a product's operand)."""
    uses = [mlir.operation(u.owner) for u in load.results[0].uses]
    return len(uses) == 1 and uses[0].name == "arith.mulf"


def accumulation_stores(load: ir.Operation) -> list[ir.Operation]:
    """The stores the product `load` is an operand of reaches: from its arith.mulf through
    arith.addf/subf, and through affine.yield to the loop's result (a sum in iter_args)."""
    out, work, seen = [], [load.results[0]], 0
    while work and seen < 64:
        v = work.pop()
        seen += 1
        for use in v.uses:
            user = mlir.operation(use.owner)
            if user.name in ("arith.mulf", "arith.addf", "arith.subf"):
                work.append(user.results[0])
            elif user.name == "affine.store" and use.operand_number == 0:
                out.append(user)
            elif user.name == "affine.yield":
                loop = mlir.operation(user.parent)
                if loop.name == "affine.for" and use.operand_number < len(loop.results):
                    work.append(loop.results[use.operand_number])
    return out


def _writes_output_along(load: ir.Operation, j_name: str, k_name: str, scope: Scope) -> bool:
    """A store the product reaches walks J contiguously and does not use K: J is the output
    dimension the register tiling runs in lanes, K the product's reduction."""
    for op in accumulation_stores(load):
        try:
            w = access_pattern(op, scope)
        except NonAffine:
            continue
        if w.index is not None and access_class(w, j_name) == "contiguous" and not w.uses_iv(k_name):
            return True
    return False


def pack_plan(load: ir.Operation, scope: Scope) -> PackPlan | None:
    """The packing of one load (the module rules), or None."""
    if load.name != "affine.load" or isinstance(load.results[0].type, ir.VectorType) \
            or not _is_product_operand(load):
        return None
    chain = []  # the affine.for ops around the load, innermost first, up to the first other op
    for p in ancestors(load):
        if p.name != "affine.for":
            break
        chain.append(p)
    try:
        a = access_pattern(load, scope)
        names = [loop_dims(lp, scope)[0].name for lp in chain]
    except NonAffine:
        return None
    if a.index is None or a.key is UNTRACED:
        return None
    classes = [access_class(a, n) for n in names]
    ks = [x for x, c in enumerate(classes) if c == "contiguous"]
    js = [x for x, c in enumerate(classes) if c == "strided"]
    if len(ks) != 1 or not js:
        return None
    jx, kx = js[0], ks[0]  # the innermost loop that walks it across rows is the lanes loop
    if any(x < max(jx, kx) for x in js[1:]):
        return None  # another row walk inside the copy's place
    j_loop, k_loop = chain[jx], chain[kx]
    jb, kb = _unit_bounds(j_loop), _unit_bounds(k_loop)
    if jb is None or kb is None:
        return None
    # the copy goes before the outer of J and K, or further out over loops whose IVs the index
    # does not use; inside it, a loop besides J and K whose IV the index does not use gives the
    # rows the copy is reused for
    m = max(jx, kx)
    if any(classes[x] != "invariant" for x in range(m + 1) if x not in (jx, kx)):
        return None
    while m + 1 < len(chain) and classes[m + 1] == "invariant":
        m += 1
    if not any(classes[x] == "invariant" for x in range(m + 1) if x not in (jx, kx)):
        return None  # no row loop inside the copy's place: nothing to amortize the copy over
    top = chain[m]
    if not _writes_output_along(load, names[jx], names[kx], scope):
        return None
    used = [lp for lp in a.loops if a.uses_iv(lp.name) and lp.name not in (names[jx], names[kx])]
    if any(lp.op == top or nested_in(lp.op, top) for lp in used):
        return None
    mt = mlir.memref_type(a.root)
    dims = [(lp.name, lp.lower, lp.upper) for lp in used] + [(names[jx], (str(jb[0]),), (str(jb[1]),)),
                                                              (names[kx], (str(kb[0]),), (str(kb[1]),))]
    if mt is None or not in_bounds(a.index, dims, list(mt.shape)):
        return None
    eff = op_effects(top)
    if eff.unknown or eff.may_write(buffer_key(alias_root(load.operands[0]))):
        return None
    return PackPlan(load, j_loop, k_loop, top, jb, kb)


def plan_operand_packs(fn: ir.Operation, scope: Scope | None = None) -> list[PackPlan]:
    """Every load of `fn` to pack, in program order."""
    scope = scope or Scope()
    out = []
    for op in mlir.walk(fn):
        if op.name == "affine.load":
            plan = pack_plan(op, scope)
            if plan is not None:
                out.append(plan)
    return out
