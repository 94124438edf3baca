"""The one module that imports the MLIR Python bindings.

Everything else in loopopt reaches MLIR through the names exported here, so the
binding source (today the `iree-base-compiler` wheel) can be swapped in one place.
"""
from __future__ import annotations

import operator
import os
import queue
import re
import signal
import sys
import threading
import time
from itertools import accumulate
import weakref
from contextlib import contextmanager
from typing import Callable, Iterator


def _import_bindings_without_numpy():
    """Import the bindings' `ir` without importing numpy when nothing has imported it yet.

    The bindings' ir.py imports numpy only to register builders that make dense elements
    attributes from Python lists, which loopopt never uses, and only if numpy imports; numpy's
    import is about a fifth of loopopt's start-up (some 55 of 280 ms). Should a later wheel need
    numpy, the import is simply repeated with it."""
    if "numpy" in sys.modules:
        return
    sys.modules["numpy"] = None  # makes `import numpy` raise ImportError
    try:
        import iree.compiler.ir  # noqa: F401
    except ImportError:
        pass
    finally:
        if sys.modules.get("numpy", 0) is None:
            del sys.modules["numpy"]


_import_bindings_without_numpy()
from iree.compiler import ir, passmanager  # noqa: E402,F401  (re-exported)
from iree.compiler.dialects import affine as affine_d  # noqa: E402,F401
from iree.compiler.dialects import arith as arith_d  # noqa: E402,F401
from iree.compiler.dialects import func as func_d  # noqa: E402,F401
from iree.compiler.dialects import memref as memref_d  # noqa: E402,F401

from .errors import ErasedOpInUse, LoopOptError  # noqa: E402

Operation = ir.Operation
Value = ir.Value
Block = ir.Block
AffineMap = ir.AffineMap
AffineExpr = ir.AffineExpr
AffineDimExpr = ir.AffineDimExpr
AffineSymbolExpr = ir.AffineSymbolExpr
AffineConstantExpr = ir.AffineConstantExpr
AffineAddExpr = ir.AffineAddExpr
AffineMulExpr = ir.AffineMulExpr
AffineModExpr = ir.AffineModExpr
AffineFloorDivExpr = ir.AffineFloorDivExpr
AffineCeilDivExpr = ir.AffineCeilDivExpr
MemRefType = ir.MemRefType
BlockArgument = ir.BlockArgument
OpResult = ir.OpResult
MLIRError = ir.MLIRError

_LOC_RE = re.compile(r'loc\("(?P<file>[^"]*)":(?P<line>\d+):(?P<col>\d+)\)')


def new_context() -> ir.Context:
    """A context with every upstream dialect; unknown ops parse as opaque ops."""
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    return ctx


def _where(loc_text: str, filename: str) -> str:
    m = _LOC_RE.search(loc_text)
    if not m:
        return filename
    return f"{filename}:{m.group('line')}:{m.group('col')}"


BYTECODE_MAGIC = b"ML\xefR"  # the first bytes of every MLIR bytecode file
MAX_NESTING_DEPTH = 4096  # ( [ { nested deeper are refused before the parser sees them


def parse_module(text: str | bytes, filename: str = "<input>", ctx: ir.Context | None = None) -> ir.Module:
    """Parse MLIR text (custom or generic form) and verify it.

    Raises LoopOptError with one line `file:line:col: error: message` on bad input: bytecode,
    bytes that are not UTF-8, NUL bytes, nothing but blanks, or brackets nested deeper than
    MAX_NESTING_DEPTH (MLIR's parser recurses on the C stack; call it through
    `call_with_big_stack` for inputs nested more than a few hundred levels).
    """
    if isinstance(text, (bytes, bytearray, memoryview)):
        data = bytes(text)
        if data.startswith(BYTECODE_MAGIC):
            raise LoopOptError(bytecode_message(filename))
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise LoopOptError(f"{filename}: error: input is not UTF-8 text (byte {e.start})") from None
    elif not isinstance(text, str):
        raise TypeError(f"loopopt: MLIR source must be text (str or bytes), not {type(text).__name__}")
    if text.startswith(BYTECODE_MAGIC.decode("latin-1")):
        raise LoopOptError(bytecode_message(filename))
    if not text.strip():
        raise LoopOptError(f"{filename}: error: input is empty; expected an MLIR module")
    if "\x00" in text:
        raise LoopOptError(f"{filename}: error: input contains NUL bytes; expected MLIR text")
    depth = nesting_depth(text)
    if depth > MAX_NESTING_DEPTH:
        raise LoopOptError(f"{filename}: error: input nests {depth} levels deep; loopopt handles at most "
                           f"{MAX_NESTING_DEPTH}")
    ctx = ctx or new_context()
    name_source(ctx, filename)
    try:
        module = ir.Module.parse(text, ctx)
    except ir.MLIRError as e:
        raise LoopOptError(_diag_line(e, filename, "cannot parse input")) from None
    except Exception as e:  # the bindings raise plain errors for some malformed input
        raise LoopOptError(f"{filename}: error: cannot parse input: {e}") from None
    try:
        module.operation.verify()
    except ir.MLIRError as e:
        raise LoopOptError(_diag_line(e, filename, "input does not verify")) from None
    return module


