"""The one lowering from loopopt's output (affine, scf, memref, vector, math, arith) to the LLVM
dialect, shared by the native test harness (loopopt.native) and the runtime (loopopt.runtime.build),
so a kernel timed in the harness and a kernel called from Python are the same code.

The runtime's entry points also get MLIR's C interface (`_mlir_ciface_NAME`, one pointer per
memref): `mark_entry_points` sets `llvm.emit_c_interface` on every public function with a body
before the pipeline runs. MLIR's `--llvm-request-c-wrappers` pass would set it on declarations
too, and convert-func-to-llvm then turns a declared `@foo` into a body calling an undefined
`_mlir_ciface_foo`.
"""
from __future__ import annotations

# Math ops with an LLVM intrinsic (exp, tanh, sqrt, ...) become intrinsics; the rest become libm
# calls (the harness resolves them from mlir-runner's process, a shared object through its
# DT_NEEDED libm). memref.alloc/dealloc become malloc/free. Vector ops (affine.vector_load/store
# lower to vector.load/store; vector.fma, vector.broadcast, vector.reduction) become LLVM vector
# instructions, after the math passes: a libm function on a vector (math.erf on vector<8xf32> in a
# register-tiled epilogue) becomes one call per lane through vector.extract/insert, which must be
# lowered too. A program without vector ops lowers to the same text with or without that pass
# (checked on every benchmark program, docs/cpu_codegen.md).
# math.log1p is libm's log1pf/log1p (`approximate-log1p=false`): convert-math-to-llvm's default
# writes it as log(1 + x), whose rounding of 1 + x loses every digit of a small x (log1p(1e-10)
# gave 0, log1p(1e-7) 1.19e-7; docs/cpu_codegen.md section 59).
LOWERING_PASSES: tuple[str, ...] = (
    "--lower-affine",
    "--convert-scf-to-cf",
    "--convert-math-to-llvm=approximate-log1p=false",
    "--convert-math-to-libm",
    "--convert-vector-to-llvm",
    "--expand-strided-metadata",
    "--finalize-memref-to-llvm",
    "--convert-arith-to-llvm",
    "--convert-index-to-llvm",
    "--convert-func-to-llvm",
    "--convert-cf-to-llvm",
    "--convert-ub-to-llvm",
    "--reconcile-unrealized-casts",
)

# The runtime's libraries (loopopt.compile) lower memref.alloc/dealloc to MLIR's generic allocation
# functions, which the library defines (runtime/alloc.py); every other pass is the harness's.
RUNTIME_LOWERING_PASSES: tuple[str, ...] = tuple(
    "--finalize-memref-to-llvm=use-generic-functions=1" if p == "--finalize-memref-to-llvm" else p
    for p in LOWERING_PASSES)

C_INTERFACE_ATTR = "llvm.emit_c_interface"
C_INTERFACE_PREFIX = "_mlir_ciface_"


def pipeline_text() -> str:
    """LOWERING_PASSES as one `--pass-pipeline` text, one pass a line; `mlir-opt
    --pass-pipeline="$(...)"` runs exactly the passes the flags run, in their order."""
    return "builtin.module(\n" + ",\n".join(f"  {_pipeline_entry(p)}" for p in LOWERING_PASSES) + ")\n"


def _pipeline_entry(flag: str) -> str:
    """A pass flag as a `--pass-pipeline` entry: `--name=a=b` is `name{a=b}`."""
    name, _, opts = flag[2:].partition("=")
    return f"{name}{{{opts}}}" if opts else name


def entry_points(module) -> list:
    """The public func.func ops with a body: the functions a caller outside the module can call."""
    from .. import mlir

    out = []
    for fn in mlir.functions(module):
        private = "sym_visibility" in fn.attributes and \
            mlir.ir.StringAttr(fn.attributes["sym_visibility"]).value != "public"
        if not private and mlir.func_body(fn) is not None:
            out.append(fn)
    return out


def mark_entry_points(module) -> list[str]:
    """Set `llvm.emit_c_interface` on every entry point of `module` (in place); their names."""
    from .. import mlir

    names = []
    with module.context:
        for fn in entry_points(module):
            fn.attributes[C_INTERFACE_ATTR] = mlir.ir.UnitAttr.get()
            names.append(mlir.func_name(fn))
    return names
