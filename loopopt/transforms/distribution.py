"""Loop distribution: split one perfect nest into several, one per independent statement group.

The statements are the top-level ops of the nest's innermost body (inner loops included). A split
is legal when no dependence cycle crosses it: groups are the strongly connected components of the
statement dependence graph (memory dependences over the full iteration vector of the nest, plus
def-use edges, which bind a value's producer and consumers into one group), emitted in a
topological order that keeps program order where it can. Pure ops without regions (constants,
index arithmetic) are recomputed in each group that uses them instead of binding groups together.
The split is committed only when at least two non-empty groups result (seed 001's assert that
both sides are non-empty).
"""
from __future__ import annotations

from .. import mlir
from ..analysis.affine import Scope
from ..analysis.legality import (distribution_order, distribution_violation, innermost_body,
                                 is_band, is_recomputable, pure_closure, result_index, statement_graph,
                                 value_deps)
from ..analysis.refusal import Code, Refusal
from ..analysis.loops import body_block, collect_interchangeable_loops, is_outermost_loop, perfect_nest
from ..mlir import ir
from ..remarks import PASSED, RemarkLog
from ..step import StepContext

DISTRIBUTION = "distribution"
STOP_ONE_GROUP = Code.DISTRIBUTION_ONE_GROUP.message
STOP_ITER_ARGS = Code.DISTRIBUTION_ITER_ARGS.message
STOP_NOT_PERFECT = Code.DISTRIBUTION_NOT_PERFECT.message


def split_for_distribution(loop: ir.Operation, scope: Scope | None = None) -> list[list[ir.Operation]]:
    """The seed's split_for_distribution: statement groups of the nest rooted at `loop`, in the
    order their loops must run. One group means the nest cannot be split. Recomputable pure ops
    are not listed (loop_distribution clones them where needed)."""
    return distribution_groups(loop, scope)[0]


def distribution_groups(loop: ir.Operation, scope: Scope | None = None):
    """(split_for_distribution's groups, the statement graph they come from; None without a
    nest): the graph lets loop_distribution check the grouping without building it again."""
    scope = scope or Scope()
    nest = collect_interchangeable_loops(loop)
    if not nest:
        return [], None
    graph = statement_graph(nest, scope)
    return [[graph.statements[s] for s in grp] for grp in distribution_order(graph)], graph


def check_loop_distribution(loop: ir.Operation, scope: Scope | None = None) -> Refusal | None:
    """None iff maximal distribution of `loop`'s nest yields at least two groups."""
    nest = collect_interchangeable_loops(loop)
    if not nest:
        return Refusal(Code.DISTRIBUTION_ITER_ARGS, ops=(loop,))
    if not is_band(nest):
        return Refusal(Code.DISTRIBUTION_NOT_PERFECT, ops=tuple(nest))
    if len(split_for_distribution(loop, scope)) < 2:
        return Refusal(Code.DISTRIBUTION_ONE_GROUP, ops=tuple(nest))
    return None


def loop_distribution(loop: ir.Operation, groups: list[list[ir.Operation]],
                      scope: Scope | None = None, *, check: bool = True, graph=None) -> list[ir.Operation]:
    """Emit one copy of `loop`'s nest per group, in group order; returns their outermost loops.

    Each copy keeps the headers (bounds, steps) and only its group's statements plus the pure
    ops they need. With fewer than two non-empty groups nothing changes and `[loop]` is returned.
    Raises ValueError (before changing anything) when the grouping is illegal
    (analysis.legality.distribution_violation); `check=False` skips the dependence check (tests
    use it to show a refused grouping really changes results) but never the def-use check.
    `graph`: the nest's statement graph when the caller has it (distribution_groups).
    """
    groups = [g for g in groups if any(not is_recomputable(op) for op in g)]
    if len(groups) < 2:
        return [loop]
    nest = collect_interchangeable_loops(loop)
    why = distribution_violation(nest, groups, scope or Scope(), dependences=check, graph=graph)
    if why:
        raise ValueError(why)
    body = innermost_body(nest)
    index = result_index(body)
    deps = [value_deps(o, body, index) for o in body]
    where = {mlir.op_key(b): i for i, b in enumerate(body)}
    keep_sets = []
    for grp in groups:
        keep = set()
        for op in grp:
            k = where[mlir.op_key(op)]
            keep.add(k)
            pure, _ = pure_closure(k, body, deps)
            keep |= pure
        keep_sets.append(keep)
    depth = len(nest)
    # One empty copy of the band (its headers only) is cloned per group, and each group's ops
    # are cloned into it with the band's IVs and the body's values renamed: linear in the body,
    # where cloning the whole loop per group and erasing the rest was quadratic.
    shell = loop.clone(ip=ir.InsertionPoint(loop))
    for op in reversed(innermost_body(perfect_nest(shell)[:depth])):
        op.erase()
    ivs = [body_block(lp).arguments[0] for lp in nest]
    out = []
    for keep in keep_sets:
        copy = shell.clone(ip=ir.InsertionPoint(loop))
        band = perfect_nest(copy)[:depth]
        rename = {iv: body_block(lp).arguments[0] for iv, lp in zip(ivs, band)}
        end = ir.InsertionPoint(mlir.block_ops(body_block(band[-1]))[-1])
        for k in sorted(keep):
            new = mlir.operation(body[k].clone(ip=end))
            for o in [new, *mlir.walk_list(new)]:
                for n, v in enumerate(o.operands):
                    w = rename.get(v)
                    if w is not None:
                        o.operands[n] = w
            for r_old, r_new in zip(body[k].results, new.results):
                rename[r_old] = r_new
        out.append(mlir.operation(copy))
    shell.erase()
    loop.erase()
    return out


def distribute_pass(module: ir.Module, options, log: RemarkLog) -> int:
    """`--passes=distribute`: maximally distribute every outermost loop nest; returns the number of
    nests split. Honours options.enable_loop_distribution."""
    return sum(distribute_function(fn, options, log) for fn in mlir.functions(module))


def distribute_function(fn: ir.Operation, options, log: RemarkLog, filename: str = "<input>") -> int:
    """distribute_pass on one function."""
    if options is not None and not options.enable_loop_distribution:
        return 0
    count = 0
    name = mlir.func_name(fn)
    roots = [o for o in mlir.walk(fn) if o.name == "affine.for" and is_outermost_loop(o)]
    for root in roots:
        where = mlir.location_of(root, filename)
        why = check_loop_distribution(root)
        if why is not None:
            log.refused(DISTRIBUTION, why, function=name, location=where)
            continue
        groups = split_for_distribution(root)
        loops = loop_distribution(root, groups)
        count += 1
        log.add(DISTRIBUTION, PASSED, f"[LOOP DISTRIBUTION] into {len(loops)} loops", function=name,
                location=where, args={"groups": [len(g) for g in groups]})
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `distribution` (loopopt/pipeline.py)."""
    return distribute_function(fn, ctx.options, ctx.log, ctx.filename)
