"""Eager's semantics where torch-mlir's lowering to linalg differs, for the torch backend.

Found by the adversarial sweep (tests/torch_sweep.py), each a wrong result before:

- `torch.maximum`/`minimum` are lowered as `cmpf ogt` + `select`: a NaN in the first operand
  gives the second (eager: NaN). `clamp` (and `hardtanh`, `relu6`) as `cmpf ult`/`ugt` +
  `select`: a NaN gives the bound (eager: NaN).
- `argmax`/`argmin` (and `max.dim`'s indices) skip NaN (eager: the first NaN's index).
- `relu(-0.0)` gave +0 (eager: -0, `x < 0 ? 0 : x`).
- `neg` of an integer goes through f32 (`sitofp`, `negf`, `fptosi`): -(2**31 - 1) came out
  -2**31, any |x| > 2**24 rounded.
- ELU and CELU are lowered as `exp(x) - 1` on their negative side (`F.elu(-1e-10)` gave 0):
  written with `torch.expm1`, as eager computes them, whose `math.expm1` the cpu step `expm1`
  computes exactly near 0 (docs/cpu_codegen.md sections 59, 60).

- An integer scalar operand of arithmetic or a comparison on a float tensor (`c * -1`, `c + -1`,
  `c > -1`, and the float `neg` below, written `mul.Scalar(x, -1)`) is folded by torch-mlir as an
  unsigned number where the tensor is a constant: `torch.tensor(9.0) * -1` became 1.66e20 (9 *
  (2**64 - 1)), `-torch.log(torch.tensor(10000.0))` 1.70e20, `torch.tensor(-0.5) > -1` false.
  `float_scalars(program)` passes each such integer as the float of the same value.

- `scatter`, `scatter_add` and `scatter_reduce` along a negative dimension (`p.scatter(-1, idx,
  v)`, a top-k router's weights) made torch-mlir's lowering allocate until LLVM aborted the
  process ("LLVM ERROR: out of memory", at any size). `scatter_dims(program)` writes the dimension
  as the non-negative one it means.

- `trunc(-0.0)` gave +0 (torch-mlir: sign(x) * floor(|x|)); written as ceil below 0, floor elsewhere.
- Floor division (`//`, `torch.floor_divide`, `div(rounding_mode="floor")`) is lowered as
  `floor(a / b)` for floats, which is not Python's `//` that eager computes: `1.0 // 0.1` gave 10
  (eager 9: 1.0 / 0.1 rounds up to 10 in floating point, the exact quotient is below it); for
  integers as `floor(f64(a) / f64(b))`, wrong past 2**53 (`h // -977` of a 64-bit hash off by one).
  Floats: eager's rule, from the exact fmod (`floor_divide`); integers by a nonzero number: the
  exact quotient from Python's remainder, by shifts and a multiplication by the divisor's inverse
  modulo 2**bits (`floor_divide`).

- A float `fmod` is lowered as a - b * trunc(a / b): `fmod(1, 0.1)` gave 0 (eager 0.09999999),
  `fmod(7, inf)` NaN (eager 7); written from remainder's exact `remf` (`fmod`). `round(x,
  decimals)` is not lowered at all; written as eager's kernel computes it (`round_decimals`).
- nn.Bilinear (`aten.bilinear`): torch-mlir's `_trilinear` materialises the n x o x i x j
  broadcast product (8x eager's time); written as a matrix product and a row-wise dot (`bilinear`).

`decompositions()` writes each as ops torch-mlir lowers exactly (`program.run_decompositions`,
before the import); each is exact for every dtype (returning NotImplemented, to keep the op where
it is exact already, fails under some dispatch paths).

`trapping_division(program)`: an integer division or remainder by a tensor (or by 0): eager
raises `ZeroDivisionError` on a zero divisor, the kernel's `divsi`/`remsi` traps (SIGFPE kills
the process) or gives a value. Such a graph runs eagerly.
"""
from __future__ import annotations


