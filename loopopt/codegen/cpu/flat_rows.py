"""Rows and columns as one loop (cpu, in step `register-tile`): a reduction nest whose vector loop P
(the columns, W of them) sits alone in a loop H over rows (H of them), where every access that
moves with either indexes the last two dimensions of a contiguous buffer of exactly H x W elements
by (h, w), runs P over the H x W elements of the pair as one loop, each access through a
`memref.collapse_shape` view of the buffer that joins its last two dimensions.

A 1x1 convolution over NCHW rows of 28 columns is then a product over 784 contiguous columns:
49 whole vectors of 16 lanes instead of a whole vector and a masked one per row.

Candidates (`flatten_rows_function`): nests the planner tiles with lanes and a column tail, where
some access indexes its last two dimensions by exactly (h, w) (`pair_indexed`) and H is not the
tile's own rows loop. Rule (`flat_pair_refusal`): H and P are affine.for from 0 by 1 to constants (H, W), carry no
values, and H's body is P alone; W is no multiple of the tile's lanes (else nothing is gained);
the IVs h and w are used only as map operands (dims) of affine.load / affine.store in P's body,
and each such access's map gives, after its constant operands are folded, exactly `h` and `w`
as its last two results and neither in any other; its buffer is of a static shape ending in
(H, W) with the identity layout, defined outside the nest (a function argument or an op before
the nest in the function's body). Then iteration (h, w) is iteration h * W + w of the flat loop
in the same order, and element (.., h, w) is element (.., h * W + w) of the view: the same ops run
in the same order on the same elements (bit-exact). The analysis reads an access through the
view in the buffer's coordinates exactly (`analysis.accesses._through_collapse`).
"""
from __future__ import annotations

from ... import mlir
from ...analysis.accesses import row_major
from ...analysis.loops import body_block, constant_bounds
from ...mlir import ir
from ...remarks import MISSED, PASSED, RemarkLog

PASS = "register-tile"
FLAT = "[FLAT ROWS] the loops over {h} rows and {w} columns run as one loop of {n} columns through a view joining the buffers' last two dimensions"
STOP = "[STOP FLAT ROWS] {why}"
ACCESSES = {"affine.load": 1, "affine.store": 2}  # first index operand


def _linear(e: ir.AffineExpr, operands: list) -> dict | None:
    """`e` over the map operands as {operand position or 'c': coefficient}, the constant operands
    folded; None where it is not linear (a product of two operands, a div or mod of one)."""
    if isinstance(e, ir.AffineConstantExpr):
        return {"c": e.value}
    if isinstance(e, (ir.AffineDimExpr, ir.AffineSymbolExpr)):
        pos = e.position if isinstance(e, ir.AffineDimExpr) else operands[0] + e.position
        c = _const_value(operands[1][pos])
        return {"c": c} if c is not None else {pos: 1}
    if isinstance(e, ir.AffineAddExpr):
        a, b = _linear(e.lhs, operands), _linear(e.rhs, operands)
        if a is None or b is None:
            return None
        out = dict(a)
        for k, v in b.items():
            out[k] = out.get(k, 0) + v
        return out
    if isinstance(e, ir.AffineMulExpr):
        a, b = _linear(e.lhs, operands), _linear(e.rhs, operands)
        if a is None or b is None:
            return None
        for x, y in ((a, b), (b, a)):
            if set(x) <= {"c"}:
                k = x.get("c", 0)
                return {key: v * k for key, v in y.items()}
        return None
    return None


def _const_value(v: ir.Value) -> int | None:
    owner, _ = mlir.value_owner(v)
    if owner is None or owner.name != "arith.constant":
        return None
    try:
        return ir.IntegerAttr(owner.attributes["value"]).value
    except (ValueError, TypeError):
        return None


def _uses(form: dict | None, positions: set) -> bool:
    """`form` uses an operand at `positions` (None, an index not linear: `access_refusal` has
    checked it uses none of them)."""
    return form is not None and any(k in positions and v != 0 for k, v in form.items())


def _is(form: dict, pos_set: set) -> bool:
    """`form` is exactly one of the operands at `pos_set` (coefficient 1, nothing else)."""
    nz = {k: v for k, v in form.items() if v != 0}
    return len(nz) == 1 and next(iter(nz)) in pos_set and next(iter(nz.values())) == 1


def _identity_contiguous(mt: ir.MemRefType) -> bool:
    """Row-major and contiguous (`accesses.row_major`), starting at the buffer's first element."""
    return row_major(mt) and mt.get_strides_and_offset()[1] == 0


