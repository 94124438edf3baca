"""B packed per column block (cpu): the plan. A transposing copy that fills a whole local buffer
for a register tile is made once per column block of the product, into one small buffer.

torch's Linear with its weight as an input (`x @ W^T`) reaches the register tile as

    C: T[r, e] = W[e, r]            (a nest over all of T, R x N; block-transposes' tiles)
    L: for jb = .. step NB {        (the tile's column blocks: every row tile reads B's
         ... T[r, jb + c] ...        columns jb .. jb + NB only)
       }

so the whole transposed weight is written to memory and read back. As BLIS packs B, the copy
can run at the head of each block instead, restricted to the block's columns, into one buffer
of R x NB that every block reuses:

    L: for jb { C': T'[r, e - jb] = W[e, r] for the iterations of C with jb <= e < jb + NB
                ... T'[r, jb + c - jb] ... }

C' is a clone of C whose outermost loop that moves T's column (`col_loop`, constant bounds)
runs `0 to NB step s` with its old counter replaced by `new + jb`. Every access of T becomes
`T'[r, e - jb]`. `plan_block_packing` takes a buffer only where that is exact:

* T is a rank-2 static `memref.alloc` of the identity layout a register tile reads as B
  (`panel_layout.tile_panel`), and every use of it is the one store of C, an affine load or
  vector load inside L, or a dealloc (`OTHER_USE`: no view, call, other reader or writer);
* C is nothing but the copy: loops without iter_args, `affine.apply`, one `affine.load` of a
  buffer W that is not T, and the store of its value to T (`NOT_A_COPY`);
* L is the loop in C's block, after C, that holds every read of T, with a step NB > 1 smaller
  than T's columns (`NO_BLOCK_LOOP`: the copy runs once per iteration of L, so L must be the
  product's outermost loop, the tile's column blocks; a row or reduction loop around the blocks
  would repeat the copy);
* nothing from C to the end of L writes a buffer that may be W, and nothing there has effects
  that are not modelled (`SOURCE_WRITTEN`): each W element C' reads holds what C read;
* C's store is one to one over C's iterations (isl: no two iterations write one element), C''s
  iterations are iterations of C (the clone's counter `new + jb` within C's bounds and step),
  every element of T the block reads is written by C' in the same iteration of L, and every
  element C' writes lies in the block's columns (`PARTIAL`, all isl, exact): so each element a
  load reads was written by C' from the same W element as by C, before the load, in this block.

C writes T and nothing else, and only L reads T: C is erased. Each element moves unchanged, and
the product reads the same values in the same order: bit-exact. The copy's tiles stay as they
are (`transpose-tiles` turns each into a W x W vector transpose afterwards).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from .... import mlir
from ....analysis.accesses import access_pattern
from ....analysis.affine import Scope
from ....analysis.effects import op_effects
from ....analysis.loops import body_block, body_ops, constant_bounds, domain_loops, enclosing_loops, loop_dims
from ....analysis.memory import keys_may_alias
from ....analysis.refusal import Refusal
from ....mlir import ir
from .panel_layout import tile_panel

READ_OPS = ("affine.load", "affine.vector_load")
COPY_OPS = ("affine.for", "affine.yield", "affine.apply", "affine.load", "affine.store")


class PackCode(enum.Enum):
    """Why a transposed B stays one whole buffer (the remark)."""

    OTHER_USE = "[STOP PACK B] the buffer has a use other than the copy, the product's loads and its dealloc"
    NOT_A_COPY = "[STOP PACK B] the nest that fills the buffer is not a plain copy"
    NO_BLOCK_LOOP = "[STOP PACK B] no column-block loop beside the copy holds every read of the buffer"
    SOURCE_WRITTEN = "[STOP PACK B] the copy's source may be written before the product's last read"
    PARTIAL = "[STOP PACK B] the copy per block would not write exactly what the block reads"

    @property
    def message(self) -> str:
        return self.value


@dataclass
class BlockPacking:
    """Pack `alloc`'s buffer (rows x cols) per iteration of `block` (step `width`): `copy` the
    nest that fills it (its `store` of `load`), `col_loop` the copy's loop that moves the column,
    `reads` the product's loads, `deallocs` its frees. With `refusal`, the buffer stays."""

    alloc: ir.Operation
    rows: int = 0
    cols: int = 0
    width: int = 0
    copy: ir.Operation | None = None
    load: ir.Operation | None = None
    store: ir.Operation | None = None
    col_loop: ir.Operation | None = None
    block: ir.Operation | None = None
    reads: tuple = ()
    deallocs: tuple = ()
    refusal: Refusal | None = None


