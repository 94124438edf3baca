"""Differential testing: a transform is correct on a program if the program computes the same results.

`assert_same_results(before, after)` runs every function of both programs in the reference
interpreter on identical random inputs and compares every output bit for bit.
`optimize_and_compare(program, kernel, options)` is the cpu code generator's test: optimize, then
compare the input with the output in the interpreter and natively (mlir-runner).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from .interpreter import DEFAULT_MAX_OPS, CompiledModule, InterpreterError, compile_module
from . import mlir
from .mlir import ir
from .oracle import TypeSpec, first_difference

__all__ = ["Attempt", "Compared", "assert_same_results", "corrupt_function", "first_difference", "inject_fault",
           "make_inputs", "optimize_and_compare", "run_on_inputs"]


def _function(program: ir.Module | str | CompiledModule, name: str | None) -> tuple[str, tuple[TypeSpec, ...]]:
    """(name, argument specs) of `@name`, or of the only defined function when `name` is None."""
    compiled = compile_module(program)
    name = name if name is not None else compiled.sole_function()
    if name is None:
        raise ValueError(f"name a function; the module defines {['@' + n for n in compiled.defined()]}")
    if name not in compiled.signatures:
        raise ValueError(f"no function @{name} in the module")
    return name, compiled.signatures[name]


def _given(sizes: dict | None, position: int):
    """The caller's choice for argument `position` (keyed by position, "argN" or "%argN"), else None."""
    if not sizes:
        return None
    for key in (position, f"arg{position}", f"%arg{position}"):
        if key in sizes:
            return sizes[key]
    return None


def _random_index(rng: np.random.Generator, allow_zero: bool, high: int) -> int:
    return int(rng.integers(0 if allow_zero else 1, high + 1))


def _random_array(rng: np.random.Generator, shape: tuple[int, ...], dt: np.dtype) -> np.ndarray:
    """Normal-ish floats, small signed ints, 0/1 booleans, small non-negative index values."""
    if dt.kind == "f":
        return rng.standard_normal(shape).astype(dt)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(dt)
    if dt == np.int64:
        return rng.integers(0, 8, shape).astype(dt)
    return rng.integers(-8, 9, shape).astype(dt)


def make_inputs(module: ir.Module | str | CompiledModule, func_name: str | None, seed: int, sizes: dict | None = None,
                allow_zero: bool = False, max_index: int = 9) -> list:
    """Random arguments for `@func_name`, reproducible from `seed`.

    index/integer scalars: `sizes[pos]` (or `sizes["argN"]`) if given, else random in [1, max_index]
    ([0, max_index] with `allow_zero`). Memrefs: static dims as declared; each `?` dim from a
    given shape (`sizes["argN"] = (d0, d1, ...)`), else 4 * (largest index argument) + 16 so
    accesses offset by a few iterations stay in bounds. Float scalars are normal-ish.
    Keys that name no argument (e.g. source names like "n", which parsing forgets) are ignored.
    """
    _, specs = _function(module, func_name)
    rng = np.random.default_rng(seed)
    values: list = [None] * len(specs)
    for i, spec in enumerate(specs):
        if spec.is_memref:
            continue
        k = spec.scalar
        if k is None:
            raise ValueError(f"cannot make an input of type {spec.text} (argument {i})")
        given = _given(sizes, i)
        if k.is_int:
            values[i] = int(given) if given is not None else _random_index(rng, allow_zero, max_index)
            if k.width == 1:
                values[i] &= 1
        else:
            values[i] = k.dtype.type(given if given is not None else rng.standard_normal())
    ints = [v for v, sp in zip(values, specs) if isinstance(v, int) and sp.scalar and sp.scalar.kind == "index"]
    ints = ints or [v for v in values if isinstance(v, int)]
    dyn = 4 * max(ints, default=0) + 16
    for i, spec in enumerate(specs):
        if not spec.is_memref:
            continue
        if spec.dtype is None:
            raise ValueError(f"cannot make an input of type {spec.text} (argument {i})")
        given = _given(sizes, i)
        if given is not None and not isinstance(given, (tuple, list)):
            raise ValueError(f"sizes[arg{i}] must be a shape (tuple) for a memref argument")
        shape = []
        for d, s in enumerate(spec.shape):
            if s is not None:
                shape.append(s)
            elif given is not None and given[d] is not None:
                shape.append(int(given[d]))
            else:
                shape.append(dyn)
        values[i] = _random_array(rng, tuple(shape), spec.dtype)
    return values


