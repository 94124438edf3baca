"""Shrink a failing generated program while it keeps failing.

Works on the generator's model, so every candidate is valid by construction:
dropping a statement drops everything that uses what it defines (and a placed
buffer's readers go with its init nest). Passes, repeated to a fixpoint:
  1. delta debugging over statements, regions' bodies included (halves, quarters, ... single
     ones), then inlining a region's body in place of the region;
  2. per nest: drop single terms of the arithmetic, extra stores, the call in the body, local
     reshapes, the affine.if guard, the in-body invariant;
  3. per loop: untile, replace symbolic bounds by their constant maximum, make max(...) / band /
     triangular bounds and steps plain, halve constant bounds; per product (issue 33): two rows,
     halve K and N, drop the ops around the column loop, the row reduction, the counter in the
     stored value, each decoy global;
  4. call the body once with distinct buffers; drop unused arguments and shrink buffers to what
     their accesses need.
A candidate the sizer or renderer rejects is skipped.
"""
from __future__ import annotations

import copy
from dataclasses import replace
from typing import Callable

from .generator import GeneratedProgram, Loop, Nest, Program, _loop_max, finish, without
from .model import AllocOp, GlobalOp, Product, Region, ViewOp, walk_stmts

StillFails = Callable[[GeneratedProgram], bool]


def shrink(prog: GeneratedProgram, still_fails: StillFails, max_checks: int = 400) -> GeneratedProgram:
    """The smallest variant of `prog` found for which `still_fails` holds (prog itself at worst)."""
    if prog.model is None:
        return prog
    budget = [max_checks]
    best = prog
    while budget[0] > 0:
        size = len(best.text)
        best = _drop_statements(best, still_fails, budget)
        best = _inline_regions(best, still_fails, budget)
        best = _simplify_nests(best, still_fails, budget)
        best = _simplify_products(best, still_fails, budget)
        best = _simplify_program(best, still_fails, budget)
        best = _simplify_buffers(best, still_fails, budget)
        if len(best.text) >= size:
            break
    return best


def _try(model: Program, still_fails: StillFails, budget: list) -> GeneratedProgram | None:
    if budget[0] <= 0:
        return None
    budget[0] -= 1
    try:
        cand = finish(model)
    except Exception:  # a model edit the sizer or renderer cannot handle: not a candidate
        return None
    return cand if still_fails(cand) else None


def _count(model: Program) -> int:
    return sum(1 for _ in walk_stmts(model.stmts))


