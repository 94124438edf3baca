"""Paired A/B timing: two variants of one kernel called alternately in one mlir-runner process.

This machine switches between two speeds while a process runs (docs/cpu_codegen.md section 13),
so two variants timed in separate processes can differ by up to 1.5x for no reason in the code.
Called alternately in one process, A and B see the same machine state pair by pair, and the
median of the per-pair ratios B/A is what the code changes. Run A against itself to see the
position bias (about 0.98-1.0 here).

    python3 benchmarks/paired.py A.mlir B.mlir KERNEL [--pairs 40] [--flush-mib 0] [--temporaries cache|malloc]

Both files must define @KERNEL with the same signature of static memref arguments (sizes from
the types). Private globals and the kernel are renamed per variant (`_A`, `_B`); the kernel's
arguments are allocated and filled once by the native harness (loopopt/native.py), then each
pair calls A and B (each once untimed first), optionally reading --flush-mib MiB before each call
(one word of every 64-byte line of a buffer written at run time, as the native harness does).
Temporaries (`memref.alloc` left in a kernel) are served as loopopt.compile's libraries serve them
(`--temporaries cache`, the default: loopopt.native's allocator library, freed blocks kept and
reused, shared by A and B) or by malloc/free (`--temporaries malloc`, MLIR's default lowering).
Prints one line: each variant's median and best time, and the median (quartiles) of B/A.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.dirname(HERE) not in sys.path:
    sys.path.insert(0, os.path.dirname(HERE))

from loopopt import native  # noqa: E402


def resource_blobs(text: str, suffix: str) -> tuple[str, list[str]]:
    """(`text` without its `{-# ... #-}` trailer, its builtin resource entries), each resource
    renamed by `suffix` in both (two variants built from one model name their blobs alike)."""
    module, trailer = native.split_resources(text.strip() + "\n")
    entries = re.findall(r'^\s*([\w$.-]+): ("0x[0-9A-Fa-f]*")', trailer, re.M)
    for name, _ in sorted(entries, key=lambda e: -len(e[0])):
        module = re.sub(r"dense_resource<" + re.escape(name) + ">", f"dense_resource<{name}{suffix}>", module)
    return module, [f"      {name}{suffix}: {blob}" for name, blob in entries]


def module_body(text: str, kernel: str, suffix: str) -> str:
    """The ops of `text`'s module with @kernel and its private globals renamed by `suffix`; the
    attribute aliases printed before the module (`#map = affine_map<...>`) are written inline, so
    two variants' aliases of one name do not clash. Resource blobs: `resource_blobs`."""
    t = resource_blobs(text, suffix)[0].strip()
    aliases = {}
    while t.startswith("#"):
        line, _, t = t.partition("\n")
        name, _, value = line.partition(" = ")
        aliases[name.strip()] = value.strip()
        t = t.strip()
    for name in sorted(aliases, key=len, reverse=True):
        t = re.sub(re.escape(name) + r"(?![\w$.])", lambda m, v=aliases[name]: v, t)
    inner = t[t.index("{") + 1:t.rindex("}")] if t.startswith("module") else t
    names = set(re.findall(r'memref\.global "private" (?:constant )?@([\w$.]+)', inner)) | {kernel}
    for name in sorted(names, key=len, reverse=True):
        inner = re.sub(r"@" + re.escape(name) + r"\b", "@" + name + suffix, inner)
    return inner


def _flush_lines(flush: int, tag: str) -> list[str]:
    """Read one i64 of every 64-byte line of the flush buffer (written once at run time, so the
    loads cannot be folded) and store the sum to %sink, which the harness prints."""
    if not flush:
        return []
    return [f"      %fs{tag} = affine.for %q{tag} = 0 to {flush} step 8 iter_args(%acc{tag} = %zero) -> (i64) {{",
            f"        %fv{tag} = affine.load %fbuf[%q{tag}] : memref<{flush}xi64>",
            f"        %fa{tag} = arith.addi %acc{tag}, %fv{tag} : i64",
            f"        affine.yield %fa{tag} : i64", "      }",
            f"      %fo{tag} = affine.load %sink[0] : memref<1xi64>",
            f"      %fn{tag} = arith.addi %fo{tag}, %fs{tag} : i64",
            f"      affine.store %fn{tag}, %sink[0] : memref<1xi64>"]


def _flush_buffer(flush: int) -> list[str]:
    """The flush buffer, every word written once (unwritten pages all map one shared zero page)."""
    if not flush:
        return []
    return [f"    %fbuf = memref.alloc() {{alignment = 64 : i64}} : memref<{flush}xi64>",
            f"    affine.for %w = 0 to {flush} {{",
            "      %wi = arith.index_cast %w : index to i64",
            f"      affine.store %wi, %fbuf[%w] : memref<{flush}xi64>", "    }"]


