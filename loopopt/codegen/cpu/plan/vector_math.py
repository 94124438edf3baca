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

Memory has the same gap: a `memref` of i1 (a mask) holds one byte per element when lowered, but
LLVM lays a vector of i1 out bit-packed, so `affine.vector_load` of `vector<16xi1>` reads 16 bits
of two bytes, not 16 bytes (gpt2_layer's causal mask: wrong scores, 0.17 off torch, once its
tile lowered). An access of elements narrower than a byte is never put on lanes
(`vector_access_refusal`).
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


def vector_access_refusal(op: ir.Operation) -> str | None:
    """Why the load or store `op` may not become a vector access (its elements are narrower than
    a byte: a vector of them is bit-packed, the buffer is not), or None."""
    from .... import mlir

    memref = op.operands[1 if op.name.endswith("store") else 0]
    mt = mlir.memref_type(memref)
    elem = mt.element_type if mt is not None else None
    if isinstance(elem, ir.IntegerType) and ir.IntegerType(elem).width % 8:
        return (f"{op.name} at {mlir.location_of(op)} reads or writes {elem} elements, a byte each in memory "
                "but bit-packed in a vector")
    return None
