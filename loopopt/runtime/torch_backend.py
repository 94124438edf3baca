"""`torch.compile(model, backend=loopopt.torch_backend)`: FX graphs run as loopopt-built kernels.

    import torch, loopopt
    fast = torch.compile(model, backend=loopopt.torch_backend)
    with torch.no_grad():
        y = fast(x)

Each graph TorchDynamo hands over becomes a `GraphKernel`. On its first call it is exported
(`torch.export`), taken to linalg on tensors by torch-mlir's FX importer
(`torch_mlir.fx.export_and_import`, in this process), compiled with `loopopt.compile` (whose cache
makes a repeat cheap, across processes too) and kept. A dynamic batch follows torch's guards:
when TorchDynamo retraces a graph with symbolic sizes (its automatic dynamic shapes, or
`dynamic=True`), the graph is exported once with those sizes dynamic (`torch.export.Dim`, one per
symbol) and one kernel serves every size, its dims checked on each call. Where that export fails
(a size the model specialises, a size derived from others), the graph is built once per input
signature instead (shapes, and values of non-tensor inputs, baked in): a kernel per shape, never a
wrong one. Under `dynamic=True` TorchDynamo also passes a module's float attributes (LayerNorm's
`eps`, LeakyReLU's slope) as 0-d tensors the graph reads by `.item()`, which torch.export cannot
trace: such an input is specialised instead, its value written into the kernel and compared on
every call (another value builds another kernel).

Calls run on the tensors' own memory: a contiguous CPU tensor is passed as a numpy view
(`t.detach().numpy()`, no copy), one whose strides are a permutation of a contiguous layout
(channels_last) as the view of its memory in that order, the kernel built on the graph permuted
so (torch_layout; each input's order is in the kernel's key), any other non-contiguous one made
contiguous first (a copy); each output is a tensor over the array the kernel wrote.

Weights: TorchDynamo passes a module's parameters as graph inputs. They are frozen into the kernel
as constants (as the committed blocks' weights are), which lets loopopt fold `aten.linear`'s
transpose and lay the weights out in panels at compile time; the freeze is guarded: each call
checks that every frozen parameter is the same tensor, with the same storage and version counter
(which every in-place update bumps, under no_grad too); an inference tensor (no version counter),
and every weight with `options={"freeze_weights": "checked"}`, is also compared with a copy taken
when frozen (an update through `.data` bumps no version). After any change the graph's kernels
take the weights as inputs instead, read in place on every call (`options={"freeze_weights":
False}` to torch.compile starts there).

Outputs eager makes as views (of an input: `x.t()`, `x.contiguous()`; of another value:
`y, y.view(-1)`, `y[:2], y[1:]`) share memory as eager's do: the kernel leaves them out and the
view ops that make them run after it (`output_plan`), on the call's inputs and SymInt sizes (a
view sized by the inputs, `x[:, : x.shape[1] // 2]` under dynamic shapes, is sized at each call).
Each result whose eager strides are a permutation of a dense layout (channels_last, a transpose:
torch_layout) is returned with eager's strides: written so by the kernel where the graph makes it
by pointwise ops or where the kernel's stores follow that layout (a conv's), else copied into it
(options={"eager_strides": False}: row-major). Where
torch-mlir's lowering differs from eager (NaN in maximum, clamp, argmax; an integer neg through
f32; floor division, fmod, trunc of -0, round with decimals; nn.Bilinear's broadcast product) the
export is decomposed into ops it lowers exactly, or faster (torch_exact).

Complex values (a rotary embedding's `view_as_complex(x) * freqs_cis`): torch-mlir imports them as
the complex dialect, which loopopt does not take; the graph is first written on real tensors of a
trailing dim 2 (torch_complex.as_real: eager's arithmetic on the parts), complex inputs passed as
their `view_as_real` (no copy) and complex outputs returned as `view_as_complex` of the results; a
complex op it has no rule for is a fallback naming the op.

Inputs updated in place (`x.add_(1)`, BatchNorm's running statistics in training mode): the
kernel computes on a copy of each and returns its final value after its results; the call copies
it into the caller's tensor (input_updates).

Fallback: a graph, or a call, loopopt cannot take runs eagerly (the graph's own forward) with one
`LoopoptFallbackWarning` per graph and reason, naming the op or the cause: an op torch-mlir or
loopopt's lowering does not take, an input on another device or of another layout, an in-place
change of an input's sizes, an in-place update of a frozen weight, an updated input sharing memory
with another input, a non-tensor output, a call that
needs autograd (a kernel has no backward: call the model under `torch.no_grad()` or
`torch.inference_mode()`), an integer division by a tensor (a zero divisor: eager raises, a
kernel traps), a view of a tensor with no elements (torch-mlir's lowering traps), outputs that
overlap in memory without one being the other's base. Never a wrong result, never an exception
the model would not raise.

torch and torch-mlir are imported when the backend is first used (the `torch` extra).
"""
from __future__ import annotations

import contextlib
import itertools
import re
import threading
import warnings
from dataclasses import dataclass

from .phases import phase
from .torch_complex import ComplexCall, ComplexFallback, as_real
from .torch_exact import (decompositions as exact_decompositions, float_scalars, negative_offsets, scatter_dims,
                          stable_sorts, trapping_division, zero_size_view)
from .torch_literals import literal_hooks
from .torch_fused import unfuse
from .torch_layout import KernelLayout, eager_order, graph_facts, inverse, kernel_layout, memory_order

_COUNTER = itertools.count()
_BUILDING = threading.RLock()  # one graph exported and compiled at a time, in any thread


class LoopoptFallbackWarning(UserWarning):
    """A graph or a call ran eagerly instead of through a loopopt kernel; the message says why."""


