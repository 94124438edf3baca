"""Random generator of valid affine MLIR programs for differential fuzzing.

A program is built as a small model (buffers, views, loop nests, top-level scalar
ops) from a `random.Random`, then sized and rendered to text. The model is what
the shrinker edits: dropping a statement drops everything that depends on it.

Validity rules the generator keeps:
- every access is in bounds for every allowed size: buffer extents are computed
  from the largest index any access can reach (symbolic bounds at their maximum),
  and a negative shift is only used on a loop whose lower bound absorbs it;
- a placed buffer (`memref.alloc`/`alloca`) is read only after an init nest has
  written every element of it, so no result depends on uninitialized memory;
- every output argument is written by some nest, so results are observable.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field, replace

ELEMENT_TYPES = ("f32", "i32")

# Feature names a program can use; `GeneratorConfig.force` takes these.
FEATURES = (
    "placed",          # memref.alloc / memref.alloca intermediates
    "alloca",          # memref.alloca specifically
    "dealloc",         # memref.dealloc at the end
    "shift",           # i + k / i - k accesses
    "negative_shift",  # i - k accesses (loop starts at k or later)
    "transpose",       # a buffer's dims indexed by permuted loop vars
    "stride",          # 2 * i accesses
    "partition_dim",   # dim 0 indexed by a constant or a non-outermost loop var
    "reduction_iter",  # innermost loop carries an iter_args accumulator
    "reduction_acc",   # accumulate into a buffer element across a loop
    "inplace",         # a nest reads and writes the same buffer
    "symbolic",        # `0 to %n` bounds
    "zero_trip",       # a symbolic size is 0 in the chosen sizes
    "tiled",           # tiled loop with a `min` upper bound
    "scalar_ops",      # affine.load of a scalar, arith on scalars, memref.store
    "invariant",       # a loop-invariant op inside a loop body
    "cast",            # memref.cast to a dynamic shape, used for accesses
    "subview",         # memref.subview, used for accesses
    "call",            # func.call to a function that rewrites a buffer
)


@dataclass(frozen=True)
class GeneratorConfig:
    """Knobs: which features may appear, and how big programs get."""

    min_nests: int = 2
    max_nests: int = 8
    max_depth: int = 3
    min_extent: int = 2
    max_extent: int = 10
    max_iterations_per_nest: int = 256  # product of trip counts of one ordinary nest
    max_inputs: int = 3
    max_outputs: int = 2
    max_symbols: int = 2
    element_type: str = "f32"
    placed: bool = True
    dealloc: bool = True
    shifts: bool = True
    transposes: bool = True
    strides: bool = True
    partition_dim: bool = True
    reductions: bool = True
    inplace: bool = True
    symbolic_bounds: bool = True
    zero_trip: bool = True
    tiled: bool = True
    scalar_ops: bool = True
    invariants: bool = True
    aliases: bool = True
    calls: bool = True
    force: frozenset = frozenset()  # feature names that must appear (see FEATURES)

    def allows(self, feature: str) -> bool:
        """A forced feature is always allowed; otherwise its knob decides."""
        if feature in self.force:
            return True
        knob = _FEATURE_KNOB[feature]
        return bool(getattr(self, knob))


# Forcing a feature forces the ones it cannot appear without.
_IMPLIES = {"negative_shift": {"shift"}, "zero_trip": {"symbolic"}, "alloca": {"placed"},
            "dealloc": {"placed"}}

_FEATURE_KNOB = {
    "placed": "placed", "alloca": "placed", "dealloc": "dealloc", "shift": "shifts",
    "negative_shift": "shifts", "transpose": "transposes", "stride": "strides",
    "partition_dim": "partition_dim", "reduction_iter": "reductions", "reduction_acc": "reductions",
    "inplace": "inplace", "symbolic": "symbolic_bounds", "zero_trip": "zero_trip", "tiled": "tiled",
    "scalar_ops": "scalar_ops", "invariant": "invariants", "cast": "aliases", "subview": "aliases",
    "call": "calls",
}


@dataclass(frozen=True)
class GeneratedProgram:
    """One generated program: MLIR text, the function to run, and its `index` argument values.

    `sizes` maps each `index` argument, by position as "argN" (the key `loopopt.testing`
    takes), to the value to run with; any value in `0..size_bounds["argN"]` keeps every
    access in bounds. Memref arguments have static shapes and need no entry.
    """

    text: str
    func_name: str
    sizes: dict
    size_bounds: dict = field(default_factory=dict)
    features: frozenset = frozenset()
    model: "Program | None" = field(default=None, compare=False, repr=False)


# ---------------------------------------------------------------- the model


@dataclass(eq=False)
class Buffer:
    """A memref: a function argument (input/output) or a placed buffer (alloc/alloca)."""

    name: str
    rank: int
    kind: str  # "input" | "output" | "alloc" | "alloca"
    min_shape: tuple
    shape: list = field(default_factory=list)  # resolved by `size_program`

    @property
    def placed(self) -> bool:
        return self.kind in ("alloc", "alloca")

    @property
    def base(self) -> "Buffer":
        return self


@dataclass(eq=False)
class View:
    """An alias of a buffer: `memref.cast` to a dynamic shape or a unit-stride `memref.subview`."""

    name: str
    of: Buffer
    kind: str  # "cast" | "subview"
    dynamic: tuple = ()  # cast: which dims become `?`
    offsets: tuple = ()  # subview: static offsets
    min_shape: tuple = ()
    shape: list = field(default_factory=list)  # subview sizes, resolved by `size_program`

    @property
    def rank(self) -> int:
        return self.of.rank

    @property
    def base(self) -> Buffer:
        return self.of


@dataclass(frozen=True)
class Idx:
    """One subscript: `coef * var + const`, or the constant alone when var is None."""

    var: int | None
    coef: int = 1
    const: int = 0


@dataclass(eq=False)
class Loop:
    """One loop of a nest. `hi` is an int, a symbol name, or ("shape", buffer, dim)."""

    lo: int
    hi: object
    tile: int | None = None  # tiled: outer loop steps by `tile`, inner loop bounded by min


@dataclass(eq=False)
class Access:
    ref: object  # Buffer | View
    idx: tuple  # of Idx


@dataclass(eq=False)
class Compute:
    """Body arithmetic: fold `terms` left to right with `ops`; terms are loads, scalars or constants."""

    terms: list  # ("load", Access) | ("scalar", name) | ("const", value)
    ops: list  # "add" | "sub" | "mul", one fewer than terms
    invariant: tuple | None = None  # (op, scalar a, const b): an in-body loop-invariant op folded in last


@dataclass(eq=False)
class Nest:
    """A loop nest writing `dst`. kind: init | map | reduce_iter | reduce_acc."""

    kind: str
    loops: list
    dst: Access
    compute: Compute
    init_scalar: str | None = None  # reduce_iter: accumulator start value (scalar or const name)
    creates: Buffer | None = None  # init: the placed buffer this nest initializes


@dataclass(eq=False)
class Stmt:
    """One top-level statement with what it defines and uses (names), for shrinking."""

    what: object  # Nest | AllocOp | ViewOp | ScalarOp | CallOp | DeallocOp
    defines: frozenset
    uses: frozenset


@dataclass(eq=False)
class AllocOp:
    buf: Buffer


@dataclass(eq=False)
class DeallocOp:
    buf: Buffer


@dataclass(eq=False)
class ViewOp:
    view: View


@dataclass(eq=False)
class ScalarOp:
    """kind load: name = load ref[consts]; arith: name = op(a, b); store: ref[consts] = a."""

    kind: str
    name: str = ""
    ref: object = None
    consts: tuple = ()
    op: str = ""
    a: str = ""
    b: str = ""


@dataclass(eq=False)
class CallOp:
    callee: str
    buf: Buffer
    scale: float
    bias: float


@dataclass(eq=False)
class Program:
    func_name: str
    element_type: str
    inputs: list
    outputs: list
    symbols: dict  # name -> max value
    sizes: dict  # name -> chosen value
    constants: dict  # name -> value (element type)
    stmts: list
    features: set


# ---------------------------------------------------------------- generation


def _coin(rng: random.Random, p: float) -> bool:
    """True with probability p; False on the draw 0.0, which is where hypothesis shrinks to,
    so shrinking removes features instead of adding them."""
    return rng.random() >= 1.0 - p


class _Gen:
    """Generation state: what exists and is readable at the current point of the function."""

    def __init__(self, rng: random.Random, config: GeneratorConfig):
        self.rng = rng
        self.cfg = config
        self.features: set = set()
        self.stmts: list = []
        self.counter = 0
        self.readable: list = []  # Buffer | View that may be read (initialized)
        self.writable: list = []  # Buffer | View that may be written (not placed-before-init)
        self.scalars: list = []  # scalar SSA names usable in bodies
        self.constants: dict = {}
        self.symbols: dict = {}
        self.extents: list = []
        self.dom: list = []  # the main iteration domain (extent per level)
        self.depth = 1  # the main nest depth
        self.inputs: list = []
        self.outputs: list = []
        self.written_outputs: set = set()
        self.pending = set(config.force)
        for f in config.force:
            self.pending |= _IMPLIES.get(f, set())

    # -- helpers
    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def chance(self, p: float, feature: str | None = None) -> bool:
        """True with probability p (always when `feature` is still owed by `force`), if allowed."""
        if feature is not None:
            if not self.cfg.allows(feature):
                return False
            if feature in self.pending:
                return True
        return _coin(self.rng, p)

    def use(self, feature: str) -> None:
        self.features.add(feature)
        self.pending.discard(feature)

    def constant(self, value) -> str:
        for name, v in self.constants.items():
            if v == value:
                return name
        name = f"cst{len(self.constants)}"
        self.constants[name] = value
        return name

    def small_value(self):
        """A constant of magnitude <= 1 (floats), so repeated updates grow values only linearly."""
        if self.cfg.element_type == "i32":
            return self.rng.choice([1, 2, 3, -1, 5])
        return self.rng.choice([0.5, -1.0, 0.25, 1.0, -0.5, 0.75])

    def emit(self, what, defines=(), uses=()) -> None:
        self.stmts.append(Stmt(what, frozenset(defines), frozenset(uses)))


def _ref_uses(ref) -> set:
    """Names a statement depends on when it touches `ref`: the view, and the initialized base."""
    uses = {ref.name}
    base = ref.base
    if base.placed:
        uses.add(base.name + "!init")
    return uses


def _write_uses(ref) -> set:
    uses = {ref.name}
    if isinstance(ref, View) and ref.base.placed:
        uses.add(ref.base.name + "!init")
    return uses


def generate_program(rng: random.Random, config: GeneratorConfig | None = None) -> GeneratedProgram:
    """A valid affine program, fully determined by the draws from `rng`."""
    cfg = config or GeneratorConfig()
    g = _Gen(rng, cfg)
    _choose_signature(g)
    n_nests = rng.randint(cfg.min_nests, max(cfg.min_nests, cfg.max_nests))
    for k in range(n_nests):
        _maybe_between(g)
        remaining = n_nests - k
        _gen_nest(g, remaining)
    _finish_forced(g)
    _ensure_outputs_written(g)
    _add_deallocs(g)
    prog = Program(
        func_name="kernel",
        element_type=cfg.element_type,
        inputs=g.inputs,
        outputs=g.outputs,
        symbols=dict(g.symbols),
        sizes=_choose_sizes(g),
        constants=dict(g.constants),
        stmts=g.stmts,
        features=g.features,
    )
    if any(v == 0 for v in prog.sizes.values()) and _uses_symbols(prog):
        g.use("zero_trip")
    return finish(prog)


def finish(prog: Program) -> GeneratedProgram:
    """Size and render a model into a GeneratedProgram."""
    size_program(prog)
    used = _used_symbols(prog)
    first = len(prog.inputs) + len(prog.outputs)
    position = {name: f"arg{first + k}" for k, name in enumerate(sorted(prog.symbols))}
    sizes = {position[k]: v for k, v in prog.sizes.items()}
    bounds = {position[k]: v for k, v in prog.symbols.items()}
    features = set(prog.features)
    if not used:
        features.discard("symbolic")
        features.discard("zero_trip")
    return GeneratedProgram(
        text=render(prog), func_name=prog.func_name, sizes=sizes, size_bounds=bounds,
        features=frozenset(features), model=prog,
    )


def _choose_signature(g: _Gen) -> None:
    rng, cfg = g.rng, g.cfg
    g.extents = sorted({rng.randint(cfg.min_extent, cfg.max_extent) for _ in range(3)})
    # the main iteration domain: most nests and buffers follow it, so trip counts often match
    g.dom = [rng.choice(g.extents) for _ in range(3)]
    g.depth = rng.randint(1, cfg.max_depth)
    g.inputs = []
    for k in range(rng.randint(1, cfg.max_inputs)):
        b = Buffer(f"in{k}", rng.randint(1, 3), "input", ())
        b.min_shape = _shape_like_domain(g, b.rank)
        g.inputs.append(b)
    g.outputs = []
    for k in range(rng.randint(1, cfg.max_outputs)):
        b = Buffer(f"out{k}", rng.randint(1, 3), "output", ())
        b.min_shape = _shape_like_domain(g, b.rank)
        g.outputs.append(b)
    if cfg.allows("symbolic") and (_coin(rng, 0.6) or "symbolic" in g.pending or "zero_trip" in g.pending):
        for k in range(rng.randint(1, cfg.max_symbols)):
            g.symbols[f"n{k}"] = rng.choice(g.extents)
    g.readable = list(g.inputs) + list(g.outputs)
    g.writable = list(g.outputs) + [b for b in g.inputs if _coin(rng, 0.3)]
    if cfg.element_type == "i32":
        g.scalars.append(g.constant(0))
    else:
        g.scalars.append(g.constant(0.0))


def _choose_sizes(g: _Gen) -> dict:
    """Values for the symbolic sizes: 0 (zero-trip loops), the maximum, or anything between."""
    sizes = {}
    for name, hi in g.symbols.items():
        r = g.rng.random()
        if g.cfg.allows("zero_trip") and ("zero_trip" in g.pending or r < 0.2):
            sizes[name] = 0
        elif r < 0.6:
            sizes[name] = hi
        else:
            sizes[name] = g.rng.randint(0, hi)
    return sizes


# -- loops and accesses


def _shape_like_domain(g: _Gen, rank: int) -> tuple:
    """Mostly the main domain's extents (matching trip counts make fusion candidates)."""
    if g.rng.random() < 0.75:
        return tuple(g.dom[:rank])
    return tuple(g.rng.choice(g.extents) for _ in range(rank))