def access_refusal(op: ir.Operation, h_iv: ir.Value, w_iv: ir.Value, rows: int, cols: int,
                   top: ir.Operation) -> str | None:
    """Why the access `op` (using h or w) cannot go through the view, or None."""
    where = mlir.location_of(op)
    if op.name not in ACCESSES:
        return f"{op.name} at {where} uses the row or column counter"
    first = ACCESSES[op.name]
    memref = op.operands[first - 1]
    amap = mlir.affine_map_attr(op, "map")
    idx = list(op.operands)[first:]
    hp = {k for k, v in enumerate(idx) if v == h_iv}
    wp = {k for k, v in enumerate(idx) if v == w_iv}
    if any(k >= amap.n_dims for k in hp | wp):
        return f"{op.name} at {where} takes the row or column counter as a symbol"
    if op.name == "affine.store" and op.operands[0] in (h_iv, w_iv):
        return f"affine.store at {where} stores the row or column counter"
    mt = mlir.memref_type(memref)
    if mt is None or len(mt.shape) < 2 or list(mt.shape[-2:]) != [rows, cols] or not _identity_contiguous(mt):
        return f"{op.name} at {where}: its buffer does not end in {rows} x {cols} contiguous elements"
    owner, block = mlir.value_owner(memref)
    if owner is not None:
        if owner.block != top.block or not owner.is_before_in_block(top):
            return f"{op.name} at {where}: its buffer is defined inside the nest"
    elif mlir.operation(block.owner).name != "func.func":
        return f"{op.name} at {where}: its buffer is not the function's"
    forms = [_linear(e, (amap.n_dims, idx)) for e in amap.results]
    # an index before the last two may be any expression of other loops (a channel taken apart
    # by floordiv and mod): the view leaves it as it is
    if any(f is None for f in forms[-2:]) or any(f is None and _dims(e) & (hp | wp)
                                                 for f, e in zip(forms[:-2], amap.results[:-2])):
        return f"{op.name} at {where}: an index is not linear in the loops"
    if not (_is(forms[-2], hp) and _is(forms[-1], wp)) or any(_uses(f, hp | wp) for f in forms[:-2]):
        return f"{op.name} at {where} does not index its last two dimensions by (row, column)"
    return None


def _dims(e: ir.AffineExpr) -> set:
    """The positions of the dimensions `e` uses."""
    if isinstance(e, ir.AffineDimExpr):
        return {e.position}
    if isinstance(e, ir.AffineBinaryExpr):
        return _dims(e.lhs) | _dims(e.rhs)
    return set()


def pair_indexed(p: ir.Operation) -> bool:
    """Some access in P's body indexes its last two dimensions by exactly (h, w), h the counter of
    the loop around P: the nest is a candidate (a product's rows and columns are not)."""
    h = mlir.operation(p.parent)
    if h.name != "affine.for":
        return False
    h_iv, w_iv = body_block(h).arguments[0], body_block(p).arguments[0]
    for u in w_iv.uses:
        op = mlir.operation(u.owner)
        if op.name not in ACCESSES:
            continue
        first = ACCESSES[op.name]
        amap = mlir.affine_map_attr(op, "map")
        idx = list(op.operands)[first:]
        if len(amap.results) < 2:
            continue
        forms = [_linear(e, (amap.n_dims, idx)) for e in amap.results[-2:]]
        if all(f is not None for f in forms) and _is(forms[0], {k for k, v in enumerate(idx) if v == h_iv}) \
                and _is(forms[1], {k for k, v in enumerate(idx) if v == w_iv}):
            return True
    return False


def flat_pair_refusal(p: ir.Operation, width: int, whole_rows: bool = False) -> str | None:
    """Why P and the loop around it do not run as one loop (the module's rule), or None. With
    `whole_rows` (step `flat-loops`) a row of whole vectors is joined too."""
    h = mlir.operation(p.parent)
    if h.name != "affine.for" or p.name != "affine.for":
        return "the loop around the columns is no affine.for"
    for loop in (h, p):
        b = constant_bounds(loop)
        if b is None or b[0] != 0 or mlir.int_attr(loop, "step") != 1 or len(loop.results):
            return "the rows or columns run from no 0 by 1 to a constant, or carry values"
    if len(mlir.block_ops(body_block(h))) != 2:
        return "the loop over rows holds more than the loop over columns"
    rows, cols = constant_bounds(h)[1], constant_bounds(p)[1]
    if width <= 1 or (cols % width == 0 and not whole_rows):
        return f"{cols} columns are whole vectors of {width} lanes"
    h_iv, w_iv = body_block(h).arguments[0], body_block(p).arguments[0]
    top = h
    while mlir.operation(top.parent).name != "func.func":
        top = mlir.operation(top.parent)
    for iv in (h_iv, w_iv):
        for u in iv.uses:
            op = mlir.operation(u.owner)
            why = access_refusal(op, h_iv, w_iv, rows, cols, top)
            if why is not None:
                return why
    return None


