"""Permuted copies folded into the accesses around them (cpu, step `fold-permuted-copies`; rule and
legality in plan/permuted_copies.py, docs/cpu_codegen.md section 46).

A copy `D[g(i)] = S[f(i)]` of a whole buffer by a permutation of its dimensions (torch's
`permute`) is erased: into its readers (D's reads read S through the permutation) or into its
writers (S's accesses go to D through it); the buffer that disappears is erased with its dealloc,
and loops the copy leaves empty with it.

Remarks (pass `fold-permuted-copies`): `[FOLD COPY] ...` (Passed) per copy folded; `[STOP FOLD
COPY] why` (Missed) per copy refused, with the access or buffer that blocks it.
"""
from __future__ import annotations

from ... import mlir
from ...analysis.affine import Scope
from ...mlir import ir
from ...remarks import MISSED, PASSED, RemarkLog
from ...step import StepContext
from .plan.permuted_copies import CopyFold, PermutedCopy, permuted_copies, permuted_map, plan_fold

PASS = "fold-permuted-copies"
DONE = ("[FOLD COPY] the copy of {src} into {dst} by the permutation {perm} folded into its {into}: "
        "{n} access(es) of the {gone} {how}; the copy and the {shape} buffer erased")


def _shape(v: ir.Value) -> str:
    return "x".join(map(str, mlir.memref_type(v).shape))


def permutation_text(c: PermutedCopy) -> str:
    """Per dimension of D, the dimension of S it holds ('-' for a unit dimension), as [a, b, ...]."""
    return "[" + ", ".join("-" if j is None else str(j) for j in
                           (c.source_dim_of_dest(p) for p in range(len(c.dest_loops)))) + "]"


def rewrite_access(op: ir.Operation, buffer: ir.Value, take: list[int | None]) -> None:
    """Point the affine.load/store `op` at `buffer`, its index k the old index take[k]."""
    k = 1 if op.name == "affine.store" else 0
    op.operands[k] = buffer
    op.attributes["map"] = ir.AffineMapAttr.get(permuted_map(mlir.affine_map_attr(op, "map"), take))


def erase_copy(c: PermutedCopy) -> None:
    """Erase the copy's store and load, then each loop around them left empty, innermost first."""
    c.store.erase()
    c.load.erase()
    for lp in reversed(c.loops):
        ops = [o for o in mlir.block_ops(lp.regions[0].blocks[0]) if o.name != "affine.yield"]
        if ops or lp.results:
            break
        lp.erase()


def erase_buffer(v: ir.Value) -> None:
    """Erase the memref.alloc of `v` and its deallocs, once nothing else uses it."""
    users = [mlir.operation(u.owner) for u in v.uses]
    if any(u.name != "memref.dealloc" for u in users):
        return
    for u in users:
        u.erase()
    mlir.value_owner(v)[0].erase()


def apply_fold(f: CopyFold) -> None:
    c = f.copy
    if f.into == "readers":
        take = [c.dest_dim_of_source(j) for j in range(len(c.source_loops))]
        for op in f.rewritten:
            rewrite_access(op, c.source, take)
        gone = c.dest
    else:
        take = [c.source_dim_of_dest(p) for p in range(len(c.dest_loops))]
        for op in f.rewritten:
            rewrite_access(op, c.dest, take)
        gone = c.source
    erase_copy(c)
    erase_buffer(gone)


def into_result(c: PermutedCopy) -> bool:
    """The copy's destination is an argument of the function (the result it returns, written in
    place) and its source a buffer the function allocates: what `fold-result-copies` takes."""
    owner, block = mlir.value_owner(c.dest)
    return (owner is None and block is not None and block.owner is not None
            and mlir.operation(block.owner).name == "func.func" and _allocated(c.source))


def _allocated(v: ir.Value) -> bool:
    owner, _ = mlir.value_owner(v)
    return owner is not None and owner.name == "memref.alloc"


def fold_permuted_copies_function(fn: ir.Operation, scope: Scope, log: RemarkLog, filename: str = "<input>",
                                  results_only: bool = False, pass_name: str = PASS) -> int:
    """Fold every permuted copy the rule takes, one at a time (each fold changes the next one's
    facts); returns how many. `results_only`: only copies into a function argument from a
    buffer the function allocates (`into_result`), and only into their writers."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    count = 0
    refused: set = set()
    with fn.context, fn.location:
        while True:
            copies = [c for c in permuted_copies(fn) if not results_only or into_result(c)]
            folds = [plan_fold(c, fn, scope) for c in copies]
            if results_only:
                folds = [f for f in folds if f.code is not None or f.into == "writers"]
            for f in folds:
                where = mlir.location_of(f.copy.store, filename)
                if f.code is not None and where not in refused:
                    refused.add(where)
                    log.add(pass_name, MISSED, f.code.message(), function=fname, location=where,
                            args={"code": f.code.name, "detail": f.detail})
            todo = next((f for f in folds if f.code is None), None)
            if todo is None:
                return count
            c = todo.copy
            gone = c.dest if todo.into == "readers" else c.source
            log.add(pass_name, PASSED, DONE.format(
                src=_shape(c.source), dst=_shape(c.dest), perm=permutation_text(c), into=todo.into,
                n=len(todo.rewritten), gone="destination" if todo.into == "readers" else "source",
                how="read the source through it" if todo.into == "readers" else "go to the destination through it",
                shape=_shape(gone)), function=fname, location=mlir.location_of(c.store, filename),
                args={"into": todo.into, "accesses": len(todo.rewritten)})
            apply_fold(todo)
            count += 1


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `fold-permuted-copies` (loopopt/pipeline.py)."""
    return fold_permuted_copies_function(fn, Scope(), ctx.log, ctx.filename)


RESULTS_PASS = "fold-result-copies"


def run_results(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `fold-result-copies` (loopopt/pipeline.py): before fusion, a permuted copy of a
    buffer the function allocates into one of its arguments (its result, written in place) folded
    into its writers, which then build the result in that order (docs/cpu_codegen.md section 50):
    fusion would otherwise put the copy into the writers' nest, where it is no longer a copy of
    a whole buffer, and the nest would write both buffers."""
    return fold_permuted_copies_function(fn, Scope(), ctx.log, ctx.filename, results_only=True,
                                         pass_name=RESULTS_PASS)
