"""End to end: the whole pass on every example keeps results and emits IR mlir-opt accepts."""
import pytest

from fusion_util import optimize_checked
from test_corpus import FILES, _sizes  # the corpus and its argument sizes


@pytest.mark.parametrize("target", ["trn1", "cpu"])
@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_whole_pass_keeps_results(path, target):
    res = optimize_checked(path.read_text(), target=target, sizes=_sizes(path))
    fused = [m for m in res.remarks.messages("fusion") if m.startswith("[LOOP FUSION]")]
    assert res.num_loops_fused == len(fused)
