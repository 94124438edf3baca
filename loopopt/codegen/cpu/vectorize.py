"""The cpu code generation phase: each nest's plan (codegen/cpu/plan/cpu_plan.py) applied to the IR.

Step `vectorize` (cpu target only, the driver's last step): plan every innermost loop of the
function, then for each vectorizable loop

* replace its libm math functions by polynomials (codegen/cpu/math/math_approx.py), constants placed
  before the nest, when the plan lists them (`options.approximate_math`);
* mark the combining op of each floating-point sum/product reduction `fastmath<reassoc>` when
  the plan lists it (`options.reassociate`): LLVM's loop vectorizer then keeps vector partial
  sums, and their order (by lane, then a tree at the end) is LLVM's;
* leave the rest to LLVM's loop vectorizer (the measured choice of form, docs/cpu_codegen.md).

Remarks (pass `vectorize`): one Passed `[VECTORIZE]` per vectorizable loop (args: width, form,
remainder, reductions, approximated ops), one Passed `[MATH APPROX]` per replaced op, one Passed
`[VECTOR REDUCTION]` per reassociated reduction, and one Missed remark per loop left scalar,
with the plan's refusal code (`[STOP VECTORIZE] ...`). With both switches off the IR is not
changed: every result stays bit-exact.

With `options.exact_math` (and approximate_math off), `math.exp` on f32 becomes libm's own
algorithm in ops LLVM widens (codegen/cpu/math/exact_math.py), every result keeping its bits (one
Passed `[EXACT MATH]` per op). The default pipeline runs the step for that alone when both
switches are off (`math_only`): loops that call no math function are then neither changed nor
reported, as without the step.

`--passes math-approx` and `--passes vector-reductions` run the same phase with the switch on.
"""
from __future__ import annotations

from ... import mlir
from ...analysis.facts import Facts
from ...analysis.loops import body_ops
from ...analysis.refusal import Refusal
from ...mlir import ir
from ...options import Options
from ...remarks import PASSED, RemarkLog
from ...transforms.rewriter import Rewriter
from .math import exact_math, math_approx
from .plan.constant_copies import enclosing_module
from .plan.cpu_plan import VectorPlan, plan_function
from .plan.cpu_plan import LIBM_MATH_APPROXIMATED, Code
from ...step import StepContext

PASS = "vectorize"
VECTORIZABLE = "[VECTORIZE] innermost loop left to LLVM's loop vectorizer"
APPROXIMATED = "[MATH APPROX] replaced by a polynomial"
REASSOCIATED = "[VECTOR REDUCTION] reduction may be reassociated into vector partial sums"
EXACT = "[EXACT MATH] replaced by libm's own algorithm in vectorizable ops"


def with_reassoc(attr: ir.Attribute | None) -> ir.Attribute:
    """An arith fastmath attribute with `reassoc` added to the flags it has."""
    flags = []
    if attr is not None:
        text = str(attr)
        inner = text[text.find("<") + 1:text.rfind(">")] if "<" in text else ""
        flags = [f.strip() for f in inner.split(",") if f.strip() and f.strip() != "none"]
    if "fast" in flags or "reassoc" in flags:
        return attr
    return ir.Attribute.parse(f"#arith.fastmath<{','.join(['reassoc', *flags])}>")


def replace_in_block(rewriter: Rewriter, op: ir.Operation, rewrite) -> None:
    """`rewrite()` (which replaces and erases `op`) as one rewriter replacement: the listeners
    hear of the ops it adds to op's block (constants it puts elsewhere are not announced)."""

    def build():
        block = op.block
        before = {mlir.op_key(o) for o in mlir.block_ops(block)} - {mlir.op_key(op)}
        rewrite()
        return [[o for o in mlir.block_ops(block) if mlir.op_key(o) not in before]]

    rewriter.replace([op], build)


def approximate_through(rewriter: Rewriter, op: ir.Operation, const_anchor: ir.Operation, constants: dict,
                        ldexp: bool = False) -> None:
    """math_approx.approximate(op) as one rewriter replacement (constants go before `const_anchor`;
    exp scaled by ldexp with `ldexp`: math_approx.scales_by_ldexp)."""
    replace_in_block(rewriter, op, lambda: math_approx.approximate(op, const_anchor, constants, ldexp))


