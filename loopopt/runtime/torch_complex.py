"""Complex tensors as real ones, for the torch backend.

torch-mlir imports a complex tensor as `tensor<...xcomplex<f32>>` and complex arithmetic as the
`complex` dialect (`complex.create`, `complex.mul`), which loopopt does not take: a graph with a
complex value (LLaMA's rotary embedding: `view_as_complex(x) * freqs_cis`, freqs_cis from
`torch.polar`) ran eagerly. `as_real(gm)` writes TorchDynamo's graph, before the export, on real
tensors: each complex value of shape S is the real tensor of shape S + (2,) that
`torch.view_as_real` gives (real part at index 0 of the last dim, imaginary at 1; complex64 as
float32, complex128 as float64).

The rules, each eager's own arithmetic on the parts (a = ar + ai i, b = br + bi i):

* `view_as_complex(r)` is r, `view_as_real(c)` is c's real form; `polar(m, t)` is
  (m cos t, m sin t), `complex(re, im)` is (re, im), broadcast together.
* `a * b` is (ar br - ai bi, ar bi + ai br), each product rounded: eager's vectorized complex
  product (its scalar loop, on tails and broadcast inner loops, is contracted to fused
  multiply-adds and differs from it in the last bit); `a + b` and `a - b` are eager's
  `self + alpha * other` with alpha = +1 or -1 as a complex number (its `add` kernel multiplies by
  alpha for complex too, which decides where an infinity or a signed zero in `other` goes). A
  real tensor or a number among the operands is the complex number of imaginary part 0 (eager's
  type promotion; the result's dtype is the node's own, every operand cast to it first).
* `neg` is 0 - a (eager's: -(+0) is +0); `conj` (`conj_physical`, `resolve_conj`) is (ar, -ai);
  `abs` is eager's hypot(ar, ai): infinite where a part is (a NaN in the other too), else for
  complex64 the root of the squares' sum in f64 rounded to f32, for complex128 scaled by the
  larger part; `angle` is atan2(ai, ar); `real`/`imag` are the parts (views, as eager's).
* Shape ops on a complex value act on its real form's leading dims, the trailing 2 kept last:
  reshape/view (sizes + (2,)), unsqueeze, squeeze, flatten, transpose, permute, t, indexing by
  ints, slices, None and Ellipsis, cat, stack, expand, contiguous, clone, `to`/`type_as` between
  complex dtypes, size/shape; each dim is counted in the complex value's rank.

A complex graph input is passed as `torch.view_as_real` of the caller's tensor (a view: no copy;
a conjugate or negative view resolved first) and a complex graph output is `torch.view_as_complex`
of the real result (`ComplexCall`). Any other op that reads or makes a complex value (division,
exp, a complex reduction, an advanced index, complex32) is not written: the graph runs eagerly, its
warning naming the op (`ComplexFallback`). Never a wrong result: an op is written only where its
rule is eager's arithmetic on the parts.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass


class ComplexFallback(Exception):
    """The graph has a complex value as_real does not write as real arithmetic; names the op."""


@dataclass
class RealGraph:
    """A graph written on real tensors (as_real): `gm`, its graph; `inputs`, the positions of the
    placeholders that were complex (the call passes their view_as_real); `outputs`, the positions
    of the outputs that are complex (the call returns view_as_complex of them); `tuple_output`,
    whether the graph returns a tuple."""
    gm: object
    inputs: tuple
    outputs: tuple
    tuple_output: bool


def _value(node):
    """TorchDynamo's example value of a node (a fake tensor), or an export's `val`."""
    import torch

    if not isinstance(node, torch.fx.Node):
        return None
    return node.meta.get("example_value", node.meta.get("val"))


def _has_complex(value) -> bool:
    import torch

    if isinstance(value, torch.Tensor):
        return value.is_complex()
    if isinstance(value, (tuple, list)):
        return any(_has_complex(v) for v in value)
    return isinstance(value, complex)


def _complex_node(node) -> bool:
    import torch

    v = _value(node)
    return isinstance(v, torch.Tensor) and v.is_complex()


def _real_dtype(dtype):
    """The real dtype of a complex one's parts; ComplexFallback for complex32."""
    import torch

    table = {torch.complex64: torch.float32, torch.complex128: torch.float64}
    if dtype not in table:
        raise ComplexFallback(f"a complex tensor of dtype {dtype} (only complex64 and complex128 are written as real)")
    return table[dtype]


