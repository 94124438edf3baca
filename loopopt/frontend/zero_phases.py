"""loopopt-skip-inserted-zeros: a convolution over a zero-inserted input runs as phase convolutions.

Front ends lower a transposed convolution (ConvTranspose, StableHLO's lhs dilation) to a stride-1
convolution over an input with zeros inserted between its elements: `tensor.insert_slice %x into
%zeros[P][H][s]` (a fill of zero, x written every s-th element from P on), then `linalg.conv_*`
over it. Of the K taps that meet an output element o, only those with o + k = P + s*i touch an
element of x; the others multiply an inserted zero. Per spatial dimension, the outputs of one
residue r = o mod s (a phase) meet x only through the taps k = q (mod s), q = (P - r) mod s:

    y[s*a + r] = init + sum over m of x[a + m + d] * w[s*m + q],   d = (r + q - P) / s,

for m < M = ceil((K - q) / s), x read as zero outside [0, H). So the convolution is the product
over the spatial dimensions of s phases, each a convolution with the same op and attributes over
x padded with zeros (one padded copy shared by every phase), with the taps w[q::s], writing the
outputs y[r::s]; 1/s of the products per dimension, the skipped ones all products with a zero.

Skipping a product with a zero is exact where that product is a zero too and adding it would not
change the accumulator: every weight finite (0 x inf is NaN), and no accumulator starting at -0
(-0 + +0 is +0; a sum that starts anywhere else never reaches -0 in round-to-nearest, so adding
a zero to it changes nothing). The kept products are summed in the original order. Both facts
are checked at run time, before the convolution, on the weights and on the accumulators' source
(the fill's constant, decided at compile time; a broadcast's input; the init tensor otherwise):
where they hold the phases run, elsewhere the original convolution (an `scf.if`).

Every decision is one entry of the step's note (the driver turns each into a remark):
`phases: ...` or `kept: ...: <why>`, naming the convolution.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import product

from .. import mlir
from ..mlir import ir
from .registry import register

STEP = "loopopt-skip-inserted-zeros"
DECISION_SEPARATOR = " | "
PASSED_REMARK = "[SKIP INSERTED ZEROS] the convolution over a zero-inserted input runs as phase convolutions"
MISSED_REMARK = "[STOP SKIP INSERTED ZEROS] the convolution multiplies the inserted zeros"

# Named convolutions: (input, filter, output) positions of their spatial dimensions, in order
# (the input's spatial index is output + tap at stride and dilation 1). tests/test_zero_phases.py
# checks each row against the op's generalized indexing maps.
CONV_SPATIAL_DIMS: dict[str, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = {
    "linalg.conv_1d_ncw_fcw": ((2,), (2,), (2,)),
    "linalg.conv_1d_nwc_wcf": ((1,), (0,), (1,)),
    "linalg.conv_2d_nchw_fchw": ((2, 3), (2, 3), (2, 3)),
    "linalg.conv_2d_nhwc_hwcf": ((1, 2), (0, 1), (1, 2)),
    "linalg.conv_2d_nhwc_fhwc": ((1, 2), (1, 2), (1, 2)),
    "linalg.conv_2d_ngchw_fgchw": ((3, 4), (3, 4), (3, 4)),
    "linalg.conv_2d_ngchw_gfchw": ((3, 4), (3, 4), (3, 4)),
    "linalg.conv_3d_ncdhw_fcdhw": ((2, 3, 4), (2, 3, 4), (2, 3, 4)),
    "linalg.depthwise_conv_1d_ncw_cw": ((2,), (1,), (2,)),
    "linalg.depthwise_conv_2d_nchw_chw": ((2, 3), (1, 2), (2, 3)),
}
# +inf's bits per float type (a weight is finite when |w| < inf; NaN compares false).
INF_BITS = {"f16": "0x7C00", "bf16": "0x7F80", "f32": "0x7F800000", "f64": "0x7FF0000000000000"}


@dataclass(frozen=True)
class InsertedDim:
    """One spatial dimension of the pattern: x's `extent` elements written every `stride`-th
    element from `offset` on, convolved with `taps` taps into `outputs` outputs."""

    stride: int
    offset: int
    extent: int
    taps: int
    outputs: int


@dataclass(frozen=True)
class Phase:
    """The outputs y[residue::stride] of one dimension: `outputs` of them, each the sum over
    `taps` taps w[first_tap::stride] of x[a + m + shift] (zero outside x)."""

    residue: int
    first_tap: int
    taps: int
    shift: int
    outputs: int


def phases_of(dim: InsertedDim) -> list[Phase]:
    """The phases of one dimension (module docstring), residues 0 .. stride-1."""
    s, out = dim.stride, []
    for r in range(s):
        q = (dim.offset - r) % s
        taps = max(0, -(-(dim.taps - q) // s))
        outputs = max(0, -(-(dim.outputs - r) // s))
        out.append(Phase(r, q, taps, (r + q - dim.offset) // s, outputs))
    return out


@dataclass(frozen=True)
class Padding:
    """x padded with `low` zeros before it, `size` elements in all: every phase's window
    [shift, shift + outputs + taps - 1) of x lies inside it at `low + shift`."""

    low: int
    size: int


def padding_of(dim: InsertedDim) -> Padding:
    live = [p for p in phases_of(dim) if p.outputs and p.taps]
    low = max([0] + [-p.shift for p in live])
    high = max([dim.extent] + [p.shift + p.outputs + p.taps - 1 for p in live])
    return Padding(low, low + high)


def products(dims: list[InsertedDim]) -> tuple[int, int]:
    """(original, phase) products per output-channel pair: taps x outputs over the dimensions."""
    original = math.prod(d.taps * d.outputs for d in dims)
    phased = sum(math.prod(p.taps * p.outputs for p in combo) for combo in product(*(phases_of(d) for d in dims)))
    return original, phased


# ----------------------------------------------------------------------------- matching

@dataclass
class Match:
    """A convolution over a zero-inserted input, with what the rewrite needs."""

    conv: ir.Operation
    insert: ir.Operation  # tensor.insert_slice of x into the zeros
    fill: ir.Operation  # linalg.fill of the zeros
    zero: str  # the fill's constant, as text ("0.000000e+00 : f32")
    dims: list[InsertedDim]
    spatial: tuple  # CONV_SPATIAL_DIMS row
    offsets: list[int]
    sizes: list[int]
    strides: list[int]
    init_check: ir.Value | None  # the tensor whose elements must not be -0 (None: known)
    init_fill: ir.Value | None = None  # the scalar the init is filled with, when it is a fill
    expand: ir.Operation | None = None  # a tensor.expand_shape between the insert and the conv
    inserted_dims: tuple = ()  # the insert's dimension of each of the conv's spatial input dims


def _owner(v: ir.Value) -> ir.Operation | None:
    owner, _ = mlir.value_owner(v)
    return owner


def _static_type(v: ir.Value) -> ir.RankedTensorType | None:
    t = v.type
    if not isinstance(t, ir.RankedTensorType):
        return None
    t = ir.RankedTensorType(t)
    return None if any(t.is_dynamic_dim(i) for i in range(t.rank)) else t


def _i64s(op: ir.Operation, name: str) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


def _unit_attr(op: ir.Operation, name: str) -> bool:
    """A conv's strides/dilations attribute is all ones (absent means ones)."""
    if name not in op.attributes:
        return True
    return all(int(x) == 1 for x in ir.DenseIntElementsAttr(op.attributes[name]))