def _is_float(x) -> bool:
    return x.dtype.is_floating_point


def maximum(a, b):
    import torch

    return torch.where(torch.isnan(a) | torch.isnan(b), a + b, torch.where(a > b, a, b))


def minimum(a, b):
    import torch

    return torch.where(torch.isnan(a) | torch.isnan(b), a + b, torch.where(a < b, a, b))


def clamp(x, lo=None, hi=None):
    """Ordered compares (false for NaN: x is kept); lo first, then hi (eager's order: lo > hi
    gives hi)."""
    import torch

    dtype = x.dtype  # eager's result type: an int x with a float bound is float
    for bound in (lo, hi):
        if bound is not None:
            dtype = torch.promote_types(dtype, torch.result_type(x, bound))
    out = x.to(dtype)
    if lo is not None:
        out = torch.where(out < lo, lo, out).to(dtype)
    if hi is not None:
        out = torch.where(out > hi, hi, out).to(dtype)
    return out


def relu(x):
    """x < 0 ? 0 : x, as eager: -0 stays -0 (torch-mlir's `cmpf ugt` + select gave +0), NaN stays NaN."""
    import torch

    return torch.where(x < 0, torch.zeros_like(x), x)


def hardtanh(x, lo=-1.0, hi=1.0):
    return clamp(x, lo, hi)


def neg(x):
    import torch

    if _is_float(x):
        return torch.ops.aten.mul.Scalar(x, -1.0)  # -0 for 0, as neg
    return torch.zeros_like(x) - x


def _first_index(x, dim, keepdim: bool, larger: bool):
    """argmax (larger) or argmin of a float tensor, eager's way: the first NaN's index where
    there is one, else the first extreme's; as a minimum of indices (no argmax inside)."""
    import torch

    if dim is None:
        x, dim = x.reshape(-1), 0
    dim = dim % max(x.dim(), 1)
    nan = torch.isnan(x)
    fill = float("-inf") if larger else float("inf")
    clean = torch.where(nan, fill, x)
    extreme = clean.amax(dim, keepdim=True) if larger else clean.amin(dim, keepdim=True)
    hit = torch.where(nan.any(dim, keepdim=True), nan, clean == extreme)
    shape = [1] * x.dim()
    shape[dim] = x.shape[dim]
    index = torch.arange(x.shape[dim], dtype=torch.int64).view(shape)
    n = torch.full_like(index, x.shape[dim])
    return torch.where(hit, index, n).amin(dim, keepdim=keepdim)


def argmax(x, dim=None, keepdim=False):
    return _first_index(x, dim, keepdim, True)


def argmin(x, dim=None, keepdim=False):
    return _first_index(x, dim, keepdim, False)


def max_dim(x, dim, keepdim=False):
    return x.amax(dim, keepdim=keepdim), _first_index(x, dim, keepdim, True)


def min_dim(x, dim, keepdim=False):
    return x.amin(dim, keepdim=keepdim), _first_index(x, dim, keepdim, False)


def elu(x, alpha=1.0, scale=1.0, input_scale=1.0):
    """Eager's ELU: x * scale above 0, alpha * scale * expm1(x * input_scale) at and below (torch-mlir
    writes exp(x) - 1: -1e-10 gave 0)."""
    import torch

    return torch.where(x > 0, x * scale, torch.expm1(x * input_scale) * (alpha * scale))


def celu(x, alpha=1.0):
    """Eager's CELU: x above 0, alpha * expm1(x / alpha) at and below."""
    import torch

    return torch.where(x > 0, x, torch.expm1(x / alpha) * alpha)


def _as_tensor(b, dtype):
    """A number operand as a 0-d tensor of DTYPE (torch-mlir's lowering of the Scalar overloads of
    fmod and remainder fails on a float number); a tensor as DTYPE."""
    import torch

    return b.to(dtype) if isinstance(b, torch.Tensor) else torch.scalar_tensor(b, dtype=dtype)


