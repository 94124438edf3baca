"""Random generator of valid affine MLIR programs for differential fuzzing.

A program is built as a small model (`model.py`: buffers, views, loop nests, regions,
top-level ops) from a `random.Random`, then sized and rendered to text (`render.py`). The model
is what the shrinker edits: dropping a statement drops everything that depends on it.

Validity rules the generator keeps:
- every access is in bounds for every allowed size: buffer extents are computed from the
  largest index any access can reach (symbolic bounds at their maximum, vector accesses
  spanning their width, region counters at their last trip), and a negative shift is only used
  on a loop whose lower bound absorbs it;
- a placed buffer (`memref.alloc`/`alloca`) is read only after an init nest has written every
  element of it, so no result depends on uninitialized memory; globals start as a splat;
- a semi-affine op divides only by a symbol that bounds an enclosing loop, so it runs only
  when that symbol is at least 1;
- a select (scf.if, call, iter_args loop) between two memrefs casts both to the fully dynamic
  type, and its accesses are sized for both; parameters passed one buffer get one shape;
- every output argument is written by some nest, so results are observable.

Besides the plain affine shapes, programs contain the constructs of issue 10 (see
`CLASS_RATES`): memrefs made by select/scf.if/calls/iter_args, two get_global of one global,
calls without operands that write a global, unranked memrefs passed to calls, vector accesses,
`max(...)` lower bounds with steps, memref.reshape, several blocks, one buffer passed for two
parameters of the private function that holds the body, band and triangular bounds, diagonal
accesses, statements inside scf.while/cf/scf.for loops (with buffers allocated outside), semi-
affine ops in loops that may run zero times, and accesses indexed by loop-carried values.
Issue 22's classes (`FORWARD_CLASSES`): a store through a memref of untraced origin (select,
scf.if, a private function's argument fed one), then writes of every kind (`PROBE_WRITES`:
loops, scf.if, memref.store, affine.vector_store, memref.copy, calls) to a buffer it may be,
then a reload through it, in straight-line code and in loop bodies; or the store traced and
the writes through the alias.
Issue 33's classes (`ISSUE33_CLASSES`): a nest that stores its loop counter as data (`T[i] = i`,
`T[i, j] = j`) read by a later nest, transposed where it can be; matrix products (`model.Product`)
with ops before and after the column loop in the row loop, a row reduction whose init is loaded
per row, a B panel larger than half the cpu target's L2, the counter as data in the stored value,
and globals already named as loopopt's steps name what they create.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from .model import (ALIAS_KINDS, CARRIED_REGIONS, PROBE_WRITES, Access, AllocOp, BlockSplit, Buffer, CallOp,
                    Compute, Contraction, DeallocOp, GlobalOp, Idx, Loop, Nest, Probe, ProbeWrite, Product, Program, Region,
                    RowLoss, TransposeCopy,
                    ReshapeOp, ScalarOp, Stmt, View, ViewOp, walk_stmts)
from .render import memref_type_text, render  # noqa: F401  (re-exported)

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
    "multi_store",     # a loop body with several stores (distribution splits it), twin init nests
    # issue 10 classes
    "alias_select",    # a memref made by arith.select of two buffers
    "alias_if",        # a memref yielded by scf.if
    "alias_call",      # a memref returned by a private function (its argument)
    "alias_iter",      # a memref result of a loop with memref iter_args (swapped every trip)
    "global_twice",    # two memref.get_global of one global
    "call_global",     # a call with no operands to a function that writes a global
    "unranked",        # memref.cast to memref<*xT> passed to a private function
    "vector",          # affine.vector_load/store in a loop stepping by the vector width
    "vector_overlap",  # a vector read shifted by a non-multiple of the width
    "max_lb",          # lower bound max(...) with step > 1
    "reshape",         # memref.reshape between statements (shape written by a loop)
    "reshape_in_loop",  # memref.reshape inside a loop that writes its shape
    "multi_block",     # cf.br / cf.cond_br: a function of several blocks
    "alias_args",      # the body is a private function called with one buffer for two parameters
    "band",            # inner loop %j = %i to %i + w
    "triangular",      # inner loop %j = 0 to %i (+ c)
    "diagonal",        # one loop var in two dims: T[i][i]
    "outer_loop",      # nests inside an scf.while / cf / scf.for / affine.for loop
    "alloc_outside",   # a placed buffer from outside used inside an scf.while / cf loop
    "semi_affine",     # mod / floordiv by a symbol (affine.apply, affine.if) in a loop up to it
    "carried_index",   # memref.load/store indexed by an scf.while / cf / iter_args value
    # issue 22 classes: store, writes of every kind, reload (a forwarding probe)
    "forward_select",  # the probe's memref is an arith.select of two buffers
    "forward_if",      # ... an scf.if result
    "forward_callee",  # ... the argument of a private function the kernel calls with a select / scf.if
    "forward_in_loop",  # the probe runs in an affine.for body (its address follows the IV)
    "forward_traced",  # the store and reload go through a traced buffer, the writes through the alias
    # issue 33 classes
    "iv_data",         # a loop counter stored as data (T[i] = i, T[i, j] = j) and read by a later nest
    "row_init",        # a product's row loop loads R[i], the init of a row max / sum its column loop carries
    "big_panel",       # a product whose K x N panel of B is over half the cpu L2 (column blocks), few rows
    "generated_names",  # globals named @<B>_panels<P>, @<B>_folded0, @loopopt_expf_table holding other values
    "around_product",  # ops before and after a product's column loop in its row loop (C and other buffers)
    # issue 35 class
    "contraction",     # a convolution, pooling window or batched product as linalg's lowering writes it
    # the cpu code generator's round 4 constructs (docs/cpu_codegen.md sections 22-23)
    "transpose_copy",  # dst[j, i] = src[i, j] in whole vector tiles (mostly), read back; or in place
    "row_loss",        # a row max, exp(x - m) stored, its sum (or max) read back, x - m - log(s) over it, a gathered element
)
# The issue 22 classes whose probes say where the untraced memref comes from.
FORWARD_CLASSES = frozenset({"forward_select", "forward_if", "forward_callee"})
# Issue 33's classes: their draws come from a side stream of their own (`_side_stream`).
ISSUE33_CLASSES = frozenset({"iv_data", "row_init", "big_panel", "generated_names", "around_product"})
PRODUCT_CLASSES = ("big_panel", "generated_names", "row_init", "around_product")
# Issue 35's class: its draws come from a side stream of its own too.
ISSUE35_CLASSES = frozenset({"contraction"})
CONTRACTION_KINDS = ("conv", "depthwise", "pool", "batched")
# The classes of the cpu code generator's round 4 steps (transpose tiles, dead stores overwritten,
# a parallel loop joining the reduction that reads it); their draws come from a side stream too.
CODEGEN_CLASSES = frozenset({"transpose_copy", "row_loss"})
# A transposing copy's extents: whole 8- and 16-lane tiles mostly, some with edges (12, 20, 24:
# edge bands of 8 and 4), and one shorter than the smallest tile (3: refused).
TRANSPOSE_EXTENTS = (16, 16, 32, 32, 16, 8, 24, 12, 20, 3)
# A loss's row lengths (odd ones leave a vector tail) and row counts.
LOSS_COLS = (17, 33, 40, 64, 75)
# A contraction's iterations at most (the reference interpreter runs it in well under a second).
CONTRACTION_ITERATIONS = 12_000
# K x N of a big panel: 64 x 4160 f32 is 1.06 MB, over half the cpu target's 2 MiB L2, so the
# register tile is built in column blocks (cpu_plan.column_block); 2-3 rows (2 for i32, whose
# wrapping arithmetic the interpreter runs slower) keep the reference interpreter's run under a
# second (0.3-0.7 s here).
BIG_PANEL = (64, 4160)
# A register tile's columns (a constant panel's width): 8 or 16 lanes (256- or 512-bit f32) x 1-4
# vectors. DECOY_COLS is a multiple of each: a splat constant is packed only then.
PANEL_WIDTHS = (8, 16, 24, 32, 48, 64)
DECOY_COLS = 192
EXPF_TABLE = "loopopt_expf_table"  # transforms/exact_math.TABLE_NAME

# Issue 10 classes: the probability that a program is made to contain each (at least once), at
# `adversarial_rate` 1 (the fuzz command); they also appear incidentally. Plain features keep
# their own rates.
CLASS_RATES = {
    "alias_select": 0.06, "alias_if": 0.06, "alias_call": 0.06, "alias_iter": 0.06,
    "global_twice": 0.06, "call_global": 0.06, "unranked": 0.06,
    "vector": 0.12, "vector_overlap": 0.05, "max_lb": 0.08, "reshape": 0.04, "reshape_in_loop": 0.04,
    "multi_block": 0.08, "alias_args": 0.08, "band": 0.06, "triangular": 0.06, "diagonal": 0.06,
    "outer_loop": 0.1, "alloc_outside": 0.05, "semi_affine": 0.07, "carried_index": 0.05,
    "forward_select": 0.05, "forward_if": 0.05, "forward_callee": 0.05,
    "iv_data": 0.05, "row_init": 0.04, "big_panel": 0.02, "generated_names": 0.03, "around_product": 0.04,
    "contraction": 0.06,
    "transpose_copy": 0.05, "row_loss": 0.05,
}


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
    multi_store: bool = True
    value_aliases: bool = True  # alias_select / alias_if / alias_call / alias_iter
    globals: bool = True  # global_twice / call_global
    unranked: bool = True
    vectors: bool = True  # vector / vector_overlap
    multi_bounds: bool = True  # max_lb
    reshape: bool = True  # reshape / reshape_in_loop
    blocks: bool = True  # multi_block
    alias_args: bool = True
    dependent_bounds: bool = True  # band / triangular
    diagonal: bool = True
    outer_loops: bool = True  # outer_loop / alloc_outside
    semi_affine: bool = True
    carried_index: bool = True
    forwarding: bool = True  # forward_* (issue 22); needs value_aliases too unless forced
    iv_data: bool = True  # loop counters stored as data (issue 33)
    products: bool = True  # row_init / big_panel / generated_names / around_product (issue 33)
    contractions: bool = True  # convolutions, pooling, batched products (issue 35)
    codegen_rows: bool = True  # transpose_copy / row_loss (the cpu code generator's round 4 steps)
    # Scales CLASS_RATES and the incidental rates of those classes. 0 (the default): plain affine
    # programs, the classes only when forced; the fuzz command uses 1.
    adversarial_rate: float = 0.0
    force: frozenset = frozenset()  # feature names that must appear (see FEATURES)

    def allows(self, feature: str) -> bool:
        """A forced feature is always allowed; otherwise its knob decides."""
        if feature in self.force:
            return True
        knob = _FEATURE_KNOB[feature]
        return bool(getattr(self, knob))


# Forcing a feature forces the ones it cannot appear without.
_IMPLIES = {"negative_shift": {"shift"}, "zero_trip": {"symbolic"}, "alloca": {"placed"},
            "dealloc": {"placed"}, "vector_overlap": {"vector"}, "alloc_outside": {"outer_loop", "placed"},
            "carried_index": {"outer_loop"}, "semi_affine": {"symbolic"},
            "forward_in_loop": {"forward_select"}, "forward_traced": {"forward_if"},
            "big_panel": {"around_product"}, "iv_data": {"placed"}}

_FEATURE_KNOB = {
    "placed": "placed", "alloca": "placed", "dealloc": "dealloc", "shift": "shifts",
    "negative_shift": "shifts", "transpose": "transposes", "stride": "strides",
    "partition_dim": "partition_dim", "reduction_iter": "reductions", "reduction_acc": "reductions",
    "inplace": "inplace", "symbolic": "symbolic_bounds", "zero_trip": "zero_trip", "tiled": "tiled",
    "scalar_ops": "scalar_ops", "invariant": "invariants", "cast": "aliases", "subview": "aliases",
    "call": "calls", "multi_store": "multi_store", "alias_select": "value_aliases", "alias_if": "value_aliases",
    "alias_call": "value_aliases", "alias_iter": "value_aliases", "global_twice": "globals",
    "call_global": "globals", "unranked": "unranked", "vector": "vectors", "vector_overlap": "vectors",
    "max_lb": "multi_bounds", "reshape": "reshape", "reshape_in_loop": "reshape", "multi_block": "blocks",
    "alias_args": "alias_args", "band": "dependent_bounds", "triangular": "dependent_bounds",
    "diagonal": "diagonal", "outer_loop": "outer_loops", "alloc_outside": "outer_loops",
    "semi_affine": "semi_affine", "carried_index": "carried_index",
    "forward_select": "forwarding", "forward_if": "forwarding", "forward_callee": "forwarding",
    "forward_in_loop": "forwarding", "forward_traced": "forwarding",
    "iv_data": "iv_data", "row_init": "products", "big_panel": "products", "generated_names": "products",
    "around_product": "products", "contraction": "contractions",
    "transpose_copy": "codegen_rows", "row_loss": "codegen_rows",
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


# ---------------------------------------------------------------- generation


def _coin(rng: random.Random, p: float) -> bool:
    """True with probability p; False on the draw 0.0, which is where hypothesis shrinks to,
    so shrinking removes features instead of adding them."""
    return rng.random() >= 1.0 - p


class _Gen:
    """Generation state: what exists and is readable at the current point of the function."""

    def __init__(self, rng: random.Random, config: GeneratorConfig):
        self.rng = rng
        self.prng = _side_stream(rng)  # draws of the issue 22 classes
        self.qrng = _side_stream(rng, "issue33")  # draws of the issue 33 classes
        self.crng = _side_stream(rng, "issue35")  # draws of the issue 35 class
        self.rrng = _side_stream(rng, "codegen4")  # draws of the round 4 code generator classes
        self.expf_decoy = False  # a global named as exact_math's table exists
        self.cfg = config
        self.features: set = set()
        self.stmts: list = []  # where statements go (a region's body while one is generated)
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
        self.globals: list = []  # global Buffers (declared at top level)
        self.region: Region | None = None  # the region being generated into
        self.vector_width = 4
        self.alias_pairs: list = []
        self.bait: Nest | None = None  # the last nest if it stores to several buffers
        self.pending = set(config.force)
        for f in config.force:
            self.pending |= _IMPLIES.get(f, set())

    # -- helpers
    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def chance(self, p: float, feature: str | None = None, rng: random.Random | None = None) -> bool:
        """True with probability p (always when `feature` is still owed), if allowed. An issue 10
        class's p is scaled by the config's adversarial rate. `rng`: draw from it instead."""
        if feature is not None:
            if not self.cfg.allows(feature):
                return False
            if feature in self.pending:
                return True
            if feature in CLASS_RATES:
                p *= self.cfg.adversarial_rate
        return _coin(rng or self.rng, p)

    def may(self, feature: str) -> bool:
        """The feature may appear: allowed, and for an issue 10 class, owed or at a rate above 0."""
        return self.cfg.allows(feature) and (
            feature not in CLASS_RATES or feature in self.pending or self.cfg.adversarial_rate > 0)

    def use(self, feature: str) -> None:
        self.features.add(feature)
        self.pending.discard(feature)

    def constant(self, value) -> str:
        for name, v in self.constants.items():
            if v == value and type(v) is type(value):
                return name
        name = f"cst{len(self.constants)}"
        self.constants[name] = value
        return name

    def zero(self) -> str:
        return self.constant(0 if self.cfg.element_type == "i32" else 0.0)

    def small_value(self):
        """A constant of magnitude <= 1 (floats), so repeated updates grow values only linearly."""
        return self.rng.choice(_small_values(self))

    def emit(self, what, defines=(), uses=()) -> None:
        self.stmts.append(Stmt(what, frozenset(defines), frozenset(uses)))


def _small_values(g: "_Gen") -> list:
    return [1, 2, 3, -1, 5] if g.cfg.element_type == "i32" else [0.5, -1.0, 0.25, 1.0, -0.5, 0.75]


def _side_stream(rng: random.Random, name: str = "forward") -> random.Random:
    """A stream for one issue's classes' draws (22: `forward`, 33: `issue33`) that leaves `rng`'s
    own as it was, so a program without those classes is exactly what the generator made before
    they existed (seeds keep their programs). A random source whose state is not a
    `random.Random`'s (hypothesis') is shared instead."""
    if type(rng) is random.Random:
        return random.Random(f"{name}/{rng.getstate()[1][:8]}")
    return rng


def _ref_uses(ref) -> set:
    """Names a statement depends on when it reads `ref`: the view, and the initialized storage."""
    if isinstance(ref, View) and ref.local:
        return _ref_uses(ref.of)
    uses = {ref.name}
    for root in ref.roots:
        if root.placed:
            uses.add(root.name + "!init")
    return uses


def _write_uses(ref) -> set:
    if isinstance(ref, View) and ref.local:
        return _write_uses(ref.of)
    uses = {ref.name}
    if isinstance(ref, View):
        for root in ref.roots:
            if root.placed:
                uses.add(root.name + "!init")
    return uses


def _mark_written(g: _Gen, ref) -> None:
    roots = ref.roots
    if len(roots) == 1 and roots[0].kind == "output" and g.region is None:
        g.written_outputs.add(roots[0].name)


def generate_program(rng: random.Random, config: GeneratorConfig | None = None) -> GeneratedProgram:
    """A valid affine program, fully determined by the draws from `rng`."""
    cfg = config or GeneratorConfig()
    g = _Gen(rng, cfg)
    _choose_classes(g)
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
        alias_pairs=list(g.alias_pairs),
        plain_call_first=bool(g.alias_pairs) and _coin(rng, 0.4),
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


def _choose_classes(g: _Gen) -> None:
    """Decide which issue 10 classes this program must contain (they become owed features)."""
    rate = g.cfg.adversarial_rate
    for f, p in CLASS_RATES.items():
        needs = {f} | _IMPLIES.get(f, set())
        stream = (g.prng if f in FORWARD_CLASSES else g.qrng if f in ISSUE33_CLASSES
                  else g.crng if f in ISSUE35_CLASSES else g.rrng if f in CODEGEN_CLASSES else g.rng)
        if all(g.cfg.allows(x) for x in needs) and _coin(stream, p * rate):
            g.pending |= needs


def _choose_signature(g: _Gen) -> None:
    rng, cfg = g.rng, g.cfg
    g.extents = sorted({rng.randint(cfg.min_extent, cfg.max_extent) for _ in range(3)})
    # the main iteration domain: most nests and buffers follow it, so trip counts often match
    g.dom = [rng.choice(g.extents) for _ in range(3)]
    g.depth = rng.randint(1, cfg.max_depth)
    g.vector_width = rng.choice([4, 8])
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
    g.scalars.append(g.zero())
    if g.chance(0.0, "alias_args"):
        _choose_alias_pair(g)


def _choose_alias_pair(g: _Gen) -> None:
    """One buffer for two parameters of the body: the second takes the first's rank and shape."""
    params = g.inputs + g.outputs
    if len(params) < 2:
        extra = Buffer(f"in{len(g.inputs)}", params[0].rank, "input", params[0].min_shape)
        g.inputs.append(extra)
        g.readable.insert(len(g.inputs) - 1, extra)
        params = g.inputs + g.outputs
    a, b = g.rng.sample(params, 2)
    b.rank, b.min_shape = a.rank, a.min_shape
    g.alias_pairs.append((a.name, b.name))
    if b.kind == "input" and b not in g.writable and _coin(g.rng, 0.5):
        g.writable.append(b)
    g.use("alias_args")


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
            sizes[name] = g.rng.randint(0 if g.cfg.allows("zero_trip") else min(1, hi), hi)
    return sizes


