"""Legality of reordering transforms: loop permutation (interchange, band tiling) and distribution.

Both questions reduce to one rule: every pair of conflicting dynamic instances (same element,
at least one write: RAW, WAR or WAW) must execute in the same order after the transform as
before. The instances are full iteration vectors of the reordered loops, related exactly by
isl; no pairwise direction signs are summarised, so nests of any depth are decided exactly
(seed 001 only observed pairwise tests and marks deeper nests [GAP]).

A permutation is also refused when a loop would move outside a loop whose induction variable
its bounds use: the rebuilt nest would not even be valid IR (MLIR 22 produced exactly that on
tiled dynamic nests, seed 003).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import islpy as isl

from .. import mlir
from ..mlir import ir
from .accesses import AccessPattern, collect_accesses
from .affine import NonAffine, Scope
from .dependence import (InstancePair, access_relation, conflicts, disjoint_classes, instance_pair, pair_set,
                         union_all)
from .checks import order_refusal, reorder_refusal
from .effects import REGION_OPS, is_pure_op, op_effects
from .memory import UNTRACED, root_origin, value_name
from .loops import body_ops, domain_loops, has_iter_args, loop_dims


# ---------------------------------------------------------------------------------------------
# Nest shape


def induction_var(loop: ir.Operation) -> ir.Value:
    return loop.regions[0].blocks[0].arguments[0]


def is_band(nest: list[ir.Operation]) -> bool:
    """True iff `nest` is a chain of affine.for ops, each the only op of its parent's body."""
    if not nest or any(lp.name != "affine.for" for lp in nest):
        return False
    for outer, inner in zip(nest, nest[1:]):
        ops = body_ops(outer)
        if len(ops) != 1 or ops[0] != inner:
            return False
    return True


def bound_operands(loop: ir.Operation) -> list[ir.Value]:
    """The operands of an affine.for's lower and upper bound maps."""
    lb = mlir.affine_map_attr(loop, "lowerBoundMap")
    ub = mlir.affine_map_attr(loop, "upperBoundMap")
    n = lb.n_dims + lb.n_symbols + ub.n_dims + ub.n_symbols
    return list(loop.operands)[:n]


def bound_users(nest: list[ir.Operation]) -> dict[int, set[int]]:
    """Level k -> levels of the band whose induction variables loop k's bounds use."""
    ivs = [induction_var(lp) for lp in nest]
    out: dict[int, set[int]] = {}
    for k, lp in enumerate(nest):
        ops = bound_operands(lp)
        out[k] = {m for m, iv in enumerate(ivs) if any(v == iv for v in ops)}
    return out


def is_permutation(perm, n: int) -> bool:
    return sorted(perm) == list(range(n))


def bounds_violation(nest: list[ir.Operation], perm: list[int]) -> str | None:
    """A loop's bounds may only use induction variables of loops that stay outside it.

    `perm[k]` is the original level placed at new position k. Moving a loop above a loop whose
    IV its bounds read would leave a use before its definition (seed 003's invalid IR).
    """
    pos = {orig: new for new, orig in enumerate(perm)}
    users = bound_users(nest)
    for k, lp in enumerate(nest):
        for m in sorted(users[k]):
            if pos[m] > pos[k]:
                return (f"the bounds of loop {_loc(lp)} (level {k}) use the induction variable of "
                        f"loop {_loc(nest[m])} (level {m}), which would move inside it")
    return None


def _loc(op: ir.Operation) -> str:
    return mlir.location_of(op)


# ---------------------------------------------------------------------------------------------
# Dependence relations over band iteration vectors


@dataclass(frozen=True)
class BandPair:
    """Conflicting instances of `a` (source copy) and `b` (target copy) as an isl set over
    (outer dims, source dims, target dims); `src`/`dst` name the band dims of each copy."""

    a: AccessPattern
    b: AccessPattern
    pair: InstancePair
    src: tuple[str, ...]
    dst: tuple[str, ...]

    def where(self, constraint_text: str) -> isl.Set:
        """The conflicting instance pairs that also satisfy `constraint_text`."""
        return pair_set(self.pair, [constraint_text])


