"""Small constant integer powers as multiplications (cpu).

`math.fpowi %x, %n` lowers to `llvm.intr.powi`; with a constant n, LLVM's instruction selection
expands it into multiplications by repeated squaring (`ExpandPowI`: the result starts as the
lowest set bit's square, each further set bit multiplies it by the next square; a negative n
divides 1.0 by that product; n = 0 gives 1.0 for every x). The intrinsic has no form with a
vector exponent (`llvm.intr.powi` takes one integer), so a register tile that puts `fpowi` on
vectors produced IR MLIR 22 cannot lower. This step writes the same multiplications as MLIR ops,
in the same order: each result keeps its bits, whatever the input, and the loop holds only
`arith.mulf` (and one `divf` for a negative n), which every vector form takes.

    fpowi(x, 2) = x * x        fpowi(x, 3) = x * (x * x)        fpowi(x, 4) = (x * x) * (x * x)
    fpowi(x, 5) = x * ((x * x) * (x * x))        fpowi(x, -2) = 1.0 / (x * x)

`math.powf %x, %c` with a constant c that is a small integer calls libm's `powf`, which is not
those products on every input. Measured on all 2^32 f32 inputs against this host's glibc (2.x,
`__powf_fma`): `powf(x, 2)` and `x * x` differ on 1,548,806 inputs (9,312 of them with a
subnormal square), and there `x * x`, one IEEE multiplication, is the correctly rounded square
while powf, computed through exp2(2 log2 x) in double, rounds a value near a halfway case the
other way (x = 0x5f7fc313: powf gives 0x1.ff0c6ap+127, the square is nearer 0x1.ff0c68p+127);
`x * (x * x)` is within 1 ulp of `powf(x, 3)` and differs on 365,242,022 inputs, `(x * x) * (x * x)`
within 2 ulp of `powf(x, 4)`. So `powf` becomes the product only with
`options.approximate_math` (framework input: torch computes `pow(x, 2.0)` as `x * x` and
`pow(x, 3.0)` as `x * x * x` itself), for c in POWF_EXPONENTS; on affine input without the
switch it stays a libm call and a Missed remark says why.

Exponents beyond MAX_EXPONENT in magnitude are left alone (LLVM expands them too; the loop
would just hold more multiplications than a call costs).
"""
from __future__ import annotations

from ... import mlir
from ...mlir import ir
from ...remarks import MISSED, PASSED, RemarkLog
from ...step import StepContext

PASS = "powers"
EXPANDED = "[POWER] a constant integer power computed by multiplications"
KEPT = "[STOP POWER] a constant integer power kept as a libm call"
MAX_EXPONENT = 64
# powf exponents replaced under approximate_math: x^2 correctly rounded, x^3 within 1 ulp of powf.
POWF_EXPONENTS = (2, 3)
POWF_MAX_ULP = {2: 0.5, 3: 1.0}  # against the exact power (2) and against glibc's powf (3), measured


def constant_value(v: ir.Value):
    """The value of an `arith.constant` scalar or splat (int or float), else None."""
    owner, _ = mlir.value_owner(v)
    if owner is None or owner.name != "arith.constant":
        return None
    attr = owner.attributes["value"]
    if isinstance(attr, ir.DenseElementsAttr):
        if not attr.is_splat:
            return None
        attr = attr.get_splat_value()
    if isinstance(attr, ir.IntegerAttr):
        return attr.value
    if isinstance(attr, ir.FloatAttr):
        return attr.value
    return None


def constant_exponent(op: ir.Operation) -> int | None:
    """n when `op` is `math.fpowi` with a constant integer n, or `math.powf` with a constant
    float exponent that is an integer n; else None."""
    if op.name not in ("math.fpowi", "math.powf"):
        return None
    value = constant_value(op.operands[1])
    if value is None:
        return None
    if op.name == "math.powf":
        if not float(value).is_integer():
            return None
        value = int(value)
    return int(value)


