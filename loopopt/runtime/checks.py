"""Run-time checks that fail inside a kernel: an error for the caller, not the end of its process.

A module's run-time checks are its `cf.assert` ops, numbered 1, 2, ... in the module's order
(`assert_ops`). MLIR lowers a failing one to `puts` + `abort()`, which would end the process
that called the kernel. Before the lowering, `lower_asserts` makes each check

    scf.if %c { } else { func.call @FAIL(%n) : (i32) -> () }   // n: the check's number

where FAIL is a function of the library (noreturn and cold for LLVM, so a check that passes is
a compare and a branch). `wrapper_source` writes that function and, per entry point NAME, a
wrapper `int32_t loopopt_call_NAME(...)` taking `_mlir_ciface_NAME`'s arguments (and a pointer
for a scalar result): it takes a `setjmp` and calls the kernel; FAIL `longjmp`s back to it and
the wrapper returns n; it returns 0 when every check passed. The jump buffer is thread-local:
calls from several threads stay apart. FAIL reached without a wrapper (`_mlir_ciface_NAME`
called directly) prints the check's message to stderr and aborts, as MLIR's lowering does.

What a jump leaves behind: the kernel's frames are dropped without running the rest of the
kernel, so the outputs are partly written and its deallocs do not run. In a library with the
temporaries' cache (runtime/alloc.py, whose C comes first and defines LOOPOPT_TEMPORARIES) the
wrapper then hands back every block the call took and still held; in one without it (a malloc
build) they are leaked.
"""
from __future__ import annotations

import hashlib

from .spec import assert_ops, generated_names, message, message_function, wrapper_name  # noqa: F401

FAIL_BASE = "loopopt_check_failed"
# LLVM function attributes of FAIL: it never returns (so code after a failed check is
# unreachable), it is rarely called (so the branch to it is laid out as unlikely), it throws no
# C++ exception (a longjmp is no unwind).
FAIL_ATTRIBUTES = ("noreturn", "cold", "nounwind")


class CheckFailed(ValueError):
    """A run-time check of the kernel (`cf.assert`) failed on this call. `number` is the check's
    number in the module (1, 2, ...), `message` its text; `in_kernel` says the kernel found it
    (it stopped there: outputs partly written) rather than the callable before the call (nothing
    ran). A ValueError, as the callable's other argument errors."""

    def __init__(self, text: str, number: int, message: str, in_kernel: bool):
        super().__init__(text)
        self.number, self.message, self.in_kernel = number, message, in_kernel


def fail_symbol(module, seed: str) -> str:
    """The name of the failure function: one no symbol of the module has, and one that differs
    between kernels (from a digest of `seed`, the module's text), so objects of two kernels
    linked into one program do not define it twice."""
    from .. import mlir

    base = f"{FAIL_BASE}_{hashlib.sha256(seed.encode('utf-8')).hexdigest()[:12]}"
    return mlir.fresh_symbol_name(module.operation, base)


def _symbol_table_of(op):
    """The nearest builtin.module around `op`: where a symbol it calls must be declared."""
    parent = op.parent
    while parent is not None and parent.name != "builtin.module":
        parent = parent.parent
    return parent


def lower_asserts(module, symbol: str) -> int:
    """Replace every cf.assert of `module` (in place) by a branch calling `symbol(n)` when its
    condition is false, n the check's number; declare `symbol` where it is called. Returns the
    number of checks."""
    from .. import mlir
    from ..mlir import arith_d, func_d, ir

    ops = assert_ops(module)
    if not ops:
        return 0
    with module.context:
        i32 = ir.IntegerType.get_signless(32)
        declared: set[int] = set()
        for n, op in enumerate(ops, 1):
            table = _symbol_table_of(op)
            key = mlir.op_key(table)
            if key not in declared:
                declared.add(key)
                block = table.regions[0].blocks[0]
                with ir.Location.unknown():
                    decl = func_d.FuncOp(symbol, ir.FunctionType.get([i32], []), visibility="private",
                                         ip=ir.InsertionPoint.at_block_begin(block))
                decl.attributes["passthrough"] = ir.ArrayAttr.get([ir.StringAttr.get(a) for a in FAIL_ATTRIBUTES])
            with op.location:
                branch = ir.Operation.create("scf.if", results=[], operands=[op.operands[0]], regions=2,
                                             ip=ir.InsertionPoint(op))
                passed = branch.regions[0].blocks.append()
                ir.Operation.create("scf.yield", ip=ir.InsertionPoint(passed))
                failed = branch.regions[1].blocks.append()
                ip = ir.InsertionPoint(failed)
                number = arith_d.ConstantOp(i32, n, ip=ip)
                func_d.CallOp([], ir.FlatSymbolRefAttr.get(symbol), [number.result], ip=ip)
                ir.Operation.create("scf.yield", ip=ip)
            op.erase()
    return len(ops)