def _copy_inputs(inputs: list) -> list:
    return [np.array(x, copy=True) if isinstance(x, np.ndarray) else x for x in inputs]


def run_on_inputs(program: ir.Module | str | CompiledModule, func_name: str | None, inputs: list,
                  max_ops: int = DEFAULT_MAX_OPS) -> list:
    """Run on copies of `inputs`; return every memref argument after the call, then the results."""
    args = _copy_inputs(inputs)
    compiled = program if isinstance(program, CompiledModule) else compile_module(program)
    name = func_name if func_name is not None else _function(compiled, None)[0]
    results = compiled.run(name, args, max_ops)
    return [a for a in args if isinstance(a, np.ndarray)] + list(results)


@dataclass(frozen=True)
class Attempt:
    """How the inputs of one trial were chosen."""

    seed: int
    max_index: int
    allow_zero: bool


def _attempts(seed: int, allow_zero: bool) -> list[Attempt]:
    """Input choices tried in order until the BEFORE program runs: generous, then smaller sizes."""
    z = allow_zero
    return [Attempt(seed, 9, z), Attempt(seed + 7919, 9, z), Attempt(seed, 4, z),
            Attempt(seed + 104729, 2, z), Attempt(seed, 1, False)]


def _run_before(before, name, seed, sizes, max_ops, allow_zero):
    errors = []
    for att in _attempts(seed, allow_zero):
        inputs = make_inputs(before, name, att.seed, sizes, att.allow_zero, att.max_index)
        try:
            return inputs, run_on_inputs(before, name, inputs, max_ops)
        except InterpreterError as e:
            errors.append(str(e))
    raise AssertionError(f"@{name}: the BEFORE program fails on every input tried (seed {seed}): {errors[0]}")


def assert_same_results(before: ir.Module | str, after: ir.Module | str, seed: int = 0, func: str | None = None,
                        sizes: dict | None = None, trials: int = 3, rtol: float = 0.0, atol: float = 0.0,
                        max_ops: int = DEFAULT_MAX_OPS, allow_zero: bool = False,
                        func_name: str | None = None) -> int:
    """Assert that `after` computes what `before` computes; return the number of runs compared.

    Every public function of `before` that has a body (or just `@func`) is run `trials` times on random
    inputs (seeds seed, seed+1, ...), both programs on identical copies. Outputs (memref arguments
    after the call, then returned values) must match bitwise, NaN matching NaN, unless rtol/atol
    loosen the comparison. If BEFORE fails on the chosen inputs, smaller sizes are tried.
    `sizes` fixes arguments as in `make_inputs`; `allow_zero` lets random index arguments be 0.
    `func_name` is accepted as another spelling of `func`.
    """
    func = func if func is not None else func_name
    before_m, after_m = compile_module(before), compile_module(after)
    names = [func] if func is not None else _functions_to_compare(before_m)
    after_names = set(after_m.defined())
    compared = 0
    for name in names:
        if name not in after_names:
            raise AssertionError(f"@{name} is defined before the transform but not after it")
        for t in range(trials):
            inputs, want = _run_before(before_m, name, seed + t, sizes, max_ops, allow_zero)
            try:
                got = run_on_inputs(after_m, name, inputs, max_ops)
            except InterpreterError as e:
                raise AssertionError(f"@{name}: the AFTER program fails where BEFORE runs (seed {seed + t}): "
                                     f"{e}") from e
            if len(got) != len(want):
                raise AssertionError(f"@{name}: {len(want)} outputs before, {len(got)} after")
            for i, (w, g) in enumerate(zip(want, got)):
                diff = first_difference(w, g, rtol, atol)
                if diff is not None:
                    raise AssertionError(f"@{name}: output {i} ({_output_label(inputs, i)}) differs "
                                         f"(seed {seed + t}, scalar args {_scalars(inputs)}): {diff}")
            compared += 1
    return compared


