"""A shrunk buffer's index is simplified (loop_optimization/contraction.py apply_shrink): the
owning loop's index subtracted from an index that names it through a folded reshape view
(u * 4 + i) leaves u * 4, not u * 4 + i - i, which product isolation would see moving with %i
(the ViT MLP at a batch of one, docs/cpu_codegen.md section 34). The lit golden is
tests/lit/contraction/shrink-simplified-index.mlir; here the results and the expression rule."""
from __future__ import annotations

import os

import loopopt
from loopopt.analysis.affine import simplified
from loopopt.mlir import ir, new_context
from loopopt.testing import assert_same_results

GOLDEN = os.path.join(os.path.dirname(__file__), "lit", "contraction", "shrink-simplified-index.mlir")


def test_shrunk_index_is_simplified_and_results_unchanged():
    text = open(GOLDEN).read()
    out = loopopt.optimize(text, target="cpu", passes="contraction")
    assert "shrunk from 4x8 to 1x8" in out.remarks_text()
    assert "- %arg" not in out.text
    assert assert_same_results(text, out.text, func="k")


def test_simplified_collects_terms_and_keeps_the_function():
    with new_context():
        cases = {
            "(d0, d1) -> (d0 * 197 + d1 - d1)": "d0 * 197",
            "(d0, d1)[s0] -> ((d0 * 2 + d1 - d0 * 2 + 3) floordiv 4 + s0 - 1 + 1)": "(d1 + 3) floordiv 4 + s0",
            "(d0) -> (-d0 + d0)": "0",
        }
        for text, want in cases.items():
            m = ir.Attribute.parse(f"affine_map<{text}>").value
            got = simplified(m.results[0], m.n_dims, m.n_symbols)
            assert str(got) == want
            # a folded sum is downcast to its kind (the bindings type it as the sum)
            assert type(got).__name__ != "AffineAddExpr" or "+" in str(got)