def has_complex(gm) -> bool:
    """Whether any value of the graph is complex (a node's example value, or a complex number
    among its arguments)."""
    return any(_has_complex(_value(node)) or _complex_numbers(node) for node in gm.graph.nodes)


def _complex_numbers(node) -> list:
    """The Python complex numbers among a node's arguments."""
    import torch

    found = []
    torch.fx.node.map_aggregate((node.args, node.kwargs), lambda a: found.append(a) if isinstance(a, complex) else a)
    return found


# TorchDynamo records torch functions by the function and tensor methods by their name: both as one name
def _function_names() -> dict:
    import torch

    names = {operator.mul: "mul", operator.add: "add", operator.sub: "sub", operator.neg: "neg",
             operator.getitem: "getitem", getattr: "getattr",
             torch.mul: "mul", torch.multiply: "mul", torch.add: "add", torch.sub: "sub", torch.subtract: "sub",
             torch.neg: "neg", torch.negative: "neg", torch.view_as_complex: "view_as_complex",
             torch.view_as_real: "view_as_real", torch.polar: "polar", torch.complex: "complex", torch.conj: "conj",
             torch.conj_physical: "conj", torch.resolve_conj: "resolve", torch.resolve_neg: "resolve",
             torch.abs: "abs", torch.absolute: "abs", torch.angle: "angle", torch.real: "real", torch.imag: "imag",
             torch.reshape: "reshape", torch.unsqueeze: "unsqueeze", torch.squeeze: "squeeze",
             torch.flatten: "flatten", torch.transpose: "transpose", torch.swapaxes: "transpose",
             torch.swapdims: "transpose", torch.permute: "permute", torch.t: "t", torch.cat: "cat",
             torch.concat: "cat", torch.concatenate: "cat", torch.stack: "stack", torch.clone: "clone"}
    return names


_METHODS = {"mul": "mul", "multiply": "mul", "add": "add", "sub": "sub", "subtract": "sub", "neg": "neg",
            "negative": "neg", "conj": "conj", "conj_physical": "conj", "resolve_conj": "resolve",
            "resolve_neg": "resolve", "abs": "abs", "absolute": "abs", "angle": "angle", "reshape": "reshape",
            "view": "reshape", "unsqueeze": "unsqueeze", "squeeze": "squeeze", "flatten": "flatten",
            "transpose": "transpose", "swapaxes": "transpose", "swapdims": "transpose", "permute": "permute",
            "t": "t", "expand": "expand", "expand_as": "expand_as", "contiguous": "contiguous", "clone": "clone",
            "to": "to", "type_as": "type_as", "size": "size", "__getitem__": "getitem", "__mul__": "mul",
            "__add__": "add", "__sub__": "sub", "__neg__": "neg"}


def op_name(node) -> str:
    """The name a fallback names a node by: `torch.exp`, `Tensor.exp`, `operator.truediv`."""
    if node.op == "call_method":
        return f"Tensor.{node.target}"
    target = node.target
    module = getattr(target, "__module__", None) or ""
    short = "operator" if module in ("_operator", "operator") else "torch" if module.startswith("torch") else module
    return f"{short}.{getattr(target, '__name__', str(target))}" if short else getattr(target, "__name__", str(target))