def _float_constant(fill: ir.Operation) -> ir.FloatAttr | None:
    """The scalar a linalg.fill writes, when it is a float arith.constant."""
    c = _owner(fill.operands[0])
    if c is None or c.name != "arith.constant" or not isinstance(c.attributes["value"], ir.FloatAttr):
        return None
    return ir.FloatAttr(c.attributes["value"])


def _zero_constant(fill: ir.Operation) -> str | None:
    """The fill's scalar as text when it is a float constant zero (either sign), else None."""
    attr = _float_constant(fill)
    return str(attr) if attr is not None and attr.value == 0.0 else None


def _negative_zero_free(init: ir.Value) -> tuple[bool, ir.Value | None]:
    """(possible, the tensor to check at run time) for "no accumulator starts at -0": a fill of
    a constant is decided now (impossible when the constant is -0); a broadcast's input stands
    for its result; any other init is checked whole."""
    owner = _owner(init)
    if owner is not None and owner.name == "linalg.fill":
        attr = _float_constant(owner)
        if attr is not None:
            return not (attr.value == 0.0 and math.copysign(1.0, attr.value) < 0), None
        return True, init
    if owner is not None and owner.name == "tensor.expand_shape":  # a grouped init: its elements are the source's
        owner = _owner(owner.operands[0])
    if owner is not None and owner.name == "linalg.broadcast" and _static_type(owner.operands[0]):
        return True, owner.operands[0]
    return True, init


