"""Matrix products out of the loops fusion put them in (cpu): expansion, then distribution.

Fusion (a memory-traffic profit) can leave a matrix product inside a loop with other work, in a
shape register tiling cannot take: MLP layers whose transposed weight is copied into a row
buffer for each k (`for k { t[j] = W[j, k]; for i, j: C[i, j] += X[i, k] * t[j] }`), or two
products of one row in one loop (2mm, `for i { tmp row = A B; D row = tmp C }`). A matrix
product needs its own nest to keep a tile of C in registers through the whole reduction, with
its B operand in a buffer of its own. This step (after scalar replacement, before loop order
and register tiling) gives it one:

* **Distribution** (transforms/distribution.py, legality analysis/legality.py: no dependence
  goes from a later group back to an earlier one): a loop whose body holds a matrix product and
  other statements (loops, stores) is split when the product ends in a group with no other loop;
  a loop around a reduction loop (what register tiling takes as it is) is left alone.
* **Expansion** first, when a buffer stops the split: a buffer allocated outside the loop, used
  only inside it (and freed), whose elements do not move with the loop's IV (fusion's
  contraction shrank it to what one iteration needs), and whose every element read in an
  iteration was written earlier in the same iteration (isl: the reads' access relation is a
  subset of the writes'; every statement that writes it comes before every one that reads it).
  Each iteration then gets its own copy (a new leading dimension, or the leading dimension of
  extent 1 replaced), which is what the program computed before fusion; at most `sb_budget`
  bytes (the cpu target's L2). Tried on a copy of the loop, kept only when the split follows.
* **How many copies** (`iteration_extent`): the loop has step 1 and a constant lower bound lo;
  its trip count, when constant, or isl's maximum of a symbolic one over the parameters and
  outer loops (`0 to min(%n, 64)`: 64; a triangle's inner loop: the outer extent) sizes a static
  buffer, checked against the budget. When the trip count has no compile-time bound (a dynamic
  batch: `0 to %dim`), the buffer gets a dynamic leading dimension, `memref.alloc(%n)` with %n
  the trip count at run time (the `memref.dim` itself from 0, else `affine.max(dim - lo, 0)`);
  only one copy is then checked against the budget, the whole buffer cannot be. Accepted only
  when the upper bound is a `memref.dim` of a function argument (`argument_extent`: the copies
  are rows of data the caller passed, never an arbitrary index argument) and that size is
  available where the buffer is allocated (`size_operands_dominate`). The legality (the reads'
  cover in isl) keeps every size symbolic. For mlp_dynamic the hidden row (2 KiB) becomes the
  batch x 512 intermediate the unfused program had: within the budget up to a batch of 1024.

A statement holds a matrix product when it updates `C[x] = C[x] + a * b` (the same element
loaded and stored, a and b computed from loads; or the sum carried in iter_args and stored
after the loop, as scalar replacement leaves it) and the indices of C, a's and b's loads use
three loops or more together, a's and b's along different loops (not a sum of squares). Each
statement keeps its operations and their order per element:
results are bit-exact.

Remarks (pass `isolate-products`): `[PRODUCT ISOLATION] ...` (Passed) per split loop, with
the expanded buffers.
"""
from __future__ import annotations

from dataclasses import dataclass

from ... import mlir
from ...analysis.accesses import access_pattern
from ...analysis.affine import Scope
from ...analysis.legality import innermost_body, is_recomputable
from ...analysis.loops import body_ops, collect_interchangeable_loops, constant_bounds, nested_in
from ...mlir import ir
from ...options import Options
from ...remarks import MISSED, PASSED, RemarkLog
from ...transforms.distribution import distribution_groups, loop_distribution
from ...transforms.rewriter import Rewriter
from ...step import StepContext

PASS = "isolate-products"
STOP = "[STOP PRODUCT ISOLATION] the matrix product stays in the loop fusion put it in:"
MAX_ROUNDS = 16  # loops split per function (each split rescans)


# ----------------------------------------------------------------------------- matrix products

def _feeding_loads(v: ir.Value, limit: int = 16) -> list[ir.Operation]:
    """The affine.loads a value is computed from through pure arith ops (a few steps back)."""
    out, work, seen = [], [v], 0
    while work and seen < limit:
        seen += 1
        owner, _ = mlir.value_owner(work.pop())
        if owner is None:
            continue
        if owner.name == "affine.load":
            out.append(owner)
        elif owner.name.startswith("arith.") and not owner.regions:
            work.extend(owner.operands)
    return out


def _ivs_of(ops: list[ir.Operation], scope: Scope) -> set | None:
    """The IV names the indices of these accesses use (None when one is unknown)."""
    ivs = set()
    for op in ops:
        a = access_pattern(op, scope)
        if a.index is None:
            return None
        ivs |= {lp.name for lp in a.loops if a.uses_iv(lp.name)}
    return ivs


def _carried_multiply_adds(loop: ir.Operation):
    """(k, mul) for each iter_args value k of `loop` that the loop updates as acc + mul, mul a
    multiplication (the form scalar replacement leaves)."""
    block = loop.regions[0].blocks[0]
    y = mlir.block_ops(block)[-1]
    for k, arg in enumerate(list(block.arguments)[1:]):
        comb, _ = mlir.value_owner(y.operands[k])
        if comb is None or comb.name not in ("arith.addf", "arith.addi") or arg not in list(comb.operands):
            continue
        mul = next((mlir.value_owner(v)[0] for v in comb.operands if v != arg), None)
        if mul is not None and mul.name in ("arith.mulf", "arith.muli"):
            yield k, mul


