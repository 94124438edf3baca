"""The step table: the one place a step of loopopt's pipeline exists, as LLVM's PassRegistry.def.

A row names a step once. Its name is the `--passes` name, the pass of its remarks, its `--timing`
row and its IR-dump header; the row gives its function (`run(fn, ctx)`, loopopt/step.py), the
targets it runs on, whether and when it runs by default, what its explained form adds, and the
finaliser the driver runs once per module after it. The driver runs the rows in this order;
`--passes` resolves names against them (its error text lists them), `--print-pipeline` prints the
default pipeline for a target, and docs/pipeline.md's table is written from them
(tests/test_pipeline.py checks that the docs agree). A new step is one row plus its module.

The order is the seed's run(): fusion per block of every function (distribution, GCD tiling and
interchange inside it, as rescues of refused pairs), contraction of fused intermediates, on the
cpu target the cost model's steps, LICM module-wide after all fusion, on the cpu target its code
generation, and cleanup. Each step runs over every function before the next one starts.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from .codegen.cpu import (block_transposes, cache_tile, constant_lanes, checks_first, dead_stores, deinterleave_strided, flat_loops,
                          fold_permuted_copies,
                          flat_reductions, linear_views,
                          fold_constant_copies, isolate_products, loop_order, pack_argument_panels, pack_column_blocks,
                          pack_constant_panels,
                          pack_operands, pack_strided,
                          panel_layout, powers, expm1, register_tile, remf, residue_order, rows_in_lanes, scalar_replacement, sweep_vectors, time_tiles,
                          transpose_tiles, unit_loops, unmask_loads, untile, vectorize)
from .codegen.cpu import host
from .codegen.cpu.hooks import CpuHooks
from .codegen.cpu.math import exact_math
from .errors import LoopOptError, UsageError
from .loop_optimization import contraction, fusion, licm
from .loop_optimization.hooks import TargetHooks
from .mlir import ir
from .options import INT_KNOB_MAX, Options, Target, flag_of
from .step import StepFn
from .transforms import cleanup, dead_carried, distribution, interchange, tiling

ALL = ("neuron", "cpu")  # Target.kind of every target
CPU = ("cpu",)
HOOKS: dict[str, TargetHooks] = {"neuron": TargetHooks(), "cpu": CpuHooks()}


def hooks_for(target: Target) -> TargetHooks:
    """What the seed's pass asks this target (loop_optimization/hooks.py)."""
    return HOOKS[target.kind]


def resolve_options(options: Options, framework_input: bool) -> Options:
    """Options.resolved with the host's defaults for the vector width, exact math and the caches."""
    return options.resolved(framework_input, host.default_vector_bits, host.default_exact_math,
                            host.default_cache_sizes, host.default_fma_pipes)


@dataclass(frozen=True)
class Argument:
    """A step's argument in --passes, `name=ARG`."""

    metavar: str  # as the error text and --print-pipeline show it: N, P
    help: str  # "a tile size N"
    parse: Callable[[str], object]  # the text to the value; ValueError with a one-line message


@dataclass(frozen=True)
class Step:
    name: str  # --passes, remarks' pass, --timing row, IR dumps
    run: StepFn
    targets: tuple[str, ...]  # Target.kind values it runs on; a named step on another target does nothing
    summary: str  # one line: what it does
    default: bool = True  # in the default pipeline
    when: tuple[str, ...] = ()  # Options fields: by default it runs when any is true (none: always)
    switch: str | None = None  # the Options field that turns it off: naming it in --passes then is an error
    aliases: tuple[str, ...] = ()  # other --passes names
    argument: Argument | None = None
    explained: str = ""  # what it adds when named in --passes (StepContext.explicit)
    forces: tuple[tuple[str, object], ...] = ()  # Options fields it runs with
    finalize: Callable[[ir.Operation], None] | None = None  # once per module after it ran on every function
    counts_fused: bool = False  # its count is numLoopsFused

    def runs_by_default(self, options: Options) -> bool:
        """In the default pipeline of a run with these (resolved) options."""
        return (self.default and options.target.kind in self.targets
                and (not self.when or any(getattr(options, f) for f in self.when)))


