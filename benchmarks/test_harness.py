"""Self-test of the native harness: a tiny kernel's printed results against numpy.

Run: python3 -m pytest benchmarks/test_harness.py   (needs mlir-opt and mlir-runner 22)
"""
from __future__ import annotations

import os
import struct
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
for path in (os.path.dirname(HERE), HERE):
    if path not in sys.path:
        sys.path.insert(0, path)

from loopopt import native  # noqa: E402
from loopopt.toolchain import find_tool  # noqa: E402

import suite  # noqa: E402

pytestmark = [
    pytest.mark.toolchain,
    pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed"),
]

# out[i, j] = max(a[i, j] * 1.5 + 0.25, 0) * b[j]; m rows are symbolic, through a placed buffer.
KERNEL = """
func.func @k(%m: index, %a: memref<?x5xf32>, %b: memref<5xf32>, %out: memref<?x5xf32>) -> memref<5xf32> {
  %c15 = arith.constant 1.5 : f32
  %c025 = arith.constant 0.25 : f32
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc(%m) : memref<?x5xf32>
  affine.for %i = 0 to %m {
    affine.for %j = 0 to 5 {
      %x = affine.load %a[%i, %j] : memref<?x5xf32>
      %y = arith.mulf %x, %c15 : f32
      %z = arith.addf %y, %c025 : f32
      affine.store %z, %t[%i, %j] : memref<?x5xf32>
    }
  }
  affine.for %i = 0 to %m {
    affine.for %j = 0 to 5 {
      %x = affine.load %t[%i, %j] : memref<?x5xf32>
      %r = arith.maximumf %x, %zero : f32
      %w = affine.load %b[%j] : memref<5xf32>
      %p = arith.mulf %r, %w : f32
      affine.store %p, %out[%i, %j] : memref<?x5xf32>
    }
  }
  %sum = memref.alloc() : memref<5xf32>
  affine.for %j = 0 to 5 {
    affine.store %zero, %sum[%j] : memref<5xf32>
  }
  affine.for %i = 0 to %m {
    affine.for %j = 0 to 5 {
      %v = affine.load %out[%i, %j] : memref<?x5xf32>
      %s = affine.load %sum[%j] : memref<5xf32>
      %s2 = arith.addf %s, %v : f32
      affine.store %s2, %sum[%j] : memref<5xf32>
    }
  }
  memref.dealloc %t : memref<?x5xf32>
  return %sum : memref<5xf32>
}
"""


def fill(n: int, argno: int) -> np.ndarray:
    """The harness's documented fill pattern, computed independently."""
    i = np.arange(n, dtype=np.int64)
    return ((((7 * i + 131 * argno + 3) % native.FILL_MODULUS) * (2.0 / native.FILL_MODULUS)) - 1.0).astype(np.float32)


def expected(m: int):
    a = fill(m * 5, 1).reshape(m, 5)
    b = fill(5, 2)
    out = np.maximum(a * np.float32(1.5) + np.float32(0.25), np.float32(0.0)) * b
    col = np.zeros(5, dtype=np.float32)
    for i in range(m):  # the kernel's summation order, in f32
        col = col + out[i]
    return a, b, out, col


def test_small_run_prints_every_value_and_matches_numpy():
    m = 7
    r = native.run_native(KERNEL, "k", [m, [m, 5], [5], [m, 5]], reps=2)
    a, b, out, col = expected(m)
    assert [o.name for o in r.outputs] == ["arg1", "arg2", "arg3", "result0"]
    assert len(r.times) == 2 and all(t >= 0 for t in r.times)
    for got, want in zip(r.outputs, (a, b, out, col)):
        assert got.values is not None and got.numel == want.size
        assert np.array_equal(np.array(got.values, dtype=np.float32), want.ravel()), got.name


def test_large_run_prints_checksums_that_match_numpy():
    m = 3000  # 15000 elements > FULL_LIMIT
    r = native.run_native(KERNEL, "k", [m, [m, 5], [5], [m, 5]], reps=1)
    out = expected(m)[2].ravel().astype(np.float64)
    got = r.outputs[2]
    assert got.values is None and got.numel == out.size
    w = (np.arange(out.size) % native.WEIGHT_MODULUS) + 1
    want = (out.sum(), (out * w).sum(), np.abs(out).sum())
    np.testing.assert_allclose(got.checksum, want, rtol=1e-12)