class Fallback(Exception):
    """Why a graph (for some shapes) cannot run as a kernel; one line naming the op or cause."""


class InputUpdates(Exception):
    """The exported graph updates these graph inputs in place (`positions`, the graph's argument
    positions): to_linalg is to be called again with them as `updates` (input_updates)."""

    def __init__(self, positions: tuple):
        super().__init__(f"the graph updates its inputs {positions} in place")
        self.positions = positions


def backend(gm, example_inputs, **options):
    """The backend TorchDynamo calls with each graph; returns the callable it runs instead. A
    graph loopopt cannot take at all is returned as is (eager), with one warning naming why.
    `torch.compile(..., options={...})` calls it with `options=` that dict: its entries are the
    options (they were taken for one knob named `options`, which loopopt.compile refused: every
    graph ran eagerly)."""
    name = f"torch_graph_{next(_COUNTER)}"
    if isinstance(options.get("options"), dict):
        given = options.pop("options")
        options = {**options, **given}
    why = precheck(gm)
    real = None
    if why is None:
        try:
            real = as_real(gm)
        except ComplexFallback as e:
            why = str(e)
        except Exception as e:  # noqa: BLE001 - not written: eager, never a wrong value
            why = f"the graph's complex values could not be written as real ones: {_first_line(str(e))}"
    if why is not None:
        _warn(name, why)
        return gm.forward
    if real is not None:  # complex values as real tensors (torch_complex): the real graph is the kernel's
        def eager(args, why):
            _warn(name, why)
            return gm.forward(*args)
        return ComplexCall(real, _graph_callable(real.gm, name, options), eager)
    return _graph_callable(gm, name, options)


def _graph_callable(gm, name: str, options: dict):
    """A GraphKernel for the graph, or its own forward (eager) where its outputs' aliasing cannot be
    kept (one warning naming why) or where every output is a view of an input."""
    why = None
    try:
        plan = output_plan(gm)
    except Fallback as e:
        why = str(e)
    except Exception as e:  # noqa: BLE001 - not analysed: eager, never a wrong alias
        why = f"the outputs' aliasing could not be analysed: {_first_line(str(e))}"
    if why is not None:
        _warn(name, why)
        return gm.forward
    if not plan.values:  # every output a view of an input: nothing to compute, eager's views
        return gm.forward
    return GraphKernel(gm, name, options, plan)


def _warn(name: str, why: str) -> None:
    warnings.warn(f"loopopt.torch_backend: {name} runs eagerly: {why}", LoopoptFallbackWarning, stacklevel=3)


def precheck(gm) -> str | None:
    """Why a graph cannot be a kernel whatever its inputs (None: it may be): outputs that are not
    all tensors, or an in-place op that changes a graph input's sizes or storage (`x.unsqueeze_(0)`:
    the caller's tensor would change shape, which no copy of a result into it does). An in-place
    update of an input's values (`x.add_(1)`, BatchNorm's running statistics in training mode) is
    no reason: the kernel returns the input's final value and the call copies it in
    (input_updates); an in-place op on a tensor the graph made is value semantics after the export."""
    graph = gm.graph
    outputs = [n for n in graph.nodes if n.op == "output"]
    if len(outputs) != 1:
        return "the graph has no single output node"
    result = outputs[0].args[0]
    items = result if isinstance(result, (tuple, list)) else (result,)
    for item in items:
        val = getattr(item, "meta", {}).get("example_value") if hasattr(item, "meta") else None
        if not hasattr(item, "op") or (val is not None and type(val).__name__ not in ("FakeTensor", "Tensor")):
            return f"output {item!r} is not a tensor"
    for node in graph.nodes:
        if _in_place(node) and _target_name(node) in _SHAPE_IN_PLACE \
                and getattr(node.args[0] if node.args else None, "op", None) == "placeholder":
            return f"op {_target_name(node)} changes a graph input's sizes in place"
    return None


def _storage_key(node):
    """The storage of a graph value's example (TorchDynamo's fake tensor; views share it), or None."""
    import torch
    from torch.multiprocessing.reductions import StorageWeakRef

    ev = node.meta.get("example_value") if hasattr(node, "meta") else None
    if not isinstance(ev, torch.Tensor):
        return None
    try:
        return StorageWeakRef(ev.untyped_storage())
    except Exception:  # noqa: BLE001 - a tensor without storage: no alias to keep
        return None


def _ancestors(node, stop) -> set:
    seen, todo = set(), [node]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        if n not in stop:
            todo.extend(n.all_input_nodes)
    return seen


_SHAPE_IN_PLACE = ("t_", "transpose_", "swapdims_", "swapaxes_", "squeeze_", "unsqueeze_", "resize_",
                   "resize_as_", "as_strided_", "set_")  # in-place ops that change a tensor's sizes or storage


def _target_name(node) -> str:
    return node.target if isinstance(node.target, str) else getattr(node.target, "__name__", str(node.target))


def _in_place(node) -> bool:
    """Whether a call updates its first operand in place (`add_`, `setitem`; `operator.and_` is not)."""
    if node.op not in ("call_function", "call_method"):
        return False
    target = _target_name(node)
    pure = getattr(node.target, "__module__", None) in ("_operator", "operator")
    return target.endswith("_") and not target.startswith("_") and not pure or target in ("setitem", "__setitem__")


def _root(graph, key):
    """The first value of the graph on storage `key`: the tensor the others with it view."""
    return next((n for n in graph.nodes if _same_storage(_storage_key(n), key)), None)


def _same_storage(a, b) -> bool:
    return a is not None and b is not None and a == b  # (a StorageWeakRef compared with None raises)