def match(conv: ir.Operation) -> Match | str | None:
    """The pattern at `conv`, why it is refused (a string), or None when `conv` does not read a
    zero-inserted input (nothing to say)."""
    spatial = CONV_SPATIAL_DIMS.get(conv.name)
    if spatial is None or len(conv.operands) != 3:
        return None
    insert, expand = _owner(conv.operands[0]), None
    if insert is not None and insert.name == "tensor.expand_shape":  # grouped: (n, g*c) -> (n, g, c)
        expand, insert = insert, _owner(insert.operands[0])
    if insert is None or insert.name != "tensor.insert_slice":
        return None
    fill = _owner(insert.operands[1])
    if fill is None or fill.name != "linalg.fill":
        return None
    if len(insert.operands) != 2:
        return "the inserted slice has dynamic offsets, sizes or strides"
    offsets, sizes, strides = (_i64s(insert, f"static_{k}") for k in ("offsets", "sizes", "strides"))
    in_dims, filter_dims, out_dims = spatial
    inserted = _inserted_dims(expand, in_dims)
    if inserted is None:
        return "the zero-inserted input is reshaped across a spatial dimension"
    if all(strides[i] == 1 for i in inserted):
        return None  # a padded input, no zeros between its elements
    zero = _zero_constant(fill)
    if zero is None:
        return "the elements around the inserted slice are not a constant zero"
    if not (_unit_attr(conv, "strides") and _unit_attr(conv, "dilations")):
        return "the convolution has a stride or a dilation"
    types = [_static_type(v) for v in (*conv.operands, insert.operands[0])]
    if any(t is None for t in types):
        return "a shape is dynamic"
    x_t, w_t, o_t, _ = types
    if str(x_t.element_type) not in INF_BITS or w_t.element_type != x_t.element_type \
            or o_t.element_type != x_t.element_type:
        return f"elements of type {x_t.element_type} (the rewrite takes {', '.join(INF_BITS)} operands of one type)"
    dims = [InsertedDim(strides[i], offsets[i], sizes[i], w_t.get_dim_size(f), o_t.get_dim_size(o))
            for i, f, o in zip(inserted, filter_dims, out_dims)]
    possible, check = _negative_zero_free(conv.operands[2])
    if not possible:
        return "the accumulators start at -0, where a skipped zero product would change the result"
    init = _owner(conv.operands[2])
    scalar = init.operands[0] if init is not None and init.name == "linalg.fill" else None
    return Match(conv, insert, fill, zero, dims, spatial, offsets, sizes, strides, check, scalar, expand,
                 tuple(inserted))


def _inserted_dims(expand: ir.Operation | None, in_dims) -> list[int] | None:
    """The inserted tensor's dimension of each of the conv's spatial input dimensions: the same
    without an expand_shape; through one, the group each forms alone (None when a spatial
    dimension is split or joined)."""
    if expand is None:
        return list(in_dims)
    groups = [[int(ir.IntegerAttr(d).value) for d in ir.ArrayAttr(g)] for g in ir.ArrayAttr(expand.attributes["reassociation"])]
    out = []
    for i in in_dims:
        k = next((k for k, g in enumerate(groups) if i in g), None)
        if k is None or groups[k] != [i]:
            return None
        out.append(k)
    return out


