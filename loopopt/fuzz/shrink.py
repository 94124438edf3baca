"""Shrink a failing generated program while it keeps failing.

Works on the generator's model, so every candidate is valid by construction:
dropping a statement drops everything that uses what it defines (and a placed
buffer's readers go with its init nest). Passes, repeated to a fixpoint:
  1. delta debugging over statements, regions' bodies included (halves, quarters, ... single
     ones), then inlining a region's body in place of the region;
  2. per nest: drop single terms of the arithmetic, extra stores, the call in the body, local
     reshapes, the affine.if guard, the in-body invariant;
  3. per loop: untile, replace symbolic bounds by their constant maximum, make max(...) / band /
     triangular bounds and steps plain, halve constant bounds, drop the loop (its variable fixed
     at its lower bound: a reduction loop of a nest with several goes, a parallel one leaves a
     slice); per product (issue 33): two rows, halve K and N, drop the ops around the column
     loop, the row reduction, the counter in the stored value, each decoy global; per
     contraction (issue 35): drop a reduction loop (its variable fixed at 0 in every subscript),
     make a loop a unit loop or halve it, drop the second operand (`O += X`), the fill, the
     iter_args accumulators (the memory form) and a permuted loop order; X's and W's shapes
     follow the subscripts; per loss over rows or transposing copy: one row, half the columns
     (a copy's extents halved), the copy's read-back;
  4. call the body once with distinct buffers; drop unused arguments and shrink buffers to what
     their accesses need.
A candidate the sizer or renderer rejects is skipped.
"""
from __future__ import annotations

import copy
from dataclasses import replace
from typing import Callable

from .generator import GeneratedProgram, Loop, Nest, Program, _loop_max, finish, without
from .model import AllocOp, Contraction, GlobalOp, Idx, Product, Region, RowLoss, TransposeCopy, ViewOp, walk_stmts

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
        best = _simplify_contractions(best, still_fails, budget)
        best = _simplify_codegen_rows(best, still_fails, budget)
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
    for d in reversed(range(len(w.loops))):  # inner loops first: the reduction loops of a nest are inside
        edits.append(lambda nest, m, d=d: _drop_loop(nest, d))
    return edits


def _drop_loop(nest: Nest, d: int) -> bool:
    """Fix loop d's variable at its lower bound `lo` and remove the loop: every subscript
    `coef * v + c` becomes `coef * lo + c` and the loops inside are renumbered. Only for a
    plain constant loop that runs (`lo to hi`, step 1, hi > lo, untiled) of a nest of two or
    more loops that is not an init nest (a placed buffer would be left partly unwritten); not
    the vector loop nor the loop a reduce_iter nest carries its sum in, nor a loop that another
    loop's bounds name, a semi-affine subscript uses or whose counter is stored as data."""
    loops = nest.loops
    if nest.kind == "init" or len(loops) < 2 or d >= len(loops):
        return False
    last = d == len(loops) - 1
    if last and (nest.width > 1 or nest.kind == "reduce_iter"):
        return False
    lp = loops[d]
    if lp.lb is not None or lp.step != 1 or lp.tile is not None or not isinstance(lp.hi, int) or lp.hi <= lp.lo:
        return False  # a loop that may run no iteration (or not from lo): fixing it would add work
    for other in loops:
        named = [other.hi, other.lb] + ([other.lb[1]] if other.lb is not None and other.lb[0] == "max" else [])
        if any(isinstance(x, tuple) and len(x) == 3 and x[0] in ("var", "band") and x[1] == d for x in named):
            return False
    accesses = [dst for dst, _ in nest.statements()] + nest.loads()
    if any(s.var == d and s.semi for a in accesses for s in a.idx):
        return False
    if any(k == "iv" and t == d for _, c in nest.statements() for k, t in c.terms):
        return False

    def level(k):
        return k - 1 if k > d else k

    def fix(s: Idx) -> Idx:
        if s.var == d:
            return replace(s, var=None, coef=1, const=s.coef * lp.lo + s.const)
        return replace(s, var=level(s.var)) if s.var is not None else s

    for a in accesses:
        a.idx = tuple(fix(s) for s in a.idx)
    for _, c in nest.statements():
        c.terms[:] = [(k, level(t)) if k == "iv" else (k, t) for k, t in c.terms]
    del loops[d]
    for other in loops:
        if isinstance(other.hi, tuple) and other.hi[0] == "var":
            other.hi = ("var", level(other.hi[1]), other.hi[2])
        if other.lb is not None and other.lb[0] == "band":
            other.lb = ("band", level(other.lb[1]), other.lb[2])
        elif other.lb is not None and other.lb[0] == "max" and other.lb[1][0] == "var":
            other.lb = ("max", ("var", level(other.lb[1][1]), other.lb[1][2]))
    return True


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


def _contractions(model: Program) -> list:
    return [st.what for st in walk_stmts(model.stmts) if isinstance(st.what, Contraction)]


def _simplify_contractions(prog: GeneratedProgram, still_fails: StillFails, budget: list) -> GeneratedProgram:
    return _simplify_each(prog, still_fails, budget, _contractions, _contraction_edits, False)