def _tile_size(text: str) -> int:
    if not (text.isascii() and text.isdigit() and 2 <= int(text) <= INT_KNOB_MAX):
        raise ValueError(f"the tile size must be an integer >= 2 and <= {INT_KNOB_MAX}")
    return int(text)


def _permutation(text: str) -> list[int]:
    return interchange.parse_permutation(text)


STEPS: tuple[Step, ...] = (
    Step("fold-constant-copies", fold_constant_copies.run, CPU, "a copy of a constant by a permutation of its "
         "indices (a weight's transpose) becomes a constant", finalize=fold_constant_copies.erase_unread_sources),
    Step("fold-result-copies", fold_permuted_copies.run_results, CPU, "before fusion, a copy by a permutation of "
         "its dimensions from a buffer the function allocates into one of its arguments (its result: a torch "
         "graph ending with a permute) folded into its writers, which build the result in that order"),
    Step("fusion", fusion.run, ALL, "greedy profit-based fusion per block, with distribution, GCD tiling and "
         "interchange as rescues of refused pairs (seeds 000, 001)", aliases=("fuse",), counts_fused=True),
    Step("contraction", contraction.run, ALL, "fused intermediates shrunk to what one iteration keeps, or "
         "replaced by their values", aliases=("contract",)),
    Step("powers", powers.run, CPU, "math.fpowi with a constant exponent (and math.powf by 2 or 3 with "
         "--approximate-math) computed by multiplications, as LLVM expands powi"),
    Step("expm1", expm1.run, CPU, "math.expm1 as Kahan's (exp(x) - 1) * (x / log(exp(x))): MLIR's lowering, "
         "exp(x) - 1, loses every digit of a small x"),
    Step("remf", remf.run, CPU, "arith.remf on f32 as an exact reduction by the divisor times 2^(24 j), in ops that vectorize, "
         "C's fmodf bit for bit: MLIR's lowering calls fmodf once per element"),
    Step("untile", untile.run, CPU, "strip-mined loops made flat again, so that they vectorize"),
    Step("scalar-replacement", scalar_replacement.run, CPU, "fused reductions carried in registers, stored "
         "values forwarded to their loads", aliases=("scalrep",)),
    Step("dead-stores", dead_stores.run, CPU, "stores nothing reads after forwarding are dropped"),
    Step("dead-carried", dead_carried.run, ALL, "values a loop carries that nothing uses but their own update "
         "(the unused argmax of a row maximum), and buffers only their own update reads (that argmax kept in "
         "memory), are dropped with the ops that compute them"),
    Step("checks-first", checks_first.run, CPU, "a loop's run-time checks (cf.assert) run first, in a loop of their "
         "own (their conditions in vector lanes where they cannot trap), so the loop vectorizes"),
    Step("isolate-products", isolate_products.run, CPU, "a matrix product fusion put in a loop with other work "
         "gets a nest of its own", when=("enable_loop_distribution",)),
    Step("unit-loops", unit_loops.run, CPU, "every loop of one iteration (carrying values or not) replaced by its "
         "body, so the loop around it may be innermost and vectorize"),
    Step("fold-permuted-copies", fold_permuted_copies.run, CPU, "a copy of a whole buffer by a permutation of its "
         "dimensions (torch's permute) folded into its one consumer (its reads read the source through the "
         "permutation) or into its writers (they write the destination through it), proven in order by isl"),
    Step("product-views", linear_views.run_products, CPU, "an access whose index takes apart by floordiv and mod "
         "the counter of a loop holding a reduction (a product's B columns (e, h) joined: torch-mlir's einsum "
         "td,edh->teh), proven by isl to move by one element in memory every iteration, reads through a view "
         "joining the dimensions it moves in, at base + j, before the register tile's lanes are chosen",
         explained="one remark per delinearized access refused, with why"),
    Step("pack-operands", pack_operands.run, CPU, "a product's operand walked across rows along the vector loop "
         "is copied into rows first"),
    Step("deinterleave-strided", deinterleave_strided.run, CPU, "an operand every loop around a reduction nest "
         "moves, read with a stride of 2 or more along the loop that would give the register tile's lanes (a "
         "depthwise convolution), is copied first split by residue mod the stride, contiguous along that loop "
         "(at stride 2 not where the nest reads each element once)",
         explained="one remark per strided operand refused, with its code"),
    Step("constant-lanes", constant_lanes.run, CPU, "a constant read along the loop that would give a reduction "
         "nest's register tile its lanes, by one element of a dimension other than its last (a convolution's "
         "weight along its output channels, the result stored channels-last), is laid out with that dimension "
         "last", finalize=fold_constant_copies.erase_unread_sources),
    Step("loop-order", loop_order.run, CPU, "loops reordered for stride-1 innermost walks (a GEMM with k inside); "
         "above a reduction nest, the loop every access walks contiguously moved directly around it (the "
         "register tile's lanes)",
         explained="one remark per band whose cheaper order is illegal"),
    Step("block-transposes", block_transposes.run, CPU, "transposing bands walk their column access one cache "
         "line wide", explained="one remark per transposing band the order would break"),
    Step("time-tiles", time_tiles.run, CPU, "a stencil's time loop and its sweeps tiled together (skewed), each tile's "
         "data kept in L1 across its time steps", explained="one remark per time loop refused, with its code"),
    Step("cache-tile", cache_tile.run, CPU, "a matrix product whose B panel exceeds half of L2 cut into blocks "
         "for L2 and L3 around its register tile (sizes from the host's caches)"),
    Step("licm", licm.run, ALL, "loop-invariant code motion, module-wide after all fusion (seed 000)",
         when=("enable_licm",), switch="enable_licm"),
    Step("rows-in-lanes", rows_in_lanes.run, CPU, "an order-sensitive reduction innermost runs one row of the loop "
         "around it per vector lane, each row's order kept", explained="one remark per candidate refused, with its code"),
    Step("pack-strided", pack_strided.run, CPU, "a reduction nest's operand read with a stride larger than 2 along "
         "the register tile's lanes loop is copied first into a buffer whose last dimension runs along it (im2col)",
         explained="one remark per strided operand refused, with its code"),
    Step("register-tile", register_tile.run, CPU, "a tile of a reduction nest's results in vector registers "
         "across its reduction", explained="one remark per refused nest, with its code"),
    Step("pack-constant-panels", pack_constant_panels.run, CPU, "a product's constant operand laid out in column "
         "panels of its register tile", finalize=fold_constant_copies.erase_unread_sources),
    Step("pack-column-blocks", pack_column_blocks.run, CPU, "a transposing copy of a product's B made per column "
         "block of its register tile, into one buffer of the block's columns (BLIS's packed B)"),
    Step("pack-argument-panels", pack_argument_panels.run, CPU, "a product's B that is an argument, read in place "
         "in column blocks of its register tile, copied per block into one contiguous panel (BLIS's packed B)"),
    Step("transpose-tiles", transpose_tiles.run, CPU, "a transposing copy moved in vector tiles: row loads, a "
         "network of shuffles, row stores"),
    Step("panel-layout", panel_layout.run, CPU, "a buffer the function fills and a product reads as B, larger "
         "than half of L2, laid out in column panels of its register tile"),
    Step("flat-loops", flat_loops.run, CPU, "an innermost loop over the columns of a contiguous map, alone in its "
         "rows loop, runs with it as one loop (NCHW maps of 28 x 28 without a remainder per row; 32 x 32 without LLVM "
         "vectorizing across rows by gathers)",
         explained="one remark per candidate refused, with why"),
    Step("flat-reductions", flat_reductions.run, CPU, "a reduction over a buffer's last two dimensions (a global "
         "pooling window) runs as one loop over their elements, so that it vectorizes"),
    Step("linear-views", linear_views.run, CPU, "an innermost loop's access whose index takes the loop's counter "
         "apart by floordiv and mod (a reshaped tensor: GroupNorm's statistics), proven by isl to move by one element "
         "in memory every iteration, reads through a view joining the dimensions it moves in, at base + i",
         explained="one remark per delinearized access refused, with why"),
    Step("vectorize", vectorize.run, CPU, "innermost loops planned for vectors: math as polynomials or libm's exact "
         "exp, reductions reassociated", when=("approximate_math", "reassociate", "exact_math"),
         explained="a remark for every innermost loop, also those without a math function",
         finalize=exact_math.erase_unused_tables),
    Step("math-approx", vectorize.run, CPU, "vectorize with --approximate-math on", default=False,
         forces=(("approximate_math", True),), finalize=exact_math.erase_unused_tables),
    Step("vector-reductions", vectorize.run, CPU, "vectorize with --reassociate on", default=False,
         forces=(("reassociate", True),), finalize=exact_math.erase_unused_tables),
    Step("sweep-vectors", sweep_vectors.run, CPU, "a sweep reading one buffer at several offsets along the loop "
         "loads each vector once and shuffles the shifted operands from it (ends peeled)",
         explained="one remark per candidate refused, with its code"),
    Step("residue-order", residue_order.run, CPU, "a loop around a reduction nest whose loads read again, D > 1 "
         "iterations later, what an iteration read (a dilated convolution's rows) runs its iterations by residue "
         "mod D, so that they are read again in the next"),
    Step("unmask-loads", unmask_loads.run, CPU, "a masked vector load whose whole vector lies inside its buffer on "
         "every iteration (isl; the outermost loop's last iteration split off where only it passes the buffer's end) "
         "reads the whole vector and selects the masked lanes away",
         explained="one remark per nest whose masked loads stay, with why"),
    Step("cleanup", cleanup.run, ALL, "empty loops the other steps left are erased"),
    Step("tiling", tiling.run, ALL, "each band's loops tiled by N (seed 001's GCD tiling, standalone)",
         default=False, aliases=("tile",), argument=Argument("N", "a tile size N", _tile_size)),
    Step("interchange", interchange.run, ALL, "the top levels of each perfect nest permuted by P where legal "
         "(seed 001, standalone)", default=False, argument=Argument("P", "a permutation P such as 1:0", _permutation)),
    Step("distribution", distribution.run, ALL, "each loop split into its statement groups where legal (seed 001, "
         "standalone)", default=False, switch="enable_loop_distribution", aliases=("distribute",)),
)

