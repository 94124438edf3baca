"""The native harness (loopopt.native): modules with resource blobs, and what a failing run says."""
from __future__ import annotations

import pytest

from loopopt import frontend, native
from loopopt.frontend import fixtures
from loopopt.toolchain import find_tool

pytestmark = [pytest.mark.toolchain,
              pytest.mark.skipif(find_tool("mlir-runner") is None or find_tool("mlir-opt") is None,
                                 reason="mlir-opt/mlir-runner 22 not found (apt-get install -y mlir-22-tools)")]

RESOURCES = """module {
  memref.global "private" constant @w : memref<4xf32> = dense_resource<blob> {alignment = 64 : i64}
  func.func @k(%out: memref<4xf32>) {
    %w = memref.get_global @w : memref<4xf32>
    affine.for %i = 0 to 4 {
      %x = affine.load %w[%i] : memref<4xf32>
      affine.store %x, %out[%i] : memref<4xf32>
    }
    return
  }
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F0000004000004040000080C0"
    }
  }
#-}
"""


def test_main_goes_before_the_modules_brace_not_into_the_resource_trailer():
    harness = native.make_harness(RESOURCES, "k", [None])
    module, trailer = native.split_resources(harness)
    assert "func.func @main()" in module and "@main" not in trailer
    assert trailer.startswith("{-#") and "blob" in trailer
    run = native.run_native(RESOURCES, "k", [None], reps=1)
    assert run.outputs[0].values == (1.0, 2.0, 3.0, -4.0)


def test_a_lowered_block_runs_without_the_fixtures_workaround():
    fx = fixtures.load_fixture("mlp_relu_small")
    lowered = frontend.lower(fx.text).text
    assert "{-#" in lowered
    sizes = fixtures.harness_sizes(fx.runs[0])
    direct = native.run_native(lowered, fx.function, sizes, reps=1)
    assert fixtures.compare_with_expected(direct.outputs, fx.runs[0]) is None


def test_split_resources_without_a_trailer():
    assert native.split_resources("module {\n}\n") == ("module {\n}\n", "")


ASSERTS = """func.func @k(%a: memref<4xf32>, %n: index) {
  %c = arith.constant 3 : index
  %ok = arith.cmpi ult, %n, %c : index
  cf.assert %ok, "n must be below 3"
  return
}
"""


def test_a_failing_assert_names_its_message():
    with pytest.raises(native.NativeError) as e:
        native.run_native(ASSERTS, "k", [[4], 5], reps=1)
    assert str(e.value) == "mlir-runner exited -6 (SIGABRT): the program printed: n must be below 3"
    assert native.run_native(ASSERTS, "k", [[4], 2], reps=1).outputs[0].numel == 4


def test_runner_failure_without_a_message_quotes_stderr():
    assert native.runner_failure(1, "7340033001\n3\n", "error: boom\n") == "mlir-runner exited 1: error: boom"
    assert native.runner_failure(-11, "", "").startswith("mlir-runner exited -11 (SIGSEGV)")


SCALE = """
func.func @k(%a: memref<37xf32>, %b: memref<37xf32>) {
  %c = arith.constant 2.0 : f32
  affine.for %i = 0 to 37 {
    %x = affine.load %a[%i] : memref<37xf32>
    %y = arith.mulf %x, %c : f32
    affine.store %y, %b[%i] : memref<37xf32>
  }
  return
}
"""


def test_native_mismatch_names_a_changed_result_and_passes_an_equal_one():
    """loopopt.testing.native_mismatch: None for the same program written another way (x * 2 as
    x + x), the difference for a changed constant, also with the input's outputs cached."""
    from loopopt.testing import native_mismatch

    same = SCALE.replace("%y = arith.mulf %x, %c : f32", "%y = arith.addf %x, %x : f32")
    changed = SCALE.replace("2.0 : f32", "2.5 : f32")
    assert native_mismatch(SCALE, same) is None
    diff = native_mismatch(SCALE, changed)
    assert diff is not None and diff.startswith("arg1[0]: "), diff  # the output argument, its first element
    assert native_mismatch(SCALE, changed, rtol=0.5) is None  # within rtol: 2.5x against 2x
