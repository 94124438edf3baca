"""benchmarks/mlir_tests.py's report: the trn1 classification of what keeps loops apart, and the
cpu section of chunks two or more loops over mlir-opt (issue 25)."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))

import mlir_tests as mt  # noqa: E402
from loopopt.toolchain import find_tool  # noqa: E402


def _chunk(name: str, mlir: int, cpu: int, trn1: int, codes=(), tilings=0, opaque=False) -> mt.Chunk:
    f, i = name.split("#")
    c = mt.Chunk(f, int(i), loops_in=10, mlir=mlir, loopopt={"cpu": cpu, "trn1": trn1}, opaque=opaque)
    c.refusals["trn1"] = [(code, f"{mt_message(code)}: a and b, level = 0") for code in codes]
    c.tilings["trn1"] = tilings
    return c


def mt_message(code: str) -> str:
    from loopopt.analysis.refusal import Code

    return Code[code].message


def test_codes_are_classified():
    assert mt.classify("NO_PARTITION_DIM") == "seed rule"
    assert mt.classify("OVER_BUDGET") == "seed rule (SBUF budget)"
    assert mt.classify("UNMODELLED") == "sound barrier"
    assert mt.classify("LOSES_VECTORIZATION") == "other"  # a cpu rule: never an excuse on trn1
    assert mt.chunk_verdict(["NO_BENEFIT", "NEGATIVE_DISTANCE"]) == "seed rule"
    assert mt.chunk_verdict(["UNMODELLED"]) == "sound barrier"
    assert mt.chunk_verdict(["NO_BENEFIT", "STALE_PAIR"]) == "other"
    assert mt.chunk_verdict([]) == "other"
    assert mt.chunk_verdict([], tilings=1) == "seed rule (GCD tiling)"


def test_trn1_section_lists_only_chunks_over_mlir_opt():
    chunks = [_chunk("a.mlir#0", 2, 2, 4, ["NO_BENEFIT", "NO_BENEFIT"]),
              _chunk("a.mlir#1", 2, 2, 2, ["NO_BENEFIT"]),
              _chunk("b.mlir#3", 1, 1, 2)]
    text = "\n".join(mt.trn1_section(chunks))
    assert "| a.mlir#0 | 2 | 4 | seed rule | NO_BENEFIT x2 (seed rule): [STOP FUSION] no fusion benefit |" in text
    assert "a.mlir#1" not in text
    assert "| b.mlir#3 | 1 | 2 | other | no pair was refused |" in text
    assert "trn1 chunks over mlir-opt's count: 1 other, 1 seed rule." in text


def test_cpu_gaps_section_names_a_reason_or_says_none():
    chunks = [_chunk("loop-fusion-3.mlir#22", 4, 6, 10), _chunk("x.mlir#0", 1, 3, 3),
              _chunk("y.mlir#0", 1, 5, 5, opaque=True), _chunk("z.mlir#0", 2, 3, 3)]
    text = "\n".join(mt.cpu_gaps_section(chunks))
    assert "- loop-fusion-3.mlir#22 (6 vs 4): sound barriers" in text
    assert "- x.mlir#0 (3 vs 1): not explained" in text
    assert "y.mlir" not in text and "z.mlir" not in text  # opaque; only one over


@pytest.mark.skipif(find_tool("mlir-opt") is None, reason="mlir-opt 22 not installed")
def test_run_chunk_records_every_trn1_refusal():
    text = """
func.func @f(%a: memref<10xf32>) {
  %t = memref.alloc() : memref<10xf32>
  affine.for %i = 0 to 10 {
    %v = affine.load %a[%i] : memref<10xf32>
    affine.store %v, %t[%i] : memref<10xf32>
  }
  affine.for %i = 0 to 10 {
    %v = affine.load %t[9 - %i] : memref<10xf32>
    affine.store %v, %a[%i] : memref<10xf32>
  }
  return
}
"""
    c = mt.run_chunk("t.mlir", 0, text)
    assert [code for code, _ in c.refusals["trn1"]] == ["NEGATIVE_DISTANCE"]
    assert c.loopopt["trn1"] == 2 and c.results["trn1"] == "same"
