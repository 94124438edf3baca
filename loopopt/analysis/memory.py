"""Memory locations: which buffer an access touches, and the seed's MemoryLocation facts.

A view (`memref.cast`, `memref.subview`, ...) is traced to its root buffer, so an aliased
write is seen as a write of the root. A root is *traced* when it is made by an op whose
aliasing we model exactly: an allocation (`memref.alloc`/`alloca`, *placed*, the seed's
type == 1), `memref.get_global` (every `get_global @G` names one storage), or an argument of
the function's entry block (*external*). Any other memref (an `arith.select`, `scf.if` or
call result, a loop-carried value, ...) is *untraced*: it may alias every buffer, so an
access through it is a barrier (see `buffer_key`).

Arguments: distinct arguments of a public function are assumed not to alias (MLIR's affine
analysis assumes the same; the driver says so in a remark). What the module's own call sites
pass is followed for every function (`call_site_classes`): arguments that some call passes
overlapping buffers share one key, unless both carry `llvm.noalias`; an argument passed a
global takes the global's key, one passed an untraced memref is untraced, and so is every
memref argument of a function whose address is taken.
"""
from __future__ import annotations

import re

from dataclasses import dataclass

from .. import mlir
from ..mlir import ir

# Ops whose result is a view of their first memref operand.
VIEW_OPS = (
    "memref.cast", "memref.subview", "memref.reinterpret_cast", "memref.view", "memref.expand_shape",
    "memref.collapse_shape", "memref.transpose", "memref.reshape", "memref.assume_alignment",
    "memref.memory_space_cast", "memref.extract_strided_metadata",
)
ALLOC_OPS = ("memref.alloc", "memref.alloca")
PLACED = "placed"
EXTERNAL = "external"
# Extent assumed for a dynamic (`?`) dimension when a byte count is needed for ordering.
DEFAULT_DYNAMIC_EXTENT = 1024


def alias_root(v: ir.Value) -> ir.Value:
    """The buffer a memref value views: follow view ops back to an allocation or argument."""
    seen = 0
    while True:
        owner, _ = mlir.value_owner(v)
        if owner is None or owner.name not in VIEW_OPS or seen > 1000:
            return v
        v = owner.operands[0]
        seen += 1


class _Untraced:
    """The key of a memref whose origin is not modelled: it may be any buffer."""

    def __repr__(self) -> str:
        return "UNTRACED"


UNTRACED = _Untraced()


def keys_may_alias(a, b) -> bool:
    """Buffers of keys `a` and `b` (`buffer_key`) may share memory: equal keys, or either is
    UNTRACED (a memref of unknown origin may be any buffer, including another untraced one)."""
    return a is UNTRACED or b is UNTRACED or a == b


def is_memref_value(v: ir.Value) -> bool:
    """Ranked or unranked memref."""
    return isinstance(v.type, (ir.MemRefType, ir.UnrankedMemRefType))


def root_origin(root: ir.Value) -> str | None:
    """How a root buffer is made: "alloc", "global", "argument" (of the function's entry block),
    or None when the op or block argument that makes it is not modelled (untraced)."""
    owner, block = mlir.value_owner(root)
    if owner is not None:
        if owner.name in ALLOC_OPS:
            return "alloc"
        if owner.name == "memref.get_global":
            return "global"
        return None
    parent = mlir.operation(block.owner) if block is not None and block.owner is not None else None
    if parent is not None and parent.name == "func.func" and block == mlir.func_body(parent):
        return "argument"
    return None


def global_symbol(root: ir.Value) -> str:
    owner, _ = mlir.value_owner(root)
    return ir.FlatSymbolRefAttr(owner.attributes["name"]).value


def buffer_key(root: ir.Value):
    """The identity of the storage behind a root: equal keys may be the same memory, different
    keys are provably distinct, `UNTRACED` may be any memory. An allocation is its own key;
    every `get_global @G` has the key ("global", "G"); a function's argument has the key of its
    alias class (`call_site_classes`: what the module's call sites pass; a public function that
    the module neither calls nor names keeps one key per argument)."""
    origin = root_origin(root)
    if origin == "alloc":
        return root
    if origin == "global":
        return ("global", global_symbol(root))
    if origin == "argument":
        v = root.maybe_downcast() if hasattr(root, "maybe_downcast") else root
        fn = mlir.operation(v.owner.owner)
        classes = call_site_classes(fn)
        if classes is None:
            return root
        k = classes[v.arg_number]
        return v.owner.arguments[k] if isinstance(k, int) else k
    return UNTRACED


def buffer_key_of(v: ir.Value):
    """`buffer_key` of the buffer memref `v` views (its alias root)."""
    return buffer_key(alias_root(v))


# Alias classes of private functions' arguments, per function (cleared by the driver per run).
_ARG_CLASSES: dict = {}


