"""The one module that imports the MLIR Python bindings.

Everything else in loopopt reaches MLIR through the names exported here, so the
binding source (today the `iree-base-compiler` wheel) can be swapped in one place.
"""
from __future__ import annotations

import re
import sys
from typing import Iterator


def _import_bindings_without_numpy():
    """Import the bindings' `ir` without importing numpy when nothing has imported it yet.

    The bindings' ir.py imports numpy only to register builders that make dense elements
    attributes from Python lists, which loopopt never uses, and only if numpy imports; numpy's
    import is about a fifth of loopopt's start-up (some 55 of 280 ms). Should a later wheel need
    numpy, the import is simply repeated with it."""
    if "numpy" in sys.modules:
        return
    sys.modules["numpy"] = None  # makes `import numpy` raise ImportError
    try:
        import iree.compiler.ir  # noqa: F401
    except ImportError:
        pass
    finally:
        if sys.modules.get("numpy", 0) is None:
            del sys.modules["numpy"]


_import_bindings_without_numpy()
from iree.compiler import ir, passmanager  # noqa: E402,F401  (re-exported)
from iree.compiler.dialects import affine as affine_d  # noqa: E402,F401
from iree.compiler.dialects import arith as arith_d  # noqa: E402,F401
from iree.compiler.dialects import func as func_d  # noqa: E402,F401
from iree.compiler.dialects import memref as memref_d  # noqa: E402,F401

from .errors import LoopOptError  # noqa: E402

Operation = ir.Operation
Value = ir.Value
Block = ir.Block
AffineMap = ir.AffineMap
AffineExpr = ir.AffineExpr
AffineDimExpr = ir.AffineDimExpr
AffineSymbolExpr = ir.AffineSymbolExpr
AffineConstantExpr = ir.AffineConstantExpr
AffineAddExpr = ir.AffineAddExpr
AffineMulExpr = ir.AffineMulExpr
AffineModExpr = ir.AffineModExpr
AffineFloorDivExpr = ir.AffineFloorDivExpr
AffineCeilDivExpr = ir.AffineCeilDivExpr
MemRefType = ir.MemRefType
BlockArgument = ir.BlockArgument
OpResult = ir.OpResult
MLIRError = ir.MLIRError

_LOC_RE = re.compile(r'loc\("(?P<file>[^"]*)":(?P<line>\d+):(?P<col>\d+)\)')


def new_context() -> ir.Context:
    """A context with every upstream dialect; unknown ops parse as opaque ops."""
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    return ctx


def _where(loc_text: str, filename: str) -> str:
    m = _LOC_RE.search(loc_text)
    if not m:
        return filename
    return f"{filename}:{m.group('line')}:{m.group('col')}"


def parse_module(text: str | bytes, filename: str = "<input>", ctx: ir.Context | None = None) -> ir.Module:
    """Parse MLIR text (custom or generic form) and verify it.

    Raises LoopOptError with one line `file:line:col: error: message` on bad input.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise LoopOptError(f"{filename}: error: input is not UTF-8 text (byte {e.start})") from None
    if not text.strip():
        raise LoopOptError(f"{filename}: error: input is empty; expected an MLIR module")
    if "\x00" in text:
        raise LoopOptError(f"{filename}: error: input contains NUL bytes; expected MLIR text")
    ctx = ctx or new_context()
    _FILES[_context_key(ctx)] = filename
    try:
        module = ir.Module.parse(text, ctx)
    except ir.MLIRError as e:
        raise LoopOptError(_diag_line(e, filename, "cannot parse input")) from None
    except Exception as e:  # the bindings raise plain errors for some malformed input
        raise LoopOptError(f"{filename}: error: cannot parse input: {e}") from None
    try:
        module.operation.verify()
    except ir.MLIRError as e:
        raise LoopOptError(_diag_line(e, filename, "input does not verify")) from None
    return module


def _diag_line(e: "ir.MLIRError", filename: str, what: str) -> str:
    diags = list(getattr(e, "error_diagnostics", []) or [])
    if diags:
        d = diags[0]
        msg = " ".join(str(d.message).split())
        return f"{_where(str(d.location), filename)}: error: {msg}"
    first = " ".join(str(e).split())
    return f"{filename}: error: {what}: {first}"


def verify(op: ir.Operation) -> str | None:
    """Run the full MLIR verifier; return None if valid, else the first diagnostic."""
    try:
        op.verify()
        return None
    except ir.MLIRError as e:
        return _diag_line(e, "<ir>", "verifier failed")


def print_module(module: ir.Module) -> str:
    """Custom-form text that stock mlir-opt accepts."""
    text = str(module)
    return text if text.endswith("\n") else text + "\n"


# The file each context's module was parsed from: the one place remark locations get it from.
_FILES: dict = {}


def _context_key(ctx) -> int:
    return _pointer_of(ctx._CAPIPtr)


def source_file(op) -> str:
    """The file name the op's module was parsed from (`<input>` if unknown)."""
    return _FILES.get(_context_key(op.context), "<input>")