class _Writer:
    """Writes one graph's complex values as real ones (as_real): `env`, each old node's value in
    the new graph (a complex one's real form); `rank`, each complex old node's complex rank."""

    def __init__(self, gm):
        import torch
        from torch.fx.proxy import GraphAppendingTracer

        self.gm = gm
        self.graph = torch.fx.Graph()
        self.tracer = GraphAppendingTracer(self.graph)
        self.env: dict = {}
        self.rank: dict = {}
        self.functions = _function_names()
        self.constants = 0

    # values ---------------------------------------------------------------------------------
    def proxy(self, arg):
        """An old argument in the new graph: a node as a Proxy, containers mapped, others as is."""
        import torch

        if isinstance(arg, torch.fx.Node):
            new = self.env[arg]
            return torch.fx.Proxy(new, self.tracer) if isinstance(new, torch.fx.Node) else new
        if isinstance(arg, (tuple, list)):
            return type(arg)(self.proxy(a) for a in arg)
        return arg

    def parts(self, arg, dtype):
        """(real, imaginary) of an operand of complex arithmetic whose result has real dtype
        `dtype`: a complex value's parts of its real form, a real tensor's self and zeros (eager
        promotes it so), a number's parts as Python floats."""
        import torch

        if isinstance(arg, torch.fx.Node):
            v = _value(arg)
            if not isinstance(v, torch.Tensor):
                raise ComplexFallback(f"an operand {arg.name} of complex arithmetic that is not a tensor")
            p = self.proxy(arg)
            if arg in self.rank:
                if v.dtype != _complex_of(dtype):
                    p = p.to(dtype)
                return p[..., 0], p[..., 1]
            if v.dtype != dtype:
                p = p.to(dtype)
            return p, torch.zeros_like(p)
        if isinstance(arg, (bool, int, float, complex)):
            c = complex(arg)
            return float(c.real), float(c.imag)
        raise ComplexFallback(f"an operand {arg!r} of complex arithmetic")

    def real_form(self, arg, dtype=None):
        """A complex operand's real form (a real tensor promoted: (t, 0)), cast to `dtype`."""
        import torch

        if isinstance(arg, torch.fx.Node) and arg in self.rank:
            p = self.proxy(arg)
            return p if dtype is None or _value(arg).dtype == _complex_of(dtype) else p.to(dtype)
        re, im = self.parts(arg, dtype)
        return _stack(re, im)

    # the graph ------------------------------------------------------------------------------
    def run(self) -> RealGraph:
        import torch

        inputs, outputs, tuple_output = [], [], False
        position = 0
        for node in self.gm.graph.nodes:
            if node.op == "placeholder":
                self.env[node] = self.graph.node_copy(node, lambda n: self.env[n])
                if _complex_node(node):
                    _real_dtype(_value(node).dtype)
                    self.rank[node] = _value(node).dim()
                    inputs.append(position)
                elif _has_complex(_value(node)):
                    raise ComplexFallback(f"graph input {node.name} holds complex tensors")
                position += 1
            elif node.op == "output":
                result = node.args[0]
                tuple_output = isinstance(result, (tuple, list))
                items = list(result) if tuple_output else [result]
                for k, item in enumerate(items):
                    if isinstance(item, torch.fx.Node) and item in self.rank:
                        outputs.append(k)
                    elif _has_complex(_value(item)) or isinstance(item, complex):
                        raise ComplexFallback(f"graph output {k} holds complex values that are not a tensor")
                self.graph.output(torch.fx.node.map_arg(result, lambda n: self.env[n]))
            elif node.op == "get_attr" and _complex_node(node):
                self.env[node] = self.constant(node)
                self.rank[node] = _value(node).dim()
            elif self.involved(node):
                self.write(node)
            else:
                self.env[node] = self.graph.node_copy(node, lambda n: self.env[n])
        gm = torch.fx.GraphModule(self.gm, self.graph)
        return RealGraph(gm, tuple(inputs), tuple(outputs), tuple_output)

    def involved(self, node) -> bool:
        """Whether a node reads or makes a complex value."""
        if _has_complex(_value(node)) or any(n in self.rank for n in node.all_input_nodes):
            return True
        return bool(_complex_numbers(node))

    def constant(self, node):
        """A complex constant of the graph (get_attr) as a real attribute of its view_as_real."""
        import torch

        value = self.gm
        for part in node.target.split("."):
            value = getattr(value, part)
        _real_dtype(value.dtype)
        name = f"_loopopt_real_{node.target.replace('.', '_')}"
        setattr(self.gm, name, torch.view_as_real(value.resolve_conj().resolve_neg()).clone())
        return self.graph.get_attr(name)

    def write(self, node) -> None:
        """The node's rule (module docstring) in the new graph; ComplexFallback naming it where
        there is none."""
        import torch

        if node.op == "call_function":
            name = self.functions.get(node.target)
        elif node.op == "call_method":
            name = _METHODS.get(node.target)
        else:
            name = None
        rule = _RULES.get(name)
        if rule is None:
            raise ComplexFallback(f"complex op {op_name(node) if node.op.startswith('call_') else node.op} "
                                  "is not written as real arithmetic")
        out = _value(node)
        if isinstance(out, torch.Tensor) and out.is_complex():
            _real_dtype(out.dtype)
        result = rule(self, node)
        if result is None:
            raise ComplexFallback(f"complex op {op_name(node)} with these arguments is not written as real arithmetic")
        if isinstance(out, torch.Tensor) and out.is_complex():
            self.rank[node] = out.dim()
        self.env[node] = result.node if isinstance(result, torch.fx.Proxy) else result


