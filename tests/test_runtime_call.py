"""The repeated call in C (loopopt/runtime/callext.py): the same results, checks and messages as the
ctypes call, a clean fallback without the extension, and the extension's cache entry keyed and
checked as a kernel's is."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from loopopt.runtime import build, cache as cachemod, callext, checks, compiler
from loopopt.runtime.kernel import Kernel

MISSING = build.missing_tools()
pytestmark = [pytest.mark.toolchain, pytest.mark.skipif(MISSING is not None, reason=MISSING or "")]
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXT, WHY = callext.extension()
needs_ext = pytest.mark.skipif(EXT is None, reason=f"no extension here: {WHY}")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_runtime_alloc import ADD, CHECKED, _want  # noqa: E402

# two outputs (the callable returns a tuple): s = a + b, d = a - b
TWO_OUT = textwrap.dedent('''
    func.func @sum_diff(%a: memref<8xf32>, %b: memref<8xf32>, %s: memref<8xf32>, %d: memref<8xf32>) {
      affine.for %i = 0 to 8 {
        %x = affine.load %a[%i] : memref<8xf32>
        %y = affine.load %b[%i] : memref<8xf32>
        %p = arith.addf %x, %y : f32
        %m = arith.subf %x, %y : f32
        affine.store %p, %s[%i] : memref<8xf32>
        affine.store %m, %d[%i] : memref<8xf32>
      }
      return
    }''')


def _pair(text: str, directory, counts=None) -> tuple[Kernel, Kernel]:
    """(the kernel called through the extension, the same library called through ctypes)."""
    marked, spec, checks_c = compiler.prepare(text, counts or {}, None)
    path = os.path.join(str(directory), f"{spec.name}.so")
    with open(path, "wb") as f:
        f.write(build.build(marked, "shared", None, checks_c))
    return Kernel(spec, path), Kernel(spec, path, call="ctypes")


class _Count:
    """Stands in for a kernel's `_call` (the Python call): counts the calls C did not take."""

    def __init__(self, k: Kernel):
        self.n, self.call = 0, k._call
        k._call = self

    def __call__(self, *args, **kw):
        self.n += 1
        return self.call(*args, **kw)


@needs_ext
def test_the_c_call_gives_the_ctypes_calls_results(tmp_path):
    """Every form of the call (out= one array, a tuple, the outputs positional; two outputs; none)
    through the extension returns what the ctypes call returns, the same bits, and the repeated
    call runs in C (no Python call), while another array is a first call again."""
    k, kc = _pair(ADD, tmp_path, {"add": 1})
    assert k.call_path == "extension" and kc.call_path.startswith("ctypes") and kc._entry is None
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(8).astype(np.float32), rng.standard_normal(8).astype(np.float32)
    for form in ("out", "tuple", "positional"):
        o, oc = np.zeros(8, np.float32), np.zeros(8, np.float32)
        for kk, out in ((k, o), (kc, oc)):
            r = kk(a, b, out=out) if form == "out" else kk(a, b, out=(out,)) if form == "tuple" else kk(a, b, out)
            assert r is out
        assert o.tobytes() == oc.tobytes() == (a + b).tobytes()
        count = _Count(k)
        o[...] = np.nan
        for _ in range(3):
            r = k(a, b, out=o) if form == "out" else k(a, b, out=(o,)) if form == "tuple" else k(a, b, o)
            assert r is o and o.tobytes() == oc.tobytes()
        assert count.n == 0 and k._entry.has_memo()  # the memo's call, in C
        c = a[::-1].copy()
        assert k(c, b, out=o) is o and o.tobytes() == (c + b).tobytes() and count.n == 1
        del k._call
    k2, k2c = _pair(TWO_OUT, tmp_path, {"sum_diff": 2})
    s, d, sc, dc = (np.zeros(8, np.float32) for _ in range(4))
    for _ in range(3):
        r, rc = k2(a, b, out=(s, d)), k2c(a, b, out=(sc, dc))
        assert type(r) is tuple and r[0] is s and r[1] is d and rc[0] is sc and rc[1] is dc
    assert s.tobytes() == sc.tobytes() == (a + b).tobytes() and d.tobytes() == dc.tobytes() == (a - b).tobytes()
    k3, k3c = _pair(CHECKED, tmp_path)  # affine: no outputs, returns None; dynamic sizes; a check in a loop
    x = np.abs(rng.standard_normal(1000)).astype(np.float32)
    y, yc = np.zeros(1000, np.float32), np.zeros(1000, np.float32)
    for _ in range(3):
        assert k3(x, y) is None and k3c(x, yc) is None
    assert y.tobytes() == yc.tobytes() == _want(x).tobytes()
    allocated = k(a, b)  # no memo: the outputs are new
    assert allocated.tobytes() == (a + b).tobytes() and allocated is not o