def _refuse(alloc, code: PackCode, detail: str, *ops) -> BlockPacking:
    return BlockPacking(alloc, refusal=Refusal(code, detail, (alloc, *ops)))


def _nested_in(op: ir.Operation, outer: ir.Operation) -> bool:
    """`op` is `outer` or lies inside it."""
    key = mlir.op_key(outer)
    return mlir.op_key(op) == key or any(mlir.op_key(lp) == key for lp in enclosing_loops(op))


def _copy_nest(store: ir.Operation) -> tuple[ir.Operation | None, ir.Operation | str]:
    """(the outermost loop around `store` that is a plain copy, its load), or (the store's
    innermost loop, why it is not a copy); (None, why) outside loops."""
    loops = enclosing_loops(store)
    if not loops:
        return None, "the store is not in a loop"
    found = None
    for lp in reversed(loops):
        load = _is_plain_copy(lp, store)
        if isinstance(load, str):
            return (found if found is not None else (lp, load))
        found = (lp, load)
    return found


def _is_plain_copy(nest: ir.Operation, store: ir.Operation) -> ir.Operation | str:
    """The copy's load when `nest` is loops, applies, one load and `store` of its value (module
    doc), else why not."""
    loads, stores = [], []
    for op in mlir.walk(nest):
        if op.name not in COPY_OPS:
            return f"{op.name} at {mlir.location_of(op)}"
        if op.name == "affine.for" and list(op.results):
            return f"a loop carrying values at {mlir.location_of(op)}"
        (loads if op.name == "affine.load" else stores if op.name == "affine.store" else []).append(op)
    if len(loads) != 1 or stores != [store] or store.operands[0] != loads[0].results[0] \
            or len(list(loads[0].results[0].uses)) != 1:
        return f"{len(loads)} loads and {len(stores)} stores"
    return loads[0]


def _column_block_of(load: ir.Operation, block: ir.Operation) -> bool:
    """`load` walks B's columns from `block`'s counter: its column loop is `block` or starts at
    `block`'s counter (the register tile's column blocks)."""
    from .constant_panels import column_walk

    walk = column_walk(load)
    if walk is None:
        return False
    if mlir.op_key(walk.j_loop) == mlir.op_key(block):
        return True
    iv = body_block(block).arguments[0]
    return any(v == iv for v in walk.j_loop.operands)


def column_loop(nest: ir.Operation, store: ir.Operation, scope: Scope) -> ir.Operation | None:
    """The outermost loop of the copy nest whose counter moves the store's column."""
    a = access_pattern(store, scope)
    for lp in enclosing_loops(store):
        if not _nested_in(lp, nest):
            continue
        if a.uses_iv(loop_dims(lp, scope)[0].name, dim=1):
            return lp
    return None


