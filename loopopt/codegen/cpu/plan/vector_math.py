"""Math ops that MLIR 22's lowering takes on scalars but not on vectors (cpu).

The register tile puts every op of a nest that moves with the loop it blocks on vector lanes,
with the op's own name (`math.erf` on `vector<8xf32>`). The native lowering
(`loopopt.native.LOWERING_PASSES`: convert-math-to-llvm, then convert-math-to-libm) takes every
math op of the plan's sets (`cpu_plan.VECTOR_MATH`, `LIBM_MATH_APPROXIMATED`) and every other
math function on vectors of f32 and f64 (a libm function becomes one call per lane), but for
one: `math.fpowi` becomes `llvm.intr.powi`, whose exponent must be one integer, so a vector
exponent is invalid IR. Checked against mlir-opt 22 op by op (tests/test_cpu_powers.py).

A constant exponent is gone before the tile is planned (codegen/cpu/powers.py); any other
`fpowi` keeps its nest's iterations scalar copies instead of lanes.
"""
from __future__ import annotations

from ....mlir import ir

NO_VECTOR_LOWERING = frozenset({"math.fpowi"})


def vector_lowering_refusal(op: ir.Operation) -> str | None:
    """Why `op` may not be put on vector lanes as it is (its vector form does not lower), or None."""
    if op.name in NO_VECTOR_LOWERING:
        from .... import mlir

        return f"{op.name} at {mlir.location_of(op)} has no vector lowering in MLIR 22 (llvm.intr.powi takes one exponent)"
    return None