def _two_operands(mul: ir.Operation, scope: Scope) -> bool:
    """The factors of `mul` are read along different loops (a row of A and a column of B: some
    loop indexes one factor's loads and not the other's). A sum of squares (`acc + d * d`, a
    variance) or of an elementwise product of two rows (`acc + a[i, k] * b[i, k]`) reads both
    factors alike: no product a register tile could reuse an operand of (section 41)."""
    a, b = (_ivs_of(_feeding_loads(v), scope) for v in mul.operands)
    return a is None or b is None or a != b


def _carried_products(loop: ir.Operation, scope: Scope) -> bool:
    """Whether an iter_args value of `loop` sums products of loads (acc + a * b, the form scalar
    replacement leaves) whose loads and the stores of the loop's result use three IVs or more,
    a and b read along different loops (`_two_operands`)."""
    for k, mul in _carried_multiply_adds(loop):
        if not _two_operands(mul, scope):
            continue
        loads = [ld for v in mul.operands for ld in _feeding_loads(v)]
        stores = [mlir.operation(u.owner) for u in loop.results[k].uses]
        stores = [st for st in stores if st.name == "affine.store"]
        ivs = _ivs_of(loads + stores, scope) if loads else None
        if ivs is not None and len(ivs) >= 3:
            return True
    return False


def product_updates(stmt: ir.Operation, scope: Scope) -> list[ir.Operation]:
    """The stores (or loops carrying the sum) in `stmt` of a matrix-product update (module doc)."""
    out = []
    for op in [stmt, *mlir.walk(stmt)]:
        if op.name == "affine.for" and op.results and _carried_products(op, scope):
            out.append(op)
            continue
        if op.name != "affine.store":
            continue
        owner, _ = mlir.value_owner(op.operands[0])
        if owner is None or owner.name not in ("arith.addf", "arith.addi"):
            continue
        ins = [mlir.value_owner(v)[0] for v in owner.operands]
        acc = next((o for o in ins if o is not None and o.name == "affine.load" and _same_address(o, op)), None)
        mul = next((o for o in ins if o is not None and o.name in ("arith.mulf", "arith.muli")), None)
        if acc is None or mul is None or not _two_operands(mul, scope):
            continue
        loads = [ld for v in mul.operands for ld in _feeding_loads(v)]
        if not loads:
            continue
        ivs = set()
        for ld in [acc, *loads]:
            a = access_pattern(ld, scope)
            if a.index is None:
                break
            ivs |= {lp.name for lp in a.loops if a.uses_iv(lp.name)}
        else:
            if len(ivs) >= 3:
                out.append(op)
    return out


def product_operands(update: ir.Operation) -> tuple[list, list, list] | None:
    """(C's accesses, a's loads, b's loads) of a product update `product_updates` found: the
    stored element and its load (or the stores of the carried sum), and the loads each factor of
    the multiplication is computed from; None when the form is not one of the two."""
    if update.name == "affine.store":
        owner, _ = mlir.value_owner(update.operands[0])
        ins = [mlir.value_owner(v)[0] for v in owner.operands] if owner is not None else []
        acc = next((o for o in ins if o is not None and o.name == "affine.load" and _same_address(o, update)), None)
        mul = next((o for o in ins if o is not None and o.name in ("arith.mulf", "arith.muli")), None)
        if acc is None or mul is None:
            return None
        return [acc, update], _feeding_loads(mul.operands[0]), _feeding_loads(mul.operands[1])
    for k, mul in _carried_multiply_adds(update):
        stores = [mlir.operation(u.owner) for u in update.results[k].uses]
        return ([st for st in stores if st.name == "affine.store"], _feeding_loads(mul.operands[0]),
                _feeding_loads(mul.operands[1]))
    return None


def product_dimension(loop: ir.Operation, scope: Scope) -> str | None:
    """Which dimension of a matrix product it holds `loop` runs over: "rows or columns" when its
    IV indexes the product's output C and one factor only, "reduction" when it indexes both
    factors and not C; None when it is no such loop of any product in it (a batch loop indexes C
    and both factors: every iteration is a whole product). Splitting such a loop cuts the
    product in two."""
    from ...analysis.loops import loop_dims

    iv = loop_dims(loop, scope)[0].name
    for update in product_updates(loop, scope):
        roles = product_operands(update)
        if roles is None:
            continue
        c, a, b = (_ivs_of(ops, scope) if ops else set() for ops in roles)
        if c is None or a is None or b is None:
            continue
        if iv in c and (iv in a) != (iv in b):
            return "rows or columns"
        if iv not in c and iv in a and iv in b:
            return "reduction"
    return None


def _same_address(load: ir.Operation, store: ir.Operation) -> bool:
    return (load.operands[0] == store.operands[1] and str(load.attributes["map"]) == str(store.attributes["map"])
            and list(load.operands)[1:] == list(store.operands)[2:])


def isolates(groups: list[list[ir.Operation]], products: set) -> bool:
    """Whether some group holds a product statement and no other loop."""
    for grp in groups:
        loops = [op for op in grp if op.regions]
        if any(mlir.op_key(op) in products for op in loops) and len(loops) == 1:
            return True
    return False


# ----------------------------------------------------------------------------- expansion