# ----------------------------------------------------------------------------- the rewrite as text

def _shape(t: ir.RankedTensorType, dims: dict[int, int]) -> str:
    """`t` with the sizes of `dims` (position -> size) replaced, as a type."""
    shape = [dims.get(i, t.get_dim_size(i)) for i in range(t.rank)]
    return f"tensor<{'x'.join(map(str, shape))}x{t.element_type}>"


def _arr(xs) -> str:
    return "[" + ", ".join(map(str, xs)) + "]"


def _attr_dict(op: ir.Operation) -> str:
    named = [f"{name} = {op.attributes[name]}" for name in op.attributes if name != "operandSegmentSizes"]
    return f" {{{', '.join(named)}}}" if named else ""


def _all_of(value: str, t: ir.RankedTensorType, acc: str, out: str, loc: str, constant: str,
            test: list[str]) -> list[str]:
    """Ops folding "every element %in of `value` passes `test`" (body ops ending in %pass, with
    %{out}_c bound to `constant`) into the i1 tensor `acc`, as the i1 tensor `out`."""
    dims = ", ".join(f"d{i}" for i in range(t.rank))
    reductions = ", ".join(['"reduction"'] * t.rank)
    return [
        f"%{out}_c = arith.constant {constant} {loc}",
        f"%{out} = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>, affine_map<({dims}) -> ()>], "
        f"iterator_types = [{reductions}]}} ins({value} : {t}) outs({acc} : tensor<i1>) {{",
        f"^bb0(%in: {t.element_type}, %ok: i1):",
        *(f"  {op} {loc}" for op in test),
        f"  %both = arith.andi %ok, %pass : i1 {loc}",
        f"  linalg.yield %both : i1 {loc}",
        f"}} -> tensor<i1> {loc}",
    ]


def _all_finite(value: str, t: ir.RankedTensorType, acc: str, out: str, loc: str) -> list[str]:
    """Every element of `value` finite: |w| < inf (false for NaN)."""
    ety = t.element_type
    return _all_of(value, t, acc, out, loc, f"{INF_BITS[str(ety)]} : {ety}",
                   [f"%abs = math.absf %in : {ety}", f"%pass = arith.cmpf olt, %abs, %{out}_c : {ety}"])


def _no_negative_zero(value: str, t: ir.RankedTensorType, acc: str, out: str, loc: str) -> list[str]:
    """No element of `value` is -0: its bits are not the sign bit alone."""
    ety = t.element_type
    bits = ir.FloatType(ety).width
    return _all_of(value, t, acc, out, loc, f"{-(1 << (bits - 1))} : i{bits}",
                   [f"%bits = arith.bitcast %in : {ety} to i{bits}", f"%pass = arith.cmpi ne, %bits, %{out}_c : i{bits}"])


def _phase_init(m: Match, k: int, ok_t: str, o_t, o_off, o_size, o_str, loc: str) -> list[str]:
    """Ops making %a{k}, phase k's accumulators as the convolution's init holds them, contiguous:
    a fill or broadcast made again at the phase's shape (the same values); any other init copied
    from its strided slice. A buffer of its own (bufferization.alloc_tensor): a tensor.empty
    would become the strided slice of the result (eliminate-empty-tensors)."""
    owner = _owner(m.conv.operands[2])
    head = [f"%e{k} = bufferization.alloc_tensor() : {ok_t} {loc}"]
    if m.init_fill is not None:
        return head + [f"%a{k} = linalg.fill ins(%fill : {m.init_fill.type}) outs(%e{k} : {ok_t}) -> {ok_t} {loc}"]
    if owner is not None and owner.name == "linalg.broadcast" and m.init_check is not None:
        dims = _arr(list(ir.DenseI64ArrayAttr(owner.attributes["dimensions"])))
        return head + [f"%a{k} = linalg.broadcast ins(%check : {m.init_check.type}) outs(%e{k} : {ok_t}) "
                       f"dimensions = {dims} {loc}"]
    grouped = _grouped_broadcast(m, o_size)
    if grouped is not None:  # the bias of a grouped convolution: broadcast at the phase's shape, then grouped
        broadcast, groups, flat_t = grouped
        dims = _arr(list(ir.DenseI64ArrayAttr(broadcast.attributes["dimensions"])))
        return [f"%e{k} = bufferization.alloc_tensor() : {flat_t} {loc}",
                f"%b{k} = linalg.broadcast ins(%check : {m.init_check.type}) outs(%e{k} : {flat_t}) dimensions = {dims} {loc}",
                f"%a{k} = tensor.expand_shape %b{k} {groups} output_shape {_arr(o_size)} : {flat_t} into {ok_t} {loc}"]
    return head + [
        f"%i{k} = tensor.extract_slice %init{_arr(o_off)} {_arr(o_size)} {_arr(o_str)} : {o_t} to {ok_t} {loc}",
        f"%a{k} = linalg.copy ins(%i{k} : {ok_t}) outs(%e{k} : {ok_t}) -> {ok_t} {loc}",
    ]