def fmod(a, b):
    """C's fmod, as eager: exact, the sign of a. torch-mlir writes a float fmod as a - b * trunc(a / b)
    (fmod(1, 0.1) gave 0, eager 0.09999999; fmod(7, inf) NaN, eager 7). For floats: the remainder of
    |a| by |b| (remainder's exact remf, its adjustment void on two non-negative operands) with a's
    sign, a zero as a * 0 (a's sign). Integers by a nonzero integer number: a - b * trunc(a / b),
    exact (_div_mode); by a tensor (sent to eager by trapping_division) as a - b * trunc(a / b)."""
    import torch

    dtype = torch.result_type(a, b)
    if dtype.is_floating_point:
        a = a.to(dtype)
        r = torch.remainder(torch.abs(a), torch.abs(_as_tensor(b, dtype)))
        return torch.where(r == 0, a * 0, torch.where(a < 0, -r, r))
    return a - _div_mode(a, b, rounding_mode="trunc") * b


def _float_floor_divide(a, b):
    """Python's `a // b` of floats, as eager computes it (c10's div_floor_floating): the quotient of
    a - fmod(a, b) (exact) by b, one less where fmod's sign is not b's, floored and rounded up where
    the floor lies more than 0.5 below; a zero quotient takes the sign of a / b; b == 0 gives a / b."""
    import torch

    mod = fmod(a, b)
    div = (a - mod) / b
    div = torch.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)
    floor = torch.floor(div)
    floor = torch.where(div - floor > 0.5, floor + 1, floor)
    out = torch.where(div != 0, floor, (a / b) * 0)  # (a / b) * 0: a zero of the quotient's sign
    return torch.where(b == 0, a / b, out) if isinstance(b, torch.Tensor) else (a / b if b == 0 else out)


def _inverse(odd: int, bits: int) -> int:
    """The inverse of an odd number modulo 2**bits, as a signed `bits`-bit integer."""
    inv = pow(odd, -1, 1 << bits)
    return inv - (1 << bits) if inv >= 1 << (bits - 1) else inv


def _int_floor_divide(a, b: int):
    """Python's `a // b` of a signed integer tensor by a nonzero integer b, exactly at every width:
    r = a mod b (Python's remainder, sign of b) makes a - r a multiple of b; with b = 2**k * b'
    (b' odd), (a - r) / 2**k is (a >> k) - (r >> k) (a and r agree in their low k bits), and the
    exact quotient of that by b' is its product with b's inverse modulo 2**bits (wrapping products,
    as the kernel's and eager's): no division rounds, nothing passes through a float."""
    import torch

    bits = torch.iinfo(a.dtype).bits
    k = (abs(b) & -abs(b)).bit_length() - 1
    r = torch.remainder(a, b)
    shifted = (a >> k) - (r >> k) if k else a - r
    return shifted * _inverse(b >> k, bits)


_SIGNED_INTS = ("torch.int8", "torch.int16", "torch.int32", "torch.int64")


def floor_divide(a, b):
    """Eager's floor division: of floats by eager's rule (_float_floor_divide), of signed integers by
    a nonzero integer number exactly (_int_floor_divide); otherwise (an integer tensor divisor,
    which trapping_division sends to eager on the exported program, unsigned or bool) as before."""
    import torch

    dtype = torch.result_type(a, b)
    if dtype.is_floating_point:
        return _float_floor_divide(a.to(dtype), b.to(dtype) if isinstance(b, torch.Tensor) else b)
    if str(dtype) in _SIGNED_INTS and type(b) is int and b != 0 and a.dtype == dtype:
        return _int_floor_divide(a, b)
    return torch.floor(a.double() / (b.double() if isinstance(b, torch.Tensor) else b)).to(dtype)


