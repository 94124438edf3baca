"""Which ops take a function's address (memory._mentions_symbol): only symbol references count.

A function whose address is taken has untraced memref arguments (any indirect caller may pass
anything); a string that happens to spell `@f`, or a reference to `@foo`, must not make `@f`'s
arguments untraced (the front end's run-time check messages name the function: the dynamic MLP
lost six of its eight fusions to that)."""
from __future__ import annotations

import pytest

from loopopt import mlir
from loopopt.analysis.memory import UNTRACED, _refers_to, call_site_classes, clear_argument_classes
from loopopt.mlir import ir

CALLEE = """
func.func private @f(%a: memref<8xf32>, %b: memref<8xf32>) {
  return
}
func.func private @foo(%a: memref<8xf32>) {
  return
}
func.func @caller(%x: memref<8xf32>, %y: memref<8xf32>) {
  call @f(%x, %y) : (memref<8xf32>, memref<8xf32>) -> ()
  %true = arith.constant true
  cf.assert %true, "loopopt: @f: dim 0 of output argument 1 must equal dim 0 of argument 0"
  USE
  return
}
"""


def classes_of_f(use: str):
    clear_argument_classes()
    module = mlir.parse_module(CALLEE.replace("USE", use))
    fn = next(f for f in mlir.functions(module) if mlir.func_name(f) == "f")
    return call_site_classes(fn)


@pytest.mark.parametrize("use", ["", '"test.op"() {note = "calls @f"} : () -> ()',
                                 '%c = func.constant @foo : (memref<8xf32>) -> ()'])
def test_strings_and_other_symbols_do_not_take_the_address(use):
    assert UNTRACED not in classes_of_f(use)


@pytest.mark.parametrize("use", ['%c = func.constant @f : (memref<8xf32>, memref<8xf32>) -> ()',
                                 '"test.op"() {table = [@g, {entry = @f}]} : () -> ()',
                                 '"test.op"() {callee = #test.opaque<"@f">} : () -> ()'])
def test_a_symbol_reference_takes_the_address(use):
    assert classes_of_f(use) == [UNTRACED, UNTRACED]


def test_refers_to_reads_nested_references_and_roots():
    with mlir.new_context():
        assert _refers_to(ir.Attribute.parse("@f::@inner"), "f")
        assert not _refers_to(ir.Attribute.parse("@g::@f"), "f")
        assert _refers_to(ir.Attribute.parse('[1, {k = [@f]}]'), "f")
        assert not _refers_to(ir.Attribute.parse('"@f"'), "f")
        assert not _refers_to(ir.Attribute.parse("@f_2"), "f")