@dataclass(frozen=True)
class Extent:
    """How many copies an expansion by `loop` makes: the loop's first iteration `lower` (a
    constant), `copies` its trip count when known at compile time (or a compile-time bound of a
    symbolic one: isl's maximum over the parameters and outer loops), else None (the batch of a
    dynamic shape: the copies are counted at run time, `memref.alloc(%n)`)."""

    lower: int
    copies: int | None


def iteration_extent(loop: ir.Operation, scope: Scope) -> Extent | None:
    """The Extent of an affine.for of step 1 with one constant lower bound, else None. A
    symbolic upper bound without a compile-time maximum must be one expression (the size is
    then computed from it)."""
    if loop.name != "affine.for" or mlir.int_attr(loop, "step") != 1:
        return None
    lbm, ubm = mlir.affine_map_attr(loop, "lowerBoundMap"), mlir.affine_map_attr(loop, "upperBoundMap")
    if len(lbm.results) != 1 or not isinstance(lbm.results[0], ir.AffineConstantExpr):
        return None
    bounds = constant_bounds(loop)
    if bounds is not None:
        return Extent(bounds[0], max(0, bounds[1] - bounds[0]))
    copies = _max_trip_count(loop, scope)
    if copies is None and len(ubm.results) != 1:
        return None
    return Extent(lbm.results[0].value, copies)


def _max_trip_count(loop: ir.Operation, scope: Scope) -> int | None:
    """isl's maximum of the trip count over every parameter value and outer iteration (outer
    loops' domains applied), or None when it is unbounded or unknown."""
    import islpy as isl

    from ...analysis.loops import domain_loops, trip_count

    tc = trip_count(loop, scope)
    if tc is None:
        return None
    outer = domain_loops(loop, scope)
    params = sorted(scope.params)
    cons = [c for d in outer for c in d.constraints()]
    try:
        dom = isl.Set(f"[{', '.join(params)}] -> {{ [{', '.join(d.name for d in outer)}] : "
                      f"{' and '.join(cons) or 'true'} }}")
        pw = tc.pw.align_params(dom.get_space())
        dom = dom.align_params(pw.get_space())
        top = pw.intersect_domain(dom).max_val() if hasattr(pw, "max_val") else None
    except isl.Error:
        return None
    if top is None or not top.is_int():
        return None
    return max(0, int(top.to_python()))


def placed_buffers(loop: ir.Operation) -> list[ir.Operation]:
    """The memref.alloc ops of the buffers `loop` loads from or stores to, each once, in order."""
    seen, out = set(), []
    for op in [loop, *mlir.walk(loop)]:
        if op.name not in ("affine.load", "affine.store"):
            continue
        owner, _ = mlir.value_owner(op.operands[1 if op.name == "affine.store" else 0])
        if owner is not None and owner.name == "memref.alloc" and mlir.op_key(owner) not in seen:
            seen.add(mlir.op_key(owner))
            out.append(owner)
    return out


def expandable_buffers(loop: ir.Operation, scope: Scope, budget: int) -> list[ir.Operation]:
    """The memref.alloc ops whose buffer `loop` may give one copy per iteration (module doc)."""
    extent = iteration_extent(loop, scope)
    if extent is None:
        return []
    return [b for b in placed_buffers(loop) if expansion_refusal(b, loop, scope, extent.copies, budget) is None]


def expansion_refusals(loop: ir.Operation, scope: Scope, budget: int) -> list[str]:
    """Why each buffer `loop` writes and reads cannot have one copy per iteration (the buffer's
    place and `expansion_refusal`'s reason), for the remark of a product left in place."""
    extent = iteration_extent(loop, scope)
    out = []
    for b in placed_buffers(loop):
        why = expansion_refusal(b, loop, scope, extent.copies if extent else None, budget)
        if why is not None and why != "nothing to expand":
            out.append(f"the buffer at {mlir.location_of(b)} cannot have a copy per iteration: {why}")
    return out


def copy_bytes(mt: ir.MemRefType) -> int:
    """Bytes of one iteration's copy of a static buffer (a leading dimension of 1 is replaced)."""
    elems = 1
    for d in mt.shape[1:] if mt.shape[0] == 1 else mt.shape:
        elems *= d
    return elems * mlir.element_size_bytes(mt.element_type)


def expansion_refusal(alloc: ir.Operation, loop: ir.Operation, scope: Scope, trips: int | None,
                       budget: int) -> str | None:
    """None when `loop` may give `alloc`'s buffer one copy per iteration, else why not. `trips`:
    the number of copies, None when only known at run time (then `size_operands_dominate`)."""
    mt = mlir.memref_type(alloc.results[0])
    if mt is None or list(alloc.operands) or any(d < 0 for d in mt.shape) or not mt.shape:
        return "not a static buffer"
    if not mlir.identity_layout(mt):
        return "not an identity layout"
    if trips is not None and trips * copy_bytes(mt) > budget:
        return "the expanded buffer exceeds the budget"
    if trips is None and copy_bytes(mt) > budget:
        return "one iteration's copy exceeds the budget"
    if trips is None and argument_extent(loop) is None:
        return "the trip count is unknown at compile time and not a dimension of an argument"
    if trips is None and not size_operands_dominate(loop, alloc):
        return "the trip count is not known where the buffer is allocated"
    from ...analysis.loops import loop_dims

    ivname = loop_dims(loop, scope)[0].name
    accesses = []
    for use in alloc.results[0].uses:
        user = mlir.operation(use.owner)
        if user.name == "memref.dealloc":
            continue
        if user.name not in ("affine.load", "affine.store"):
            return f"{user.name} uses it"
        if not nested_in(user, loop):
            return f"{user.name} at {mlir.location_of(user)} uses it outside the loop"
        if user.name == "affine.store" and use.operand_number != 1:
            return "stored as a value"
        if any(p.name != "affine.for" for p in _between(user, loop)):
            return f"{user.name} is under a condition"
        a = access_pattern(user, scope)
        if a.index is None or a.uses_iv(ivname):
            return "an index moves with the loop or is unknown"
        accesses.append((user, a))
    if not any(a.is_write for _, a in accesses) or all(a.is_write for _, a in accesses):
        return "nothing to expand"
    if exposed_read(accesses, loop, scope):
        return "an iteration may read an element it did not write before"
    return None