def bytecode_message(filename: str) -> str:
    """The one line for MLIR bytecode input: loopopt reads text (see docs/interfaces.md)."""
    return (f"{filename}: error: input is MLIR bytecode; loopopt reads MLIR text: convert it with "
            f"`mlir-opt --emit-bytecode=false FILE -o FILE.mlir` (or print the module as text)")


# Strings and comments, whose brackets do not nest; and the byte tables that keep only ( [ { and
# their closers, as 2 and 0 (so a running sum minus the count is the depth).
_STRINGS_AND_COMMENTS = re.compile(rb'"(?:[^"\\\n]|\\.)*"|//[^\n]*')
_BRACKETS = b"([{)]}"
_BRACKET_WEIGHTS = bytes.maketrans(_BRACKETS, b"\x02\x02\x02\x00\x00\x00")
_NOT_BRACKETS = bytes(c for c in range(256) if c not in _BRACKETS)


def nesting_depth(text: str, at_least: int = MAX_NESTING_DEPTH) -> int:
    """How deep ( [ { nest in `text` outside strings and comments (regions, operand lists, affine
    expressions, arrays, dictionaries): what MLIR's recursive parser, verifier and printer recurse
    through. Exact when above `at_least`; otherwise an upper bound (the number of opening
    brackets), which costs three counts. `<...>` (types, attributes) is not counted: `->`, `>=`
    and `<=` make it ambiguous, and what nests in it nests in ( [ { too."""
    opened = text.count("(") + text.count("[") + text.count("{")
    if opened <= at_least:
        return opened
    data = text.encode("utf-8", "surrogatepass")
    if b'"' in data or b"//" in data:
        data = _STRINGS_AND_COMMENTS.sub(b" ", data)
    weights = data.translate(_BRACKET_WEIGHTS, _NOT_BRACKETS)
    return max(map(operator.sub, accumulate(weights), range(1, len(weights) + 1)), default=0)


def region_depth(op: ir.Operation) -> int:
    """How deep regions nest inside `op` (iterative: safe on any stack)."""
    deepest = 0
    stack = [(op, 0)]
    while stack:
        o, d = stack.pop()
        if len(o.regions):
            deepest = max(deepest, d + 1)
            for child in _children(o):
                stack.append((child, d + 1))
    return deepest


def _diag_line(e: "ir.MLIRError", filename: str, what: str) -> str:
    diags = list(getattr(e, "error_diagnostics", []) or [])
    if diags:
        d = diags[0]
        msg = " ".join(str(d.message).split())
        return f"{_where(str(d.location), filename)}: error: {msg}"
    first = " ".join(str(e).split())
    return f"{filename}: error: {what}: {first}"


def verify(op: ir.Operation) -> str | None:
    """Run the full MLIR verifier; return None if valid, else the first diagnostic."""
    try:
        op.verify()
        return None
    except ir.MLIRError as e:
        return _diag_line(e, "<ir>", "verifier failed")


def print_module(module: ir.Module) -> str:
    """Custom-form text that stock mlir-opt accepts."""
    text = str(module)
    return text if text.endswith("\n") else text + "\n"



_BLOB_LINE = re.compile(r'^\s*"?([^":\s]+)"?\s*:\s*"0x([0-9A-Fa-f]*)"', re.MULTILINE)


