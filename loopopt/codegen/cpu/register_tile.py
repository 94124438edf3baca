"""Register tiling of reduction nests (cpu): a tile of C in registers across the whole reduction.

Applies a `cpu_plan.TilePlan` (the rule and its legality are in codegen/cpu/plan/cpu_plan.py). For the
nest `Q: for i { P: for j { pro(i, j); for k iter_args(acc) { acc = acc + f(i, j, k) }; epi } }`
it builds, in place of Q (or of P when no row loop is jammed):

    for i0 = lbQ to mainQ step MR            // MR rows (the rows loop; absent: rows = [i])
      for j0 = lbP to mainP step NV * W      // NV vectors of W lanes per row
        pro for each row and vector           // loads that move with j: affine.vector_load
        for k iter_args(MR x NV accumulators of vector<W x T>) {
          loads of A once per row (scalar, broadcast), of B once per vector (shared by the rows)
          acc[m][c] = acc[m][c] + ...         // the body's own ops, per lane
        }
        epi for each row and vector           // stores that move with j: affine.vector_store
      for j0 = mainP to mainP' step W        // the column remainder: one vector at a time
      for j = mainP' to ubP                  // then scalar, the rows jammed
    for i = mainQ to ubQ                      // the row remainder: the same sweep for one row

`mainQ = lbQ + ((ubQ - lbQ) floordiv MR) * MR` (symbolic bounds work the same). Every lane runs
exactly its own iteration's ops in their order, each on its own values: results are bit-exact,
except where the plan contracts `acc + x * y` into `math.fma` (options.contract). Ops that do
not move with j are emitted once per row (a load of A[i, k]: scalar, broadcast where a lane
needs it), ops that do not move with i once for all rows (a vector of B[k, j]).

An op on lanes that reads P's counter as data reads `broadcast(j0) + [0, 1, .., W-1]`, the
iterations of its lanes; the counters of R and Q, the same in every lane, are broadcast.

With width 1 (accesses strided along P) the same code makes NV scalar copies instead of vector
lanes: independent accumulation chains for an ordered float sum that LLVM keeps in order.

Remarks (pass `register-tile`): `[REGISTER TILING] ...` (Passed) per tiled nest, with the tile,
the vectors and the reason the rows are 1 when they are; `[STOP REGISTER TILING] ...` (Missed)
per refused nest, with the plan's code; `[STOP COLUMN BLOCKS] ...` (Missed) beside the Passed
remark of a nest tiled without the column blocks its size asked for (`TilePlan.block_refusal`).
"""
from __future__ import annotations

import dataclasses

from ... import mlir
from ...analysis.facts import Facts
from ...analysis.loops import body_block, body_ops, constant_bounds, constant_trip_count, loop_bound
from ...mlir import affine_d, ir
from ...options import Options
from ...remarks import PASSED, RemarkLog
from ...transforms.dead_carried import DEAD, dead_positions, dead_slice, drop_carried
from ...transforms.rewriter import Rewriter
from .flat_rows import flatten_rows_function
from ...transforms.unit_loops import promote_unit_loop, runs_once
from .plan.cpu_plan import (LANE_REDUCTIONS, Lanes, TilePlan, _multiply_add, is_hot, lanes_of, nest_iterations, unit_tail,
                             plan_register_tiles)
from ...step import StepContext

PASS = "register-tile"
TILED = "[REGISTER TILING]"


# ----------------------------------------------------------------------------- bounds

def multiple_bound(lb: tuple, ub: tuple, step: int) -> tuple[ir.AffineMap, list[ir.Value]]:
    """`lb + ((ub - lb) floordiv step) * step` as one affine map and its operands: the end of
    the iterations that fill whole steps (dims of both maps first, then their symbols)."""
    (lm, lops), (um, uops) = lb, ub
    if step == 1:
        return um, uops
    nd1, ns1, nd2, ns2 = lm.n_dims, lm.n_symbols, um.n_dims, um.n_symbols
    e1 = lm.results[0]
    e2 = um.results[0].shift_dims(nd2, nd1).shift_symbols(ns2, ns1)
    expr = e1 + ir.AffineExpr.get_floor_div(e2 - e1, step) * step
    expr = ir.AffineExpr.simplify_affine_expr(expr, nd1 + nd2, ns1 + ns2)
    amap = ir.AffineMap.get(nd1 + nd2, ns1 + ns2, [expr])
    return amap, lops[:nd1] + uops[:nd2] + lops[nd1:] + uops[nd2:]


def at_least(bound: tuple, floor: tuple) -> tuple[ir.AffineMap, list[ir.Value]]:
    """`max(floor, bound)` as a lower-bound map (a lower bound with several results is their
    maximum). A loop that starts where `multiple_bound` ended must also start at or above the
    original lower bound: when the original loop runs zero times (ub < lb, e.g. `1 to %n` with
    %n = 0), `lb + ((ub - lb) floordiv step) * step` lies below lb and a remainder loop from
    there to ub would run iterations the original never ran."""
    a, b = _constant(bound), _constant(floor)
    if a is not None and b is not None:
        return bound if a >= b else floor
    (fm, fops), (bm, bops) = floor, bound
    nd1, ns1, nd2, ns2 = fm.n_dims, fm.n_symbols, bm.n_dims, bm.n_symbols
    exprs = [fm.results[0], bm.results[0].shift_dims(nd2, nd1).shift_symbols(ns2, ns1)]
    amap = ir.AffineMap.get(nd1 + nd2, ns1 + ns2, exprs)
    return amap, fops[:nd1] + bops[:nd2] + fops[nd1:] + bops[nd2:]


def _never_negative(expr, operands: list[ir.Value], n_dims: int) -> bool:
    """True iff the affine expression is >= 0 for every value of its operands, by its form: a
    constant >= 0, an operand that is a `memref.dim` (a size), or sums, products by constants >= 0
    and floor divisions by constants > 0 of such."""
    if isinstance(expr, ir.AffineConstantExpr):
        return ir.AffineConstantExpr(expr).value >= 0
    if isinstance(expr, (ir.AffineDimExpr, ir.AffineSymbolExpr)):
        pos = (ir.AffineDimExpr(expr).position if isinstance(expr, ir.AffineDimExpr)
               else n_dims + ir.AffineSymbolExpr(expr).position)
        owner, _ = mlir.value_owner(operands[pos])
        return owner is not None and owner.name == "memref.dim"
    if isinstance(expr, ir.AffineAddExpr):
        e = ir.AffineAddExpr(expr)
        return _never_negative(e.lhs, operands, n_dims) and _never_negative(e.rhs, operands, n_dims)
    for cls in (ir.AffineMulExpr, ir.AffineFloorDivExpr):
        if isinstance(expr, cls):
            e = cls(expr)
            c = e.rhs
            return (isinstance(c, ir.AffineConstantExpr) and ir.AffineConstantExpr(c).value >= (cls is ir.AffineFloorDivExpr)
                    and _never_negative(e.lhs, operands, n_dims))
    return False