def _complex_of(dtype):
    import torch

    return {torch.float32: torch.complex64, torch.float64: torch.complex128}.get(dtype)


def _stack(re, im, broadcast: bool = False):
    """The real form of (re, im): the parts (of one shape, or `broadcast` together first)
    stacked along a new last dim."""
    import torch

    if not isinstance(re, torch.fx.Proxy) or not isinstance(im, torch.fx.Proxy):
        raise ComplexFallback("a complex value of two numbers")
    if broadcast:
        both = torch.broadcast_tensors(re, im)
        re, im = both[0], both[1]
    return torch.stack([re, im], -1)


def _differ(*nodes) -> bool:
    """Whether the tensors' shapes differ (their parts are then broadcast before the stack)."""
    shapes = {tuple(getattr(_value(n), "shape", ())) for n in nodes}
    return len(shapes) > 1


def _args(node, *names, defaults=()):
    """The node's arguments by position or name (a method's self first): a list of values, missing
    ones from `defaults` (aligned right)."""
    given = list(node.args)
    out = []
    pad = len(names) - len(defaults)
    for k, name in enumerate(names):
        if k < len(given):
            out.append(given[k])
        elif name in node.kwargs:
            out.append(node.kwargs[name])
        elif k >= pad:
            out.append(defaults[k - pad])
        else:
            raise ComplexFallback(f"complex op {op_name(node)} without its argument {name}")
    return out


def _only(node, *allowed) -> bool:
    """The node's keyword arguments are among `allowed`."""
    return set(node.kwargs) <= set(allowed)


def _out_dtype(node):
    return _real_dtype(_value(node).dtype)


def _cmul(a, b):
    """Eager's vectorized complex product of parts: (ar br - ai bi, ar bi + ai br), each product rounded."""
    ar, ai = a
    br, bi = b
    return ar * br - ai * bi, ar * bi + ai * br


def _mul(w, node):
    if not _only(node, "other"):
        return None
    a, b = _args(node, "self", "other")
    dtype = _out_dtype(node)
    return _stack(*_cmul(w.parts(a, dtype), w.parts(b, dtype)))


def _add_like(w, node, sign: float):
    """Eager's `self + alpha * other` on the parts, alpha = sign * the node's alpha (1 by default)
    as a complex number: eager's add kernel multiplies `other` by it for complex too. A number as
    `self` (`2 + c`, `2 - c`): eager's reflected op adds it to the tensor (`c.add(2)`) or
    subtracts the tensor from it (rsub: `2 + -1 * c`)."""
    if not _only(node, "other", "alpha"):
        return None
    a, b, alpha = _args(node, "self", "other", "alpha", defaults=(1,))
    if not isinstance(alpha, (bool, int, float, complex)):
        return None
    dtype = _out_dtype(node)
    import torch

    if not isinstance(a, torch.fx.Node) and sign > 0:  # 2 + c is c.add(2)
        a, b = b, a
    c = complex(alpha) * sign
    scaled = _cmul((c.real, c.imag), w.parts(b, dtype))
    ar, ai = w.parts(a, dtype)
    return _stack(ar + scaled[0], ai + scaled[1])