def resource_blobs(module, names: set[str]) -> dict[str, bytes]:
    """The data of the module's `dense_resource` blobs named in `names`: each blob's bytes after
    its 4-byte alignment header (the raw little-endian elements). The bindings give no read access
    to a blob, so they are taken from the module's printed `{-# dialect_resources #-}` trailer."""
    op = module.operation if isinstance(module, ir.Module) else operation(module)
    text = op.get_asm(large_resource_limit=None)
    at = text.rfind("\n{-#")
    out: dict[str, bytes] = {}
    if at < 0:
        return out
    for name, hexes in _BLOB_LINE.findall(text[at:]):
        if name in names and len(hexes) >= 8:
            out[name] = bytes.fromhex(hexes[8:])
    return out


def resource_name(attr: ir.Attribute) -> str | None:
    """The blob name of a `dense_resource<name>` attribute (None for any other attribute)."""
    m = re.match(r'dense_resource<"?([^">]+)"?>', str(attr))
    return m.group(1) if m else None

# The file each context's modules were parsed from: the one place remark locations get it from.
# Keyed by the Context object weakly: an entry goes with its context, so a long-running process
# keeps one per live context (`Context` wrappers are unique per MLIR context).
_FILES: "weakref.WeakKeyDictionary[ir.Context, str]" = weakref.WeakKeyDictionary()


def name_source(ctx: ir.Context, filename: str) -> None:
    """Record that `ctx`'s modules come from `filename` (replacing an earlier name)."""
    _FILES[ctx] = filename


@contextmanager
def source_named(ctx: ir.Context, filename: str):
    """Within the block, `ctx`'s ops report `filename` as their file; the earlier name after."""
    had = ctx in _FILES
    old = _FILES.get(ctx)
    _FILES[ctx] = filename
    try:
        yield
    finally:
        if had:
            _FILES[ctx] = old
        else:
            _FILES.pop(ctx, None)


def source_file(op) -> str:
    """The file name the op's module was parsed from (`<input>` if unknown)."""
    return _FILES.get(op.context, "<input>")


_OPERATION = ir.Operation
_ADVANCE = ir.WalkResult.ADVANCE
_PRE_ORDER = ir.WalkOrder.PRE_ORDER


def location_of(op, filename: str | None = None) -> str:
    """`file:line:col` of an op (or the file name if the op has no file location); the file is
    the one its module was parsed from unless `filename` is given."""
    return _where(str(op.location), filename if filename is not None else source_file(op))


def operation(op) -> ir.Operation:
    """The generic Operation behind an OpView or Operation (an Operation is returned as is:
    the common case, asked hundreds of thousands of times per compile, without an attribute
    look-up)."""
    if type(op) is _OPERATION:
        return op
    return getattr(op, "operation", op)


def block_ops(block: ir.Block) -> list[ir.Operation]:
    return [operation(o) for o in block.operations]


def first_ops(block: ir.Block, n: int) -> list[ir.Operation]:
    """The first `n` ops of `block` (all of them when it has fewer), without listing the rest."""
    out = []
    for o in block.operations:
        if len(out) == n:
            break
        out.append(operation(o))
    return out


def inline_block(block: ir.Block, actuals, before: ir.Operation) -> list[ir.Value]:
    """Move `block`'s ops but its terminator before `before`, its arguments replaced by
    `actuals` (in order); returns the terminator's operands (the values it gave back)."""
    for arg, actual in zip(block.arguments, actuals):
        arg.replace_all_uses_with(actual)
    ops = block_ops(block)
    for o in ops[:-1]:
        o.move_before(before)
    return list(ops[-1].operands)


def walk_list(op: ir.Operation) -> list[ir.Operation]:
    """Every op nested in `op` (not `op` itself), in `walk`'s pre-order, collected at once by
    MLIR's own walk: for a caller that does not change the IR while it reads the list (a
    count, a set of keys). Several times faster than `walk` on large functions."""
    out: list = []
    operation(op).walk(lambda o: out.append(o) or _ADVANCE, _PRE_ORDER)
    return out[1:]