NATIVE_FULL_LIMIT = 100_000  # outputs up to this many elements are compared element by element natively


@dataclass(frozen=True)
class Compared:
    """What `optimize_and_compare` produced and compared: the test asserts the IR on these."""

    text: str  # the optimized module
    messages: list[str]  # every remark's message, in order
    remarks: tuple = ()  # the driver's remarks.Remark objects (args, kind, pass_name); () for a transform
    runs: int = 0  # interpreter runs compared (0 with interpret=False)
    native: bool = False  # whether the native runs were compared


def optimize_and_compare(program: str, kernel: str = "k", options=None, *, passes: list[str] | None = None,
                         transform: Callable[[str], tuple[str, list[str]]] | None = None, seed: int = 0,
                         rtol: float = 0.0, normwise: bool = False, interpret: bool = True,
                         natively: bool | None = None, native_sizes: Sequence | None = None,
                         full_limit: int = NATIVE_FULL_LIMIT) -> Compared:
    """Optimize `program` for the cpu and assert the output computes what the input computes.

    The output: `driver.optimize(program, options, passes=passes)` (options default: the cpu
    target's defaults), or `transform(program)` -> (text, messages) for a step run directly (or
    the CLI). No message may say [INTERNAL] (a step that failed and was rolled back). Then `@kernel`
    of the input and of the output are compared:
      interpreter (`interpret`): `assert_same_results(program, text, seed, func=kernel, rtol)`:
        three random inputs (seeds seed, seed + 1, seed + 2), every output bit for bit (NaN
        matching NaN, -0 differing from +0); the interpreter also checks every element a vector
        access reads is in bounds;
      natively (`natively`: None runs when mlir-runner is found, True requires it, False skips):
        both run once in `native.run_native`'s harness (its fixed fill; `native_sizes` as
        run_native's sizes, default every shape static), every memref argument and result compared
        by `native.compare_outputs`: equal values (NaN matching NaN, -0 matching +0) for outputs up
        to `full_limit` elements, equal checksums above. The input's outputs are cached per
        (program, kernel, sizes, full_limit): one input compared with several pipelines runs once.
    `rtol` > 0 loosens both: in the interpreter by numpy's isclose rule, natively relative to the
    larger of the two elements, or with `normwise` to the output's largest magnitude (a
    reassociated sum's error is relative to its terms). Returns `Compared`: the output text, its
    messages (and the driver's remarks), and what was compared.
    """
    text, messages, remarks = _optimized(program, options, passes, transform)
    internal = [m for m in messages if "[INTERNAL]" in m]
    assert not internal, internal
    runs = assert_same_results(program, text, seed=seed, func=kernel, rtol=rtol) if interpret else 0
    if natively is None:
        natively = _has_runner()
    elif natively and not _has_runner():
        raise AssertionError("optimize_and_compare: natively=True but mlir-runner is not found")
    if natively:
        diff = native_mismatch(program, text, native_sizes, kernel=kernel, rtol=rtol, normwise=normwise, full_limit=full_limit)
        assert diff is None, (f"@{kernel} natively: {diff}", messages)
    return Compared(text, messages, remarks, runs, natively)


