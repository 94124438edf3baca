"""`loopopt-scans-to-loops`: torch-mlir's `tm_tensor.scan` (torch.cumsum, cumprod) as affine loops.

torch-mlir lowers `torch.cumsum(x, d)` to `tm_tensor.scan dimension(d) inclusive(true)
ins(%x) outs(%out, %acc)`, an op of its own TMTensor dialect, which neither MLIR's bindings nor
the lowering know: such a graph ran eagerly (`cannot lower 'tm_tensor.scan'`). Its meaning
(TMTensor's own scalar implementation), along dimension d of N elements, f the op's region with
block arguments (previous output, input):

    inclusive:  out[0] = in[0];   out[j] = f(out[j - 1], in[j])        (j = 1 .. N - 1)
    exclusive:  out[0] = acc[.];  out[j] = f(out[j - 1], in[j - 1])
    acc[.] = out[N - 1] when N >= 2 (else acc keeps its initial value)

Rule. A scan along a static dimension of N >= 1 elements, or along a dynamic one when its
accumulator result is unused (the loops then guarded by `affine.if N >= 1`; torch's cumsum never
uses it), other dimensions static or dynamic, whose region holds ops without regions, becomes, before bufferization, a helper spliced in its place:
its input read through `bufferization.to_buffer ... read_only`, its results written into fresh
`memref.alloc`s returned through `bufferization.to_tensor ... restrict writable`, by affine loops
over the dimensions in order: the loops before d, then `out[.., 0, ..]` for the dimensions after
d, then `for j = 1 to N` around the dimensions after d computing `out[.., j, ..]` from
`out[.., j - 1, ..]` in memory (the region's ops moved there, in order); the accumulator (only
when its result is used) copied from its initial value, then from `out[.., N - 1, ..]`. Every
element is computed by the same ops from the same operands as TMTensor's loops: exact.

Another scan (a dynamic scanned dimension whose accumulator result is used, a region holding a
region, a type that is not a ranked tensor) is left for `loopopt-check-input`, which refuses it by name (the graph runs eagerly).
"""
from __future__ import annotations

from .. import mlir
from ..mlir import ir
from .registry import register
from .splice import splice_helper

STEP = "loopopt-scans-to-loops"
SCAN = "tm_tensor.scan"
COMBINE = "loopopt.scan_combine"  # the placeholder the region's ops replace


def _memref(t: ir.RankedTensorType) -> str:
    return str(t).replace("tensor<", "memref<", 1)


def refusal(op: ir.Operation, with_acc: bool) -> str | None:
    """Why the scan `op` is not rewritten (None if it is); `with_acc`: its accumulator result is used."""
    if len(op.operands) != 3 or len(op.results) != 2:
        return "not one input, one output and one accumulator"
    types = [o.type for o in op.operands]
    if not all(isinstance(t, ir.RankedTensorType) for t in types):
        return "an operand is not a ranked tensor"
    t = ir.RankedTensorType(types[0])
    dim = ir.IntegerAttr(op.attributes["dimension"]).value
    if not 0 <= dim < t.rank:
        return "no such dimension"
    if t.is_dynamic_dim(dim) and with_acc:
        return "the scanned dimension is dynamic and the accumulator result is used"
    if not t.is_dynamic_dim(dim) and t.get_dim_size(dim) < 1:
        return "the scanned dimension is empty"
    if str(types[1]) != str(t) or [str(r.type) for r in op.results] != [str(o) for o in types[1:]]:
        return "the output's type is not the input's"
    block = op.regions[0].blocks[0]
    if len(block.arguments) != 2 or any(o.regions for o in block.operations):
        return "its region is not two arguments and ops without regions"
    return None