def _schedule(op: ir.Operation, loop: ir.Operation, names: dict) -> list[str]:
    """The position of `op` inside one iteration of `loop` as a 2d+1 schedule: per level the
    index of the op's ancestor in its block, then that ancestor loop's IV (renamed by `names`)."""
    path = []
    at = op
    while at != loop:
        parent = mlir.operation(at.parent)
        block_ops = mlir.block_ops(at.block)
        path.append(str(next(k for k, o in enumerate(block_ops) if o == at)))
        if parent != loop and parent.name == "affine.for":
            path.append(names[mlir.op_key(parent)])
        at = parent
    return list(reversed(path))


def exposed_read(accesses: list, loop: ir.Operation, scope: Scope) -> bool:
    """Whether some read of the buffer, in an iteration of `loop`, may read an element that no
    write earlier in the same iteration wrote (then a value flows between iterations and each
    cannot get its own copy). Exact with isl over the loops inside `loop` (outer loops and
    `loop`'s IV are parameters); unknown shapes count as exposed."""
    import islpy as isl

    from ...analysis.legality import lex_less
    from ...analysis.loops import substitute

    depth = next((k for k, lp in enumerate(accesses[0][1].loops) if lp.op == loop), None)
    if depth is None:
        return True
    params = sorted(scope.params) + [lp.name for lp in accesses[0][1].loops[:depth + 1]]
    head = f"[{', '.join(params)}] -> "
    writes = [(u, a) for u, a in accesses if a.is_write]
    for ru, r in (x for x in accesses if not x[1].is_write):
        inner_r = r.loops[depth + 1:]
        rnames = {mlir.op_key(lp.op): lp.name for lp in inner_r}
        rs = _schedule(ru, loop, rnames)
        dims = [lp.name for lp in inner_r]
        cons_r = [c for lp in inner_r for c in lp.constraints()]
        reads = isl.Set(f"{head}{{ [{', '.join(dims)}] : {' and '.join(cons_r) or 'true'} }}")
        covered = reads.subtract(reads)
        for wu, w in writes:
            inner_w = w.loops[depth + 1:]
            ren = {lp.name: f"{lp.name}_w" for lp in inner_w}
            wnames = {mlir.op_key(lp.op): ren[lp.name] for lp in inner_w}
            ws = _schedule(wu, loop, wnames)
            cons_w = [substitute(c, ren) for lp in inner_w for c in lp.constraints()]
            same = [f"({substitute(wi, ren)}) = ({ri})" for wi, ri in zip(w.index, r.index)]
            n = min(len(ws), len(rs))
            before = lex_less(ws[:n], rs[:n]) if n else "(1 = 0)"
            ex = ", ".join(ren.values())
            body = " and ".join(cons_r + cons_w + same + [before]) or "true"
            text = f"{head}{{ [{', '.join(dims)}] : {f'exists ({ex}: {body})' if ex else body} }}"
            try:
                covered = covered.union(isl.Set(text))
            except isl.Error:
                return True
        if not reads.subtract(covered).is_empty():
            return True
    return False


def _between(op: ir.Operation, loop: ir.Operation) -> list[ir.Operation]:
    """The ops enclosing `op` strictly inside `loop`."""
    out, at = [], mlir.operation(op.parent)
    while at != loop:
        out.append(at)
        at = mlir.operation(at.parent)
    return out


def argument_extent(loop: ir.Operation) -> ir.Value | None:
    """The `memref.dim` of a function argument that `loop`'s upper bound is (the dynamic batch,
    one value per size after the lowering's entry check), else None. A trip count unknown at
    compile time is accepted for expansion only then: the copies are counted in rows of data
    the caller passed, never by an arbitrary index."""
    lbm, ubm = mlir.affine_map_attr(loop, "lowerBoundMap"), mlir.affine_map_attr(loop, "upperBoundMap")
    operands = list(loop.operands)[lbm.n_inputs:lbm.n_inputs + ubm.n_inputs]
    if len(ubm.results) != 1 or len(operands) != 1 or not isinstance(ubm.results[0], (ir.AffineSymbolExpr, ir.AffineDimExpr)):
        return None
    owner, _ = mlir.value_owner(operands[0])
    if owner is None or owner.name != "memref.dim":
        return None
    src, block = mlir.value_owner(owner.operands[0])
    if src is not None or block is None or mlir.operation(block.owner).name != "func.func":
        return None
    return operands[0]