def start_of_rest(main: tuple, lb: tuple, ub: tuple) -> tuple[ir.AffineMap, list[ir.Value]]:
    """The lower bound of the loop over the iterations `multiple_bound(lb, ub, step)` (= `main`)
    leaves over: `main` itself when `ub >= lb` for every value of the operands (then
    `main = lb + ((ub - lb) floordiv step) * step >= lb`), shown by `lb` a constant <= 0 and `ub`
    one result that is never negative (`_never_negative`: a dynamic size); else
    `at_least(main, lb)`. A single bound lets the register tiler tile the loop (a rows loop whose
    lower bound is a `max` keeps one row per step)."""
    lo, (um, uops) = _constant(lb), ub
    if lo is not None and lo <= 0 and len(um.results) == 1 and _never_negative(um.results[0], uops, um.n_dims):
        return main
    return at_least(main, lb)


def _constant(bound: tuple) -> int | None:
    m, _ = bound
    if len(m.results) != 1:
        return None
    e = m.results[0]
    return e.value if isinstance(e, ir.AffineConstantExpr) else None


def _offset_index(base: ir.Value, offset: int, ip, loc) -> ir.Value:
    """`base + offset` as an affine.apply (base itself for 0)."""
    if offset == 0:
        return base
    with loc:
        d0 = ir.AffineDimExpr.get(0)
        amap = ir.AffineMap.get(1, 0, [d0 + offset])
        return affine_d.AffineApplyOp(amap, [base], ip=ip).result


# ----------------------------------------------------------------------------- lane copies

def op_moves(op: ir.Operation, moves) -> bool:
    """Whether `op` moves with a loop (`moves`: Lanes.varies or Lanes.by_row): a result does,
    or, for an op without results (a store), an operand does."""
    results = list(op.results)
    return any(moves(v) for v in (results if results else op.operands))


def row_value(rowmaps: list[dict], m: int, v: ir.Value) -> ir.Value:
    """Row m's copy of `v`: its own when Q's body computes `v` per row, row 0's when once for
    all rows, else `v` itself (defined outside Q)."""
    return rowmaps[m].get(v, rowmaps[0].get(v, v))


def _collapsed_tail(mem: ir.Value, k: int, loc) -> ir.Value:
    """`memref.collapse_shape` of `mem` (identity layout) without its last `k` dimensions of size
    1, right after `mem` is defined (at the top of the block of an argument); an existing one
    there is reused."""
    mt = mlir.memref_type(mem)
    keep = mt.rank - k
    owner, block = mlir.value_owner(mem)
    for u in mem.uses:
        user = mlir.operation(u.owner)
        if (user.name == "memref.collapse_shape" and mlir.memref_type(user.results[0]).rank == keep
                and user.parent == (owner.parent if owner is not None else block.owner)):
            return user.results[0]
    if owner is None:
        ip = ir.InsertionPoint(mlir.block_ops(block)[0])
    else:
        ip, loc = ir.InsertionPoint.after(owner), owner.location
    groups = [[d] for d in range(keep - 1)] + [list(range(keep - 1, mt.rank))]
    with loc:
        vt = ir.MemRefType.get(list(mt.shape)[:keep], mt.element_type, memory_space=mt.memory_space)
        i64 = ir.IntegerType.get_signless(64)
        attr = ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in g]) for g in groups])
        return ir.Operation.create("memref.collapse_shape", results=[vt], operands=[mem],
                                   attributes={"reassociation": attr}, ip=ip).result


