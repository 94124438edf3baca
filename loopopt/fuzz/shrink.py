"""Shrink a failing generated program while it keeps failing.

Works on the generator's model, so every candidate is valid by construction:
dropping a statement drops everything that uses what it defines (and a placed
buffer's readers go with its init nest). Passes, repeated to a fixpoint:
  1. delta debugging over top-level statements (halves, quarters, ... single ones);
  2. drop single terms of a nest's arithmetic;
  3. untile loops, replace symbolic bounds by their constant maximum, halve constant bounds;
  4. drop unused arguments and shrink buffers to what their accesses need.
"""
from __future__ import annotations

import copy
from typing import Callable

from .generator import GeneratedProgram, Loop, Nest, Program, finish, without

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
        best = _simplify_nests(best, still_fails, budget)
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
    except Exception:  # a model edit the sizer cannot handle: not a candidate
        return None
    return cand if still_fails(cand) else None


def _drop_statements(prog: GeneratedProgram, still_fails: StillFails, budget: list) -> GeneratedProgram:
    """ddmin over statement indices: try removing chunks, halving the chunk size when none goes."""
    best = prog
    chunk = max(1, len(best.model.stmts) // 2)
    while chunk >= 1 and budget[0] > 0:
        n = len(best.model.stmts)
        start, progressed = 0, False
        while start < n and budget[0] > 0:
            drop = set(range(start, min(n, start + chunk)))
            model = without(copy.deepcopy(best.model), drop)
            if len(model.stmts) < n:
                cand = _try(model, still_fails, budget)
                if cand is not None:
                    best, progressed = cand, True
                    n = len(best.model.stmts)
                    continue
            start += chunk
        if not progressed:
            chunk //= 2
    return best


def _simplify_nests(prog: GeneratedProgram, still_fails: StillFails, budget: list) -> GeneratedProgram:
    best = prog
    for k in range(len(best.model.stmts)):
        for edit in _nest_edits(best.model, k):
            if budget[0] <= 0:
                return best
            model = copy.deepcopy(best.model)
            if edit(model.stmts[k].what, model):
                cand = _try(model, still_fails, budget)
                if cand is not None:
                    best = cand
    return best


def _nest_edits(model: Program, k: int) -> list:
    """Edits of statement k (each returns False when it does not apply)."""
    w = model.stmts[k].what
    if not isinstance(w, Nest):
        return []
    edits = []
    for t in range(len(w.compute.terms)):
        edits.append(lambda nest, m, t=t: _drop_term(nest, t))
    if w.compute.invariant:
        edits.append(lambda nest, m: _drop_invariant(nest))
    for d in range(len(w.loops)):
        edits.append(lambda nest, m, d=d: _untile(nest.loops[d]))
        edits.append(lambda nest, m, d=d: _constant_bound(nest.loops[d], m))
        edits.append(lambda nest, m, d=d: _halve_bound(nest.loops[d]))
    return edits


def _drop_term(nest: Nest, t: int) -> bool:
    c = nest.compute
    if len(c.terms) <= 1 or t >= len(c.terms):
        return False
    del c.terms[t]
    del c.ops[max(0, t - 1)]
    return True


def _drop_invariant(nest: Nest) -> bool:
    nest.compute.invariant = None
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


def _halve_bound(loop: Loop) -> bool:
    if not isinstance(loop.hi, int) or loop.hi - loop.lo < 2:
        return False
    loop.hi = loop.lo + (loop.hi - loop.lo) // 2
    return True


def _referenced(model: Program) -> set:
    names = set()
    for st in model.stmts:
        names |= st.uses
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
    """Buffers and subviews (the refs with a minimum shape)."""
    from .generator import AllocOp, ViewOp

    refs = list(model.inputs) + list(model.outputs)
    for st in model.stmts:
        if isinstance(st.what, AllocOp):
            refs.append(st.what.buf)
        elif isinstance(st.what, ViewOp) and st.what.view.kind == "subview":
            refs.append(st.what.view)
    return refs