def walk(op: ir.Operation) -> Iterator[ir.Operation]:
    """Pre-order walk of every op nested in `op` (not `op` itself).

    Iterative (a stack of per-op iterators): a recursive generator would pass every op up
    through one frame per nesting level, O(depth) per op in deep nests."""
    stack = [_children(op)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            continue
        yield child
        if len(child.regions):
            stack.append(_children(child))


def erase_innermost_first(op: ir.Operation) -> None:
    """Erase `op`, erasing the ops with regions nested in it first, innermost (and last) first.

    MLIR destroys a nest top-down, dropping the references of every op below at each level:
    quadratic in the depth (0.11 s for a 2,000-deep nest, 9 ms innermost first). An op whose
    results still have uses is left to its parent's erase, which drops every reference below
    it first: erasing it alone would leave its users pointing at a destroyed value. For valid
    IR only (in invalid IR a value may be used outside the region that defines it). Inside an
    op isolated from above (a function) the erase check looks at the root only: nothing of it
    can be used outside it, and the nested erases are part of its own."""
    nested = [o for o in walk_list(op) if len(o.regions)]
    skip = getattr(_STEP, "unchecked", False)
    _STEP.unchecked = skip or op.name in _ISOLATED_FROM_ABOVE
    try:
        for o in reversed(nested):
            if all(next(iter(r.uses), None) is None for r in o.results):
                o.erase()
    finally:
        _STEP.unchecked = skip
    op.erase()


# ---------------------------------------------------------------------------------------
# Debug mode: an erase that would leave its ops reachable fails at once (docs/reliability.md,
# "Use of erased ops"). MLIR frees an erased op's values even when other ops still use them; a
# later walk, verification or erase then reads freed memory (a SIGSEGV, or garbage). The check
# runs before every erase, so the error names the step and the op instead.

ERASE_CHECK_ENV = "LOOPOPT_CHECK_ERASE"
# Ops whose regions no value escapes (IsolatedFromAbove): erasing one checks only its results.
_ISOLATED_FROM_ABOVE = frozenset({"func.func", "builtin.module"})
_STEP = threading.local()


@contextmanager
def step_named(name: str):
    """Within the block, erase checks name `name` as the step that erases (the driver's step)."""
    old = getattr(_STEP, "name", None)
    _STEP.name = name
    try:
        yield
    finally:
        _STEP.name = old


def outside_use(op: ir.Operation) -> tuple[str, ir.Operation] | None:
    """(what, user) for the first value `op` defines (its results; for an op whose regions values
    may leave, the results and block arguments of everything nested in it) that an op outside
    `op` uses; None when erasing `op` leaves nothing of it reachable from the IR."""
    op = operation(op)
    isolated = op.name in _ISOLATED_FROM_ABOVE
    inner = [op] if isolated or not len(op.regions) else [op, *walk_list(op)]
    values = []  # (value, what it is, the op that defines it)
    for o in inner:
        values += [(r, f"result #{k}", o) for k, r in enumerate(o.results)]
        if not isolated:
            for region in o.regions:
                for block in region.blocks:
                    values += [(a, f"block argument #{k}", o) for k, a in enumerate(block.arguments)]
    keys = None
    for value, what, owner in values:
        for use in value.uses:
            user = operation(use.owner)
            if keys is None:
                keys = {op_key(o) for o in inner}
            if op_key(user) not in keys:
                where = "" if owner is op else f" at {location_of(owner)}"
                return f"{what} of {owner.name}{where}", user
    return None


def _caller() -> str:
    """`file:line (function)` of the step's code that asked for the erase: the first frame
    outside this module and the rewriter."""
    frame = sys._getframe(2)
    while frame.f_back is not None and os.path.basename(frame.f_code.co_filename) in ("mlir.py", "rewriter.py"):
        frame = frame.f_back
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno} ({frame.f_code.co_name})"