def exact_through(rewriter: Rewriter, op: ir.Operation, const_anchor: ir.Operation, constants: dict,
                  table: str) -> None:
    """exact_math.make_exact(op) as one rewriter replacement, reading the global `table`."""
    replace_in_block(rewriter, op, lambda: exact_math.make_exact(op, const_anchor, constants, table))


def libm_note() -> str:
    from .math.libm import host_expf

    fact = host_expf()
    return "checked: glibc's expf algorithm" if fact.matches else f"asked for; {fact.reason}"


def apply_plan(plan: VectorPlan, nest_root: ir.Operation, rewriter: Rewriter, constants: dict,
               filename: str | None = None, table: str | None = None, ldexp: bool = False) -> list:
    """Apply one vectorizable loop's rewrites (constants of approximations before `nest_root`,
    shared through `constants`; exp scaled by ldexp with `ldexp`; the exact ops read the global
    `table`, which plan.exact needs); returns [(what, op name, location)] for the remarks."""
    done = []
    for op in plan.approximate:
        where = mlir.location_of(op, filename)
        name = op.name

        approximate_through(rewriter, op, nest_root, constants, ldexp)
        done.append(("approximated", name, where))
    for op in plan.exact:
        where, name = mlir.location_of(op, filename), op.name
        exact_through(rewriter, op, nest_root, constants, table)
        done.append(("exact", name, where))
    for red in plan.reassociate:
        with red.op.context:
            old = red.op.attributes["fastmath"] if "fastmath" in red.op.attributes else None
            red.op.attributes["fastmath"] = with_reassoc(old)
        done.append(("reassociated", red.kind, mlir.location_of(red.op, filename)))
    return done


def vectorize_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>",
                       approximate_math: bool | None = None, reassociate: bool | None = None,
                       math_only: bool = False) -> int:
    """Plan and apply (see the module docstring); returns the number of vectorizable loops.
    With `math_only`, loops that call no libm math function are neither changed nor reported.
    """
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    facts = Facts()
    rewriter = Rewriter(facts)
    plans = plan_function(fn, facts, options, approximate_math=approximate_math, reassociate=reassociate)
    use_approx = options.approximate_math if approximate_math is None else approximate_math
    module_op = enclosing_module(fn)
    table, table_exists = None, False  # the module's expf table, looked up at the first exact op
    ldexp = math_approx.scales_by_ldexp(options.plan_vector_bits)
    count = 0
    for nest in plans:
        constants: dict = {}
        for plan in nest.vectors:
            if math_only and not any(op.name in LIBM_MATH_APPROXIMATED for op in body_ops(plan.loop)):
                continue
            where = mlir.location_of(plan.loop, filename)
            refusal = plan.refusal
            if refusal is None and plan.exact and module_op is None:
                refusal = Refusal(Code.NO_EXACT_FORM, "the function is not in a builtin.module to hold libm's table",
                                  (plan.loop,))
            if refusal is not None:
                log.refused(PASS, refusal, function=fname, location=where)
                continue
            args = {"width": plan.width, "form": plan.form, "remainder": plan.remainder,
                    "reductions": [r.kind for r in plan.reductions],
                    "approximated": [op.name for op in plan.approximate], "exact": [op.name for op in plan.exact]}
            if plan.exact and table is None:
                table, table_exists = exact_math.table_name(module_op)
            done = apply_plan(plan, nest.root, rewriter, constants, filename, table, ldexp)
            log.add(PASS, PASSED, f"{VECTORIZABLE} at width {plan.width}", function=fname, location=where,
                    args=args)
            for what, name, site in done:
                if what == "exact":
                    log.add(PASS, PASSED, f"{EXACT}: {name} (the bits of the host's libm, {libm_note()})",
                            function=fname, location=site, args={"op": name, "loop": where})
                elif what == "approximated":
                    log.add(PASS, PASSED, f"{APPROXIMATED}: {name} (max error {math_approx.MAX_ULP[name]:g} ulp)",
                            function=fname, location=site, args={"op": name, "loop": where})
                else:
                    log.add(PASS, PASSED, f"{REASSOCIATED}: {name}", function=fname, location=site,
                            args={"op": name, "loop": where})
            count += 1
    if table is not None and not table_exists:
        exact_math.add_table(module_op, table)
    if use_approx:
        count += approximate_vector_math(fn, rewriter, log, fname, filename, ldexp)
    if count:
        hint_vector_width(fn, options, log, fname, filename)
    return count


