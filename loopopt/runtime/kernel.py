"""The callable a built kernel becomes: numpy arrays in, numpy arrays out, every argument checked first.

    k = loopopt.compile(text)          # a Kernel
    y = k(x)                           # a function lowered from tensors: out-parameters allocated, returned
    k(x, out=y)                        # ... or written into arrays the caller gives
    k(a, b, out_buffer)                # an affine function: every argument given, as in C

Before the call, in Python, each argument is checked against the entry function's type: the
count, a numpy array for a memref (a Python number for a scalar), its dtype, rank, static dims,
C-contiguity, alignment to its element, writability where the kernel writes it; dynamic dims
against the module's own run-time checks of the arguments' sizes (`cf.assert`, spec.Check); and
no written array may overlap another argument (loopopt assumes a public function's arguments do
not alias). A violation is one line, TypeError (count, type, dtype) or ValueError (rank, shape,
layout, overlap; a failed check is CheckFailed, a ValueError), and the process goes on. The
module's other checks (inside loops, on data) run in the kernel: a module with checks is called
through its wrapper (runtime/checks.py), and a check that fails there raises CheckFailed after
the call. No argument is copied: the kernel reads and writes the arrays' own memory. The call
releases the GIL.
"""
from __future__ import annotations

import ctypes
import functools
import numbers
import weakref

import numpy as np

from . import callext, checks, memref, spec as specmod
from .spec import KernelSpec

_NDARRAY = np.ndarray
# numpy's flag bits (ndarray.flags.num): what the memo compares, with the shape and dtype
_C_CONTIGUOUS, _WRITEABLE = 0x0001, 0x0400

_INT_RANGE = {"i1": (0, 1), "i8": (-2**7, 2**7 - 1), "i16": (-2**15, 2**15 - 1), "i32": (-2**31, 2**31 - 1),
              "i64": (-2**63, 2**63 - 1), "index": (-2**63, 2**63 - 1)}


class _Slot:
    """One argument's precomputed facts, so a call does little more than compare."""

    __slots__ = ("index", "param", "dtype", "rank", "shape", "static", "strides", "byte_strides", "dynamic", "writes",
                 "itemsize", "offset")

    def __init__(self, index: int, p: specmod.Param):
        self.index = index
        self.param = p
        self.dtype = np.dtype(p.dtype)
        self.rank = p.rank
        self.shape = p.shape
        self.static = all(d is not None for d in p.shape)
        self.strides = memref.row_major_strides(p.shape) if self.static else None
        self.dynamic = tuple(k for k, d in enumerate(p.shape) if d is None)
        self.writes = p.written or p.role == "output"
        self.itemsize = self.dtype.itemsize
        self.byte_strides = tuple(x * self.itemsize for x in self.strides) if self.static else None
        self.offset = None  # the descriptor's byte offset in the call's buffer (memrefs)


# The repeated call in C (runtime/callext.py): Kernel's base is the extension's Base, whose call runs
# the memo's call from `_entry` and sends every other call to `_call`; without the extension, object
# (and `__call__` is `_call`).
_BASE = callext.base()