def paired_module(a_text: str, b_text: str, kernel: str, pairs: int, flush_words: int = 0) -> str:
    """One module holding both variants and @paired(args..., %sink: memref<1xi64>, %times:
    memref<2 x pairs x f64>); each variant's constant blobs renamed apart (`resource_blobs`) in
    one trailer after it. With flush_words > 0, every timed call is preceded by reading one word
    of every 64-byte line of a buffer of that many i64 (as loopopt.native's harness flushes)."""
    sig = native.kernel_signature(a_text, kernel)
    types = [slot.spec.text for slot in sig.args]
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    args, tys = ", ".join(f"%a{i}" for i in range(len(types))), ", ".join(types)
    call = lambda s: f"      func.call @{kernel}{s}({args}) : ({tys}) -> ()"  # noqa: E731
    lines = ["module {", module_body(a_text, kernel, "_A"), module_body(b_text, kernel, "_B"),
             "  func.func private @rtclock() -> f64",
             f"  func.func @paired({params}, %sink: memref<1xi64>, %times: memref<2x{pairs}xf64>) {{",
             "    %zero = arith.constant 0 : i64", "    affine.store %zero, %sink[0] : memref<1xi64>",
             *_flush_buffer(flush_words),
             call("_A").strip(), call("_B").strip(), f"    affine.for %r = 0 to {pairs} {{",
             *_flush_lines(flush_words, "a"), "      %t0 = func.call @rtclock() : () -> f64", call("_A"),
             "      %t1 = func.call @rtclock() : () -> f64", *_flush_lines(flush_words, "b"),
             "      %t2 = func.call @rtclock() : () -> f64", call("_B"),
             "      %t3 = func.call @rtclock() : () -> f64",
             "      %da = arith.subf %t1, %t0 : f64", "      %db = arith.subf %t3, %t2 : f64",
             f"      affine.store %da, %times[0, %r] : memref<2x{pairs}xf64>",
             f"      affine.store %db, %times[1, %r] : memref<2x{pairs}xf64>", "    }", "    return", "  }", "}"]
    blobs = resource_blobs(a_text, "_A")[1] + resource_blobs(b_text, "_B")[1]
    if blobs:
        lines += ["{-#", "  dialect_resources: {", "    builtin: {", ",\n".join(blobs), "    }", "  }", "#-}"]
    return "\n".join(lines) + "\n"


def measure(a_text: str, b_text: str, kernel: str, pairs: int = 40, flush_mib: int = 0,
            temporaries: str = "cache") -> dict:
    """Run the paired module; returns the two lists of times (s) and the per-pair ratios B/A."""
    text = paired_module(a_text, b_text, kernel, pairs, (flush_mib << 20) // 8)
    sig = native.kernel_signature(text, "paired")
    run = native.run_native(text, "paired", [None] * len(sig.args), reps=1, warmup=0, full_limit=2 * pairs,
                            temporaries=temporaries)
    values = run.outputs[-1].values
    ta, tb = list(values[:pairs]), list(values[pairs:])
    # a pair faster than the clock's resolution has no ratio
    return {"a": ta, "b": tb, "ratios": sorted(b / a for a, b in zip(ta, tb) if a > 0),
            "flush_sum": int(run.outputs[-2].values[0])}


def summary(result: dict) -> str:
    ta, tb, r = result["a"], result["b"], result["ratios"]
    if not r:
        return "every call of A ran below the clock's resolution: no ratio"
    return (f"A median {statistics.median(ta) * 1e3:.3f} ms (best {min(ta) * 1e3:.3f}) | "
            f"B median {statistics.median(tb) * 1e3:.3f} ms (best {min(tb) * 1e3:.3f}) | "
            f"B/A per pair: median {statistics.median(r):.3f} (quartiles {r[len(r) // 4]:.3f}, "
            f"{r[3 * len(r) // 4]:.3f}; {len(r)} pairs)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("kernel")
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--flush-mib", type=int, default=0, help="read this much memory before each timed call")
    ap.add_argument("--temporaries", choices=native.TEMPORARIES, default="cache",
                    help="the kernels' memref.alloc: cache (default; loopopt.compile's allocator, blocks reused) "
                         "or malloc (malloc/free every call)")
    a = ap.parse_args(argv)
    try:
        texts = [open(p).read() for p in (a.a, a.b)]
        print(summary(measure(*texts, a.kernel, a.pairs, a.flush_mib, a.temporaries)))
    except (OSError, native.NativeError, ValueError) as e:
        print(f"paired.py: error: {str(e).splitlines()[0] if str(e) else type(e).__name__}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