@dataclass
class OutputViews:
    """The outputs that share memory, in eager, with an input or with another output, and how to
    make them so: `replay`, the part of the graph that makes them (views of the inputs and of the
    `bases`, the kernel's results they view, at those positions of its results), run eagerly after
    the kernel on the call's inputs (TorchDynamo's SymInt sizes among them: a size derived from
    them, `x.shape[1] // 2`, is computed by the graph's own ops) and those results; its results
    are the graph's outputs at `positions`."""
    positions: tuple
    bases: tuple
    replay: object


@dataclass
class OutputPlan:
    """What the kernel returns and how the graph's outputs are made of it: `values`, the graph
    values it computes (the outputs no view makes, then the tensors views of which are outputs
    but which are not: hidden bases); `at`, per result, the output it is (None: hidden); `orders`,
    per result, the order of dims eager lays it out in (torch_layout; None: row-major), which the
    call copies it into; `views`, the outputs made after the kernel."""
    values: tuple
    at: tuple
    orders: tuple
    views: OutputViews | None

    @property
    def same_values(self) -> bool:
        """The kernel returns the graph's outputs, in order (no view left out, no hidden base)."""
        return self.views is None and self.at == tuple(range(len(self.at)))

    @property
    def plain(self) -> bool:
        """The kernel's results are the graph's outputs, row-major as eager's: nothing to do."""
        return self.same_values and all(o is None for o in self.orders)


def output_plan(gm) -> OutputPlan:
    """An output that eager makes as a view of an input (`x.t()`, `x[1:]`, `x.contiguous()`) or of
    another value (`y, y.view(-1)`; `y[:2], y[1:]` of a `y` it does not return) shares memory with
    it, which a caller's later in-place op sees; a kernel writes a new array. Such outputs are not
    computed by the kernel: they are made after it, as eager makes them, from the inputs and from
    the kernel's results (OutputViews), the tensor they view among them (a hidden base when it is
    not an output). `orders`: eager's layout of each result where one is known (eager_order).
    Fallback when a view cannot be made again exactly (an op in its making that changes sizes in
    place, an `out=`)."""
    import torch

    graph = gm.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    result = [n for n in graph.nodes if n.op == "output"][0].args[0]
    items = list(result) if isinstance(result, (tuple, list)) else [result]
    inputs = {k for p in placeholders if (k := _storage_key(p)) is not None}
    keys = [_storage_key(n) if isinstance(n, torch.fx.Node) else None for n in items]
    positions, bases = [], []  # outputs made after the kernel; the values they view
    for k, key in enumerate(keys):
        if key is None or k in positions:
            continue
        if key in inputs:
            positions.append(k)
            continue
        if any(_same_storage(keys[j], key) for j in range(k)):  # its group is done (k is its base)
            continue
        group = [j for j in range(len(items)) if _same_storage(keys[j], key)]
        if len(group) == 1:
            continue
        root = _root(graph, key)
        if root is None or any(root not in _ancestors(items[j], ()) for j in group):
            raise Fallback(f"outputs {group[0]} and {group[1]} share memory in eager, not as views of one value")
        bases.append(root)
        made = next((j for j in group if items[j] is root), None)  # the base itself, an output: computed
        positions.extend(j for j in group if j != made)
    values = [items[k] for k in range(len(items)) if k not in positions]
    at = [k for k in range(len(items)) if k not in positions]
    for b in bases:
        if b not in values:
            values.append(b)
            at.append(None)
    orders = tuple(eager_order(v.meta.get("example_value")) for v in values)
    views = None
    if positions:
        views = _replay(gm, placeholders, [items[k] for k in positions], positions,
                        {b: values.index(b) for b in bases})
    return OutputPlan(tuple(values), tuple(at), orders, views)


def _replay(gm, placeholders, outputs, positions, bases: dict) -> OutputViews:
    """The graph's part that makes `outputs` from its inputs and the kernel's results at `bases`
    (value -> result index). An in-place op in it is the kernel's already (its base is the
    kernel's final value): it stands for its operand. Refused: an `out=` in it, and any op of the
    graph that changes a tensor's sizes or storage in place (`v = y[0]; v.unsqueeze_(0)`, or
    `y.t_()` after `v = y[0]`: the view made again from the kernel's final value would not be
    eager's; such an op need not be on the path to the output)."""
    import torch

    for node in gm.graph.nodes:
        if _in_place(node) and _target_name(node) in _SHAPE_IN_PLACE:
            raise Fallback(f"op {_target_name(node)} changes a tensor's sizes in place: the outputs eager makes as "
                           "views could not be made again after the kernel")
    needed = set()
    for node in outputs:
        needed |= _ancestors(node, set(bases) | set(placeholders))
    replay = torch.fx.Graph()
    env = {}
    for p in placeholders:
        env[p] = replay.placeholder(p.name)
    for node, b in bases.items():
        env[node] = replay.placeholder(f"kernel_result_{b}")
    for node in gm.graph.nodes:
        if node not in needed or node in env or node.op in ("placeholder", "output"):
            continue
        if "out" in node.kwargs:
            raise Fallback(f"an output eager makes as a view is made by op {_target_name(node)} with out=, "
                           "which could not be made again after the kernel")
        if _in_place(node):
            env[node] = env[node.args[0]]
        else:
            env[node] = replay.node_copy(node, lambda n: env[n])
    replay.output(tuple(env[n] for n in outputs))
    return OutputViews(tuple(positions), tuple(bases.values()), torch.fx.GraphModule(gm, replay))


def kernel_graph(gm, plan: OutputPlan):
    """The graph the kernel is built from: `gm` itself when it returns the graph's outputs
    (plan.same_values), else a copy returning plan.values."""
    import torch

    if plan.same_values:
        return gm
    graph = torch.fx.Graph()
    env: dict = {}
    graph.graph_copy(gm.graph, env)
    graph.output(tuple(env[v] for v in plan.values))
    _drop_unused(graph)
    return torch.fx.GraphModule(gm, graph)