def _neg(w, node):
    (a,) = _args(node, "self")
    return 0.0 - w.real_form(a, _out_dtype(node))  # eager's complex neg is 0 - a: -(+0) is +0


def _conj(w, node):
    (a,) = _args(node, "self")
    if not _complex_node(node):  # conj of a real tensor: itself
        return None
    re, im = w.parts(a, _out_dtype(node))
    return _stack(re, -im)


def _resolve(w, node):
    (a,) = _args(node, "self")
    return w.proxy(a) if a in w.rank else None


def _abs(w, node):
    import torch

    (a,) = _args(node, "self")
    if a not in w.rank:
        return None
    dtype = _value(node).dtype
    re, im = w.parts(a, dtype)
    if dtype == torch.float32:  # the squares exact in f64, one rounding of the sum, the root and to f32
        wide, narrow = re.double(), im.double()
        size = torch.sqrt(wide * wide + narrow * narrow).float()
    else:  # scaled by the larger part: no overflow, no underflow
        big = torch.maximum(re.abs(), im.abs())
        safe = torch.where(big == 0, torch.ones_like(big), big)
        x, y = re / safe, im / safe
        size = big * torch.sqrt(x * x + y * y)
    return torch.where(torch.isinf(re) | torch.isinf(im), torch.full_like(size, float("inf")), size)


def _angle(w, node):
    import torch

    (a,) = _args(node, "self")
    if a not in w.rank:
        return None
    re, im = w.parts(a, _value(node).dtype)
    return torch.atan2(im, re)


def _part(k):
    def rule(w, node):
        (a,) = _args(node, "self")
        return w.proxy(a)[..., k] if a in w.rank else None
    return rule


def _getattr(w, node):
    a, attr = node.args[0], node.args[1]
    if a not in w.rank:
        return None
    if attr in ("real", "imag"):
        return w.proxy(a)[..., 0 if attr == "real" else 1]
    if attr == "shape":
        return w.proxy(a).size()[: w.rank[a]]
    return None


def _view_as_complex(w, node):
    (a,) = _args(node, "self")
    return w.proxy(a)


def _view_as_real(w, node):
    (a,) = _args(node, "self")
    return w.proxy(a) if a in w.rank else None


def _polar(w, node):
    import torch

    m, t = _args(node, "abs", "angle")
    m, t = w.proxy(m), w.proxy(t)
    return _stack(m * torch.cos(t), m * torch.sin(t))  # (both parts of the broadcast shape)


def _complex(w, node):
    re, im = _args(node, "real", "imag")
    return _stack(w.proxy(re), w.proxy(im), _differ(re, im))


def _dim(d, rank: int) -> int:
    """A dim of a complex value of `rank` as the same dim of its real form (counted from the
    front: the trailing 2 is after every dim of the complex value)."""
    if not isinstance(d, int):
        raise ComplexFallback(f"a dim {d!r} that is not a number")
    if d < 0:
        d += rank
    if not 0 <= d < max(rank, 1):
        raise ComplexFallback(f"dim {d} out of range")
    return d


def _sizes(node, start: int = 1):
    """A method's sizes given as varargs or as one sequence."""
    rest = list(node.args[start:])
    if "size" in node.kwargs or "shape" in node.kwargs:
        rest = [node.kwargs.get("size", node.kwargs.get("shape"))]
    if len(rest) == 1 and isinstance(rest[0], (tuple, list)):
        return list(rest[0])
    return rest


def _reshape(w, node):
    a = node.args[0]
    if a not in w.rank or not _only(node, "shape", "size"):
        return None
    return w.proxy(a).reshape(*w.proxy(_sizes(node)), 2)


