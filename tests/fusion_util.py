"""Helpers for transform tests: run loopopt, check the IR verifies (ours and mlir-opt's), and
that results are unchanged."""
from __future__ import annotations

from loopopt import driver, mlir
from loopopt.options import TARGETS, Options
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool, verify_with_mlir_opt


def optimize_checked(src: str, target: str = "cpu", passes=None, sizes=None, seed: int = 7, **kw):
    """Optimize `src`, assert the output verifies and computes the same results; return the result."""
    opts = Options(target=TARGETS[target], **kw)
    res = driver.optimize(src, opts, "test.mlir", passes=passes)
    internal = [r.message for r in res.remarks if r.message.startswith("[INTERNAL]")]
    assert not internal, internal
    module = mlir.parse_module(res.text)  # kept alive while verified
    assert mlir.verify(module.operation) is None
    if find_tool("mlir-opt"):
        assert verify_with_mlir_opt(res.text) is None
    assert_same_results(src, res.text, seed=seed, sizes=sizes)
    return res


def count(text: str, needle: str) -> int:
    return text.count(needle)


def messages(res, pass_name: str | None = None) -> list[str]:
    return res.remarks.messages(pass_name)