def size_operands_dominate(loop: ir.Operation, alloc: ir.Operation) -> bool:
    """Whether every operand of `loop`'s upper bound is available right after `alloc`: an
    argument of a block enclosing `alloc`, or defined before `alloc` in its block or in a block
    enclosing it (so the new buffer, placed there, can be sized by the trip count)."""
    enclosing = []
    at = alloc
    while at is not None and at.name != "builtin.module":
        enclosing.append(at)
        at = mlir.operation(at.parent) if at.parent is not None else None
    ubm = mlir.affine_map_attr(loop, "upperBoundMap")
    lbm = mlir.affine_map_attr(loop, "lowerBoundMap")
    for v in list(loop.operands)[lbm.n_inputs:lbm.n_inputs + ubm.n_inputs]:
        owner, block = mlir.value_owner(v)
        if owner is None:
            if not any(e.regions and any(b == block for r in e.regions for b in r.blocks) for e in enclosing[1:]):
                return False
            continue
        if not any(_before_in_block(owner, e) for e in enclosing):
            return False
    return True


def _before_in_block(op: ir.Operation, at: ir.Operation) -> bool:
    """Whether `op` comes before `at` in `at`'s block."""
    if op.parent is None or at.parent is None or mlir.operation(op.parent) != mlir.operation(at.parent):
        return False
    for o in mlir.block_ops(at.block):
        if o == op:
            return True
        if o == at:
            return False
    return False


def _trip_count_value(loop: ir.Operation, lo: int, ip: ir.InsertionPoint) -> ir.Value:
    """An index value of the trip count of `loop` (from `lo` to an argument's dimension,
    `argument_extent`) at `ip`: the dimension itself from 0, else `affine.max(dim - lo, 0)` (a
    loop whose upper bound is below its lower bound runs no iteration: no copy)."""
    dim = argument_extent(loop)
    if lo == 0:
        return dim
    m = ir.AffineMap.get(0, 1, [ir.AffineSymbolExpr.get(0) - lo, ir.AffineConstantExpr.get(0)])
    op = ir.Operation.create("affine.max", results=[ir.IndexType.get()], operands=[dim],
                             attributes={"map": ir.AffineMapAttr.get(m)}, ip=ip)
    return op.results[0]


def expand(alloc: ir.Operation, loop: ir.Operation, copies: int | None = None) -> ir.Operation:
    """A new buffer with one copy of `alloc`'s per iteration of `loop`, placed before `alloc`, and
    every access inside `loop` moved to it (index: the iteration first). `copies`: how many
    (the loop's trip count, or a compile-time bound of it); None: the constant trip count, else
    the trip count at run time, a dynamic leading dimension (`memref.alloc(%n)`, the loop's
    upper bound an `argument_extent`). Returns the new alloc."""
    lbm = mlir.affine_map_attr(loop, "lowerBoundMap")
    lo = lbm.results[0].value
    mt = mlir.memref_type(alloc.results[0])
    users = [mlir.operation(u.owner) for u in alloc.results[0].uses]
    accesses = [u for u in users if u.name in ("affine.load", "affine.store") and nested_in(u, loop)]
    at = unit_dim_to_replace(list(mt.shape), [mlir.affine_map_attr(u, "map") for u in accesses])
    bounds = constant_bounds(loop)
    if copies is None and bounds is not None:
        copies = max(0, bounds[1] - bounds[0])
    lead = copies if copies is not None else mlir.DYNAMIC
    shape = [lead] + list(mt.shape) if at is None else [*mt.shape[:at], lead, *mt.shape[at + 1:]]
    iv = loop.regions[0].blocks[0].arguments[0]
    with alloc.context, alloc.location:
        ntype = ir.MemRefType.get(shape, mt.element_type, memory_space=mt.memory_space)
        attrs = {n: a for n, a in alloc.attributes.items() if n != "operandSegmentSizes"}
        sizes = [] if copies is not None else [_trip_count_value(loop, lo, ir.InsertionPoint(alloc))]
        new = ir.Operation.create("memref.alloc", results=[ntype], operands=sizes,
                                  attributes={**attrs, "operandSegmentSizes": ir.DenseI32ArrayAttr.get([len(sizes), 0])},
                                  ip=ir.InsertionPoint(alloc))
        for u in accesses:
            m = mlir.affine_map_attr(u, "map")
            nd = m.n_dims
            first = ir.AffineDimExpr.get(nd) - lo
            rest = list(m.results)
            results = [first, *rest] if at is None else [*rest[:at], first, *rest[at + 1:]]
            nmap = ir.AffineMap.get(nd + 1, m.n_symbols, results)
            mpos = 1 if u.name == "affine.store" else 0
            ops = list(u.operands)
            idx = ops[mpos + 1:]
            new_ops = ops[:mpos] + [new.results[0]] + idx[:nd] + [iv] + idx[nd:]
            if u.name == "affine.load":
                with u.location:
                    rep = ir.Operation.create("affine.load", results=[u.results[0].type], operands=new_ops,
                                              attributes={"map": ir.AffineMapAttr.get(nmap)}, ip=ir.InsertionPoint(u))
                u.results[0].replace_all_uses_with(rep.results[0])
            else:
                with u.location:
                    ir.Operation.create("affine.store", operands=new_ops,
                                        attributes={"map": ir.AffineMapAttr.get(nmap)}, ip=ir.InsertionPoint(u))
            u.erase()
        for u in [mlir.operation(x.owner) for x in alloc.results[0].uses]:
            if u.name == "memref.dealloc":
                with u.location:
                    ir.Operation.create("memref.dealloc", operands=[new.results[0]], ip=ir.InsertionPoint(u))
        return new