def install_erase_check() -> None:
    """Make every `erase` of an op (Operation and OpView alike) raise ErasedOpInUse, before
    erasing, when `outside_use` finds a value of it still used outside it. Idempotent."""
    base = ir.Operation.__mro__[1]  # the bindings' _OperationBase: erase lives there
    original = base.erase
    if getattr(original, "_loopopt_checked", False):
        return

    def erase(self) -> None:
        found = None if getattr(_STEP, "unchecked", False) else outside_use(self)
        if found is not None:
            what, user = found
            op = operation(self)
            step = getattr(_STEP, "name", None) or "no step"
            raise ErasedOpInUse(
                f"[{step}] {_caller()} erases {op.name} at {location_of(op)}, but its {what} is still used by "
                f"{user.name} at {location_of(user)}: the erased op would stay reachable (freed memory)")
        original(self)

    erase._loopopt_checked = True
    base.erase = erase


def erase_check_on() -> bool:
    return getattr(ir.Operation.__mro__[1].erase, "_loopopt_checked", False)


if os.environ.get(ERASE_CHECK_ENV, "") not in ("", "0"):
    install_erase_check()


def _children(op: ir.Operation) -> Iterator[ir.Operation]:
    """The ops directly nested in `op`'s regions, in order."""
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                yield operation(child)


def functions(module: ir.Module) -> list[ir.Operation]:
    """The module's func.func ops. The caller must keep `module` alive while using them: ops of
    a garbage-collected module are freed (reading them gives garbage or crashes)."""
    return [o for o in block_ops(module.body) if o.name == "func.func"]


def all_functions(module: ir.Module) -> list[ir.Operation]:
    """The func.func ops of the module and of every `builtin.module` nested in it, in program
    order. Each function is isolated from above, so each is optimized on its own wherever it
    sits; the caller must keep `module` alive while using them (see `functions`)."""
    out = []
    stack = [iter(block_ops(module.body))]
    while stack:
        op = next(stack[-1], None)
        if op is None:
            stack.pop()
        elif op.name == "func.func":
            out.append(op)
        elif op.name == "builtin.module" and len(op.regions) and len(op.regions[0].blocks):
            stack.append(iter(block_ops(op.regions[0].blocks[0])))
    return out


def snapshot_module(module: ir.Module) -> ir.Operation:
    """A detached copy of the module's op, for `restore_module` (erase it when done)."""
    return module.operation.clone()


def restore_module(module: ir.Module, snapshot: ir.Operation) -> None:
    """Make `module`'s body what it was when `snapshot` was taken, moving the snapshot's ops in
    (the module object stays the same; ops taken from it before are gone), then drop the snapshot."""
    body = module.body
    for op in block_ops(body):
        erase_innermost_first(op)
    for op in block_ops(snapshot.regions[0].blocks[0]):
        body.append(op)
    snapshot.erase()


# ---------------------------------------------------------------------------------------
# A large stack for deep nests: MLIR's parser, verifier, printer, clone and erase recurse on the
# C stack once per nesting level (about 3 KB each: 8 MB runs out near 2,800 levels), and some of
# loopopt's walks once per level on Python's. A worker thread gets the stack they need.

BIG_STACK_BYTES = 256 * 1024 * 1024  # reserved, touched only as deep as the input nests
_STACK_LOCK = threading.Lock()
# The waiting thread looks at least this often for an interrupt Python only flagged (as
# _thread.interrupt_main does: no signal arrives to wake it).
POLL_SECONDS = 0.05
# An interrupt the worker swallowed (raised inside a C library's callback, which reports it as
# its own error) is raised into it again after this long.
RESEND_SECONDS = 0.25
RECURSION_LIMIT = 1000 + 4 * MAX_NESTING_DEPTH  # a few Python frames per nesting level, on BIG_STACK_BYTES


class _Stage:
    """One big-stack worker thread and what it shares with the thread waiting for it. A
    stoppable stage is stopped by raising KeyboardInterrupt into it (at its next Python
    instruction); the others are never stopped: an interrupt waits for them."""

    def __init__(self, target: Callable, stoppable: bool) -> None:
        self.target = target
        self.stoppable = stoppable
        self.box: dict = {}
        self.finished = False
        self.wake = queue.SimpleQueue()  # tells the waiting thread the stage finished
        self.thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._sent_at: float | None = None  # when KeyboardInterrupt was last raised into it

    def body(self) -> None:
        try:
            # Ctrl-C must reach the waiting thread: a signal the kernel hands to this thread
            # would not wake it, and the interrupt would wait for the work to finish.
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            try:
                self.box["value"] = self.target()
            except BaseException as e:  # handed to the waiting thread
                self.box["error"] = e
        except BaseException:  # an interrupt raised into it as it finished
            pass
        finally:
            self.finished = True
            self.wake.put(None)

    def stop(self) -> None:
        """(waiting thread) Raise KeyboardInterrupt into a stoppable stage still running; again
        if RESEND_SECONDS went by since the last time."""
        with self._lock:
            if not self.stoppable or self.finished or self.thread is None or not self.thread.is_alive():
                return
            if _importing(self.thread):
                return  # a module half imported stays broken (a C extension's second import aborts)
            if self._sent_at is None or time.monotonic() - self._sent_at >= RESEND_SECONDS:
                _raise_in_thread(self.thread, KeyboardInterrupt)
                self._sent_at = time.monotonic()