def _div_mode(a, b, *, rounding_mode=None):
    """aten.div with a rounding mode, as eager computes it: floor as floor_divide; trunc of floats
    as trunc(a / b), of signed integers by a nonzero integer number as the floor quotient plus one
    where the remainder is not 0 and a's sign is not b's; None as true division."""
    import torch

    if rounding_mode == "floor":
        return floor_divide(a, b)
    if rounding_mode is None:
        return torch.true_divide(a, b)
    dtype = torch.result_type(a, b)
    if dtype.is_floating_point:
        return torch.trunc(torch.true_divide(a, b)).to(dtype)
    if str(dtype) in _SIGNED_INTS and type(b) is int and b != 0 and a.dtype == dtype:
        up = (torch.remainder(a, b) != 0) & ((a < 0) if b > 0 else (a > 0))
        return _int_floor_divide(a, b) + up.to(dtype)
    return torch.trunc(a.double() / (b.double() if isinstance(b, torch.Tensor) else b)).to(dtype)


def trunc(x):
    """Eager's trunc: ceil below 0, floor elsewhere (-0 stays -0, NaN stays NaN). torch-mlir writes it
    as sign(x) * floor(|x|), which gives +0 for -0 (sign(-0) is 0)."""
    import torch

    return torch.where(x < 0, torch.ceil(x), torch.floor(x)) if x.dtype.is_floating_point else x.clone()


def round_decimals(x, *, decimals=0):
    """Eager's round(x, decimals): round half to even of x * 10**d, divided by 10**d (of x / 10**-d,
    times 10**-d, for d < 0), in x's dtype. torch-mlir does not lower aten.round.decimals."""
    import torch

    if decimals < 0:
        p = float(10 ** -decimals)
        return torch.round(x / p) * p
    p = float(10 ** decimals)
    return torch.round(x * p) / p


def bilinear(x1, x2, weight, bias=None):
    """nn.Bilinear's y[n, o] = sum_ij x1[n, i] W[o, i, j] x2[n, j] (+ b[o]) as one matrix product and
    a row-wise dot: t = x2 W^T with W read as (o i) x j (a view: the weight laid out as it is,
    aten.linear's transposed constant), then y[n, o] = sum_i t[n, o, i] x1[n, i]. torch-mlir's
    lowering of aten._trilinear materialises the n x o x i x j broadcast product (50M elements for 256
    pairs of 64 and 48 into 64, 8x eager's time). The same sum, in another order."""
    import torch

    o, i, j = weight.shape
    lead = x1.shape[:-1]
    t = torch.nn.functional.linear(x2.reshape(-1, j), weight.reshape(o * i, j))
    y = torch.bmm(t.view(-1, o, i), x1.reshape(-1, i, 1)).view(-1, o)
    if bias is not None:
        y = y + bias
    return y.reshape(*lead, o)


def decompositions() -> dict:
    import torch

    aten = torch.ops.aten
    return {
        aten.maximum.default: maximum,
        aten.minimum.default: minimum,
        aten.clamp.default: clamp,
        aten.clamp.Tensor: clamp,
        aten.hardtanh.default: hardtanh,
        aten.relu6.default: lambda x: clamp(x, 0, 6),
        aten.clamp_min.default: lambda x, lo: clamp(x, lo, None),
        aten.clamp_max.default: lambda x, hi: clamp(x, None, hi),
        aten.relu.default: relu,
        aten.neg.default: neg,
        aten.argmax.default: argmax,
        aten.argmin.default: argmin,
        aten.max.dim: max_dim,
        aten.min.dim: min_dim,
        aten.elu.default: elu,
        aten.celu.default: celu,
        aten.round.decimals: round_decimals,
        aten.bilinear.default: bilinear,
        aten.trunc.default: trunc,
        aten.fmod.Tensor: fmod,
        aten.fmod.Scalar: fmod,
        aten.floor_divide.default: floor_divide,
        aten.floor_divide.Scalar: floor_divide,
        aten.div.Tensor_mode: _div_mode,
        aten.div.Scalar_mode: _div_mode,
    }