def lex_less(xs, ys) -> str:
    """isl text: vector xs precedes ys lexicographically (false for empty vectors)."""
    terms = []
    for k in range(len(xs)):
        eqs = [f"{xs[m]} = {ys[m]}" for m in range(k)]
        terms.append("(" + " and ".join(eqs + [f"{xs[k]} < {ys[k]}"]) + ")")
    return "(" + " or ".join(terms) + ")" if terms else "(1 = 0)"


def lex_equal(xs, ys) -> str:
    return "(" + " and ".join([f"{x} = {y}" for x, y in zip(xs, ys)] or ["1 = 1"]) + ")"


def band_pairs(nest: list[ir.Operation], scope: Scope,
               accesses: list[AccessPattern] | None = None) -> list[BandPair]:
    """Every ordered pair of conflicting accesses in the band, with the instance pairs that touch
    the same element. Loops enclosing the band are the same iteration for both instances."""
    accs = accesses if accesses is not None else collect_accesses(nest[0], scope)
    n_outer = len(domain_loops(nest[0], scope))
    names = [loop_dims(lp, scope)[0].name for lp in nest]
    out = []
    for a in accs:
        for b in accs:
            if not conflicts(a, b):
                continue
            p = instance_pair(a, b, scope, fixed=n_outer)
            if p is None:
                continue
            src = tuple(p.src_rename[n] for n in names)
            dst = tuple(p.dst_rename[n] for n in names)
            out.append(BandPair(a, b, p, src, dst))
    return out


def conflict_relation(nest: list[ir.Operation], scope: Scope, accesses: list[AccessPattern],
                      label=lambda a: "I") -> isl.UnionMap | None:
    """Pairs of band iterations that touch a common element, at least one writing it, as one isl
    union map from `label(a)[band dims]` to `label(b)[band dims]` (loops around the band are the
    same iteration for both: they become parameters; loops inside an access are projected out).

    Built from one access relation per residue class of a buffer's accesses (`disjoint_classes`:
    accesses of different classes never meet), composed within the class, so an unrolled body
    costs one composition per lane, not one per access pair. Accesses whose elements are not
    comparable (unknown index, another rank, an alias class of arguments) touch the whole buffer.
    None when some access may touch any buffer (untraced), or when the loops of some access at
    the band's depth are not the band's loops: the caller must assume the worst."""
    n_outer = len(domain_loops(nest[0], scope))
    band = len(nest)
    names = [loop_dims(lp, scope)[0].name for lp in nest]
    by_key: dict = {}
    for a in accesses:
        if a.key is UNTRACED:
            return None
        if [lp.name for lp in a.loops[n_outer:n_outer + band]] != names:
            return None  # the band is not this access's loops (e.g. a multi-dim affine.parallel)
        by_key.setdefault(a.key, []).append(a)
    parts = []
    for k, (key, accs) in enumerate(by_key.items()):
        if not any(a.is_write for a in accs):
            continue
        first = accs[0]
        exact = all(a.index is not None and a.rank == first.rank and
                    (a.root == first.root or root_origin(a.root) == root_origin(first.root) == "global")
                    for a in accs)
        maps = {a: access_relation(a, n_outer, n_outer + band, scope, label(a), f"B{k}", exact) for a in accs}
        # Only accesses of one class can meet: compose within classes, not across the buffer.
        for cls in (disjoint_classes(accs, scope) if exact else [accs]):
            if any(a.is_write for a in cls):
                parts.append(_class_conflicts(tuple((maps[a], a.is_write) for a in cls)))
    return union_all(parts) if parts else isl.UnionMap("{ }")


_CONFLICTS: dict = {}  # (access relations of a class, which write) -> their conflicting pairs
COALESCE_ABOVE = 8  # pieces of a class's union coalesced before composing