@needs_ext
def test_bad_arguments_after_a_c_call_are_the_first_calls_errors(tmp_path):
    """With the memo in C, a changed or wrong argument is refused before the kernel runs, with the
    one-line error the ctypes call gives (compared word for word), and the output is untouched."""
    k, kc = _pair(ADD, tmp_path, {"add": 1})
    a, b = np.arange(8, dtype=np.float32), np.ones(8, np.float32)
    o, oc = np.zeros(8, np.float32), np.zeros(8, np.float32)
    k(a, b, out=o)
    kc(a, b, out=oc)

    def refused(call):
        if o.flags.writeable:
            o[...] = oc[...] = 7
        errors = []
        for kk, out in ((k, o), (kc, oc)):
            with pytest.raises((TypeError, ValueError)) as e:
                call(kk, out)
            errors.append((type(e.value), str(e.value)))
        assert errors[0] == errors[1] and "\n" not in errors[0][1], errors
        assert (o == 7).all() and (oc == 7).all() or not o.flags.writeable  # nothing ran
        return errors[0][1]

    assert "dtype" in refused(lambda kk, out: kk(a.astype(np.float64), b, out=out))
    assert "shape" in refused(lambda kk, out: kk(a[:4], b, out=out))
    assert "takes 2 input(s)" in refused(lambda kk, out: kk(a, out=out))
    assert "takes 2 input(s) and out=" in refused(lambda kk, out: kk(a, b, out=[out, out]))
    assert "numpy array" in refused(lambda kk, out: kk(list(a), b, out=out))
    assert "overlap" in refused(lambda kk, out: kk(a, b, out=b))
    assert "unexpected keyword" in refused(lambda kk, out: kk(a, b, outs=out))
    for change, undo, what in ((lambda x: setattr(x.flags, "writeable", False),
                                lambda x: setattr(x.flags, "writeable", True), "read-only"),
                               (lambda x: setattr(x, "shape", (2, 4)), lambda x: setattr(x, "shape", (8,)), "rank")):
        for kk, out in ((k, o), (kc, oc)):
            kk(a, b, out=out)  # the memo again
            change(out)  # in place: the same array, the memo's no longer
        assert k._entry.has_memo()
        assert what in refused(lambda kk, out: kk(a, b, out=out))
        undo(o)
        undo(oc)
    o2 = np.zeros(8, np.float32)
    assert k(a, b, out=o2) is o2 and o2.tobytes() == (a + b).tobytes()


@needs_ext
def test_a_check_failing_in_the_c_call_raises_check_failed(tmp_path):
    """A run-time check failing inside the kernel on the memo's call raises CheckFailed (number,
    message) as the ctypes call does, and the next call is right."""
    k, kc = _pair(CHECKED, tmp_path)
    x, y = np.full(64, 2.0, np.float32), np.zeros(64, np.float32)
    k(x, y)
    count = _Count(k)
    for _ in range(3):
        x[5] = -1.0  # (2 x) (x + 3) < 0: the check fails, on the memo's call (the same arrays)
        with pytest.raises(checks.CheckFailed) as e:
            k(x, y)
        assert e.value.number == 1 and e.value.in_kernel and "products must be non-negative" in str(e.value)
        with pytest.raises(checks.CheckFailed) as ec:
            kc(x, np.zeros(64, np.float32))
        assert str(ec.value) == str(e.value)
        x[5] = 2.0
        y[...] = 0
        assert k(x, y) is None and y.tobytes() == _want(x).tobytes()
    assert count.n == 0