def native_mismatch(before: str, after: str, sizes: Sequence | None = None, *, kernel: str = "k",
                    rtol: float = 0.0, normwise: bool = False, full_limit: int = NATIVE_FULL_LIMIT,
                    warmup: int = 1) -> str | None:
    """None when @kernel of `before` and of `after` compute the same outputs natively, else the
    first difference (one line).

    Both run in `native.run_native`'s harness (its fixed fill; `sizes` as run_native's sizes,
    default every shape static; `warmup` calls before the one compared, the same for both), and
    every memref argument and result is compared by `native.compare_outputs`: equal values (NaN
    matching NaN, -0 matching +0) for outputs up to `full_limit` elements, equal checksums above;
    `rtol` > 0 loosens it relative to the larger element, or with `normwise` to the output's
    largest magnitude. `before`'s outputs are cached per (text, kernel, sizes, full_limit, warmup).
    """
    from . import native

    key = _sizes_key(before, kernel, sizes)
    want = _native_outputs(before, kernel, key, full_limit, warmup)
    got = native.run_native(after, kernel, list(key), reps=1, warmup=warmup, full_limit=full_limit).outputs
    return native.compare_outputs(list(want), list(got), rtol=rtol, normwise=normwise)


def _optimized(program: str, options, passes, transform) -> tuple[str, list[str], tuple]:
    """(text, messages, remarks) of the driver's run, or of `transform` (no remark objects)."""
    if transform is not None:
        if options is not None or passes is not None:
            raise ValueError("optimize_and_compare: a transform replaces the driver: no options or passes")
        text, messages = transform(program)
        return text, list(messages), ()
    from .driver import optimize
    from .options import TARGETS, Options

    res = optimize(program, options or Options(target=TARGETS["cpu"]), filename="t.mlir", passes=passes)
    return res.text, [r.message for r in res.remarks], tuple(res.remarks)


def _has_runner() -> bool:
    from .toolchain import find_tool

    return find_tool("mlir-runner") is not None


def _sizes_key(program: str, kernel: str, sizes: Sequence | None) -> tuple:
    """run_native's sizes as a hashable tuple (shapes as tuples); every shape static when not given."""
    from . import native

    if not sizes:
        return (None,) * len(native.kernel_signature(program, kernel).args)
    return tuple(tuple(s) if isinstance(s, (list, tuple)) else s for s in sizes)


@functools.lru_cache(maxsize=64)
def _native_outputs(program: str, kernel: str, sizes: tuple, full_limit: int, warmup: int) -> tuple:
    """The input's outputs natively (cached: the harness's fill is fixed)."""
    from . import native

    return tuple(native.run_native(program, kernel, list(sizes), reps=1, warmup=warmup, full_limit=full_limit).outputs)


def _functions_to_compare(compiled: CompiledModule) -> list[str]:
    """Public functions with a body (private helpers may be inlined or dropped); all if none is public."""
    defined = compiled.defined()
    public = [n for n in defined if compiled.public[n]]
    return public or defined


def _output_label(inputs: list, i: int) -> str:
    memrefs = [p for p, x in enumerate(inputs) if isinstance(x, np.ndarray)]
    if i < len(memrefs):
        return f"memref argument %arg{memrefs[i]}"
    return f"result {i - len(memrefs)}"


def _scalars(inputs: list) -> dict:
    return {f"arg{p}": x for p, x in enumerate(inputs) if not isinstance(x, np.ndarray)}


def inject_fault(step_name: str, fault=None):
    """A `driver.optimize(wrap=...)` wrapper: after the step named `step_name` runs, `fault(fn)`
    damages the function (default: `corrupt_function`), so the driver must roll it back."""
    fault = fault or corrupt_function

    def wrap(name, step):
        if name != step_name:
            return step

        def faulty(fn, options, log, filename):
            count = step(fn, options, log, filename)
            fault(fn)
            return count

        return faulty

    return wrap


def corrupt_function(fn: ir.Operation) -> None:
    """Fault injection: make the function invalid (a use before its definition)."""
    body = mlir.func_body(fn)
    ops = mlir.block_ops(body)
    for op in ops:
        if op.results and len(list(op.results[0].uses)) > 0:
            op.move_before(ops[-1])  # after its users: dominance broken
            return
    with fn.context, fn.location:
        ir.Operation.create("func.return", operands=[], ip=ir.InsertionPoint.at_block_begin(body))