def _drop_unused(graph) -> None:
    """Erase the calls nothing uses (the views no longer returned: torch.export would trace them,
    and a slice `x[1:]` of a dynamic size constrains it), but an in-place op or an impure call.
    (FX's eliminate_dead_code takes every call_method for pure: `v.mul_(2)` would go.)"""
    for node in reversed(list(graph.nodes)):
        if node.op in ("call_function", "call_method") and not node.users and not _in_place(node) \
                and not node.is_impure():
            graph.erase_node(node)


class GraphKernel:
    """What TorchDynamo calls instead of a graph: loopopt kernels for its input signatures, with
    the module's parameters frozen into them while they stay the same tensors, unmodified."""

    def __init__(self, gm, name: str, options: dict, outputs: OutputPlan | None = None):
        self.gm = gm
        if outputs is None:
            outputs = output_plan(gm)
        self.outputs = outputs  # what the kernel returns, and how the graph's outputs are made of it
        self.views = outputs.views  # outputs eager makes as views of inputs or of other values
        self.kernel_gm = kernel_graph(gm, outputs)
        self.name = name
        self.options = dict(options)
        self.eager_strides = self.options.pop("eager_strides", True)  # False: results row-major, no copy
        self._same = outputs.same_values  # (read on every call)
        self.layouts: dict = {}  # the kernels' key -> KernelLayout: how each kernel takes and gives layouts
        freeze = self.options.pop("freeze_weights", True)
        if freeze not in (True, False, "checked"):
            raise ValueError(f"loopopt.torch_backend: freeze_weights must be True, False or 'checked', not {freeze!r}")
        self.freeze = bool(freeze)
        self.check_values = freeze == "checked"  # compare every frozen weight's bytes on every call
        self.guard: tuple | None = None  # (position, parameter, _version, data_ptr) of each frozen weight
        self.plan: tuple | None = None  # (roles, dynamic_shapes) while one kernel may serve every size
        self.planned = False
        self._inputs: tuple | None = None  # positions of the kernels' tensor inputs (input_positions)
        self.scalars = item_scalars(gm)  # positions of 0-d tensors read only by .item(): specialised
        self.kernels: dict = {}  # (signature or "dynamic", frozen) -> Kernel, or a Fallback message
        self.warned: set = set()
        self.updates: tuple = ()  # graph inputs the graph updates in place (input_updates): found by the first build
        self._lock = threading.Lock()
        result = [n for n in gm.graph.nodes if n.op == "output"][0].args[0]
        self._tuple_output = isinstance(result, (tuple, list))
        self.n_outputs = len(result) if self._tuple_output else 1

    def __call__(self, *args):
        import torch

        if torch.is_grad_enabled() and any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):
            return self._eager(args, "the call needs autograd (a kernel has no backward): call the model under "
                                     "torch.no_grad() or torch.inference_mode()")
        if self.guard is not None and not _unchanged(self.guard, args):
            with self._lock:
                self.freeze, self.guard, self.planned, self._inputs = False, None, False, None  # weights as inputs
        inputs = self._inputs
        if inputs is None:
            inputs = self._inputs = self.input_positions(args)
        tensors = [args[i] for i in inputs]
        bad = next((t for t in tensors if not t.is_cpu or t.layout is not torch.strided or t.is_quantized), None)
        if bad is not None:
            return self._eager(args, f"an input is a {bad.device.type} {bad.layout} tensor (the kernels run on CPU "
                                     "strided tensors)")
        values = scalar_values(args, self.scalars)
        orders = tuple(memory_order(t) for t in tensors)  # each input's layout: part of every kernel's key
        kernel = layout = None
        if self.planned:
            key = ("dynamic", self.freeze, values, orders) if self.plan else \
                (signature(args), self.freeze, values, orders)
            kernel, layout = self.kernels.get(key), self.layouts.get(key)
        if kernel is None or (layout is None and not isinstance(kernel, str)):
            with self._lock, phase(f"torch graph {self.name}"):
                kernel, layout = self._kernel_for(args, values, orders)
        if isinstance(kernel, str):
            return self._eager(args, kernel)
        if self.updates and _shares_updated_memory(args, self.updates, inputs):
            return self._eager(args, "an input the graph updates in place shares memory with another input")
        try:
            got = kernel(*[_array(t, o) for t, o in zip(tensors, layout.inputs)])
        except (TypeError, ValueError, RuntimeError) as e:  # no numpy view, or the kernel's own argument checks
            return self._eager(args, f"the kernel refused its arguments: {e}")
        if type(got) is not tuple:
            got = (got,)
        outs = tuple(torch.from_numpy(x) for x in got)
        if self.updates:  # the updated inputs' final values, after the results: copied in as eager leaves them
            n = len(self.outputs.values)
            for i, value in zip(self.updates, outs[n:]):
                args[i].copy_(value)
            outs = outs[:n]
        if not (self._same and layout.plain):
            try:
                outs = self._made(args, outs, layout)
            except Exception as e:  # noqa: BLE001 - a view eager made of its own layout: eager runs
                return self._eager(args, "an output eager makes as a view could not be made again: "
                                         f"{_first_line(str(e))}")
        return outs if self._tuple_output else outs[0]

    def _made(self, args, results: tuple, layout: KernelLayout) -> tuple:
        """The graph's outputs from the kernel's results (OutputPlan): each in eager's layout
        (KernelLayout: a result the kernel wrote in eager's order is viewed with eager's sizes and
        strides, `permute(inverse(order))`; one it wrote row-major is copied into memory ordered
        as eager's: `permute(order)`, a clone row-major in that order, then that view; not
        `contiguous()`, which returns the tensor itself where only a size-1 dim is out of order
        and keeps its stride), those eager makes as views (of an input, of another value) made so."""
        import torch

        plan = self.outputs
        results = list(results)
        for j, order, inv, written in layout.after:
            r = results[j] if written else results[j].permute(order).clone(memory_format=torch.contiguous_format)
            results[j] = r.permute(inv)
        outs = [None] * self.n_outputs
        for j, k in enumerate(plan.at):
            if k is not None:
                outs[k] = results[j]
        views = plan.views
        if views is not None:
            made = views.replay(*args, *[results[b] for b in views.bases])
            for k, v in zip(views.positions, made):
                outs[k] = v
        return tuple(outs)

    def input_positions(self, args) -> tuple:
        """The positions of the kernels' tensor inputs: every tensor argument but the frozen and the
        specialised scalar ones."""
        import torch

        frozen = self.frozen_positions(args)
        return tuple(i for i, a in enumerate(args) if isinstance(a, torch.Tensor) and i not in frozen
                     and i not in self.scalars)

    def frozen_positions(self, args) -> frozenset:
        """The arguments baked into the kernels as constants: the parameters, while freezing holds."""
        import torch

        if not self.freeze:
            return frozenset()
        return frozenset(i for i, a in enumerate(args) if isinstance(a, torch.nn.Parameter))

    def _eager(self, args, why: str):
        if why not in self.warned:
            self.warned.add(why)
            _warn(self.name, why)
        return self.gm.forward(*args)

    def _kernel_for(self, args, values: tuple, orders: tuple):
        """The kernel (or the Fallback message) for these inputs and its KernelLayout, built if
        there is none yet: one for every size while the dynamic plan holds, else one per
        signature; one per value of the specialised scalars and per layout of the inputs (their
        memory_order) either way."""
        frozen = self.frozen_positions(args)
        if not self.planned:
            self.plan, self.planned = dynamic_plan(self.gm, frozen, self.scalars), True
        if self.freeze and self.guard is None:
            self.guard = tuple((i, args[i], _version(args[i]), args[i].data_ptr(),
                                _bytes(args[i]).copy() if self.check_values or _version(args[i]) is None else None)
                               for i in sorted(frozen))
        if self.plan is not None:
            key = ("dynamic", self.freeze, values, orders)
            kernel = self.kernels.get(key)
            if kernel is None:
                try:
                    kernel, layout = self._built(args, frozen, self.plan, orders)
                    self.layouts[key] = layout  # (before the kernel: a call that finds it finds its layout)
                    self.kernels[key] = kernel
                except Fallback:
                    self.plan = None  # built per signature from now on
            if kernel is not None:
                return kernel, self.layouts[key]
        key = (signature(args), self.freeze, values, orders)
        kernel = self.kernels.get(key)
        if kernel is None:
            try:
                kernel, layout = self._built(args, frozen, None, orders)
                self.layouts[key] = layout
            except Fallback as e:
                kernel = str(e)
            self.kernels[key] = kernel
        return kernel, self.layouts.get(key)

    def _built(self, args, frozen: frozenset, plan, orders: tuple):
        """(kernel, KernelLayout) for inputs laid out in `orders`: built on kernel_layout's rule;
        where the kernel stores a result it was to write in eager's order (not pointwise: a
        conv's) across that order (its info["across"], runtime.compiler.stores_across), built
        again with those results written row-major and copied after the call."""
        with phase("layout"):
            layout = self._layout(args, orders)
        kernel = self._build(args, frozen, plan, layout)
        across = layout.across(kernel.info.get("across"))
        if across:
            with phase("layout (across)"):
                layout = self._layout(args, orders, across)
            kernel = self._build(args, frozen, plan, layout)
        return kernel, layout

    def _layout(self, args, orders: tuple, across: frozenset = frozenset()) -> KernelLayout:
        """The KernelLayout of a kernel for inputs laid out in `orders` (kernel_layout's rule;
        `across`: results a kernel stored across their layout).
        Eager's order of each result: TorchDynamo's fake tensors' (for every size of a dynamic
        graph) when the inputs have the layouts it traced the graph with (its guards send others
        to another graph), else a fake run's on these inputs; none with eager_strides off."""
        positions = self.input_positions(args)
        n = len(self.outputs.values)
        placeholders = [p for p in self.kernel_gm.graph.nodes if p.op == "placeholder"]
        traced = tuple(eager_order(placeholders[i].meta.get("example_value")) for i in positions)
        results = self.outputs.orders if orders == traced else None
        if all(o is None for o in orders) and results is not None and all(o is None for o in results):
            return KernelLayout(orders, results, (False,) * n)  # row-major in and out: nothing to analyse
        gm = self.kernel_gm
        if self.scalars:
            gm = with_scalars(gm, {i: args[i].item() for i in self.scalars})
        with _BUILDING:  # (fake tensor modes, as torch.export: one at a time)
            facts = graph_facts(unfuse(gm), args)
        if results is None:
            results = facts.orders if facts is not None else (None,) * n
        if not self.eager_strides:
            results = (None,) * n
        return kernel_layout(orders, positions, results, facts, across)

    def _build(self, args, frozen: frozenset, plan, layout: KernelLayout | None = None):
        """Export, import and compile the graph for these inputs (every size of its symbolic dims
        with a plan) in this layout; Fallback with one line on failure."""
        from ..api import compile as loopopt_compile

        with _BUILDING:  # torch.export and the stderr capture are not thread-safe: one build at a time
            try:
                with phase("to_linalg"):
                    text = to_linalg(self.kernel_gm, args, FUNCTION, frozen, plan, self.scalars, layout, self.updates)
            except InputUpdates as e:  # (the first build: the graph updates these inputs; every later one knows)
                self.updates = e.positions
                with phase("to_linalg (updates)"):
                    text = to_linalg(self.kernel_gm, args, FUNCTION, frozen, plan, self.scalars, layout, self.updates)
            try:
                kernel = loopopt_compile(text, filename=f"<{self.name}>", **self.options)
            except Exception as e:  # loopopt's own errors are one line; name the op where it says one
                raise Fallback(_named(f"loopopt.compile: {_first_line(str(e))}")) from None
        n_inputs = sum(1 for i, a in enumerate(args) if _is_tensor(a) and i not in frozen and i not in self.scalars)
        if kernel.spec.n_inputs != n_inputs:
            raise Fallback(f"the compiled kernel takes {kernel.spec.n_inputs} inputs, the graph {n_inputs}")
        n_results = len(self.outputs.values) + len(self.updates)
        if kernel.spec.n_outputs != n_results:  # (an input update the importer returned as a result)
            raise Fallback(f"the compiled kernel returns {kernel.spec.n_outputs} results, the graph's plan {n_results}")
        return kernel