def _unsqueeze(w, node):
    a, d = _args(node, "self", "dim")
    if a not in w.rank:
        return None
    return w.proxy(a).unsqueeze(_dim(d, w.rank[a] + 1))


def _squeeze(w, node):
    a = node.args[0]
    if a not in w.rank:
        return None
    dims = _sizes(node) if len(node.args) > 1 else ([node.kwargs["dim"]] if "dim" in node.kwargs else None)
    if dims is None:
        if w.rank[a] == 0:
            return w.proxy(a)
        return w.proxy(a).squeeze(tuple(range(w.rank[a])))
    return w.proxy(a).squeeze(tuple(_dim(d, w.rank[a]) for d in dims))


def _flatten(w, node):
    a, start, end = _args(node, "self", "start_dim", "end_dim", defaults=(0, -1))
    if a not in w.rank or w.rank[a] == 0:
        return None
    n = w.rank[a]
    return w.proxy(a).flatten(_dim(start, n), _dim(end, n))


def _transpose(w, node):
    a, d0, d1 = _args(node, "self", "dim0", "dim1")
    if a not in w.rank:
        return None
    n = w.rank[a]
    return w.proxy(a).transpose(_dim(d0, n), _dim(d1, n))


def _permute(w, node):
    a = node.args[0]
    if a not in w.rank:
        return None
    n = w.rank[a]
    dims = node.kwargs["dims"] if "dims" in node.kwargs else _sizes(node)
    return w.proxy(a).permute(*[_dim(d, n) for d in dims], n)


def _t(w, node):
    (a,) = _args(node, "self")
    if a not in w.rank:
        return None
    return w.proxy(a).transpose(0, 1) if w.rank[a] == 2 else w.proxy(a)


def _getitem(w, node):
    import torch

    a, index = node.args[0], node.args[1]
    if a not in w.rank:
        return None
    items = index if isinstance(index, tuple) else (index,)
    for item in items:
        if isinstance(item, slice):
            if any(isinstance(p, torch.fx.Node) and not isinstance(_value(p), (int, torch.SymInt))
                   for p in (item.start, item.stop, item.step)):
                return None
        elif not (item is None or item is Ellipsis or isinstance(item, int) or
                  (isinstance(item, torch.fx.Node) and isinstance(_value(item), (int, torch.SymInt)))):
            return None  # an advanced index (a tensor, a list, a bool): not written
    items = tuple(w.proxy(i) if isinstance(i, torch.fx.Node) else
                  slice(*(w.proxy(p) for p in (i.start, i.stop, i.step))) if isinstance(i, slice) else i for i in items)
    if any(i is Ellipsis for i in items):
        items = items + (slice(None),)  # the Ellipsis stops before the parts' dim
    return w.proxy(a)[items]


def _cat_like(stack: bool):
    def rule(w, node):
        import torch

        tensors, d = _args(node, "tensors", "dim", defaults=(0,))
        if not _only(node, "dim") or not isinstance(tensors, (tuple, list)):
            return None
        dtype = _out_dtype(node)
        n = _value(node).dim() - (1 if stack else 0)
        forms = [w.real_form(t, dtype) for t in tensors]
        d = _dim(d, n + (1 if stack else 0))
        return torch.stack(forms, d) if stack else torch.cat(forms, d)
    return rule


def _expand(w, node):
    a = node.args[0]
    if a not in w.rank or not _only(node, "size"):
        return None
    return w.proxy(a).expand(*w.proxy(_sizes(node)), 2)


def _expand_as(w, node):
    a, other = _args(node, "self", "other")
    if a not in w.rank or other not in w.rank:
        return None
    return w.proxy(a).expand_as(w.proxy(other))


def _same_form(method: str):
    def rule(w, node):
        a = node.args[0]
        if a not in w.rank or node.kwargs or len(node.args) > 1:
            return None
        return getattr(w.proxy(a), method)()
    return rule