@needs_ext
def test_the_memo_keeps_no_array_alive(tmp_path):
    import gc
    import weakref

    k, _ = _pair(ADD, tmp_path, {"add": 1})
    a, b, o = np.ones(8, np.float32), np.ones(8, np.float32), np.zeros(8, np.float32)
    k(a, b, out=o)
    refs = [weakref.ref(x) for x in (a, b, o)]
    del a, b, o
    gc.collect()
    assert all(r() is None for r in refs)
    for _ in range(20):  # new arrays, perhaps at the dead ones' addresses: checked, right
        a, b, o = np.full(8, 2, np.float32), np.full(8, 3, np.float32), np.zeros(8, np.float32)
        assert k(a, b, out=o) is o and (o == 5).all()
    k(a, b, out=o)
    b2 = np.ones(8, np.float32)
    k(a, b2, out=o)
    del b2  # the memo's second array is dead: None in its place is not taken for it
    gc.collect()
    with pytest.raises(TypeError, match="arg1 must be a numpy array"):
        k(a, None, out=o)


def _child(code: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": REPO, **env})


CHILD = """
import numpy as np, loopopt
from loopopt.runtime import callext
from loopopt.runtime.kernel import Kernel
k = loopopt.compile('''%s''', filename="add.mlir")
a, b, o = np.arange(8, dtype=np.float32), np.ones(8, np.float32), np.zeros(8, np.float32)
for _ in range(3):
    k(a, b, o)
try:
    k(a.astype(np.float64), b, o)
except TypeError as e:
    print("refused:", e)
print("path:", k.call_path)
print("base:", Kernel.__mro__[1].__name__)
print("how:", callext._STATE.get("how"))
print("bits:", o.tolist())
"""


def test_without_the_extension_the_call_is_ctypes_with_the_same_results(tmp_path):
    """LOOPOPT_CALL=ctypes, or no Python headers (callext.includes finding none): no extension is
    built or loaded, Kernel's base is object, and the call gives the same results and errors."""
    env = {"LOOPOPT_CACHE_DIR": str(tmp_path / "cache")}
    plain = _child(CHILD % ADD, {**env, callext.ENV: "ctypes"})
    assert plain.returncode == 0, plain.stderr[-2000:]
    assert "path: ctypes (LOOPOPT_CALL=ctypes)" in plain.stdout and "base: object" in plain.stdout
    no_headers = _child("from loopopt.runtime import callext\n"
                        "callext.includes = lambda: (None, None, 'Python.h not found in /nowhere')\n" + CHILD % ADD,
                        env)
    assert no_headers.returncode == 0, no_headers.stderr[-2000:]
    assert "path: ctypes (Python.h not found in /nowhere)" in no_headers.stdout and "base: object" in no_headers.stdout
    assert not [f for f in os.listdir(tmp_path / "cache") if f.startswith("callext-")]
    if EXT is not None:
        with_ext = _child(CHILD % ADD, env)
        assert with_ext.returncode == 0, with_ext.stderr[-2000:]
        assert "path: extension" in with_ext.stdout and "base: Base" in with_ext.stdout
        for out in (plain.stdout, no_headers.stdout):
            assert [ln for ln in out.splitlines() if ln.startswith(("refused", "bits"))] == \
                   [ln for ln in with_ext.stdout.splitlines() if ln.startswith(("refused", "bits"))]


def test_a_compiler_error_is_one_line_and_no_extension(monkeypatch, tmp_path):
    py, npy, why = callext.includes()
    if py is None:
        pytest.skip(why)
    with pytest.raises(RuntimeError) as e:
        callext.build_bytes(str(tmp_path), str(tmp_path), "cc")  # no Python.h there
    assert str(e.value).startswith("cc failed: ") and "\n" not in str(e.value)
    monkeypatch.setattr(callext, "build_bytes", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("cc failed: x")))
    monkeypatch.setenv(cachemod.CACHE_ENV, str(tmp_path / "c2"))
    assert callext._make() == (None, "the extension did not build or load: cc failed: x")


def test_the_extensions_key_holds_the_python_abi_numpy_and_the_compiler(monkeypatch):
    import sysconfig

    import numpy

    py, npy, why = callext.includes()
    if py is None:
        pytest.skip(why)
    base = cachemod.key_of(callext.key_material(py, npy, "/usr/bin/cc"))
    assert base == cachemod.key_of(callext.key_material(py, npy, "/usr/bin/cc"))
    changed = []
    monkeypatch.setattr(callext, "SOURCE", callext.SOURCE + " ")
    changed.append(cachemod.key_of(callext.key_material(py, npy, "/usr/bin/cc")))
    monkeypatch.undo()
    real = sysconfig.get_config_var
    monkeypatch.setattr(sysconfig, "get_config_var", lambda n: "cpython-399-x" if n == "SOABI" else real(n))
    changed.append(cachemod.key_of(callext.key_material(py, npy, "/usr/bin/cc")))
    monkeypatch.undo()
    monkeypatch.setattr(sys, "hexversion", sys.hexversion + 1)
    changed.append(cachemod.key_of(callext.key_material(py, npy, "/usr/bin/cc")))
    monkeypatch.undo()
    monkeypatch.setattr(numpy, "__version__", "0.0.1")
    changed.append(cachemod.key_of(callext.key_material(py, npy, "/usr/bin/cc")))
    monkeypatch.undo()
    changed.append(cachemod.key_of(callext.key_material(py, "/elsewhere", "/usr/bin/cc")))
    changed.append(cachemod.key_of(callext.key_material(py, npy, "/usr/bin/gcc-other")))
    assert len(set(changed)) == len(changed) and base not in changed