def clear_argument_classes() -> None:
    _ARG_CLASSES.clear()


def _is_private(fn: ir.Operation) -> bool:
    vis = fn.attributes["sym_visibility"] if "sym_visibility" in fn.attributes else None
    return vis is not None and ir.StringAttr(vis).value == "private"


def _has_noalias(fn: ir.Operation, k: int) -> bool:
    if "arg_attrs" not in fn.attributes:
        return False
    attrs = ir.ArrayAttr(fn.attributes["arg_attrs"])
    return k < len(attrs) and "llvm.noalias" in ir.DictAttr(attrs[k])


def argument_classes(fn: ir.Operation):
    """None for a public function (the driver's remark: its arguments are assumed distinct);
    for a private one, `call_site_classes(fn)`."""
    return call_site_classes(fn) if _is_private(fn) else None


def call_site_classes(fn: ir.Operation):
    """Per argument of `fn`, the index of its class representative or the key it takes from its
    callers in the module: arguments that one call site passes overlapping buffers (same key,
    or an untraced value) share a key, unless both are `llvm.noalias`; an argument that
    receives a global's storage gets the global's key; one that receives an untraced value is
    `UNTRACED`. A function whose symbol is used other than by `func.call` (its address is
    taken: indirect callers may pass anything, a global too) has every memref argument
    `UNTRACED`. A public function that the module neither calls nor names gets None: its
    arguments are assumed distinct (its callers are outside the module); one that the module
    calls follows those calls too (an external caller's distinct buffers are a case they cover)."""
    key = (mlir.op_key(fn), mlir.func_name(fn))
    if key in _ARG_CLASSES:
        return _ARG_CLASSES[key]
    body = mlir.func_body(fn)
    args = list(body.arguments) if body is not None else []
    n = len(args)
    _ARG_CLASSES[key] = [UNTRACED] * n  # while computing: a recursive call site sees untraced args
    memref_args = [k for k, a in enumerate(args) if is_memref_value(a)]
    rep = {k: k for k in memref_args}

    def find(k: int) -> int:
        while rep[k] != k:
            k = rep[k]
        return k

    def union(i: int, j: int) -> None:
        rep[find(j)] = find(i)

    name = mlir.func_name(fn)
    calls, address_taken = [], False
    for op in mlir.walk(mlir.operation(fn.parent)):
        if op.name == "func.call" and callee_name(op) == name:
            calls.append(op)
        elif op.name != "func.func" and _mentions_symbol(op, name):
            address_taken = True
    if not _is_private(fn) and not calls and not address_taken:
        _ARG_CLASSES[key] = None
        return None
    if address_taken:
        out = [UNTRACED if k in rep else k for k in range(n)]
        _ARG_CLASSES[key] = out
        return out
    passed: dict = {}  # arg -> keys of the buffers call sites pass (a global or UNTRACED)
    for call in calls:
        keys = {k: buffer_key(alias_root(call.operands[k])) for k in memref_args if k < len(call.operands)}
        for k, kk in keys.items():
            if kk is UNTRACED or (isinstance(kk, tuple) and kk[0] == "global"):
                passed.setdefault(k, set()).add(kk)
        for i in keys:
            for j in keys:
                if i < j and (keys[i] is UNTRACED or keys[j] is UNTRACED or keys[i] == keys[j]) \
                        and not (_has_noalias(fn, i) and _has_noalias(fn, j)):
                    union(i, j)
    forced: dict = {}  # class -> the keys its members receive from callers
    for k, ks in passed.items():
        forced.setdefault(find(k), set()).update(ks)
    out = list(range(n))
    for k in memref_args:
        ks = forced.get(find(k), set())
        out[k] = find(k) if not ks else (next(iter(ks)) if len(ks) == 1 else UNTRACED)
    _ARG_CLASSES[key] = out
    return out


def callee_name(op: ir.Operation) -> str | None:
    """The symbol a `func.call` calls (None for an indirect call)."""
    try:
        return ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    except (KeyError, ValueError):
        return None


def _mentions_symbol(op: ir.Operation, name: str) -> bool:
    """True iff one of `op`'s attributes refers to the symbol `name` (its address is taken)."""
    attrs = op.attributes
    return any(_refers_to(attrs[k].attr, name) for k in range(len(attrs)))


# Attribute kinds that hold no symbol reference (a string that spells `@f` is not a reference).
_SYMBOL_FREE_ATTRS = tuple(getattr(ir, n) for n in (
    "StringAttr", "IntegerAttr", "FloatAttr", "BoolAttr", "TypeAttr", "UnitAttr", "AffineMapAttr",
    "IntegerSetAttr", "DenseElementsAttr", "DenseResourceElementsAttr", "DenseI64ArrayAttr",
    "DenseI32ArrayAttr", "DenseBoolArrayAttr", "DenseF32ArrayAttr", "DenseF64ArrayAttr") if hasattr(ir, n))


