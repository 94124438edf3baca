"""loopopt: a loop-nest optimizer for MLIR affine programs (the Neuron LoopOptimization pass).

    import loopopt
    res = loopopt.optimize(mlir_text, target="cpu", distance_threshold=4)
    res.text, res.remarks, res.stats["numLoopsFused"]

`optimize` and `Result` live in loopopt/api.py (imported on first use, so `loopopt --help`
does not load the MLIR bindings).
"""
from __future__ import annotations


def _version() -> str:
    """The installed package's version; from a source tree, pyproject.toml's."""
    from importlib import metadata

    try:
        return metadata.version("loopopt")
    except metadata.PackageNotFoundError:
        pass
    import os
    import tomllib

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyproject.toml")
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)["project"]["version"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"


__version__ = _version()


def optimize(source, target="trn1", **kwargs):
    """Run loopopt on MLIR text or an ir.Module; returns a loopopt.api.Result (.text, .remarks,
    .stats). Keyword arguments: filename, passes, explain, ir_after_each and the knobs (fields of
    loopopt.options.Options). See loopopt.api.optimize."""
    from .api import optimize as _optimize

    return _optimize(source, target, **kwargs)


def __getattr__(name: str):
    if name == "Result":
        from .api import Result

        return Result
    raise AttributeError(f"module 'loopopt' has no attribute {name!r}")