def location_of(op, filename: str | None = None) -> str:
    """`file:line:col` of an op (or the file name if the op has no file location); the file is
    the one its module was parsed from unless `filename` is given."""
    return _where(str(op.location), filename if filename is not None else source_file(op))


def operation(op) -> ir.Operation:
    """The generic Operation behind an OpView or Operation."""
    return op.operation if hasattr(op, "operation") else op


def block_ops(block: ir.Block) -> list[ir.Operation]:
    return [operation(o) for o in block.operations]


def walk(op: ir.Operation) -> Iterator[ir.Operation]:
    """Pre-order walk of every op nested in `op` (not `op` itself).

    Iterative (a stack of per-op iterators): a recursive generator would pass every op up
    through one frame per nesting level, O(depth) per op in deep nests."""
    stack = [_children(op)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            continue
        yield child
        if len(child.regions):
            stack.append(_children(child))


def erase_innermost_first(op: ir.Operation) -> None:
    """Erase `op`, erasing the ops with regions nested in it first, innermost (and last) first.

    MLIR destroys a nest top-down, dropping the references of every op below at each level:
    quadratic in the depth (0.11 s for a 2,000-deep nest, 9 ms innermost first). An op whose
    results still have uses is left to its parent's erase, which drops every reference below
    it first: erasing it alone would leave its users pointing at a destroyed value. For valid
    IR only (in invalid IR a value may be used outside the region that defines it)."""
    nested = [o for o in walk(op) if len(o.regions)]
    for o in reversed(nested):
        if all(next(iter(r.uses), None) is None for r in o.results):
            o.erase()
    op.erase()


def _children(op: ir.Operation) -> Iterator[ir.Operation]:
    """The ops directly nested in `op`'s regions, in order."""
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                yield operation(child)


def functions(module: ir.Module) -> list[ir.Operation]:
    """The module's func.func ops. The caller must keep `module` alive while using them: ops of
    a garbage-collected module are freed (reading them gives garbage or crashes)."""
    return [o for o in block_ops(module.body) if o.name == "func.func"]


def func_name(fn: ir.Operation) -> str:
    return ir.StringAttr(fn.attributes["sym_name"]).value


def func_body(fn: ir.Operation) -> ir.Block | None:
    region = fn.regions[0]
    blocks = list(region.blocks)
    return blocks[0] if blocks else None


def affine_map_attr(op: ir.Operation, name: str) -> ir.AffineMap:
    return ir.AffineMapAttr(op.attributes[name]).value


def int_attr(op: ir.Operation, name: str) -> int:
    return ir.IntegerAttr(op.attributes[name]).value


def for_with_bounds_of(loop: ir.Operation, step: int, inits, ip: ir.InsertionPoint) -> ir.Operation:
    """A new affine.for at `ip` with `loop`'s bound maps and operands, the given step and
    iter_args inits, and an empty body block (no terminator: the caller fills it)."""
    lbm, ubm = affine_map_attr(loop, "lowerBoundMap"), affine_map_attr(loop, "upperBoundMap")
    operands = list(loop.operands)
    return affine_d.AffineForOp(lbm, ubm, step, list(inits),
                                lower_bound_operands=operands[:lbm.n_inputs],
                                upper_bound_operands=operands[lbm.n_inputs:lbm.n_inputs + ubm.n_inputs],
                                ip=ip).operation


def value_owner(v: ir.Value):
    """(defining op, None) for an op result, (None, owning block) for a block argument."""
    v = v.maybe_downcast() if hasattr(v, "maybe_downcast") else v
    if isinstance(v, ir.BlockArgument):
        return None, v.owner
    return operation(v.owner), None


def is_block_argument(v: ir.Value) -> bool:
    v = v.maybe_downcast() if hasattr(v, "maybe_downcast") else v
    return isinstance(v, ir.BlockArgument)


def memref_type(v: ir.Value) -> ir.MemRefType | None:
    t = v.type
    return t if isinstance(t, ir.MemRefType) else None


def element_size_bytes(t) -> int:
    """Bytes per element of a memref element type (index counts as 8)."""
    if isinstance(t, ir.IndexType):
        return 8
    if isinstance(t, ir.IntegerType):
        return max(1, (t.width + 7) // 8)
    if isinstance(t, ir.FloatType):
        return max(1, (t.width + 7) // 8)
    if isinstance(t, ir.ComplexType):
        return 2 * element_size_bytes(t.element_type)
    if isinstance(t, ir.VectorType):
        vt = t
        n = 1
        for s in vt.shape:
            n *= s
        return n * element_size_bytes(vt.element_type)
    return 8


DYNAMIC = ir.ShapedType.get_dynamic_size()


def _capsule_pointer():
    import ctypes

    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return lambda cap: api.PyCapsule_GetPointer(cap, api.PyCapsule_GetName(cap))


_pointer_of = _capsule_pointer()


def op_key(op) -> int:
    """A stable dictionary key for an operation: its address, valid while the op lives.

    `hash(Operation)` changes when the op's attributes change, so a dict keyed by the op itself
    loses entries after e.g. a loop bound is rewritten. Callers must drop an op's key before
    erasing it (a later op may reuse the address)."""
    return _pointer_of(operation(op)._CAPIPtr)