def unit_dim_to_replace(shape: list[int], maps: list[ir.AffineMap]) -> int | None:
    """The dimension of size 1 that every access indexes by the constant 0, the first such, where
    the expanded buffer puts the iteration (contraction shrank the loop's own dimension to 1:
    expansion restores the buffer's layout before fusion, 512x1 -> 512x1000 for a transposed
    weight's column per iteration); None: the iteration goes first, before every dimension."""
    for d, size in enumerate(shape):
        if size == 1 and all(d < len(m.results) and _is_zero(m.results[d]) for m in maps):
            return d
    return None


def _is_zero(e) -> bool:
    return isinstance(e, ir.AffineConstantExpr) and ir.AffineConstantExpr(e).value == 0


def _drop_if_unused(alloc: ir.Operation) -> None:
    """Erase a buffer only deallocated, and the trip count computed for its size when nothing
    else uses it."""
    users = [mlir.operation(u.owner) for u in alloc.results[0].uses]
    if all(u.name == "memref.dealloc" for u in users):
        sizes = [mlir.value_owner(v)[0] for v in alloc.operands]
        for u in users:
            u.erase()
        alloc.erase()
        for op in sizes:
            if op is not None and op.name == "affine.max" and not list(op.results[0].uses):
                op.erase()


# ----------------------------------------------------------------------------- the step

def _try_loop(loop: ir.Operation, options: Options, scope: Scope, refusals: list | None = None,
              nests: dict | None = None):
    """(new loops, expanded buffers' shapes, strip, rows) when `loop` was split (strip: the
    iterations per strip when the loop was first cut into strips, else 0; rows: the product was
    found only once expanded, `_rows_contracted`), else None; with `refusals`, why
    a product that expansion would isolate but for the budget stays where it is (appended).
    `nests`: perfect nests already walked in this round (`_perfect_nest`)."""
    band = collect_interchangeable_loops(loop) if nests is None else _interchangeable(loop, nests)
    if not band:
        return None
    stmts = innermost_body(band)
    loops = [s for s in stmts if s.regions]
    products = {mlir.op_key(s) for s in loops if product_updates(s, scope)}
    statements = [s for s in stmts if not is_recomputable(s)]
    if len(statements) < 2:
        return None
    if not products:  # a product whose rows contraction took away is one again once expanded
        if not _rows_contracted(loop, loops, scope, options.sb_budget):
            return None
        return _expanded_only(loop, scope, options.sb_budget)
    from .plan.cpu_plan import reduction_loop_of

    if reduction_loop_of(band[-1], scope) is not None:
        return None  # already the loop around a reduction loop: register tiling takes it as it is
    groups, graph = distribution_groups(loop, scope)
    if len(groups) >= 2 and isolates(groups, products):
        return loop_distribution(loop, groups, scope, graph=graph), [], 0, False
    found = _expand_and_split(loop, scope, options.sb_budget)
    if found is not None:
        return found[0], found[1], 0, False
    strip, why = strip_length(loop, scope, options.sb_budget)
    if strip is None:
        if refusals is not None:  # a product left with other work says why
            refusals.extend([why] if why else expansion_refusals(loop, scope, options.sb_budget))
        return None
    found = _in_strips(loop, scope, options.sb_budget, strip)
    return None if found is None else (*found, strip, False)


def _rows_contracted(loop: ir.Operation, inner: list[ir.Operation], scope: Scope, budget: int) -> bool:
    """Some statement loop of `loop`'s band holds an update `C[x] = C[x] + a * b` of two IVs
    whose C is a buffer `loop` may expand (`expandable_buffers`): contraction shrank a product's
    rows to the one `loop`'s iteration owns (a GEMV per row), and expansion gives it its rows
    back, the loop's IV a third."""
    cands = {mlir.op_key(b) for b in expandable_buffers(loop, scope, budget)}
    if not cands:
        return False
    for stmt in inner:
        for op in [stmt, *mlir.walk(stmt)]:
            if op.name != "affine.store":
                continue
            roles = product_operands(op) if _is_update(op) else None
            if roles is None or not roles[1] or not roles[2]:
                continue
            owner, _ = mlir.value_owner(op.operands[1])
            if owner is not None and mlir.op_key(owner) in cands:
                return True
    return False


def _is_update(store: ir.Operation) -> bool:
    owner, _ = mlir.value_owner(store.operands[0])
    return owner is not None and owner.name in ("arith.addf", "arith.addi")


def _expanded_only(loop: ir.Operation, scope: Scope, budget: int):
    found = _expand_and_split(loop, scope, budget)
    return None if found is None else (found[0], found[1], 0, True)


