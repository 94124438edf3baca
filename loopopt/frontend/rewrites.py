"""loopopt's own lowering steps, registered by name beside MLIR's passes (see pipeline.py).

Each is small and states its rule; each returns a one-line note of what it changed:
  loopopt-check-input               every op is one the lowering handles, else a one-line error
  loopopt-duplicate-shared-fills    a linalg.fill feeding several ops is repeated per user
  loopopt-read-only-inputs          a public function's tensor arguments are not written in place
  loopopt-results-into-out-params   a result is computed in its out-parameter, not copied into it;
                                    dynamic output sizes checked against the inputs at entry
  loopopt-unify-dynamic-sizes       past those checks, one SSA value per dynamic size
  loopopt-copies-to-loops           a remaining memref.copy becomes an affine loop nest
  loopopt-fold-reshape-views        accesses through subview/expand_shape/collapse_shape/cast
                                    views re-indexed onto the viewed buffer
  loopopt-check-lowered             the result verifies and holds only ops loopopt models
"""
from __future__ import annotations

from .. import mlir
from ..errors import LoopOptError
from ..mlir import affine_d, ir
from .registry import register

# The dialects a linalg-on-tensors input may use (and cf.assert, which torch-mlir emits for
# shape checks); ops of these the lowering cannot handle are listed in NOT_LOWERED.
INPUT_DIALECTS = ("builtin", "func", "arith", "math", "tensor", "linalg", "bufferization", "scf",
                  "affine", "memref")
NOT_LOWERED = {
    "linalg.softmax": "an aggregate op with no loop form in convert-linalg-to-affine-loops",
    "linalg.pack": "a data-layout op with no loop form in convert-linalg-to-affine-loops",
    "linalg.unpack": "a data-layout op with no loop form in convert-linalg-to-affine-loops",
    "linalg.winograd_filter_transform": "no loop form in convert-linalg-to-affine-loops",
    "linalg.winograd_input_transform": "no loop form in convert-linalg-to-affine-loops",
    "linalg.winograd_output_transform": "no loop form in convert-linalg-to-affine-loops",
    "tensor.reshape": "its shape is read from a tensor at run time: no exact access mapping",
    "memref.reshape": "its shape is read from memory at run time: no exact access mapping",
}
# What the lowered module may hold: the dialects loopopt models (driver.SUPPORTED_DIALECTS),
# plus cf.assert, the run-time checks of loopopt-results-into-out-params (docs/frontend.md).
OUTPUT_DIALECTS = ("builtin", "func", "affine", "memref", "arith", "math", "scf")
OUTPUT_EXTRA_OPS = ("cf.assert",)
# Views whose index map the access analysis does not model (it maps rank-preserving static
# memref.subview and memref.cast exactly): none may be left in the lowered module.
UNMAPPED_VIEWS = ("memref.expand_shape", "memref.collapse_shape", "memref.reshape", "memref.reinterpret_cast",
                  "memref.view", "memref.transpose")
CHECK_PREFIX = "loopopt: "  # every cf.assert message the lowering emits starts so


def cannot_lower(op: ir.Operation, filename: str, why: str) -> LoopOptError:
    """The one-line error for an op the lowering cannot handle."""
    return LoopOptError(f"{mlir.location_of(op, filename)}: error: cannot lower '{op.name}': {why}")


# ----------------------------------------------------------------------------- input check

def input_op_problem(op: ir.Operation) -> str | None:
    """Why the lowering cannot take `op` (None if it can)."""
    if op.name in NOT_LOWERED:
        return NOT_LOWERED[op.name]
    if op.name == "cf.assert":
        return None
    dialect = op.name.split(".", 1)[0]
    if dialect not in INPUT_DIALECTS:
        return (f"the {dialect} dialect is not part of linalg on tensors (the lowering takes "
                f"{', '.join(INPUT_DIALECTS)}; see docs/frontend.md)")
    return None


@register("loopopt-check-input", "every op is one the lowering handles, else a one-line error naming it")
def check_input(module: ir.Module, filename: str) -> str:
    for op in mlir.walk(module.operation):
        why = input_op_problem(op)
        if why is not None:
            raise cannot_lower(op, filename, why)
    return ""


# ----------------------------------------------------------------------------- read-only inputs

WRITABLE = "bufferization.writable"