def _coalesced(rel: isl.UnionMap) -> isl.UnionMap:
    """`rel` with its pieces merged where isl can (the same relation): a class of hundreds of
    accesses (an unrolled row: a[256i + j] for every j) composes as a few pieces, not as every
    pair of them (0.25 s for 257 accesses of one class)."""
    return rel.coalesce() if rel.n_map() and sum(_pieces(rel)) > COALESCE_ABOVE else rel


def _pieces(rel: isl.UnionMap):
    counts: list = []
    rel.foreach_map(lambda m: counts.append(m.n_basic_map()))
    return counts


def _class_conflicts(members: tuple) -> isl.UnionMap:
    """writes . all^-1 united with all . writes^-1 over one class's (access relation, is write)
    members. Memoized on the relations (access_relation parses each text once, so a loop asked
    again, by another step or after an edit elsewhere, finds its classes composed); a class of
    writes only composes once."""
    key = tuple((id(m), w) for m, w in members)
    hit = _CONFLICTS.get(key)
    if hit is not None and all(m is k for (m, _), k in zip(members, hit[0])):
        return hit[1]
    writes = _coalesced(union_all(m for m, w in members if w))
    alls = writes if all(w for _, w in members) else _coalesced(union_all(m for m, _ in members))
    pairs = writes.apply_range(alls.reverse())
    if alls is not writes:
        pairs = pairs.union(alls.apply_range(writes.reverse()))
    if len(_CONFLICTS) > 20000:
        _CONFLICTS.clear()
    _CONFLICTS[key] = (tuple(m for m, _ in members), pairs)
    return pairs


def unknown_effect_ops(root: ir.Operation) -> list[ir.Operation]:
    """Ops under `root` whose own effects are not modelled (calls, unmodelled ops, including ones
    with regions, accesses through untraced memrefs): they pin program order."""
    return [o for o in mlir.walk(root) if o.name not in REGION_OPS and op_effects(o).unknown]


def check_edges(statements: list[ir.Operation], scope: Scope) -> set[tuple[int, int]]:
    """Edges both ways between a statement holding a run-time check and each statement that is a
    hazard to it (analysis/checks.py): split into loops of their own, one's instances would run
    before instances of the other that preceded them, so they stay in one loop, in order."""
    aborting = [s for s, op in enumerate(statements) if op_effects(op).aborts]
    out = set()
    for a in aborting:
        for b in range(len(statements)):
            if b == a or (a, b) in out:
                continue
            x, y = (statements[a], statements[b]) if a < b else (statements[b], statements[a])
            if order_refusal([x], [y], scope) or order_refusal([y], [x], scope):
                out |= {(a, b), (b, a)}
    return out


def permutation_violation(nest: list[ir.Operation], perm: list[int], scope: Scope) -> str | None:
    """None iff permuting the perfect band `nest` by `perm` preserves every dependence.

    `perm[k]` is the original level that ends at position k (`[1, 0]` swaps a 2-deep band).
    Legal iff: the band is perfect and carries no values (iter_args), each loop's bounds only use
    IVs of loops that stay outside it, and no pair of conflicting instances executed in the order
    s before t (lexicographic over the full band vector) runs t before s after the permutation.
    """
    n = len(nest)
    if not is_permutation(perm, n):
        return f"{list(perm)} is not a permutation of the {n} loop levels"
    if not is_band(nest):
        return "the loops are not a perfect nest"
    if list(perm) == list(range(n)):
        return None
    for lp in nest:
        if has_iter_args(lp):
            return f"loop {_loc(lp)} carries values through iter_args"
    bad = bounds_violation(nest, perm)
    if bad:
        return bad
    unknown = unknown_effect_ops(nest[0])
    if unknown:
        return f"{unknown[0].name} at {_loc(unknown[0])} has unknown effects"
    checks = reorder_refusal(nest[0], scope)
    if checks:
        return checks
    names = [loop_dims(lp, scope)[0].name for lp in nest]
    accesses = collect_accesses(nest[0], scope)
    conflict = conflict_relation(nest, scope, accesses)
    if conflict is not None:  # fast exact answer; the pairwise search below only names a culprit
        xs, ys = [f"{n}_s" for n in names], [f"{n}_t" for n in names]
        reversed_pairs = isl.UnionMap(f"{{ I[{', '.join(xs)}] -> I[{', '.join(ys)}] : {lex_less(xs, ys)} and "
                                      f"{lex_less([ys[k] for k in perm], [xs[k] for k in perm])} }}")
        if conflict.intersect(reversed_pairs).is_empty():
            return None
    for bp in band_pairs(nest, scope, accesses):
        before = lex_less(bp.src, bp.dst)
        after_reversed = lex_less([bp.dst[k] for k in perm], [bp.src[k] for k in perm])
        bad_pairs = bp.where(f"{before} and {after_reversed}")
        if not bad_pairs.is_empty():
            return _dependence_text(bp, bad_pairs)
    return None