def helper_text(op: ir.Operation, with_acc: bool) -> str:
    """The helper function (module docstring) for the scan `op`; its body ends in `return`."""
    t = ir.RankedTensorType(op.operands[0].type)
    a = ir.RankedTensorType(op.operands[2].type)
    e = str(t.element_type)
    dim = ir.IntegerAttr(op.attributes["dimension"]).value
    inclusive = ir.BoolAttr(op.attributes["inclusive"]).value
    rank = t.rank
    mt, ma = _memref(t), _memref(a)
    body = [f"%in_m = bufferization.to_buffer %in read_only : {t} to {mt}"]
    sizes = {}
    for k in range(rank):
        if t.is_dynamic_dim(k):
            body += [f"%c{k} = arith.constant {k} : index", f"%d{k} = tensor.dim %in, %c{k} : {t}"]
            sizes[k] = f"%d{k}"
    n = sizes.get(dim, t.get_dim_size(dim))  # a symbol when dynamic (then the accumulator is unused)
    dyn = ", ".join(sizes[k] for k in range(rank) if k in sizes)
    acc_dyn = ", ".join(sizes[k] for k in range(rank) if k in sizes and k != dim)
    body.append(f"%out = memref.alloc({dyn}) : {mt}")
    iv = [f"%i{k}" for k in range(rank)]

    def loops(dims, inner):
        opened = [f"affine.for {iv[k]} = 0 to {sizes.get(k, t.get_dim_size(k))} {{" for k in dims]
        return opened + inner + ["}"] * len(dims)

    def index(j: str) -> str:
        return ", ".join(j if k == dim else iv[k] for k in range(rank))

    acc_index = ", ".join(iv[k] for k in range(rank) if k != dim)
    before, after = list(range(dim)), list(range(dim + 1, rank))
    first = ([f"%x0 = affine.load %in_m[{index('0')}] : {mt}"] if inclusive else
             [f"%x0 = affine.load %acc_m0[{acc_index}] : {ma}"])
    first.append(f"affine.store %x0, %out[{index('0')}] : {mt}")
    step = [f"%p = affine.load %out[{index('%j - 1')}] : {mt}",
            f"%x = affine.load %in_m[{index('%j' if inclusive else '%j - 1')}] : {mt}",
            f'%v = "{COMBINE}"(%p, %x) : ({e}, {e}) -> {e}',
            f"affine.store %v, %out[{index('%j')}] : {mt}"]
    scan = loops(after, first) + [f"affine.for %j = 1 to {n} {{"] + loops(after, step) + ["}"]
    if dim in sizes:  # a dynamic scanned dimension: nothing to do when it is empty
        scan = [f"affine.if affine_set<()[s0] : (s0 - 1 >= 0)>()[{n}] {{"] + scan + ["}"]
    if not inclusive or with_acc:
        body.append(f"%acc_m0 = bufferization.to_buffer %acc0 read_only : {a} to {ma}")
    results, types = ["%r"], [str(t)]
    if with_acc:
        body.append(f"%acc = memref.alloc({acc_dyn}) : {ma}")
        src = (f"%y = affine.load %out[{index(str(n - 1))}] : {mt}" if n >= 2 else  # n static here
               f"%y = affine.load %acc_m0[{acc_index}] : {ma}")
        scan += loops(after, [src, f"affine.store %y, %acc[{acc_index}] : {ma}"])
        results.append("%ra")
        types.append(str(a))
    body += loops(before, scan)
    body.append(f"%r = bufferization.to_tensor %out restrict writable : {mt} to {t}")
    if with_acc:
        body.append(f"%ra = bufferization.to_tensor %acc restrict writable : {ma} to {a}")
    body.append(f"func.return {', '.join(results)} : {', '.join(types)}")
    return (f"func.func private @scan(%in: {t}, %acc0: {a}) -> ({', '.join(types)}) {{\n  "
            + "\n  ".join(body) + "\n}")


def _splice(op: ir.Operation, helper: ir.Module, with_acc: bool) -> None:
    """The helper's body in place of the scan, on its input and accumulator; the region's ops
    moved in place of the placeholder, on (previous output, input)."""
    returned = splice_helper(op, helper, (op.operands[0], op.operands[2]), COMBINE)
    op.results[0].replace_all_uses_with(returned[0])
    if with_acc:
        op.results[1].replace_all_uses_with(returned[1])
    op.erase()


def scans_to_loops(module: ir.Module, filename: str) -> list[str]:
    notes = []
    for op in [o for o in mlir.walk(module.operation) if o.name == SCAN]:
        where = f"{SCAN} at {mlir.location_of(op, filename)}"
        with_acc = next(iter(op.results[1].uses), None) is not None
        why = refusal(op, with_acc)
        if why is not None:
            notes.append(f"kept: {where}: {why}")
            continue
        helper = ir.Module.parse(helper_text(op, with_acc), op.context)
        _splice(op, helper, with_acc)
        notes.append(f"loops: {where}")
    return notes


@register(STEP, "torch-mlir's tm_tensor.scan (torch.cumsum) as affine loops over buffers, each element "
                "computed from the previous one as TMTensor's loops compute it")
def scans_to_loops_step(module: ir.Module, filename: str) -> str:
    return "; ".join(scans_to_loops(module, filename))