def plan_block_packing(alloc: ir.Operation, scope: Scope) -> BlockPacking | None:
    """The plan (or refusal) for the local B buffer `alloc` (module doc), None when the product
    has no column blocks (L's counter does not move T's column: no remark); the isl checks that
    need the clone are `check_clone`'s."""
    rows, cols = mlir.memref_type(alloc.results[0]).shape
    stores, reads, deallocs = [], [], []
    for use in alloc.results[0].uses:
        user = mlir.operation(use.owner)
        if user.name == "memref.dealloc":
            deallocs.append(user)
        elif user.name == "affine.store" and use.operand_number == 1:
            stores.append(user)
        elif user.name in READ_OPS and use.operand_number == 0:
            reads.append(user)
        else:
            return _refuse(alloc, PackCode.OTHER_USE, f"{user.name} at {mlir.location_of(user)}", user)
    if len(stores) != 1 or not reads:
        return _refuse(alloc, PackCode.OTHER_USE, f"{len(stores)} stores and {len(reads)} loads")
    store = stores[0]
    nest, load = _copy_nest(store)
    if nest is None or isinstance(load, str):
        return _refuse(alloc, PackCode.NOT_A_COPY, load, *(x for x in [nest] if x is not None))
    if load.operands[0] == alloc.results[0]:
        return _refuse(alloc, PackCode.NOT_A_COPY, "the copy reads the buffer itself", nest)
    # L: the loop beside the copy (in its block) around every read.
    beside = [lp for lp in enclosing_loops(reads[0]) if lp.operation.block == nest.operation.block]
    block = beside[0] if beside else None
    if block is None or not all(_nested_in(r, block) for r in reads):
        return _refuse(alloc, PackCode.NO_BLOCK_LOOP, f"no loop in the block of the copy at {mlir.location_of(nest)} "
                       "holds every read", nest)
    if not any(_column_block_of(r, block) for r in reads):
        return None  # L is not a column loop: the tile takes no column blocks (B fits half of L2)
    if not 1 < mlir.int_attr(block, "step") < cols:
        return _refuse(alloc, PackCode.NO_BLOCK_LOOP, f"the loop at {mlir.location_of(block)} steps by "
                       f"{mlir.int_attr(block, 'step')}, not by a column block narrower than the buffer", block)
    ops = _block_of(nest)
    at_copy, at_block = _index(ops, nest), _index(ops, block)
    if at_block < at_copy:
        return _refuse(alloc, PackCode.NO_BLOCK_LOOP, "the product runs before the copy", block)
    wkey = access_pattern(load, scope).key
    for op in ops[at_copy + 1:at_block + 1]:
        eff = op_effects(op)
        if eff.unknown:
            return _refuse(alloc, PackCode.SOURCE_WRITTEN, f"{op.name} at {mlir.location_of(op)} has effects that "
                           "are not modelled", op)
        if any(keys_may_alias(k, wkey) for k in eff.writes):
            return _refuse(alloc, PackCode.SOURCE_WRITTEN, f"{op.name} at {mlir.location_of(op)} writes a buffer "
                           "that may be the source", op)
    col = column_loop(nest, store, scope)
    if col is None or constant_bounds(col) is None:
        return _refuse(alloc, PackCode.PARTIAL, "no loop of the copy with constant bounds moves the column", nest)
    return BlockPacking(alloc, rows, cols, mlir.int_attr(block, "step"), nest, load, store, col, block,
                        tuple(reads), tuple(deallocs))


def _block_of(op: ir.Operation) -> list[ir.Operation]:
    """The ops of the block holding `op`."""
    return [mlir.operation(o) for o in op.operation.block.operations]


def _index(ops: list[ir.Operation], op: ir.Operation) -> int:
    for k, o in enumerate(ops):
        if mlir.op_key(o) == mlir.op_key(op):
            return k
    return -1


def _isl_set(dims: list[str], cons: list[str], scope: Scope):
    import islpy as isl

    params = sorted(scope.params)
    return isl.Set(f"[{', '.join(params)}] -> {{ [{', '.join(dims)}] : {' and '.join(cons or ['1 = 1'])} }}")


def _elements(op: ir.Operation, outer: list[str], scope: Scope):
    """{ [outer..., r, e] } the elements of T `op` touches (a vector access: its lanes along e),
    the loops inside `outer` projected out."""
    import islpy as isl

    a = access_pattern(op, scope)
    if a.index is None or len(a.index) != 2:
        return None
    inner = [lp for lp in a.loops if lp.name not in outer]
    lanes = a.extents()[1]
    cons = [c for lp in a.loops for c in lp.constraints()]
    cons += [f"r_ = {a.index[0]}", f"e_ >= {a.index[1]}", f"e_ < {a.index[1]} + {lanes}"]
    dims = outer + [lp.name for lp in inner] + ["r_", "e_"]
    try:
        s = _isl_set(dims, cons, scope)
    except isl.Error:
        return None
    return s.project_out(isl.dim_type.set, len(outer), len(inner))