def test_a_changed_kernel_is_reported_different():
    m = 7
    sizes = [m, [m, 5], [5], [m, 5]]
    base = native.run_native(KERNEL, "k", sizes, reps=1)
    changed = native.run_native(KERNEL.replace("0.25 : f32", "0.26 : f32"), "k", sizes, reps=1)
    assert native.compare_outputs(base.outputs, base.outputs) is None
    diff = native.compare_outputs(base.outputs, changed.outputs)
    assert diff is not None and diff.startswith("arg3[")
    big = [3000, [3000, 5], [5], [3000, 5]]
    b1 = native.run_native(KERNEL, "k", big, reps=1)
    b2 = native.run_native(KERNEL.replace("0.25 : f32", "0.26 : f32"), "k", big, reps=1)
    assert native.compare_outputs(b1.outputs, b2.outputs).startswith("arg3 ")
    # a tolerance admits reassociation-sized differences but not this change
    assert native.compare_outputs(b1.outputs, b2.outputs, rtol=1e-6) is not None


def test_sizes_are_checked_against_the_signature():
    with pytest.raises(native.NativeError, match="arg2"):
        native.make_harness(KERNEL, "k", [4, [4, 5], [6], [4, 5]])
    with pytest.raises(native.NativeError, match="takes 4 arguments"):
        native.make_harness(KERNEL, "k", [4])


def test_static_facts_of_the_kernel():
    sizes = (7, [7, 5], [5], [7, 5])
    assert suite.count_loops(KERNEL) == 7
    placed = suite.placed_bytes(KERNEL, "k", sizes)
    assert (placed.bytes, placed.buffers, placed.unknown) == (7 * 5 * 4 + 5 * 4, 2, 0)
    assert suite.traffic_bytes(KERNEL, "k", sizes) == ((35 + 5 + 35) * 4, 35 * 4)


def test_every_benchmark_program_parses_with_its_sizes():
    for p in suite.load_programs():
        sig = native.kernel_signature(p.text, p.kernel)
        native.resolve_sizes(sig, p.sizes)


# ------------------------------------------------------------------ report: two regimes side by side

def _variant(flushed_ms: float, warm_ms: float, status: str = "ok", equal=True) -> dict:
    return {"status": status, "equal": equal, "loops": 1, "placed": "0", "median": flushed_ms / 1e3,
            "best": flushed_ms / 1e3, "warm_median": warm_ms / 1e3, "warm_best": warm_ms / 1e3,
            "times": [flushed_ms / 1e3] * 4, "warm_times": [warm_ms / 1e3] * 4}


def _bench(programs: dict) -> dict:
    """A bench.json with both regimes; programs: name -> (input, loopopt) as (flushed, warm) ms."""
    rows = []
    for name, (inp, lo) in programs.items():
        v = {"input": _variant(*inp), "loopopt": _variant(*lo)}
        v["mlir-fusion"] = _variant(*inp)
        v["mlir-greedy"] = _variant(*inp)
        rows.append({"name": name, "tags": [], "variants": v, "read_bytes": 0, "written_bytes": 0})
    return {"machine": {}, "reps": 3, "warmup": 1, "rounds": 1, "regimes": ["flushed", "warm"], "flush_mib": 128,
            "wall_seconds": 1.0, "programs": rows}


def test_report_speedups_per_regime_and_the_floor():
    import report

    bench = _bench({"fast": ((10, 10), (5, 10)), "warm_slow": ((10, 10), (10, 12))})
    fast, slow = bench["programs"]
    assert report.speedups(fast, None, "flushed")["loopopt"] == 2.0
    assert report.speedups(fast, None, "warm")["loopopt"] == 1.0
    assert report.slow_programs(bench) == [("warm_slow", "warm", 10 / 12)]
    assert report.slowest(bench, "flushed") == ("warm_slow", 1.0)
    text = "\n".join(report.bench_markdown(bench))
    assert "loopopt flushed | loopopt warm" in text and "**0.83×**" in text
    assert "warm_slow (warm 0.83×)" in text
    # a file from before the warm regime reads as flushed only
    old = _bench({"p": ((10, 10), (5, 5))})
    del old["regimes"]
    assert report.regimes_of(old) == ("flushed",)
    assert "loopopt warm" not in "\n".join(report.bench_markdown(old))