def _grouped_broadcast(m: Match, o_size: list[int]) -> tuple[ir.Operation, ir.Attribute, str] | None:
    """(broadcast, expand's groups, the phase's type before the expand) when the init is a
    tensor.expand_shape of a broadcast of `m.init_check` (a grouped convolution's bias) whose
    groups keep every spatial output dimension alone: a phase's init is then the broadcast made at
    the phase's sizes, expanded the same way. None otherwise (the init's strided slice is copied)."""
    expand = _owner(m.conv.operands[2])
    if expand is None or expand.name != "tensor.expand_shape" or m.init_check is None:
        return None
    broadcast = _owner(expand.operands[0])
    if broadcast is None or broadcast.name != "linalg.broadcast" or broadcast.operands[0] != m.init_check:
        return None
    groups = [[int(ir.IntegerAttr(d).value) for d in ir.ArrayAttr(g)] for g in ir.ArrayAttr(expand.attributes["reassociation"])]
    spatial = set(m.spatial[2])
    if any(len(g) > 1 and spatial.intersection(g) for g in groups):
        return None
    flat = [math.prod(o_size[j] for j in g) for g in groups]
    ety = ir.RankedTensorType(expand.results[0].type).element_type
    return broadcast, expand.attributes["reassociation"], f"tensor<{'x'.join(map(str, flat))}x{ety}>"


def _x_in_zeros(m: Match, name: str, inserted_t, conv_t, offsets, strides, loc: str) -> list[str]:
    """Ops making %{name}: x inserted (the conv's sizes, these offsets and strides) into a zero
    fill of type `inserted_t`, then expanded to `conv_t` as the conv's input was, if it was."""
    ety = ir.RankedTensorType(m.insert.results[0].type).element_type
    x_t = m.insert.operands[0].type
    inserted = f"%{name}i" if m.expand else f"%{name}"
    out = [
        f"%{name}0 = tensor.empty() : {inserted_t} {loc}",
        f"%{name}1 = linalg.fill ins(%zero : {ety}) outs(%{name}0 : {inserted_t}) -> {inserted_t} {loc}",
        f"{inserted} = tensor.insert_slice %x into %{name}1{_arr(offsets)} {_arr(m.sizes)} {_arr(strides)} "
        f": {x_t} into {inserted_t} {loc}",
    ]
    if m.expand is not None:
        shape = str(conv_t).split("<", 1)[1].rsplit("x", 1)[0].split("x")
        out.append(f"%{name} = tensor.expand_shape {inserted} {m.expand.attributes['reassociation']} output_shape "
                   f"[{', '.join(shape)}] : {inserted_t} into {conv_t} {loc}")
    return out


