"""loopopt: a loop-nest optimizer for MLIR affine programs (the Neuron LoopOptimization pass).

    import loopopt
    res = loopopt.optimize(mlir_text, target="cpu", distance_threshold=4)
    res.text, res.remarks, res.stats["numLoopsFused"]
    k = loopopt.compile(mlir_text)     # built for this machine, called with numpy arrays: k(x)

`optimize` and `Result` live in loopopt/api.py (imported on first use, so `loopopt --help`
does not load the MLIR bindings).
"""
from __future__ import annotations


from .version import __version__  # noqa: F401


def optimize(source, target="trn1", **kwargs):
    """Run loopopt on MLIR text or an ir.Module; returns a loopopt.api.Result (.text, .remarks,
    .stats). Keyword arguments: filename, passes, explain, ir_after_each and the knobs (fields of
    loopopt.options.Options). See loopopt.api.optimize."""
    from .api import optimize as _optimize

    return _optimize(source, target, **kwargs)


def compile(source, target="cpu", **kwargs):
    """Optimize MLIR text (or an ir.Module) for this machine's CPU, build it and load it: a callable
    kernel taking and returning numpy arrays (loopopt.runtime.kernel.Kernel). Keyword arguments:
    function, filename, passes, cache and the knobs of `optimize`. See loopopt.api.compile and
    docs/runtime.md."""
    from .api import compile as _compile

    return _compile(source, target, **kwargs)


def torch_backend(gm, example_inputs, **kwargs):
    """A `torch.compile` backend: `torch.compile(model, backend=loopopt.torch_backend)`. Each FX graph
    goes through torch-mlir's FX importer and `compile`; a graph it cannot take runs eagerly, with
    one warning naming why. Needs torch and torch-mlir (`pip install loopopt[torch]`)."""
    from .runtime.torch_backend import backend

    return backend(gm, example_inputs, **kwargs)


def lower(source, *, filename: str = "<input>", elementwise_fusion: bool = False, pipeline: str | None = None,
          input_kind: str = "auto", dump_ir: bool = False):
    """Lower a linalg/tensor, StableHLO or torch-dialect program (MLIR text, bytes or an ir.Module,
    lowered in place) to the affine module loopopt optimizes; returns a loopopt.frontend.Lowered:
    `.module` (the affine ir.Module), `.text`, `.kind`, `.pipeline`, `.steps` (what each step
    did), `.checks` (the equalities checked at run time). `optimize` runs this first by itself.
    See docs/frontend.md."""
    from .frontend import LoweringOptions, lower as _lower

    options = LoweringOptions(input_kind=input_kind, elementwise_fusion=elementwise_fusion, pipeline=pipeline)
    return _lower(source, options, filename=filename, dump_ir=dump_ir)


def from_torch(module, *example_inputs, target="cpu", func_name=None, dynamic_shapes=None, **kwargs):
    """Export a torch.nn.Module through torch-mlir (`pip install loopopt[torch]`: torch-mlir runs in a
    child process, its MLIR is not ours; text crosses), then optimize it: a loopopt.api.Result whose
    `.text` is the optimized affine module. `func_name` names the function (default: the module's
    class name); `dynamic_shapes` as for torch.export; other keyword arguments as for `optimize`."""
    from .frontend.torch import from_torch as _export

    text = _export(module, *example_inputs, func_name=func_name, dynamic_shapes=dynamic_shapes)
    kwargs.setdefault("filename", f"<torch {type(module).__name__}>")
    return optimize(text, target, **kwargs)


def __getattr__(name: str):
    if name == "Result":
        from .api import Result

        return Result
    raise AttributeError(f"module 'loopopt' has no attribute {name!r}")
