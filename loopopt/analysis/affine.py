"""Affine expressions of MLIR maps, rendered as isl text over named SSA values.

A `Scope` gives every SSA value an isl identifier: loop induction variables become set
dimensions, every other index value (function arguments, `memref.dim`, ...) becomes a
symbolic parameter, so symbolic bounds stay symbolic. `arith.constant` indices fold to
numbers and `affine.apply` results are inlined, so two differently written but equal
expressions compare equal in isl.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import mlir
from ..mlir import ir


# Ops whose leading block arguments are induction variables (one per loop dimension).
LOOP_LIKE = ("affine.for", "affine.parallel", "scf.for", "scf.parallel", "scf.forall")


def num_ivs(op: ir.Operation) -> int:
    """Number of induction variables among the leading block arguments of a loop-like op."""
    if op.name in ("affine.for", "scf.for"):
        return 1
    if op.name == "affine.parallel":
        return len(ir.ArrayAttr(op.attributes["steps"]))
    if op.name == "scf.parallel":
        return len(op.regions[0].blocks[0].arguments)
    if op.name == "scf.forall":
        return len(op.regions[0].blocks[0].arguments) - len(op.results)
    return 0


class NonAffine(Exception):
    """An index or bound that is not an affine function of IVs and symbols."""


@dataclass
class Scope:
    """isl names of SSA values within one function; IVs are dimensions, the rest parameters."""

    names: dict = field(default_factory=dict)  # ir.Value -> str
    params: dict = field(default_factory=dict)  # str -> ir.Value (parameters only)
    ivs: dict = field(default_factory=dict)  # str -> ir.Operation (the affine.for)
    loop_cache: dict = field(default_factory=dict)  # op_key -> (bounds stamp, list[Loop]) (loops.loop_dims)
    trip_cache: dict = field(default_factory=dict)  # (lower, upper, step, outer IVs) -> TripCount (loops.trip_count)
    trip_pairs: dict = field(default_factory=dict)  # ids of two TripCounts -> (both, equal?) (loops.same_trip_count)
    issued: dict = field(default_factory=dict)  # prefix -> names handed out (never reused once forgotten)

    def forget_loop(self, op: ir.Operation) -> None:
        """Drop memoized bounds of a loop whose bound maps were rewritten in place."""
        self.loop_cache.pop(mlir.op_key(op), None)

    def _fresh(self, prefix: str) -> str:
        n = self.issued.get(prefix, 0)
        self.issued[prefix] = n + 1
        return f"{prefix}{n}"

    def forget_dying(self, op: ir.Operation) -> None:
        """Before `op` is erased with its own block arguments (its body ops may live on, moved
        elsewhere): drop those arguments' names, so a new value allocated at a dead value's
        address never inherits its name, and every nested loop's memoized bounds (they may
        name those arguments)."""
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    name = self.names.pop(arg, None)
                    if name is not None:
                        self.ivs.pop(name, None)
                        self.params.pop(name, None)
        self.loop_cache.pop(mlir.op_key(op), None)
        for inner in mlir.walk_list(op):
            if inner.name in LOOP_LIKE:
                self.loop_cache.pop(mlir.op_key(inner), None)

    def iv_name(self, for_op: ir.Operation, index: int = 0) -> str:
        """Dimension name of induction variable `index` of a loop-like op."""
        iv = for_op.regions[0].blocks[0].arguments[index]
        name = self.names.get(iv)
        if name is None:
            name = self._fresh("i")
            self.names[iv] = name
            self.ivs[name] = for_op
        return name

    def value_expr(self, v: ir.Value) -> str:
        """isl text for an index value: a number, an inlined affine.apply, an IV, or a parameter."""
        name = self.names.get(v)
        if name is not None:
            return name
        owner, block = mlir.value_owner(v)
        if owner is None:
            parent = mlir.operation(block.owner) if block is not None else None
            if parent is not None and parent.name in LOOP_LIKE:
                for k, arg in enumerate(block.arguments):
                    if arg == v and k < num_ivs(parent):
                        return self.iv_name(parent, k)
            if parent is None or parent.name != "func.func":
                # iter_args, scf.while arguments, region arguments: they change every trip.
                raise NonAffine(f"index is a block argument of {parent.name if parent else 'a block'}")
            return self._param(v)
        if owner.name == "arith.constant" and isinstance(v.type, ir.IndexType) or (
            owner.name == "arith.constant" and isinstance(v.type, ir.IntegerType)
        ):
            try:
                return str(ir.IntegerAttr(owner.attributes["value"]).value)
            except (KeyError, ValueError):
                return self._param(v)
        if owner.name == "affine.apply":
            m = mlir.affine_map_attr(owner, "map")
            exprs = map_exprs(m, list(owner.operands), self)
            return f"({exprs[0]})"
        if _inside_loop(owner):
            # A value computed inside a loop may change every iteration: not a parameter.
            raise NonAffine(f"index computed by {owner.name} inside a loop")
        return self._param(v)

    def _param(self, v: ir.Value) -> str:
        name = self.names.get(v)
        if name is None:
            name = self._fresh("p")
            self.names[v] = name
            self.params[name] = v
        return name


def _inside_loop(op: ir.Operation, inclusive: bool = False) -> bool:
    """True iff `op` (or, with `inclusive`, op itself) is a loop-like op or nested in one."""
    p = op if inclusive else (mlir.operation(op.parent) if op.parent is not None else None)
    while p is not None and p.name not in ("func.func", "builtin.module"):
        if p.name in (*LOOP_LIKE, "scf.while"):
            return True
        p = mlir.operation(p.parent) if p.parent is not None else None
    return False


def expr_text(e: ir.AffineExpr, dims: list[str], syms: list[str]) -> str:
    """isl text of one affine expression with dims/symbols replaced by the given texts."""
    if isinstance(e, ir.AffineDimExpr):
        return dims[e.position]
    if isinstance(e, ir.AffineSymbolExpr):
        return syms[e.position]
    if isinstance(e, ir.AffineConstantExpr):
        return str(e.value)
    lhs, rhs = expr_text(e.lhs, dims, syms), expr_text(e.rhs, dims, syms)
    if isinstance(e, ir.AffineAddExpr):
        return f"({lhs} + {rhs})"
    if isinstance(e, ir.AffineMulExpr):
        if not (_is_number(lhs) or _is_number(rhs)):
            raise NonAffine(f"product of two non-constant terms: {e}")
        return f"({lhs} * {rhs})" if _is_number(lhs) else f"({rhs} * {lhs})"
    if not _is_number(rhs) or int(rhs.strip("()")) <= 0:
        raise NonAffine(f"division by a non-constant or non-positive value: {e}")
    if isinstance(e, ir.AffineModExpr):
        return f"({lhs} mod {rhs})"
    if isinstance(e, ir.AffineFloorDivExpr):
        return f"floor({lhs}/{rhs})"
    if isinstance(e, ir.AffineCeilDivExpr):
        return f"ceil({lhs}/{rhs})"
    raise NonAffine(f"unsupported affine expression {e}")


def simplified(e: ir.AffineExpr, n_dims: int, n_symbols: int) -> ir.AffineExpr:
    """`e` as MLIR simplifies it (`simplifyAffineExpr`: flattened, terms collected: `d0 * 197 +
    d1 - d1` is `d0 * 197`), downcast to its kind (the bindings' `+` may return a folded
    constant typed as a sum)."""
    return ir.AffineExpr.simplify_affine_expr(e, n_dims, n_symbols).maybe_downcast()


def _is_number(t: str) -> bool:
    t = t.strip("()").strip()
    return t.lstrip("-").isdigit()


def map_exprs(m: ir.AffineMap, operands: list[ir.Value], scope: Scope) -> list[str]:
    """The results of `m` applied to `operands` (dims first, then symbols), as isl texts."""
    nd = m.n_dims
    texts = [scope.value_expr(v) for v in operands]
    return [expr_text(r, texts[:nd], texts[nd:]) for r in m.results]