def _contraction_edits(c: Contraction) -> list:
    """Edits of one contraction (each returns False when it does not apply); each keeps the
    nest one that `convert-linalg-to-affine-loops` could write, and X's and W's minimum shapes
    what the subscripts reach."""
    n = len(c.par) + len(c.red)
    edits = [lambda q, r=r: _drop_reduction(q, r) for r in reversed(range(len(c.red)))]
    edits += [_drop_operand, _memory_form, _plain_order, _drop_fill]
    for loop in range(n):
        edits.append(lambda q, loop=loop: _set_trip(q, loop, 1))
        edits.append(lambda q, loop=loop: _set_trip(q, loop, q.trips[loop] // 2 if loop < len(q.trips) else 0))
    return edits


def _drop_reduction(c: Contraction, r: int) -> bool:
    """Reduction loop r goes: its variable is 0 (its lower bound) in every subscript."""
    if r >= len(c.red):
        return False
    gone = len(c.par) + r

    def sub(terms):
        return tuple((k - 1 if k > gone else k, coef) for k, coef in terms if k != gone)

    c.xsub = tuple(sub(t) for t in c.xsub)
    c.wsub = tuple(sub(t) for t in c.wsub)
    c.order = tuple(k - 1 if k > gone else k for k in c.order if k != gone)
    c.red = c.red[:r] + c.red[r + 1:]
    _fit_operands(c)
    return True


def _drop_operand(c: Contraction) -> bool:
    """`O += X * W` becomes `O += X` (W is no longer read)."""
    if c.w is None or c.kind != "sum":
        return False
    c.w, c.wsub = None, ()
    return True


def _memory_form(c: Contraction) -> bool:
    """The reductions' iter_args accumulators go: O is loaded, updated and stored innermost."""
    if c.form == "memory":
        return False
    c.form, c.order = "memory", tuple(range(len(c.trips)))
    return True


def _plain_order(c: Contraction) -> bool:
    if c.order == tuple(range(len(c.trips))):
        return False
    c.order = tuple(range(len(c.trips)))
    return True


def _drop_fill(c: Contraction) -> bool:
    if c.fill is None:
        return False
    c.fill = c.fill_name = None
    return True


def _set_trip(c: Contraction, loop: int, trip: int) -> bool:
    """Loop `loop` runs `trip` times (at least 1, fewer than now)."""
    if loop >= len(c.trips) or trip < 1 or trip >= c.trips[loop]:
        return False
    if loop < len(c.par):
        c.par = c.par[:loop] + (trip,) + c.par[loop + 1:]
        c.o.min_shape = tuple(c.par)
    else:
        r = loop - len(c.par)
        c.red = c.red[:r] + (trip,) + c.red[r + 1:]
    _fit_operands(c)
    return True


def _fit_operands(c: Contraction) -> None:
    """X's and W's minimum shapes: one past the largest value of each subscript (the sizer
    keeps them larger where another statement reads further)."""
    trips = c.trips
    for ref, subs in ((c.x, c.xsub), (c.w, c.wsub)):
        if ref is not None:
            ref.min_shape = tuple(1 + sum(coef * (trips[k] - 1) for k, coef in terms) for terms in subs)


def _codegen_rows(model: Program) -> list:
    return [st.what for st in walk_stmts(model.stmts) if isinstance(st.what, (TransposeCopy, RowLoss))]


def _simplify_codegen_rows(prog: GeneratedProgram, still_fails: StillFails, budget: list) -> GeneratedProgram:
    return _simplify_each(prog, still_fails, budget, _codegen_rows, _codegen_row_edits, False)


def _codegen_row_edits(c) -> list:
    """Edits of a loss over rows or a transposing copy (each returns False when it does not
    apply); the buffers' minimum shapes follow the extents."""
    def one_row(q):
        if isinstance(q, TransposeCopy) or q.rows <= 1:
            return False
        q.rows = 1
        _fit_codegen_rows(q)
        return True

    def half(attr):
        def edit(q):
            n = getattr(q, attr) // 2
            if n < 1 or (isinstance(q, RowLoss) and (attr != "cols" or n <= q.t)):
                return False  # a loss keeps its gathered column
            if isinstance(q, TransposeCopy) and q.src is q.dst:
                q.rows = q.cols = n  # in place: square
            else:
                setattr(q, attr, n)
            _fit_codegen_rows(q)
            return True
        return edit

    def no_read_back(q):
        if not isinstance(q, TransposeCopy) or q.out is None:
            return False
        q.out = None
        return True

    return [one_row, half("rows"), half("cols"), no_read_back]


def _fit_codegen_rows(c) -> None:
    if isinstance(c, TransposeCopy):
        c.src.min_shape = (c.rows, c.cols)
        c.dst.min_shape = (c.cols, c.rows)
        if c.out is not None:
            c.out.min_shape = (c.cols, c.rows)
        return
    c.x.min_shape = c.o.min_shape = (c.rows, c.cols)
    c.l.min_shape = c.m.min_shape = c.s.min_shape = (c.rows,)


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