def _gen_loops(g: _Gen, depth: int, allow_tile: bool = True, allow_symbolic: bool = True) -> list:
    """Loops over the program's extent pool; lower bound 0 mostly, sometimes 1 or 2 (room for i - k)."""
    rng = g.rng
    loops = []
    budget = g.cfg.max_iterations_per_nest
    for level in range(depth):
        ext = g.dom[level] if rng.random() < 0.7 else rng.choice(g.extents)
        remaining_levels = depth - level - 1
        cap = max(g.cfg.min_extent, budget // max(1, g.cfg.min_extent ** remaining_levels))
        ext = max(1, min(ext, cap))
        lo = 0
        if g.chance(0.15, "negative_shift") and ext > 2:
            lo = rng.randint(1, 2)
        hi: object = ext
        if allow_symbolic and g.symbols and g.chance(0.3, "symbolic"):
            sym = rng.choice(sorted(g.symbols))
            hi = sym
            ext = g.symbols[sym]
            g.use("symbolic")
        tile = None
        if allow_tile and g.chance(0.12, "tiled") and ext >= 3:
            tile = rng.randint(2, max(2, ext - 1))
            g.use("tiled")
        loops.append(Loop(lo, hi, tile))
        budget = max(1, budget // max(1, ext))
    return loops


def _loop_max(g_symbols: dict, loop: Loop) -> int:
    """hi - 1 at the largest allowed size: the largest value the loop variable can take
    (below `lo` when the loop never runs)."""
    hi = loop.hi
    if isinstance(hi, str):
        hi = g_symbols[hi]
    elif isinstance(hi, tuple):
        _, ref, dim = hi
        hi = ref.shape[dim] if ref.shape else ref.min_shape[dim]
    return hi - 1


def _gen_access(g: _Gen, ref, loops: list, vars_: list, *, allow_fancy: bool = True,
                allow_stride: bool = True) -> Access:
    """Subscripts for `ref` inside `loops`, using loop vars `vars_` (indices into loops).

    Identity by default; with the enabled features, permutes vars (transpose), puts a
    constant or inner var in dim 0 (partition_dim), shifts by +-k (negative only as far as
    the loop's lower bound allows) and strides by 2. Placed buffers get these less often:
    their init nest spans their whole shape, and a margin there breaks matching trip counts.
    """
    rng = g.rng
    rank = ref.rank
    f = 0.4 if ref.base.placed else 1.0
    if len(vars_) > rank:
        start = 0 if rng.random() < 0.6 else rng.randint(0, len(vars_) - rank)
        chosen = list(vars_[start:start + rank])
    else:
        chosen = list(vars_)
    slots: list = chosen + [None] * (rank - len(chosen))
    if rank > len(chosen):
        # extra dims get constants; loop vars in the trailing dims leave dim 0 constant
        if allow_fancy and g.chance(0.5 * f, "partition_dim"):
            slots = [None] * (rank - len(chosen)) + chosen
            g.use("partition_dim")
    idx = [Idx(v, 1, 0) if v is not None else Idx(None, 1, rng.randint(0, 2)) for v in slots]
    if allow_fancy:
        var_dims = [d for d, s in enumerate(idx) if s.var is not None]
        if len(var_dims) >= 2 and g.chance(0.2 * f, "transpose"):
            a, b = rng.sample(var_dims, 2)
            idx[a], idx[b] = idx[b], idx[a]
            g.use("transpose")
        if rank >= 2 and g.chance(0.12 * f, "partition_dim"):
            if idx[0].var is not None and rng.random() < 0.5:
                idx[0] = Idx(None, 1, rng.randint(0, 2))
            else:
                inner = [d for d in range(1, rank) if idx[d].var is not None]
                if inner:
                    d = inner[-1]
                    idx[0], idx[d] = idx[d], idx[0]
                else:
                    idx[0] = Idx(None, 1, rng.randint(0, 2))
            g.use("partition_dim")
        var_dims = [d for d, s in enumerate(idx) if s.var is not None]
        if var_dims and allow_stride and g.chance(0.12 * f, "stride"):
            d = rng.choice(var_dims)
            idx[d] = replace(idx[d], coef=2)
            g.use("stride")
        if var_dims and g.chance(0.25 * f, "shift"):
            d = rng.choice(var_dims)
            lo = loops[idx[d].var].lo * idx[d].coef
            k_min = -min(2, lo)
            k = rng.choice([k for k in range(k_min, 3) if k != 0])
            if "negative_shift" in g.pending and k_min < 0:
                k = k_min
            idx[d] = replace(idx[d], const=idx[d].const + k)
            g.use("shift")
            if k < 0:
                g.use("negative_shift")
    return Access(ref, tuple(idx))


def _pick(g: _Gen, items: list, recent_bias: float = 0.6):
    """Prefer the most recently produced item (chains), else any (DAGs)."""
    if not items:
        return None
    if g.rng.random() < recent_bias:
        return items[-1]
    return g.rng.choice(items)


def _gen_compute(g: _Gen, loops: list, vars_: list, n_loads: int, extra_loads=(), dst=None) -> Compute:
    """Loads (from readable buffers; not from `dst` unless in-place nests are allowed), folded."""
    rng = g.rng
    terms = [("load", a) for a in extra_loads]
    sources = g.readable
    if dst is not None and not g.cfg.allows("inplace"):
        sources = [r for r in g.readable if r.base is not dst.base]
    for _ in range(n_loads if sources else 0):
        src = _pick(g, sources)
        terms.append(("load", _gen_access(g, src, loops, vars_)))
    if _coin(rng, 0.4):
        if g.scalars and rng.random() < 0.5:
            terms.append(("scalar", rng.choice(g.scalars)))
        else:
            terms.append(("const", g.constant(g.small_value())))
    if not terms:
        terms.append(("const", g.constant(g.small_value())))
    ops = _fold_ops(rng, terms)
    invariant = None
    if g.chance(0.15, "invariant"):
        invariant = (rng.choice(["add", "mul"]), rng.choice(g.scalars), g.constant(g.small_value()))
        g.use("invariant")
    return Compute(terms, ops, invariant)


def _fold_ops(rng: random.Random, terms: list) -> list:
    """Ops joining the terms: multiply only by a constant (bounded growth, no overflow to NaN)."""
    return [rng.choice(["add", "sub", "mul"] if kind == "const" else ["add", "add", "sub"])
            for kind, _ in terms[1:]]


def _compute_uses(c: Compute) -> set:
    uses = set()
    for kind, t in c.terms:
        if kind == "load":
            uses |= _ref_uses(t.ref)
        elif kind == "scalar":
            uses.add(t)
    if c.invariant:
        uses.add(c.invariant[1])
    return uses


# -- nests


def _gen_nest(g: _Gen, remaining: int) -> None:
    """One loop nest; forced features and unwritten outputs steer the choice of kind and target."""
    rng, cfg = g.rng, g.cfg
    unwritten = [b for b in g.outputs if b.name not in g.written_outputs]
    must_output = len(unwritten) >= remaining
    want_placed = cfg.allows("placed") and not must_output and (
        "placed" in g.pending or "alloca" in g.pending or _coin(rng, 0.35))
    if want_placed:
        _gen_init_nest(g)
        return
    r = rng.random()
    kind = "map"
    if cfg.allows("reduction_iter") and ("reduction_iter" in g.pending or r >= 0.85):
        kind = "reduce_iter"
    elif cfg.allows("reduction_acc") and ("reduction_acc" in g.pending or r >= 0.72):
        kind = "reduce_acc"
    depth = g.depth if rng.random() < 0.5 else rng.randint(1, cfg.max_depth)
    if kind != "map" and depth == 1 and _coin(rng, 0.6):
        depth = min(2, cfg.max_depth)
    if must_output:
        dst_ref = rng.choice(unwritten)
    else:
        choices = g.writable
        dst_ref = _pick(g, choices, 0.3) if choices else rng.choice(g.outputs)
    if dst_ref.base.kind == "output":
        g.written_outputs.add(dst_ref.base.name)
    loops = _gen_loops(g, depth, allow_tile=kind != "reduce_iter" or depth > 1)
    if kind == "reduce_iter" and loops[-1].tile:
        loops[-1].tile = None
    all_vars = list(range(depth))
    outer_vars = all_vars[:-1] if kind in ("reduce_iter", "reduce_acc") else all_vars
    dst = _gen_access(g, dst_ref, loops, outer_vars)
    n_loads = rng.randint(1, 3)
    extra = []
    inplace = kind == "map" and g.chance(0.15, "inplace") and _readable(g, dst_ref)
    if inplace:
        extra.append(Access(dst_ref, dst.idx))
        g.use("inplace")
    compute = _gen_compute(g, loops, all_vars, n_loads, extra, dst=dst_ref)
    nest = Nest(kind, loops, dst, compute)
    if kind == "reduce_iter":
        nest.init_scalar = rng.choice(g.scalars)
        g.use("reduction_iter")
    elif kind == "reduce_acc":
        if not _readable(g, dst_ref):
            nest.kind = "map"
        else:
            g.use("reduction_acc")
    uses = _compute_uses(compute) | _write_uses(dst_ref) | _loop_uses(loops)
    if nest.kind == "reduce_acc":
        uses |= _ref_uses(dst_ref)
    if nest.init_scalar:
        uses.add(nest.init_scalar)
    g.emit(nest, (), uses)


def _readable(g: _Gen, ref) -> bool:
    return any(r is ref for r in g.readable)


def _loop_uses(loops: list) -> set:
    return {lp.hi for lp in loops if isinstance(lp.hi, str)}


def _gen_init_nest(g: _Gen, kind: str | None = None) -> None:
    """A new placed buffer and the nest that writes all of it (its domain is the buffer's shape)."""
    rng = g.rng
    rank = g.depth if rng.random() < 0.5 else rng.randint(1, g.cfg.max_depth)
    if kind is None:
        kind = "alloca" if g.chance(0.3, "alloca") else "alloc"
    buf = Buffer(g.fresh("t"), rank, kind, _shape_like_domain(g, rank))
    g.use("placed")
    if kind == "alloca":
        g.use("alloca")
    g.emit(AllocOp(buf), {buf.name}, ())
    loops = [Loop(0, ("shape", buf, d)) for d in range(rank)]
    dst = Access(buf, tuple(Idx(d) for d in range(rank)))
    terms = []
    for _ in range(rng.randint(0, 2)):
        src = _pick(g, g.readable)
        # identity / positive shift / transpose only: strides here would double the domain each step
        terms.append(("load", _init_access(g, src, rank)))
    if not terms or _coin(rng, 0.3):
        terms.append(("const", g.constant(g.small_value())))
    ops = _fold_ops(rng, terms)
    compute = Compute(terms, ops)
    nest = Nest("init", loops, dst, compute, creates=buf)
    g.emit(nest, {buf.name + "!init"}, _compute_uses(compute) | {buf.name})
    g.readable.append(buf)
    g.writable.append(buf)
    _maybe_view(g, buf)


def _init_access(g: _Gen, src, rank: int) -> Access:
    rng = g.rng
    vars_ = list(range(rank))
    if src.rank < rank:
        vars_ = sorted(rng.sample(vars_, src.rank))
    idx = [Idx(v) for v in vars_] + [Idx(None, 1, rng.randint(0, 1)) for _ in range(src.rank - len(vars_))]
    if len(vars_) >= 2 and g.chance(0.15, "transpose"):
        idx[0], idx[1] = idx[1], idx[0]
        g.use("transpose")
    if _coin(rng, 0.15) and g.cfg.allows("shift"):
        d = rng.randrange(len(idx))
        idx[d] = replace(idx[d], const=idx[d].const + 1)
        g.use("shift")
    return Access(src, tuple(idx))


def _maybe_view(g: _Gen, buf: Buffer) -> None:
    """Sometimes alias a readable buffer through memref.cast or memref.subview."""
    rng = g.rng
    if g.chance(0.25, "cast"):
        dynamic = tuple(rng.random() < 0.7 for _ in range(buf.rank))
        if not any(dynamic):
            dynamic = (True,) + dynamic[1:]
        v = View(g.fresh("cv"), buf, "cast", dynamic=dynamic)
        g.use("cast")
    elif g.chance(0.2, "subview"):
        offsets = tuple(rng.randint(0, 2) for _ in range(buf.rank))
        v = View(g.fresh("sv"), buf, "subview", offsets=offsets,
                 min_shape=tuple(rng.choice(g.extents) for _ in range(buf.rank)))
        g.use("subview")
    else:
        return
    g.emit(ViewOp(v), {v.name}, _ref_uses(buf))
    g.readable.append(v)
    g.writable.append(v)


def _maybe_between(g: _Gen) -> None:
    """Non-loop statements between nests: views, scalar ops, calls."""
    rng = g.rng
    if _coin(g.rng, 0.2) or "cast" in g.pending or "subview" in g.pending:
        bases = [r for r in g.readable if isinstance(r, Buffer)]
        if bases:
            _maybe_view(g, rng.choice(bases))
    if g.chance(0.25, "scalar_ops"):
        _gen_scalar_ops(g)
    if g.chance(0.15, "call"):
        bases = [r for r in g.readable if isinstance(r, Buffer) and r.kind != "input"]
        bases = bases or [r for r in g.readable if isinstance(r, Buffer)]
        buf = _pick(g, bases)
        callee = g.fresh("rewrite")
        op = CallOp(callee, buf, g.small_value(), g.small_value())
        g.emit(op, {callee}, _ref_uses(buf))
        g.use("call")


def _gen_scalar_ops(g: _Gen) -> None:
    """`%s = affine.load X[c..]`, `%t = arith.op %s, %cst`, and maybe `memref.store %t, Y[c..]`."""
    rng = g.rng
    forced = "scalar_ops" in g.pending
    src = _pick(g, g.readable, 0.5)
    consts = tuple(rng.randint(0, 2) for _ in range(src.rank))
    s = g.fresh("s")
    g.emit(ScalarOp("load", name=s, ref=src, consts=consts), {s}, _ref_uses(src))
    t = g.fresh("s")
    c = g.constant(g.small_value())
    op = rng.choice(["add", "mul", "sub"])
    g.emit(ScalarOp("arith", name=t, op=op, a=s, b=c), {t}, {s})
    g.scalars.extend([s, t])
    g.use("scalar_ops")
    targets = [w for w in g.writable if _readable(g, w)]
    if targets and (forced or _coin(rng, 0.6)):
        dst = _pick(g, targets, 0.3)
        dconsts = tuple(rng.randint(0, 2) for _ in range(dst.rank))
        g.emit(ScalarOp("store", ref=dst, consts=dconsts, a=t), (), {t} | _ref_uses(dst))
        if dst.base.kind == "output":
            g.written_outputs.add(dst.base.name)


def _finish_forced(g: _Gen) -> None:
    """Generate extra statements until every forced feature has appeared (bounded attempts)."""
    if "dealloc" in g.pending and not any(
            isinstance(st.what, AllocOp) and st.what.buf.kind == "alloc" for st in g.stmts):
        _gen_init_nest(g, "alloc")
    for _ in range(12):
        if not (g.pending - {"zero_trip", "dealloc"}):
            return
        _maybe_between(g)
        _gen_nest(g, 99)


def _ensure_outputs_written(g: _Gen) -> None:
    for out in g.outputs:
        if out.name in g.written_outputs:
            continue
        depth = max(1, min(out.rank, g.cfg.max_depth))
        loops = _gen_loops(g, depth, allow_tile=False, allow_symbolic=False)
        dst = Access(out, tuple(Idx(d) if d < depth else Idx(None, 1, 0) for d in range(out.rank)))
        compute = _gen_compute(g, loops, list(range(depth)), 1, dst=out)
        g.emit(Nest("map", loops, dst, compute), (), _compute_uses(compute) | {out.name})
        g.written_outputs.add(out.name)


def _add_deallocs(g: _Gen) -> None:
    for st in list(g.stmts):
        if isinstance(st.what, AllocOp) and st.what.buf.kind == "alloc":
            if g.chance(0.5, "dealloc"):
                g.emit(DeallocOp(st.what.buf), (), {st.what.buf.name})
                g.use("dealloc")


def _uses_symbols(prog: Program) -> bool:
    return bool(_used_symbols(prog))


def _used_symbols(prog: Program) -> set:
    used = set()
    for st in prog.stmts:
        if isinstance(st.what, Nest):
            used |= _loop_uses(st.what.loops)
    return used


# ---------------------------------------------------------------- sizing


def _access_need(idx: tuple, loops: list, symbols: dict) -> list:
    """Per-dim extent an access needs: largest reachable index + 1 (0 if the loop never runs)."""
    need = []
    for s in idx:
        if s.var is None:
            need.append(s.const + 1)
        else:
            lp = loops[s.var]
            top = _loop_max(symbols, lp)
            need.append(s.coef * top + s.const + 1 if top >= lp.lo else 0)
    return need


def _accesses(prog: Program):
    """(access, loops) for every memref access of the program (scalar ops use no loops)."""
    for st in prog.stmts:
        w = st.what
        if isinstance(w, Nest):
            yield w.dst, w.loops
            for kind, t in w.compute.terms:
                if kind == "load":
                    yield t, w.loops
        elif isinstance(w, ScalarOp) and w.kind in ("load", "store"):
            yield Access(w.ref, tuple(Idx(None, 1, c) for c in w.consts)), []


def size_program(prog: Program) -> None:
    """Resolve buffer and subview extents: the fixpoint of 'large enough for every access'.

    Init nests loop over their buffer's shape, so their reads depend on that shape; the
    dependence is acyclic (a buffer is initialized only from earlier ones), so this converges.
    """
    bufs, views = _refs(prog)
    for b in bufs:
        b.shape = list(b.min_shape)
    for v in views:
        v.shape = list(v.min_shape) if v.kind == "subview" else []
    for _ in range(len(bufs) + len(views) + 3):
        need = {id(r): [1] * r.rank for r in bufs + views}
        for acc, loops in _accesses(prog):
            n = _access_need(acc.idx, loops, prog.symbols)
            cur = need[id(acc.ref)]
            need[id(acc.ref)] = [max(a, b) for a, b in zip(cur, n)]
        changed = False
        for v in views:
            vn = need[id(v)]
            if v.kind == "subview":
                new = [max(a, b) for a, b in zip(v.min_shape, vn)]
                if new != v.shape:
                    v.shape, changed = new, True
                vn = [o + s for o, s in zip(v.offsets, v.shape)]
            bn = need[id(v.of)]
            need[id(v.of)] = [max(a, b) for a, b in zip(bn, vn)]
        for b in bufs:
            new = [max(a, c) for a, c in zip(b.min_shape, need[id(b)])]
            if new != b.shape:
                b.shape, changed = new, True
        if not changed:
            return
    raise AssertionError("buffer sizing did not converge")


def _refs(prog: Program) -> tuple:
    bufs = list(prog.inputs) + list(prog.outputs)
    views = []
    for st in prog.stmts:
        if isinstance(st.what, AllocOp):
            bufs.append(st.what.buf)
        elif isinstance(st.what, ViewOp):
            views.append(st.what.view)
    return bufs, views


# ---------------------------------------------------------------- rendering


def memref_type_text(ref, elem: str) -> str:
    """The MLIR type of a buffer or view after sizing."""
    if isinstance(ref, Buffer):
        return f"memref<{'x'.join(str(d) for d in ref.shape)}x{elem}>"
    base = ref.of.shape
    if ref.kind == "cast":
        dims = ["?" if dyn else str(d) for d, dyn in zip(base, ref.dynamic)]
        return f"memref<{'x'.join(dims)}x{elem}>"
    strides = [1] * len(base)
    for d in range(len(base) - 2, -1, -1):
        strides[d] = strides[d + 1] * base[d + 1]
    offset = sum(o * s for o, s in zip(ref.offsets, strides))
    return (f"memref<{'x'.join(str(d) for d in ref.shape)}x{elem}, "
            f"strided<[{', '.join(str(s) for s in strides)}], offset: {offset}>>")


def _idx_text(s: Idx, var_names: list) -> str:
    if s.var is None:
        return str(s.const)
    t = f"%{var_names[s.var]}"
    if s.coef != 1:
        t = f"{t} * {s.coef}"
    if s.const > 0:
        t = f"{t} + {s.const}"
    elif s.const < 0:
        t = f"{t} - {-s.const}"
    return t


def _const_text(value, elem: str) -> str:
    if elem == "i32":
        return f"{int(value)} : i32"
    return f"{float(value)!r} : f32".replace("inf", "0x7F800000")


def _bound_text(hi, symbols_prefix: str = "%") -> str:
    if isinstance(hi, str):
        return f"{symbols_prefix}{hi}"
    if isinstance(hi, tuple):
        _, ref, dim = hi
        return str(ref.shape[dim])
    return str(hi)


class _Renderer:
    def __init__(self, prog: Program):
        self.prog = prog
        self.elem = prog.element_type
        self.lines: list = []
        self.tmp = 0
        self.index_consts: dict = {}

    def fresh(self, prefix="x") -> str:
        self.tmp += 1
        return f"%{prefix}{self.tmp}"

    def ty(self, ref) -> str:
        return memref_type_text(ref, self.elem)

    def op(self, kind: str) -> str:
        if self.elem == "i32":
            return {"add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli"}[kind]
        return {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf"}[kind]

    def index_const(self, c: int) -> str:
        return self.index_consts.setdefault(c, f"%c{c}_idx")


def render(prog: Program) -> str:
    """MLIR text of a sized program: helper functions first, then the kernel."""
    r = _Renderer(prog)
    body: list = []
    helpers: list = []
    for st in prog.stmts:
        body.extend(_render_stmt(r, st.what, helpers))
    args = [f"%{b.name}: {r.ty(b)}" for b in prog.inputs + prog.outputs]
    args += [f"%{s}: index" for s in sorted(prog.symbols)]
    out = ["module {"]
    out.extend(helpers)
    out.append(f"  func.func @{prog.func_name}({', '.join(args)}) {{")
    used = set(re.findall(r"%(cst\d+)\b", "\n".join(body)))
    for name, value in prog.constants.items():
        if name in used:
            out.append(f"    %{name} = arith.constant {_const_text(value, r.elem)}")
    for c, name in sorted(r.index_consts.items()):
        out.append(f"    {name} = arith.constant {c} : index")
    out.extend(body)
    out.append("    return")
    out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"


def _render_stmt(r: _Renderer, w, helpers: list) -> list:
    ind = "    "
    if isinstance(w, AllocOp):
        return [f"{ind}%{w.buf.name} = memref.{w.buf.kind}() : {r.ty(w.buf)}"]
    if isinstance(w, DeallocOp):
        return [f"{ind}memref.dealloc %{w.buf.name} : {r.ty(w.buf)}"]
    if isinstance(w, ViewOp):
        v = w.view
        if v.kind == "cast":
            return [f"{ind}%{v.name} = memref.cast %{v.of.name} : {r.ty(v.of)} to {r.ty(v)}"]
        offs = ", ".join(str(o) for o in v.offsets)
        sizes = ", ".join(str(s) for s in v.shape)
        ones = ", ".join("1" for _ in v.shape)
        return [f"{ind}%{v.name} = memref.subview %{v.of.name}[{offs}] [{sizes}] [{ones}] : "
                f"{r.ty(v.of)} to {r.ty(v)}"]
    if isinstance(w, ScalarOp):
        if w.kind == "load":
            subs = ", ".join(str(c) for c in w.consts)
            return [f"{ind}%{w.name} = affine.load %{w.ref.name}[{subs}] : {r.ty(w.ref)}"]
        if w.kind == "arith":
            return [f"{ind}%{w.name} = {r.op(w.op)} %{w.a}, %{w.b} : {r.elem}"]
        subs = ", ".join(r.index_const(c) for c in w.consts)
        return [f"{ind}memref.store %{w.a}, %{w.ref.name}[{subs}] : {r.ty(w.ref)}"]
    if isinstance(w, CallOp):
        helpers.extend(_render_helper(r, w))
        return [f"{ind}func.call @{w.callee}(%{w.buf.name}) : ({r.ty(w.buf)}) -> ()"]
    if isinstance(w, Nest):
        return _render_nest(r, w)
    raise TypeError(f"unknown statement {w!r}")


def _render_helper(r: _Renderer, w: CallOp) -> list:
    """`func.func @rewriteK(%b)`: b[...] = b[...] * scale + bias over the whole buffer."""
    ty = r.ty(w.buf)
    lines = [f"  func.func @{w.callee}(%b: {ty}) {{",
             f"    %scale = arith.constant {_const_text(w.scale, r.elem)}",
             f"    %bias = arith.constant {_const_text(w.bias, r.elem)}"]
    ind = "    "
    names = [f"h{d}" for d in range(w.buf.rank)]
    for d, n in enumerate(names):
        lines.append(f"{ind}affine.for %{n} = 0 to {w.buf.shape[d]} {{")
        ind += "  "
    subs = ", ".join(f"%{n}" for n in names)
    lines += [f"{ind}%v = affine.load %b[{subs}] : {ty}",
              f"{ind}%m = {r.op('mul')} %v, %scale : {r.elem}",
              f"{ind}%a = {r.op('add')} %m, %bias : {r.elem}",
              f"{ind}affine.store %a, %b[{subs}] : {ty}"]
    for _ in names:
        ind = ind[:-2]
        lines.append(f"{ind}}}")
    lines += ["    return", "  }"]
    return lines


def _render_nest(r: _Renderer, nest: Nest) -> list:
    lines: list = []
    ind = "    "
    tag = r.fresh("")[1:]
    var_names = [f"i{tag}_{d}" for d in range(len(nest.loops))]
    is_iter = nest.kind == "reduce_iter"
    outer = nest.loops[:-1] if is_iter else nest.loops
    closers = 0
    for d, lp in enumerate(outer):
        ind, n = _open_loop(lines, ind, lp, var_names[d])
        closers += n
    if is_iter:
        lp = nest.loops[-1]
        acc = f"%acc{tag}"
        res = f"%red{tag}"
        lines.append(f"{ind}{res} = affine.for %{var_names[-1]} = {lp.lo} to {_bound_text(lp.hi)} "
                     f"iter_args({acc} = %{nest.init_scalar}) -> ({r.elem}) {{")
        inner = ind + "  "
        val = _render_compute(r, lines, inner, nest.compute, var_names)
        nxt = r.fresh("v")
        lines.append(f"{inner}{nxt} = {r.op('add')} {acc}, {val} : {r.elem}")
        lines.append(f"{inner}affine.yield {nxt} : {r.elem}")
        lines.append(f"{ind}}}")
        lines.append(_store_text(r, ind, res, nest.dst, var_names))
    else:
        val = _render_compute(r, lines, ind, nest.compute, var_names)
        if nest.kind == "reduce_acc":
            old = r.fresh("v")
            lines.append(f"{ind}{old} = affine.load %{nest.dst.ref.name}[{_subs(nest.dst, var_names)}] : "
                         f"{r.ty(nest.dst.ref)}")
            new = r.fresh("v")
            lines.append(f"{ind}{new} = {r.op('add')} {old}, {val} : {r.elem}")
            val = new
        lines.append(_store_text(r, ind, val, nest.dst, var_names))
    for _ in range(closers):
        ind = ind[:-2]
        lines.append(f"{ind}}}")
    return lines


def _open_loop(lines: list, ind: str, lp: Loop, var: str) -> tuple:
    """Open one loop (two when tiled); returns the new indent and how many braces to close."""
    hi = _bound_text(lp.hi)
    if lp.tile is None:
        lines.append(f"{ind}affine.for %{var} = {lp.lo} to {hi} {{")
        return ind + "  ", 1
    outer = f"%{var}_t"
    lines.append(f"{ind}affine.for {outer} = {lp.lo} to {hi} step {lp.tile} {{")
    ind += "  "
    if isinstance(lp.hi, str):
        ub = f"min affine_map<(d0)[s0] -> (d0 + {lp.tile}, s0)>({outer})[%{lp.hi}]"
    else:
        ub = f"min affine_map<(d0) -> (d0 + {lp.tile}, {hi})>({outer})"
    lines.append(f"{ind}affine.for %{var} = affine_map<(d0) -> (d0)>({outer}) to {ub} {{")
    return ind + "  ", 2


def _subs(acc: Access, var_names: list) -> str:
    return ", ".join(_idx_text(s, var_names) for s in acc.idx)


def _store_text(r: _Renderer, ind: str, val: str, acc: Access, var_names: list) -> str:
    return f"{ind}affine.store {val}, %{acc.ref.name}[{_subs(acc, var_names)}] : {r.ty(acc.ref)}"


def _render_compute(r: _Renderer, lines: list, ind: str, c: Compute, var_names: list) -> str:
    vals = []
    for kind, t in c.terms:
        if kind == "load":
            v = r.fresh("v")
            lines.append(f"{ind}{v} = affine.load %{t.ref.name}[{_subs(t, var_names)}] : {r.ty(t.ref)}")
            vals.append(v)
        else:
            vals.append(f"%{t}")
    acc = vals[0]
    for op, v in zip(c.ops, vals[1:]):
        nxt = r.fresh("v")
        lines.append(f"{ind}{nxt} = {r.op(op)} {acc}, {v} : {r.elem}")
        acc = nxt
    if c.invariant:
        op, a, b = c.invariant
        inv = r.fresh("inv")
        lines.append(f"{ind}{inv} = {r.op(op)} %{a}, %{b} : {r.elem}")
        nxt = r.fresh("v")
        lines.append(f"{ind}{nxt} = {r.op('add')} {acc}, {inv} : {r.elem}")
        acc = nxt
    return acc


# ---------------------------------------------------------------- shrinking support


def without(prog: Program, drop: set) -> Program:
    """A copy of the model without statement indices `drop` and everything that depends on them."""
    removed: set = set()
    keep = []
    for k, st in enumerate(prog.stmts):
        if k in drop or (st.uses & removed):
            removed |= st.defines
            if isinstance(st.what, Nest) and st.what.kind == "init":
                removed.add(st.what.creates.name + "!init")
            continue
        keep.append(st)
    return replace(prog, stmts=keep)


# ---------------------------------------------------------------- hypothesis


def programs(config: GeneratorConfig | None = None):
    """Hypothesis strategy: generated programs; shrinking acts on the generator's random draws."""
    from hypothesis import strategies as st

    return st.randoms(use_true_random=False).map(lambda rng: generate_program(rng, config))
