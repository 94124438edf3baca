"""Never invalid IR: a transform step that corrupts the IR or raises is rolled back and reported."""
import pytest

from loopopt import driver, mlir
from loopopt.options import TARGETS, Options
from loopopt.testing import assert_same_results, inject_fault
from loopopt.toolchain import find_tool, verify_with_mlir_opt

from test_fusion import CHAIN3


@pytest.mark.parametrize("step", ["fusion", "contraction", "licm"])
def test_fault_injection_rolls_back_the_step(step):
    res = driver.optimize(CHAIN3, Options(target=TARGETS["cpu"]), "chain.mlir", wrap=inject_fault(step))
    rolled = [r for r in res.remarks if r.message.startswith(f"[INTERNAL] {step} rolled back:")]
    assert len(rolled) == 1
    module = mlir.parse_module(res.text)  # kept alive while verified
    assert mlir.verify(module.operation) is None
    if find_tool("mlir-opt"):
        assert verify_with_mlir_opt(res.text) is None
    assert_same_results(CHAIN3, res.text, seed=3)
    # the other steps still ran
    if step != "fusion":
        assert res.num_loops_fused == 2


def test_exception_inside_a_transform_rolls_back(monkeypatch):
    from loopopt.loop_optimization import fusion

    def boom(l1, l2):
        raise RuntimeError("injected failure in the middle of a fuse")

    monkeypatch.setattr(fusion, "loop_fusion", boom)
    res = driver.optimize(CHAIN3, Options(target=TARGETS["cpu"]), "chain.mlir")
    assert any("[INTERNAL] fusion rolled back: RuntimeError: injected failure" in m for m in res.remarks.messages())
    assert res.text.count("affine.for") == 3
    assert_same_results(CHAIN3, res.text, seed=3)