# ----------------------------------------------------------------------------- the C side

def c_string(text: str) -> str:
    """`text` as a C string literal (UTF-8; quotes, backslashes and control bytes escaped; `?`
    escaped so no trigraph forms)."""
    out = []
    for b in text.encode("utf-8"):
        c = chr(b)
        if c in '"\\?':
            out.append("\\" + c)
        elif 32 <= b < 127:
            out.append(c)
        else:
            out.append(f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def wrapper_source(header: str, specs: list, messages: tuple, symbol: str) -> str:
    """The C source linked into the library: the failure function `symbol` and, per spec, the
    wrapper and the message function. `header` is the C header of the same specs (its
    declarations are the prototypes the definitions must match)."""
    from . import alloc
    from .memref import c_parameters, C_ELEMENT

    n = len(messages)
    table = ",\n".join(f"    {c_string(m)}" for m in messages)
    lines = [
        "/* Generated by loopopt: run-time checks that fail inside the kernel return to the caller"
        " (loopopt/runtime/checks.py). */",
        "#include <setjmp.h>", "#include <stdio.h>", "#include <stdlib.h>", "",
        header, "",
        f"static const char *const loopopt_messages[{n + 1}] = {{\n    0{',' if n else ''}\n{table}\n}};" if n else
        "static const char *const loopopt_messages[1] = {0};",
        "/* The wrapper's jump buffer while a kernel runs on this thread (NULL otherwise), and the",
        "   number of the check that failed. */",
        "static _Thread_local jmp_buf *loopopt_active;",
        "static _Thread_local int32_t loopopt_failed;", "",
        f"__attribute__((visibility(\"hidden\"), noreturn, cold)) void {symbol}(int32_t n);",
        f"void {symbol}(int32_t n) {{",
        "  if (loopopt_active) {",
        "    loopopt_failed = n;",
        "    longjmp(*loopopt_active, 1);",
        "  }",
        f"  fprintf(stderr, \"%s\\n\", n >= 1 && n <= {n} ? loopopt_messages[n] : \"loopopt: a run-time check failed\");",
        "  abort();",
        "}", "",
    ]
    for spec in specs:
        params, names = c_parameters(spec)
        if spec.result:
            params = params + [f"{C_ELEMENT[spec.result]} *result"]
        call = f"_mlir_ciface_{spec.name}({', '.join(names)})"
        lines += [
            f"const char *{message_function(spec.name)}(int32_t n) {{",
            f"  return n >= 1 && n <= {n} ? loopopt_messages[n] : 0;",
            "}", "",
            f"int32_t {wrapper_name(spec.name)}({', '.join(params) or 'void'}) {{",
            "  jmp_buf here;",
            "  jmp_buf *outer = loopopt_active;",
            f"#ifdef {alloc.TEMPORARIES_MACRO}",
            f"  size_t outer_call = {alloc.BEGIN}();",
            "#endif",
            "  if (setjmp(here)) {",
            "    loopopt_active = outer;",
            f"#ifdef {alloc.TEMPORARIES_MACRO}",
            f"    {alloc.ABANDON}(outer_call); /* the temporaries the kernel held when it stopped */",
            "#endif",
            "    return loopopt_failed;",
            "  }",
            "  loopopt_active = &here;",
            f"  {'*result = ' if spec.result else ''}{call};",
            "  loopopt_active = outer;",
            f"#ifdef {alloc.TEMPORARIES_MACRO}",
            f"  {alloc.END}(outer_call);",
            "#endif",
            "  return 0;",
            "}", "",
        ]
    return "\n".join(lines)