def call_with_big_stack(fn: Callable, *, interrupt: str = "forward", setup: Callable | None = None,
                        settle: Callable | None = None):
    """Run `fn()` on a thread with BIG_STACK_BYTES of stack and return what it returns (or raise
    what it raised). While it runs, Python's recursion limit is at least RECURSION_LIMIT (one
    limit for the whole process; put back after).

    `setup()` runs first and `settle(final, value)` last, each on a big-stack thread of its own
    that no interrupt stops: what must run to its end (taking a snapshot, putting it back) goes
    there. settle runs whenever setup did; `final` says fn returned `value` and no interrupt
    came before settle started (the signal handlers due are run first), else value is None.

    An interrupt (Ctrl-C, or `_thread.interrupt_main`), `forward` mode: fn's thread is stopped
    at its next Python instruction (raised again every RESEND_SECONDS should a C library's
    callback swallow it), settle runs, then KeyboardInterrupt is raised; further interrupts
    meanwhile are noted, not raised. The waiting thread looks for interrupts every POLL_SECONDS,
    so one arrives within that of the signal plus fn's longest single call into C (which holds
    the interpreter). An interrupt while settle runs with final true propagates with fn's work
    complete. `raise` mode raises KeyboardInterrupt in the calling thread at once and leaves the
    worker (a daemon) to die with the process: the CLI, which writes nothing from the worker. In
    `forward` mode, called on the main thread with Python's default SIGINT handler, a handler
    that only notes the interrupt stands in for it meanwhile, so no KeyboardInterrupt can
    surface while a stage runs or between two stages."""
    noted: list = []
    stages: list[_Stage] = []

    def note(e: BaseException) -> None:
        if not noted:
            noted.append(e)
        for stage in stages:
            stage.stop()

    def on_sigint(signum, frame) -> None:
        note(KeyboardInterrupt())

    own_handler = (interrupt == "forward" and threading.current_thread() is threading.main_thread()
                   and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    if own_handler:
        signal.signal(signal.SIGINT, on_sigint)
    limit = sys.getrecursionlimit()
    raised = RECURSION_LIMIT > limit
    if raised:
        sys.setrecursionlimit(RECURSION_LIMIT)
    work = _Stage(fn, True)
    try:
        ready = setup is None or _run_stage(_Stage(setup, False), stages, noted, note, interrupt)
        if ready and not noted:
            _run_stage(work, stages, noted, note, interrupt)
        if setup is not None and ready:
            _wait_for(lambda: True, None, noted, note, interrupt)  # the handlers due have run
            final = "value" in work.box and not noted
            value = work.box.get("value") if final else None
            if noted and "error" in work.box:
                _release_frames(work.box["error"])  # before settle erases the values they use
            _run_stage(_Stage(lambda: settle(final, value), False), stages, noted, note, interrupt)
    finally:
        if own_handler:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        if raised and all(s.finished for s in stages) and sys.getrecursionlimit() == RECURSION_LIMIT:
            sys.setrecursionlimit(limit)
    if noted:
        raise noted[0]
    for stage in stages:  # setup's error, fn's, settle's
        if "error" in stage.box:
            raise stage.box["error"]
    return work.box.get("value")


def _run_stage(stage: _Stage, stages: list, noted: list, note: Callable, interrupt: str) -> bool:
    """Start `stage` and wait for it, forwarding interrupts; True if it ended without an error."""
    stages.append(stage)
    with _STACK_LOCK:  # threading.stack_size is process-wide: set it only around this start
        old = threading.stack_size(BIG_STACK_BYTES)
        try:
            stage.thread = threading.Thread(target=stage.body, name="loopopt-worker", daemon=True)
            stage.thread.start()
        finally:
            threading.stack_size(old)
    if noted:
        stage.stop()
    _wait_for(lambda: stage.finished or not stage.thread.is_alive(), stage, noted, note, interrupt)
    return "error" not in stage.box


def _wait_for(done: Callable[[], bool], stage: _Stage | None, noted: list, note: Callable, interrupt: str) -> None:
    """Wait until `done()`, running the signal handlers due at least every POLL_SECONDS (an
    interrupt that only set Python's flag wakes no one) and stopping `stage` again while an
    interrupt is noted."""
    while True:
        try:
            _run_signal_handlers()  # ours notes an interrupt; Python's default raises it
            if noted and stage is not None:
                stage.stop()
            if done():
                return
            try:
                stage.wake.get(timeout=POLL_SECONDS)
            except queue.Empty:
                pass
        except KeyboardInterrupt as e:  # raised by another handler than ours, or `raise` mode
            if interrupt == "raise":
                raise
            note(e)


def _release_frames(error: BaseException) -> None:
    """Free the frames of a stopped worker (held by its exception's tracebacks): an op it had
    detached (moving it) is destroyed with them, which drops its uses of values the module still
    holds; after a restore erased those values it would write to freed memory."""
    import gc

    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        error.__traceback__ = None
        error = error.__context__ or error.__cause__
    gc.collect()


def _run_signal_handlers() -> None:
    """Run the Python signal handlers due now (the calling thread must be the main one to run
    any); a handler's exception propagates."""
    import ctypes

    ctypes.pythonapi.PyErr_CheckSignals()


def _importing(thread: threading.Thread) -> bool:
    """Whether `thread` is importing a module (frozen importlib frames on its stack). It cannot
    start one before the interrupt reaches it: it holds no GIL meanwhile, and an import begins
    with a Python call, where the interrupt is raised first."""
    frame = sys._current_frames().get(thread.ident)
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


def _raise_in_thread(thread: threading.Thread, exc_type) -> None:
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(exc_type))