def _shares_updated_memory(args, updates: tuple, inputs: tuple) -> bool:
    """Whether an input the graph updates in place shares storage with another tensor input of
    this call: the kernel reads each from its own memory before the call copies the update in, so
    the other would not see the update as it does in eager (the call then runs eagerly)."""
    storages = {i: args[i].untyped_storage().data_ptr() for i in inputs}
    return any(storages[u] == storages[j] for u in updates if u in storages for j in storages if j != u)


def _unchanged(guard: tuple, args) -> bool:
    """Each frozen weight is still the same tensor, not modified in place (its version counter,
    which every in-place op bumps, even under no_grad: an optimizer step, load_state_dict), not
    given new storage, and, where a copy was taken, equal to it: an inference tensor has no
    version counter, and with freeze_weights="checked" every weight is compared (an update
    through `.data`, `w.data.mul_(2)`, goes to a tensor with its own version counter, which only
    the values show; reading every weight on every call is that option's cost)."""
    import numpy as np

    for i, param, version, ptr, copy in guard:
        a = args[i] if i < len(args) else None
        if a is not param or _version(a) != version or a.data_ptr() != ptr:
            return False
        if copy is not None and not np.array_equal(_bytes(a), copy):
            return False
    return True


def _version(t):
    """A tensor's version counter; None for an inference tensor (a model made under
    torch.inference_mode), which has none (reading it raised): its values are the guard."""
    return None if t.is_inference() else t._version


