"""The runtime's temporaries (runtime/alloc.py) and its repeated-call memo (runtime/kernel.py).

A kernel built by loopopt.compile lowers memref.alloc/dealloc to the library's per-thread cache
of freed blocks: its results are bit-identical to the malloc build's, across many calls, sizes
and threads; the cache never gives one block to two live allocations and stays within its
bounds; a check failing inside the kernel (a longjmp past its deallocs) leaves it usable. A
call with the same arrays as the last one skips the checks only while nothing they depend on
changed.
"""
from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import textwrap

import warnings

import numpy as np
import pytest

import loopopt
from loopopt.frontend import fixtures
from loopopt.runtime import alloc, build, cache as cachemod, compiler
from loopopt.runtime.kernel import Kernel

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MISSING = build.missing_tools()
pytestmark = [pytest.mark.toolchain, pytest.mark.skipif(MISSING is not None, reason=MISSING or "")]


@pytest.fixture(scope="module", autouse=True)
def cache_dir(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("loopopt-cache"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(cachemod.CACHE_ENV, d)
        yield d


# Two temporaries alive at once (a block given to both would make t2 overwrite t1), the second
# read backwards; b[i] = (2 a[i]) * (a[i] + 3), rounded as numpy rounds it. CHECKED adds a check
# in the last loop, reached after both temporaries are allocated.
TWO_TEMPS = textwrap.dedent('''
    func.func @two_temps(%a: memref<?xf32>, %b: memref<?xf32>) {
      %c0 = arith.constant 0 : index
      %n = memref.dim %a, %c0 : memref<?xf32>
      %t1 = memref.alloc(%n) : memref<?xf32>
      %t2 = memref.alloc(%n) : memref<?xf32>
      %two = arith.constant 2.0 : f32
      %three = arith.constant 3.0 : f32
      %zero = arith.constant 0.0 : f32
      affine.for %i = 0 to %n {
        %x = affine.load %a[%i] : memref<?xf32>
        %y = arith.mulf %x, %two : f32
        affine.store %y, %t1[%i] : memref<?xf32>
      }
      affine.for %i = 0 to %n {
        %x = affine.load %a[%n - %i - 1] : memref<?xf32>
        %y = arith.addf %x, %three : f32
        affine.store %y, %t2[%i] : memref<?xf32>
      }
      affine.for %i = 0 to %n {
        %x = affine.load %t1[%i] : memref<?xf32>
        %y = affine.load %t2[%n - %i - 1] : memref<?xf32>
        %z = arith.mulf %x, %y : f32
        CHECK
        affine.store %z, %b[%i] : memref<?xf32>
      }
      memref.dealloc %t1 : memref<?xf32>
      memref.dealloc %t2 : memref<?xf32>
      return
    }''')
PLAIN = TWO_TEMPS.replace("CHECK", "")
CHECKED = TWO_TEMPS.replace("CHECK", '%ok = arith.cmpf oge, %z, %zero : f32\n'
                            '        cf.assert %ok, "two_temps: products must be non-negative"')


def _want(a: np.ndarray) -> np.ndarray:
    return (a * np.float32(2.0)) * (a + np.float32(3.0))


def _library(text: str, directory, generic_alloc: bool, counts=None, call: str = "auto") -> Kernel:
    """`text` (not optimized) built as loopopt.compile builds it, with or without the cache;
    call="ctypes": called through ctypes even where the extension (runtime/callext.py) is loaded."""
    marked, spec, checks_c = compiler.prepare(text, counts or {}, None)
    path = os.path.join(str(directory), f"k{int(generic_alloc)}-{spec.name}.so")
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(build.build(marked, "shared", None, checks_c, generic_alloc=generic_alloc))
    return Kernel(spec, path, call=call)


def _cached(k: Kernel) -> tuple[int, int]:
    """(bytes, blocks) this thread's cache of `k`'s library holds."""
    f = getattr(k._lib, alloc.STATS_SYMBOL)
    f.restype, f.argtypes = ctypes.c_size_t, [ctypes.POINTER(ctypes.c_size_t)]
    blocks = ctypes.c_size_t()
    held = f(ctypes.byref(blocks))
    return held, blocks.value


def test_temporaries_give_the_same_bits_with_and_without_the_cache(tmp_path):
    cached, plain = _library(PLAIN, tmp_path, True), _library(PLAIN, tmp_path, False)
    assert hasattr(cached._lib, alloc.STATS_SYMBOL) and not hasattr(plain._lib, alloc.STATS_SYMBOL)
    rng = np.random.default_rng(0)
    for n in (1, 37, 1000, 40000, 300000, 1000, 300000):  # 1.2 MB temporaries: above glibc's mmap threshold
        for _ in range(5):
            a = rng.standard_normal(n).astype(np.float32)
            x, y = np.full(n, np.nan, np.float32), np.full(n, np.nan, np.float32)
            cached(a, x)
            plain(a, y)
            assert x.tobytes() == y.tobytes() == _want(a).tobytes()
    held, blocks = _cached(cached)
    assert 0 < held <= alloc.LIMIT_BYTES and 0 < blocks <= alloc.SLOTS


def test_a_blocks_temporaries_give_the_same_bits_with_and_without_the_cache(tmp_path):
    """layernorm_small optimized keeps memref.alloc temporaries; both builds of it agree bit for bit."""
    fx = fixtures.load_fixture("layernorm_small")
    text = loopopt.optimize(fx.text, target="cpu").text
    assert "memref.alloc" in text
    counts = compiler.output_counts(fx.text, "layernorm_small.mlir")
    cached, plain = _library(text, tmp_path, True, counts), _library(text, tmp_path, False, counts)
    inputs = fixtures.run_inputs(fx.runs[0])
    got = [cached(*inputs) for _ in range(20)] + [plain(*inputs)]
    assert all(g.tobytes() == got[-1].tobytes() for g in got)
    assert fixtures.compare_arrays_with_expected(inputs, (got[0],), fx.runs[0]) is None
    assert _cached(cached)[0] > 0


# One temporary, t[i] = 2 a[i], b[i] = t[i] + 1: at the sizes below a block glibc always maps anew.
ONE_TEMP = textwrap.dedent('''
    func.func @one_temp(%a: memref<?xf32>, %b: memref<?xf32>) {
      %c0 = arith.constant 0 : index
      %n = memref.dim %a, %c0 : memref<?xf32>
      %t = memref.alloc(%n) : memref<?xf32>
      %two = arith.constant 2.0 : f32
      %one = arith.constant 1.0 : f32
      affine.for %i = 0 to %n {
        %x = affine.load %a[%i] : memref<?xf32>
        %y = arith.mulf %x, %two : f32
        affine.store %y, %t[%i] : memref<?xf32>
      }
      affine.for %i = 0 to %n {
        %x = affine.load %t[%i] : memref<?xf32>
        %y = arith.addf %x, %one : f32
        affine.store %y, %b[%i] : memref<?xf32>
      }
      memref.dealloc %t : memref<?xf32>
      return
    }''')


def _minor_faults() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def test_a_warm_call_takes_no_page_faults(tmp_path):
    """A 36 MB temporary, above glibc's largest mmap threshold (32 MiB), so malloc maps it anew
    every call and free unmaps it: the malloc build takes a page fault per page touched, every
    call (9216 at 4 KiB pages; 18 were the memory on 2 MiB pages); the library's cache keeps the
    block, and after the first call a call takes none. Same bits from both."""
    n = 9 * 1024 * 1024
    cached, plain = _library(ONE_TEMP, tmp_path, True), _library(ONE_TEMP, tmp_path, False)
    a = np.arange(n, dtype=np.float32) % np.float32(1000.0)
    want = a * np.float32(2.0) + np.float32(1.0)
    faults = {}
    for name, k in (("cached", cached), ("plain", plain)):
        b = np.full(n, np.nan, np.float32)
        k(a, b)  # the first call takes the block (and the output's pages)
        before = _minor_faults()
        for _ in range(5):
            k(a, b)
        faults[name] = _minor_faults() - before
        assert b.tobytes() == want.tobytes()
    assert faults["cached"] <= 5 * 4, faults  # a stray fault of the interpreter's own is allowed
    assert faults["plain"] >= 5 * 16, faults  # what the test would see without the cache
    assert _cached(cached) == (n * 4, 1)


THREADS = textwrap.dedent('''
    import sys, threading
    import numpy as np
    sys.path.insert(0, sys.argv[2])
    from test_runtime_alloc import _library, _want
    k = _library(open(sys.argv[1]).read(), sys.argv[3], True)
    bad = []
    def work(seed):
        rng = np.random.default_rng(seed)
        for i in range(200):
            n = (1000, 70000, 300000)[(i + seed) % 3]  # sizes alternate: blocks move in and out of the cache
            a = rng.standard_normal(n).astype(np.float32)
            out = np.full(n, np.nan, np.float32)
            k(a, out)
            if out.tobytes() != _want(a).tobytes():
                bad.append((seed, i))
    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("wrong", len(bad))
''')


def _child(script: str, text: str, tmp_path, *args) -> subprocess.CompletedProcess:
    (tmp_path / "k.mlir").write_text(text)
    env = dict(os.environ, PYTHONPATH=REPO)
    return subprocess.run([sys.executable, "-c", script, str(tmp_path / "k.mlir"), os.path.join(REPO, "tests"),
                           str(tmp_path), *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=900)


def test_threads_calling_at_once_each_get_their_own_blocks(tmp_path):
    """Four threads call one kernel at once (the call releases the GIL), each on its own data and
    sizes; every result is checked. A cache shared between threads without a lock hands one block
    to two threads' temporaries (or corrupts its list)."""
    p = _child(THREADS, PLAIN, tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.split() == ["wrong", "0"]


FAILING = textwrap.dedent('''
    import sys
    import numpy as np
    sys.path.insert(0, sys.argv[2])
    import loopopt
    from test_runtime_alloc import _cached, _library, _want
    from loopopt.runtime import alloc
    k = _library(open(sys.argv[1]).read(), sys.argv[3], True)
    rng = np.random.default_rng(3)
    good = rng.uniform(0.0, 5.0, 200000).astype(np.float32)
    bad = good.copy()
    bad[150000] = -1.0  # 2 * -1 * 2 < 0: the check fails after both temporaries were taken
    out = np.empty_like(good)
    failed = right = 0
    for i in range(100):
        try:
            k(bad, out)
        except loopopt.runtime.CheckFailed as e:
            failed += e.number == 1
        out[:] = np.nan
        k(good, out)
        right += out.tobytes() == _want(good).tobytes()
        held, blocks = _cached(k)
        assert held <= alloc.LIMIT_BYTES and blocks <= alloc.SLOTS, (held, blocks)
    print("failed", failed, "right", right)
''')


def test_a_failing_check_leaves_the_cache_usable(tmp_path):
    """A check failing inside the kernel jumps past its deallocs: the wrapper hands the two blocks
    it took back to the cache; the calls after it still get distinct blocks and the right
    results."""
    p = _child(FAILING, CHECKED, tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.split() == ["failed", "100", "right", "100"]


FAILING_MANY = textwrap.dedent('''
    import sys
    import numpy as np
    sys.path.insert(0, sys.argv[2])
    import loopopt
    from test_runtime_alloc import _cached, _library, _live, _rss
    from loopopt.runtime import alloc
    k = _library(open(sys.argv[1]).read(), sys.argv[3], True)
    bad = np.ones(100000, np.float32)  # two temporaries of 400 KB each, above malloc's mmap threshold
    bad[-1] = -1.0  # the last product is negative: the check fails after both were taken and filled
    out = np.empty_like(bad)
    rss = []
    for i in range(400):
        try:
            k(bad, out)
            print("passed?")
        except loopopt.runtime.CheckFailed:
            pass
        assert _live(k) == (0, 0), (i, _live(k))  # every block the call took was handed back
        held, blocks = _cached(k)
        assert held <= alloc.LIMIT_BYTES and blocks <= alloc.SLOTS, (held, blocks)
        if i in (20, 399):
            rss.append(_rss())
    print("grew_kib", rss[1] - rss[0], "cached_blocks", _cached(k)[1])
''')


def _live(k: Kernel) -> tuple[int, int]:
    """(bytes, blocks) of `k`'s library's temporaries handed out on this thread and not freed."""
    f = getattr(k._lib, alloc.LIVE_SYMBOL)
    f.restype, f.argtypes = ctypes.c_size_t, [ctypes.POINTER(ctypes.c_size_t)]
    blocks = ctypes.c_size_t()
    held = f(ctypes.byref(blocks))
    return held, blocks.value


def _rss() -> int:
    """This process's resident set in KiB (/proc/self/status)."""
    with open("/proc/self/status") as f:
        return next(int(ln.split()[1]) for ln in f if ln.startswith("VmRSS:"))


def test_a_failing_check_returns_its_temporaries(tmp_path):
    """400 calls of a kernel whose check fails after it took two 400 KB temporaries: after each,
    no block is left handed out, the cache is within its bounds and holds the two blocks (the next
    call reuses them), and the process's memory does not grow (leaked, it would grow 800 KB a
    call: 300 MB)."""
    p = _child(FAILING_MANY, CHECKED, tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    words = p.stdout.split()
    assert words[0] == "grew_kib" and words[2:] == ["cached_blocks", "2"], p.stdout
    assert int(words[1]) < 16 * 1024, p.stdout


# ----------------------------------------------------------------------------- the allocator alone

@pytest.fixture(scope="module")
def allocator(tmp_path_factory):
    """runtime/alloc.py's C, its two functions visible, as a library of its own."""
    d = tmp_path_factory.mktemp("alloc")
    src = alloc.source().replace('visibility("hidden")', 'visibility("default")')
    obj = build.compile_c(src)
    path = str(d / "alloc.so")
    with open(path, "wb") as f:
        f.write(build.to_shared(obj))
    lib = ctypes.CDLL(path)
    lib_alloc, lib_free = getattr(lib, alloc.ALLOC), getattr(lib, alloc.FREE)
    lib_alloc.restype, lib_alloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    lib_free.restype, lib_free.argtypes = None, [ctypes.c_void_p]
    stats = getattr(lib, alloc.STATS_SYMBOL)
    stats.restype, stats.argtypes = ctypes.c_size_t, [ctypes.c_void_p]
    return lib, lib_alloc, lib_free, ctypes.c_size_t.in_dll(lib, alloc.LIMIT_SYMBOL)


@pytest.mark.parametrize("limit", [alloc.LIMIT_BYTES, 20000])
def test_no_block_is_given_twice_and_the_bounds_hold(allocator, limit):
    """Random allocs and frees: every live block is at least its size (its header), no two live
    blocks overlap, each keeps what was written into it until freed, and after every free the
    thread's cache holds at most `limit` bytes and SLOTS blocks."""
    lib, lib_alloc, lib_free, limit_var = allocator
    limit_var.value = limit
    rng = np.random.default_rng(limit)
    live: dict[int, tuple[int, int]] = {}  # pointer -> (size, fill byte)
    reused = 0
    freed: set[int] = set()
    try:
        for step in range(4000):
            if live and (len(live) > 40 or rng.random() < 0.45):
                p = list(live)[rng.integers(len(live))]
                size, fill = live.pop(p)
                assert ctypes.string_at(p, size) == bytes([fill]) * size, "a live block was written by another"
                lib_free(p)
                freed.add(p)
                blocks = ctypes.c_size_t()
                held = getattr(lib, alloc.STATS_SYMBOL)(ctypes.byref(blocks))
                assert held <= limit and blocks.value <= alloc.SLOTS, (held, blocks.value)
                continue
            size = int(rng.choice([0, 8, 100, 4096, 9000, 9001, 10000, 12000, 30000]))
            p = lib_alloc(size)
            assert p and p % 16 == 0
            assert ctypes.c_size_t.from_address(p - alloc.HEADER_BYTES).value >= size
            for q, (qsize, _) in live.items():
                assert p + size <= q or q + qsize <= p or (size == 0 and p != q) or (qsize == 0 and p != q), \
                    "a block given to two live allocations"
            assert p not in live
            reused += p in freed
            fill = int(rng.integers(256))
            ctypes.memset(p, fill, size)
            live[p] = (size, fill)
    finally:
        for p in live:
            lib_free(p)
    assert reused > 100  # the cache is used: freed blocks come back


def test_a_block_larger_than_the_limit_is_not_kept(allocator):
    lib, lib_alloc, lib_free, limit_var = allocator
    limit_var.value = 4096
    before = getattr(lib, alloc.STATS_SYMBOL)(None)
    p = lib_alloc(5000)
    lib_free(p)
    assert getattr(lib, alloc.STATS_SYMBOL)(None) == before  # freed at once, not kept
    limit_var.value = alloc.LIMIT_BYTES


STRESS = r"""
#include <pthread.h>
#include <stdio.h>
#include <string.h>
void *ALLOC(size_t size);
void FREE(void *p);
static int wrong;
/* Each thread keeps two blocks alive at a time, fills each with its own byte and checks the fill
   before freeing it: a block given to two live allocations (on one thread or two) is overwritten. */
static void *work(void *arg) {
  unsigned char mine = (unsigned char)(size_t)arg;
  for (int i = 0; i < 1000000; i++) {
    size_t n1 = 64 + (size_t)(i % 3) * 200, n2 = 64 + (size_t)((i + 1) % 3) * 200;
    unsigned char *a = ALLOC(n1), *b = ALLOC(n2);
    memset(a, mine, n1);
    memset(b, mine ^ 0xff, n2);
    for (size_t k = 0; k < n1; k++)
      if (a[k] != mine) { __atomic_add_fetch(&wrong, 1, __ATOMIC_RELAXED); break; }
    for (size_t k = 0; k < n2; k++)
      if (b[k] != (unsigned char)(mine ^ 0xff)) { __atomic_add_fetch(&wrong, 1, __ATOMIC_RELAXED); break; }
    FREE(a);
    FREE(b);
  }
  return 0;
}
int main(void) {
  pthread_t t[4];
  for (size_t i = 0; i < 4; i++)
    pthread_create(&t[i], 0, work, (void *)(i + 1));
  for (int i = 0; i < 4; i++)
    pthread_join(t[i], 0);
  printf("wrong %d\n", wrong);
  return 0;
}
"""


def test_threads_in_c_never_share_a_block(tmp_path):
    """Four C threads allocate and free as fast as they can (no Python between the calls, so
    their calls overlap in time): each thread's live blocks keep what it wrote."""
    src = alloc.source().replace('visibility("hidden")', 'visibility("default")') + \
        STRESS.replace("ALLOC", alloc.ALLOC).replace("FREE", alloc.FREE)
    (tmp_path / "stress.c").write_text(src)
    cc = build.toolchain().cc
    exe = str(tmp_path / "stress")
    p = subprocess.run([cc, "-std=gnu11", "-O2", "-pthread", str(tmp_path / "stress.c"), "-o", exe],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    p = subprocess.run([exe], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0 and p.stdout.split() == ["wrong", "0"], (p.returncode, p.stdout, p.stderr[-2000:])


# ----------------------------------------------------------------------------- the call's memo

CALLS = ["auto", "ctypes"]  # the memo in C (the extension, where it is built) and in Python


@pytest.mark.parametrize("call", CALLS)
def test_a_repeated_call_is_checked_again_when_its_arrays_change(tmp_path, call):
    """The memo of the last call's descriptors is used only for the same arrays, unchanged: other
    arrays of the same shape get their own results; an array given another shape or dtype, or made
    read-only, in place is checked (and refused) as on a first call."""
    k = _library(PLAIN, tmp_path, True, call=call)
    a, b = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    k(a, b)
    k(a, b)  # through the memo
    assert b.tobytes() == _want(a).tobytes()
    c, d = a[::-1].copy(), np.zeros(8, np.float32)
    k(c, d)  # other arrays of the same shape
    assert d.tobytes() == _want(c).tobytes() and b.tobytes() == _want(a).tobytes()
    k(a, b)
    b.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        k(a, b)
    b.flags.writeable = True
    k(a, b)
    b.shape = (2, 4)
    with pytest.raises(ValueError, match="rank"):
        k(a, b)
    b.shape = (8,)
    k(a, b)
    a.dtype = np.int32
    with pytest.raises(TypeError, match="dtype"):
        k(a, b)
    a.dtype = np.float32
    k(a, b)
    assert b.tobytes() == _want(a).tobytes()
    with warnings.catch_warnings():  # setting strides in place: deprecated in numpy 2.4, still possible
        warnings.simplefilter("ignore", DeprecationWarning)
        b.strides = (0,)  # the same memory, no longer C-contiguous
    with pytest.raises(ValueError, match="C-contiguous"):
        k(a, b)


ADD = """
func.func @add(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>) {
  affine.for %i = 0 to 8 {
    %x = affine.load %a[%i] : memref<8xf32>
    %y = affine.load %b[%i] : memref<8xf32>
    %s = arith.addf %x, %y : f32
    affine.store %s, %out[%i] : memref<8xf32>
  }
  return
}"""


@pytest.mark.parametrize("call", CALLS)
def test_a_repeated_call_takes_out_as_a_first_call_does(tmp_path, call):
    """The memo's path for out= (one array, or a tuple) gives a call the memo's arrays only in the
    places a first call would: two inputs and out=(third array) after k(a, b, out=c) runs again
    through the memo; the same three arrays split as one input and a two-array out= are refused
    as on a first call, memo or not."""
    k = _library(ADD, tmp_path, True, counts={"add": 1}, call=call)
    a, b, c = np.arange(8, dtype=np.float32), np.ones(8, np.float32), np.zeros(8, np.float32)
    for out in (c, (c,), [c]):
        c[...] = 0
        assert k(a, b, out=out) is c and k(a, b, out=out) is c  # the second through the memo
        assert c.tolist() == (a + b).tolist()
    for _ in range(2):
        with pytest.raises(TypeError, match=r"takes 2 input\(s\) and out= with 1 array\(s\), got 1 and 2"):
            k(a, out=(b, c))