def _refers_to(attr: ir.Attribute, name: str) -> bool:
    """Whether `attr` refers to symbol `name`: a symbol reference whose root is `name`, inside
    arrays and dictionaries too. Another kind of attribute (a dialect's own) is read from its text,
    where a reference prints as `@name` or `@"name"` not followed by more of a name: over-reading
    it only makes the function's arguments untraced, which is sound."""
    if isinstance(attr, ir.FlatSymbolRefAttr):
        return attr.value == name
    if isinstance(attr, ir.SymbolRefAttr):
        return attr.value[0] == name
    if isinstance(attr, ir.ArrayAttr):
        return any(_refers_to(a, name) for a in attr)
    if isinstance(attr, ir.DictAttr):
        return any(_refers_to(attr[k].attr, name) for k in range(len(attr)))
    if isinstance(attr, _SYMBOL_FREE_ATTRS):
        return False
    return re.search(rf'@(?:{re.escape(name)}|"{re.escape(name)}")(?![\w$.])', str(attr)) is not None


def is_placed(root: ir.Value) -> bool:
    owner, _ = mlir.value_owner(root)
    return owner is not None and owner.name in ALLOC_OPS


@dataclass(frozen=True, eq=False)
class MemoryLocation:
    """The seed's MemoryLocation: a root buffer, its type, element size and liveN."""

    root: ir.Value
    name: str  # a readable name for remarks (e.g. %alloc_0 or %arg1)
    kind: str  # "placed" | "external"
    elem_size: int  # bytes per element
    shape: tuple[int | None, ...]  # None for a dynamic dimension
    live_n: int  # elements live across the loops that touch it

    @property
    def placed(self) -> bool:
        return self.kind == PLACED

    @property
    def bytes(self) -> int:
        return self.live_n * self.elem_size

    @property
    def partition_extent(self) -> int | None:
        """Extent of dimension 0 (the partition dimension), if static."""
        return self.shape[0] if self.shape else 1


def value_name(v: ir.Value) -> str:
    """A cheap readable name: `%argN` for a function argument, `%iv@L:C` for an induction
    variable, `op.name@L:C` for an op result (positions of the defining op / loop).
    (Value.get_name() prints the whole function to number values: far too slow to call often.)"""
    owner, block = mlir.value_owner(v)
    if owner is None:
        v = v.maybe_downcast() if hasattr(v, "maybe_downcast") else v
        parent = mlir.operation(block.owner) if block is not None and block.owner is not None else None
        if parent is None or parent.name == "func.func":
            return f"%arg{v.arg_number}"
        return f"%iv@{_line_col(parent)}" if v.arg_number == 0 else f"%{parent.name}.arg{v.arg_number}@{_line_col(parent)}"
    return f"{owner.name}@{_line_col(owner)}"


def _line_col(op: ir.Operation) -> str:
    loc = mlir.location_of(op)
    return loc.split(":", 1)[1] if ":" in loc else loc


def memory_location(root: ir.Value) -> MemoryLocation:
    t = mlir.memref_type(root)
    if t is None:
        raise ValueError("not a memref")
    shape = tuple(None if d == mlir.DYNAMIC else d for d in t.shape)
    n = 1
    for d in shape:
        n *= d if d is not None else DEFAULT_DYNAMIC_EXTENT
    return MemoryLocation(
        root=root,
        name=value_name(root),
        kind=PLACED if is_placed(root) else EXTERNAL,
        elem_size=mlir.element_size_bytes(t.element_type),
        shape=shape,
        live_n=n,
    )


def escaping_use(buf: ir.Value, accesses: dict) -> ir.Operation | None:
    """The first use of `buf` that lets it escape or is not modelled, None if there is none.

    Modelled: an op of `accesses` (name -> position of its memref operand) that uses `buf` only
    as that operand (never as a stored value or a call argument), and its dealloc. A buffer
    with no escaping use has no other name: nothing else aliases it."""
    for use in buf.uses:
        user = mlir.operation(use.owner)
        if user.name == "memref.dealloc":
            continue
        pos = accesses.get(user.name)
        if pos is not None and [k for k, v in enumerate(user.operands) if v == buf] == [pos]:
            continue
        return user
    return None


def block_reentered(block: ir.Block) -> bool:
    """True iff branches can lead from `block` back to `block` (it sits in a loop of blocks)."""
    seen: list = []
    todo = list(block.successors)
    while todo:
        b = todo.pop()
        if b == block:
            return True
        if any(b == x for x in seen):
            continue
        seen.append(b)
        todo.extend(b.successors)
    return False