NONE = "none"  # `--passes none`: parse, verify, print (tests/lit/check_can_fail.py)


def find_step(name: str) -> Step | None:
    """The row a --passes name (or alias) names."""
    for step in STEPS:
        if name == step.name or name in step.aliases:
            return step
    return None


def default_pipeline(options: Options) -> list[Step]:
    """The steps a run with these resolved options takes, in order."""
    return [s for s in STEPS if s.runs_by_default(options)]


def pipeline_text(steps: list[Step]) -> str:
    """Steps as the text --passes takes."""
    return ",".join(s.name for s in steps)


def _known() -> str:
    names = [s.name + (f"={s.argument.metavar}" if s.argument else "") for s in STEPS]
    aliases = [f"{a}={s.argument.metavar}" if s.argument else a for s in STEPS for a in s.aliases]
    return f"{', '.join(names)}; also {', '.join(aliases)}; or {NONE} alone"


def parse_passes(spec) -> list[str]:
    """An explicit pipeline, `"fuse,licm"` or `["fuse", "licm"]`, as its list of `name[=arg]`
    elements, checked against the table: at least one pass, no empty element, known names, an
    argument exactly where the row takes one, and that argument well formed. Raises UsageError
    with one line (TypeError for a spec of another type); never looks at IR."""
    if isinstance(spec, str):
        text, parts = spec, spec.split(",")
    elif isinstance(spec, (list, tuple)) and all(isinstance(p, str) for p in spec):
        text, parts = ",".join(spec), list(spec)
    else:
        raise TypeError(f"loopopt: passes must be a string like 'fuse,licm' or a list of pass names, "
                        f"not {type(spec).__name__}")
    parts = [p.strip() for p in parts]
    if not any(parts):
        raise UsageError(f"loopopt: error: --passes {text!r}: empty pipeline; name at least one pass "
                         "(e.g. fuse,licm)")
    out = []
    for k, part in enumerate(parts, 1):
        if not part:
            raise UsageError(f"loopopt: error: --passes {text!r}: empty pass name at position {k}")
        name, eq, arg = (s.strip() for s in part.partition("="))
        step = find_step(name)
        if step is None and not (name == NONE and len(parts) == 1 and not eq):
            raise UsageError(f"loopopt: error: unknown pass '{name}' in --passes (known: {_known()})")
        if eq and (step is None or step.argument is None):
            raise UsageError(f"loopopt: error: --passes {text!r}: pass '{name}' takes no argument (got '{part}')")
        if step is not None and step.argument is not None:
            try:
                step.argument.parse(arg)
            except ValueError as e:
                raise UsageError(f"loopopt: error: --passes {part}: {e}") from None
        out.append(f"{name}={arg}" if eq else name)
    return out


