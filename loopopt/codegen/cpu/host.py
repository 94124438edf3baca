"""The host's facts the cpu code generator plans with: its widest vector registers and whether
its libm computes `expf` by the algorithm math/exact_math.py emits. They decide the defaults of
`--vector-bits` and `--exact-math` (pipeline.resolve_options)."""
from __future__ import annotations

from .math.libm import host_expf


def host_vector_bits(cpuinfo: str | None = None) -> int:
    """The widest vector registers of this machine's CPU, which mlir-runner's JIT compiles for
    (it targets the host): 512 with AVX-512F, 256 with AVX2 or AVX, else 128 (SSE2, NEON). From
    /proc/cpuinfo's flags (`cpuinfo`: its text, for tests); 256 when it cannot be read."""
    if cpuinfo is None:
        try:
            with open("/proc/cpuinfo") as f:
                cpuinfo = f.read()
        except OSError:
            return 256
    flags = set()
    for line in cpuinfo.splitlines():
        if line.startswith(("flags", "Features")):
            flags |= set(line.split(":", 1)[-1].split())
    if "avx512f" in flags:
        return 512
    if "avx2" in flags or "avx" in flags:
        return 256
    return 128 if flags else 256


def default_vector_bits(framework_input: bool) -> int:
    """The plan's width when none is asked for, for any input: the host's widest registers (as
    `-march=native`). The output stays correct on any core: LLVM splits vectors wider than the
    machine's registers. Measured (benchmarks/results/results.md, loopopt-wide): the 512-bit plan is
    as fast or faster on every benchmark program of this AVX-512 core, 2x on mm2."""
    del framework_input  # one default for affine and framework input
    return host_vector_bits()


def default_exact_math() -> bool:
    """On where the host's libm `expf` gives the bits of the algorithm codegen/cpu/math/exact_math.py
    emits (codegen/cpu/math/libm.py checks it against a model on 2,000+ inputs, once per process)."""
    return host_expf().matches
