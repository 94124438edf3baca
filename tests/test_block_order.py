"""`rewriter.BlockOrder` stays equal to the block's real order under random moves, erases and
replacements made through the Rewriter: its op list and `is_before` against MLIR's
`is_before_in_block`, also when ranks run out and the block is renumbered."""
import random

import pytest

from loopopt import mlir
from loopopt.mlir import ir
from loopopt.transforms import rewriter as rw


def _block(n: int):
    lines = ["func.func @f(%m: memref<8xf32>) {"]
    lines += [f"  %c{k} = arith.constant {k}.0 : f32" for k in range(n)]
    lines += ["  return", "}"]
    module = mlir.parse_module("\n".join(lines) + "\n")
    return module, mlir.func_body(mlir.functions(module)[0])


def _check(order: rw.BlockOrder, block) -> None:
    ops = mlir.block_ops(block)
    assert [mlir.op_key(o) for o in order.ops()] == [mlir.op_key(o) for o in ops]
    for a in ops:
        for b in ops:
            if mlir.op_key(a) != mlir.op_key(b):
                assert order.is_before(a, b) == a.is_before_in_block(b)


def _replace_by_clone(r: rw.Rewriter, op):
    def build():
        new = op.clone(ip=ir.InsertionPoint(op))
        op.erase()
        return [[new]]
    return r.replace([op], build)


@pytest.mark.parametrize("stride", [rw.RANK_STRIDE, 2])
@pytest.mark.parametrize("seed", range(6))
def test_order_follows_random_edits(seed, stride, monkeypatch):
    monkeypatch.setattr(rw, "RANK_STRIDE", stride)
    rng = random.Random(seed)
    module, block = _block(24)
    order = rw.BlockOrder(block)
    r = rw.Rewriter(order)
    hot = None  # a place many ops are moved to, as the fusion driver hoists before one loop
    for step in range(120):
        ops = mlir.block_ops(block)[:-1]  # never the terminator
        kind = rng.random()
        if kind < 0.6 and len(ops) >= 2:
            op = rng.choice(ops)
            if hot is None or rng.random() < 0.3 or mlir.op_key(hot) == mlir.op_key(op):
                hot = rng.choice([o for o in mlir.block_ops(block) if mlir.op_key(o) != mlir.op_key(op)])
            r.move_before(op, hot)
        elif kind < 0.8 and len(ops) > 4:
            op = rng.choice(ops)
            if hot is not None and mlir.op_key(hot) == mlir.op_key(op):
                hot = None
            r.erase(op)
        elif ops:
            op = rng.choice(ops)
            if hot is not None and mlir.op_key(hot) == mlir.op_key(op):
                hot = None
            _replace_by_clone(r, op)
        _check(order, block)
    del module


def test_small_stride_renumbers(monkeypatch):
    """With a stride of 2, the second insertion at one place has no integer left: renumbered."""
    monkeypatch.setattr(rw, "RANK_STRIDE", 2)
    module, block = _block(4)
    order = rw.BlockOrder(block)
    r = rw.Rewriter(order)
    calls = []
    real = order._renumber
    order._renumber = lambda: (calls.append(1), real())[1]
    ops = mlir.block_ops(block)
    r.move_before(ops[3], ops[1])
    r.move_before(ops[2], ops[1])
    assert calls  # the gap ran out
    _check(order, block)
    del module
