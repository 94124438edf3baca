"""The loads a register tile's step issues, counted by the elements they read
(`cpu_plan.load_copies`, `load_address`; docs/cpu_codegen.md section 52).

A transposed convolution runs as phase convolutions (frontend/zero_phases.py) that fusion puts in
one nest: every phase reads the same input, each through the taps that meet it. In one step of
the band's innermost loop one input element is loaded once per phase that reads it, and LLVM
keeps the first: the plan counts it once. Checked: the counts of a fused 1-D nest (4 phases of 2
taps) and of a 2-D one (4 phases of 2 x 2 taps, whose phases read distinct elements in a step), a
load whose memref the body writes counted every time, and the default pipeline on the 1-D nest
natively, bit for bit against its input (affine input keeps every sum in order)."""
from __future__ import annotations

import pytest

from loopopt import mlir
from loopopt.analysis.facts import Facts
from loopopt.codegen.cpu.plan import cpu_plan
from loopopt.codegen.cpu.plan.cpu_plan import plan_register_tiles
from loopopt.options import TARGETS, Options
from loopopt.testing import optimize_and_compare
from loopopt.toolchain import find_tool

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")
_MODULES: list = []


def cpu(bits: int = 256) -> Options:
    return Options(target=TARGETS["cpu"], vector_bits=bits)


# Four phases of a stride-4 transposed convolution, k8: phase p reads x[c, j + k + d_p] with the
# taps w[f, c, 4k + q_p] (d = 0, 0, 1, 1): as fusion leaves them, the sums carried by c and k.
PHASES_1D = """
func.func @k(%x: memref<4x8x43xf32>, %w: memref<8x8x8xf32>, %o0: memref<4x8x40xf32>, %o1: memref<4x8x40xf32>,
             %o2: memref<4x8x40xf32>, %o3: memref<4x8x40xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %n = 0 to 4 {
    affine.for %f = 0 to 8 {
      affine.for %j = 0 to 40 {
        %r:4 = affine.for %c = 0 to 8 iter_args(%a0 = %z, %a1 = %z, %a2 = %z, %a3 = %z) -> (f32, f32, f32, f32) {
          %s:4 = affine.for %k = 0 to 2 iter_args(%b0 = %a0, %b1 = %a1, %b2 = %a2, %b3 = %a3) -> (f32, f32, f32, f32) {
            %x0 = affine.load %x[%n, %c, %j + %k] : memref<4x8x43xf32>
            %w0 = affine.load %w[%f, %c, %k * 4 + 1] : memref<8x8x8xf32>
            %m0 = arith.mulf %x0, %w0 : f32
            %t0 = arith.addf %b0, %m0 : f32
            %x1 = affine.load %x[%n, %c, %j + %k] : memref<4x8x43xf32>
            %w1 = affine.load %w[%f, %c, %k * 4] : memref<8x8x8xf32>
            %m1 = arith.mulf %x1, %w1 : f32
            %t1 = arith.addf %b1, %m1 : f32
            %x2 = affine.load %x[%n, %c, %j + %k + 1] : memref<4x8x43xf32>
            %w2 = affine.load %w[%f, %c, %k * 4 + 3] : memref<8x8x8xf32>
            %m2 = arith.mulf %x2, %w2 : f32
            %t2 = arith.addf %b2, %m2 : f32
            %x3 = affine.load %x[%n, %c, %j + %k + 1] : memref<4x8x43xf32>
            %w3 = affine.load %w[%f, %c, %k * 4 + 2] : memref<8x8x8xf32>
            %m3 = arith.mulf %x3, %w3 : f32
            %t3 = arith.addf %b3, %m3 : f32
            affine.yield %t0, %t1, %t2, %t3 : f32, f32, f32, f32
          }
          affine.yield %s#0, %s#1, %s#2, %s#3 : f32, f32, f32, f32
        }
        affine.store %r#0, %o0[%n, %f, %j] : memref<4x8x40xf32>
        affine.store %r#1, %o1[%n, %f, %j] : memref<4x8x40xf32>
        affine.store %r#2, %o2[%n, %f, %j] : memref<4x8x40xf32>
        affine.store %r#3, %o3[%n, %f, %j] : memref<4x8x40xf32>
      }
    }
  }
  return
}
"""


