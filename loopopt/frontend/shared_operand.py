"""loopopt-matmul-of-broadcast-operand: a batched product whose right operand is one matrix
broadcast over the batch is one matrix product of the batch's rows.

torch decomposes `F.linear(x, W)` of a 3-D input it cannot view as a matrix (a transposed one:
nn.MultiheadAttention with `batch_first=True` transposes its input before the projections) as
`matmul(x, W.t())`, which torch-mlir writes as a broadcast of W^T over the batch and a batched
product:

    %wb = linalg.generic {maps [(b, k, n) -> (k, n), (b, k, n) -> (b, k, n)], all parallel}
            ins(%wt : KxN) outs(tensor.empty : BxKxN) { linalg.yield %in }
    %y  = linalg.batch_matmul ins(%x, %wb : BxMxK, BxKxN) outs(%c : BxMxN)

The broadcast materialises B copies of the weight (B x K x N elements: 50 MB for a 768 x 256
projection over 64 sequence positions, which the constant fold then bakes into the program), and
the product reads each copy once: B times the weight's bytes per call where one matrix would do.

Rule. A `linalg.batch_matmul` of its default maps (A[b, m, k], R[b, k, n], C[b, m, n]) with operands
A: B x M x K, R: B x K x N, C: B x M x N of one element type, where R is the result of
* a `linalg.generic` with one input W of rank 2 at the map (b, k, n) -> (k, n), one output at the
  identity map, every loop parallel, whose body yields its input's element unchanged; or
* a `linalg.broadcast` of a rank-2 W with `dimensions = [0]`,
becomes

    %a = tensor.collapse_shape A [[0, 1], [2]]    (B*M) x K
    %c = tensor.collapse_shape C [[0, 1], [2]]    (B*M) x N
    %r = linalg.matmul ins(%a, W) outs(%c)
    %y = tensor.expand_shape %r [[0, 1], [2]] output_shape [B, M, N]

Exact: R[b, k, n] = W[k, n] for every b, so y[b, m, n] = C[b, m, n] + sum_k A[b, m, k] * W[k, n],
which is row b * M + m of the matrix product, computed by the same multiplies and adds in the same
order of k; collapsing the two leading dimensions of a row-major tensor keeps every element's
position. With a dynamic size (torch.compile's dynamic batch) no reshape is made (the product's
loops would be bounded by the dims of a collapsed buffer, a view the lowering does not re-index):
for float elements the product becomes a `linalg.generic` over batch_matmul's own loops (b, m, n,
k) reading W at (k, n) where it read R at (b, k, n), with the op's own body for floats
(`C + A * B`: the same multiply and add on the same values). The broadcast, left without readers,
is erased. A batched product whose left operand is
the broadcast one keeps it (its batch is in the columns of the product: no reshape makes it one
matrix product), and says so.

Every decision is one entry of the step's note (the driver turns each into a remark).
"""
from __future__ import annotations

from .. import mlir
from ..mlir import ir
from .gather_recompute import _dim_of, erase_dead_tensor_ops
from .registry import register

STEP = "loopopt-matmul-of-broadcast-operand"
DECISION_SEPARATOR = " | "
PASSED_REMARK = "[SHARED OPERAND] a batched product of one broadcast matrix runs as one matrix product"
MISSED_REMARK = "[STOP SHARED OPERAND] the broadcast operand is materialised"


def _owner(v: ir.Value) -> ir.Operation | None:
    owner, _ = mlir.value_owner(v)
    return owner


def _maps(op: ir.Operation) -> list:
    return [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]


