"""From source text to a loaded Kernel (loopopt.compile) or to bytes on disk (`loopopt --emit`).

    source --optimize(--target cpu)--> affine module --mark entry points, spec--> build --> .so --> Kernel

The optimized module is read once with the bindings: its entry points get the C interface
(lowering.mark_entry_points) and the entry function's spec is taken (spec.kernel_spec). How many
trailing arguments are out-parameters comes from the source: a function lowered from tensors
has one per result (docs/frontend.md); affine input has none the callable allocates.
"""
from __future__ import annotations

import os
import tempfile
import time

from ..version import __version__
from . import build as buildmod
from . import cache as cachemod
from .phases import phase, record
from .lowering import RUNTIME_LOWERING_PASSES, entry_points, mark_entry_points
from .spec import KernelSpec, SpecError, kernel_spec


def output_counts(source_text: str, filename: str) -> dict[str, int]:
    """For each public function of the source, how many out-parameters its lowering appends: its
    result count when the source is on tensors (linalg, StableHLO, torch, ONNX), 0 for affine."""
    from .. import mlir
    from ..frontend import input_kind

    module = mlir.parse_module(source_text, filename)
    with module.context:
        if input_kind(module) == "affine":
            return {}
        from ..oracle import function_signature

        return {mlir.func_name(fn): len(function_signature(fn).results) for fn in entry_points(module)}


def prepare(optimized_text: str, counts: dict[str, int], function: str | None,
            facts: dict | None = None) -> tuple[str, KernelSpec, str]:
    """(the optimized module with its entry points marked and its checks lowered, the entry
    function's spec, the C source of its check wrapper). `facts`, when given, gets "across":
    `stores_across` of the entry function's out-parameters."""
    from .. import mlir

    module = mlir.parse_module(optimized_text)
    with module.context:
        from .spec import find_entry

        entry = find_entry(module, function)
        name = mlir.func_name(entry)
        spec = kernel_spec(module, name, counts.get(name, 0))
        if facts is not None:
            facts["across"] = stores_across(entry, spec.n_outputs)
        mark_entry_points(module)
        source = lower_checks(module, [spec], optimized_text)
        return mlir.print_module(module), spec, source


def stores_across(fn, n_outputs: int) -> list[int]:
    """Per out-parameter of `fn` (its last `n_outputs` arguments), how many scalar stores into it
    move, along the affine.for directly around them, by other than one element of its last
    dimension (a walk across its layout: a result stored one element per vector lane's worth of
    memory) or by steps the model cannot name; a store in no loop or invariant in its loop, and
    vector stores, count none. The torch backend asks it of results it has the kernel write in a
    permuted order (docs/runtime.md, "Inputs in a permuted layout")."""
    from .. import mlir
    from ..analysis.accesses import access_pattern
    from ..analysis.affine import Scope
    from ..analysis.loops import loop_dims
    from ..codegen.cpu.plan.cpu_plan import unit_dims
    from ..codegen.cpu.plan.locality import index_strides, stride_class

    body = mlir.func_body(fn)
    if body is None or n_outputs <= 0:
        return []
    args = list(body.arguments)[-n_outputs:]
    counts = [0] * n_outputs
    scope = Scope()
    for op in mlir.walk(fn):
        if op.name not in ("affine.store", "memref.store"):
            continue
        hit = [k for k, a in enumerate(args) if a == op.operands[1]]
        if not hit:
            continue
        loop = mlir.operation(op.parent) if op.parent is not None else None
        if loop is None or loop.name != "affine.for":
            continue
        try:
            a = access_pattern(op, scope)
            (axis,) = loop_dims(loop, scope)
            strides = index_strides(a, axis.name) if a.index is not None else None
            unit = unit_dims(mlir.memref_type(op.operands[1]), strides)
            cls = stride_class(None if strides is None else tuple(s for d, s in enumerate(strides) if d not in unit))
        except Exception:  # noqa: BLE001 - an access the model cannot read: counted
            cls = "strided"
        if cls not in ("contiguous", "invariant"):
            counts[hit[0]] += 1
    return counts


def lower_checks(module, specs: list[KernelSpec], text: str) -> str:
    """Lower the module's cf.asserts to calls of the library's failure function (in place,
    runtime.checks) and return the C source defining it and the wrappers of `specs`, which
    must have been taken from the module before; `text` is the module's text (the failure
    function's name is made from its digest)."""
    from . import checks
    from .memref import c_header

    messages = tuple(checks.message(op) for op in checks.assert_ops(module))
    for spec in specs:
        assert spec.messages == messages, "the specs were taken from another module"
    symbol = checks.fail_symbol(module, text)
    checks.lower_asserts(module, symbol)
    header = c_header([(s.name, s, "") for s in specs], "loopopt_checks", messages=messages)
    return checks.wrapper_source(header, specs, messages, symbol)