def _expand_and_split(loop: ir.Operation, scope: Scope, budget: int):
    """(new loops, expanded shapes, new allocs) when expanding `loop`'s buffers (each within
    `budget`) lets distribution isolate the product, else None (nothing changed). Tried on a
    copy of the loop; on success the copy's split replaces `loop`."""
    candidates = expandable_buffers(loop, scope, budget)
    extent = iteration_extent(loop, scope)
    if not candidates:
        return None
    # on a copy: expand there, split if the groups then isolate the product, else drop it
    trial = loop.clone(ip=ir.InsertionPoint(loop))
    expanded, new_allocs = [], []
    for alloc in candidates:  # the copy's accesses move to the new buffer; the original keeps the old
        new = expand(alloc, trial, extent.copies)
        new_allocs.append((alloc, new))
        expanded.append("x".join("?" if d == mlir.DYNAMIC else str(d) for d in mlir.memref_type(new.results[0]).shape))
    tband = collect_interchangeable_loops(trial)
    tstmts = innermost_body(tband)
    tproducts = {mlir.op_key(s) for s in tstmts if s.regions and product_updates(s, scope)}
    groups, graph = distribution_groups(trial, scope)
    if len(groups) >= 2 and isolates(groups, tproducts):
        out = loop_distribution(trial, groups, scope, graph=graph)
        mlir.erase_innermost_first(loop)
        for alloc, _ in new_allocs:
            _drop_if_unused(alloc)
        return out, expanded, [new for _, new in new_allocs]
    mlir.erase_innermost_first(trial)
    for _, new in new_allocs:
        _drop_if_unused(new)
    return None


# ----------------------------------------------------------------------------- strips

def strip_length(loop: ir.Operation, scope: Scope, budget: int) -> tuple[int | None, str]:
    """(the iterations per strip, "") when expanding `loop`'s buffers over all its iterations
    would exceed `budget` but over a strip of at least two would not: the most iterations whose
    copies fit (`budget` over the bytes of one iteration's copies), lowered to a divisor of the
    trip count when one lies within half of that (no remainder strip), else to the length that
    cuts the loop into equal strips. (None, why) when the buffers would be expanded but for the
    budget and no strip fits it (two iterations' copies exceed it, or the bounds are not
    constants); (None, "") when nothing is expandable even without the budget."""
    candidates = expandable_buffers(loop, scope, UNBOUNDED)
    bounds = constant_bounds(loop)
    if not candidates or (bounds is not None and bounds[1] - bounds[0] < 2):
        return None, ""
    per_iteration = sum(copy_bytes(mlir.memref_type(a.results[0])) for a in candidates)
    if bounds is None or mlir.int_attr(loop, "step") != 1:
        return None, (f"expanding its buffers ({per_iteration} bytes per iteration) would exceed the budget "
                      f"({budget} bytes), and the loop's bounds are not constants to cut it into strips")
    trips = bounds[1] - bounds[0]
    most = budget // per_iteration
    if most >= trips:
        return None, ""
    if most < 2:
        return None, (f"two iterations' copies of its buffers ({2 * per_iteration} bytes) exceed the budget "
                      f"({budget} bytes)")
    return strip_of(trips, most), ""


UNBOUNDED = 1 << 62  # a budget no buffer exceeds: what expansion would take but for its size