def rewrite_text(m: Match, loc: str) -> tuple[str, int]:
    """A private function @phases(x, w, init[, check]) -> y computing the convolution of `m` as
    the module docstring says (guard, phases, the original in the else branch), and the number
    of phase convolutions."""
    conv = m.conv
    x_t = ir.RankedTensorType(m.insert.operands[0].type)
    z_t, w_t, o_t = (ir.RankedTensorType(v.type) for v in conv.operands)
    in_dims, filter_dims, out_dims = m.spatial
    attrs = _attr_dict(conv)
    args = [f"%x: {x_t}", f"%w: {w_t}", f"%init: {o_t}"]
    check_t = None
    if m.init_check is not None:
        check_t = ir.RankedTensorType(m.init_check.type)
        args.append(f"%check: {check_t}")
    if m.init_fill is not None:
        args.append(f"%fill: {m.init_fill.type}")
    body = [
        f"%true = arith.constant true {loc}",
        f"%zero = arith.constant {m.zero} {loc}",
        f"%g0 = tensor.empty() : tensor<i1> {loc}",
        f"%g1 = linalg.fill ins(%true : i1) outs(%g0 : tensor<i1>) -> tensor<i1> {loc}",
        *_all_finite("%w", w_t, "%g1", "g2", loc),
    ]
    guard = "%g2"
    if check_t is not None:
        body += _no_negative_zero("%check", check_t, "%g2", "g3", loc)
        guard = "%g3"
    body.append(f"%ok = tensor.extract {guard}[] : tensor<i1> {loc}")
    # the padded x every phase reads a window of (at the insert's rank, then as the conv reads it)
    zi_t = ir.RankedTensorType(m.insert.results[0].type)
    pads = [padding_of(d) for d in m.dims]
    p_t = _shape(z_t, {i: p.size for i, p in zip(in_dims, pads)})
    pi_t = _shape(zi_t, {i: p.size for i, p in zip(m.inserted_dims, pads)})
    p_off = list(m.offsets)
    p_str = list(m.strides)
    for i, p in zip(m.inserted_dims, pads):
        p_off[i], p_str[i] = p.low, 1
    padded = _x_in_zeros(m, "xp", pi_t, p_t, p_off, p_str, loc)
    inits_and_convs, inserts, y, count = [], [], "%init", 0
    for k, combo in enumerate(product(*(phases_of(d) for d in m.dims))):
        if any(p.outputs == 0 for p in combo):
            continue
        o_sizes = {o: p.outputs for o, p in zip(out_dims, combo)}
        ok_t = _shape(o_t, o_sizes)
        o_off = [0] * o_t.rank
        o_size = [o_t.get_dim_size(i) for i in range(o_t.rank)]
        o_str = [1] * o_t.rank
        for o, p, d in zip(out_dims, combo, m.dims):
            o_off[o], o_size[o], o_str[o] = p.residue, p.outputs, d.stride
        inits_and_convs += _phase_init(m, k, ok_t, o_t, o_off, o_size, o_str, loc)
        result = f"%a{k}"
        if all(p.taps for p in combo):
            xk_t = _shape(z_t, {i: p.outputs + p.taps - 1 for i, p in zip(in_dims, combo)})
            wk_t = _shape(w_t, {f: p.taps for f, p in zip(filter_dims, combo)})
            x_off, x_size = [0] * z_t.rank, [z_t.get_dim_size(i) for i in range(z_t.rank)]
            for i, p, pad in zip(in_dims, combo, pads):
                x_off[i], x_size[i] = pad.low + p.shift, p.outputs + p.taps - 1
            w_off, w_size, w_str = [0] * w_t.rank, [w_t.get_dim_size(i) for i in range(w_t.rank)], [1] * w_t.rank
            for f, p, d in zip(filter_dims, combo, m.dims):
                w_off[f], w_size[f], w_str[f] = p.first_tap, p.taps, d.stride
            inits_and_convs += [
                f"%x{k} = tensor.extract_slice %xp{_arr(x_off)} {_arr(x_size)} {_arr([1] * z_t.rank)} : {p_t} to {xk_t} {loc}",
                f"%w{k} = tensor.extract_slice %w{_arr(w_off)} {_arr(w_size)} {_arr(w_str)} : {w_t} to {wk_t} {loc}",
                f"%c{k} = {conv.name}{attrs} ins(%x{k}, %w{k} : {xk_t}, {wk_t}) outs(%a{k} : {ok_t}) -> {ok_t} {loc}",
            ]
            result = f"%c{k}"
            count += 1
        # the phases' outputs are disjoint: each written back into the init, in place
        inserts.append(f"%y{k + 1} = tensor.insert_slice {result} into {y}{_arr(o_off)} {_arr(o_size)} "
                       f"{_arr(o_str)} : {ok_t} into {o_t} {loc}")
        y = f"%y{k + 1}"
    original = [
        *_x_in_zeros(m, "z", zi_t, z_t, m.offsets, m.strides, loc),
        f"%conv = {conv.name}{attrs} ins(%z, %w : {z_t}, {w_t}) outs(%init : {o_t}) -> {o_t} {loc}",
        f"scf.yield %conv : {o_t} {loc}",
    ]
    # the phases run unconditionally (their results unused where the check fails); only the
    # write-back is in the branch, beside the original: in a block of its own, fusion cannot put a
    # phase's strided write-back in its convolution's nest
    body += [
        *padded, *inits_and_convs,
        f"%y = scf.if %ok -> ({o_t}) {{", *inserts, f"scf.yield {y} : {o_t} {loc}",
        "} else {", *original, f"}} {loc}",
        f"func.return %y : {o_t} {loc}",
    ]
    text = (f"func.func private @phases({', '.join(args)}) -> {o_t} {{\n  " + "\n  ".join(body) + "\n}")
    return text, count