_EXPONENTS = ("pow", "float_power")  # an integer exponent is another operation than a float one


def _float_dtypes(node) -> set:
    """The floating dtypes of the tensors NODE reads."""
    import torch

    vals = [a.meta.get("val") for a in node.all_input_nodes]
    return {v.dtype for v in vals if isinstance(v, torch.Tensor) and v.dtype.is_floating_point}


def _exact_in(value: int, dtypes: set) -> bool:
    """VALUE has the same value as a float of every dtype in DTYPES (and as a Python float)."""
    import torch

    return abs(value) <= 2 ** 53 and all(torch.tensor(float(value), dtype=d).item() == value for d in dtypes)


def float_scalars(program) -> int:
    """Rewrite, in place, every Python int (not a bool) an op of the exported PROGRAM takes as a
    number (a `Scalar` parameter, or a Tensor parameter given a number) where the op also reads a
    float tensor, as the float of the same value; returns how many were rewritten.

    The rule: eager converts such a number to the tensor's dtype before it computes; torch-mlir's
    folders of `mul`/`add`/`sub` and of the comparisons on a constant float tensor convert a
    negative integer as an unsigned one (`torch.tensor(9.0) * -1` folded to 1.66e20). A float of the
    same value folds and lowers as eager computes. Kept: an exponent (`pow`: an integer power is
    another operation), and a value a float of the tensor's dtype does not hold exactly (beyond
    2**24 in f32: the two conversions could round apart)."""
    import torch

    count = 0
    for node in program.graph.nodes:
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        if node.target._schema.name.split("::")[-1] in _EXPONENTS:
            continue
        dtypes = _float_dtypes(node)
        if not dtypes:
            continue
        params = node.target._schema.arguments

        def floated(value, param):
            if type(value) is not int or str(param.type) not in ("number", "Optional[number]", "Tensor"):
                return value
            return float(value) if _exact_in(value, dtypes) else value

        args = tuple(floated(a, p) for a, p in zip(node.args, params)) + tuple(node.args[len(params):])
        by_name = {p.name: p for p in params}
        kwargs = {k: floated(v, by_name[k]) if k in by_name else v for k, v in node.kwargs.items()}
        changed = sum(a is not b for a, b in zip(args, node.args)) + sum(kwargs[k] is not v for k, v in node.kwargs.items())
        if changed:
            node.args, node.kwargs = args, kwargs
            count += changed
    if count:
        program.graph_module.recompile()
    return count


_SCATTERS = ("scatter", "scatter_add", "scatter_reduce")


def scatter_dims(program) -> int:
    """Rewrite, in place, the negative `dim` of every scatter (`aten.scatter`, `scatter_add`,
    `scatter_reduce`, each overload) of the exported PROGRAM as `dim + rank` of the tensor it
    scatters into (the dimension it means); returns how many were rewritten. torch-mlir's lowering
    of a scatter along a negative dimension never ends (LLVM aborts the process, out of memory)."""
    import torch

    count = 0
    for node in program.graph.nodes:
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        if node.target._schema.name.split("::")[-1] not in _SCATTERS:
            continue
        names = [p.name for p in node.target._schema.arguments]
        position = names.index("dim")
        dim = node.args[position] if len(node.args) > position else node.kwargs.get("dim")
        val = node.args[0].meta.get("val") if isinstance(node.args[0], torch.fx.Node) else None
        if type(dim) is not int or dim >= 0 or not isinstance(val, torch.Tensor):
            continue
        fixed = dim + max(val.dim(), 1)
        if len(node.args) > position:
            node.args = node.args[:position] + (fixed,) + node.args[position + 1:]
        else:
            node.kwargs = {**node.kwargs, "dim": fixed}
        count += 1
    if count:
        program.graph_module.recompile()
    return count