def power_refusal(op: ir.Operation, n: int, approximate_math: bool) -> str | None:
    """Why `op` (a power with the constant integer exponent n) keeps its call, or None."""
    if abs(n) > MAX_EXPONENT:
        return f"the exponent {n} is beyond {MAX_EXPONENT}"
    if op.name == "math.powf":
        if n not in POWF_EXPONENTS:
            return f"math.powf to the power {n}: only {', '.join(map(str, POWF_EXPONENTS))} become products"
        if not approximate_math:
            return (f"math.powf to the power {n}: libm's powf is not the product on every input "
                    "(approximate_math is off)")
    return None


def squaring_steps(n: int) -> tuple[list[tuple[str, str, str]], str]:
    """LLVM's expansion of x^|n| (n != 0): the products (result, lhs, rhs) in order, over the
    names `x`, `s1`, `s2`... (x squared, squared again...) and `r1`, `r2`... (partial results),
    and the name that holds x^|n|."""
    steps, res, cur, sq, k, v = [], None, "x", 0, 0, abs(n)
    while v:
        if v & 1:
            if res is None:
                res = cur
            else:
                k += 1
                steps.append((f"r{k}", res, cur))
                res = f"r{k}"
        v >>= 1
        if v:
            sq += 1
            steps.append((f"s{sq}", cur, cur))
            cur = f"s{sq}"
    return steps, res


def emit_power(op: ir.Operation, n: int) -> ir.Value:
    """The multiplications (and the division for n < 0) of x^n before `op`, typed as its
    result, with op's fast-math flags; returns the value of x^n."""
    x = op.operands[0]
    rtype = op.results[0].type
    attrs = {"fastmath": op.attributes["fastmath"]} if "fastmath" in op.attributes else {}
    ip = ir.InsertionPoint(op)

    def const(value: float) -> ir.Value:
        elem = ir.VectorType(rtype).element_type if isinstance(rtype, ir.VectorType) else rtype
        attr = ir.FloatAttr.get(elem, value)
        if isinstance(rtype, ir.VectorType):
            attr = ir.DenseElementsAttr.get_splat(rtype, attr)
        return ir.Operation.create("arith.constant", results=[rtype], attributes={"value": attr}, ip=ip).results[0]

    def binary(name: str, a: ir.Value, b: ir.Value) -> ir.Value:
        return ir.Operation.create(name, results=[rtype], operands=[a, b], attributes=dict(attrs), ip=ip).results[0]

    one = const(1.0) if n <= 0 else None
    if n == 0:
        return one
    steps, last = squaring_steps(n)
    values = {"x": x}
    for res, lhs, rhs in steps:
        values[res] = binary("arith.mulf", values[lhs], values[rhs])
    result = values[last]
    if n < 0:
        result = binary("arith.divf", one, result)
    return result


def expand_power(op: ir.Operation, n: int) -> ir.Value:
    """Replace `op` by emit_power (op is erased); returns the value that stands for its result."""
    with op.context, op.location:
        value = emit_power(op, n)
    op.results[0].replace_all_uses_with(value)
    op.erase()
    return value


def expand_powers(fn: ir.Operation, approximate_math: bool, log: RemarkLog, filename: str = "<input>") -> int:
    """Every power with a constant integer exponent in `fn` that `power_refusal` allows, as
    multiplications; one remark per op (Passed, or Missed with the reason). Returns how many."""
    fname = mlir.func_name(fn)
    count = 0
    for op in [o for o in mlir.walk(fn) if o.name in ("math.fpowi", "math.powf")]:
        n = constant_exponent(op)
        if n is None:
            continue
        where, name = mlir.location_of(op, filename), op.name
        why = power_refusal(op, n, approximate_math)
        if why is not None:
            log.add(PASS, MISSED, KEPT, function=fname, location=where, args={"op": name, "exponent": n, "detail": why})
            continue
        expand_power(op, n)
        count += 1
        exact = "the bits of LLVM's own expansion of llvm.powi" if name == "math.fpowi" else \
            f"max error {POWF_MAX_ULP[n]:g} ulp"
        log.add(PASS, PASSED, f"{EXPANDED}: {name} to the power {n} ({exact})", function=fname, location=where,
                args={"op": name, "exponent": n})
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `powers` (loopopt/pipeline.py)."""
    if mlir.func_body(fn) is None:
        return 0
    return expand_powers(fn, bool(ctx.options.approximate_math), ctx.log, ctx.filename)
