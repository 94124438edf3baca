"""Eager's strides for the torch backend's outputs.

A loopopt kernel writes each result row-major. Eager's result of the same op may be laid out
otherwise: a conv or an elementwise op of a channels_last input is channels_last, `(x + 1).t()`
is a transpose of a row-major tensor. The values are equal, but code downstream may depend on the
strides (`.view()` fails on a non-contiguous tensor, `is_contiguous(memory_format=...)`), and a
view the backend makes again after the kernel (output_plan) has eager's strides only if the
tensor it views has.

TorchDynamo's fake tensor of each graph value (its `example_value`) carries eager's strides, as
SymInt expressions of the input sizes' symbols under dynamic shapes. `dense_order` finds the
order of dims, outermost first, in which those strides are row-major for every value of the
symbols (each stride the product of the sizes inside it, a polynomial identity; a size-1 dim's
stride included). The call then makes the output `result.permute(order)`, cloned row-major,
`.permute(inverse(order))`: a copy into memory ordered as eager's, a view of it with eager's sizes
and strides exactly. (Having the kernel write `value.permute(order)` itself from row-major inputs
was measured 3 to 17 times slower on channels_last results: loopopt's transposed stores;
docs/runtime.md. It is done where the inputs come in the same order and the graph is
pointwise, below: then nothing is transposed.) A
layout that is not a permutation of a dense row-major one (an expanded or strided view of a
temporary: stride 0, gaps) has no such order: the output stays row-major (eager's values, other
strides).

Inputs in such a layout (a channels_last activation, a transposed weight read as an input) are
passed without a copy: `memory_order` finds the order in which the tensor's memory is row-major,
the kernel takes `t.permute(order)` (contiguous: its memory as is) and the graph it is built from
begins with `.permute(inverse(order))`, which gives the graph the caller's tensor again, with its
strides. The kernel's key holds each input's order: another layout is another kernel. Where the
graph is pointwise from such an input to a result (`graph_facts`), the result is written in
eager's order by the kernel itself (the graph ends with `.permute(order)`, the call returns
`.permute(inverse(order))` of the array: eager's strides, no copy): the two permutes compose with
the pointwise ops into one loop nest over memory order. A result that is not pointwise (a conv's)
is written so too while the kernel built that way stores it along that order (its
info["across"]: docs/cpu_codegen.md section 50 makes a conv's stores follow the channels), else
row-major and copied. `kernel_layout` states the rule for each input and result.
"""
from __future__ import annotations

from dataclasses import dataclass

MAX_RANK = 8  # the search below tries orders; a rank above this keeps row-major


def _expr(v):
    """A size or stride as a sympy expression (an int, a SymInt's expression, or one already)."""
    import sympy

    if isinstance(v, sympy.Basic):
        return v
    node = getattr(v, "node", None)
    return node.expr if node is not None else sympy.Integer(int(v))


def _same(a, b) -> bool:
    """Whether two size expressions are equal for every value of their symbols (as polynomials,
    TorchDynamo's FloorDiv and the like as opaque terms)."""
    import sympy

    return sympy.expand(a - b) == 0


def dense_order(sizes, strides) -> tuple | None:
    """The dims, outermost first, in whose order a tensor of these sizes and strides is row-major:
    the innermost dim's stride is 1 and each other dim's is the product of the sizes inside it,
    for every value of the symbols; the identity first where it holds. None when there is none."""
    sizes = [_expr(s) for s in sizes]
    strides = [_expr(s) for s in strides]
    n = len(sizes)
    if n > MAX_RANK:
        return None

    def search(inner: list, need):
        if len(inner) == n:
            return inner
        for d in range(n - 1, -1, -1):  # the last dim innermost first: the identity is tried first
            if d not in inner and _same(strides[d], need):
                found = search(inner + [d], need * sizes[d])
                if found is not None:
                    return found
        return None

    import sympy

    inner = search([], sympy.Integer(1))
    return None if inner is None else tuple(reversed(inner))