def test_a_damaged_extension_in_the_cache_is_rebuilt_never_loaded(tmp_path):
    """The extension's cache entry is checked as a kernel's: its bytes replaced by another library
    (a valid shared object, the wrong bytes) are refused and rebuilt; two processes starting with an
    empty cache at once build it once."""
    if EXT is None:
        pytest.skip(WHY)
    env = {"LOOPOPT_CACHE_DIR": str(tmp_path / "cache")}
    procs = [subprocess.Popen([sys.executable, "-c", CHILD % ADD], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": REPO, **env}) for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1][-2000:] for o in outs]
    hows = sorted(ln for o in outs for ln in o[0].splitlines() if ln.startswith("how:"))
    assert hows == ["how: built", "how: hit"], hows
    libs = [f for f in os.listdir(tmp_path / "cache") if f.startswith("callext-") and f.endswith(".so")]
    assert len(libs) == 1
    manifest = [f for f in os.listdir(tmp_path / "cache") if f.startswith("callext-") and f.endswith(".json")]
    assert json.load(open(tmp_path / "cache" / manifest[0]))["library"] == libs[0]
    kernel_lib = [f for f in os.listdir(tmp_path / "cache") if f.endswith(".so") and not f.startswith("callext-")][0]
    with open(tmp_path / "cache" / kernel_lib, "rb") as src, open(tmp_path / "cache" / libs[0], "wb") as dst:
        dst.write(src.read())  # a valid library, not the extension: never loaded
    again = _child(CHILD % ADD, env)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "how: rebuilt (library does not match its manifest" in again.stdout and "path: extension" in again.stdout


WAITER = r"""
#include <stdint.h>
#include <time.h>
static volatile int flag, saw;
void set_flag(void) { flag = 1; }
void reset(void) { flag = saw = 0; }
int saw_flag(void) { return saw; }
/* a kernel of two descriptors that waits (at most 5 s) for another thread to call set_flag */
void wait_flag(void *a, void *b) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do {
    if (flag) { saw = 1; return; }
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while (t.tv_sec - t0.tv_sec < 5);
}
"""


@needs_ext
def test_the_c_call_releases_the_gil_while_another_thread_runs(tmp_path):
    """With a second Python thread alive the kernel runs with the GIL released (that thread runs
    Python meanwhile), on the memo's call and on the first call's `pointers` alike. Alone, the call
    keeps the GIL (nobody could take it; docs/runtime.md), which this process's other tests run."""
    import ctypes
    import threading

    src, so = tmp_path / "w.c", tmp_path / "w.so"
    src.write_text(WAITER)
    subprocess.run(["cc", "-O2", "-fPIC", "-shared", str(src), "-o", str(so)], check=True)
    lib = ctypes.CDLL(str(so))
    fn = ctypes.cast(lib.wait_flag, ctypes.c_void_p).value
    entry = EXT.Entry(fn, 2, 1, 1, 0, np.ndarray, print)

    class K(EXT.Base):
        def _call(self, *args, **kw):
            raise AssertionError("not the memo's call")

    k = K()
    k._entry = entry
    a, o = np.ones(4, np.float32), np.zeros(4, np.float32)
    assert entry.remember((a, o), (1, 0x401), (a.ctypes.data, o.ctypes.data), None)
    for call in (lambda: k(a, out=o), lambda: entry.pointers(a.ctypes.data, o.ctypes.data)):
        lib.reset()
        go = threading.Event()
        t = threading.Thread(target=lambda: (go.wait(), lib.set_flag()))
        t.start()
        go.set()
        call()
        t.join()
        assert lib.saw_flag() == 1  # the other thread ran Python while the kernel waited