def _bytes(t):
    """A tensor's bytes as a flat uint8 numpy array (a view when it is contiguous): compared bit
    for bit (NaN equal to itself, -0 not +0), in one thread (torch.equal's threads, on a loaded
    host, took milliseconds for 0.5 MB; numpy's compare 22 us)."""
    import torch

    return t.detach().reshape(-1).view(torch.uint8).numpy()


def _is_tensor(a) -> bool:
    import torch

    return isinstance(a, torch.Tensor)


def signature(args) -> tuple:
    """What a kernel is specialised on: each tensor's shape and dtype, each other argument's value."""
    import torch

    return tuple((a.shape, a.dtype) if isinstance(a, torch.Tensor) else ("value", type(a).__name__, a)
                 for a in args)


def _is_item(node) -> bool:
    import torch

    return (node.op == "call_method" and node.target == "item") or \
        (node.op == "call_function" and node.target in (torch.ops.aten.item.default, torch.Tensor.item))


def item_scalars(gm) -> frozenset:
    """The positions of the graph's inputs that are 0-d tensors read only by `.item()`: what
    TorchDynamo makes of a module's float attribute under dynamic=True (its value is a Python
    number where the graph uses it, which torch.export cannot trace symbolically)."""
    import torch

    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    found = set()
    for pos, node in enumerate(placeholders):
        ev = node.meta.get("example_value")
        if isinstance(ev, torch.Tensor) and ev.dim() == 0 and node.users and all(_is_item(u) for u in node.users):
            found.add(pos)
    return frozenset(found)


def scalar_values(args, positions: frozenset) -> tuple:
    """What a kernel is specialised on besides its signature: each specialised scalar input's
    value, floats by their bits (-0 is not +0, each NaN its own)."""
    import struct

    out = []
    for i in sorted(positions):
        v = args[i].item()
        out.append(struct.pack("<d", v) if isinstance(v, float) else (type(v).__name__, v))
    return tuple(out)


def with_scalars(gm, values: dict):
    """A copy of the graph with each `.item()` of the inputs at `values`' positions replaced by
    that value (the inputs themselves then unread)."""
    import copy

    import torch

    graph = copy.deepcopy(gm.graph)
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    for pos, value in values.items():
        for item in list(placeholders[pos].users):
            for user in list(item.users):
                user.args = torch.fx.node.map_arg(user.args, lambda a: value if a is item else a)
                user.kwargs = torch.fx.node.map_arg(user.kwargs, lambda a: value if a is item else a)
            graph.erase_node(item)
    return torch.fx.GraphModule(gm, graph)


def _array(t, order: tuple | None = None):
    """A numpy view of a CPU tensor: of `t.permute(order)` when the kernel takes it in that order
    (KernelLayout.inputs; contiguous, its memory as is), else of the tensor (a contiguous copy
    first when it is not contiguous)."""
    if t.requires_grad:
        t = t.detach()
    if order is not None:
        return t.permute(order).numpy()
    if not t.is_contiguous():
        t = t.contiguous()
    return t.numpy()