class Kernel(_BASE):
    """A built entry function, loaded into this process. `spec` describes its arguments;
    `library` is the shared object's path; `info` says how it was built (or found in the cache).
    call="ctypes": this kernel is called through ctypes even where the extension is loaded."""

    def __init__(self, spec: KernelSpec, library: str, info: dict | None = None, call: str = "auto"):
        if call not in ("auto", "ctypes"):
            raise ValueError(f"Kernel: call must be 'auto' or 'ctypes', got {call!r}")
        self.spec = spec
        self.library = library
        self.info = dict(info or {})
        self.name = spec.name
        self._lib = ctypes.CDLL(library)  # RTLD_LOCAL: kernels of one name in two libraries coexist
        argtypes = [ctypes.c_void_p if p.kind == "memref" else getattr(ctypes, specmod.SCALAR_CTYPES[p.elem])
                    for p in spec.params]
        result_type = getattr(ctypes, specmod.SCALAR_CTYPES[spec.result]) if spec.result else None
        # _checked: _fn returns a failed check's number (0: none failed) where the kernel returns nothing
        self._checked = False
        if spec.messages:  # the module has checks: call the wrapper, which returns a failed check's number
            self._fn = getattr(self._lib, checks.wrapper_name(spec.name))
            self._fn.argtypes = argtypes + ([ctypes.POINTER(result_type)] if result_type else [])
            self._fn.restype = ctypes.c_int32
            if result_type is None:
                self._checked = True  # tested in the call itself: a Python frame less per call
            else:
                self._fn = self._wrapped(self._fn, result_type)
        else:
            self._fn = getattr(self._lib, f"_mlir_ciface_{spec.name}")
            self._fn.argtypes = argtypes
            self._fn.restype = result_type
        # The repeated call's and the bound call's C function (every argument a memref, no scalar
        # result): the same symbol as a function object of its own without argtypes, called on
        # c_void_p objects made once, so ctypes converts no argument per call (`lib[name]` is a new
        # function object; `lib.name` would be _fn itself).
        self._fn_prebuilt = None
        if result_type is None and all(p.kind == "memref" for p in spec.params):
            fn = self._lib[checks.wrapper_name(spec.name) if spec.messages else f"_mlir_ciface_{spec.name}"]
            fn.argtypes, fn.restype = None, (ctypes.c_int32 if spec.messages else None)
            self._fn_prebuilt = fn
        self._slots = tuple(_Slot(i, p) for i, p in enumerate(spec.params))
        self._memrefs = tuple(s for s in self._slots if s.param.kind == "memref")
        self._format = memref.descriptor_format([s.rank for s in self._memrefs])
        self._buffer_type = ctypes.c_char * max(self._format.size, 1)
        at = 0
        for s in self._memrefs:
            s.offset = at
            at += memref.WORD * memref.descriptor_words(s.rank)
        self._n_in, self._n_all = spec.n_inputs, len(spec.params)
        self._outputs = self._slots[spec.n_inputs:]
        self._inputs_write = any(s.writes for s in self._slots[:spec.n_inputs] if s.param.kind == "memref")
        self._only_memrefs = all(s.param.kind == "memref" for s in self._slots)
        # the last checked call whose arrays were all the caller's (_memo_of): a call with the same
        # arrays, unchanged, runs on its descriptors without checking or packing again
        self._memo = None
        self._one_output = spec.n_outputs == 1
        # The repeated call in C (runtime/callext.py), where the kernel's C function takes only
        # descriptor pointers and the extension is loaded; else every call is _call, through ctypes.
        self._entry = None
        self.call_path = "ctypes (a scalar argument or result)" if self._fn_prebuilt is None else ""
        if self._fn_prebuilt is not None:
            ext, why = (None, "call='ctypes'") if call == "ctypes" else callext.extension()
            if ext is not None and len(spec.params) > callext.MAX_ARGS:
                ext, why = None, f"more than {callext.MAX_ARGS} arguments"
            if ext is None:
                self.call_path = f"ctypes ({why})"
            else:
                address = ctypes.cast(self._fn_prebuilt, ctypes.c_void_p).value
                self._entry = ext.Entry(address, len(spec.params), spec.n_inputs, spec.n_outputs, int(self._checked),
                                        np.ndarray, functools.partial(_raise_failed, self.name, spec.messages))
                self._masks = tuple(_C_CONTIGUOUS | (_WRITEABLE if s.writes else 0) for s in self._slots)
                self._fn = self._entry.pointers  # the first call's C function too: no ctypes conversion
                self.call_path = "extension"

    def _wrapped(self, wrapper, result_type):
        """A function taking the kernel's C arguments that calls `wrapper` (loopopt_call_NAME) and
        returns the kernel's scalar result, or raises CheckFailed for the check that failed."""
        def call(*args):
            result = result_type()
            n = wrapper(*args, ctypes.byref(result))
            if n:
                self._failed(n)
            return result.value
        return call

    def _failed(self, n: int):
        _raise_failed(self.name, self.spec.messages, n)

    def __repr__(self) -> str:
        return f"<loopopt.Kernel {self.spec.signature_text()} from {self.library}>"

    # ------------------------------------------------------------------------- the call

    def _call(self, *args, out=None):
        """The call in Python (Kernel.__call__ without the extension; with it, every call its C
        does not take). A repeated call with the extension never gets here: its memo is the Entry's."""
        # A repeated call (the memo, _memo_of) touches as little as it can: a call right after the
        # caches were flushed pays a memory access for every object it reads (cross_entropy: 37 µs
        # over the kernel's 93 when this path read each array's strides, its flags object and five
        # attributes of the Kernel besides the memo).
        memo = self._memo  # a local reference: the descriptors stay alive until the call returns
        if memo is not None:
            checks, fn, call, checked, one_output, n_in, _buf = memo
            if out is None:
                full = args
            elif one_output and type(out) is _NDARRAY:
                full = args + (out,)  # another count of arguments is refused below, as on a first call
            elif type(out) is tuple and len(args) == n_in:
                full = args + out
            else:
                full = self._with_out(args, out)
            if len(full) == len(checks):
                # the same arrays, each with the shape, dtype and C-contiguity it had when checked
                # (all settable in place; its data pointer is not) and still writable where written:
                # then every check passes again (sizes, layout, alignment and overlap follow from these)
                for a, (r, shape, dtype, mask, want) in zip(full, checks):
                    if r() is not a or a.shape != shape or a.dtype is not dtype or a.flags.num & mask != want:
                        break
                else:
                    got = fn(*call)
                    if checked:
                        if got:
                            self._failed(got)
                        got = None
                    return full[-1] if one_output else self._returned(full, got)
        call, buf, args = self._prepare(args, out)
        got = self._fn(*call)
        if self._checked:
            if got:
                self._failed(got)
            got = None
        return self._returned(args, got)

    if _BASE is object:  # no extension: the call is _call (else Base's, which calls _call for what it does not take)
        __call__ = _call

    def bind(self, *args, out=None) -> "BoundCall":
        """Check and pack the arguments once; the returned BoundCall runs the kernel on them again
        and again (for a loop over the same buffers: no per-call Python checks). The arrays are
        held (not copied) until the BoundCall is dropped; out-parameters left out are allocated here."""
        call, buf, args = self._prepare(args, out)
        return BoundCall(self, call, buf, args)

    def _returned(self, args: tuple, result):
        if self.spec.n_outputs:
            got = args[self._n_in:]
            return got[0] if len(got) == 1 else tuple(got)
        return result

    def _prepare(self, args: tuple, out) -> tuple[list, object, tuple]:
        """(the C call's arguments, the buffer holding the descriptors, every argument with the
        allocated outputs): every check of the module doc, before anything is called."""
        spec = self.spec
        if out is not None:
            args = self._with_out(args, out)
            allocate = False
        elif len(args) == self._n_all:
            allocate = False
        elif spec.n_outputs and len(args) == self._n_in:
            allocate = True
        else:
            raise TypeError(self._count_message(len(args)))
        dims: dict = {}
        scalars: dict = {}
        values: list = []
        spans: list = []  # (start, end, slot) of each array, for the overlap check
        calls: list = []  # per argument: a descriptor's offset in the buffer (memref) or the value (scalar)
        ndarray, from_buffer, addressof = np.ndarray, ctypes.c_char.from_buffer, ctypes.addressof
        for s, a in zip(self._slots, args):
            if s.offset is None:
                x = self._scalar(s, a)
                scalars[s.index] = x
                calls.append(x)
                continue
            # the common case in one test (an exact C-contiguous match); anything else checked in full
            if type(a) is not ndarray or a.dtype is not s.dtype or a.shape != s.shape or a.strides != s.byte_strides \
                    or (s.writes and not a.flags.writeable):
                self._check_array(s, a, dims)  # raises, or records a dynamic array's sizes
            try:
                p = addressof(from_buffer(a))
            except (TypeError, ValueError, BufferError):  # read-only or empty
                p = a.__array_interface__["data"][0]
            if p % s.itemsize:
                raise ValueError(f"{self.name}(): {s.param.name} is not aligned to its {s.itemsize}-byte elements")
            shape = a.shape
            values += (p, p, 0, *shape, *(s.strides if s.static else memref.row_major_strides(shape)))
            spans.append((p, p + a.nbytes, s))
            calls.append(s.offset)
        if allocate:
            outs = self._allocate(dims, scalars)
            for s, a in zip(self._outputs, outs):
                p = memref.data_pointer(a)
                values += (p, p, 0, *a.shape, *(s.strides if s.static else memref.row_major_strides(a.shape)))
                calls.append(s.offset)
            args = args + outs
        if len(spans) > 1 and (self._inputs_write or not allocate):  # fresh outputs overlap nothing
            self._check_overlap(spans)
        if spec.checks:
            self._run_checks(dims, scalars)
        buf = self._buffer_type()
        self._format.pack_into(buf, 0, *values)
        base = addressof(buf)
        if self._only_memrefs:
            call = [base + c for c in calls]
            if not allocate:  # every array the caller's: the next call with the same arrays reuses this
                if self._entry is not None:
                    self._entry.remember(args, self._masks, tuple(call), buf)
                else:
                    self._memo = _memo_of(self, args, call, buf)
            return call, buf, args
        return [base + c if s.offset is not None else c for s, c in zip(self._slots, calls)], buf, args

    def _with_out(self, args: tuple, out) -> tuple:
        spec = self.spec
        if not spec.n_outputs:
            raise TypeError(f"{self.name}(): takes no out= (it has no out-parameters; pass every argument)")
        outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        if len(args) != self._n_in or len(outs) != spec.n_outputs:
            raise TypeError(f"{self.name}(): takes {self._n_in} input(s) and out= with {spec.n_outputs} array(s), "
                            f"got {len(args)} and {len(outs)}")
        return args + outs

    def _count_message(self, got: int) -> str:
        spec = self.spec
        if spec.n_outputs:
            return (f"{self.name}() takes {spec.n_inputs} input(s) (and optionally its {spec.n_outputs} output "
                    f"array(s)), got {got} argument(s)")
        return f"{self.name}() takes {len(spec.params)} argument(s), got {got}"

    def _check_array(self, s: _Slot, a, dims: dict) -> None:
        p = s.param
        if not isinstance(a, np.ndarray):
            hint = " (a torch tensor: pass t.numpy())" if type(a).__name__ == "Tensor" else ""
            raise TypeError(f"{self.name}(): {p.name} must be a numpy array ({p.type}), got {type(a).__name__}{hint}")
        if a.dtype != s.dtype:
            raise TypeError(f"{self.name}(): {p.name} must have dtype {s.dtype} ({p.type}), got {a.dtype}")
        if a.ndim != s.rank:
            raise ValueError(f"{self.name}(): {p.name} must have rank {s.rank} ({p.type}), got shape {a.shape}")
        shape = a.shape
        if s.static:
            if shape != s.shape:
                raise ValueError(f"{self.name}(): {p.name} must have shape {s.shape} ({p.type}), got {shape}")
        else:
            for k, want in enumerate(s.shape):
                if want is not None and shape[k] != want:
                    raise ValueError(f"{self.name}(): {p.name} must have dim {k} = {want} ({p.type}), got shape {shape}")
            for k in s.dynamic:
                dims[(s.index, k)] = shape[k]
        if not a.flags.c_contiguous:
            raise ValueError(f"{self.name}(): {p.name} must be C-contiguous (row-major, no gaps); got strides "
                             f"{a.strides}: pass numpy.ascontiguousarray(x)")
        if s.writes and not a.flags.writeable:
            raise ValueError(f"{self.name}(): {p.name} is read-only, and the kernel writes it")

    def _scalar(self, s: _Slot, x):
        p = s.param
        if p.elem in ("f32", "f64"):
            if isinstance(x, bool) or not isinstance(x, numbers.Real):
                raise TypeError(f"{self.name}(): {p.name} must be a real number ({p.type}), got {type(x).__name__}")
            return float(x)
        if isinstance(x, (bool, np.bool_)) and p.elem != "i1":
            raise TypeError(f"{self.name}(): {p.name} must be an integer ({p.type}), got bool")
        if not isinstance(x, numbers.Integral):
            raise TypeError(f"{self.name}(): {p.name} must be an integer ({p.type}), got {type(x).__name__}")
        lo, hi = _INT_RANGE[p.elem]
        if not lo <= int(x) <= hi:
            raise ValueError(f"{self.name}(): {p.name} = {int(x)} does not fit {p.type}")
        return int(x)

    def _allocate(self, dims: dict, scalars: dict) -> tuple:
        outs = []
        for s, rule in zip(self._outputs, self.spec.output_dims):
            if s.static:
                outs.append(memref.aligned_empty(s.shape, s.dtype))
                continue
            shape = []
            for k, (d, r) in enumerate(zip(s.shape, rule)):
                if d is not None:
                    shape.append(d)
                elif r == "unknown":
                    raise ValueError(f"{self.name}(): dim {k} of output {s.param.name} is not tied to the inputs' "
                                     f"sizes by the module; pass the outputs: {self.name}(..., out=...)")
                else:
                    n = self._eval(r, dims, scalars, f"dim {k} of output {s.param.name}")
                    if n < 0:
                        raise ValueError(f"{self.name}(): dim {k} of output {s.param.name} would be {n}")
                    shape.append(n)
                    dims[(s.index, k)] = n
            outs.append(memref.aligned_empty(shape, s.dtype))
        return tuple(outs)

    def _eval(self, expr, dims: dict, scalars: dict, what: str) -> int:
        try:
            return specmod.evaluate(expr, dims, scalars)
        except ZeroDivisionError:
            raise ValueError(f"{self.name}(): {what} divides by zero for these sizes") from None

    def _run_checks(self, dims: dict, scalars: dict) -> None:
        for c in self.spec.checks:
            if not self._eval(c.expr, dims, scalars, f"the check {c.message!r}"):
                msg = c.message.removeprefix("loopopt: ").removeprefix(f"{self.name}: ")
                raise checks.CheckFailed(f"{self.name}(): {msg} (got {_sizes_text(dims)})", c.number, c.message, False)

    def _check_overlap(self, pointers: list) -> None:
        for i, (a0, a1, sa) in enumerate(pointers):
            for b0, b1, sb in pointers[i + 1:]:
                if (sa.writes or sb.writes) and a0 < b1 and b0 < a1:
                    raise ValueError(f"{self.name}(): {sa.param.name} and {sb.param.name} overlap in memory, and the "
                                     "kernel writes one of them (its arguments must not alias)")