def approximate_vector_math(fn: ir.Operation, rewriter: Rewriter, log: RemarkLog, fname: str,
                            filename: str, ldexp: bool = False) -> int:
    """Math functions the register tiling has already put on vectors (an epilogue such as a GELU
    after a product, codegen/cpu/register_tile.py) become polynomials too, as in a loop the plan
    vectorizes (constants before the outermost loop around them); one remark per source op and
    function, with the count. Returns how many ops were replaced."""
    from ...analysis.loops import ancestors

    constants: dict = {}
    counts: dict[tuple[str, str], int] = {}
    for op in [o for o in mlir.walk(fn) if o.name in math_approx.APPROXIMATIONS]:
        if not isinstance(op.results[0].type, ir.VectorType) or math_approx.approximation_refusal(op) is not None:
            continue
        loops = [p for p in ancestors(op) if p.name == "affine.for"]
        anchor = loops[-1] if loops else op
        key = (mlir.location_of(op, filename), op.name)
        approximate_through(rewriter, op, anchor, constants, ldexp)
        counts[key] = counts.get(key, 0) + 1
    for (where, name), n in counts.items():
        log.add(PASS, PASSED, f"{APPROXIMATED}: {name} on {n} {VECTOR_TEXT} (max error "
                f"{math_approx.MAX_ULP[name]:g} ulp)", function=fname, location=where, args={"op": name, "vectors": n})
    return sum(counts.values())


VECTOR_TEXT = "vectors of the register tiling"


WIDTH_HINT = "[VECTOR WIDTH] prefer-vector-width={bits} passed to LLVM"


def hint_vector_width(fn: ir.Operation, options: Options, log: RemarkLog, fname: str, filename: str) -> bool:
    """Ask LLVM to vectorize the loops left to it at the plan's width when that is wider than
    256 bits: the function gets `passthrough = [["prefer-vector-width", "N"]]` (kept by MLIR's
    func-to-llvm lowering; it changes no result, only the width LLVM's loop vectorizer picks,
    which on AVX-512 cores is 256 by default). True iff the hint was added."""
    bits = options.plan_vector_bits
    if bits <= 256:
        return False
    old = list(fn.attributes["passthrough"]) if "passthrough" in fn.attributes else []
    if any(isinstance(a, ir.ArrayAttr) and len(a) == 2 and ir.StringAttr(a[0]).value == "prefer-vector-width"
           for a in old):
        return False
    with fn.context:
        entry = ir.ArrayAttr.get([ir.StringAttr.get("prefer-vector-width"), ir.StringAttr.get(str(bits))])
        fn.attributes["passthrough"] = ir.ArrayAttr.get(old + [entry])
    log.add(PASS, PASSED, WIDTH_HINT.format(bits=bits) + f": its loop vectorizer picks {bits}-bit vectors as "
            "the plan does (256 by default on AVX-512 cores)", function=fname,
            location=mlir.location_of(fn, filename), args={"bits": bits})
    return True


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The steps `vectorize`, `math-approx` and `vector-reductions` (loopopt/pipeline.py; the
    latter two force a numeric switch on). With both numeric switches off only the loops that
    call a libm math function change and are reported (the exact exp), unless the step is named
    in --passes: then every innermost loop gets a remark."""
    o = ctx.options
    return vectorize_function(fn, o, ctx.log, ctx.filename,
                              math_only=not ctx.explicit and not (o.approximate_math or o.reassociate))