def dynamic_plan(gm, frozen: frozenset = frozenset(), scalars: frozenset = frozenset()):
    """(roles, dynamic_shapes) to export a graph with symbolic sizes once for all of them, or None
    (no symbolic size, one that is not a plain symbol of some input's dim, or a frozen weight with
    one). roles has, per graph input: ("input",) for a kernel input, ("frozen",) for a frozen
    weight, ("dim", t, k) for an int input that is dim k of kernel input t, ("value", None) for a
    specialised scalar (item_scalars: its value is in the graph with_scalars makes)."""
    import torch

    where: dict = {}  # symbol -> (kernel input, dim)
    per_input, roles = [], []
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for pos, node in enumerate(placeholders):
        ev = node.meta.get("example_value")
        if pos in scalars:
            roles.append(("value", None))
        elif isinstance(ev, torch.Tensor):
            spec = {}
            for k, d in enumerate(ev.shape):
                if isinstance(d, torch.SymInt) and not d.node.expr.is_number:  # (dynamic=True: 16 as a SymInt)
                    if pos in frozen or not d.node.expr.is_Symbol:
                        return None
                    where.setdefault(str(d.node.expr), (len(per_input), k))
                    spec[k] = str(d.node.expr)
            if pos in frozen:
                roles.append(("frozen",))
            else:
                per_input.append(spec)
                roles.append(("input",))
        elif isinstance(ev, torch.SymInt) and ev.node.expr.is_Symbol:
            roles.append(("sym", str(ev.node.expr)))
        else:
            return None
    if not where:
        return None
    for i, r in enumerate(roles):
        if r[0] == "sym":
            if r[1] not in where:
                return None
            roles[i] = ("dim", *where[r[1]])
    dims = {name: torch.export.Dim(name) for name in where}
    return roles, tuple({k: dims[s] for k, s in spec.items()} or None for spec in per_input)


FUNCTION = "torch_graph"  # every kernel's name: one graph on one signature is one cache entry


def to_linalg(gm, args, name: str, frozen: frozenset = frozenset(), plan=None, scalars: frozenset = frozenset(),
              layout: KernelLayout | None = None, updates: tuple = ()) -> str:
    """The graph on these inputs as linalg-on-tensors text (torch.export, then torch-mlir's FX
    importer). Its arguments are the tensor inputs in order but the `frozen` ones, which become
    constants of the module, and the `scalars` (item_scalars), whose values this call has are
    written into the graph. Without a plan other inputs are baked in; with one (dynamic_plan) the
    symbolic sizes stay dynamic and int inputs are read off the tensors' dims. With a layout, an
    input it passes in a permuted order is an argument of the permuted (contiguous) sizes which
    the graph permutes back first, and a result it has the kernel write in eager's order is
    returned permuted so (its dims in memory order).

    Input updates (input_updates): the graph inputs at `updates` (argument positions, kernel
    inputs) are cloned before the graph runs and the clones' final values returned after its
    results, so that the exported program updates no input; a graph that updates an input not in
    `updates` raises InputUpdates naming them all, one that updates a frozen weight falls back."""
    import torch

    try:
        from torch_mlir import fx
    except ImportError:
        raise Fallback("torch-mlir is not installed (pip install loopopt[torch])") from None
    if plan is not None:
        roles = plan[0]
    else:
        roles = [("value", None) if i in scalars else ("frozen",) if i in frozen else
                 ("input",) if isinstance(a, torch.Tensor) else ("value", a) for i, a in enumerate(args)]
    if scalars:
        gm = with_scalars(gm, {i: args[i].item() for i in scalars})
    gm = unfuse(gm)  # PyTorch's fused encoder layer as the ops it fuses
    inputs = tuple(a.detach() for a, r in zip(args, roles) if r[0] == "input")
    in_orders = layout.inputs if layout is not None else (None,) * len(inputs)
    writes = tuple(o if w else None for o, w in zip(layout.results, layout.written)) if layout is not None else ()
    kernel_inputs = [i for i, r in enumerate(roles) if r[0] == "input"]  # graph position of each kernel input
    module = _Specialised(gm, args, roles, in_orders, writes,
                          tuple(kernel_inputs.index(i) for i in updates if i in kernel_inputs))
    inputs = tuple(a.permute(o) if o is not None else a for a, o in zip(inputs, in_orders))
    dynamic = None
    if plan:
        dynamic = (tuple(_permuted_dims(spec, o) for spec, o in zip(plan[1], in_orders)),)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # torch.export's own deprecation notes
            with phase("torch.export"):
                program = torch.export.export(module, inputs, dynamic_shapes=dynamic, strict=False)
    except Exception as e:
        raise Fallback(f"torch.export: {_first_line(str(e))}") from None
    try:  # functionalized (as torch-mlir's import does), so that its signature lists every input update;
        # with eager's semantics where torch-mlir's lowering differs (torch_exact: NaN in maximum,
        # clamp and argmax, an integer neg)
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            with phase("run_decompositions"):
                functional = program.run_decompositions(exact_decompositions())
    except Exception as e:
        raise Fallback(f"torch.export: {_first_line(str(e))}") from None
    updated = input_updates((program.graph_signature, functional.graph_signature), kernel_inputs)
    if updated:
        if set(updated) <= set(updates):  # (the clones should have left no update: never a dropped one)
            raise Fallback(f"the graph's updates of its inputs {updated} were not made results")
        raise InputUpdates(tuple(sorted(set(updated) | set(updates))))
    why = (trapping_division(program) or trapping_division(functional) or zero_size_view(functional)
           or negative_offsets(functional))
    if why is not None:
        raise Fallback(why)
    program = functional
    float_scalars(program)  # integers against float tensors as floats: torch-mlir folds a negative one as unsigned
    scatter_dims(program)  # a scatter's negative dim as the one it means: torch-mlir's lowering of it never ends
    stable_sorts(program)  # sort(stable=True) as sort: torch-mlir imports only that, which loopopt sorts stably
    printed: list[str] = []
    try:
        with warnings.catch_warnings(), _stderr_captured(printed):
            warnings.simplefilter("ignore", FutureWarning)
            with phase("torch-mlir fx import and lowering to linalg"):
                imported = fx.export_and_import(program, output_type="linalg-on-tensors", func_name=name,
                                                hooks=literal_hooks())
    except Exception as e:
        raise Fallback(_named(f"torch-mlir: {_first_line(str(e))}", str(e) + "".join(printed))) from None
    with phase("print linalg"):
        return str(imported)