def collapsed_type(mt: ir.MemRefType, n: int) -> ir.MemRefType:
    """The type of `mt` with its last two dimensions joined into one of `n` elements, as
    memref.collapse_shape's verifier requires: the identity layout stays the identity; a strided
    layout keeps its offset and the strides of the dimensions before, the joined dimension taking
    the last one's (a contiguous buffer whose unit dimensions print arbitrary strides)."""
    shape = [*mt.shape[:-2], n]
    if mlir.identity_layout(mt):
        return ir.MemRefType.get(shape, mt.element_type, memory_space=mt.memory_space)
    strides, offset = mt.get_strides_and_offset()
    layout = ir.StridedLayoutAttr.get(offset, [*strides[:-2], strides[-1]])
    return ir.MemRefType.get(shape, mt.element_type, layout, memory_space=mt.memory_space)


def flatten_pair(p: ir.Operation) -> int:
    """Rewrite H { P { body } } as one loop of H x W iterations whose accesses go through views
    (the rule must hold); returns the flat trip count."""
    h = mlir.operation(p.parent)
    rows, cols = constant_bounds(h)[1], constant_bounds(p)[1]
    with p.context, p.location:
        accesses_through_views(p)
        p.attributes["upperBoundMap"] = ir.AffineMapAttr.get(ir.AffineMap.get_constant(rows * cols))
        p.move_before(h)
        h.erase()
    return rows * cols


def top_loop(op: ir.Operation) -> ir.Operation:
    """The op of the function's body that holds `op`."""
    top = op
    while mlir.operation(top.parent).name != "func.func":
        top = mlir.operation(top.parent)
    return top


def accesses_through_views(p: ir.Operation) -> None:
    """Every access of P's body indexed by (h, w), h the counter of the loop H around P, rewritten
    to index a view joining its buffer's last two dimensions by w alone (P then runs over H x W:
    the caller sets its bound; each access must pass `access_refusal`)."""
    h = mlir.operation(p.parent)
    rows, cols = constant_bounds(h)[1], constant_bounds(p)[1]
    h_iv, w_iv = body_block(h).arguments[0], body_block(p).arguments[0]
    top = top_loop(h)
    views: dict = {}
    accesses = {mlir.op_key(mlir.operation(u.owner)): mlir.operation(u.owner) for iv in (h_iv, w_iv) for u in iv.uses}
    for op in accesses.values():
        if op.name not in ACCESSES:
            continue  # none under the rule
        first = ACCESSES[op.name]
        memref = op.operands[first - 1]
        view = next((v for m, v in views.values() if m == memref), None)
        if view is None:
            mt = mlir.memref_type(memref)
            r = len(mt.shape)
            assoc = ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(ir.IntegerType.get_signless(64), k)])
                                      for k in range(r - 2)]
                                     + [ir.ArrayAttr.get([ir.IntegerAttr.get(ir.IntegerType.get_signless(64), k)
                                                          for k in (r - 2, r - 1)])])
            vt = collapsed_type(mt, rows * cols)
            view = ir.Operation.create("memref.collapse_shape", results=[vt], operands=[memref],
                                       attributes={"reassociation": assoc}, ip=ir.InsertionPoint(top)).result
            views[len(views)] = (memref, view)
        amap = mlir.affine_map_attr(op, "map")
        idx = list(op.operands)[first:]
        wpos = next(k for k, v in enumerate(idx) if v == w_iv)
        results = list(amap.results[:-2]) + [ir.AffineDimExpr.get(wpos)]
        op.attributes["map"] = ir.AffineMapAttr.get(ir.AffineMap.get(amap.n_dims, amap.n_symbols, results))
        op.operands[first - 1] = view
        for k, v in enumerate(idx):
            if v == h_iv:
                op.operands[first + k] = w_iv  # an unused dim now


def flatten_rows_function(fn: ir.Operation, facts, options, log: RemarkLog, filename: str = "<input>") -> int:
    """Flatten the rows and columns of every reduction nest whose tile would need a column tail
    (the rule); returns how many. A nest with a tail and an access indexed by (row, column)
    (`pair_indexed`) that the rule refuses says why (`[STOP FLAT ROWS]`)."""
    from .plan.cpu_plan import plan_register_tiles

    count = 0
    fname = mlir.func_name(fn)
    for plan in plan_register_tiles(fn, facts, options):
        if plan.refusal is not None or plan.width <= 1:
            continue
        p = plan.loop
        cols = constant_bounds(p)
        if cols is None or cols[1] % plan.width == 0 or not pair_indexed(p):
            continue
        if plan.rows_loop is not None and plan.rows_loop == mlir.operation(p.parent):
            continue  # the rows of the tile itself (a product's i): joined, the tile would lose them
        where = mlir.location_of(p, filename)
        why = flat_pair_refusal(p, plan.width)
        if why is not None:
            log.add(PASS, MISSED, STOP.format(why=why), function=fname, location=where)
            continue
        rows = constant_bounds(mlir.operation(p.parent))[1]
        n = flatten_pair(p)
        log.add(PASS, PASSED, FLAT.format(h=rows, w=cols[1], n=n), function=fname, location=where,
                args={"rows": rows, "columns": cols[1]})
        count += 1
    return count