def eager_order(value) -> tuple | None:
    """The order (dense_order) of dims in which eager lays out a graph value, from TorchDynamo's
    fake tensor of it; None for row-major (identity) or a layout no order gives."""
    import torch

    if not isinstance(value, torch.Tensor) or value.dim() < 2:
        return None
    try:
        order = dense_order(value.shape, value.stride())
    except Exception:  # noqa: BLE001 - an expression sympy cannot compare: row-major
        return None
    if order is None or order == tuple(range(value.dim())):
        return None
    return order


def inverse(order: tuple) -> tuple:
    """The permutation undoing `order`: t.permute(order).permute(inverse(order)) is t."""
    out = [0] * len(order)
    for k, d in enumerate(order):
        out[d] = k
    return tuple(out)


def memory_order(t) -> tuple | None:
    """The order of dims, outermost first, in which a CPU tensor's elements lie row-major in
    memory (`t.permute(order)` is contiguous, its memory as it is): None when the tensor is
    contiguous already (row-major; a size-1 dim's stride is not read) or when no order is (an
    expanded, strided or overlapping layout, which the call copies). Concrete sizes: read on
    every call."""
    if t.is_contiguous() or t.dim() < 2:
        return None
    stride = t.stride()
    order = tuple(sorted(range(t.dim()), key=lambda d: -stride[d]))  # (stable: equal strides keep dim order)
    return order if t.permute(order).is_contiguous() else None


@dataclass(frozen=True)
class GraphFacts:
    """What the kernel's graph does with its inputs' layouts, from one run on fake tensors of the
    call's inputs: per result, `pointwise` (its value is made from graph inputs and constants by
    pointwise and view ops only), `reach` (the graph inputs, by placeholder position, from which a
    path of pointwise and view ops only leads to it) and `orders` (eager's order, eager_order, of
    the result for these inputs' layouts)."""
    pointwise: tuple
    reach: tuple
    orders: tuple


# aten ops that compute each element from the same element of their operands (or make a
# constant) but that carry no pointwise tag
_ELEMENTWISE = frozenset({"_to_copy", "to", "type_as", "where", "rsub", "masked_fill", "hardswish",
                          "floor_divide", "copy", "copy_", "clone", "detach", "lift_fresh_copy", "alias",
                          "fill", "fill_", "zeros_like", "ones_like", "full_like", "empty_like", "scalar_tensor"})


def _pointwise_op(func) -> bool:
    """An aten op the kernel's loop nest can run in any order of dims: pointwise (torch's tag, or
    _ELEMENTWISE), a view (its result aliases its operand: a permute, an expand, a slice) or a
    query that makes no tensor (`prim.device`, a size)."""
    import torch

    if torch.Tag.pointwise in func.tags or getattr(func, "is_view", False):
        return True
    if not any("Tensor" in str(r.type) for r in func._schema.returns):
        return True
    name = func._schema.name.split("::")[-1]
    return name in _ELEMENTWISE