class _Sweep:
    """Emits the copies of P's body for `rows` rows x blocks of `widths[c]` lanes (block c):
    one width for all blocks, or whole vectors and a narrower last one (a joint step)."""

    def __init__(self, plan: TilePlan, lanes: Lanes, rowmaps: list[dict], widths: tuple[int, ...]) -> None:
        self.plan, self.lanes, self.rowmaps = plan, lanes, rowmaps
        self.widths, self.nv = tuple(widths), len(widths)
        self.env: dict = {}  # (row, block) -> {old value: new value}
        self.bcast: dict = {}  # (value, block) -> broadcast
        self.fused = {mlir.op_key(m) for r in plan.all_reductions for m in [_multiply_add(r)]
                      if plan.fma and m is not None}
        self.skip = {mlir.op_key(x) for m in plan.in_memory for x in (m.load, m.store)}
        self.piv = body_block(plan.loop).arguments[0]
        self.band = {mlir.op_key(b) for b in (plan.band or (plan.reduction_loop,))}
        self.unrolled = {mlir.op_key(b) for b in plan.unrolled}
        self.strided = {mlir.op_key(x) for x in plan.strided}
        self.gathered = {mlir.op_key(x) for x in plan.gathered}  # never with a mask (masked_tail_refusal)
        self.masks: dict = {}  # vector -> the lanes that exist (a masked tail); absent: all of them

    def lane_memref(self, op: ir.Operation, mem: ir.Value) -> tuple[ir.Value, ir.AffineMapAttr]:
        """The buffer and map a lane access (vector load or store) of `op` reads through: `mem`
        and op's map, or, when `mem` ends in dimensions of size 1 (`cpu_plan.unit_tail`), a
        `memref.collapse_shape` of it without them (made once, where `mem` is defined) and the map
        without their results (an in-bounds index of them is 0): the vector then runs along the
        last dimension that is not one of them, inside the buffer."""
        amap = ir.AffineMapAttr(op.attributes["map"]).value
        k = unit_tail(mem)
        if not k:
            return mem, ir.AffineMapAttr(op.attributes["map"])
        cut = ir.AffineMap.get(amap.n_dims, amap.n_symbols, list(amap.results)[:len(amap.results) - k])
        return _collapsed_tail(mem, k, op.location), ir.AffineMapAttr.get(cut)

    # which copies an op needs: per row if it moves with Q, per block if it moves with P
    def rows_of(self, op: ir.Operation) -> range:
        return range(len(self.rowmaps)) if op_moves(op, self.lanes.by_row) else range(1)

    def blocks_of(self, op: ir.Operation) -> range:
        return range(self.nv) if op_moves(op, self.lanes.varies) else range(1)

    def vtype(self, t: ir.Type, c: int) -> ir.Type:
        w = self.widths[c]
        return t if w == 1 else ir.VectorType.get([w], t)

    def get(self, v: ir.Value, m: int, c: int, vector: bool, ip) -> ir.Value:
        """The copy of `v` for row m, block c; `vector`: as a lane value (broadcast if uniform;
        P's counter as its lanes' iterations, `lane_indices`)."""
        km = m if self.lanes.by_row(v) else 0
        if self.lanes.varies(v):
            s = self.env[(km, c)][v]
            if vector and self.widths[c] > 1 and v == self.piv:
                return self.lane_indices(s, ip, c)
            return s
        s = self.env.get((km, 0), {}).get(v)
        if s is None:
            s = row_value(self.rowmaps, km, v)
        if not vector or self.widths[c] == 1:
            return s
        return self.broadcast(s, ip, c)

    def broadcast(self, s: ir.Value, ip, c: int = 0) -> ir.Value:
        key = (s, ip.block, self.widths[c])
        if key not in self.bcast:
            with ir.Location.unknown():
                self.bcast[key] = ir.Operation.create("vector.broadcast", results=[self.vtype(s.type, c)],
                                                      operands=[s], ip=ip).result
        return self.bcast[key]

    def lane_indices(self, j: ir.Value, ip, c: int) -> ir.Value:
        """P's counter as data: lane l of the vector starting at iteration `j` runs iteration
        j + l, so its counter is `broadcast(j) + [0, 1, .., W-1]` (a vector<W x index>)."""
        w = self.widths[c]
        key = ("iv", j, ip.block, w)
        if key not in self.bcast:
            with ir.Location.unknown():
                vt = self.vtype(j.type, c)
                if ("iota", ip.block, w) not in self.bcast:
                    steps = ir.Attribute.parse(f"dense<[{', '.join(map(str, range(w)))}]> : {vt}")
                    self.bcast[("iota", ip.block, w)] = ir.Operation.create(
                        "arith.constant", results=[vt], attributes={"value": steps}, ip=ip).result
                iota = self.bcast[("iota", ip.block, w)]
                self.bcast[key] = ir.Operation.create("arith.addi", results=[vt],
                                                      operands=[self.broadcast(j, ip, c), iota], ip=ip).result
        return self.bcast[key]

    def bind(self, old: ir.Value, new: ir.Value, m: int, c: int) -> None:
        self.env.setdefault((m, c), {})[old] = new

    # one op, all its copies
    def emit(self, op: ir.Operation, ip) -> None:
        if op.name == "affine.for" and mlir.op_key(op) in self.band:
            self.emit_reduction(op, ip)
            return
        if mlir.op_key(op) in self.fused or mlir.op_key(op) in self.skip:
            return  # emitted as part of its math.fma, or a sum in memory (kept in iter_args)
        for m in self.rows_of(op):
            for c in self.blocks_of(op):
                self.emit_copy(op, m, c, ip)

    def emit_copy(self, op: ir.Operation, m: int, c: int, ip) -> None:
        name, loc = op.name, op.location
        moving = op_moves(op, self.lanes.varies)
        if name == "affine.load" and moving and self.widths[c] > 1:
            ops = [self.get(v, m, c, False, ip) for v in list(op.operands)[1:]]
            with loc:
                vt = self.vtype(op.results[0].type, c)
                if mlir.op_key(op) in self.gathered:
                    new = self.gathered_load(op, ops, vt, ip)
                elif c in self.masks:
                    new = self.masked_load(op, ops, vt, self.masks[c], ip)
                elif mlir.op_key(op) in self.strided:
                    new = self.strided_load(op, ops, vt, ip)
                else:
                    mem, amap = self.lane_memref(op, op.operands[0])
                    new = ir.Operation.create("affine.vector_load", results=[vt], operands=[mem, *ops],
                                              attributes={"map": amap}, ip=ip)
            self.bind(op.results[0], new.result, m, c)
            return
        if name == "affine.store" and self.widths[c] > 1 and any(self.lanes.varies(v) for v in list(op.operands)[2:]):
            val = self.get(op.operands[0], m, c, True, ip)
            ops = [self.get(v, m, c, False, ip) for v in list(op.operands)[2:]]
            with loc:
                mem, amap = self.lane_memref(op, op.operands[1])
                if c in self.masks:
                    idx = _map_indices(amap.value, ops, ip)
                    ir.Operation.create("vector.maskedstore", operands=[mem, *idx, self.masks[c], val], ip=ip)
                else:
                    ir.Operation.create("affine.vector_store", operands=[val, mem, *ops],
                                        attributes={"map": amap}, ip=ip)
            return
        if name == "arith.addf" and self._fma_of(op) is not None:
            mul = self._fma_of(op)
            acc = next(v for v in op.operands if v != mul.results[0])
            args = [self.get(mul.operands[0], m, c, True, ip), self.get(mul.operands[1], m, c, True, ip),
                    self.get(acc, m, c, True, ip)]
            with loc:
                new = ir.Operation.create("math.fma", results=[args[2].type], operands=args, ip=ip)
            self.bind(op.results[0], new.result, m, c)
            return
        vector = moving and self.widths[c] > 1 and not name.startswith("affine.")
        if vector:  # an elementwise arith/math op on lanes (on an index too: the plan checked its operands)
            operands = [self.get(v, m, c, True, ip) for v in op.operands]
            attrs = {name: attr for name, attr in op.attributes.items()}
            with loc:
                new = ir.Operation.create(name, results=[self.vtype(v.type, c) for v in op.results], operands=operands,
                                          attributes=attrs, ip=ip)
        else:  # a scalar copy (an address, a value the same in every lane, or width 1)
            new = op.clone(ip=ip)
            for k, v in enumerate(op.operands):
                nv = self.get(v, m, c, False, ip)
                if nv != v:
                    new.operands[k] = nv
        for old, fresh in zip(op.results, new.results):
            self.bind(old, fresh, m, c)

    def masked_load(self, op: ir.Operation, ops: list, vt: ir.Type, mask: ir.Value, ip) -> ir.Operation:
        """`vector.maskedload` of the lanes that exist (`mask`); the others read 0."""
        mem, amap = self.lane_memref(op, op.operands[0])
        idx = _map_indices(amap.value, ops, ip)
        key = ("zero", str(vt), ip.block)
        if key not in self.bcast:
            elem = vt.element_type
            zero = ir.FloatAttr.get(elem, 0.0) if isinstance(elem, ir.FloatType) else ir.IntegerAttr.get(elem, 0)
            self.bcast[key] = ir.Operation.create("arith.constant", results=[vt], ip=ip,
                                                  attributes={"value": ir.DenseElementsAttr.get_splat(vt, zero)}).result
        pas = self.bcast[key]
        return ir.Operation.create("vector.maskedload", results=[vt], operands=[mem, *idx, mask, pas],
                                   ip=ip)

    def gathered_load(self, op: ir.Operation, ops: list, vt: ir.Type, ip) -> ir.Operation:
        """The lanes of a load of i1 (cpu_plan.lane_width_refusal's `gathered`): a vector of i1 is
        bit-packed and the buffer holds a byte per element, so lane l is the scalar load of the
        element l after the first one, and `vector.from_elements` puts the W values together."""
        amap = ir.AffineMapAttr(op.attributes["map"]).value
        exprs = list(amap.results)
        lanes = []
        for lane in range(ir.VectorType(vt).shape[0]):
            shifted = ir.AffineMap.get(amap.n_dims, amap.n_symbols, exprs[:-1] + [exprs[-1] + lane])
            lanes.append(ir.Operation.create("affine.load", results=[op.results[0].type], operands=[op.operands[0], *ops],
                                             attributes={"map": ir.AffineMapAttr.get(shifted)}, ip=ip).result)
        return ir.Operation.create("vector.from_elements", results=[vt], operands=lanes, ip=ip)

    def strided_load(self, op: ir.Operation, ops: list, vt: ir.Type, ip) -> ir.Operation:
        """The lanes of a load of stride 2 (cpu_plan.strided_lane_load): the elements e, e + 2,
        .., e + 2(W - 1) from a vector at e and one at e + W - 1 (which ends at the last lane's
        element: nothing past it is read), every second element of them kept."""
        amap = ir.AffineMapAttr(op.attributes["map"]).value
        w = ir.VectorType(vt).shape[0]
        first = ir.Operation.create("affine.vector_load", results=[vt], operands=[op.operands[0], *ops],
                                    attributes={"map": op.attributes["map"]}, ip=ip).result
        exprs = list(amap.results)
        shifted = ir.AffineMap.get(amap.n_dims, amap.n_symbols, exprs[:-1] + [exprs[-1] + (w - 1)])
        second = ir.Operation.create("affine.vector_load", results=[vt], operands=[op.operands[0], *ops],
                                     attributes={"map": ir.AffineMapAttr.get(shifted)}, ip=ip).result
        mask = [2 * k for k in range(w // 2)] + [w + 2 * k + 1 for k in range(w - w // 2)]
        return ir.Operation.create("vector.shuffle", results=[vt], operands=[first, second],
                                   attributes={"mask": ir.DenseI64ArrayAttr.get(mask)}, ip=ip)

    def _fma_of(self, op: ir.Operation) -> ir.Operation | None:
        for r in self.plan.all_reductions:
            if r.op == op:
                mul = _multiply_add(r)
                return mul if mul is not None and mlir.op_key(mul) in self.fused else None
        return None

    def emit_reduction(self, r: ir.Operation, ip) -> None:
        """One copy of R for every row and block: the accumulators of all copies in iter_args
        (R's own, then the sums R keeps in memory: loaded before the copy, stored after it)."""
        if mlir.op_key(r) in self.unrolled:
            self.emit_unrolled(r, ip)
            return
        carried = list(body_block(r).arguments)[1:]
        mem = list(self.plan.in_memory) if r == self.plan.reduction_loop else []
        by_row = any(self.lanes.by_row(v) for v in carried) or any(op_moves(m.load, self.lanes.by_row) for m in mem)
        rows = range(len(self.rowmaps)) if by_row else range(1)
        n = len(carried) + len(mem)
        slots = [(m, c, k) for m in rows for c in range(self.nv) for k in range(n)]
        inits = []
        for m, c, k in slots:
            if k < len(carried):
                inits.append(self.get(list(r.operands)[self._n_bound(r) + k], m, c, True, ip))
            else:
                load = mem[k - len(carried)].load
                self.emit_copy(load, m, c, ip)
                inits.append(self.get(load.results[0], m, c, True, ip))
        lo, hi = loop_bound(r, "lb"), loop_bound(r, "ub")
        new = mlir.affine_for(lo, hi, 1, inits, ip, r.location)
        nblock = body_block(new)
        inner = ir.InsertionPoint.at_block_begin(nblock)
        for (m, c, k), arg in zip(slots, list(nblock.arguments)[1:]):
            self.bind(carried[k] if k < len(carried) else mem[k - len(carried)].load.results[0], arg, m, c)
        # the IV is the same for every copy: make get() find it for uniform uses too
        for m in range(len(self.rowmaps)):
            self.rowmaps[m][body_block(r).arguments[0]] = nblock.arguments[0]
        for op in body_ops(r):
            self.emit(op, inner)
        y = mlir.block_ops(body_block(r))[-1]
        yielded = list(y.operands) + [m.op.results[0] for m in mem]
        vals = [self.get(yielded[k], m, c, True, inner) for m, c, k in slots]
        with y.location:
            affine_d.AffineYieldOp(vals, ip=inner)
        for (m, c, k), res in zip(slots, new.results):
            if k < len(carried):
                self.bind(r.results[k], res, m, c)
            else:
                red = mem[k - len(carried)]
                self.bind(red.op.results[0], res, m, c)
                self.emit_copy(red.store, m, c, ip)

    def emit_unrolled(self, r: ir.Operation, ip) -> None:
        """R's iterations one after the other at `ip` (a short loop of the band: a kernel's 3
        columns), each with its counter a constant, the accumulators passed from one to the next
        (the same ops in the same order as the loop runs them)."""
        carried = list(body_block(r).arguments)[1:]
        by_row = any(self.lanes.by_row(v) for v in carried)
        rows = range(len(self.rowmaps)) if by_row else range(1)
        slots = [(m, c, k) for m in rows for c in range(self.nv) for k in range(len(carried))]
        cur = [self.get(list(r.operands)[self._n_bound(r) + k], m, c, True, ip) for m, c, k in slots]
        lo, hi = constant_bounds(r)
        iv = body_block(r).arguments[0]
        y = mlir.block_ops(body_block(r))[-1]
        for t in range(lo, hi):
            with r.location:
                at = ir.Operation.create("arith.constant", results=[ir.IndexType.get()], ip=ip,
                                         attributes={"value": ir.IntegerAttr.get(ir.IndexType.get(), t)}).result
            for m in range(len(self.rowmaps)):
                self.rowmaps[m][iv] = at
            for (m, c, k), v in zip(slots, cur):
                self.bind(carried[k], v, m, c)
            for op in body_ops(r):
                self.emit(op, ip)
            cur = [self.get(y.operands[k], m, c, True, ip) for m, c, k in slots]
        for (m, c, k), v in zip(slots, cur):
            self.bind(r.results[k], v, m, c)

    @staticmethod
    def _n_bound(r: ir.Operation) -> int:
        lb = mlir.affine_map_attr(r, "lowerBoundMap")
        ub = mlir.affine_map_attr(r, "upperBoundMap")
        return lb.n_inputs + ub.n_inputs


MASKED = -1  # a segment that runs the iterations from its start to P's end as one step, masked past the end
ONCE = -2  # a segment that runs sum(widths) iterations from its start as one step, unmasked


def _segments(plan: TilePlan, cols: int | None = None) -> list[tuple[int, tuple[int, ...], int | None]]:
    """(step, widths, count) of the loops that sweep P (`cols`: its constant trip count, or
    None): whole tiles (step NV x W, NV vectors of W lanes), then the iterations left over. With
    a constant count and no values P carries, those run as one joint step (`cpu_plan.row_steps`):
    the whole vectors left and the tail vector (`TilePlan.tail` lanes, or W) in one copy of the
    reduction band, each row's broadcast serving all of them (`TilePlan.joint`: the rows share
    loads, P carries no values): masked past P's end (step MASKED,
    `count` the iterations it covers) where the plan allows a mask (`TilePlan.masked_tail`), else
    unmasked over the columns its vectors hold (step ONCE), the rest one at a time. Otherwise, as
    before: single vectors, then the tail (masked, or a narrower vector unmasked, then one at a
    time). A covering tile (`TilePlan.cover`) is one MASKED step whose last vector is the tail."""
    w, nv = plan.width, plan.vectors
    if plan.cover:  # one step runs every column: the last vector masked, or the narrower tail
        return [(MASKED, (w,) * (nv - 1) + (plan.tail or w,), cols)]
    out = [(nv * w, (w,) * nv, None)]
    tw = plan.tail or w
    if cols is not None and w > 1 and plan.joint:
        k, left = divmod(cols % (nv * w), w)
        if plan.masked_tail:
            widths = (w,) * k + ((tw,) if left else ())
            return out + ([(MASKED, widths, k * w + left)] if widths else [])
        widths = (w,) * k + ((plan.tail,) if left and plan.tail else ())
        if widths:
            out.append((ONCE, widths, sum(widths)))
        return out + ([(1, (1,), None)] if sum(widths) < k * w + left else [])
    if w > 1 and nv > 1:
        out.append((w, (w,), None))
    if w > 1 and plan.masked_tail:
        out.append((MASKED, (tw,), None))
        return out
    if tw < w:  # a narrower vector without a mask, then one at a time
        out.append((tw, (tw,), None))
    if nv * w > 1:
        out.append((1, (1,), None))
    return out


def _plus(bound: tuple, k: int) -> tuple[ir.AffineMap, list[ir.Value]]:
    """`bound + k` (a single-result bound)."""
    m, ops = bound
    return ir.AffineMap.get(m.n_dims, m.n_symbols, [m.results[0] + k]), ops


def _sweep_p(plan: TilePlan, lanes: Lanes, rowmaps: list[dict], ip, span=None, segments=None,
             finals: list | None = None) -> list[ir.Operation]:
    """P's iterations over `span` ((lower, upper) bounds; P's own by default) in `segments`
    (default `_segments`), each an affine.for built at `ip`. P's own reductions (`plan.carried`)
    run in every segment as one partial per vector (lanes broadcast from the value so far), are
    combined after the segment (the vectors elementwise, then `vector.reduction` across lanes)
    and passed to the next; their values after the last segment go to `finals`."""
    p = plan.loop
    lb, ub = (span[0], span[1]) if span is not None else (loop_bound(p, "lb"), loop_bound(p, "ub"))
    floor = span[2] if span is not None and len(span) > 2 else None  # P's own lb, when lb may lie below it
    pargs = list(body_block(p).arguments)[1:]
    py = mlir.block_ops(body_block(p))[-1]
    inits = list(p.operands)[_Sweep._n_bound(p):]
    nrows, nred = len(rowmaps), len(plan.carried)
    # each row's partials start from its own init (a load of M[i] in Q's body has a copy per row)
    cur = [[row_value(rowmaps, m, inits[red.position]) for red in plan.carried] for m in range(nrows)]
    out = []
    lo = lb
    for step, widths, count in (segments or _segments(plan, constant_trip_count(p))):
        masked = step == MASKED
        nv, width = len(widths), widths[0]
        offsets = [sum(widths[:c]) for c in range(nv)]
        if step in (MASKED, ONCE):
            step = sum(widths)
            hi = ub if masked else _plus(lo, step)
        else:
            hi = multiple_bound(lb, ub, step) if step > 1 else ub
        a, b = _constant(lo), _constant(hi)
        if a is not None and b is not None and a >= b:
            lo = hi
            continue
        sweep = _Sweep(plan, lanes, [dict(rm) for rm in rowmaps], widths)
        seg_inits = [x for row in cur for v in row for x in [_splat(v, width, ip, p.location)] * nv]
        start = lo if lo is lb and floor is None else at_least(lo, floor or lb)
        loop = mlir.affine_for(start, hi, step, seg_inits, ip, p.location)
        block = body_block(loop)
        inner = (ir.InsertionPoint(mlir.block_ops(block)[-1]) if not seg_inits
                 else ir.InsertionPoint(block))
        j0 = block.arguments[0]
        if masked:  # the loop runs once, on the fewer than sum(widths) iterations from j0 to P's end
            span_cols = (_constant(hi) - _constant(lo)) if _constant(hi) is not None and _constant(lo) is not None else count
            for c in range(nv):  # vector c holds iterations j0 + offsets[c] ..: masked where it may pass the end
                if span_cols is None or offsets[c] + widths[c] > span_cols:
                    sweep.masks[c] = _tail_mask(hi, j0, widths[c], inner, p.location, offsets[c])
        piv = body_block(p).arguments[0]
        for c in range(nv):  # P's IV moves with no row: row 0's copies serve every row
            sweep.bind(piv, _offset_index(j0, offsets[c], inner, p.location), 0, c)
        for m in range(nrows):  # slot (row m, reduction k, vector c) of the segment's iter_args
            for k, red in enumerate(plan.carried):
                for c in range(nv):
                    sweep.bind(pargs[red.position], block.arguments[1 + (m * nred + k) * nv + c], m, c)
        for op in body_ops(p):
            sweep.emit(op, inner)
        if seg_inits:
            vals = [sweep.get(py.operands[red.position], m, c, True, inner)
                    for m in range(nrows) for red in plan.carried for c in range(nv)]
            with py.location:
                affine_d.AffineYieldOp(vals, ip=inner)
        res = list(loop.results)
        cur = [[_combine(red, res[(m * nred + k) * nv:(m * nred + k + 1) * nv], width, ip, p.location)
                for k, red in enumerate(plan.carried)] for m in range(nrows)]
        out.append(loop)
        lo = hi
    if finals is not None:
        finals.extend(cur)  # one list per row
    return out


def _tail_mask(ub: tuple, j0: ir.Value, width: int, ip, loc, offset: int = 0) -> ir.Value:
    """`vector.create_mask (ub - j0 - offset)`: the lanes of the iterations from j0 + offset up
    to P's end (a count past the width sets every lane)."""
    um, uops = ub
    with loc:
        nd, ns = um.n_dims, um.n_symbols
        expr = um.results[0] - ir.AffineDimExpr.get(nd) - offset
        amap = ir.AffineMap.get(nd + 1, ns, [expr])
        count = affine_d.AffineApplyOp(amap, list(uops[:nd]) + [j0] + list(uops[nd:]), ip=ip).result
        return ir.Operation.create("vector.create_mask", results=[ir.VectorType.get([width], ir.IntegerType.get_signless(1))],
                                   operands=[count], ip=ip).result


def _map_indices(amap: ir.AffineMap, operands: list, ip) -> list[ir.Value]:
    """The indices `amap` computes from `operands`, one affine.apply per result."""
    out = []
    for e in amap.results:
        one = ir.AffineMap.get(amap.n_dims, amap.n_symbols, [e])
        out.append(affine_d.AffineApplyOp(one, operands, ip=ip).result)
    return out


def _splat(v: ir.Value, width: int, ip, loc) -> ir.Value:
    """`v` in every lane (itself for width 1)."""
    if width == 1:
        return v
    with loc:
        return ir.Operation.create("vector.broadcast", results=[ir.VectorType.get([width], v.type)],
                                   operands=[v], ip=ip).result


def _combine(red, parts: list[ir.Value], width: int, ip, loc) -> ir.Value:
    """One value of P's reduction `red` from its partials: the vectors combined elementwise by
    its own op, then across lanes by `vector.reduction` of the same kind."""
    acc = parts[0]
    with loc:
        for v in parts[1:]:
            acc = ir.Operation.create(red.kind, results=[acc.type], operands=[acc, v], ip=ip).result
        if width == 1:
            return acc
        elem = ir.VectorType(acc.type).element_type
        kind = ir.Attribute.parse(f"#vector.kind<{LANE_REDUCTIONS[red.kind]}>")
        return ir.Operation.create("vector.reduction", results=[elem], operands=[acc],
                                   attributes={"kind": kind}, ip=ip).result


def _row_body(plan: TilePlan, lanes: Lanes, q: ir.Operation, rows: list[ir.Value], ip, span=None,
              segments=None) -> None:
    """Q's body for the given row values: its other ops per row, the loops between Q and P as
    they are (their ops per row as well), P swept for all rows together."""
    qiv = body_block(q).arguments[0]
    rowmaps = [{qiv: v} for v in rows]
    _emit_rows_block(plan, lanes, q, rowmaps, ip, span, segments)


def _emit_rows_block(plan: TilePlan, lanes: Lanes, outer: ir.Operation, rowmaps: list[dict], ip, span,
                     segments) -> None:
    """The ops of `outer`'s body (Q or a loop between Q and P) for every row of `rowmaps`."""
    between = {mlir.op_key(b) for b in plan.between}
    for op in body_ops(outer):
        if op == plan.loop:
            finals: list = []
            _sweep_p(plan, lanes, rowmaps, ip, span, segments, finals=finals)
            for m, row in enumerate(finals):  # each row's own values of P's reductions
                for red, v in zip(plan.carried, row):
                    rowmaps[m][plan.loop.results[red.position]] = v
            continue
        if mlir.op_key(op) in between:  # a loop between Q and P: its bounds do not move with Q
            lo, hi = loop_bound(op, "lb"), loop_bound(op, "ub")
            lo = (lo[0], [row_value(rowmaps, 0, v) for v in lo[1]])
            hi = (hi[0], [row_value(rowmaps, 0, v) for v in hi[1]])
            loop = mlir.affine_for(lo, hi, 1, [], ip, op.location)
            for rm in rowmaps:
                rm[body_block(op).arguments[0]] = body_block(loop).arguments[0]
            inner = ir.InsertionPoint(mlir.block_ops(body_block(loop))[-1])
            _emit_rows_block(plan, lanes, op, rowmaps, inner, span, segments)
            continue
        for m in (range(len(rowmaps)) if op_moves(op, lanes.by_row) else range(1)):
            new = op.clone(ip=ip)
            for k, v in enumerate(op.operands):
                nv = row_value(rowmaps, m, v)
                if nv != v:
                    new.operands[k] = nv
            for old, fresh in zip(op.results, new.results):
                rowmaps[m][old] = fresh


def _rows(plan: TilePlan, lanes: Lanes, q: ir.Operation, ip, span=None, segments=None) -> list[ir.Operation]:
    """Q's iterations: blocks of MR rows, then the rows left one at a time, each sweeping P over
    `span` in `segments`."""
    lb, ub = loop_bound(q, "lb"), loop_bound(q, "ub")
    main = multiple_bound(lb, ub, plan.rows)
    out = []
    head = mlir.affine_for(lb, main, plan.rows, [], ip, q.location)
    inner = ir.InsertionPoint(mlir.block_ops(body_block(head))[-1])
    i0 = body_block(head).arguments[0]
    rows = [_offset_index(i0, m, inner, q.location) for m in range(plan.rows)]
    _row_body(plan, lanes, q, rows, inner, span, segments)
    out.append(head)
    a, b = _constant(main), _constant(ub)
    if not (a is not None and b is not None and a >= b):
        # the rows left over: one block of them when their number is known, else one at a time
        left = (b - a) if a is not None and b is not None else 1
        tail = mlir.affine_for(at_least(main, lb), ub, left, [], ip, q.location)
        tin = ir.InsertionPoint(mlir.block_ops(body_block(tail))[-1])
        t0 = body_block(tail).arguments[0]
        rest = dataclasses.replace(plan, rows=left, col_block=0)
        _row_body(rest, lanes, q, [_offset_index(t0, m, tin, q.location) for m in range(left)], tin, span, segments)
        out.append(tail)
    return out


def build_tiled(plan: TilePlan) -> list[ir.Operation]:
    """Build the tiled nest before the plan's outer loop (Q, or P); returns the new top-level ops.
    The old nest is left for the caller to erase. With a column block NC (`plan.col_block`), the
    columns come in blocks of NC first (`for jc { rows { tiles of the block } }`: the block's
    panel of B stays in L2 while every row block uses it), then the columns left over; Q's other
    ops then run once per block (the plan allows the blocks only when they are pure)."""
    q = plan.rows_loop
    lanes = lanes_of(plan.loop, plan.reduction_loop, q, plan.in_memory, plan.between)
    target = q if q is not None else plan.loop
    ip = ir.InsertionPoint(target)
    with target.context:
        if q is None:
            block = target.block
            before = {mlir.op_key(o) for o in mlir.block_ops(block)}
            finals: list = []
            _sweep_p(plan, lanes, [{}], ip, finals=finals)
            for red, v in zip(plan.carried, finals[0] if finals else []):  # P's own reductions, combined
                plan.loop.results[red.position].replace_all_uses_with(v)
            return [o for o in mlir.block_ops(block) if mlir.op_key(o) not in before]
        if not plan.col_block:
            return _rows(plan, lanes, q, ip)
        p = plan.loop
        lb, ub = loop_bound(p, "lb"), loop_bound(p, "ub")
        blocks_end = multiple_bound(lb, ub, plan.col_block)
        jc_loop = mlir.affine_for(lb, blocks_end, plan.col_block, [], ip, p.location)
        jin = ir.InsertionPoint(mlir.block_ops(body_block(jc_loop))[-1])
        jc = body_block(jc_loop).arguments[0]
        with p.location:
            d0 = ir.AffineDimExpr.get(0)
            span = ((ir.AffineMap.get(1, 0, [d0]), [jc]), (ir.AffineMap.get(1, 0, [d0 + plan.col_block]), [jc]))
        _rows(plan, lanes, q, jin, span, [(plan.vectors * plan.width, (plan.width,) * plan.vectors, None)])
        out = [jc_loop]
        if not whole_blocks(blocks_end, ub, constant_trip_count(p), plan.col_block):
            out += _rows(plan, lanes, q, ip, (blocks_end, ub, lb))
        return out


def whole_blocks(blocks_end: tuple, ub: tuple, cols: int | None, block: int) -> bool:
    """Whether the column blocks leave no column over: their end is P's upper bound (both
    constants), or P's trip count is a constant multiple of the block (`blocks_end = lb + ((ub -
    lb) floordiv NC) * NC` is then `ub` for every value of the bounds' operands: a cache tile's
    block `jc to jc + 1536` in blocks of 24)."""
    a, b = _constant(blocks_end), _constant(ub)
    return (a is not None and b is not None and a >= b) or (cols is not None and cols % block == 0)


# ----------------------------------------------------------------------------- the step

def _loops_in(op: ir.Operation) -> int:
    return sum(1 for o in [op, *mlir.walk(op)] if o.name == "affine.for")


def describe(plan: TilePlan) -> str:
    mr, cols = plan.tile
    form = f"vector<{plan.width}x{_lane_type(plan)}>" if plan.width > 1 else f"scalar {_lane_type(plan)}"
    acc = f"{plan.accumulators} {'vector ' if plan.width > 1 else ''}accumulators ({form})"
    how = "acc + x * y as one fused multiply-add" if plan.fma else "each sum kept in order"
    return f"{TILED} {mr} x {cols} tile of the reduction in {acc}, {how}"


def _lane_type(plan: TilePlan) -> str:
    carried = list(body_block(plan.reduction_loop).arguments)[1:]
    if carried:
        return str(carried[0].type)
    return str(plan.in_memory[0].load.results[0].type) if plan.in_memory else "f32"


def _check_unused(nest: ir.Operation) -> None:
    """Raise when a value defined in `nest` is still used outside it (erasing it would leave a
    dangling use: a crash, not an error)."""
    inner = {mlir.op_key(o) for o in [nest, *mlir.walk(nest)]}
    for o in [nest, *mlir.walk(nest)]:
        for r in o.results:
            for u in r.uses:
                if mlir.op_key(mlir.operation(u.owner)) not in inner:
                    raise RuntimeError(f"register tiling left a use of {o.name} at {mlir.location_of(o)}")


def drop_dead_carried(fn: ir.Operation, log: RemarkLog, filename: str = "<input>") -> int:
    """Remove the dead carried values (transforms/dead_carried.py) of every loop around a
    reduction loop (what register tiling may take); returns how many were removed."""
    from .plan.cpu_plan import reduction_loop_of

    count = 0
    erased: set[int] = set()  # op_key of what drop_carried erased (the old loop, the dead slices)
    for op in [o for o in mlir.walk(fn) if o.name == "affine.for"]:
        if mlir.op_key(op) in erased:
            continue
        if len(list(body_block(op).arguments)) < 2 or reduction_loop_of(op) is None:
            continue
        dead = dead_positions(op)
        if not dead:
            continue
        where = mlir.location_of(op, filename)
        slices = [dead_slice(op, k) for k in dead]
        removed = sum(len(s) for s in slices)
        erased |= {mlir.op_key(op)} | {mlir.op_key(x) for s in slices for o in s for x in [o, *mlir.walk(o)]}
        drop_carried(op, dead)
        log.add(PASS, PASSED, f"{DEAD} ({removed} ops)", function=mlir.func_name(fn), location=where,
                args={"values": len(dead), "ops": removed})
        count += len(dead)
    return count


UNIT = "[UNIT LOOP] a loop of one iteration is replaced by its body"


def _in_reduction_nest(loop: ir.Operation) -> bool:
    """Whether `loop` carries values, or a loop around it or in it does (a contraction's band)."""
    from ...analysis.loops import ancestors

    return any(o.name == "affine.for" and len(o.results) for o in [loop, *ancestors(loop), *mlir.walk(loop)])


def drop_unit_loops(fn: ir.Operation, log: RemarkLog, filename: str = "<input>") -> int:
    """Replace every loop of one iteration (`unit_loops.runs_once`) in a nest that carries values
    by its body, innermost first (a 1x1 convolution's kernel loops: the nest is then a matrix
    product); returns how many."""
    count = 0
    for op in reversed([o for o in mlir.walk(fn) if o.name == "affine.for"]):
        if runs_once(op) and _in_reduction_nest(op):
            where = mlir.location_of(op, filename)
            promote_unit_loop(op)
            log.add(PASS, PASSED, UNIT, function=mlir.func_name(fn), location=where)
            count += 1
    return count


def register_tile_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>",
                           report_refusals: bool = True) -> int:
    """Plan every reduction nest of the function and tile those the plan accepts; returns the
    number tiled. A refused nest
    gets a Missed remark with its code when `report_refusals`."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    drop_unit_loops(fn, log, filename)
    drop_dead_carried(fn, log, filename)
    flatten_rows_function(fn, Facts(), options, log, filename)
    facts = Facts()
    rewriter = Rewriter(facts)
    plans = plan_register_tiles(fn, facts, options)
    count = 0
    erased: set[int] = set()  # op_key of every op a tiling erased (a later plan of one is dropped)
    for plan in plans:
        if mlir.op_key(plan.loop) in erased:
            continue
        where = mlir.location_of(plan.loop, filename)
        if plan.refusal is not None:
            if report_refusals or is_hot(plan.loop):  # a hot nest says why by default
                log.refused(PASS, plan.refusal, function=fname, location=where,
                            args={"iterations": nest_iterations(plan.loop)})
            continue
        target = plan.rows_loop if plan.rows_loop is not None else plan.loop
        args = {"rows": plan.rows, "columns": plan.tile[1], "width": plan.width, "vectors": plan.vectors,
                "column_block": plan.col_block,
                "accumulators": plan.accumulators, "fma": plan.fma, "reductions": [r.kind for r in plan.all_reductions]}
        text = describe(plan)
        if plan.col_block:
            text += f"; columns in blocks of {plan.col_block} (B's panel exceeds half of L2: each micro-panel serves every row tile)"
        cols = constant_trip_count(plan.loop)
        if plan.cover and plan.tail:  # whole vectors and the narrower tail in one step
            text += f"; its {plan.vectors} vectors cover all {cols} columns in one step"
            args["cover"] = cols
        elif plan.cover:
            text += (f"; its {plan.vectors} vectors cover all {cols} columns in one step, the last one masked"
                     if plan.vectors > 1 else f"; its one vector covers all {cols} columns, masked past them")
            args["cover"] = cols
        if plan.tail:
            left = (cols or 0) % plan.width
            how = "masked past them" if plan.tail > left else ("the rest one at a time" if plan.tail < left else "")
            text += (f"{',' if plan.cover else ';'} the {left} columns left over in one vector<{plan.tail}x{_lane_type(plan)}>"
                     + (f" ({how})" if how else "") + f", not one of {plan.width} lanes")
            args["tail"] = plan.tail
        joint = [seg for seg in _segments(plan, cols)[1:] if seg[0] in (MASKED, ONCE) and len(seg[1]) > 1]
        if joint and not plan.cover:
            widths = joint[0][1]
            text += (f"; the {cols % (plan.vectors * plan.width)} columns the whole tiles leave over in one step "
                     f"of {len(widths)} vectors")
            args["joint"] = list(widths)
        if plan.live > plan.vectors:
            text += (f"; {plan.live * plan.rows} accumulators live at once (the whole vector and the masked tail "
                     "run once each, as one block)")
            args["live"] = plan.live * plan.rows
        if plan.held:
            text += f"; {plan.held} registers hold values loaded once for all rows"
            args["held"] = plan.held
        if plan.carried:
            kinds = ", ".join(red.kind for red in plan.carried)
            parts = plan.rows * plan.vectors * len(plan.carried)
            text += f"; the loop's own reductions ({kinds}) in {parts} lane-wise partials, exact in any order"
            args["carried"] = [red.kind for red in plan.carried]
        if plan.rows == 1 and plan.rows_why:
            text += f"; one row: {plan.rows_why}"
            args["rows_why"] = plan.rows_why
        if plan.scalar_why:
            text += f"; scalar copies: LLVM cannot vectorize the reduction loop either ({plan.scalar_why})"
            args["scalar_why"] = plan.scalar_why
            text += f"; lanes refused: {plan.lanes_why}"
            args["lanes_why"] = plan.lanes_why

        before = _loops_in(target)
        erased |= {mlir.op_key(o) for o in [target, *mlir.walk(target)]}

        def build(plan=plan, target=target):
            new = build_tiled(plan)
            _check_unused(target)
            mlir.erase_innermost_first(target)
            return [new]

        new_ops = rewriter.replace([target], build)[0]
        args["loops_added"] = sum(_loops_in(op) for op in new_ops) - before
        log.add(PASS, PASSED, text, function=fname, location=where, args=args)
        if plan.block_refusal is not None:  # the tile is built; its columns are not in blocks
            log.refused(PASS, plan.block_refusal, function=fname, location=where)
        count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `register-tile` (loopopt/pipeline.py)."""
    return register_tile_function(fn, ctx.options, ctx.log, ctx.filename, report_refusals=ctx.explicit)