def strip_of(trips: int, most: int) -> int:
    """A strip length of at most `most` for `trips` iterations: the largest divisor of `trips` in
    [most / 2, most] (every strip whole), else `trips` cut into equal strips (the last shorter)."""
    for s in range(most, (most + 1) // 2 - 1, -1):
        if s >= 2 and trips % s == 0:
            return s
    strips = -(-trips // most)
    return -(-trips // strips)


def _with_bounds(loop: ir.Operation, lo: int, hi: int) -> ir.Operation:
    """A copy of the constant-bound `loop` (before it) running from `lo` to `hi`."""
    copy = loop.clone(ip=ir.InsertionPoint(loop))
    copy.attributes["lowerBoundMap"] = ir.AffineMapAttr.get(ir.AffineMap.get_constant(lo))
    copy.attributes["upperBoundMap"] = ir.AffineMapAttr.get(ir.AffineMap.get_constant(hi))
    return copy


def _privatize(loop: ir.Operation, allocs: list[ir.Operation]) -> list[ir.Operation]:
    """A buffer of its own for `loop` in place of each of `allocs` (allocated before it, freed
    where it is): legal for a buffer no iteration reads before writing it in that iteration
    (expansion_refusal), since no value then flows through it between loops. Returns the new
    allocs."""
    out = []
    for alloc in allocs:
        copy = alloc.clone(ip=ir.InsertionPoint(alloc))
        users = [(mlir.operation(u.owner), u.operand_number) for u in alloc.results[0].uses]
        for user, k in users:
            if user.name == "memref.dealloc":
                free = user.clone(ip=ir.InsertionPoint(user))
                free.operands[0] = copy.results[0]
            elif nested_in(user, loop):
                user.operands[k] = copy.results[0]
        out.append(copy)
    return out


def _in_strips(loop: ir.Operation, scope: Scope, budget: int, strip: int):
    """(new loops, expanded shapes) when `loop`, cut into strips of `strip` iterations (whole
    strips, then the iterations left over in a loop of their own: the same iterations in the same
    order), has each strip's buffers expanded and split; else None (nothing changed). Each
    strip's copies fit `budget`; the strip loop steps over the strips around the split. The
    pieces are built beside `loop` with buffers of their own (`_privatize`), so that each piece's
    buffers are used by it alone; `loop` goes once every piece is split."""
    from ...transforms.tiling import loop_tiling

    candidates = expandable_buffers(loop, scope, UNBOUNDED)
    lo, hi = constant_bounds(loop)
    main = lo + (hi - lo) // strip * strip
    pieces, private = [], []
    if main - lo > strip:
        head = _with_bounds(loop, lo, main)
        private += _privatize(head, candidates)
        tile, point = loop_tiling(head, strip)
        pieces.append((tile, point))
    elif main > lo:  # one whole strip: no loop over strips (a loop of one iteration would be split off)
        head = _with_bounds(loop, lo, main)
        private += _privatize(head, candidates)
        pieces.append((head, head))
    if hi > main:
        rest = _with_bounds(loop, main, hi)
        private += _privatize(rest, candidates)
        pieces.append((rest, rest))
    built, expanded, made = [], [], list(private)  # the split pieces' loops, shapes, buffers
    for k, (top, inner) in enumerate(pieces):
        found = _expand_and_split(inner, scope, budget)
        if found is None:  # put everything back: the pieces (split or not) and their buffers go
            for op in built + [t for t, _ in pieces[k:]]:
                mlir.erase_innermost_first(op)
            for a in made:
                _drop_if_unused(a)
            return None
        built += [top] if top is not inner else found[0]
        expanded += found[1]
        made += found[2]
    mlir.erase_innermost_first(loop)
    for alloc in candidates:
        _drop_if_unused(alloc)
    return built, expanded


def isolate_products_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Split the loops that hold a matrix product with other work (module doc); returns the
    number of loops split."""
    if mlir.func_body(fn) is None or not options.enable_loop_distribution:
        return 0
    with fn.context:
        return _isolate(fn, options, log, filename)


def _isolate(fn: ir.Operation, options: Options, log: RemarkLog, filename: str) -> int:
    fname = mlir.func_name(fn)
    rewriter = Rewriter()
    count, tried, said = 0, set(), set()
    for _ in range(MAX_ROUNDS):
        scope = Scope()
        nests: dict = {}
        counts = _loop_counts(fn)
        for loop in [o for o in mlir.walk(fn) if o.name == "affine.for"]:
            key = (mlir.op_key(loop), str(loop.location))
            if key in tried:
                continue
            tried.add(key)
            where = mlir.location_of(loop, filename)
            before = [counts[mlir.op_key(loop)]]
            refusals: list[str] = []
            result = rewriter.replace([loop], lambda loop=loop: _wrap(_try_loop(loop, options, scope, refusals, nests)))
            for why in refusals:  # a budget never keeps a product in place silently; said once per place
                if (where, why) not in said:
                    said.add((where, why))
                    log.add(PASS, MISSED, f"{STOP} {why}", function=fname, location=where, args={"reason": why})
            if result is None:
                continue
            new_loops, expanded, strip, rows = result[0], result[1], result[2], result[3]
            text = f"[PRODUCT ISOLATION] loop split into {len(new_loops)} loops: a matrix product in a nest of its own"
            if strip:
                text = (f"[PRODUCT ISOLATION] loop cut into strips of {strip} iterations, each split: a matrix product "
                        f"in a nest of its own (all iterations' copies would exceed the budget, {options.sb_budget} bytes)")
            if expanded:
                text += f" (buffer expanded per {'strip' if strip else 'iteration'} to {', '.join(expanded)})"
            if rows:
                text += "; the product's rows, contracted to the one each iteration owns, are the loop's again"
            log.add(PASS, PASSED, text, function=fname, location=where,
                    args={"loops": len(new_loops), "expanded": expanded, "strip": strip, "rows_restored": rows,
                          "loops_added": sum(1 for lp in new_loops for o in [lp, *mlir.walk(lp)]
                                             if o.name == "affine.for") - before[0]})
            count += 1
            break
        else:
            return count
    return count


def _perfect_nest(loop: ir.Operation, memo: dict) -> list[ir.Operation]:
    """`loops.perfect_nest(loop)`, each nest walked once per round: the nest of a loop's only inner
    loop is the rest of its own (a 500-deep nest is not walked from every level)."""
    chain, cur = [], loop
    while True:
        rest = memo.get(mlir.op_key(cur))
        if rest is not None:
            break
        chain.append(cur)
        ops = body_ops(cur)
        if len(ops) != 1 or ops[0].name != "affine.for":
            rest = []
            break
        cur = ops[0]
    full = chain + rest
    for k, lp in enumerate(chain):
        memo[mlir.op_key(lp)] = full[k:]
    return full


def _interchangeable(loop: ir.Operation, memo: dict) -> list[ir.Operation]:
    """`loops.collect_interchangeable_loops(loop)` on the memoized perfect nest."""
    out = []
    for lp in _perfect_nest(loop, memo):
        if len(lp.results):
            break
        out.append(lp)
    return out


def _loop_counts(fn: ir.Operation) -> dict:
    """The affine.for ops in each affine.for of `fn` (itself included), by op key: one walk."""
    loops = [o for o in mlir.walk(fn) if o.name == "affine.for"]
    counts = {mlir.op_key(o): 1 for o in loops}
    for o in reversed(loops):  # inner loops come after their parents in the walk
        p = o.parent
        while p is not None and p.name not in ("affine.for", "func.func"):
            p = p.parent
        if p is not None and p.name == "affine.for":
            counts[mlir.op_key(p)] += counts[mlir.op_key(o)]
    return counts


def _wrap(result):
    """rewriter.replace's build protocol: the new loops per replaced op (None: unchanged); the
    expanded shapes and the strip length ride along."""
    if result is None:
        return None
    loops, expanded, strip, rows = result
    return [loops, expanded, strip, rows]


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `isolate-products` (loopopt/pipeline.py)."""
    return isolate_products_function(fn, ctx.options, ctx.log, ctx.filename)