def _memo_of(k: Kernel, args: tuple, call: list, buf) -> tuple:
    """What a later call needs to reuse a checked call's descriptors, in one tuple: per array a
    weak reference (the memo keeps no array alive, and a dead array's id reused by a new one is
    not mistaken for it) and the facts the checks depended on: its shape, its dtype, and its
    flags (numpy's bits) C-contiguous and, where the kernel writes it, writable (the descriptors
    carry the row-major strides of the shape, so any strides of a C-contiguous array give the
    same ones); then the C function, its arguments, whether it returns a failed check's number,
    whether the call returns its one output, how many inputs it takes, and the buffer the
    arguments point into."""
    checks = []
    for a, s in zip(args, k._slots):
        mask = _C_CONTIGUOUS | (_WRITEABLE if s.writes else 0)
        checks.append((weakref.ref(a), a.shape, a.dtype, mask, a.flags.num & mask))
    fn, args = _prebuilt(k, call)
    return tuple(checks), fn, args, k._checked, k._one_output, k._n_in, buf


def _prebuilt(k: Kernel, call: list) -> tuple:
    """(the C function, its arguments) for calls on descriptors packed once: the function without
    argtypes on c_void_p objects where the kernel has one (Kernel._fn_prebuilt), else _fn on `call`."""
    if k._fn_prebuilt is None:
        return k._fn, tuple(call)
    return k._fn_prebuilt, tuple(ctypes.c_void_p(p) for p in call)