@register("loopopt-read-only-inputs",
          "a public function's tensor arguments are marked not writable: bufferization copies before writing")
def read_only_inputs(module: ir.Module, filename: str) -> str:
    """The calling convention's inputs are only read (docs/frontend.md): a tensor program that
    inserts into a reshape of its argument (torch's `y = x.clone(); y.view(-1)[a:b] = ...`, the
    clone folded away by torch-mlir) means a new tensor, but one-shot-bufferize writes a writable
    argument's buffer in place, changing the caller's array. Each tensor argument of a public
    function gets `bufferization.writable = false`, so such an update writes a copy; private
    functions are left to the analysis of their call sites."""
    count = 0
    with module.context:
        for op in mlir.walk(module.operation):
            count += _mark_read_only(op)
    return f"{count} tensor argument(s) marked read-only" if count else ""


def _mark_read_only(op: ir.Operation) -> int:
    """`bufferization.writable = false` on each tensor argument of `op` when it is a public
    func.func; the number marked."""
    if op.name != "func.func" or "sym_visibility" in op.attributes:
        return 0
    inputs = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value).inputs
    tensors = [isinstance(t, (ir.RankedTensorType, ir.UnrankedTensorType)) for t in inputs]
    if not any(tensors):
        return 0
    old = list(ir.ArrayAttr(op.attributes["arg_attrs"])) if "arg_attrs" in op.attributes else \
        [ir.DictAttr.get({}) for _ in inputs]
    count, new = 0, []
    for is_tensor, attrs in zip(tensors, old):
        entries = {a.name: a.attr for a in ir.DictAttr(attrs)}
        if is_tensor and WRITABLE not in entries:
            entries[WRITABLE] = ir.BoolAttr.get(False)
            count += 1
        new.append(ir.DictAttr.get(entries))
    op.attributes["arg_attrs"] = ir.ArrayAttr.get(new)
    return count


# ----------------------------------------------------------------------------- shared fills

@register("loopopt-duplicate-shared-fills",
          "a linalg.fill whose result feeds several ops is repeated before each extra user")
def duplicate_shared_fills(module: ir.Module, filename: str) -> str:
    """A tensor-valued fill read by two ops (layernorm's zero init of its two reductions) makes
    one-shot-bufferize copy the filled buffer for the second writer. A fill is pure and cheap:
    giving each user its own (with its own tensor.empty) lets each bufferize in place, no copy.
    Users in the two branches of one scf.if never both run (a transposed convolution's phases and
    its original, zero_phases.py): they share the fill, one buffer both branches write in place."""
    count = 0
    for op in mlir.walk_list(module.operation):
        if op.name != "linalg.fill" or len(op.results) != 1 or not isinstance(op.results[0].type, ir.RankedTensorType):
            continue
        uses = list(op.results[0].uses)
        sharing = _sharing_users([mlir.operation(u.owner) for u in uses])
        for use in uses:
            user = use.owner
            user = user.operation if hasattr(user, "operation") else user
            if mlir.op_key(user) in sharing:  # one use of each sharing user keeps the fill
                sharing.discard(mlir.op_key(user))
                continue
            init = op.operands[len(op.operands) - 1]
            owner, _ = mlir.value_owner(init)
            clone = op.clone(ip=ir.InsertionPoint(user))
            if owner is not None and owner.name == "tensor.empty":
                empty = owner.clone(ip=ir.InsertionPoint(clone))
                clone.operands[len(clone.operands) - 1] = empty.results[0]
            user.operands[use.operand_number] = clone.results[0]
            count += 1
    return f"{count} fill(s) repeated for their extra users" if count else ""


def _branch_path(op: ir.Operation) -> list[tuple[int, int, str]]:
    """(ancestor's key, index of its region holding `op`, its name) per ancestor, innermost first."""
    path = []
    while op.parent is not None:
        parent = mlir.operation(op.parent)
        region = op.block.region
        index = next(i for i, r in enumerate(parent.regions) if r == region)
        path.append((mlir.op_key(parent), index, parent.name))
        op = parent
    return path


def _sharing_users(users: list[ir.Operation]) -> set[int]:
    """The keys of the users that keep the fill: the most that lie pairwise in exclusive
    branches (one user when none do), each user tried first in turn."""
    best: list[ir.Operation] = []
    for seed in users:
        group = [seed]
        for other in users:
            if all(exclusive_branches(other, g) for g in group):
                group.append(other)
        if len(group) > len(best):
            best = group
    return {mlir.op_key(u) for u in best}