# -- loops and accesses


def _shape_like_domain(g: _Gen, rank: int) -> tuple:
    """Mostly the main domain's extents (matching trip counts make fusion candidates)."""
    if g.rng.random() < 0.75:
        return tuple(g.dom[:rank])
    return tuple(g.rng.choice(g.extents) for _ in range(rank))


def _gen_loops(g: _Gen, depth: int, allow_tile: bool = True, allow_symbolic: bool = True,
               allow_bounds: bool = True) -> list:
    """Loops over the program's extent pool; lower bound 0 mostly, sometimes 1 or 2 (room for i - k).

    With `allow_bounds`, a loop may get a `max(...)` lower bound and a step, or bounds that
    follow an outer loop's variable (band `%i to %i + w`, triangular `0 to %i + c`)."""
    rng = g.rng
    loops: list = []
    budget = g.cfg.max_iterations_per_nest
    force_sym = "semi_affine" in g.pending and allow_symbolic and bool(g.symbols)
    for level in range(depth):
        ext = g.dom[level] if rng.random() < 0.7 else rng.choice(g.extents)
        remaining_levels = depth - level - 1
        cap = max(g.cfg.min_extent, budget // max(1, g.cfg.min_extent ** remaining_levels))
        ext = max(1, min(ext, cap))
        lo = 0
        if g.chance(0.15, "negative_shift") and ext > 2:
            lo = rng.randint(1, 2)
        hi: object = ext
        if allow_symbolic and g.symbols and (g.chance(0.3, "symbolic") or (force_sym and level == depth - 1)):
            sym = rng.choice(sorted(g.symbols))
            hi = sym
            ext = g.symbols[sym]
            g.use("symbolic")
        tile = None
        if allow_tile and g.chance(0.12, "tiled") and ext >= 3:
            tile = rng.randint(2, max(2, ext - 1))
            g.use("tiled")
        lp = Loop(lo, hi, tile)
        if allow_bounds and tile is None:
            _maybe_bounds(g, lp, level, loops)
        loops.append(lp)
        budget = max(1, budget // max(1, ext))
    return loops


def _maybe_bounds(g: _Gen, lp: Loop, level: int, outer: list) -> None:
    """Band / triangular bounds on an outer variable, or a `max(...)` lower bound with a step."""
    rng = g.rng
    plain_outer = [k for k, o in enumerate(outer) if o.tile is None]
    if plain_outer and g.chance(0.006, "band"):
        k = rng.choice(plain_outer)
        c = rng.choice([0, 0, 1])
        w = rng.randint(2, 4)
        lp.lb, lp.hi, lp.lo = ("band", k, c), ("var", k, c + w), outer[k].lo + c
        g.use("band")
    elif plain_outer and g.chance(0.006, "triangular"):
        k = rng.choice(plain_outer)
        lp.hi = ("var", k, rng.choice([0, 1]))
        g.use("triangular")
    elif g.chance(0.006, "max_lb"):
        choices = [("const", lp.lo + rng.randint(1, 2))]
        if g.symbols:
            choices.append(("sym", rng.choice(sorted(g.symbols)), -rng.randint(0, 4)))
        if plain_outer:
            choices.append(("var", rng.choice(plain_outer), rng.choice([-1, 0, 1])))
        lp.lb = ("max", rng.choice(choices))
        lp.step = rng.choice([2, 3])
        g.use("max_lb")


def _loop_max(g_symbols: dict, loop: Loop, loops: list | None = None) -> int:
    """The largest value the loop variable can take at the largest allowed sizes (below `lo`
    when the loop never runs)."""
    hi = loop.hi
    if isinstance(hi, str):
        hi = g_symbols[hi]
    elif isinstance(hi, tuple) and hi[0] == "shape":
        _, ref, dim = hi
        hi = ref.shape[dim] if ref.shape else ref.min_shape[dim]
    elif isinstance(hi, tuple) and hi[0] == "var":
        _, k, c = hi
        hi = _loop_max(g_symbols, loops[k], loops) + c
    if loop.step > 1 and loop.lb is None and hi - 1 >= loop.lo:
        return loop.lo + (hi - 1 - loop.lo) // loop.step * loop.step  # the last point of the lattice
    return hi - 1


def _gen_access(g: _Gen, ref, loops: list, vars_: list, *, allow_fancy: bool = True,
                allow_stride: bool = True) -> Access:
    """Subscripts for `ref` inside `loops`, using loop vars `vars_` (indices into loops).

    Identity by default; with the enabled features, permutes vars (transpose), puts a
    constant or inner var in dim 0 (partition_dim), shifts by +-k (negative only as far as
    the loop's lower bound allows), strides by 2, repeats a var (diagonal) and adds the
    enclosing affine.for region's counter. Placed buffers get these less often: their init
    nest spans their whole shape, and a margin there breaks matching trip counts.
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
        if var_dims and rank >= 2 and g.chance(0.005, "diagonal"):
            src = rng.choice(var_dims)
            dst = rng.choice([d for d in range(rank) if d != src])
            idx[dst] = Idx(idx[src].var, 1, rng.choice([0, 0, 1]) if g.cfg.allows("shift") else 0)
            g.use("diagonal")
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
        if g.region is not None and g.region.kind == "affine_for" and _coin(rng, 0.3):
            d = rng.randrange(rank)
            idx[d] = replace(idx[d], rv=True)
    return Access(ref, tuple(idx))


def _gen_vector_access(g: _Gen, ref, loops: list, shift: bool = True) -> Access:
    """A vector access: the last dim is `inner + k` (the vector spans it), other dims take the
    outer loop variables (innermost first) or constants. k may be any shift the lower bound
    allows, so reads overlap what other iterations write."""
    rng = g.rng
    inner = len(loops) - 1
    outer = list(range(inner))
    idx = []
    for d in range(ref.rank - 1):
        back = ref.rank - 1 - d  # how far from the last dim
        v = outer[-back] if back <= len(outer) else None
        idx.append(Idx(v) if v is not None and rng.random() < 0.85 else Idx(None, 1, rng.randint(0, 1)))
    k = 0
    if shift and g.cfg.allows("shift") and _coin(rng, 0.35):
        k_min = -min(2, loops[inner].lo)
        k = rng.choice([x for x in range(k_min, g.vector_width + 2) if x != 0])
    idx.append(Idx(inner, 1, k))
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
    sources = _sources(g, dst)
    for _ in range(n_loads if sources else 0):
        src = _pick(g, sources)
        terms.append(("load", _gen_access(g, src, loops, vars_)))
    _maybe_scalar_term(g, terms)
    ops = _fold_ops(rng, terms)
    invariant = None
    if g.chance(0.15, "invariant"):
        invariant = (rng.choice(["add", "mul"]), rng.choice(g.scalars), g.constant(g.small_value()))
        g.use("invariant")
    return Compute(terms, ops, invariant)


def _sources(g: _Gen, dst) -> list:
    if dst is not None and not g.cfg.allows("inplace"):
        return [r for r in g.readable if not _shares_root(r, dst)]
    return list(g.readable)


def _shares_root(a, b) -> bool:
    return any(x is y for x in a.roots for y in b.roots)


def _maybe_scalar_term(g: _Gen, terms: list) -> None:
    if _coin(g.rng, 0.4):
        if g.scalars and g.rng.random() < 0.5:
            terms.append(("scalar", g.rng.choice(g.scalars)))
        else:
            terms.append(("const", g.constant(g.small_value())))
    if not terms:
        terms.append(("const", g.constant(g.small_value())))


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


def _gen_nest(g: _Gen, remaining: int, dst_ref=None, read_ref=None, plain: bool = False) -> None:
    """One loop nest; forced features and unwritten outputs steer the choice of kind and target.

    `dst_ref` / `read_ref` ask for a nest that writes / reads that buffer; `plain` for a scalar
    nest that initializes nothing."""
    rng, cfg = g.rng, g.cfg
    unwritten = [b for b in g.outputs if b.name not in g.written_outputs]
    must_output = g.region is None and len(unwritten) >= remaining
    want_placed = (dst_ref is None and read_ref is None and not plain and cfg.allows("placed")
                   and not must_output and ("placed" in g.pending or "alloca" in g.pending or _coin(rng, 0.35)))
    if want_placed:
        _gen_init_nest(g)
        return
    chain = 0.5 if "vector" in g.features else 0.01  # vector nests follow vector nests (chains fuse)
    if not plain and (g.chance(chain, "vector") or ("vector_overlap" in g.pending and g.cfg.allows("vector_overlap"))):
        _gen_vector_nest(g, dst_ref or (rng.choice(unwritten) if must_output else None), read_ref)
        return
    r = rng.random()
    kind = "map"
    if cfg.allows("reduction_iter") and ("reduction_iter" in g.pending or r >= 0.85):
        kind = "reduce_iter"
    elif cfg.allows("reduction_acc") and ("reduction_acc" in g.pending or r >= 0.72):
        kind = "reduce_acc"
    bait, g.bait = g.bait, None
    if bait is not None and not _coin(rng, 0.8):
        bait = None
    if bait is not None:
        kind = "map"
    depth = g.depth if rng.random() < 0.5 else rng.randint(1, cfg.max_depth)
    if kind != "map" and depth == 1 and _coin(rng, 0.6):
        depth = min(2, cfg.max_depth)
    if ({"band", "triangular"} & g.pending) and depth == 1:
        depth = min(2, cfg.max_depth)
    if bait is not None:
        depth = len(bait.loops)
    if dst_ref is None:
        if must_output:
            dst_ref = rng.choice(unwritten)
        else:
            choices = g.writable
            dst_ref = _pick(g, choices, 0.3) if choices else rng.choice(g.outputs)
    _mark_written(g, dst_ref)
    loops = _gen_loops(g, depth, allow_tile=kind != "reduce_iter" or depth > 1)
    if bait is not None:
        loops = [replace(lp) for lp in bait.loops]
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
    if read_ref is not None:
        extra.append(_gen_access(g, read_ref, loops, all_vars))
    if bait is not None:
        extra.extend(_bait_reads(g, bait))
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
    if kind == "map" and bait is None:
        _maybe_extra_stores(g, nest, all_vars)
    _maybe_semi_affine(g, nest)
    _maybe_carried(g, nest, all_vars, outer_vars)
    _maybe_local_reshape(g, nest, all_vars)
    _maybe_body_call(g, nest)
    strided = any(lp.lb is not None and lp.lb[0] == "max" for lp in loops)
    if kind == "map" and bait is None and (nest.extra or nest.body_call or strided) and nest.width == 1:
        g.bait = nest
    g.emit(nest, (), _nest_uses(nest))


def _nest_uses(nest: Nest) -> set:
    uses = _loop_uses(nest.loops)
    for dst, compute in nest.statements():
        uses |= _compute_uses(compute) | _write_uses(dst.ref)
    if nest.kind == "reduce_acc":
        uses |= _ref_uses(nest.dst.ref)
    if nest.init_scalar:
        uses.add(nest.init_scalar)
    if nest.body_call is not None:
        uses |= _call_uses(nest.body_call)
    return uses


def _gen_vector_nest(g: _Gen, dst_ref=None, read_ref=None) -> None:
    """A map nest whose innermost loop steps by the vector width; every access is a vector
    load/store along its last dim (shifted reads overlap other iterations' elements)."""
    rng, w = g.rng, g.vector_width
    depth = g.depth if rng.random() < 0.5 else rng.randint(1, g.cfg.max_depth)
    loops = _gen_loops(g, depth, allow_tile=False, allow_bounds=False)
    loops[-1].step = w
    if dst_ref is None:
        dst_ref = _pick(g, g.writable, 0.3) if g.writable else g.rng.choice(g.outputs)
    _mark_written(g, dst_ref)
    dst = _gen_vector_access(g, dst_ref, loops, shift=_coin(rng, 0.3))
    terms = []
    if "vector_overlap" in g.pending and _readable(g, dst_ref):
        # an in-place update reading a window shifted by less than the width
        last = dst.idx[-1]
        k = rng.choice([x for x in range(1, w) if x != last.const]) if last.const < w else 1
        terms.append(("load", Access(dst_ref, dst.idx[:-1] + (replace(last, const=k),))))
    elif g.cfg.allows("inplace") and _readable(g, dst_ref) and _coin(rng, 0.2):
        terms.append(("load", Access(dst_ref, dst.idx)))
        g.use("inplace")
    if read_ref is not None:
        terms.append(("load", _gen_vector_access(g, read_ref, loops)))
    sources = _sources(g, dst_ref)
    for _ in range(rng.randint(1, 2) if sources else 0):
        terms.append(("load", _gen_vector_access(g, _pick(g, sources), loops)))
    _maybe_scalar_term(g, terms)
    compute = Compute(terms, _fold_ops(rng, terms))
    nest = Nest("map", loops, dst, compute, width=w)
    g.use("vector")
    _maybe_extra_stores(g, nest, list(range(depth)))
    _note_vector_overlap(g, nest)
    _maybe_local_reshape(g, nest, list(range(depth)))
    g.emit(nest, (), _nest_uses(nest))


def _bait_reads(g: _Gen, bait: Nest) -> list:
    """Reads of what a multi-store nest (same loops) wrote: one element ahead of one store (fusing
    the two loops would reverse that dependence) and at the same element of another, so fusion
    is refused and distribution can split off the part that does fuse. After a nest whose body
    calls a function, also a read of what the call updates (a get_global of its global): fusing
    would move that read before later trips' calls."""
    stores = [dst for dst, _ in bait.statements() if dst.mode == "affine"]
    out = []
    call = bait.body_call
    if call is not None:
        target = call.buf
        if call.mode == "global":
            views = [r for r in g.readable if isinstance(r, View) and r.kind == "get_global" and r.of is call.buf]
            target = views[-1] if views else None
        if target is not None and _readable(g, target):
            out.append(_gen_access(g, target, bait.loops, list(range(len(bait.loops))), allow_fancy=False))
    strided = [s.var for s in (stores[0].idx if stores else ()) if s.var is not None and not s.semi
               and bait.loops[s.var].lb is not None and bait.loops[s.var].lb[0] == "max"]
    if strided:
        # a max(...) lower bound with a step: the same element (a shared intermediate), and one
        # fixed element that a later iteration of the first loop may write; whether it does
        # depends on where the iteration grid starts
        lp = bait.loops[strided[0]]
        c = lp.lo + g.rng.randint(lp.step, 3 * lp.step)
        fixed = [Idx(None, 1, s.coef * c + s.const) if s.var == strided[0] else s for s in stores[0].idx]
        return out + [Access(stores[0].ref, stores[0].idx), Access(stores[0].ref, tuple(fixed))]
    for k, dst in enumerate(g.rng.sample(stores, min(2, len(stores)))):
        idx = list(dst.idx)
        var_dims = [d for d, s in enumerate(idx) if s.var is not None and not s.semi]
        if k == 0 and var_dims and g.cfg.allows("shift"):
            d = g.rng.choice(var_dims)
            idx[d] = replace(idx[d], const=idx[d].const + 1)
        out.append(Access(dst.ref, tuple(idx)))
    return out


def _maybe_extra_stores(g: _Gen, nest: Nest, vars_: list) -> None:
    """One or two more stores in the body, to other buffers or the same one (distribution splits
    such a loop when the dependences allow; a later store may read what an earlier one wrote)."""
    rng = g.rng
    if not g.chance(0.12, "multi_store"):
        return
    placed = [w for w in g.writable if any(r.placed for r in w.roots)]
    for _ in range(rng.randint(1, 2)):
        # placed buffers mostly: fusing their writers with readers frees them (profit)
        pool = placed if placed and _coin(rng, 0.7) else g.writable
        dst_ref = _pick(g, pool, 0.3) if pool else nest.dst.ref
        _mark_written(g, dst_ref)
        if nest.width > 1:
            dst = _gen_vector_access(g, dst_ref, nest.loops, shift=_coin(rng, 0.3))
            sources = _sources(g, dst_ref) + ([nest.dst.ref] if _readable(g, nest.dst.ref) else [])
            terms = [("load", _gen_vector_access(g, _pick(g, sources), nest.loops))] if sources else []
            _maybe_scalar_term(g, terms)
            compute = Compute(terms, _fold_ops(rng, terms))
        else:
            dst = _gen_access(g, dst_ref, nest.loops, vars_)
            extra = [Access(nest.dst.ref, nest.dst.idx)] if _readable(g, nest.dst.ref) and _coin(rng, 0.5) else []
            compute = _gen_compute(g, nest.loops, vars_, rng.randint(0, 2), extra, dst=dst_ref)
        nest.extra.append((dst, compute))
    g.use("multi_store")


def _note_vector_overlap(g: _Gen, nest: Nest) -> None:
    for kind, t in nest.compute.terms:
        if kind == "load" and (t.idx[-1].const - nest.dst.idx[-1].const) % nest.width != 0:
            g.use("vector_overlap")


def _maybe_semi_affine(g: _Gen, nest: Nest) -> None:
    """A load subscript `(x) mod s` / `(x) floordiv s`, or an affine.if on `k floordiv s`, where the
    symbol s bounds one of the nest's loops (so the op runs only when s >= 1); x is a constant
    or an outer variable, so the op is invariant in the loop that may run zero times."""
    rng = g.rng
    syms = sorted({lp.hi for lp in nest.loops if isinstance(lp.hi, str)})
    if not syms or not g.chance(0.01, "semi_affine"):
        return
    sym = rng.choice(syms)
    op = rng.choice(["mod", "floordiv"])
    loads = [t for kind, t in nest.compute.terms if kind == "load" and t.mode == "affine"]
    if loads and rng.random() < 0.7:
        acc = rng.choice(loads)
        d = rng.randrange(acc.ref.rank)
        var = rng.choice([None, None] + list(range(len(nest.loops))))
        const = rng.randint(0, 9) if var is None else rng.randint(0, 2)
        idx = list(acc.idx)
        idx[d] = Idx(var, 1, const, semi=(op, sym))
        acc.idx = tuple(idx)
    else:
        nest.compute.guard = (op, sym, rng.randint(3, 40), rng.randint(0, 3),
                              g.constant(g.small_value()), g.constant(g.small_value()))
    g.use("semi_affine")


def _maybe_carried(g: _Gen, nest: Nest, vars_: list, dst_vars: list) -> None:
    """Inside a region whose counter is loop-carried: one load (or the store) indexed by it
    through memref.load/store."""
    reg = g.region
    if reg is None or not reg.carried or not g.chance(0.3, "carried_index"):
        return
    loads = [t for kind, t in nest.compute.terms if kind == "load" and t.mode == "affine"
             and not any(s.semi for s in t.idx) and not (isinstance(t.ref, View) and t.ref.local)]
    targets = loads + ([nest.dst] if nest.kind != "reduce_acc" else [])
    if not targets:
        return
    acc = g.rng.choice(targets)
    acc.idx = _carried_idx(g, acc.ref, dst_vars if acc is nest.dst else vars_)
    acc.mode = "memref"
    g.use("carried_index")


def _carried_idx(g: _Gen, ref, vars_: list) -> tuple:
    rng = g.rng
    d_rv = rng.randrange(ref.rank)
    idx = []
    free = list(vars_)
    for d in range(ref.rank):
        if d == d_rv:
            idx.append(Idx(None, 1, rng.randint(0, 2), rv=True))
        elif free and rng.random() < 0.7:
            idx.append(Idx(free.pop(rng.randrange(len(free)))))
        else:
            idx.append(Idx(None, 1, rng.randint(0, 1)))
    return tuple(idx)


def _maybe_local_reshape(g: _Gen, nest: Nest, vars_: list) -> None:
    """A load through `memref.reshape` made in the innermost body, after a store of its shape."""
    bases = [r for r in g.readable if isinstance(r, Buffer) and r.kind != "global"]
    if not bases or not g.chance(0.005, "reshape_in_loop"):
        return
    base = _pick(g, bases, 0.5)
    view = View(g.fresh("rl"), base, "reshape", dynamic=(True,), local=True)
    nest.reshapes.append(view)
    if nest.width > 1:
        acc = _gen_vector_access(g, view, nest.loops)
    else:
        acc = Access(view, (Idx(g.rng.choice(vars_), 1, g.rng.randint(0, 2)),))
    nest.compute.terms.append(("load", acc))
    nest.compute.ops = _fold_ops(g.rng, nest.compute.terms)
    g.use("reshape_in_loop")


def _maybe_body_call(g: _Gen, nest: Nest) -> None:
    """A call in the innermost body that updates one element of a buffer the nest reads: through
    a ranked or an unranked memref, or a global with no operand at all."""
    rng = g.rng
    modes = []
    if g.may("call"):
        modes.append("ranked")
    if g.may("unranked"):
        modes.append("unranked")
    if g.globals and g.may("call_global"):
        modes += ["global", "global"]  # no operand at all: only the unmodelled-op barrier sees it
    if not modes or not _coin(rng, 0.05):
        return
    mode = rng.choice(modes)
    if mode == "global":
        buf = rng.choice(g.globals)
    else:
        read = [t.ref for kind, t in nest.compute.terms if kind == "load" and _identity_typed(t.ref)]
        cands = read or [r for r in g.readable if _identity_typed(r)]
        if not cands:
            return
        buf = rng.choice(cands)
    consts = tuple(rng.randint(0, 1) for _ in range(buf.rank))
    nest.body_call = CallOp(g.fresh("poke"), buf, 1.0, g.small_value(), kind="poke", mode=mode, consts=consts)
    nest.call_first = _coin(rng, 0.5)
    g.use({"ranked": "call", "unranked": "unranked", "global": "call_global"}[mode])


def _identity_typed(ref) -> bool:
    """A memref of static shape and identity layout (a buffer, a get_global, an alias of one)."""
    if isinstance(ref, Buffer):
        return ref.kind != "global"
    if ref.kind in ALIAS_KINDS:
        return not ref.dynamic_alias and _identity_typed(ref.alts[0])
    return ref.kind == "get_global"


def _castable(ref) -> bool:
    """Identity layout (static or dynamic extents): can be cast to the fully dynamic type."""
    if isinstance(ref, Buffer):
        return ref.kind != "global"
    return ref.kind != "subview" and not ref.local


def _readable(g: _Gen, ref) -> bool:
    return any(r is ref for r in g.readable)


def _loop_uses(loops: list) -> set:
    uses = {lp.hi for lp in loops if isinstance(lp.hi, str)}
    for lp in loops:
        if lp.lb and lp.lb[0] == "max" and lp.lb[1][0] == "sym":
            uses.add(lp.lb[1][1])
    return uses


def _gen_init_nest(g: _Gen, kind: str | None = None, rank: int | None = None) -> None:
    """A new placed buffer and the nest that writes all of it (its domain is the buffer's shape).

    Sometimes a vector nest: the buffer's last extent is then a multiple of the width."""
    rng = g.rng
    if rank is None:
        rank = g.depth if rng.random() < 0.5 else rng.randint(1, g.cfg.max_depth)
    if kind is None:
        kind = "alloca" if g.chance(0.3, "alloca") else "alloc"
    vector = g.cfg.allows("vector") and ("vector" in g.features or "vector" in g.pending) and _coin(rng, 0.5)
    width = g.vector_width if vector else 1
    buf = Buffer(g.fresh("t"), rank, kind, _shape_like_domain(g, rank), align=width)
    g.use("placed")
    if kind == "alloca":
        g.use("alloca")
    g.emit(AllocOp(buf), {buf.name}, ())
    twin = None
    if g.chance(0.1, "multi_store"):
        twin = Buffer(g.fresh("t"), rank, kind, buf.min_shape, align=width)
        g.emit(AllocOp(twin), {twin.name}, ())
    loops = [Loop(0, ("shape", buf, d)) for d in range(rank)]
    loops[-1].step = width
    dst = Access(buf, tuple(Idx(d) for d in range(rank)))
    terms = []
    for _ in range(rng.randint(0, 2)):
        src = _pick(g, g.readable)
        # identity / positive shift / transpose only: strides here would double the domain each step
        terms.append(("load", _init_access(g, src, rank) if width == 1 else _vector_init_access(g, src, rank)))
    if not terms or _coin(rng, 0.3):
        terms.append(("const", g.constant(g.small_value())))
    ops = _fold_ops(rng, terms)
    compute = Compute(terms, ops)
    nest = Nest("init", loops, dst, compute, creates=buf, width=width, twin=twin)
    if width > 1:
        g.use("vector")
        _note_vector_overlap(g, nest)
    defines, uses = {buf.name + "!init"}, _compute_uses(compute) | {buf.name}
    if twin is not None:
        # the twin gets the first buffer's values, transformed, or its own mix of sources
        src = [Access(buf, dst.idx)] if _coin(rng, 0.5) else []
        terms2 = [("load", a) for a in src] + [t for t in terms if t[0] == "load"][:1]
        if not terms2 or _coin(rng, 0.3):
            terms2.append(("const", g.constant(g.small_value())))
        compute2 = Compute(terms2, _fold_ops(rng, terms2))
        nest.extra.append((Access(twin, dst.idx), compute2))
        defines.add(twin.name + "!init")
        uses |= {twin.name} | _compute_uses(compute2) - {buf.name + "!init"}
        g.use("multi_store")
    g.emit(nest, defines, uses)
    g.readable.append(buf)
    g.writable.append(buf)
    if twin is not None:
        g.readable.append(twin)
        g.writable.append(twin)
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


def _vector_init_access(g: _Gen, src, rank: int) -> Access:
    """Source of a vector init nest: its last dim follows the innermost variable (+ a small shift)."""
    idx = []
    for d in range(src.rank):
        v = rank - src.rank + d
        idx.append(Idx(v) if v >= 0 else Idx(None, 1, g.rng.randint(0, 1)))
    if _coin(g.rng, 0.3) and g.cfg.allows("shift"):
        idx[-1] = replace(idx[-1], const=idx[-1].const + g.rng.randint(1, g.vector_width + 1))
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
    """Non-loop statements between nests: views, scalar ops, calls, aliases, globals, reshapes,
    block splits and (at the top level) regions that hold nests."""
    rng = g.rng
    if _coin(g.rng, 0.2) or "cast" in g.pending or "subview" in g.pending:
        bases = [r for r in g.readable if isinstance(r, Buffer)]
        if bases:
            _maybe_view(g, rng.choice(bases))
    if g.chance(0.25, "scalar_ops"):
        _gen_scalar_ops(g)
    if g.region is None:
        _maybe_global(g)
    _maybe_alias(g)
    _maybe_probe(g)
    if g.region is None:
        _maybe_iv_nest(g)
        _maybe_product(g)
        _maybe_contraction(g)
        _maybe_codegen_rows(g)
    _maybe_reshape(g)
    if g.chance(0.15, "call"):
        bases = [r for r in g.readable if isinstance(r, Buffer) and r.kind not in ("input", "global")]
        bases = bases or [r for r in g.readable if isinstance(r, Buffer) and r.kind != "global"]
        buf = _pick(g, bases)
        op = CallOp(g.fresh("rewrite"), buf, g.small_value(), g.small_value())
        g.emit(op, {op.callee}, _call_uses(op))
        g.use("call")
    if g.chance(0.008, "unranked"):
        cands = [r for r in g.readable if _identity_typed(r)]
        if cands:
            op = CallOp(g.fresh("unr"), _pick(g, cands), g.small_value(), g.small_value(), mode="unranked")
            g.emit(op, {op.callee}, _call_uses(op))
            g.use("unranked")
    if g.region is None:
        _maybe_blocks(g)
        _maybe_region(g)


def _call_uses(op: CallOp) -> set:
    if op.mode == "global":
        return {op.buf.name}
    return _ref_uses(op.buf)


def _maybe_global(g: _Gen) -> None:
    """A global read through get_global (a second get_global of the same symbol sometimes), and
    calls with no operands to a function that updates it."""
    rng = g.rng
    twice = g.chance(0.008, "global_twice")
    call = g.chance(0.008, "call_global")
    if not (twice or call or (g.globals and _coin(rng, 0.1))):
        return
    if not g.globals or (not twice and _coin(rng, 0.3)):
        rank = rng.randint(1, 3)
        glob = Buffer(g.fresh("g"), rank, "global", _shape_like_domain(g, rank), init=g.small_value())
        g.globals.append(glob)
        g.emit(GlobalOp(glob), {glob.name}, ())
    else:
        glob = rng.choice(g.globals)
    first = not any(isinstance(r, View) and r.kind == "get_global" and r.of is glob for r in g.readable)
    for _ in range(2 if (twice and first) else 1):
        v = View(g.fresh("gg"), glob, "get_global")
        g.emit(ViewOp(v), {v.name}, {glob.name})
        g.readable.append(v)
        g.writable.append(v)
        if not first:
            g.use("global_twice")
        first = False
    if call:
        op = CallOp(g.fresh("bump"), glob, g.small_value(), g.small_value(), mode="global")
        g.emit(op, {op.callee}, _call_uses(op))
        g.use("call_global")


def _maybe_alias(g: _Gen) -> None:
    """A memref made by select / scf.if / a call returning its argument / a loop swapping memref
    iter_args: one of one or two existing buffers (of one type) at run time."""
    rng = g.rng
    kinds = [k for k in ALIAS_KINDS if g.chance(0.006, "alias_" + k)]
    if not kinds:
        return
    kind = kinds[0]
    cands = [r for r in g.readable if _castable(r)]
    first = _pick(g, cands, 0.4)
    same = [c for c in cands if c.rank == first.rank]
    two = kind != "call" or _coin(rng, 0.4)
    alts = (first, rng.choice(same)) if two and rng.random() < 0.85 else (first,)
    v = View(g.fresh("a"), first, kind, alts=alts)
    if kind == "iter":
        v.how = rng.choice(["scf", "affine"])
        v.trips = rng.randint(1, 3)
    elif len(alts) == 2 or kind != "call":
        v.cond = g.inputs[0]
    uses = set()
    for a in alts:
        uses |= _ref_uses(a)
    if v.cond is not None:
        uses |= _ref_uses(v.cond)
    g.emit(ViewOp(v), {v.name}, uses)
    g.readable.append(v)
    g.writable.append(v)
    g.use("alias_" + kind)


def _probe_alts(g: _Gen, want_global: bool) -> tuple | None:
    """Two alternatives of one rank for a probe's alias (maybe one buffer twice): buffers or
    get_global views, all initialized; with `want_global` the first is a get_global view (a
    callee can name that storage itself), made here when the program has none yet."""
    rng = g.prng
    cands = [r for r in g.readable if (isinstance(r, Buffer) and r.kind != "global")
             or (isinstance(r, View) and r.kind == "get_global")]
    if want_global:
        globs = [r for r in cands if isinstance(r, View)]
        if not globs:
            rank = rng.randint(1, 2)
            shape = tuple(g.dom[:rank]) if rng.random() < 0.75 else tuple(rng.choice(g.extents) for _ in range(rank))
            glob = Buffer(g.fresh("g"), rank, "global", shape, init=rng.choice(_small_values(g)))
            g.globals.append(glob)
            g.emit(GlobalOp(glob), {glob.name}, ())
            v = View(g.fresh("gg"), glob, "get_global")
            g.emit(ViewOp(v), {v.name}, {glob.name})
            g.readable.append(v)
            g.writable.append(v)
            globs = [v]
            cands.append(v)
        first = rng.choice(globs)
    elif cands:
        first = cands[-1] if rng.random() < 0.4 else rng.choice(cands)
    else:
        return None
    same = [c for c in cands if c.rank == first.rank]
    second = first if rng.random() < 0.25 else rng.choice(same)
    if not want_global and rng.random() < 0.5:
        first, second = second, first
    return first, second


def _probe_write_kinds(g: _Gen, through_alias: bool, alias: View) -> list:
    """The write kinds a probe may use here: vector stores and calls only where their knobs
    allow; a copy into the alias only when its alternatives are one buffer (one run-time
    shape)."""
    kinds = ["loop", "scf_if", "memref_store", "copy"]
    if g.cfg.allows("vector"):
        kinds.append("vector_store")
    if g.cfg.allows("call"):
        kinds.append("call")
    if through_alias and alias.dynamic_alias:
        kinds.remove("copy")
    return kinds


def _maybe_probe(g: _Gen) -> None:
    """Store-to-load forwarding bait (issue 22, `model.Probe`): a store through a select or
    scf.if alias, 1-2 writes of `PROBE_WRITES` kinds to a buffer it may be, a reload through the
    alias, the reloaded value stored in an output of its own; in straight-line code or in an
    affine.for body, sometimes in a private function the alias is passed to, sometimes with
    the store traced and the writes through the alias. Every draw is from the side stream."""
    rng = g.prng
    if not (g.cfg.allows("alias_select") or FORWARD_CLASSES & g.cfg.force):
        return
    origins = [k for k in ("select", "if", "callee") if g.chance(0.004, "forward_" + k, rng)]
    if not origins:
        return
    origin = origins[0]
    if origin == "callee" and not g.cfg.allows("call"):
        return
    callee = origin == "callee"
    alts = _probe_alts(g, callee)
    if alts is None:
        return
    kind = "select" if origin == "select" else "if" if origin == "if" else rng.choice(["select", "if"])
    alias = View(g.fresh("fw"), alts[0], kind, alts=alts, cond=g.inputs[0])
    g.emit(ViewOp(alias), {alias.name}, _ref_uses(alts[0]) | _ref_uses(alts[1]) | _ref_uses(g.inputs[0]))
    g.readable.append(alias)
    g.writable.append(alias)
    traced = g.chance(0.3, "forward_traced", rng)
    in_loop = g.chance(0.5, "forward_in_loop", rng)
    # what a callee can name besides its argument: the global alternative
    targets = [a for a in alts if not callee or isinstance(a, View)]
    ref = rng.choice(targets) if traced else alias
    trips = rng.randint(2, 4) if in_loop else 1
    dim = rng.randrange(alias.rank)
    # constant subscripts; the IV's gets an offset only where shifts are allowed
    at = tuple(0 if in_loop and d == dim and not g.cfg.allows("shift") else rng.randint(0, 1)
               for d in range(alias.rank))
    value, *others = [g.constant(v) for v in rng.sample(_small_values(g), 3)]
    writes = []
    for _ in range(1 if rng.random() < 0.6 else 2):
        wref = alias if traced else rng.choice(targets)
        wkind = rng.choice(_probe_write_kinds(g, traced, alias))
        w = ProbeWrite(wkind, wref, others[len(writes) % 2])
        if wkind == "vector_store":
            w.width = g.vector_width
            w.back = rng.randint(0, min(w.width - 1, at[-1]))
        elif wkind == "call":
            w.callee = g.fresh("fwr")
        writes.append(w)
    out = Buffer(f"out{len(g.outputs)}", 1, "output", (trips,))
    g.outputs.append(out)
    g.written_outputs.add(out.name)
    probe = Probe(alias, ref, at, value, writes, out, g.fresh("fwd") if callee else "", trips, dim)
    uses = _ref_uses(alias) | {out.name}
    for a in alts:
        uses |= _ref_uses(a)
    defines = {probe.callee} if callee else set()
    defines |= {w.callee for w in writes if w.callee}
    g.emit(probe, defines, uses)
    g.use("forward_" + origin)
    if traced:
        g.use("forward_traced")
    if in_loop:
        g.use("forward_in_loop")


def _maybe_iv_nest(g: _Gen) -> None:
    """Issue 33: a placed buffer T whose init nest stores a loop counter as data (`T[i] = i`, or at
    depth `T[i, j] = j` or `i`: the counter itself into an index buffer, or through
    arith.index_cast), then a nest over the same trip counts that reads T, reversed
    (`T[n - 1 - i]`, which no interchange aligns) or transposed (`T[j, i]`), beside an input read
    in its own order, into an output of its own: fusion refuses the pair for its negative
    distance and, on cpu, tries the recompute rescue with a producer whose counter is not only
    an index. T has no other reader."""
    rng = g.qrng
    if not (g.cfg.allows("placed") or "iv_data" in g.cfg.force) or not g.chance(0.0, "iv_data", rng):
        return
    rank = rng.choice([1, 2, 2]) if g.cfg.max_depth >= 2 else 1
    n = g.dom[0] if rng.random() < 0.5 else rng.choice(g.extents)
    index = _coin(rng, 0.5)  # the counter itself in an index buffer, else index_cast to data
    buf = Buffer(g.fresh("t"), rank, "alloc", (n,) * rank, elem="index" if index else None)
    g.emit(AllocOp(buf), {buf.name}, ())
    loops = [Loop(0, ("shape", buf, d)) for d in range(rank)]
    level = rank - 1 if rank == 1 or rng.random() < 0.6 else 0
    terms: list = [("iv", level)]
    if not index and _coin(rng, 0.3):
        terms.append(("const", g.constant(rng.choice(_small_values(g)))))
    compute = Compute(terms, [rng.choice(["add", "sub"]) for _ in terms[1:]])
    nest = Nest("init", loops, Access(buf, tuple(Idx(d) for d in range(rank))), compute, creates=buf)
    g.emit(nest, {buf.name + "!init"}, {buf.name} | _compute_uses(compute))
    g.use("placed")
    g.use("iv_data")
    out = _new_arg(g, "output", (n,) * rank)
    # transposed, or reversed along a dim (no interchange aligns that: the rescue left is recompute)
    rev = Idx(0, -1, n - 1)
    reads = [(Idx(0),), (rev,), (rev,)] if rank == 1 else [(rev, Idx(1))]
    if rank == 2 and g.cfg.allows("transpose") and g.cfg.allows("partition_dim"):
        reads += [(Idx(1), Idx(0)), (Idx(1), Idx(0)), (Idx(1), rev)]
    read = Access(buf, rng.choice(reads))
    if read.idx[0].var == 1:
        g.use("transpose")
        g.use("partition_dim")  # dim 0 follows the inner loop
    # and an input read in the nest's own order, as transpose_consumer's: interchanging the nest
    # to align it with T's producer would walk that one across its rows
    other = _new_arg(g, "input", (n,) * rank)
    terms = [("load", read), ("load", Access(other, tuple(Idx(d) for d in range(rank))))]
    compute = Compute(terms, [rng.choice(["add", "sub"]) for _ in terms[1:]])
    consumer = Nest("map", [Loop(0, n) for _ in range(rank)], Access(out, tuple(Idx(d) for d in range(rank))), compute)
    g.emit(consumer, (), _nest_uses(consumer))


def _maybe_product(g: _Gen) -> None:
    """Issue 33's products (`model.Product`), one class per product: `big_panel` (its ops around
    the column loop too), `generated_names`, `row_init`, `around_product`."""
    rng = g.qrng
    kinds = [f for f in PRODUCT_CLASSES if g.chance(0.0, f, rng)]
    if kinds:
        _gen_product(g, kinds[0])


def _new_arg(g: _Gen, kind: str, shape: tuple) -> Buffer:
    """A new function argument of `shape`: kind input or output (written by the caller's nest)."""
    group = g.inputs if kind == "input" else g.outputs
    b = Buffer(f"{'in' if kind == 'input' else 'out'}{len(group)}", len(shape), kind, shape)
    group.append(b)
    if kind == "output":
        g.written_outputs.add(b.name)
    return b


def _gen_product(g: _Gen, kind: str) -> None:
    rng = g.qrng
    if kind == "big_panel":
        m, (k, n) = rng.randint(2, 3 if g.cfg.element_type == "f32" else 2), BIG_PANEL
    elif kind == "generated_names":
        m, k, n = rng.randint(2, 4), rng.choice([4, 8, 16]), DECOY_COLS
    else:
        m, k, n = rng.randint(2, 6), rng.randint(2, 8), rng.choice([8, 16, 24, 32, 40])
    bt = kind in ("row_init", "around_product") and _coin(rng, 0.25)
    a = _new_arg(g, "input", (m, k))
    tag = g.fresh("mm")
    p = Product(a, None, _new_arg(g, "output", (m, n)), m, n, k, bt=bt, tag=tag)
    uses = {a.name, p.c.name}
    if kind == "generated_names":
        uses |= _constant_operand(g, p)
    else:
        p.b = _new_arg(g, "input", (n, k) if bt else (k, n))
        uses.add(p.b.name)
    around = kind in ("big_panel", "around_product") or _coin(rng, 0.4)
    if around:
        p.before = ("read_c",) + (("read_e",) if _coin(rng, 0.5) else ())
        p.after = ("write_d",) + (("write_c",) if _coin(rng, 0.3) else ())
        p.cols = tuple(rng.randint(0, 2) for _ in range(3))
        p.d = _new_arg(g, "output", (m,))
        uses.add(p.d.name)
        if "read_e" in p.before:
            p.e = _new_arg(g, "input", (m,))
            uses.add(p.e.name)
        g.use("around_product")
    if kind == "row_init" or (g.may("row_init") and _coin(rng, 0.1)):
        p.row_init = "max" if rng.random() < 0.75 else "sum"
        p.r = _new_arg(g, "output", (m,))
        uses.add(p.r.name)
        g.use("row_init")
    if g.cfg.allows("iv_data") and ("iv_data" in g.pending or _coin(rng, 0.2)):
        p.iv = True
        g.use("iv_data")
    g.emit(p, set(), uses)
    g.use(kind)
    if kind != "big_panel":  # later nests may read and write what it wrote (not the 4160 columns)
        for b in (p.c, p.d, p.r):
            if b is not None:
                g.readable.append(b)
                g.writable.append(b)


def _maybe_contraction(g: _Gen) -> None:
    """Issue 35: a contraction nest (`model.Contraction`) into an output of its own."""
    if g.chance(0.0, "contraction", g.crng):
        _gen_contraction(g)


def _contraction_shape(rng: random.Random, kind: str) -> tuple:
    """(par, red, xsub, wsub, x shape, w shape) of one contraction; loops are numbered over par
    then red. A trip count is 1 (a unit loop) three times in ten."""
    def trip(choices):
        return 1 if _coin(rng, 0.3) else rng.choice(choices)

    stride = rng.choice([1, 1, 1, 2, 2, 3])
    if kind == "batched":  # O[b, m, n] += A[b, m, k..] * B[b, k.., n]
        par = (trip([2, 3]), trip([2, 3, 5, 8]), trip([4, 8, 16, 17, 24, 33]))
        red = tuple(trip([2, 3, 4, 8, 16]) for _ in range(rng.choice([1, 1, 2])))
        ks = tuple(((3 + d, 1),) for d in range(len(red)))
        xsub = (((0, 1),), ((1, 1),)) + ks
        wsub = (((0, 1),),) + ks + (((2, 1),),)
        return par, red, xsub, wsub, (par[0], par[1]) + red, (par[0],) + red + (par[2],)
    spatial = rng.choice([1, 2])
    outs = tuple(trip([4, 8, 16, 17, 28]) if d == spatial - 1 else trip([2, 3, 5]) for d in range(spatial))
    window = tuple(trip([2, 3, 4]) for _ in range(spatial))
    channels = trip([2, 3, 4, 8])  # output channels (and input channels of depthwise / pooling)
    par = (channels,) + outs
    red = ((trip([2, 3, 4, 8]),) if kind == "conv" else ()) + window
    first_window = len(par) + (1 if kind == "conv" else 0)
    rows = tuple(((1 + d, stride), (first_window + d, 1)) for d in range(spatial))
    xrows = tuple((o - 1) * stride + k for o, k in zip(outs, window))
    wins = tuple(((first_window + d, 1),) for d in range(spatial))
    if kind == "conv":  # O[f, oh, ow] += X[c, s*oh + kh, s*ow + kw] * W[f, c, kh, kw]
        xsub = (((len(par), 1),),) + rows
        return par, red, xsub, (((0, 1),), ((len(par), 1),)) + wins, (red[0],) + xrows, (channels, red[0]) + window
    xsub = (((0, 1),),) + rows  # depthwise / pooling: X[f, s*oh + kh, ...]
    wshape = (channels,) + window if kind == "depthwise" else None
    return par, red, xsub, (((0, 1),),) + wins, (channels,) + xrows, wshape


def _gen_contraction(g: _Gen) -> None:
    """A convolution (3x3-like, 1x1 when its window loops are unit loops, strided), a depthwise
    convolution, a pooling window or a batched product with one or two reduction loops, in
    the lowering's memory form (any loop order) or with its reductions carried in iter_args; a
    fill of the output before it, or the caller's values as its init."""
    rng = g.crng
    kind = rng.choice(CONTRACTION_KINDS)
    while True:
        par, red, xsub, wsub, xshape, wshape = _contraction_shape(rng, kind)
        if _product(par + red) <= CONTRACTION_ITERATIONS:
            break
    x = _new_arg(g, "input", xshape)
    w = _new_arg(g, "input", wshape) if wshape is not None else None
    o = _new_arg(g, "output", par)
    loops = list(range(len(par) + len(red)))
    form = "carried" if _coin(rng, 0.35) else "memory"
    order = tuple(loops)
    if form == "memory" and _coin(rng, 0.3):  # the lowering's order permuted (reduction loops outside some parallel ones)
        order = tuple(rng.sample(loops, len(loops)))
    c = Contraction(o, x, w, par, red, order, xsub, wsub if w is not None else (),
                    kind="max" if kind == "pool" else "sum", form=form, family=kind, tag=g.fresh("cv"))
    if _coin(rng, 0.5):
        c.fill = rng.choice(_small_values(g))
        c.fill_name = g.constant(c.fill)
    uses = {x.name, o.name} | ({w.name} if w is not None else set())
    g.emit(c, set(), uses)
    g.use("contraction")
    g.readable.append(o)
    g.writable.append(o)


def _maybe_codegen_rows(g: _Gen) -> None:
    """A transposing copy or a loss over rows (`model.TransposeCopy`, `model.RowLoss`), each into
    outputs of its own, when owed (CLASS_RATES; the draws from the side stream `rrng`)."""
    if g.chance(0.0, "transpose_copy", g.rrng):
        _gen_transpose_copy(g)
    if g.chance(0.0, "row_loss", g.rrng):
        _gen_row_loss(g)


def _gen_transpose_copy(g: _Gen) -> None:
    """`dst[j, i] = src[i, j]` in either loop order: into a placed buffer read back into an
    output, into an output, or (one in eight) in place in a square output."""
    rng = g.rrng
    rows, cols = rng.choice(TRANSPOSE_EXTENTS), rng.choice(TRANSPOSE_EXTENTS)
    tag = g.fresh("tp")
    if _coin(rng, 0.125):
        dst = _new_arg(g, "output", (rows, rows))
        c = TransposeCopy(dst, dst, rows, rows, j_outer=_coin(rng, 0.5), tag=tag)
        g.emit(c, set(), {dst.name})
    else:
        src = _new_arg(g, "input", (rows, cols))
        if _coin(rng, 0.6):
            dst = Buffer(g.fresh("tq"), 2, "alloc", (cols, rows))
            g.emit(AllocOp(dst), {dst.name}, ())
            out = _new_arg(g, "output", (cols, rows))
        else:
            dst, out = _new_arg(g, "output", (cols, rows)), None
        c = TransposeCopy(src, dst, rows, cols, j_outer=_coin(rng, 0.5), out=out, tag=tag)
        g.emit(c, set(), {src.name, dst.name} | ({out.name} if out is not None else set()))
        if dst.placed:
            g.use("placed")
    g.use("transpose_copy")


def _gen_row_loss(g: _Gen) -> None:
    """A loss over 2-4 rows of a length in LOSS_COLS, as the lowering's nests or in one row loop:
    o an output (its first stores overwritten) or a placed buffer (only the gathered element
    read); the second reduction a sum or a maximum."""
    rng = g.rrng
    rows, cols = rng.randint(2, 4), rng.choice(LOSS_COLS)
    x = _new_arg(g, "input", (rows, cols))
    placed = []
    if _coin(rng, 0.4):
        o = Buffer(g.fresh("lo"), 2, "alloc", (rows, cols))
        placed.append(o)
    else:
        o = _new_arg(g, "output", (rows, cols))
    l = _new_arg(g, "output", (rows,))  # noqa: E741
    m, s = Buffer(g.fresh("lm"), 1, "alloc", (rows,)), Buffer(g.fresh("ls"), 1, "alloc", (rows,))
    for b in placed + [m, s]:
        g.emit(AllocOp(b), {b.name}, ())
    c = RowLoss(x, o, l, m, s, rows, cols, rng.randrange(cols), sum=_coin(rng, 0.6), fused=_coin(rng, 0.3),
                tag=g.fresh("rl"))
    g.emit(c, set(), {x.name, o.name, l.name, m.name, s.name})
    g.use("placed")
    g.use("row_loss")


def _constant_operand(g: _Gen, p: Product) -> set:
    """B of a `generated_names` product: a constant global read through get_global, or a placed
    buffer its transposing copy fills (constant_copies folds that); and the decoys, globals named
    as the steps would name the packed panels, the folded copy and exp's table."""
    rng = g.qrng
    value = rng.choice(_small_values(g))
    other = rng.choice([v for v in _small_values(g) if v != value])
    copy = all(g.cfg.allows(f) for f in ("placed", "transpose", "partition_dim")) and _coin(rng, 0.5)
    src = Buffer(g.fresh("w"), 2, "global", (p.n, p.k) if copy else (p.k, p.n), init=value, constant=True)
    g.emit(GlobalOp(src), {src.name}, ())
    view = View(g.fresh("gg"), src, "get_global")
    g.emit(ViewOp(view), {view.name}, {src.name})
    elem = g.cfg.element_type
    if copy:
        t = Buffer(g.fresh("t"), 2, "alloc", (p.k, p.n))
        g.emit(AllocOp(t), {t.name}, ())
        loops = [Loop(0, ("shape", t, d)) for d in range(2)]
        nest = Nest("init", loops, Access(t, (Idx(0), Idx(1))),
                    Compute([("load", Access(view, (Idx(1), Idx(0))))], []), creates=t)
        g.emit(nest, {t.name + "!init"}, {t.name, view.name})
        for f in ("placed", "transpose", "partition_dim"):
            g.use(f)
        p.b, p.copy_of = t, src
        folded = f"{src.name}_folded"
        p.decoys.append((f"{folded}0", (p.k, p.n), other, elem))
        names = [f"{folded}{j}_panels{w}" for j in (0, 1) for w in PANEL_WIDTHS]
    else:
        p.b = view
        names = [f"{src.name}_panels{w}" for w in PANEL_WIDTHS]
    for name in names:
        w = int(name.rsplit("panels", 1)[1])
        p.decoys.append((name, (p.n // w, p.k, w), other, elem))
    uses = {view.name} | _ref_uses(p.b)
    if not g.expf_decoy:
        g.expf_decoy = True
        p.decoys.append((EXPF_TABLE, (32,), rng.randint(-3, 3), "i64"))
        p.x, p.ox = _new_arg(g, "input", (8,)), _new_arg(g, "output", (8,))
        uses |= {p.x.name, p.ox.name}
    p.o = _new_arg(g, "output", (len(p.decoys),))
    return uses | {p.o.name}


def probe_classes(model: Program) -> set:
    """The issue 22 classes a program's probes exercise: `forward_*` features and `write:KIND`
    for each kind of write between a store and its reload (the fuzz command counts these)."""
    out = set()
    for st in walk_stmts(model.stmts):
        p = st.what
        if isinstance(p, Probe):
            out.add("forward_callee" if p.callee else f"forward_{p.alias.kind if p.alias.kind == 'if' else 'select'}")
            if p.trips > 1:
                out.add("forward_in_loop")
            if p.traced:
                out.add("forward_traced")
            out |= {f"write:{w.kind}" for w in p.writes}
    return out


def _maybe_reshape(g: _Gen) -> None:
    bases = [r for r in g.readable if isinstance(r, Buffer) and r.kind != "global"]
    if not bases or not g.chance(0.006, "reshape"):
        return
    base = _pick(g, bases, 0.5)
    v = View(g.fresh("rs"), base, "reshape", dynamic=(_coin(g.rng, 0.5),))
    g.emit(ReshapeOp(v), {v.name}, _ref_uses(base))
    g.readable.append(v)
    g.writable.append(v)
    g.use("reshape")


def _maybe_blocks(g: _Gen) -> None:
    """Split the function into blocks: a plain `cf.br`, or a `cf.cond_br` diamond around nests."""
    if not g.chance(0.01, "multi_block"):
        return
    if _coin(g.rng, 0.5):
        g.emit(BlockSplit(g.fresh("bb")))
    else:
        _gen_region(g, "cf_if")
    g.use("multi_block")


_REGION_WEIGHTS = {"scf_while": 5, "cf_loop": 4, "scf_for": 3, "affine_for": 3, "affine_iter": 3, "scf_if": 2}


def _maybe_region(g: _Gen) -> None:
    owed = {"carried_index", "alloc_outside"} & g.pending
    if not (g.chance(0.012, "outer_loop") or (owed and g.cfg.allows("outer_loop"))):
        return
    kinds = dict(_REGION_WEIGHTS)
    if "carried_index" in g.pending and g.cfg.allows("carried_index"):
        kinds = {k: w for k, w in kinds.items() if k in CARRIED_REGIONS}
    if "alloc_outside" in g.pending:
        kinds = {"scf_while": 1, "cf_loop": 1}
    if not g.cfg.allows("multi_block"):
        kinds.pop("cf_loop", None)
    kind = g.rng.choices(list(kinds), weights=list(kinds.values()))[0]
    _gen_region(g, kind)


def _gen_region(g: _Gen, kind: str) -> None:
    """Statements in a loop or conditional region. With alloc_outside owed (scf.while / cf loops):
    a placed buffer from outside is read, rewritten and read again in each trip."""
    rng = g.rng
    region = Region(kind, g.fresh("r"), 1 if kind in ("scf_if", "cf_if") else rng.randint(2, 3), [])
    if kind in ("scf_if", "cf_if"):
        region.cond = g.inputs[0]
    placed_outside = [r for r in g.readable if isinstance(r, Buffer) and r.placed]
    carry = kind in ("scf_while", "cf_loop") and g.cfg.allows("placed") and g.chance(0.4, "alloc_outside")
    if carry and not placed_outside:
        _gen_init_nest(g)
        placed_outside = [r for r in g.readable if isinstance(r, Buffer) and r.placed]
    saved = (g.stmts, list(g.readable), list(g.writable), list(g.scalars))
    g.stmts, g.region, g.bait = region.body, region, None
    if carry:
        t = _pick(g, placed_outside, 0.7)
        _gen_nest(g, 99, read_ref=t)
        _gen_nest(g, 99, dst_ref=t)
        _gen_nest(g, 99, read_ref=t)
    else:
        for _ in range(rng.randint(1, 3)):
            if _coin(rng, 0.4):
                _maybe_between(g)
            _gen_nest(g, 99)
        if region.carried and "carried_index" in g.pending and g.cfg.allows("carried_index"):
            _gen_nest(g, 99, plain=True)
    outside = {id(r) for r in placed_outside}
    if kind in ("scf_while", "cf_loop") and any(
            id(root) in outside for acc in _body_accesses(region.body) for root in acc.ref.roots):
        g.use("alloc_outside")
    g.stmts, g.readable, g.writable, g.scalars = saved
    g.region, g.bait = None, None
    if kind == "cf_loop":
        g.use("multi_block")
    if region.has_counter:
        g.use("outer_loop")
    defines, uses = set(), set()
    for st in walk_stmts(region.body):
        defines |= st.defines
        uses |= st.uses
    if region.cond is not None:
        uses |= _ref_uses(region.cond)
    g.emit(region, (), uses - defines)


def _body_accesses(stmts: list):
    for st in walk_stmts(stmts):
        if isinstance(st.what, Nest):
            for dst, _ in st.what.statements():
                yield dst
            yield from st.what.loads()


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
        _mark_written(g, dst)


def _finish_forced(g: _Gen) -> None:
    """Generate extra statements until every owed feature has appeared (bounded attempts)."""
    if "dealloc" in g.pending and not any(
            isinstance(st.what, AllocOp) and st.what.buf.kind == "alloc" for st in g.stmts):
        _gen_init_nest(g, "alloc")
    if "diagonal" in g.pending and not any(r.rank >= 2 for r in g.writable):
        _gen_init_nest(g, rank=2)
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
        loops = _gen_loops(g, depth, allow_tile=False, allow_symbolic=False, allow_bounds=False)
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
    for st in walk_stmts(prog.stmts):
        w = st.what
        if isinstance(w, Nest):
            used |= _loop_uses(w.loops)
            for t in w.loads():
                used |= {s.semi[1] for s in t.idx if s.semi}
            if w.compute.guard:
                used.add(w.compute.guard[1])
    return used


# ---------------------------------------------------------------- sizing


def _access_need(acc: Access, loops: list, symbols: dict, trips: int = 1, width: int = 1) -> list:
    """Per-dim extent an access needs: largest reachable index + 1 (0 if the loop never runs)."""
    need = []
    for s in acc.idx:
        extra = trips - 1 if s.rv else 0
        if s.var is None:
            top = s.const
        else:
            lp = loops[s.var]
            vmax = _loop_max(symbols, lp, loops)
            if vmax < lp.lo:
                need.append(0)
                continue
            top = max(s.coef * vmax, s.coef * lp.lo) + s.const  # a negative coef reads highest at lo
        if s.semi:
            op, sym = s.semi
            top = min(symbols[sym] - 1, top) if op == "mod" else top
        need.append(top + extra + 1)
    if width > 1 and need and need[-1] > 0:
        need[-1] += width - 1
    return need


def _accesses(prog: Program):
    """(access, loops, region trips, vector width) for every memref access of the program."""
    yield from _stmt_accesses(prog.stmts, 1)


def _stmt_accesses(stmts: list, trips: int):
    for st in stmts:
        w = st.what
        if isinstance(w, Nest):
            for dst, _ in w.statements():
                yield dst, w.loops, trips, w.width
            for t in w.loads():
                yield t, w.loops, trips, w.width
            if w.body_call is not None and w.body_call.kind == "poke":
                yield _poke_access(w.body_call), [], 1, 1
        elif isinstance(w, ScalarOp) and w.kind in ("load", "store"):
            yield Access(w.ref, tuple(Idx(None, 1, c) for c in w.consts)), [], 1, 1
        elif isinstance(w, CallOp) and w.kind == "poke":
            yield _poke_access(w), [], 1, 1
        elif isinstance(w, Probe):
            yield from _probe_accesses(w)
        elif isinstance(w, Product):
            yield from _product_accesses(w)
        elif isinstance(w, (TransposeCopy, RowLoss, Contraction)):
            for ref, last in _last_elements(w):  # the last element each touches
                if ref is not None:
                    yield Access(ref, tuple(Idx(None, 1, n) for n in last)), [], 1, 1
        elif isinstance(w, Region):
            yield from _stmt_accesses(w.body, w.trips)


def _last_elements(w) -> list:
    """(ref, its largest subscripts) of a transposing copy, a loss or a contraction."""
    if isinstance(w, TransposeCopy):
        r, c = w.rows - 1, w.cols - 1
        return [(w.src, (r, c)), (w.dst, (c, r)), (w.out, (c, r))]
    if isinstance(w, RowLoss):
        r, c = w.rows - 1, w.cols - 1
        return [(w.x, (r, c)), (w.o, (r, c)), (w.l, (r,)), (w.m, (r,)), (w.s, (r,))]
    trips = w.trips
    reach = lambda subs: tuple(sum(coef * (trips[k] - 1) for k, coef in terms) for terms in subs)  # noqa: E731
    return [(w.o, tuple(n - 1 for n in w.par)), (w.x, reach(w.xsub)), (w.w, reach(w.wsub))]


def _probe_accesses(p: Probe):
    """(access, loops, trips, width) of a probe: its store and reload, each write's element
    (a vector store's box), and its output."""
    loops = [Loop(0, p.trips)] if p.trips > 1 else []
    idx = tuple(Idx(0, 1, c) if loops and d == p.dim else Idx(None, 1, c) for d, c in enumerate(p.at))
    yield Access(p.ref, idx), loops, 1, 1
    for w in p.writes:
        if w.kind == "vector_store":
            last = replace(idx[-1], const=idx[-1].const - w.back)
            yield Access(w.ref, idx[:-1] + (last,)), loops, 1, w.width
        else:
            yield Access(w.ref, idx), loops, 1, 1
    yield Access(p.out, (Idx(0) if loops else Idx(None, 1, 0),)), loops, 1, 1


def _product_accesses(p: Product):
    """(access, loops, trips, width) of a product: loops i < m, j < n, k < k_ (vars 0, 1, 2)."""
    loops = [Loop(0, p.m), Loop(0, p.n), Loop(0, p.k)]
    const = lambda c: Idx(None, 1, c)  # noqa: E731
    yield Access(p.a, (Idx(0), Idx(2))), loops, 1, 1
    yield Access(p.b, (Idx(1), Idx(2)) if p.bt else (Idx(2), Idx(1))), loops, 1, 1
    yield Access(p.c, (Idx(0), Idx(1))), loops, 1, 1
    for c in (p.cols[0], p.n - 1 - p.cols[1], p.cols[2]):
        yield Access(p.c, (Idx(0), const(c))), loops, 1, 1
    for ref in (p.d, p.e, p.r):
        if ref is not None:
            yield Access(ref, (Idx(0),)), loops, 1, 1
    if p.o is not None:
        yield Access(p.o, (const(p.o.min_shape[0] - 1),)), [], 1, 1
    for ref in (p.x, p.ox):
        if ref is not None:
            yield Access(ref, (const(7),)), [], 1, 1


def _poke_access(op: CallOp) -> Access:
    return Access(op.buf, tuple(Idx(None, 1, c) for c in op.consts))


def size_program(prog: Program) -> None:
    """Resolve buffer and view extents: the fixpoint of 'large enough for every access'.

    Init nests loop over their buffer's shape, so their reads depend on that shape; the
    dependence is acyclic (a buffer is initialized only from earlier ones), so this converges.
    Parameters passed one buffer get one shape.
    """
    bufs, views = _refs(prog)
    groups = _same_shape_groups(prog, bufs, views)
    for b in bufs:
        b.shape = list(b.min_shape)
    for v in views:
        v.shape = list(v.min_shape) if v.kind == "subview" else []
    for v in views:
        if v.kind == "reshape":
            v.shape = [_product(v.of.shape)]
    for _ in range(2 * (len(bufs) + len(views)) + 5):
        need = {id(r): [1] * r.rank for r in bufs + views}
        for acc, loops, trips, width in _accesses(prog):
            n = _access_need(acc, loops, prog.symbols, trips, width)
            cur = need[id(acc.ref)]
            need[id(acc.ref)] = [max(a, b) for a, b in zip(cur, n)]
        changed = False
        for v in reversed(views):  # a view is made only from earlier ones
            vn = need[id(v)]
            if v.kind == "subview":
                new = [max(a, b) for a, b in zip(v.min_shape, vn)]
                if new != v.shape:
                    v.shape, changed = new, True
                vn = [o + s for o, s in zip(v.offsets, v.shape)]
            elif v.kind == "reshape":
                rest = _product(v.of.shape[1:])
                vn = [-(-vn[0] // rest)] + [1] * (v.of.rank - 1)
            targets = v.alts if v.kind in ALIAS_KINDS else (v.of,)
            for t in targets:
                bn = need[id(t)]
                need[id(t)] = [max(a, b) for a, b in zip(bn, vn)]
        new = {id(b): [max(a, c) for a, c in zip(b.min_shape, need[id(b)])] for b in bufs}
        for grp in groups:
            top = [max(dims) for dims in zip(*(new[id(b)] for b in grp))]
            for b in grp:
                new[id(b)] = list(top)
        for b in bufs:
            shape = new[id(b)]
            if b.align > 1 and shape[-1] % b.align:
                shape[-1] += b.align - shape[-1] % b.align
            if shape != b.shape:
                b.shape, changed = shape, True
        for v in views:
            if v.kind == "reshape" and v.shape != [_product(v.of.shape)]:
                v.shape, changed = [_product(v.of.shape)], True
        if not changed:
            return
    raise AssertionError("buffer sizing did not converge")


def _product(dims) -> int:
    out = 1
    for d in dims:
        out *= d
    return out


def _same_shape_groups(prog: Program, bufs: list, views: list) -> list:
    """Groups of storage that must have one shape: parameters passed one buffer, and a placed
    buffer with the twin its init nest also fills."""
    parent = {id(b): b for b in bufs}
    rep = {id(b): id(b) for b in bufs}

    def find(x):
        while rep[x] != x:
            rep[x] = rep[rep[x]]
            x = rep[x]
        return x

    def union(a, b):
        rep[find(id(a))] = find(id(b))

    by_name = {b.name: b for b in bufs}
    for a, b in prog.alias_pairs:
        if a in by_name and b in by_name:
            union(by_name[a], by_name[b])
    for st in walk_stmts(prog.stmts):
        if isinstance(st.what, Nest) and st.what.twin is not None and id(st.what.twin) in rep:
            union(st.what.creates, st.what.twin)
    groups: dict = {}
    for k in parent:
        groups.setdefault(find(k), []).append(parent[k])
    return [grp for grp in groups.values() if len(grp) > 1]


def _refs(prog: Program) -> tuple:
    bufs = list(prog.inputs) + list(prog.outputs)
    views = []
    for st in walk_stmts(prog.stmts):
        w = st.what
        if isinstance(w, (AllocOp, GlobalOp)):
            bufs.append(w.buf)
        elif isinstance(w, (ViewOp, ReshapeOp)):
            views.append(w.view)
        elif isinstance(w, Nest):
            views.extend(w.reshapes)
    return bufs, views


# ---------------------------------------------------------------- shrinking support


def without(prog: Program, drop: set) -> Program:
    """A copy of the model without the statements whose pre-order indices (`walk_stmts` order)
    are in `drop`, and everything that depends on them."""
    removed: set = set()
    counter = [0]
    keep = _without(prog.stmts, drop, removed, counter)
    return replace(prog, stmts=keep)


def _without(stmts: list, drop: set, removed: set, counter: list) -> list:
    keep = []
    for st in stmts:
        k = counter[0]
        counter[0] += 1
        dropped = k in drop or bool(st.uses & removed)
        if isinstance(st.what, Region):
            cond = st.what.cond
            dropped = k in drop or (cond is not None and bool(_ref_uses(cond) & removed))
            if dropped:
                for inner in walk_stmts(st.what.body):
                    counter[0] += 1
                    removed |= inner.defines
                continue
            body = _without(st.what.body, drop, removed, counter)
            keep.append(replace(st, what=replace(st.what, body=body)))
            continue
        if dropped:
            removed |= st.defines
            continue
        keep.append(st)
    return keep


# ---------------------------------------------------------------- hypothesis


def programs(config: GeneratorConfig | None = None):
    """Hypothesis strategy: generated programs; shrinking acts on the generator's random draws."""
    from hypothesis import strategies as st

    return st.randoms(use_true_random=False).map(lambda rng: generate_program(rng, config))