def check_clone(plan: BlockPacking, clone_store: ir.Operation, clone_col: ir.Operation, scope: Scope) -> Refusal | None:
    """The exactness checks of the module doc on the built clone (at the head of the block loop;
    `clone_store` its store, `clone_col`'s counter plus jb stands for the copy's column counter).
    None when exact."""
    import islpy as isl

    def refuse(detail: str) -> Refusal:
        return Refusal(PackCode.PARTIAL, detail, (plan.alloc, plan.copy))

    block = plan.block
    outer_loops = domain_loops(block, scope) + loop_dims(block, scope)
    outer = [lp.name for lp in outer_loops]
    jb = outer[-1]
    try:
        # C's store is one to one over C's iterations (each iteration of the loops around C).
        a0 = access_pattern(plan.store, scope)
        if a0.index is None:
            return refuse("the copy's store index is not affine")
        names0 = [lp.name for lp in a0.loops]
        cons0 = [c for lp in a0.loops for c in lp.constraints()]
        params = sorted(scope.params)
        fixed = [lp.name for lp in a0.loops if not _nested_in(lp.op, plan.copy)]  # the loops around C
        m = isl.Map(f"[{', '.join(params)}] -> {{ [{', '.join(names0)}] -> [{', '.join(fixed + list(a0.index))}] : "
                    f"{' and '.join(cons0 or ['1 = 1'])} }}")
        if not m.is_injective():
            return refuse("two iterations of the copy may write one element")
        # C' iterations are iterations of C: map the clone's loops onto C's by position.
        ac = access_pattern(clone_store, scope)
        inner_c = [lp for lp in ac.loops if lp.name not in outer]
        inner_0 = [lp for lp in a0.loops if _nested_in(lp.op, plan.copy)]
        if len(inner_c) != len(inner_0):
            return refuse("the clone's loops do not match the copy's")
        ren = {}
        for lp0, lpc in zip(inner_0, inner_c):
            ren[lp0.name] = (f"({lpc.name} + {jb})" if lpc.op == clone_col else lpc.name)
        from ....analysis.loops import substitute
        dims = outer + [lp.name for lp in inner_c]
        clone_dom = _isl_set(dims, [c for lp in ac.loops for c in lp.constraints()], scope)
        orig_dom = _isl_set(dims, [substitute(c, ren) for lp in inner_0 for c in lp.constraints()], scope)
        if not clone_dom.is_subset(orig_dom):
            return refuse("the copy per block would run iterations the copy does not have")
        written = _elements(clone_store, outer, scope)
        if written is None:
            return refuse("the clone's store is not modelled")
        read = None
        for r in plan.reads:
            s = _elements(r, outer, scope)
            if s is None:
                return refuse(f"{r.name} at {mlir.location_of(r)}: its index is not affine")
            read = s if read is None else read.union(s)
        outer_cons = [c for lp in outer_loops for c in lp.constraints()]
        window = _isl_set(outer + ["r_", "e_"], outer_cons + [f"e_ >= {jb}", f"e_ < {jb} + {plan.width}",
                                                              "r_ >= 0", f"r_ < {plan.rows}"], scope)
        if not read.is_subset(written):
            return refuse("the block reads an element its copy does not write before")
        if not written.is_subset(window):
            return refuse("the copy per block writes outside the block's columns")
    except isl.Error as e:
        return refuse(f"not modelled ({str(e).splitlines()[0] if str(e) else 'isl'})")
    return None


def plan_block_packings(fn: ir.Operation) -> list[BlockPacking]:
    """A BlockPacking (or refusal) per local buffer of `fn` a register tile reads as B."""
    scope = Scope()
    seen: set = set()
    out = []
    for op in mlir.walk(fn):
        found = tile_panel(op) if op.name == "affine.vector_load" else None
        if found is None:
            continue
        alloc, _ = found
        if mlir.op_key(alloc) in seen:
            continue
        seen.add(mlir.op_key(alloc))
        plan = plan_block_packing(alloc, scope)
        if plan is not None:
            out.append(plan)
    return out