def with_checks(marked_text: str, specs: list, optimized_text: str) -> tuple[str, str, tuple[str, ...]]:
    """(the marked module with its checks lowered, the C source of the wrappers of the entry
    points that have a spec, the module's check messages): for --emit. The failure function is
    named from `optimized_text` (the module before marking), as `prepare` names it."""
    from .. import mlir
    from . import checks

    module = mlir.parse_module(marked_text)
    with module.context:
        messages = tuple(checks.message(op) for op in checks.assert_ops(module))
        source = lower_checks(module, [s for _, s, _ in specs if s is not None], optimized_text)
        return mlir.print_module(module), source, messages


def mark_all(optimized_text: str) -> tuple[str, list[str]]:
    """(the module with every entry point marked for the C interface, their names)."""
    from .. import mlir

    module = mlir.parse_module(optimized_text)
    names = mark_entry_points(module)
    return mlir.print_module(module), names


def all_specs(marked_text: str, counts: dict[str, int]) -> list[tuple[str, KernelSpec | None, str]]:
    """(name, spec or None, why not) of every entry point: for the C header."""
    from .. import mlir

    module = mlir.parse_module(marked_text)
    out = []
    with module.context:
        for fn in entry_points(module):
            name = mlir.func_name(fn)
            try:
                out.append((name, kernel_spec(module, name, counts.get(name, 0)), ""))
            except SpecError as e:
                out.append((name, None, str(e)))
    return out


def key_material(source_text: str, options, passes, function: str | None, tc: buildmod.Toolchain) -> dict:
    import hashlib

    return {"format": cachemod.FORMAT, "source": hashlib.sha256(source_text.encode("utf-8")).hexdigest(),
            "options": repr(options), "passes": list(passes) if passes is not None else None, "function": function,
            "loopopt": __version__, "code": cachemod.code_digest(), "lowering": list(RUNTIME_LOWERING_PASSES),
            "opt": buildmod.opt_flags(tc), "llc": buildmod.llc_flags(tc), "cc": buildmod.cc_flags(),
            "checks_cc": buildmod.wrapper_cc_flags(), **tc.key()}


def compile_kernel(source_text: str, options, *, optimize, function: str | None = None, filename: str = "<input>",
                   passes=None, cache: bool = True):
    """A loaded Kernel for the entry function of `source_text` (see loopopt.compile); `optimize`
    is loopopt.api.run (the API passes it: the runtime sits below the API)."""
    with phase("loopopt.compile"):
        return _compile_kernel(source_text, options, optimize=optimize, function=function, filename=filename,
                               passes=passes, cache=cache)


def _compile_kernel(source_text: str, options, *, optimize, function, filename, passes, cache):
    from .kernel import Kernel

    with phase("cache key"):
        tc = buildmod.toolchain()
        material = key_material(source_text, options, passes, function, tc)
        key = cachemod.key_of(material)

    def make():
        t0 = time.perf_counter()
        with phase("output counts (parse)"):
            counts = output_counts(source_text, filename)
        with phase("optimize"):
            result = optimize(source_text, options, filename=filename, passes=passes)
            for name, seconds in result.stats.get("time", {}).items():
                record(name, seconds)
        t1 = time.perf_counter()
        facts: dict = {}
        with phase("prepare"):
            marked, spec, checks_c = prepare(result.text, counts, function, facts)
        with phase("build"):
            library = buildmod.build(marked, "shared", tc, checks_c, generic_alloc=True)
        t2 = time.perf_counter()
        info = {"optimize_seconds": round(t1 - t0, 4), "build_seconds": round(t2 - t1, 4), "loopopt": __version__,
                "llvm": tc.llvm_version, "cpu": tc.host_cpu, "filename": filename, **facts}
        return library, spec.to_json(), info

    directory = cachemod.cache_dir()
    why_off = None if cache else "cache=False"
    if why_off is None:
        why_off = cachemod.ensure_dir(directory)
    if why_off is None:
        with phase("cache"):
            entry, how = cachemod.get_or_build(directory, key, make)
        with phase("load"):
            return Kernel(KernelSpec.from_json(entry.spec_json), entry.library, {**entry.info, "cache": how})
    library, spec_json, info = make()
    with tempfile.TemporaryDirectory(prefix="loopopt-kernel-") as d:  # loaded, then removed: the mapping stays
        path = os.path.join(d, "kernel.so")
        with open(path, "wb") as f:
            f.write(library)
        return Kernel(KernelSpec.from_json(spec_json), path, {**info, "cache": f"off ({why_off})"})