def _to(w, node):
    """`to`/`type_as` making a complex value of a complex or real one (the dtype its example value
    has); a complex one made real (eager drops the imaginary part) is not written."""
    if not _complex_node(node):
        return None
    a = node.args[0]
    dtype = _out_dtype(node)
    if any(k not in ("dtype", "copy", "non_blocking") for k in node.kwargs):
        return None
    form = w.real_form(a, dtype)
    return form.clone() if node.kwargs.get("copy") else form


def _size(w, node):
    a = node.args[0]
    if a not in w.rank:
        return None
    d = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
    if d is None:
        return w.proxy(a).size()[: w.rank[a]]
    return w.proxy(a).size(_dim(d, w.rank[a]))


_RULES = {"mul": _mul, "add": lambda w, n: _add_like(w, n, 1.0), "sub": lambda w, n: _add_like(w, n, -1.0),
          "neg": _neg, "conj": _conj, "resolve": _resolve, "abs": _abs, "angle": _angle, "real": _part(0),
          "imag": _part(1), "getattr": _getattr, "view_as_complex": _view_as_complex, "view_as_real": _view_as_real,
          "polar": _polar, "complex": _complex, "reshape": _reshape, "unsqueeze": _unsqueeze, "squeeze": _squeeze,
          "flatten": _flatten, "transpose": _transpose, "permute": _permute, "t": _t, "getitem": _getitem,
          "cat": _cat_like(False), "stack": _cat_like(True), "expand": _expand, "expand_as": _expand_as,
          "contiguous": _same_form("contiguous"), "clone": _same_form("clone"), "to": _to, "type_as": _to,
          "size": _size}


def _propagate(old, gm) -> None:
    """Each node of the new graph given its example value (a fake run of it on the old graph's
    fake inputs, each complex one as its view_as_real): what the backend reads off the graph
    (outputs' storage and strides, symbolic sizes) then holds for the real graph."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensor
    from torch.fx.passes.fake_tensor_prop import FakeTensorProp

    fakes = [_value(p) for p in old.graph.nodes if p.op == "placeholder"]
    mode = next((f.fake_mode for f in fakes if isinstance(f, FakeTensor)), None)  # (the example values' own)
    if mode is None:
        raise ComplexFallback("the graph's inputs have no example values to write its complex values as real")
    with mode:
        inputs = [torch.view_as_real(f.resolve_conj().resolve_neg()) if isinstance(f, torch.Tensor) and f.is_complex()
                  else f for f in fakes]
    FakeTensorProp(gm, mode).propagate_dont_convert_inputs(*inputs)
    for node in gm.graph.nodes:
        if "val" in node.meta:
            node.meta["example_value"] = node.meta["val"]


def as_real(gm) -> RealGraph | None:
    """The graph on real tensors (module docstring), or None when it has no complex value;
    ComplexFallback naming the op or the value the rule does not write."""
    if not has_complex(gm):
        return None
    real = _Writer(gm).run()
    _propagate(gm, real.gm)
    return real


class ComplexCall:
    """What TorchDynamo calls instead of a graph with complex values: `run` (the backend's
    callable for the real graph) on the call's arguments, each complex input as its view_as_real
    (a view of the caller's memory: an update in place reaches it), each complex output made
    view_as_complex of the real result. `eager(args, why)` runs the original graph (a result whose
    strides view_as_complex does not take)."""

    def __init__(self, real: RealGraph, run, eager):
        self.real = real
        self.run = run
        self.eager = eager

    def __call__(self, *args):
        import torch

        given = list(args)
        for i in self.real.inputs:
            given[i] = torch.view_as_real(args[i].resolve_conj().resolve_neg())
        out = self.run(*given)
        outs = list(out) if self.real.tuple_output else [out]
        try:
            for k in self.real.outputs:
                outs[k] = torch.view_as_complex(outs[k])
        except RuntimeError as e:
            return self.eager(args, f"a complex output could not be viewed as complex: {str(e).splitlines()[0]}")
        return type(out)(outs) if self.real.tuple_output else outs[0]