def stable_sorts(program) -> int:
    """Rewrite, in place, every `aten.sort.stable(x, stable=.., dim=d, descending=b)` of the exported
    PROGRAM as `aten.sort(x, d, b)` (and `argsort.stable` as `argsort`); returns how many were rewritten. torch-mlir imports only the
    latter; loopopt lowers its `tm_tensor.sort` as the stable sort (frontend/sorts.py), so both
    mean the same; a sort loopopt refuses runs eagerly as the graph's own (stable) forward."""
    import torch

    aten = torch.ops.aten
    default = {aten.sort.stable: aten.sort.default, aten.argsort.stable: aten.argsort.default}
    count = 0
    for node in program.graph.nodes:
        if node.op != "call_function" or node.target not in default:
            continue
        dim = node.kwargs.get("dim", -1)
        descending = node.kwargs.get("descending", False)
        node.target, node.args, node.kwargs = default[node.target], (node.args[0], dim, descending), {}
        count += 1
    if count:
        program.graph_module.recompile()
    return count


def trapping_division(program) -> str | None:
    """The first integer division or remainder of the exported program whose divisor may be 0
    (a tensor, or the number 0), named; None if there is none."""
    import torch

    aten = torch.ops.aten
    ops = {aten.div.Tensor_mode, aten.div.Scalar_mode, aten.floor_divide.default, aten.floor_divide.Scalar,
           aten.remainder.Tensor, aten.remainder.Scalar, aten.fmod.Tensor, aten.fmod.Scalar}
    for node in program.graph.nodes:
        if node.op != "call_function" or node.target not in ops:
            continue
        val = node.meta.get("val")
        if val is None or val.dtype.is_floating_point or val.is_complex():
            continue
        if node.target is aten.div.Tensor_mode or node.target is aten.div.Scalar_mode:
            if node.kwargs.get("rounding_mode", node.args[2] if len(node.args) > 2 else None) is None:
                continue
        divisor = node.args[1] if len(node.args) > 1 else None
        if isinstance(divisor, (int, float)) and divisor != 0:
            continue
        return (f"integer division by a tensor (op aten.{node.target.__name__}): eager raises on a zero "
                "divisor, a kernel would trap")
    return None


def zero_size_view(program) -> str | None:
    """A view or reshape of a tensor with no elements (a static 0 in its shape), named: torch-mlir's
    lowering of aten.view divides by the size (SIGFPE in the compiler, the process killed)."""
    import torch

    for node in program.graph.nodes:
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        name = node.target.__name__
        if not any(w in name for w in ("view", "reshape", "flatten", "unflatten")):
            continue
        vals = [node.meta.get("val")] + [a.meta.get("val") for a in node.all_input_nodes]
        for v in vals:
            if isinstance(v, torch.Tensor) and any(isinstance(d, int) and d == 0 for d in v.shape):
                return f"a view of a tensor with no elements (op aten.{name}: torch-mlir's lowering divides by its size)"
    return None


def negative_offsets(program) -> str | None:
    """A pad by a negative amount (`F.pad(x, (-1, 2))`, a crop) or an F.fold with padding, named:
    torch-mlir lowers each to slices of negative offsets, which bufferization refuses (the warning
    quoted it, not the op). None if there is none."""
    import torch

    aten = torch.ops.aten
    for node in program.graph.nodes:
        if node.op != "call_function":
            continue
        if node.target in (aten.constant_pad_nd.default, aten.pad.default):
            pad = node.args[1] if len(node.args) > 1 else node.kwargs.get("pad", ())
            if any(isinstance(p, int) and p < 0 for p in pad):
                return (f"a pad by a negative amount (op aten.{node.target.__name__}): torch-mlir's lowering "
                        "makes a slice of negative offset")
        if node.target is aten.col2im.default:
            padding = node.args[4] if len(node.args) > 4 else node.kwargs.get("padding", ())
            if any(isinstance(p, int) and p > 0 for p in padding):
                return ("F.fold with padding (op aten.col2im): torch-mlir's lowering makes a slice of "
                        "negative offset")
    return None