def resolve(passes: list[str]) -> list[tuple[Step, object]]:
    """Checked pipeline elements (parse_passes) as (row, parsed argument) pairs."""
    out = []
    for p in passes:
        name, eq, arg = p.partition("=")
        step = find_step(name)
        if step is None:
            if name == NONE:
                continue
            raise LoopOptError(f"loopopt: error: unknown pass '{name}' in --passes (known: {_known()})")
        out.append((step, step.argument.parse(arg) if step.argument is not None else None))
    return out


def canonical_pass(element: str) -> str:
    """A checked --passes element with its step's own name (`tile=4` -> `tiling=4`)."""
    name, eq, arg = element.partition("=")
    step = find_step(name)
    return (step.name if step is not None else name) + eq + arg


def pipeline_conflict(options: Options, passes: list[str] | None) -> str | None:
    """The complaint when an explicit pipeline names a step its switch turns off, else None."""
    for p in passes or ():
        step = find_step(p.partition("=")[0])
        if step is not None and step.switch is not None and not getattr(options, step.switch):
            return f"loopopt: error: {flag_of(step.switch)} false conflicts with --passes naming '{p}'; drop one of them"
    return None


def run_options(step: Step, options: Options) -> Options:
    """The options a step runs with: the run's, with the row's forced fields."""
    return replace(options, **dict(step.forces)) if step.forces else options


def markdown_table() -> str:
    """The table of docs/pipeline.md: every row, in pipeline order."""
    lines = ["| step | targets | by default | --passes | what it does |", "|---|---|---|---|---|"]
    for s in STEPS:
        default = "no" if not s.default else ("yes" if not s.when else
                                               "when " + " or ".join(f"`{flag_of(f)}`" for f in s.when))
        names = ", ".join(f"`{n}{'=' + s.argument.metavar if s.argument else ''}`" for n in (s.name, *s.aliases))
        what = s.summary + (f"; named in --passes: {s.explained}" if s.explained else "")
        lines.append(f"| `{s.name}` | {', '.join(s.targets)} | {default} | {names} | {what} |")
    return "\n".join(lines) + "\n"
