"""The runtime: what loopopt makes, built into a shared object for the host and called from Python.

    import loopopt
    k = loopopt.compile(open("benchmarks/models/blocks/mlp_relu_small.mlir").read())
    y = k(x)                       # numpy in, numpy out; zero-copy inputs

Layers, each a module of its own:
  lowering  the one MLIR -> LLVM dialect pipeline (also the test harness's, loopopt.native)
  build     mlir-opt -> mlir-translate -> opt -O3 -> llc -O3 -> cc -shared with Debian's LLVM 22
  spec      what a call needs to know about the entry function: arguments, roles, size rules, checks
  memref    numpy arrays as memref descriptors (MLIR's C interface), and the C header
  cache     built objects keyed by content, in the user's cache directory
  kernel    the callable: checks every argument in Python before the call
  torch_backend  `torch.compile(model, backend=loopopt.torch_backend)` (torch imported lazily)

`loopopt.compile` (loopopt/api.py) ties them together; docs/runtime.md describes them. Nothing
here imports numpy, ctypes or the MLIR bindings until it is used.
"""
from .checks import CheckFailed  # noqa: E402,F401  (numpy- and MLIR-free)


def aligned_empty(shape, dtype, alignment: int = 64):
    """An uninitialised numpy array whose data starts at a multiple of `alignment` bytes (the
    callable allocates its outputs so; give it inputs so placed for the harness's speed)."""
    from .memref import aligned_empty as make

    return make(shape, dtype, alignment)