def exclusive_branches(a: ir.Operation, b: ir.Operation) -> bool:
    """True iff `a` and `b` lie in different regions of one scf.if (at most one of them runs)."""
    regions_of_b = {key: (index, name) for key, index, name in _branch_path(b)}
    for key, index, name in _branch_path(a):
        if key in regions_of_b:  # the innermost common ancestor
            other, _ = regions_of_b[key]
            return name == "scf.if" and other != index
    return False


# ----------------------------------------------------------------------------- results in place

_HOISTABLE = ("memref.dim", "affine.apply", "affine.min", "affine.max", "index.")


def _entry_block(fn: ir.Operation) -> ir.Block | None:
    return mlir.func_body(fn)


def _ancestor_in(op: ir.Operation, block_owner: ir.Operation) -> ir.Operation:
    """The op of `block_owner`'s entry block that contains `op` (or `op` itself)."""
    while True:
        parent = op.parent
        parent = parent.operation if hasattr(parent, "operation") else parent
        if parent is None or mlir.op_key(parent) == mlir.op_key(block_owner):
            return op
        op = parent


def _hoistable_defs(v: ir.Value, fn: ir.Operation, out: dict) -> bool:
    """Collect into `out` the entry-block ops computing `v` from the arguments alone (pure, no
    regions); False if `v` depends on anything else (a data-dependent size)."""
    owner, block = mlir.value_owner(v)
    if owner is None:
        return block is not None and block.owner is not None and mlir.op_key(mlir.operation(block.owner)) == mlir.op_key(fn)
    if mlir.op_key(owner) in out:
        return True
    pure = owner.name.startswith(("arith.",) + _HOISTABLE) and len(owner.regions) == 0
    parent = owner.parent
    if not pure or parent is None or mlir.op_key(mlir.operation(parent)) != mlir.op_key(fn):
        return False
    for x in owner.operands:
        if not _hoistable_defs(x, fn, out):
            return False
    out[mlir.op_key(owner)] = owner
    return True


def _size_text(v: ir.Value) -> str:
    """How a size value reads in a check's message: `dim 0 of argument 0` or `a size computed from the inputs`."""
    owner, _ = mlir.value_owner(v)
    if owner is not None and owner.name == "memref.dim" and mlir.is_block_argument(owner.operands[0]):
        idx_owner, _ = mlir.value_owner(owner.operands[1])
        if idx_owner is not None and idx_owner.name == "arith.constant":
            k = ir.IntegerAttr(idx_owner.attributes["value"]).value
            return f"dim {k} of argument {owner.operands[0].maybe_downcast().arg_number}"
    return "the size the function computes from its inputs"


def _index_const(value: int, ip: ir.InsertionPoint, loc: ir.Location) -> ir.Value:
    index = ir.IndexType.get()
    op = ir.Operation.create("arith.constant", results=[index],
                             attributes={"value": ir.IntegerAttr.get(index, value)}, loc=loc, ip=ip)
    return op.results[0]


def _dim(memref: ir.Value, k: int, ip: ir.InsertionPoint, loc: ir.Location) -> ir.Value:
    c = _index_const(k, ip, loc)
    return ir.Operation.create("memref.dim", results=[ir.IndexType.get()], operands=[memref, c], loc=loc, ip=ip).results[0]