def func_name(fn: ir.Operation) -> str:
    return ir.StringAttr(fn.attributes["sym_name"]).value


def symbol_names(table_op: ir.Operation) -> set[str]:
    """The names of the symbols a symbol table op (a module) defines: its top-level ops'
    `sym_name`s, whatever kind of op each is (global, function, nested module)."""
    return {ir.StringAttr(op.attributes["sym_name"]).value
            for op in block_ops(table_op.regions[0].blocks[0]) if "sym_name" in op.attributes}


def fresh_symbol_name(table_op: ir.Operation, base: str, numbered: bool = False) -> str:
    """A name no symbol of `table_op` (the module the new symbol goes in) has: `base` when it is
    free, else `base_1`, `base_2`, ...; with `numbered`, the first free of `base0`, `base1`, ....

    The rule for every step that creates a symbol: it names the symbol with this, and never
    takes an existing symbol for its own by name (a name says nothing about what it holds; a
    step that wants one symbol per content compares the contents)."""
    taken = symbol_names(table_op)
    if not numbered and base not in taken:
        return base
    k = 0 if numbered else 1
    while (name := f"{base}{k}" if numbered else f"{base}_{k}") in taken:
        k += 1
    return name


def func_body(fn: ir.Operation) -> ir.Block | None:
    region = fn.regions[0]
    blocks = list(region.blocks)
    return blocks[0] if blocks else None


def affine_map_attr(op: ir.Operation, name: str) -> ir.AffineMap:
    return ir.AffineMapAttr(op.attributes[name]).value


def int_attr(op: ir.Operation, name: str) -> int:
    return ir.IntegerAttr(op.attributes[name]).value


def aligned_alloc(shape, element_type, ip: ir.InsertionPoint, alignment: int = 64) -> ir.Operation:
    """A static `memref.alloc` of `shape` x `element_type` aligned to `alignment` bytes, at `ip`
    (in the current context and location): the buffer every packing copy writes."""
    ptype = ir.MemRefType.get(list(shape), element_type)
    return ir.Operation.create("memref.alloc", results=[ptype], operands=[],
                               attributes={"alignment": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), alignment),
                                           "operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, 0])},
                               ip=ip)