def _dependence_text(bp: BandPair, bad: isl.Set) -> str:
    kind = {(True, True): "WAW", (True, False): "RAW", (False, True): "WAR"}.get((bp.a.is_write, bp.b.is_write), "")
    example = ""
    try:
        pt = bad.sample_point()
        f, ns = len(bp.pair.fixed), len(bp.pair.src)
        coord = lambda k: pt.get_coordinate_val(isl.dim_type.set, k).to_python()  # noqa: E731
        band = len(bp.src)
        s = tuple(coord(f + k) for k in range(band))
        t = tuple(coord(f + ns + k) for k in range(band))
        example = f", e.g. iteration {s} then {t}"
    except (isl.Error, AttributeError):  # parametric or unbounded example: name the accesses only
        pass
    return (f"it would reverse a {kind} dependence on {_value_name(bp.a.root)} from {bp.a.op.name} at "
            f"{_loc(bp.a.op)} to {bp.b.op.name} at {_loc(bp.b.op)}{example}")


def _value_name(v: ir.Value) -> str:
    return value_name(v)


# ---------------------------------------------------------------------------------------------
# Statement dependence graph (distribution)


@dataclass(frozen=True)
class StatementGraph:
    """The statements of a band's innermost body and the orders they must keep.

    `edges` holds (i, j) when some instance of statement i must run before some instance of
    statement j (a memory dependence, either loop-carried or within one iteration) or when
    statement j uses a value statement i defines (`binds`: they must share a loop).
    Pure ops without regions are not statements: they are recomputed in every group that needs
    them (`pure`), so a shared constant or index computation does not glue groups together.
    """

    band: tuple[ir.Operation, ...]
    statements: tuple[ir.Operation, ...]
    pure: tuple[ir.Operation, ...]
    edges: frozenset = field(default_factory=frozenset)
    binds: frozenset = field(default_factory=frozenset)


def innermost_body(nest: list[ir.Operation]) -> list[ir.Operation]:
    return body_ops(nest[-1])


def is_recomputable(op: ir.Operation) -> bool:
    """A pure op without regions may be cloned into each distributed loop that uses it."""
    return not op.regions and is_pure_op(op) and op.name != "affine.yield"


def result_index(body: list[ir.Operation]) -> dict:
    """Result value -> index (into `body`) of the op that defines it."""
    index = {}
    for k, b in enumerate(body):
        for r in b.results:
            index[r] = k
    return index


def value_deps(op: ir.Operation, body: list[ir.Operation], index: dict | None = None) -> set[int]:
    """Indices (into `body`) of the ops whose results `op` or anything nested in it uses.
    `index`: `result_index(body)`, when the caller asks for every op of the body."""
    if index is None:
        index = result_index(body)
    out = set()
    for o in [op, *mlir.walk_list(op)]:
        for v in o.operands:
            k = index.get(v)
            if k is not None:
                out.add(k)
    return out