def test_lower_quartile_ignores_preempted_calls_and_lone_fast_ones():
    """A shared machine: half the calls lose the core for a tick (+4 ms), one call runs fast."""
    import report

    assert report.quantile([1.0, 2.0, 3.0, 4.0, 5.0], 0.25) == 2.0
    assert report.quantile([], 0.25) is None
    base = [0.0165] * 14 + [0.0325] * 15 + [0.0100]
    same_code = [0.0166] * 12 + [0.0330] * 18
    bench = _bench({"noisy": ((16.5, 16.5), (16.6, 16.6))})
    v = bench["programs"][0]["variants"]
    v["input"]["times"], v["loopopt"]["times"] = base, same_code
    v["input"]["best"], v["loopopt"]["best"] = min(base), min(same_code)
    sp = report.speedups(bench["programs"][0], "q1")["loopopt"]
    assert 0.95 < sp <= 1.0  # the best calls would say 0.60x, the medians 0.74x
    assert report.speedups(bench["programs"][0], "best")["loopopt"] < 0.7
    assert report.slow_programs(bench) == []


def test_report_quotes_both_regimes_into_the_readme_between_markers(tmp_path):
    import report

    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{report.BENCH_BEGIN}\n| old | 9.99x |\n{report.BENCH_END}\nrest\n")
    bench = _bench({"a": ((10, 10), (5, 8)), "b": ((10, 10), (10, 10))})
    assert report.quote_bench_in_readme(str(readme), bench)
    text = readme.read_text()
    assert "9.99x" not in text and text.startswith("intro\n") and text.endswith(f"{report.BENCH_END}\nrest\n")
    row = [ln for ln in text.splitlines() if ln.startswith("| all 2 programs")][0]
    assert row.split(" | ")[1:3] == [f"{2 ** 0.5:.2f}x", f"{(10 / 8) ** 0.5:.2f}x"]
    assert "slower than 0.95× of the input (lower quartile of the calls): **none**" in text
    readme.write_text("no markers\n")
    assert not report.quote_bench_in_readme(str(readme), bench)
    assert readme.read_text() == "no markers\n"


# ------------------------------------------------------------------ report: the roofline

def test_report_roofline_from_the_machine_kernels_of_the_run():
    import report

    bench = _bench({"compute": ((10, 10), (5, 5)), "stream": ((10, 10), (4, 4))})
    compute, stream = bench["programs"]
    compute.update(flops=4e9, read_bytes=10 ** 6, written_bytes=0)  # 4 GFLOP: compute-bound
    stream.update(flops=10 ** 6, read_bytes=6 * 10 ** 7, written_bytes=2 * 10 ** 7)  # 80 MB: memory-bound
    bench["programs"] += [
        {"name": "fma_peak_256", "tags": ["peak"], "flops": 2e8, "read_bytes": 0, "written_bytes": 0,
         "variants": {"input": _variant(2.0, 2.0)}},  # 100 GFLOP/s
        {"name": "fma_peak_512", "tags": ["peak"], "flops": 2e8, "read_bytes": 0, "written_bytes": 0,
         "variants": {"input": _variant(1.0, 1.0)}},  # 200 GFLOP/s: the peak
        {"name": "copy", "tags": ["bandwidth"], "read_bytes": 10 ** 8, "written_bytes": 10 ** 8,
         "variants": {"input": _variant(10.0, 10.0)}},  # 20 GB/s
    ]
    assert report.peak_flops(bench) == pytest.approx(200e9)
    assert report.copy_bandwidth(bench) == pytest.approx(20e9)
    assert report.attainable(compute, 200e9, 20e9) == pytest.approx(0.02)  # 4e9 / 200e9
    assert report.attainable(stream, 200e9, 20e9) == pytest.approx(0.004)  # 8e7 / 20e9
    assert report.roofline_share(compute, "loopopt", 200e9, 20e9) == pytest.approx(0.02 / 0.005)
    assert report.roofline_share(stream, "input", 200e9, 20e9) == pytest.approx(0.004 / 0.010)
    text = "\n".join(report.bench_markdown(bench))
    assert "peak **200.0 GFLOP/s** (fma_peak_256 100.0 GFLOP/s, fma_peak_512 200.0 GFLOP/s)" in text
    assert "| % of roofline input | % of roofline loopopt |" in text
    row = next(ln for ln in text.splitlines() if ln.startswith("| stream | 0.001 |"))
    assert "| memory | 4.000 | 40.0% | 100.0% |" in row
    # the machine kernels are not programs of the tables
    assert not any(ln.startswith("| fma_peak_512 |") for ln in text.splitlines())


