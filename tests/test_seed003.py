"""Seed 003's six fusion experiments: valid IR and unchanged results under every target."""
import glob
import os

import pytest

from fusion_util import optimize_checked

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = sorted(glob.glob(os.path.join(ROOT, "examples", "seed003", "*.mlir")))


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(f) for f in FILES])
@pytest.mark.parametrize("target", ["trn1", "cpu"])
def test_seed003_programs_stay_valid_and_correct(path, target):
    src = open(path).read()
    res = optimize_checked(src, target=target, sizes={"arg2": 4, "arg3": 6})
    assert res.text.count("affine.for") >= 2


def test_seed003_symbolic_bounds_get_a_reason_not_silence():
    # exp_A: producer runs %n x %m, consumer %m x %n. MLIR declines silently; we say why.
    src = open(os.path.join(ROOT, "examples", "seed003", "exp_A.mlir")).read()
    res = optimize_checked(src, target="cpu", sizes={"arg2": 4, "arg3": 6})
    assert "[STOP FUSION] unmatched trip count" in res.remarks.messages("fusion")