def graph_facts(gm, args) -> GraphFacts | None:
    """GraphFacts of `gm` (the graph the kernel is built from: its outputs are the kernel's
    results) on fake tensors made from `args` (no side effect, no arithmetic): each node's aten
    ops recorded as it runs. None when the graph cannot be run so (the call then copies, as for
    a graph that is not pointwise)."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.utils._python_dispatch import TorchDispatchMode

    ops: dict = {}
    current = [None]

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, fargs=(), kwargs=None):
            ops.setdefault(current[0], []).append(func)
            return func(*fargs, **(kwargs or {}))

    class Run(torch.fx.Interpreter):
        def run_node(self, n):
            current[0] = n
            return super().run_node(n)

    try:
        with FakeTensorMode(allow_non_fake_inputs=True) as mode:
            fake = [mode.from_tensor(a) if isinstance(a, torch.Tensor) else a for a in args]
            with Record(), torch.no_grad():
                out = Run(gm).run(*fake)
    except Exception:  # noqa: BLE001 - not analysed: every result copied, as before
        return None
    results = list(out) if isinstance(out, (tuple, list)) else [out]
    position = {n: k for k, n in enumerate(n for n in gm.graph.nodes if n.op == "placeholder")}
    pointwise: dict = {}
    reach: dict = {}
    for n in gm.graph.nodes:
        if n.op == "placeholder":
            pointwise[n], reach[n] = True, frozenset({position[n]})
        elif n.op == "get_attr":
            pointwise[n], reach[n] = True, frozenset()
        elif n.op == "output":
            break
        else:
            own = all(_pointwise_op(f) for f in ops.get(n, ()))
            pointwise[n] = own and all(pointwise.get(a, False) for a in n.all_input_nodes)
            reach[n] = frozenset().union(*(reach.get(a, frozenset()) for a in n.all_input_nodes)) if own \
                else frozenset()
    result_nodes = [n for n in gm.graph.nodes if n.op == "output"][0].args[0]
    result_nodes = list(result_nodes) if isinstance(result_nodes, (tuple, list)) else [result_nodes]
    if len(result_nodes) != len(results):
        return None
    return GraphFacts(tuple(pointwise.get(n, False) for n in result_nodes),
                      tuple(reach.get(n, frozenset()) for n in result_nodes),
                      tuple(eager_order(r) for r in results))


@dataclass(frozen=True)
class KernelLayout:
    """How one kernel meets its tensors' layouts: `inputs`, per kernel input, the order it is
    passed in (the kernel takes `t.permute(order)`, its memory as is; None: row-major, a copy when
    it is not); `results`, per result, eager's order (None: row-major); `written`, per result,
    whether the kernel itself writes it in that order (else the call copies it into it);
    `checked`, per result, whether it is written so although its graph is not pointwise: kept
    only while the built kernel stores it along its layout (`across`)."""
    inputs: tuple
    results: tuple
    written: tuple
    checked: tuple = ()

    def across(self, counts) -> frozenset:
        """The checked results a built kernel stores across their layout: `counts` is its
        info["across"] (runtime.compiler.stores_across, per out-parameter); all of them when
        the kernel does not say."""
        if not any(self.checked):
            return frozenset()
        if counts is None or len(counts) != len(self.checked):
            return frozenset(j for j, c in enumerate(self.checked) if c)
        return frozenset(j for j, c in enumerate(self.checked) if c and counts[j] > 0)

    @property
    def plain(self) -> bool:
        """Every result row-major, as the kernel writes it: nothing to do after the call."""
        return all(o is None for o in self.results)

    @property
    def after(self) -> tuple:
        """(result, order, inverse(order), written) of each result not row-major: what the call
        does with it (a view of the array the kernel wrote in that order, or a copy into it)."""
        return tuple((j, o, inverse(o), w) for j, (o, w) in enumerate(zip(self.results, self.written)) if o is not None)


def kernel_layout(orders: tuple, positions: tuple, results: tuple, facts: GraphFacts | None,
                  across: frozenset = frozenset()) -> KernelLayout:
    """The rule. `orders`: each kernel input's memory_order; `positions`: its graph input's
    position; `results`: eager's order of each result (None: row-major, or eager_strides off);
    `across`: results a kernel built to write them in eager's order stored across that order
    (`stores_across`, below).
    A result eager lays out in a permuted order is written so by the kernel itself: when its
    graph is pointwise (facts.pointwise) the permutes around it compose away; any other (a
    conv's, a reduction's, a residual's) is written so unless it is in `across`: the kernel
    built so stored it across its layout (a store that moves, along the loop directly around
    it, by other than one element of the last dimension: the conv's output tile written across
    channels measured 17 to 21 times slower), and it is written row-major and copied after. An
    input in a permuted order is passed as its memory, but where a path of pointwise ops leads
    from it to a result written in another order: there the kernel would read it across its
    memory (a transposed load in the loop nest, measured slower than torch's copy), so it is
    copied row-major as before. Not analysed (facts None): every result copied, every input that
    reaches any result copied."""
    n = len(results)
    written = tuple(o is not None and facts is not None and (facts.pointwise[j] or j not in across)
                    for j, o in enumerate(results))
    kept = tuple(o if w else None for o, w in zip(results, written))  # the order the kernel writes each in
    inputs = []
    for order, pos in zip(orders, positions):
        if order is not None:
            reaches = range(n) if facts is None else [j for j in range(n) if pos in facts.reach[j]]
            if any(kept[j] != order for j in reaches):
                order = None
        inputs.append(order)
    checked = tuple(w and not facts.pointwise[j] for j, w in enumerate(written)) if facts is not None else (False,) * n
    return KernelLayout(tuple(inputs), tuple(results), written, checked)