def test_counted_flops_of_the_peak_kernels_match_their_headers():
    for p in suite.load_programs():
        if p.has("peak"):
            w = suite.program_work(p.text, p.kernel, p.sizes)
            lanes = 16 if p.name.endswith("512") else 8
            assert w.flops == 2 * lanes * 10 * ((1 << 20) * 8 // lanes) and w.exact, p.name


def test_normwise_comparison_scales_by_the_largest_element():
    a = (native.Output("arg0", 3, values=(100.0, 1e-3, -50.0)),)
    b = (native.Output("arg0", 3, values=(100.0, 1.1e-3, -50.0)),)  # a cancelled sum moved by 1e-4
    assert native.compare_outputs(a, b, rtol=1e-5) is not None  # 10% of that element
    assert native.compare_outputs(a, b, rtol=1e-5, normwise=True) is None  # 1e-6 of the output's scale
    c = (native.Output("arg0", 3, values=(100.0, 1e-3, -50.01)),)
    assert native.compare_outputs(a, c, rtol=1e-5, normwise=True) is not None


def test_paired_runs_both_variants_with_their_own_globals():
    """benchmarks/paired.py: both variants define a private global @g of another value; the
    output after the run is B's (B is called last in each pair), each list has one time per pair."""
    import paired

    variant = """
memref.global "private" constant @g : memref<4xf32> = dense<{v}>
func.func @k(%out: memref<4xf32>) {{
  %g = memref.get_global @g : memref<4xf32>
  affine.for %i = 0 to 4 {{
    %x = affine.load %g[%i] : memref<4xf32>
    affine.store %x, %out[%i] : memref<4xf32>
  }}
  return
}}"""
    a, b = variant.format(v="1.0"), variant.format(v="2.0")
    text = paired.paired_module(a, b, "k", pairs=5)
    assert "@g_A" in text and "@g_B" in text and "@k_A" in text and "@k_B" in text
    sig = native.kernel_signature(text, "paired")
    run = native.run_native(text, "paired", [None] * len(sig.args), reps=1, warmup=0)
    assert list(run.outputs[0].values) == [2.0] * 4
    result = paired.measure(a, b, "k", pairs=5)
    assert len(result["a"]) == len(result["b"]) == 5 and all(t >= 0 for t in result["a"] + result["b"])


def test_huge_pages_are_advised_for_large_buffers_only_and_change_no_output():
    """native.make_harness(huge_pages=True): madvise(MADV_HUGEPAGE) on each argument of 4 MiB or
    more and on the flush buffer, as numpy does for the framework columns' arrays; the outputs
    are those of the harness without it."""
    k = """
func.func @k(%a: memref<1024x1024xf32>, %b: memref<16xf32>) {
  affine.for %i = 0 to 1024 {
    affine.for %j = 0 to 1024 {
      %x = affine.load %a[%i, %j] : memref<1024x1024xf32>
      %y = arith.mulf %x, %x : f32
      affine.store %y, %a[%i, %j] : memref<1024x1024xf32>
    }
  }
  return
}"""
    text = native.make_harness(k, "k", [None, None], reps=1, flush_bytes=8 << 20, huge_pages=True)
    assert text.count("call @madvise(") == 2  # %a and the flush buffer, not the 64-byte %b
    assert text.count(f"alignment = {native.HUGE_PAGE_ALIGNMENT}") == 2
    assert "call @madvise(" not in native.make_harness(k, "k", [None, None], reps=1, flush_bytes=8 << 20)
    lowered = native.lower_to_llvm(text)
    with_pages = native.parse_output(native.run_lowered(lowered), native.kernel_signature(k, "k"))[1]
    without = native.run_native(k, "k", [None, None], reps=1, flush_bytes=8 << 20).outputs
    assert native.compare_outputs(with_pages, without) is None


def test_paired_flush_reads_a_buffer_written_at_run_time():
    """--flush-mib: before each of the 2 x pairs timed calls one word of every 64-byte line of the
    buffer is read and summed into the printed sink (a buffer LLVM can see the contents of, a
    constant global, had its loads folded away: the flushed times were the warm ones)."""
    import paired

    k = """
func.func @k(%out: memref<4xf32>) {
  %c = arith.constant 1.0 : f32
  affine.for %i = 0 to 4 {
    affine.store %c, %out[%i] : memref<4xf32>
  }
  return
}"""
    text = paired.paired_module(k, k, "k", pairs=3, flush_words=64)
    assert "constant" not in text.split("@paired")[1].split("return")[0].replace("arith.constant", "")
    result = paired.measure(k, k, "k", pairs=3, flush_mib=1)
    words = (1 << 20) // 8
    assert result["flush_sum"] == 2 * 3 * sum(range(0, words, 8))


def test_paired_keeps_each_variants_resource_blobs_apart():
    """Both variants built from one model name their `dense_resource` blobs alike: each keeps its
    own, renamed, in one trailer (the bindings' printer writes blobs after the module)."""
    import paired

    def variant(x: float) -> str:
        blob = "0x04000000" + struct.pack("<4f", x, x, x, x).hex().upper()
        return (f"""module {{
  memref.global "private" constant @w : memref<4xf32> = dense_resource<w_blob>
  func.func @k(%out: memref<4xf32>) {{
    %g = memref.get_global @w : memref<4xf32>
    affine.for %i = 0 to 4 {{
      %x = affine.load %g[%i] : memref<4xf32>
      affine.store %x, %out[%i] : memref<4xf32>
    }}
    return
  }}
}}
{{-#
  dialect_resources: {{
    builtin: {{
      w_blob: "{blob}"
    }}
  }}
#-}}
""")

    text = paired.paired_module(variant(1.0), variant(3.0), "k", pairs=3)
    assert "dense_resource<w_blob_A>" in text and "dense_resource<w_blob_B>" in text
    sig = native.kernel_signature(text, "paired")
    run = native.run_native(text, "paired", [None] * len(sig.args), reps=1, warmup=0)
    assert list(run.outputs[0].values) == [3.0] * 4  # B's blob, B called last


def test_readme_roofline_line():
    """report.roofline_lines: loopopt's share of the peak on a program of one FLOP per byte or
    more, and the range of its share of the bandwidth on the memory-bound chains."""
    import report

    bench = _bench({"peak": ((1, 1), (1, 1)), "copy": ((2, 2), (2, 2)), "gemm": ((40, 40), (4, 4)),
                    "chain": ((10, 10), (2, 2))})
    peak, copy, gemm, chain = bench["programs"]
    peak.update(tags=["peak"], flops=100e6)  # 100 GFLOP/s at the best 1 ms
    copy.update(tags=["bandwidth"], read_bytes=10e6, written_bytes=10e6)  # 10 GB/s at 2 ms
    gemm.update(flops=200e6, read_bytes=1e6)  # loopopt 4 ms: 50 GFLOP/s, 50% of the peak
    chain.update(tags=["memory"], read_bytes=12e6, written_bytes=4e6)  # loopopt 2 ms: 8 GB/s, 80%
    (line,) = report.roofline_lines(bench)
    assert "peak 100.0 GFLOP/s" in line and "bandwidth 10.0 GB/s" in line
    assert "gemm 50.0 GFLOP/s (50%)" in line and "1 memory-bound chains at 80-80%" in line
    measured = line.split("compulsory byte ")[1]  # the machine's own kernels are not listed
    assert measured.startswith("gemm 50.0") and "copy" not in measured and "peak" not in measured


# A temporary of 256 KiB (above glibc's first mmap threshold) written and read back reversed, and a
# small one allocated in every iteration of a loop: out[i] = a[65535 - i]^2 + 1.
TEMPS = """
func.func @k(%a: memref<65536xf32>, %out: memref<65536xf32>) {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() {alignment = 64 : i64} : memref<65536xf32>
  affine.for %i = 0 to 65536 {
    %x = affine.load %a[%i] : memref<65536xf32>
    %y = arith.mulf %x, %x : f32
    affine.store %y, %t[%i] : memref<65536xf32>
  }
  affine.for %i = 0 to 256 {
    %s = memref.alloc() : memref<256xf32>
    affine.for %j = 0 to 256 {
      %x = affine.load %t[65535 - (%i * 256 + %j)] : memref<65536xf32>
      %y = arith.addf %x, %one : f32
      affine.store %y, %s[%j] : memref<256xf32>
    }
    affine.for %j = 0 to 256 {
      %y = affine.load %s[%j] : memref<256xf32>
      affine.store %y, %out[%i * 256 + %j] : memref<65536xf32>
    }
    memref.dealloc %s : memref<256xf32>
  }
  memref.dealloc %t : memref<65536xf32>
  return
}"""


def test_the_cache_temporaries_give_the_same_results_and_reuse_blocks_across_calls():
    """temporaries="cache": memref.alloc/dealloc lowered as loopopt.compile's libraries lower them
    and served by the allocator library built from the same C (runtime/alloc.py). The outputs are
    malloc's, bit for bit, and numpy's; between the warm-up call and the end of the timed calls no
    block is taken from malloc (the 256 KiB temporary and the loop's small one are the cache's
    blocks again) and none is left handed out (the blocks live after the timed calls are the
    harness's own arguments and times)."""
    from loopopt.runtime import alloc

    malloc = native.run_native(TEMPS, "k", [None, None], reps=3, warmup=1)
    cached = native.run_native(TEMPS, "k", [None, None], reps=7, warmup=1, temporaries="cache")
    assert malloc.temporaries is None
    assert native.compare_outputs(malloc.outputs, cached.outputs) is None
    a = np.array([native_fill(i, 0) for i in range(65536)], dtype=np.float32)
    want = (a[::-1] * a[::-1] + np.float32(1)).astype(np.float64)
    assert cached.outputs[1].checksum[0] == pytest.approx(float(want.sum()), rel=1e-9)
    warm, end = cached.temporaries["warm"], cached.temporaries["end"]
    assert end["mallocs"] == warm["mallocs"], cached.temporaries  # 7 calls, no malloc: blocks reused
    assert end["live_bytes"] == warm["live_bytes"] and end["live_blocks"] == warm["live_blocks"] == 3  # a, out, times
    assert end["cached_blocks"] == 2 and end["cached_bytes"] >= 65536 * 4 + 256 * 4  # the two temporaries
    assert end["cached_bytes"] <= alloc.LIMIT_BYTES
    text = native.make_harness(TEMPS, "k", [None, None], reps=1, temporaries="cache")
    lowered = native.lower_to_llvm(text, temporaries="cache")
    assert native.uses_allocator(lowered) and "@malloc(" not in lowered
    assert not native.uses_allocator(native.lower_to_llvm(native.make_harness(TEMPS, "k", [None, None], reps=1)))


def native_fill(i: int, k: int) -> float:
    """Element i of argument k as the harness fills a float argument."""
    return float(np.float32(((7 * i + 131 * k + 3) % native.FILL_MODULUS) * 2.0 / native.FILL_MODULUS - 1.0))


def test_the_cache_temporaries_under_paired_and_a_flush():
    """paired.py (default --temporaries cache) runs both variants on the allocator library, and a
    flushed harness run too; a bad value is one line."""
    import paired

    result = paired.measure(TEMPS, TEMPS, "k", pairs=3, flush_mib=1)
    assert len(result["ratios"]) == 3 and result["flush_sum"] == 2 * 3 * sum(range(0, (1 << 20) // 8, 8))
    run = native.run_native(TEMPS, "k", [None, None], reps=2, flush_bytes=1 << 20, temporaries="cache")
    assert run.temporaries["end"]["mallocs"] == run.temporaries["warm"]["mallocs"]
    with pytest.raises(native.NativeError, match="temporaries must be one of malloc, cache, not 'mmap'"):
        native.run_native(TEMPS, "k", [None, None], temporaries="mmap")