def phases_2d() -> str:
    """Four phases of a stride-2 2-D transposed convolution, k4: phase (a, b) reads
    x[c, y + kh + a, i + kw + b] with the taps w[f, c, 2 kh + 1 - a, 2 kw + 1 - b]."""
    phases = [(a, b) for a in (0, 1) for b in (0, 1)]
    body = []
    for p, (a, b) in enumerate(phases):
        body += [f"%x{p} = affine.load %x[%c, %y + %kh + {a}, %i + %kw + {b}] : memref<8x11x19xf32>",
                 f"%w{p} = affine.load %w[%f, %c, %kh * 2 + {1 - a}, %kw * 2 + {1 - b}] : memref<8x8x4x4xf32>",
                 f"%m{p} = arith.mulf %x{p}, %w{p} : f32", f"%t{p} = arith.addf %b{p}, %m{p} : f32"]
    outs = ", ".join(f"%o{p}: memref<8x9x17xf32>" for p in range(4))
    stores = "\n".join(f"affine.store %r#{p}, %o{p}[%f, %y, %i] : memref<8x9x17xf32>" for p in range(4))
    f4 = "f32, f32, f32, f32"
    return f"""
func.func @k(%x: memref<8x11x19xf32>, %w: memref<8x8x4x4xf32>, {outs}) {{
  %z = arith.constant 0.0 : f32
  affine.for %f = 0 to 8 {{
    affine.for %y = 0 to 9 {{
      affine.for %i = 0 to 17 {{
        %r:4 = affine.for %c = 0 to 8 iter_args(%a0 = %z, %a1 = %z, %a2 = %z, %a3 = %z) -> ({f4}) {{
          %u:4 = affine.for %kh = 0 to 2 iter_args(%e0 = %a0, %e1 = %a1, %e2 = %a2, %e3 = %a3) -> ({f4}) {{
            %s:4 = affine.for %kw = 0 to 2 iter_args(%b0 = %e0, %b1 = %e1, %b2 = %e2, %b3 = %e3) -> ({f4}) {{
              {chr(10).join(body)}
              affine.yield %t0, %t1, %t2, %t3 : {f4}
            }}
            affine.yield %s#0, %s#1, %s#2, %s#3 : {f4}
          }}
          affine.yield %u#0, %u#1, %u#2, %u#3 : {f4}
        }}
        {stores}
      }}
    }}
  }}
  return
}}
"""


def the_plan(src: str):
    module = mlir.parse_module(src)
    _MODULES.append(module)
    with module.context:
        (plan,) = [p for p in plan_register_tiles(mlir.functions(module)[0], Facts(), cpu()) if p.refusal is None]
        lanes = cpu_plan.lanes_of(plan.loop, plan.reduction_loop, plan.rows_loop, (), plan.between)
        return plan, cpu_plan.load_copies(list(plan.band), lanes)


def test_phases_share_the_input_loads_of_one_step():
    """1-D: per step of k 4 weight broadcasts and 2 input vectors (x[j + k], x[j + k + 1]), not 4.
    Before: 4, which tied the 3-row tile over f (13 loads per 12 multiply-adds) with tiles
    that share the input vectors (7)."""
    plan, loads = the_plan(PHASES_1D)
    assert len(plan.band) == 2 and plan.accumulators == plan.rows * plan.vectors * 4
    input_loads = loads.both if plan.rows_loop is not None and loads.both else loads.lanes
    assert input_loads == 2, loads
    assert loads.rows + loads.neither == 4, loads
    # the tile the shared loads pay for: fewer loads than multiply-adds a step (10 for 12 with
    # 3 rows of n; before, 3 rows of f: 12 broadcasts and 4 input loads counted, 13 issued)
    assert loads.per_step(plan.rows, plan.vectors) < plan.rows * plan.vectors * 4, (plan.rows, plan.vectors)


def test_phases_2d_read_distinct_elements_in_a_step():
    """2-D: in one step (kh, kw fixed) the 4 phases read x[y + kh + a, i + kw + b], four distinct
    vectors: all counted, as before (the tile of gan_upsample and the probe's 2-D kinds is
    unchanged)."""
    plan, loads = the_plan(phases_2d())
    assert len(plan.band) == 3
    input_loads = loads.both if loads.both else loads.lanes
    assert input_loads == 4, loads
    assert loads.rows + loads.neither == 4, loads


class _AllLanes:
    """Every load moves with the lanes (a stand-in for `lanes_of`: only the counts matter here)."""

    def varies(self, v) -> bool:
        return True

    def by_row(self, v) -> bool:
        return False


def _tap_loop_loads(src: str):
    module = mlir.parse_module(src)
    _MODULES.append(module)
    with module.context:
        k = [op for op in mlir.walk(mlir.functions(module)[0]) if op.name == "affine.for"][4]
        return cpu_plan.load_copies([k], _AllLanes()).lanes


def test_a_load_of_a_buffer_the_body_writes_counts_every_time():
    """The tap loop's 8 loads read 6 elements (2 input vectors, 4 weights); with a store into
    the input in the body every input load counts (8), the weights' still once each."""
    assert _tap_loop_loads(PHASES_1D) == 6
    src = PHASES_1D.replace("%x1 = affine.load %x[%n, %c, %j + %k] : memref<4x8x43xf32>",
                            "affine.store %z, %x[%n, %c, 42] : memref<4x8x43xf32>\n"
                            "            %x1 = affine.load %x[%n, %c, %j + %k] : memref<4x8x43xf32>")
    assert _tap_loop_loads(src) == 8


@has_runner
def test_fused_phases_tile_and_stay_bit_exact():
    c = optimize_and_compare(PHASES_1D, "k", cpu())
    assert any(m.startswith("[REGISTER TILING]") for m in c.messages), c.messages