def broadcast_source(op: ir.Operation | None) -> ir.Value | None:
    """W when `op` broadcasts a rank-2 W over a new leading dimension (the rule's two forms),
    else None."""
    if op is None or len(op.results) != 1:
        return None
    if op.name == "linalg.broadcast":
        dims = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
        w = op.operands[0]
        return w if dims == [0] and _rank(w) == 2 and _rank(op.results[0]) == 3 else None
    if op.name != "linalg.generic" or len(op.operands) != 2:
        return None
    w = op.operands[0]
    if _rank(w) != 2 or _rank(op.results[0]) != 3:
        return None
    kinds = [str(ir.Attribute(a)) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    if any("parallel" not in k for k in kinds):
        return None
    in_map, out_map = _maps(op)
    if in_map.n_symbols or out_map.n_symbols or in_map.n_dims != 3:
        return None
    if [_dim_of(e) for e in in_map.results] != [1, 2] or [_dim_of(e) for e in out_map.results] != [0, 1, 2]:
        return None
    body = op.regions[0].blocks[0]
    ops = mlir.block_ops(body)
    if len(ops) != 1 or ops[0].name != "linalg.yield" or ops[0].operands[0] != body.arguments[0]:
        return None
    return w


def _rank(v: ir.Value) -> int | None:
    return ir.RankedTensorType(v.type).rank if isinstance(v.type, ir.RankedTensorType) else None


def _element(v: ir.Value):
    return ir.RankedTensorType(v.type).element_type


# linalg.batch_matmul's own maps over (b, m, n, k): A[b, m, k], R[b, k, n], C[b, m, n]
DEFAULT_MAPS = ([0, 1, 3], [0, 3, 2], [0, 1, 2])


def default_maps(bmm: ir.Operation) -> bool:
    """True iff `bmm` has no `indexing_maps` or exactly the op's default ones (the printer writes
    them out)."""
    if "indexing_maps" not in bmm.attributes:
        return True
    maps = _maps(bmm)
    return (len(maps) == 3 and all(m.n_dims == 4 and not m.n_symbols for m in maps)
            and tuple([_dim_of(e) for e in m.results] for m in maps) == DEFAULT_MAPS)


def refusal(bmm: ir.Operation) -> str | None:
    """Why `bmm` (a linalg.batch_matmul with a broadcast operand) stays batched, or None."""
    if not default_maps(bmm):
        return "its indexing maps are not the default ones (a transposed or broadcast operand)"
    if len(bmm.operands) != 3 or len(bmm.results) != 1:
        return "it is not one product of three tensors"
    a, r, c = bmm.operands
    if any(_rank(v) != 3 for v in (a, r, c)):
        return "an operand is not a ranked 3-D tensor"
    if len({str(_element(v)) for v in (a, r, c)}) != 1:
        return "its operands' element types differ"
    if dynamic(bmm) and not isinstance(_element(c), ir.FloatType):
        return "a size is dynamic and its elements are not floats"
    if broadcast_source(_owner(r)) is None:
        return "its broadcast operand is the left one (the batch runs along the product's columns)"
    return None


def _shape_text(v: ir.Value) -> str:
    t = ir.RankedTensorType(v.type)
    return "x".join("?" if d == mlir.DYNAMIC else str(d) for d in t.shape) + f"x{t.element_type}"


def dynamic(bmm: ir.Operation) -> bool:
    """Whether some operand of `bmm` has a dynamic size."""
    return any(d == mlir.DYNAMIC for v in bmm.operands for d in ir.RankedTensorType(v.type).shape)


def contraction_text(bmm: ir.Operation, w: ir.Value) -> str:
    """A private function (A, W, C) -> Y: the batched product with W read at (k, n) in place of
    R[b, k, n], as a `linalg.generic` over batch_matmul's loops (b, m, n, k) whose body is the
    op's own for floats (C + A * B)."""
    a_t, w_t, c_t = _tensor_types(bmm, w)
    et = _element(bmm.operands[2])
    maps = ", ".join(f"affine_map<(b, m, n, k) -> ({r})>" for r in ("b, m, k", "k, n", "b, m, n"))
    lines = [
        f"%y = linalg.generic {{indexing_maps = [{maps}], iterator_types = "
        f"[\"parallel\", \"parallel\", \"parallel\", \"reduction\"]}} ins(%a, %w : {a_t}, {w_t}) outs(%c : {c_t}) {{",
        f"^bb0(%x: {et}, %v: {et}, %acc: {et}):",
        f"  %p = arith.mulf %x, %v : {et}",
        f"  %s = arith.addf %acc, %p : {et}",
        f"  linalg.yield %s : {et}",
        f"}} -> {c_t}",
    ]
    return _function_text(bmm, w, lines)


def product_text(bmm: ir.Operation, w: ir.Value) -> str:
    """A private function (A, W, C) -> Y computing the rule's replacement of `bmm` on its operands
    (static sizes)."""
    a, _, c = bmm.operands
    at, ct = ir.RankedTensorType(a.type), ir.RankedTensorType(c.type)
    et = at.element_type

    def merged(t) -> str:
        return f"tensor<{t.shape[0] * t.shape[1]}x{t.shape[2]}x{et}>"

    sizes = [str(d) for d in ct.shape]  # static (refusal): the verifier ties them to A's and W's
    a_t, w_t, c_t = _tensor_types(bmm, w)
    lines = [
        f"%a2 = tensor.collapse_shape %a [[0, 1], [2]] : {a_t} into {merged(at)}",
        f"%c2 = tensor.collapse_shape %c [[0, 1], [2]] : {c_t} into {merged(ct)}",
        f"%r2 = linalg.matmul ins(%a2, %w : {merged(at)}, {w_t}) outs(%c2 : {merged(ct)}) -> {merged(ct)}",
        f"%y = tensor.expand_shape %r2 [[0, 1], [2]] output_shape [{', '.join(sizes)}] : {merged(ct)} into {c_t}",
    ]
    return _function_text(bmm, w, lines)


def _tensor_types(bmm: ir.Operation, w: ir.Value) -> tuple[str, str, str]:
    """The tensor types of A, W and C (batch_matmul's left operand and init, the matrix W) as text."""
    a, _, c = bmm.operands
    return tuple(f"tensor<{_shape_text(v)}>" for v in (a, w, c))


def _function_text(bmm: ir.Operation, w: ir.Value, lines: list[str]) -> str:
    """A private function @shared(%a: A, %w: W, %c: C) -> C whose body is `lines` computing %y,
    then returning it."""
    a_t, w_t, c_t = _tensor_types(bmm, w)
    body = "\n  ".join([*lines, f"func.return %y : {c_t}"])
    return f"func.func private @shared(%a: {a_t}, %w: {w_t}, %c: {c_t}) -> {c_t} {{\n  {body}\n}}"


def rewrite(bmm: ir.Operation, w: ir.Value) -> None:
    """Replace `bmm` by the rule's matrix product on its operands (the text parsed, verified and
    inlined before it)."""
    helper = ir.Module.parse((contraction_text if dynamic(bmm) else product_text)(bmm, w), bmm.context)
    if not helper.operation.verify():
        raise ir.MLIRError("the matrix product does not verify", [])
    fn = helper.body.operations[0]
    a, _, c = bmm.operands
    with bmm.location:
        returned = mlir.inline_block(fn.regions[0].blocks[0], [a, w, c], bmm)
    bmm.results[0].replace_all_uses_with(returned[0])
    bmm.erase()


def shared_operand_products(module: ir.Module, filename: str) -> list[str]:
    """Every batched product of a broadcast right operand rewritten (module docstring); one note
    entry per batched product with a broadcast operand."""
    notes = []
    for bmm in [op for op in mlir.walk(module.operation) if op.name == "linalg.batch_matmul"]:
        if len(bmm.operands) < 2 or not any(broadcast_source(_owner(v)) is not None for v in bmm.operands[:2]):
            continue
        where = f"linalg.batch_matmul at {mlir.location_of(bmm, filename)}"
        why = refusal(bmm)
        if why is not None:
            notes.append(f"kept: {where}: {why}")
            continue
        w = broadcast_source(_owner(bmm.operands[1]))
        b = ir.RankedTensorType(bmm.operands[0].type).shape[0]
        try:
            rewrite(bmm, w)
        except ir.MLIRError as e:  # a bug of ours: the product is left as it is, and says so
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            notes.append(f"kept: {where}: [INTERNAL] the matrix product did not parse ({first})")
            continue
        if b == mlir.DYNAMIC:
            notes.append(f"one product: {where}: a dynamic batch reads one {_shape_text(w)} matrix")
        else:
            notes.append(f"one product: {where}: a batch of {b} over one {_shape_text(w)} matrix")
    if any(not n.startswith("kept") for n in notes):
        erase_dead_tensor_ops(module)
    return notes


@register(STEP, "a linalg.batch_matmul whose right operand broadcasts one matrix over the batch (torch's "
                "F.linear of a transposed 3-D input) runs as one linalg.matmul of the batch's rows")
def matmul_of_broadcast_operand(module: ir.Module, filename: str) -> str:
    return DECISION_SEPARATOR.join(shared_operand_products(module, filename))