# ----------------------------------------------------------------------------- splicing

def parse_helper(m: Match, text: str) -> ir.Module:
    """`text` (one function) parsed and verified in the conv's context, before anything changes."""
    helper = ir.Module.parse(text, m.conv.context)
    if not helper.operation.verify():
        raise ir.MLIRError("the phases do not verify", [])
    return helper


def _splice(m: Match, helper: ir.Module) -> None:
    """Put the body of `helper`'s function in place of the conv, on the conv's operands."""
    conv = m.conv
    fn = helper.body.operations[0]
    actuals = [m.insert.operands[0], conv.operands[1], conv.operands[2]]
    actuals += [v for v in (m.init_check, m.init_fill) if v is not None]
    returned = mlir.inline_block(fn.regions[0].blocks[0], actuals, conv)
    conv.results[0].replace_all_uses_with(returned[0])
    conv.erase()
    # the zero-inserted input, rebuilt in the else branch: erased where nothing else reads it
    empty = _owner(m.fill.operands[-1])
    chain = [m.expand, m.insert, m.fill] + ([empty] if empty is not None and empty.name == "tensor.empty" else [])
    for dead in chain:
        if dead is not None and not list(dead.results[0].uses):
            dead.erase()


def _dims_text(m: Match) -> str:
    return "x".join(str(d.stride) for d in m.dims)


def skip_inserted_zeros(module: ir.Module, filename: str) -> list[str]:
    """Every convolution over a zero-inserted input rewritten (module docstring); one note
    entry per convolution seen."""
    notes = []
    convs = [op for op in mlir.walk(module.operation) if op.name in CONV_SPATIAL_DIMS]
    for conv in convs:
        found = match(conv)
        if found is None:
            continue
        where = f"{conv.name} at {mlir.location_of(conv, filename)}"
        if isinstance(found, str):
            notes.append(f"kept: {where}: {found}")
            continue
        text, count = rewrite_text(found, str(conv.location))
        try:
            helper = parse_helper(found, text)
        except ir.MLIRError as e:  # a bug of ours: the convolution is left as it is, and says so
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            notes.append(f"kept: {where}: [INTERNAL] the phases did not parse ({first})")
            continue
        original, phased = products(found.dims)
        _splice(found, helper)
        notes.append(f"phases: {where}: strides {_dims_text(found)}, {count} phase convolutions, "
                     f"{phased} of {original} products per channel pair; the original runs where a weight is "
                     "inf or NaN or an accumulator starts at -0")
    return notes


@register(STEP, "a convolution over a zero-inserted input (a transposed convolution) runs as phase "
                "convolutions over the input, guarded by a run-time check of the weights")
def skip_inserted_zeros_step(module: ir.Module, filename: str) -> str:
    return DECISION_SEPARATOR.join(skip_inserted_zeros(module, filename))