def _assert_equal(a: ir.Value, b: ir.Value, msg: str, ip: ir.InsertionPoint, loc: ir.Location) -> None:
    i1 = ir.IntegerType.get_signless(1)
    eq = ir.Operation.create("arith.cmpi", results=[i1], operands=[a, b],
                             attributes={"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)},
                             loc=loc, ip=ip).results[0]
    ir.Operation.create("cf.assert", operands=[eq], attributes={"msg": ir.StringAttr.get(msg)}, loc=loc, ip=ip)


def _out_param_copy(arg: ir.Value, body: ir.Block) -> ir.Operation | None:
    """The single `memref.copy %src, %arg` of the entry block if it is `arg`'s only use."""
    uses = list(arg.uses)
    if len(uses) != 1:
        return None
    copy = mlir.operation(uses[0].owner)
    if copy.name != "memref.copy" or uses[0].operand_number != 1 or copy.block != body:
        return None
    return copy


def _replace_alloc_by_out(fn: ir.Operation, arg: ir.Value, copy: ir.Operation, positions: dict) -> str | None:
    """Compute the copied buffer in `arg` itself; returns None when done, else why not.

    Legal when the copy source is an identity-layout memref.alloc of the entry block with
    `arg`'s type whose every other use (but deallocs and further copies out) comes before the
    copy: the out-parameter's old contents are never read (its only use is that copy), so writing
    the values earlier changes nothing the caller sees, given the documented convention that
    outputs alias no input. A dynamic size of the alloc must be computable at entry; the
    out-parameter's matching dim is then asserted equal to it there, and used nowhere else."""
    src = _cancel_reshapes(copy.operands[0])
    if src != copy.operands[0]:
        copy.operands[0] = src
    view = _collapsed_alloc(src, copy) or _expanded_alloc(src, copy)
    if view is not None:  # the result is a reshape of the buffer (a grouped convolution's, a batch of one put back)
        src = view.operands[0]
    alloc, _ = mlir.value_owner(src)
    if alloc is None or alloc.name != "memref.alloc" or alloc.block != copy.block:
        return "its value is not a buffer the function allocates"
    copied = view.results[0] if view is not None else src
    if copied.type != arg.type:
        return f"the buffer's type {copied.type} differs from the argument's {arg.type}"
    here = positions[mlir.op_key(copy)]
    for use in list(src.uses):
        user = mlir.operation(use.owner)
        if user.name == "memref.dealloc" or mlir.op_key(user) == mlir.op_key(copy):
            continue
        if view is not None and mlir.op_key(user) == mlir.op_key(view):
            continue
        if user.name == "memref.copy" and use.operand_number == 0 and user.block == copy.block:
            continue  # a second result that is the same buffer: its copy now reads `arg`
        if positions.get(mlir.op_key(_ancestor_in(user, fn)), here + 1) > here:
            return f"the buffer is used after it is copied out ({user.name} at {mlir.location_of(user)})"
    sizes = list(alloc.operands)
    defs: dict = {}
    if not all(_hoistable_defs(s, fn, defs) for s in sizes):
        return "its size depends on computed data"
    body = copy.block
    hoisted = set(defs)
    anchor = next(o for o in mlir.block_ops(body) if mlir.op_key(o) not in hoisted)
    for o in mlir.block_ops(body):  # keep their order: each depends only on earlier ones
        if mlir.op_key(o) in hoisted:
            o.move_before(anchor)
    fname = mlir.func_name(fn)
    argno = arg.maybe_downcast().arg_number
    shape = ir.MemRefType(arg.type).shape
    dynamic = [k for k, d in enumerate(shape) if d == mlir.DYNAMIC]
    checks = []
    ip = ir.InsertionPoint(anchor)
    for k, size in zip(dynamic, sizes):
        msg = f"{CHECK_PREFIX}{fname}: dim {k} of output argument {argno} must equal {_size_text(size)}"
        out_dim = _dim(arg, k, ip, fn.location)
        _assert_equal(out_dim, size, msg, ip, fn.location)
        checks.append((k, size, out_dim))
    for use in list(src.uses):
        user = mlir.operation(use.owner)
        if user.name == "memref.dealloc":
            user.erase()
    copy.erase()
    if view is not None:
        src.replace_all_uses_with(_inverse_view(view, arg, src.type, ir.InsertionPoint(alloc)))
        view.erase()
    else:
        src.replace_all_uses_with(arg)
    alloc.erase()
    _unify_out_dims(arg, checks)
    return None


def _reassociation(op: ir.Operation) -> list[list[int]]:
    return [[int(ir.IntegerAttr(d).value) for d in ir.ArrayAttr(g)] for g in ir.ArrayAttr(op.attributes["reassociation"])]


def _cancel_reshapes(v: ir.Value) -> ir.Value:
    """`v` with every `collapse_shape(expand_shape(x))` of the same groups back to x's type
    replaced by x: the two views cancel (an exact identity of every element's address)."""
    while True:
        collapse, _ = mlir.value_owner(v)
        if collapse is None or collapse.name != "memref.collapse_shape":
            return v
        expand, _ = mlir.value_owner(collapse.operands[0])
        if expand is None or expand.name != "memref.expand_shape" or \
                _reassociation(expand) != _reassociation(collapse) or expand.operands[0].type != v.type:
            return v
        v = expand.operands[0]


def _alloc_view(v: ir.Value, copy: ir.Operation, kind: str) -> ir.Operation | None:
    """The `kind` view (memref.collapse_shape or expand_shape) making `v`, used once, of a
    statically shaped identity-layout alloc of the copy's block; None otherwise."""
    view, _ = mlir.value_owner(v)
    if view is None or view.name != kind or len(list(v.uses)) != 1:
        return None
    alloc, _ = mlir.value_owner(view.operands[0])
    t = mlir.memref_type(view.operands[0])
    if alloc is None or alloc.name != "memref.alloc" or alloc.block != copy.block or t is None or \
            not t.has_static_shape or not mlir.identity_layout(t) or not mlir.identity_layout(v.type):
        return None
    return view


def _collapsed_alloc(v: ir.Value, copy: ir.Operation) -> ir.Operation | None:
    """The memref.collapse_shape making `v` when it collapses a statically shaped identity-layout
    alloc of the copy's block used by nothing after the copy (checked by the caller): the alloc
    can then be an expand_shape of the out-parameter with the same groups (the same addresses)."""
    return _alloc_view(v, copy, "memref.collapse_shape")


def _expanded_alloc(v: ir.Value, copy: ir.Operation) -> ir.Operation | None:
    """The memref.expand_shape making `v` when it only puts unit dimensions back (torch-mlir's
    batch of one on a result: each group keeps at most one dimension other than 1) on a
    statically shaped identity-layout alloc of the copy's block, and is used only by the copy:
    the alloc can then be a collapse_shape of the out-parameter with the same groups (row-major,
    identity layouts: the same addresses), computed in place. Its nests then index the
    out-parameter as they indexed the alloc, a 0 put in front; a view that splits a dimension
    (8 -> 2 x 4) would make every store a floordiv and a mod, and is left to the copy."""
    view = _alloc_view(v, copy, "memref.expand_shape")
    if view is None:
        return None
    shape = list(ir.MemRefType(v.type).shape)
    if any(sum(shape[d] != 1 for d in group) > 1 for group in _reassociation(view)):
        return None
    return view


def _inverse_view(view: ir.Operation, arg: ir.Value, t: ir.Type, ip: ir.InsertionPoint) -> ir.Value:
    """`arg` (the out-parameter, of the view's result type) seen as the view's source type `t`
    through the inverse reshape of `view`, with the same groups: an expand_shape undoes a
    collapse_shape and a collapse_shape an expand_shape."""
    groups = view.attributes["reassociation"]
    if view.name == "memref.collapse_shape":
        op = ir.Operation.create("memref.expand_shape", results=[t], operands=[arg],
                                 attributes={"reassociation": groups, "static_output_shape":
                                             ir.DenseI64ArrayAttr.get(list(ir.MemRefType(t).shape))},
                                 loc=view.location, ip=ip)
    else:
        op = ir.Operation.create("memref.collapse_shape", results=[t], operands=[arg],
                                 attributes={"reassociation": groups}, loc=view.location, ip=ip)
    return op.results[0]


def _unify_out_dims(arg: ir.Value, checks: list) -> None:
    """Every `memref.dim %arg, k` of a checked dynamic dim but the check's own reads the size
    it was checked equal to: one SSA value per size, so the nests that use it stay fusable."""
    for k, size, own in checks:
        own_op, _ = mlir.value_owner(own)
        for user in _dims_of(arg, k):
            if mlir.op_key(user) != mlir.op_key(own_op):
                user.results[0].replace_all_uses_with(size)


def _dims_of(memref: ir.Value, k: int) -> list[ir.Operation]:
    """The `memref.dim %memref, c` ops with c a constant k."""
    out = []
    for use in list(memref.uses):
        user = mlir.operation(use.owner)
        if user.name != "memref.dim" or use.operand_number != 0:
            continue
        idx_owner, _ = mlir.value_owner(user.operands[1])
        if idx_owner is not None and idx_owner.name == "arith.constant" and \
                ir.IntegerAttr(idx_owner.attributes["value"]).value == k:
            out.append(user)
    return out


@register("loopopt-results-into-out-params",
          "each result is computed in its out-parameter (no memref.copy); dynamic output sizes checked at entry")
def results_into_out_params(module: ir.Module, filename: str) -> str:
    """After buffer-results-to-out-params each result is `memref.copy %alloc, %out` at the end.
    Where legal (see _replace_alloc_by_out) the alloc is replaced by %out: the copy and the
    temporary disappear and the producing nest writes the caller's buffer."""
    done, kept = 0, []
    with module.context:
        for fn in mlir.functions(module):
            body = _entry_block(fn)
            if body is None:
                continue
            for arg in list(body.arguments):
                copy = _out_param_copy(arg, body)
                if copy is None:
                    continue
                positions = {mlir.op_key(o): i for i, o in enumerate(mlir.block_ops(body))}
                why = _replace_alloc_by_out(fn, arg, copy, positions)
                if why is None:
                    done += 1
                else:
                    kept.append(f"argument {arg.maybe_downcast().arg_number} of @{mlir.func_name(fn)} ({why})")
    note = f"{done} result(s) written straight into their out-parameter"
    if kept:
        note += "; copy kept for " + "; ".join(kept)
    return note if done or kept else ""


def checked_sizes(module: ir.Module) -> list[tuple[ir.Operation, ir.Value, int, ir.Value]]:
    """(the check's memref.dim op, out-parameter, dim k, size) of every run-time check
    loopopt-results-into-out-params emitted: `cf.assert (memref.dim %out, k) == size`."""
    out = []
    for op in mlir.walk(module.operation):
        if op.name != "cf.assert" or not ir.StringAttr(op.attributes["msg"]).value.startswith(CHECK_PREFIX):
            continue
        cmp, _ = mlir.value_owner(op.operands[0])
        if cmp is None or cmp.name != "arith.cmpi":
            continue
        dim, _ = mlir.value_owner(cmp.operands[0])
        k_op, _ = mlir.value_owner(dim.operands[1]) if dim is not None and dim.name == "memref.dim" else (None, None)
        if k_op is None or k_op.name != "arith.constant":
            continue
        out.append((dim, dim.operands[0], ir.IntegerAttr(k_op.attributes["value"]).value, cmp.operands[1]))
    return out


@register("loopopt-unify-dynamic-sizes",
          "a checked dynamic output size has one SSA value: the dims of the out-parameter read the input's")
def unify_dynamic_sizes(module: ir.Module, filename: str) -> str:
    """convert-linalg-to-affine-loops takes a nest's bounds from the memref.dim of its first
    operand, so a nest over the out-parameter gets `memref.dim %out, 0` where the other nests
    have `memref.dim %in, 0`: two values for one size, which keeps the nests apart. The entry
    check (cf.assert) makes them equal; past it, each such dim reads the checked size."""
    count = 0
    for own, arg, k, size in checked_sizes(module):
        for user in _dims_of(arg, k):
            if mlir.op_key(user) != mlir.op_key(own):
                user.results[0].replace_all_uses_with(size)
                count += 1
    return f"{count} memref.dim of out-parameters replaced by the checked size" if count else ""


# ----------------------------------------------------------------------------- copies

def _loop_nest(src: ir.Value, dst: ir.Value, ip: ir.InsertionPoint, loc: ir.Location) -> None:
    """`for i...: dst[i...] = src[i...]` over src's shape (bounds: static sizes or memref.dim)."""
    t = ir.MemRefType(src.type)
    ivs = []
    for k, size in enumerate(t.shape):
        if size == mlir.DYNAMIC:
            ub, ub_ops = ir.AffineMap.get(0, 1, [ir.AffineSymbolExpr.get(0)]), [_dim(src, k, ip, loc)]
        else:
            ub, ub_ops = ir.AffineMap.get_constant(size), []
        loop = affine_d.AffineForOp(ir.AffineMap.get_constant(0), ub, 1, [], lower_bound_operands=[],
                                    upper_bound_operands=ub_ops, loc=loc, ip=ip).operation
        block = loop.regions[0].blocks[0]
        ivs.append(block.arguments[0])
        ip = ir.InsertionPoint(block)
        affine_d.AffineYieldOp([], loc=loc, ip=ip)
        ip = ir.InsertionPoint(list(block.operations)[-1])
    ident = ir.AffineMapAttr.get(ir.AffineMap.get_identity(len(ivs)) if ivs else ir.AffineMap.get(0, 0, []))
    x = ir.Operation.create("affine.load", results=[t.element_type], operands=[src, *ivs],
                            attributes={"map": ident}, loc=loc, ip=ip).results[0]
    ir.Operation.create("affine.store", operands=[x, dst, *ivs], attributes={"map": ident}, loc=loc, ip=ip)


@register("loopopt-copies-to-loops", "a memref.copy left by bufferization becomes an affine loop nest")
def copies_to_loops(module: ir.Module, filename: str) -> str:
    """memref.copy is opaque to loop fusion (one op over whole buffers); the same copy written
    as a loop nest of affine.load/affine.store is an ordinary nest loopopt can fuse or forward.
    Both operands have the same shape (memref.copy's contract), so the source's bounds serve."""
    count = 0
    with module.context:
        for op in mlir.walk_list(module.operation):
            if op.name != "memref.copy" or not isinstance(op.operands[0].type, ir.MemRefType):
                continue
            with op.location:
                _loop_nest(op.operands[0], op.operands[1], ir.InsertionPoint(op), op.location)
            op.erase()
            count += 1
    return f"{count} memref.copy rewritten as loop nests" if count else ""


# ----------------------------------------------------------------------------- views

def _static(values, what: str) -> list[int]:
    vals = list(values)
    if any(v == mlir.DYNAMIC or v == -(2 ** 63) for v in vals):
        raise ValueError(f"dynamic {what}")
    return vals


def _dense_i64(op: ir.Operation, name: str) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


def _reassociation(op: ir.Operation) -> list[list[int]]:
    return [[ir.IntegerAttr(i).value for i in ir.ArrayAttr(g)] for g in ir.ArrayAttr(op.attributes["reassociation"])]


def view_index_map(view: ir.Operation) -> list:
    """The source indices of element (d0, ..., dn) of the view, as affine exprs of the view's
    indices (ValueError if the view has dynamic offsets, strides or inner sizes).

    subview:  s_k = offset_k + stride_k * d_j (dropped unit dims: s_k = offset_k)
    expand:   group [k1..kn] of the result: s_g = sum_j d_kj * prod(size of k(j+1)..kn)
    collapse: group [k1..kn] of the source: s_kj = (d_g floordiv prod(size of k(j+1)..kn)) mod size_kj;
              to rank 0 (no groups): every source dim has size 1, s_k = 0
    cast:     s_k = d_k"""
    name = view.name
    src_t, res_t = ir.MemRefType(view.operands[0].type), ir.MemRefType(view.results[0].type)
    d = [ir.AffineDimExpr.get(i) for i in range(res_t.rank)]
    if name == "memref.cast":
        return d
    if name == "memref.subview":
        offsets = _static(_dense_i64(view, "static_offsets"), "offset")
        sizes = _static(_dense_i64(view, "static_sizes"), "size")
        strides = _static(_dense_i64(view, "static_strides"), "stride")
        kept = _kept_dims(sizes, list(res_t.shape))
        out, j = [], 0
        for k in range(src_t.rank):
            if k in kept:
                out.append(ir.AffineConstantExpr.get(offsets[k]) + d[j] * strides[k])
                j += 1
            else:
                out.append(ir.AffineConstantExpr.get(offsets[k]))
        return out
    if name == "memref.expand_shape":
        shape = list(res_t.shape)
        out = []
        for group in _reassociation(view):
            _static([shape[k] for k in group[1:]], "inner size")
            e = ir.AffineConstantExpr.get(0)
            for j, k in enumerate(group):
                e = e + d[k] * _prod(shape[m] for m in group[j + 1:])
            out.append(e)
        return out
    if name == "memref.collapse_shape":
        shape = list(src_t.shape)
        # a collapse to rank 0 has no groups: its source dims are all of size 1, each indexed by 0
        out = [ir.AffineConstantExpr.get(0) if shape[k] == 1 else None for k in range(src_t.rank)]
        for g, group in enumerate(_reassociation(view)):
            _static([shape[k] for k in group[1:]], "inner size")
            for j, k in enumerate(group):
                inner = _prod(shape[m] for m in group[j + 1:])
                e = ir.AffineExpr.get_floor_div(d[g], inner) if inner != 1 else d[g]
                out[k] = ir.AffineExpr.get_mod(e, shape[k]) if j > 0 else e
        if any(e is None for e in out):
            raise ValueError("a source dim in no group of the collapse")
        return out
    raise ValueError(f"{name} is not a view the lowering re-indexes")


def _prod(xs) -> int:
    p = 1
    for x in xs:
        p *= x
    return p


def _kept_dims(sizes: list[int], result_shape: list[int]) -> set:
    """Which source dims a (possibly rank-reducing) subview keeps, matched in order. Only unit
    dims are dropped, and a unit dim is indexed by 0 whether kept or dropped, so where the
    choice is ambiguous every choice gives the same element."""
    kept, j = set(), 0
    for k, s in enumerate(sizes):
        if j < len(result_shape) and s == result_shape[j]:
            kept.add(k)
            j += 1
        elif s != 1:
            raise ValueError("cannot match the subview's dropped dims")
    if j != len(result_shape):
        raise ValueError("cannot match the subview's dropped dims")
    return kept


FOLDED_VIEWS = ("memref.subview", "memref.expand_shape", "memref.collapse_shape", "memref.cast")
_ACCESS_MEMREF = {"affine.load": 0, "affine.store": 1}


def _fold_access(op: ir.Operation) -> bool:
    """Re-index one affine.load/store through its chain of views onto the viewed buffer."""
    pos = _ACCESS_MEMREF[op.name]
    memref = op.operands[pos]
    amap = mlir.affine_map_attr(op, "map")
    changed = False
    while True:
        view, _ = mlir.value_owner(memref)
        if view is None or view.name not in FOLDED_VIEWS:
            break
        exprs = view_index_map(view)  # ValueError: leave this access alone
        amap = ir.AffineMap.get(amap.n_dims, amap.n_symbols, [e.compose(amap) for e in exprs])
        memref = view.operands[0]
        changed = True
    if changed:
        op.operands[pos] = memref
        op.attributes["map"] = ir.AffineMapAttr.get(amap)
    return changed


@register("loopopt-fold-reshape-views",
          "affine accesses through subview/expand_shape/collapse_shape/cast re-indexed onto the buffer")
def fold_reshape_views(module: ir.Module, filename: str) -> str:
    """A view is an index map onto its source (view_index_map); an affine access through a chain
    of views is the same access with the maps composed. fold-memref-alias-ops leaves reshapes in
    affine accesses; re-indexed here, loopopt sees every access's real buffer and elements. Views
    left without uses are erased; a reshape view that still has uses is an error (sound lowering
    never leaves one for the analysis to guess at)."""
    folded = 0
    with module.context:
        for op in mlir.walk_list(module.operation):
            if op.name in _ACCESS_MEMREF:
                try:
                    folded += _fold_access(op)
                except ValueError:
                    pass
        erased = _erase_dead_views(module)
        for op in mlir.walk(module.operation):
            if op.name in UNMAPPED_VIEWS:
                user = next((mlir.operation(u.owner) for u in op.results[0].uses), None)
                why = f"used by {user.name} at {mlir.location_of(user, filename)}" if user is not None else "left over"
                raise cannot_lower(op, filename, f"a reshape view the lowering cannot re-index ({why}); "
                                   "see docs/frontend.md")
    return f"{folded} access(es) re-indexed, {erased} view(s) erased" if folded or erased else ""


def _erase_dead_views(module: ir.Module) -> int:
    erased, again = 0, True
    while again:
        again = False
        for op in mlir.walk_list(module.operation):
            if op.name in FOLDED_VIEWS and next(iter(op.results[0].uses), None) is None:
                op.erase()
                erased += 1
                again = True
    return erased


# ----------------------------------------------------------------------------- output check

def output_op_problem(op: ir.Operation) -> str | None:
    if op.name in OUTPUT_EXTRA_OPS:
        return None
    if op.name in UNMAPPED_VIEWS:
        return "a view whose index map loopopt's access analysis does not model survived the lowering"
    if op.name.split(".", 1)[0] not in OUTPUT_DIALECTS:
        return (f"still there after the lowering; loopopt models only {', '.join(OUTPUT_DIALECTS[1:])} "
                "(see docs/frontend.md)")
    return None


@register("loopopt-check-lowered", "the module verifies and holds only ops loopopt models")
def check_lowered(module: ir.Module, filename: str) -> str:
    for op in mlir.walk(module.operation):
        why = output_op_problem(op)
        if why is not None:
            raise cannot_lower(op, filename, why)
    why = mlir.verify(module.operation)
    if why is not None:
        raise LoopOptError(f"{filename}: error: the lowered module does not verify: {why}")
    return ""
