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
wrong one.

Calls run on the tensors' own memory: a contiguous CPU tensor is passed as a numpy view
(`t.detach().numpy()`, no copy; a non-contiguous one is made contiguous first, a copy), and each
output is a tensor over the array the kernel wrote. Weights (TorchDynamo passes parameters as
graph inputs) are read in place, so updating them is seen by the next call.

Fallback: a graph, or a call, loopopt cannot take runs eagerly (the graph's own forward) with one
`LoopoptFallbackWarning` per graph and reason, naming the op or the cause: an op torch-mlir or
loopopt's lowering does not take, an input on another device or of another layout, an in-place
update of an input (the exported program would drop it), a non-tensor output, or a call that
needs autograd (a kernel has no backward: call the model under `torch.no_grad()` or
`torch.inference_mode()`). Never a wrong result, never an exception the model would not raise.

torch and torch-mlir are imported when the backend is first used (the `torch` extra).
"""
from __future__ import annotations

import itertools
import re
import threading
import warnings

_COUNTER = itertools.count()


class LoopoptFallbackWarning(UserWarning):
    """A graph or a call ran eagerly instead of through a loopopt kernel; the message says why."""


class Fallback(Exception):
    """Why a graph (for some shapes) cannot run as a kernel; one line naming the op or cause."""


def backend(gm, example_inputs, **options):
    """The backend TorchDynamo calls with each graph; returns the callable it runs instead. A
    graph loopopt cannot take at all is returned as is (eager), with one warning naming why."""
    name = f"torch_graph_{next(_COUNTER)}"
    why = precheck(gm)
    if why is not None:
        _warn(name, why)
        return gm.forward
    return GraphKernel(gm, name, options)


def _warn(name: str, why: str) -> None:
    warnings.warn(f"loopopt.torch_backend: {name} runs eagerly: {why}", LoopoptFallbackWarning, stacklevel=3)


def precheck(gm) -> str | None:
    """Why a graph cannot be a kernel whatever its inputs (None: it may be): outputs that are not
    all tensors, or an in-place op on a graph input."""
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
        if node.op in ("call_function", "call_method"):
            target = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", str(node.target))
            if target.endswith("_") and not target.startswith("_") and any(a.op == "placeholder" for a in
                                                                           node.all_input_nodes):
                return f"op {target} updates a graph input in place"
            if target in ("setitem", "__setitem__", "copy_"):
                return f"op {target} updates a tensor in place"
    return None


class GraphKernel:
    """What TorchDynamo calls instead of a graph: one loopopt kernel per input signature."""

    def __init__(self, gm, name: str, options: dict):
        self.gm = gm
        self.name = name
        self.options = dict(options)
        self.plan = dynamic_plan(gm)  # (template, dynamic_shapes) while one kernel may serve every size
        self.kernels: dict = {}  # signature -> Kernel, or a Fallback message (run eagerly)
        self.warned: set = set()
        self._lock = threading.Lock()
        self._tuple_output = isinstance([n for n in gm.graph.nodes if n.op == "output"][0].args[0], (tuple, list))

    def __call__(self, *args):
        import torch

        if torch.is_grad_enabled() and any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):
            return self._eager(args, "the call needs autograd (a kernel has no backward): call the model under "
                                     "torch.no_grad() or torch.inference_mode()")
        bad = next((a for a in args if isinstance(a, torch.Tensor) and
                    (a.device.type != "cpu" or a.layout != torch.strided or a.is_quantized)), None)
        if bad is not None:
            return self._eager(args, f"an input is a {bad.device.type} {bad.layout} tensor (the kernels run on CPU "
                                     "strided tensors)")
        kernel = self.kernels.get("dynamic") if self.plan else self.kernels.get(signature(args))
        if kernel is None:
            with self._lock:
                kernel = self._kernel_for(args)
        if isinstance(kernel, str):
            return self._eager(args, kernel)
        arrays = [_array(a) for a in args if isinstance(a, torch.Tensor)]
        try:
            got = kernel(*arrays)
        except (TypeError, ValueError) as e:  # the kernel's own argument checks: never reached the kernel
            return self._eager(args, f"the kernel refused its arguments: {e}")
        got = got if isinstance(got, tuple) else (got,)
        outs = tuple(torch.from_numpy(x) for x in got)
        return outs if self._tuple_output else outs[0]

    def _eager(self, args, why: str):
        if why not in self.warned:
            self.warned.add(why)
            _warn(self.name, why)
        return self.gm.forward(*args)

    def _kernel_for(self, args):
        """The kernel (or the Fallback message) for these inputs, built if there is none yet: one
        for every size while the dynamic plan holds, else one per signature."""
        if self.plan is not None:
            kernel = self.kernels.get("dynamic")
            if kernel is None:
                try:
                    kernel = self.kernels["dynamic"] = self._build(args, self.plan)
                except Fallback:
                    self.plan = None  # built per signature from now on
            if kernel is not None:
                return kernel
        key = signature(args)
        kernel = self.kernels.get(key)
        if kernel is None:
            try:
                kernel = self._build(args, None)
            except Fallback as e:
                kernel = str(e)
            self.kernels[key] = kernel
        return kernel

    def _build(self, args, plan):
        """Export, import and compile the graph for these inputs (every size of its symbolic dims
        with a plan); Fallback with one line on failure."""
        import loopopt

        text = to_linalg(self.gm, args, FUNCTION, plan)
        try:
            kernel = loopopt.compile(text, filename=f"<{self.name}>", **self.options)
        except Exception as e:  # loopopt's own errors are one line; name the op where it says one
            raise Fallback(_named(f"loopopt.compile: {_first_line(str(e))}")) from None
        n_tensors = sum(1 for a in args if _is_tensor(a))
        if kernel.spec.n_inputs != n_tensors:
            raise Fallback(f"the compiled kernel takes {kernel.spec.n_inputs} inputs, the graph {n_tensors}")
        return kernel


def _is_tensor(a) -> bool:
    import torch

    return isinstance(a, torch.Tensor)


def signature(args) -> tuple:
    """What a kernel is specialised on: each tensor's shape and dtype, each other argument's value."""
    import torch

    return tuple((tuple(a.shape), a.dtype) if isinstance(a, torch.Tensor) else ("value", type(a).__name__, a)
                 for a in args)


def _array(t):
    """A numpy view of a CPU tensor (a contiguous copy first when it is not contiguous)."""
    t = t.detach()
    if not t.is_contiguous():
        t = t.contiguous()
    return t.numpy()


def dynamic_plan(gm):
    """(template, dynamic_shapes) to export a graph with symbolic sizes once for all of them, or
    None (no symbolic size, or one that is not a plain symbol of some input's dim). template has
    None for each tensor input and ("dim", t, k) for an int input that is dim k of tensor input t."""
    import torch

    where: dict = {}  # symbol -> (tensor input, dim)
    per_tensor, template = [], []
    for node in gm.graph.nodes:
        if node.op != "placeholder":
            continue
        ev = node.meta.get("example_value")
        if isinstance(ev, torch.Tensor):
            spec = {}
            for k, d in enumerate(ev.shape):
                if isinstance(d, torch.SymInt):
                    if not d.node.expr.is_Symbol:
                        return None
                    where.setdefault(str(d.node.expr), (len(per_tensor), k))
                    spec[k] = str(d.node.expr)
            per_tensor.append(spec)
            template.append(None)
        elif isinstance(ev, torch.SymInt) and ev.node.expr.is_Symbol:
            template.append(("sym", str(ev.node.expr)))
        else:
            return None
    if not where:
        return None
    for i, t in enumerate(template):
        if t is not None:
            if t[1] not in where:
                return None
            template[i] = ("dim", *where[t[1]])
    dims = {name: torch.export.Dim(name) for name in where}
    return template, tuple({k: dims[s] for k, s in spec.items()} or None for spec in per_tensor)


FUNCTION = "torch_graph"  # every kernel's name: one graph on one signature is one cache entry


def to_linalg(gm, args, name: str, plan=None) -> str:
    """The graph on these inputs as linalg-on-tensors text (torch.export, then torch-mlir's FX
    importer); its arguments are the tensor inputs in order. Without a plan, other inputs are baked
    in; with one (dynamic_plan), the symbolic sizes stay dynamic and int inputs are read off them."""
    import torch

    try:
        from torch_mlir import fx
    except ImportError:
        raise Fallback("torch-mlir is not installed (pip install loopopt[torch])") from None
    module = _Specialised(gm, args, plan[0] if plan else None)
    tensors = tuple(a.detach() for a in args if isinstance(a, torch.Tensor))
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # torch.export's own deprecation notes
            program = torch.export.export(module, tensors, dynamic_shapes=(plan[1],) if plan else None, strict=False)
    except Exception as e:
        raise Fallback(f"torch.export: {_first_line(str(e))}") from None
    sig = program.graph_signature
    if getattr(sig, "user_inputs_to_mutate", None) or getattr(sig, "buffers_to_mutate", None):
        raise Fallback("the graph updates an input or buffer in place")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            imported = fx.export_and_import(program, output_type="linalg-on-tensors", func_name=name)
    except Exception as e:
        raise Fallback(_named(f"torch-mlir: {_first_line(str(e))}", str(e))) from None
    return str(imported)


class _Specialised:
    """The graph as a module taking its tensor inputs only (what torch.export needs): each other
    input fixed to this call's value, or with a plan's template read off a tensor's dim."""

    def __new__(cls, gm, args, template=None):
        import torch

        fixed = [None if isinstance(a, torch.Tensor) else ("value", a) for a in args]

        class Specialised(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.gm = gm

            def forward(self, *tensors):
                it = iter(tensors)
                full = []
                for t, f in zip(template or fixed, fixed):
                    if t is None:
                        full.append(next(it))
                    elif t[0] == "dim":
                        full.append(tensors[t[1]].shape[t[2]])
                    else:
                        full.append(f[1])
                return self.gm(*full)

        return Specialised()


_OP = re.compile(r"'((?:torch|aten|linalg|tensor|arith|math|stablehlo|tosa|func|scf|memref)\.[\w.]+)'")


def _named(line: str, full: str = "") -> str:
    """`line`, ending with the op it is about when the message (or the full text) names one."""
    m = _OP.search(line) or _OP.search(full)
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
