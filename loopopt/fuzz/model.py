"""The generator's model of a program: buffers, views, loop nests, statements and regions.

The model is what the generator builds, the sizer resolves (buffer extents), the renderer prints
and the shrinker edits. Statements record the names they define and use, so dropping one drops
everything that depends on it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# View kinds that make a new SSA memref from existing ones by an op that is not a view op: the
# result is one of `alts` at run time (which one, only the run knows).
ALIAS_KINDS = ("select", "if", "call", "iter")


@dataclass(eq=False)
class Buffer:
    """Storage: a function argument (input/output), a placed buffer (alloc/alloca) or a global."""

    name: str
    rank: int
    kind: str  # "input" | "output" | "alloc" | "alloca" | "global"
    min_shape: tuple
    shape: list = field(default_factory=list)  # resolved by `size_program`
    align: int = 1  # the last extent is a multiple of this (a vector init nest steps by it)
    init: object = None  # global: the splat initial value
    constant: bool = False  # global: `memref.global ... constant` (never written)
    elem: str | None = None  # its element type when not the program's (`index`: loop counters as data)

    @property
    def placed(self) -> bool:
        return self.kind in ("alloc", "alloca")

    @property
    def base(self) -> "Buffer":
        return self

    @property
    def roots(self) -> tuple:
        return (self,)


@dataclass(eq=False)
class View:
    """A memref made from others.

    cast: `memref.cast` to a dynamic shape; subview: unit-stride `memref.subview`;
    get_global: `memref.get_global` of the global `of`; reshape: `memref.reshape` of `of` to one
    dimension (its shape read from a `memref<1xindex>` at run time); select/if/call/iter: an
    `arith.select`, `scf.if` result, `func.call` result or memref `iter_args` loop result that is
    one of `alts` at run time.
    """

    name: str
    of: object  # Buffer | View: the first (or only) thing this view is made from
    kind: str
    dynamic: tuple = ()  # cast: which dims become `?`; reshape: (True,) for memref<?xT>
    offsets: tuple = ()  # subview: static offsets
    min_shape: tuple = ()
    shape: list = field(default_factory=list)  # subview sizes / reshape extent, set by the sizer
    alts: tuple = ()  # alias kinds: the refs the result may be
    how: str = ""  # iter: "scf" | "affine"
    trips: int = 1  # iter: loop trips (with two alts the result swaps every trip)
    cond: object = None  # select/if/two-alt call: the ref whose element 0 decides (> 0)
    local: bool = False  # reshape: rendered inside the nest that reads it

    @property
    def rank(self) -> int:
        return 1 if self.kind == "reshape" else self.of.rank

    @property
    def base(self) -> Buffer:
        return self.of.base

    @property
    def dynamic_alias(self) -> bool:
        """An alias of two different refs has the fully dynamic type (each is cast to it first)."""
        return self.kind in ALIAS_KINDS and any(a is not self.alts[0] for a in self.alts)

    @property
    def roots(self) -> tuple:
        """Every storage this view may be (several for a select between two buffers)."""
        if self.kind in ALIAS_KINDS:
            out: list = []
            for a in self.alts:
                out.extend(r for r in a.roots if all(r is not o for o in out))
            return tuple(out)
        return self.of.roots


@dataclass(frozen=True)
class Idx:
    """One subscript: `coef * var + const` (+ the region counter when `rv`; coef -1 reverses), or the constant alone
    when var is None. With `semi` = (op, symbol), the subscript is `(coef * var + const) op symbol`
    computed by a semi-affine `affine.apply` (op "mod" or "floordiv")."""

    var: int | None
    coef: int = 1
    const: int = 0
    rv: bool = False
    semi: tuple | None = None


@dataclass(eq=False)
class Loop:
    """One loop of a nest.

    lo: the smallest value the variable can take (an int). hi: an int, a symbol name,
    ("shape", buffer, dim) or ("var", level, c) meaning `%outer_level + c`.
    lb: None (the lower bound is `lo`), ("max", x) meaning `max(lo, x)` with x ("const", c),
    ("sym", name, c) or ("var", level, c), or ("band", level, c) meaning `%outer_level + c`.
    """

    lo: int
    hi: object
    tile: int | None = None  # tiled: outer loop steps by `tile`, inner loop bounded by min
    step: int = 1
    lb: tuple | None = None


@dataclass(eq=False)
class Access:
    ref: object  # Buffer | View
    idx: tuple  # of Idx
    mode: str = "affine"  # "affine" | "memref" (memref.load/store: indices that are not affine)


@dataclass(eq=False)
class Compute:
    """Body arithmetic: fold `terms` left to right with `ops`; terms are loads, scalars, constants
    or a loop counter as data (`arith.index_cast` to i32, then `arith.sitofp` for floats)."""

    terms: list  # ("load", Access) | ("scalar", name) | ("const", value) | ("iv", loop level)
    ops: list  # "add" | "sub" | "mul", one fewer than terms
    invariant: tuple | None = None  # (op, scalar a, const b): an in-body loop-invariant op folded in last
    guard: tuple | None = None  # (op, symbol, k, t, a, b): affine.if (k op s - t >= 0) yields a, else b


@dataclass(eq=False)
class CallOp:
    """A call of a private helper that updates `buf`.

    kind rewrite: every element b = b * scale + bias; poke: element `consts` only (b + bias).
    mode ranked: passes `buf`; unranked: passes `memref.cast buf` to memref<*xT> (the helper
    casts back); global: passes nothing (`buf` is a global the helper gets with get_global).
    """

    callee: str
    buf: object
    scale: float
    bias: float
    kind: str = "rewrite"
    mode: str = "ranked"
    consts: tuple = ()


@dataclass(eq=False)
class Nest:
    """A loop nest writing `dst`. kind: init | map | reduce_iter | reduce_acc."""

    kind: str
    loops: list
    dst: Access
    compute: Compute
    init_scalar: str | None = None  # reduce_iter: accumulator start value (scalar or const name)
    creates: Buffer | None = None  # init: the placed buffer this nest initializes
    width: int = 1  # > 1: vector nest (innermost loop steps by width, vector loads/stores)
    reshapes: list = field(default_factory=list)  # local reshape views made in the innermost body
    body_call: CallOp | None = None  # a call in the innermost body
    call_first: bool = False  # the body call comes before the loads
    extra: list = field(default_factory=list)  # (Access, Compute): more stores after the first
    twin: Buffer | None = None  # init: a second placed buffer of the same shape it also fills

    def statements(self) -> list:
        """(destination, computation) of each store of the body, in order."""
        return [(self.dst, self.compute)] + list(self.extra)

    def loads(self) -> list:
        return [t for _, c in self.statements() for kind, t in c.terms if kind == "load"]


@dataclass(eq=False)
class Stmt:
    """One statement with what it defines and uses (names), for shrinking."""

    what: object
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
class GlobalOp:
    """A module-level `memref.global` (the kernel reaches it through get_global views)."""

    buf: Buffer


@dataclass(eq=False)
class ReshapeOp:
    """`memref.reshape` at statement level: the shape buffer first holds 1, then a one-trip loop
    stores the real extent, then the reshape reads it."""

    view: View


@dataclass(eq=False)
class BlockSplit:
    """`cf.br ^label` and a new block: later statements are in another block."""

    label: str


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


# Kinds of write a forwarding probe puts between its store and its reload (issue 22).
PROBE_WRITES = ("loop", "scf_if", "memref_store", "vector_store", "copy", "call")


@dataclass(eq=False)
class ProbeWrite:
    """One write between a probe's store and its reload, through `ref`, of the probed element:
    loop: an affine.for storing `value` along the whole last dim; scf_if: an affine.store in an
    scf.if (taken when the kernel's first input is > 0 at its first element; always in a
    callee); memref_store; vector_store: an affine.vector_store of `width` lanes whose box
    starts `back` elements before the element; copy: memref.copy of a constant global (every
    element becomes `value`); call: a private function `callee` that stores the element."""

    kind: str
    ref: object  # Buffer | View written
    value: str  # constant name
    callee: str = ""
    width: int = 1
    back: int = 0


@dataclass(eq=False)
class Probe:
    """Store-to-load forwarding bait (issue 22): `ref[at] = value`, then `writes`, then
    `%r = ref[at]` and `out[k] = %r`.

    `alias` is a memref of untraced origin (a select or scf.if View of `alts`). The store and
    reload go through it and the writes through its alternatives, or (`ref` is one of the
    alternatives: the store is traced) the writes go through the alias. With `callee`, it all
    runs in a private function that receives the alias as its argument (and reaches a global
    alternative through get_global). With `trips` > 1 it runs in an affine.for over k, and
    subscript `dim` of `at` is k + at[dim]."""

    alias: View
    ref: object
    at: tuple  # constant subscripts
    value: str  # constant name
    writes: list
    out: Buffer  # rank 1, `trips` elements: the reloaded values
    callee: str = ""
    trips: int = 1
    dim: int = 0

    @property
    def traced(self) -> bool:
        return self.ref is not self.alias


# What a product's row loop does around its column loop (issue 33, `Product.around`).
AROUND_BEFORE = ("read_c", "read_e")  # loads before P: C[i, c] (what P overwrites), E[i]
AROUND_AFTER = ("write_d", "write_c")  # after P: D[i] = D[i] + C[i, last] + the values read before; C[i, c] = ...


@dataclass(eq=False)
class Product:
    """A matrix product nest (issue 33's shapes):

        Q: for i < m { before; P: for j < n [iter_args(r = R[i])] {
             R: s = for k < k_ [iter_args(acc = 0)] { acc + A[i, k] * B[k, j] }   (B[j, k]: `bt`)
             C[i, j] = s [+ j as data];  r = max(r, s) or r + s }
           [R[i] = r]; after }

    `before`/`after` (AROUND_BEFORE/AFTER kinds, with the columns in `cols`) read and write C
    and the other buffers in the row loop: a column-blocked register tile must not copy them
    into each block. `row_init` ("max" | "sum"): P also carries a row reduction that starts
    from R[i], loaded in the row loop (as torch's lowering reduces into an existing output).
    `iv`: the stored value adds P's counter as data. `decoys`: globals named as loopopt's
    steps name what they create (`@<B>_panels<P>`, `@<B>_folded0`, `@loopopt_expf_table`),
    holding something else, each read into `o` (exp's table also in a loop: `ox[e] = exp(x[e]) +
    table[e]`, exp for floats).
    `copy_of`: B is a placed buffer filled from this constant global, transposed (a folded
    copy's source)."""

    a: object  # Buffer | View: m x k
    b: object  # Buffer | View: k x n (n x k with bt)
    c: Buffer  # m x n
    m: int
    n: int
    k: int
    bt: bool = False
    before: tuple = ()
    after: tuple = ()
    cols: tuple = (0, 0, 0)  # C's column read before, read after (from the last), written after
    d: Buffer | None = None  # rank 1, m
    e: object = None  # rank 1, m (read_e)
    row_init: str | None = None
    r: Buffer | None = None  # rank 1, m
    iv: bool = False
    decoys: list = field(default_factory=list)  # (name, shape, splat value, element type)
    o: Buffer | None = None  # rank 1: one element per decoy
    x: Buffer | None = None  # rank 1, 8: the exp loop's input
    ox: Buffer | None = None  # rank 1, 8: the exp loop's output
    copy_of: Buffer | None = None  # a constant global n x k (B = its transpose)
    tag: str = ""


# Region kinds whose counter is a loop-carried value (not a valid affine dim): accesses that use
# it are memref.load/store.
CARRIED_REGIONS = ("scf_for", "scf_while", "cf_loop", "affine_iter")
LOOP_REGIONS = ("affine_for",) + CARRIED_REGIONS
COND_REGIONS = ("scf_if", "cf_if")


@dataclass(eq=False)
class Region:
    """Statements run `trips` times by an enclosing loop, or once if a condition holds.

    affine_for: `affine.for`; scf_for: `scf.for`; scf_while: `scf.while` with a counter;
    cf_loop: a loop of blocks (cf.br / cf.cond_br); affine_iter: `affine.for` whose index
    iter_arg is the counter; scf_if / cf_if: run if `cond`'s element 0 is > 0. The counter
    (0 .. trips-1) is `%name`. Names defined inside are not visible after the region.
    """

    kind: str
    name: str
    trips: int
    body: list
    cond: object = None

    @property
    def carried(self) -> bool:
        return self.kind in CARRIED_REGIONS

    @property
    def has_counter(self) -> bool:
        return self.kind in LOOP_REGIONS


@dataclass(eq=False)
class Contraction:
    """A contraction nest as `convert-linalg-to-affine-loops` writes convolutions, pooling and
    batched products (issue 35): parallel loops of trip counts `par` and reduction loops of trip
    counts `red` (1 for a unit loop), numbered 0.. over par then red, nested in `order`;

        O[p0, p1, ...] = O[...] + X[xsub] * W[wsub]      (kind "sum"; without W: + X[xsub])
        O[p0, p1, ...] = max(O[...], X[xsub])            (kind "max": pooling)

    Each subscript of X and W is a tuple of (loop number, coefficient) terms (a strided
    convolution's input row: ((oh, 2), (kh, 1))). Form "memory": the innermost statement loads
    O, updates and stores it (the lowering's form; any loop order). Form "carried": the
    parallel loops outside in order, then the reduction loops inside, each carrying the running
    value in iter_args from O's element, stored once after them. `fill`: a nest before it stores
    this value into all of O (linalg.fill)."""

    o: Buffer
    x: Buffer
    w: Buffer | None
    par: tuple
    red: tuple
    order: tuple
    xsub: tuple
    wsub: tuple
    kind: str = "sum"
    form: str = "memory"
    fill: object = None
    fill_name: str | None = None  # the constant's SSA name (a program constant)
    family: str = "conv"  # generator.CONTRACTION_KINDS: conv | depthwise | pool | batched
    tag: str = ""

    @property
    def trips(self) -> tuple:
        return tuple(self.par) + tuple(self.red)


@dataclass(eq=False)
class TransposeCopy:
    """A transposing copy (docs/cpu_codegen.md section 22):

        for i < rows { for j < cols { dst[j, i] = src[i, j] } }    (`j_outer`: the j loop outside)

    then, when `out` is set, `out[j, i] = dst[j, i] + out[j, i]` over the same loops (a placed
    dst is read back). Trip counts are mostly multiples of the vector tile (8 or 16 lanes);
    `src is dst` (square): an in-place transpose, which must not be tiled."""

    src: object  # Buffer: rows x cols
    dst: Buffer  # cols x rows
    rows: int
    cols: int
    j_outer: bool = False
    out: Buffer | None = None  # cols x rows
    tag: str = ""


@dataclass(eq=False)
class RowLoss:
    """A loss over rows as torch-mlir lowers log-softmax and its gather (section 23), its
    reductions in memory as linalg's lowering keeps them:

        M[i] = x[i, 0];  for j { M[i] = max(M[i], x[i, j]) }
        for j { o[i, j] = f(x[i, j] - M[i]) }                 f: exp (floats) or * 2 (i32)
        S[i] = 0;  for j { S[i] = S[i] + o[i, j] or max(S[i], o[i, j]) }   reads what the loop before wrote
        for j { o[i, j] = x[i, j] - M[i] - g(S[i]) }          g: log of a float sum, else S itself; the
                                                              exp loop's stores are overwritten
        l[i] = o[i, t]                                        the gathered element (a constant column)

    each step in a loop over the rows of its own (`fused` False: the lowering's nests) or all in
    one row loop. `o` is an output or a placed buffer (then only the gather reads it); M and S
    are placed; `sum`: S is a sum (a maximum otherwise)."""

    x: Buffer  # rows x cols
    o: Buffer  # rows x cols
    l: Buffer  # rows
    m: Buffer  # rows (placed)
    s: Buffer  # rows (placed)
    rows: int
    cols: int
    t: int
    sum: bool = True
    fused: bool = False
    tag: str = ""


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
    alias_pairs: list = field(default_factory=list)  # (a, b) parameter names: b gets a's buffer
    plain_call_first: bool = False  # with alias_pairs: call the body once without aliasing first


def walk_stmts(stmts: list):
    """Every statement, regions' bodies included (pre-order)."""
    for st in stmts:
        yield st
        if isinstance(st.what, Region):
            yield from walk_stmts(st.what.body)