def _raise_failed(name: str, messages: tuple, n: int):
    """Raise the CheckFailed of the kernel's run-time check n (1, 2, ...), found inside the kernel."""
    msg = messages[n - 1] if 1 <= n <= len(messages) else f"check {n} (unknown)"
    raise checks.CheckFailed(f"{name}(): run-time check failed: {msg} (the kernel stopped at the check: "
                             "its outputs are partly written)", n, msg, True)


def _sizes_text(dims: dict) -> str:
    return ", ".join(f"arg{i} dim {k} = {n}" for (i, k), n in sorted(dims.items())) or "static sizes"


class BoundCall:
    """A kernel call with its arguments checked and packed once (Kernel.bind): calling it runs the
    kernel on the same arrays and returns what the kernel call returns (the outputs, taken once
    here, or the kernel's scalar result)."""

    __slots__ = ("kernel", "_call", "_buf", "_args", "_fn", "_checked", "_outputs")

    def __init__(self, kernel: Kernel, call: list, buf, args: tuple):
        self.kernel, self._buf, self._args = kernel, buf, args
        self._fn, self._call = _prebuilt(kernel, call)
        self._checked = kernel._checked
        self._outputs = kernel._returned(args, None) if kernel.spec.n_outputs else None

    def __call__(self):
        got = self._fn(*self._call)
        if self._checked:
            if got:
                self.kernel._failed(got)
            got = None
        outputs = self._outputs
        return got if outputs is None else outputs