def input_updates(signatures, kernel_inputs: list) -> tuple:
    """The graph argument positions of the kernel inputs an exported program updates in place
    (its signatures' user inputs to mutate; `kernel_inputs`, the argument position of each of its
    user inputs in order). The rule: such a graph runs as a kernel that takes the input's value,
    computes on a copy of it (to_linalg's `updates`) and returns the copy's final value after its
    results; the call copies that value into the caller's tensor (`Tensor.copy_`) before any output
    made as a view of it is made: the input holds what eager leaves in it, every read in the graph
    sees the values eager's reads see. Fallback for an update of a frozen weight (a buffer of the
    exported program: the kernel holds it as a constant)."""
    updated = []
    for sig in signatures:
        if getattr(sig, "buffers_to_mutate", None):
            raise Fallback("the graph updates a frozen weight in place")
        names = [spec.arg.name for spec in sig.input_specs if spec.kind.name == "USER_INPUT"]
        for name in (getattr(sig, "user_inputs_to_mutate", None) or {}).values():
            updated.append(kernel_inputs[names.index(name)])
    return tuple(sorted(set(updated)))


def _permuted_dims(spec: dict | None, order: tuple | None) -> dict | None:
    """A kernel input's dynamic dims (dim -> torch.export.Dim) for the input permuted by `order`:
    dim k of the tensor is dim inverse(order)[k] of `t.permute(order)`."""
    if spec is None or order is None:
        return spec
    where = inverse(order)
    return {where[k]: d for k, d in spec.items()}


@contextlib.contextmanager
def _stderr_captured(into: list):
    """File descriptor 2 sent to a temporary file while torch-mlir runs: MLIR prints its
    diagnostics there, which name the op a failed import could not take. The text is appended to
    `into`; on success, and for lines that are not MLIR diagnostics, it is written back to stderr
    (the fallback's one warning says what the diagnostics said)."""
    import os
    import sys
    import tempfile

    sys.stderr.flush()
    saved = os.dup(2)
    ok = False
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
            ok = True
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            text = tmp.read().decode("utf-8", "replace")
            into.append(text)
            kept = text if ok else "".join(ln for ln in text.splitlines(True)
                                           if not ln.startswith("loc(") and "error: " not in ln)
            if kept:
                sys.stderr.write(kept)


class _Specialised:
    """The graph as a module taking its kernel inputs only (what torch.export needs): frozen
    weights held as the module's buffers (the importer makes them constants), each other input
    fixed to this call's value or read off a kernel input's dim. An input taken in a permuted
    order (`in_orders`) is permuted back first (the graph sees the caller's tensor, strides
    included); a result with an order in `writes` is returned permuted by it. The kernel inputs at
    `updates` (their indices among the kernel inputs) are cloned before the graph runs and the
    clones returned after its results (input_updates)."""

    def __new__(cls, gm, args, roles, in_orders: tuple = (), writes: tuple = (), updates: tuple = ()):
        import torch

        back = tuple(inverse(o) if o is not None else None for o in in_orders)

        class Specialised(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.gm = gm
                for i, r in enumerate(roles):
                    if r[0] == "frozen":
                        self.register_buffer(f"w{i}", args[i].detach())

            def forward(self, *inputs):
                if back:
                    inputs = tuple(x.permute(b) if b is not None else x for x, b in zip(inputs, back))
                copies = tuple(inputs[j].clone() for j in updates)
                for j, c in zip(updates, copies):
                    inputs = inputs[:j] + (c,) + inputs[j + 1:]
                it = iter(inputs)
                full = []
                for i, r in enumerate(roles):
                    if r[0] == "input":
                        full.append(next(it))
                    elif r[0] == "frozen":
                        full.append(getattr(self, f"w{i}"))
                    elif r[0] == "dim":
                        full.append(inputs[r[1]].shape[r[2]])
                    else:
                        full.append(r[1])
                out = self.gm(*full)
                if any(o is not None for o in writes):
                    if isinstance(out, (tuple, list)):
                        out = type(out)(v.permute(o) if o is not None else v for v, o in zip(out, writes))
                    else:
                        out = out.permute(writes[0]) if writes[0] is not None else out
                if not copies:
                    return out
                return (*(out if isinstance(out, (tuple, list)) else (out,)), *copies)

        return Specialised()


_OP = re.compile(r"'((?:torch|aten|linalg|tensor|arith|math|stablehlo|tosa|func|scf|memref)\.[\w.]+)'")
_TORCH_OPERATOR = re.compile(r'"torch\.operator".*?name = "torch\.(aten\.[\w.]+)"')  # an op torch-mlir has no form for


def _named(line: str, full: str = "") -> str:
    """`line`, ending with the op it is about when the message (or the full text) names one (an
    op torch-mlir imported as a generic `torch.operator` by the name it holds)."""
    m = _TORCH_OPERATOR.search(line) or _TORCH_OPERATOR.search(full) or _OP.search(line) or _OP.search(full)
    if m and m.group(1) not in line:
        return f"{line} (op {m.group(1)})"
    return line


def _first_line(text: str) -> str:
    """An exception's message in one line: an MLIR diagnostic (`...: error: ...`) if it has one,
    else its first line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if "error: " in ln:
            return ln[:300]
    return (lines[0] if lines else "(no message)")[:300]