def pure_closure(op_idx: int, body: list[ir.Operation], deps: list[set[int]]) -> tuple[set[int], set[int]]:
    """(recomputable ops, statements) reached from op `op_idx` through chains of recomputable ops."""
    pure, stmts = set(), set()
    todo = list(deps[op_idx])
    while todo:
        k = todo.pop()
        if is_recomputable(body[k]):
            if k not in pure:
                pure.add(k)
                todo.extend(deps[k])
        else:
            stmts.add(k)
    return pure, stmts


def def_use_groups(nest: list[ir.Operation]) -> int:
    """How many groups the statements of the band's innermost body fall into when only their
    def-use pairs bind them (`StatementGraph.binds`, no memory dependences, no isl): an upper
    bound on the groups of maximal distribution (`distribution_order`), since a dependence
    can only join groups. Fewer than two: the nest cannot be distributed."""
    body = innermost_body(nest)
    index = result_index(body)
    deps = [value_deps(o, body, index) for o in body]
    stmt_idx = [k for k, o in enumerate(body) if not is_recomputable(o)]
    group = {k: k for k in stmt_idx}

    def find(k: int) -> int:
        while group[k] != k:
            group[k] = group[group[k]]
            k = group[k]
        return k

    for k in stmt_idx:
        _, used = pure_closure(k, body, deps)
        for d in used:
            group[find(d)] = find(k)
    return len({find(k) for k in stmt_idx})


def statement_graph(nest: list[ir.Operation], scope: Scope) -> StatementGraph:
    """Build the statement dependence graph of the innermost body of the band `nest`."""
    body = innermost_body(nest)
    index = result_index(body)
    deps = [value_deps(o, body, index) for o in body]
    stmt_idx = [k for k, o in enumerate(body) if not is_recomputable(o)]
    pos = {k: s for s, k in enumerate(stmt_idx)}
    binds = set()
    for k in stmt_idx:
        _, used = pure_closure(k, body, deps)
        for d in used:
            binds.add((pos[d], pos[k]))
    edges = set(binds)
    # Memory dependences: accesses of each statement, paired over the band's full iteration vectors.
    accs = [collect_accesses(body[k], scope) for k in stmt_idx]
    owner = {}
    flat = []
    for s, lst in enumerate(accs):
        for a in lst:
            owner[id(a)] = s
            flat.append(a)
    unknown = [s for s, k in enumerate(stmt_idx) if op_effects(body[k]).unknown]
    effectful = [s for s, k in enumerate(stmt_idx) if not op_effects(body[k]).pure]
    for u in unknown:
        for s in effectful:
            if s != u:
                edges.add((u, s))
                edges.add((s, u))
    edges |= check_edges([body[k] for k in stmt_idx], scope)
    conflict = conflict_relation(nest, scope, flat, label=lambda a: f"S{owner[id(a)]}")
    if conflict is None:  # an access may touch any buffer: every pair of touching statements is ordered
        touching = sorted({owner[id(a)] for a in flat})
        edges |= {(i, j) for i in touching for j in touching if i != j}
    else:
        xs = [f"{lp_name}_s" for lp_name in (loop_dims(lp, scope)[0].name for lp in nest)]
        ys = [x[:-2] + "_t" for x in xs]
        pairs: list = []
        conflict.foreach_map(pairs.append)
        for m in pairs:
            i = int(m.get_tuple_name(isl.dim_type.in_)[1:])
            j = int(m.get_tuple_name(isl.dim_type.out)[1:])
            if i == j or (i, j) in edges:
                continue
            order = lex_less(xs, ys) if i > j else f"({lex_less(xs, ys)} or {lex_equal(xs, ys)})"
            must = isl.Map(f"{{ S{i}[{', '.join(xs)}] -> S{j}[{', '.join(ys)}] : {order} }}")
            if not m.intersect(must.align_params(m.get_space())).is_empty():
                edges.add((i, j))
    return StatementGraph(tuple(nest), tuple(body[k] for k in stmt_idx),
                          tuple(body[k] for k in range(len(body)) if k not in pos),
                          frozenset(edges), frozenset(binds))