def _drop_statements(prog: GeneratedProgram, still_fails: StillFails, budget: list) -> GeneratedProgram:
    """ddmin over statement indices: try removing chunks, halving the chunk size when none goes."""
    best = prog
    chunk = max(1, _count(best.model) // 2)
    while chunk >= 1 and budget[0] > 0:
        n = _count(best.model)
        start, progressed = 0, False
        while start < n and budget[0] > 0:
            drop = set(range(start, min(n, start + chunk)))
            model = without(copy.deepcopy(best.model), drop)
            if _count(model) < n:
                cand = _try(model, still_fails, budget)
                if cand is not None:
                    best, progressed = cand, True
                    n = _count(best.model)
                    continue
            start += chunk
        if not progressed:
            chunk //= 2
    return best


def _inline_regions(prog: GeneratedProgram, still_fails: StillFails, budget: list) -> GeneratedProgram:
    """Replace a region by its body (a loop run once, a condition dropped)."""
    best = prog
    k = 0
    while k < len(best.model.stmts) and budget[0] > 0:
        if isinstance(best.model.stmts[k].what, Region):
            model = copy.deepcopy(best.model)
            model.stmts[k:k + 1] = model.stmts[k].what.body
            cand = _try(model, still_fails, budget)
            if cand is not None:
                best = cand
                continue
        k += 1
    return best


def _nests(model: Program) -> list:
    return [st.what for st in walk_stmts(model.stmts) if isinstance(st.what, Nest)]


def _simplify_each(prog: GeneratedProgram, still_fails: StillFails, budget: list, items, edits_of,
                   takes_model: bool) -> GeneratedProgram:
    """Try each edit (`edits_of`) of each statement `items(model)` lists, on a copy of the model,
    keeping the copy when the program still fails; an edit takes the statement (and the model,
    with `takes_model`) and returns False when it does not apply."""
    best = prog
    for k in range(len(items(best.model))):
        for edit in edits_of(items(best.model)[k]):
            if budget[0] <= 0:
                return best
            model = copy.deepcopy(best.model)
            found = items(model)
            if k < len(found) and (edit(found[k], model) if takes_model else edit(found[k])):
                cand = _try(model, still_fails, budget)
                if cand is not None:
                    best = cand
    return best


def _simplify_nests(prog: GeneratedProgram, still_fails: StillFails, budget: list) -> GeneratedProgram:
    return _simplify_each(prog, still_fails, budget, _nests, _nest_edits, True)


def _nest_edits(w: Nest) -> list:
    """Edits of one nest (each returns False when it does not apply)."""
    edits = []
    for t in range(len(w.compute.terms)):
        edits.append(lambda nest, m, t=t: _drop_term(nest, t))
    for e in range(len(w.extra)):
        edits.append(lambda nest, m, e=e: _drop_extra(nest, e))
    if w.compute.invariant:
        edits.append(lambda nest, m: _drop_invariant(nest))
    if w.compute.guard:
        edits.append(lambda nest, m: _drop_guard(nest))
    if w.body_call is not None:
        edits.append(lambda nest, m: _drop_body_call(nest))
    if w.reshapes:
        edits.append(lambda nest, m: _drop_local_reshapes(nest))
    for d in range(len(w.loops)):
        edits.append(lambda nest, m, d=d: _untile(nest.loops[d]))
        edits.append(lambda nest, m, d=d: _constant_bound(nest.loops[d], m))
        edits.append(lambda nest, m, d=d: _plain_bounds(nest, d, m))
        edits.append(lambda nest, m, d=d: _halve_bound(nest.loops[d]))
    return edits


def _drop_term(nest: Nest, t: int) -> bool:
    c = nest.compute
    if len(c.terms) <= 1 or t >= len(c.terms):
        return False
    del c.terms[t]
    del c.ops[max(0, t - 1)]
    return True


def _drop_extra(nest: Nest, e: int) -> bool:
    if e >= len(nest.extra) or nest.twin is not None:
        return False
    del nest.extra[e]
    return True


def _drop_invariant(nest: Nest) -> bool:
    nest.compute.invariant = None
    return True


def _drop_guard(nest: Nest) -> bool:
    nest.compute.guard = None
    return True


def _drop_body_call(nest: Nest) -> bool:
    nest.body_call = None
    return True


def _drop_local_reshapes(nest: Nest) -> bool:
    local = {id(v) for v in nest.reshapes}
    for _, c in nest.statements():
        keep = [(k, t) for k, t in c.terms if not (k == "load" and id(t.ref) in local)]
        if not keep:
            return False
        if len(keep) != len(c.terms):
            c.terms[:] = keep
            c.ops[:] = c.ops[:len(keep) - 1]
    nest.reshapes = []
    return True


def _untile(loop: Loop) -> bool:
    if loop.tile is None:
        return False
    loop.tile = None
    return True


def _constant_bound(loop: Loop, model: Program) -> bool:
    if not isinstance(loop.hi, str):
        return False
    loop.hi = model.symbols[loop.hi]
    return True


def _plain_bounds(nest: Nest, d: int, model: Program) -> bool:
    """`max(...)`, band and triangular bounds and steps become `lo to (largest value + 1)`."""
    loop = nest.loops[d]
    if loop.lb is None and loop.step == 1 and not (isinstance(loop.hi, tuple) and loop.hi[0] == "var"):
        return False
    if isinstance(loop.hi, tuple) and loop.hi[0] == "var":
        loop.hi = max(loop.lo + 1, _loop_max(model.symbols, loop, nest.loops) + 1)
    if d == len(nest.loops) - 1 and nest.width > 1:
        loop.lb = None  # a vector loop keeps its step
    else:
        loop.lb, loop.step = None, 1
    return True


def _halve_bound(loop: Loop) -> bool:
    if not isinstance(loop.hi, int) or loop.hi - loop.lo < 2:
        return False
    loop.hi = loop.lo + (loop.hi - loop.lo) // 2
    return True


def _products(model: Program) -> list:
    return [st.what for st in walk_stmts(model.stmts) if isinstance(st.what, Product)]


def _simplify_products(prog: GeneratedProgram, still_fails: StillFails, budget: list) -> GeneratedProgram:
    return _simplify_each(prog, still_fails, budget, _products, _product_edits, False)


def _product_edits(p: Product) -> list:
    """Edits of one product (each returns False when it does not apply)."""
    def two_rows(q):
        if q.m <= 2:
            return False
        q.m = 2
        return True

    def halve(attr, least):
        def edit(q):
            if getattr(q, attr) // 2 < least:
                return False
            setattr(q, attr, getattr(q, attr) // 2)
            q.cols = tuple(min(c, q.n - 1) for c in q.cols)
            return True
        return edit

    def drop(attr, item):
        def edit(q):
            if item not in getattr(q, attr):
                return False
            setattr(q, attr, tuple(x for x in getattr(q, attr) if x != item))
            return True
        return edit

    def clear(attr):
        def edit(q):
            if not getattr(q, attr):
                return False
            setattr(q, attr, None if attr == "row_init" else False)
            return True
        return edit

    def drop_decoy(name):
        def edit(q):
            keep = [d for d in q.decoys if d[0] != name]
            if len(keep) == len(q.decoys):
                return False
            q.decoys = keep
            return True
        return edit

    def no_around(q):
        if not (q.before or q.after):
            return False
        q.before, q.after = (), ()
        return True

    edits = [two_rows, halve("k", 1), halve("n", 1), no_around, drop("before", "read_e"), drop("after", "write_c"),
             clear("row_init"), clear("iv")]
    return edits + [drop_decoy(d[0]) for d in p.decoys]


def _simplify_program(prog: GeneratedProgram, still_fails: StillFails, budget: list) -> GeneratedProgram:
    """The body called once, with distinct buffers (no parameter aliasing)."""
    best = prog
    for edit in (lambda m: replace(m, plain_call_first=False), lambda m: replace(m, alias_pairs=[])):
        model = copy.deepcopy(best.model)
        new = edit(model)
        if (new.alias_pairs, new.plain_call_first) == (model.alias_pairs, model.plain_call_first):
            continue
        cand = _try(new, still_fails, budget)
        if cand is not None:
            best = cand
    return best


def _referenced(model: Program) -> set:
    names = set()
    for st in walk_stmts(model.stmts):
        names |= st.uses
    for a, b in model.alias_pairs:
        names |= {a, b}
    return names


def _simplify_buffers(prog: GeneratedProgram, still_fails: StillFails, budget: list) -> GeneratedProgram:
    """Drop arguments no statement touches; then shrink each buffer's minimum shape to 1s."""
    best = prog
    model = copy.deepcopy(best.model)
    used = _referenced(model)
    model.inputs = [b for b in model.inputs if b.name in used]
    model.outputs = [b for b in model.outputs if b.name in used]
    if len(model.inputs) + len(model.outputs) < len(best.model.inputs) + len(best.model.outputs):
        cand = _try(model, still_fails, budget)
        if cand is not None:
            best = cand
    names = [r.name for r in _shaped(best.model) if any(d > 1 for d in r.min_shape)]
    for name in names:
        model = copy.deepcopy(best.model)
        for r in _shaped(model):
            if r.name == name:
                r.min_shape = (1,) * r.rank
        cand = _try(model, still_fails, budget)
        if cand is not None:
            best = cand
    return best


def _shaped(model: Program) -> list:
    """Buffers, globals and subviews (the refs with a minimum shape)."""
    refs = list(model.inputs) + list(model.outputs)
    for st in walk_stmts(model.stmts):
        if isinstance(st.what, (AllocOp, GlobalOp)):
            refs.append(st.what.buf)
        elif isinstance(st.what, ViewOp) and st.what.view.kind == "subview":
            refs.append(st.what.view)
    return refs