def affine_for(lo: tuple, hi: tuple, step: int, inits: list, ip: ir.InsertionPoint, loc) -> ir.Operation:
    """A new affine.for at `ip` from `lo` to `hi` (each a bound map and its operands) by `step`;
    with `inits`, carrying them (the caller yields), else with its empty yield."""
    (lm, lops), (hm, hops) = lo, hi
    with loc:
        loop = affine_d.AffineForOp(lm, hm, step, inits or None, lower_bound_operands=lops,
                                    upper_bound_operands=hops, ip=ip).operation
        if not inits:
            affine_d.AffineYieldOp([], ip=ir.InsertionPoint(loop.regions[0].blocks[0]))
    return loop


def for_with_bounds_of(loop: ir.Operation, step: int, inits, ip: ir.InsertionPoint) -> ir.Operation:
    """A new affine.for at `ip` with `loop`'s bound maps and operands, the given step and
    iter_args inits, and an empty body block (no terminator: the caller fills it)."""
    lbm, ubm = affine_map_attr(loop, "lowerBoundMap"), affine_map_attr(loop, "upperBoundMap")
    operands = list(loop.operands)
    return affine_d.AffineForOp(lbm, ubm, step, list(inits),
                                lower_bound_operands=operands[:lbm.n_inputs],
                                upper_bound_operands=operands[lbm.n_inputs:lbm.n_inputs + ubm.n_inputs],
                                ip=ip).operation


def value_owner(v: ir.Value):
    """(defining op, None) for an op result, (None, owning block) for a block argument."""
    v = v.maybe_downcast() if hasattr(v, "maybe_downcast") else v
    if isinstance(v, ir.BlockArgument):
        return None, v.owner
    return operation(v.owner), None


def is_block_argument(v: ir.Value) -> bool:
    v = v.maybe_downcast() if hasattr(v, "maybe_downcast") else v
    return isinstance(v, ir.BlockArgument)


def memref_type(v: ir.Value) -> ir.MemRefType | None:
    t = v.type
    return t if isinstance(t, ir.MemRefType) else None


def identity_layout(t) -> bool:
    """A memref type whose layout is the identity map: row-major, contiguous, no offset (a
    strided layout, even one with the identity's strides, is not; nor is any other type)."""
    if not isinstance(t, ir.MemRefType):
        return False
    layout = t.layout
    return isinstance(layout, ir.AffineMapAttr) and \
        ir.AffineMapAttr(layout).value == ir.AffineMap.get_identity(len(t.shape), context=t.context)


def element_size_bytes(t) -> int:
    """Bytes per element of a memref element type (index counts as 8)."""
    if isinstance(t, ir.IndexType):
        return 8
    if isinstance(t, ir.IntegerType):
        return max(1, (t.width + 7) // 8)
    if isinstance(t, ir.FloatType):
        return max(1, (t.width + 7) // 8)
    if isinstance(t, ir.ComplexType):
        return 2 * element_size_bytes(t.element_type)
    if isinstance(t, ir.VectorType):
        vt = t
        n = 1
        for s in vt.shape:
            n *= s
        return n * element_size_bytes(vt.element_type)
    return 8


DYNAMIC = ir.ShapedType.get_dynamic_size()


def _capsule_pointer():
    import ctypes

    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    get_name, get_pointer = api.PyCapsule_GetName, api.PyCapsule_GetPointer
    known = [b""]  # the name of the capsules seen last: asking for it halves the calls into C

    def pointer(cap):
        try:
            return get_pointer(cap, known[0])
        except ValueError:  # another capsule name
            known[0] = get_name(cap)
            return get_pointer(cap, known[0])

    return pointer


_pointer_of = _capsule_pointer()


def op_key(op) -> int:
    """A stable dictionary key for an operation: its address, valid while the op lives.

    `hash(Operation)` changes when the op's attributes change, so a dict keyed by the op itself
    loses entries after e.g. a loop bound is rewritten. Callers must drop an op's key before
    erasing it (a later op may reuse the address)."""
    return _pointer_of(operation(op)._CAPIPtr)