def strongly_connected_components(n: int, edges) -> list[list[int]]:
    """Tarjan's SCCs of a graph on 0..n-1 (each component sorted)."""
    succ = {k: [] for k in range(n)}
    for i, j in edges:
        succ[i].append(j)
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v: int) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in range(n):
        if v not in index:
            visit(v)
    return out


def distribution_order(graph: StatementGraph) -> list[list[int]]:
    """Statement groups (indices into `graph.statements`) for maximal distribution.

    Groups are the strongly connected components of the dependence graph with def-use pairs
    bound together; they are emitted in a topological order of the component graph, taking the
    component whose first statement comes earliest in the body whenever there is a choice, so
    without backward dependences the groups keep program order.
    """
    n = len(graph.statements)
    edges = set(graph.edges) | {(j, i) for i, j in graph.binds}
    comps = strongly_connected_components(n, edges)
    comp_of = {s: c for c, comp in enumerate(comps) for s in comp}
    preds = {c: set() for c in range(len(comps))}
    for i, j in edges:
        if comp_of[i] != comp_of[j]:
            preds[comp_of[j]].add(comp_of[i])
    done, order = set(), []
    while len(order) < len(comps):
        ready = [c for c in range(len(comps)) if c not in done and preds[c] <= done]
        c = min(ready, key=lambda c: comps[c][0])
        done.add(c)
        order.append(comps[c])
    return order


def distribution_violation(nest: list[ir.Operation], groups: list[list[ir.Operation]], scope: Scope,
                           dependences: bool = True, graph: StatementGraph | None = None) -> str | None:
    """None iff running each group (in the given order) in its own copy of the band keeps results.

    Groups list the statements (non-recomputable top-level ops of the innermost body); every
    statement must appear in exactly one group. Legal iff no dependence or def-use edge goes from
    a later group to an earlier one and def-use pairs share a group (`dependences=False` checks
    only the grouping and the def-use pairs, which keep the IR valid). `graph`: the band's
    statement graph when the caller has built it.
    """
    if not is_band(nest):
        return "the loops are not a perfect nest"
    for lp in nest:
        if has_iter_args(lp):
            return f"loop {_loc(lp)} carries values through iter_args"
    if graph is None or list(graph.band) != list(nest):
        graph = statement_graph(nest, scope)
    where = {}
    for g, grp in enumerate(groups):
        for op in grp:
            if is_recomputable(op):
                continue
            for s, st in enumerate(graph.statements):
                if st == op:
                    if s in where:
                        return f"{op.name} at {_loc(op)} is in two groups"
                    where[s] = g
                    break
            else:
                return f"{op.name} is not a statement of the loop body"
    missing = [s for s in range(len(graph.statements)) if s not in where]
    if missing:
        st = graph.statements[missing[0]]
        return f"{st.name} at {_loc(st)} is in no group"
    for i, j in sorted(graph.binds):
        if where[i] != where[j]:
            a, b = graph.statements[i], graph.statements[j]
            return f"{b.name} at {_loc(b)} uses a value of {a.name} at {_loc(a)} from another group"
    for i, j in sorted(graph.edges) if dependences else []:
        if where[i] > where[j]:
            a, b = graph.statements[i], graph.statements[j]
            return (f"a dependence from {a.name} at {_loc(a)} to {b.name} at {_loc(b)} "
                    f"would be reversed (group {where[j]} runs before group {where[i]})")
    return None


def accesses_dim0(nest: list[ir.Operation], level: int, scope: Scope) -> bool:
    """True iff the IV of `nest[level]` indexes dimension 0 (the partition dim) of some access."""
    name = loop_dims(nest[level], scope)[0].name
    try:
        accs = collect_accesses(nest[0], scope)
    except NonAffine:
        return False
    return any(a.rank >= 1 and a.uses_iv(name, 0) for a in accs)
