"""The host's facts the cpu code generator plans with: its widest vector registers, whether its
libm computes `expf` by the algorithm math/exact_math.py emits, the sizes of its data caches, and
its FMA pipes. They decide the defaults of `--vector-bits`, `--exact-math`, `--cache-sizes` and
`--fma-pipes` (pipeline.resolve_options)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ...options import FALLBACK_CACHE_SIZES, FALLBACK_FMA_PIPES
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


# ----------------------------------------------------------------------------- caches

KIB = 1024
MIB = 1024 * KIB
SYSFS_CACHES = "/sys/devices/system/cpu/cpu0/cache"


@dataclass(frozen=True)
class CacheSizes:
    """The data caches one core of the host may use, in bytes: L1 data, L2, and its share of
    L3 (the L3's size over the CPUs sysfs says share it), and where the figures come from
    (`sysfs`, `fallback`, or `given`: --cache-sizes)."""

    l1: int
    l2: int
    l3: int
    source: str = "given"

    def describe(self) -> str:
        return f"L1 {_size_text(self.l1)}, L2 {_size_text(self.l2)}, L3 {_size_text(self.l3)} ({self.source})"


# When sysfs says nothing (another OS, a container without /sys): options.FALLBACK_CACHE_SIZES.
FALLBACK_CACHES = CacheSizes(*FALLBACK_CACHE_SIZES, "fallback")


def _size_text(n: int) -> str:
    for unit, scale in (("M", MIB), ("K", KIB)):
        if n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def parse_size(text: str) -> int:
    """`48K`, `2M`, `2048` (bytes) as bytes; ValueError with a one-line message otherwise."""
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    scale = {"K": KIB, "M": MIB, "G": 1024 * MIB}.get(t[-1:], 1)
    digits = t[:-1] if scale > 1 else t
    if not (digits.isascii() and digits.isdigit()) or int(digits) <= 0:
        raise ValueError(f"a cache size must be a positive number of bytes, K or M (e.g. 48K), got {text!r}")
    return int(digits) * scale


def _cpu_count(cpu_list: str) -> int:
    """CPUs in a sysfs list such as `0-3,8`."""
    n = 0
    for part in cpu_list.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        n += int(hi or lo) - int(lo) + 1
    return max(1, n)


def host_cache_sizes(root: str = SYSFS_CACHES) -> CacheSizes:
    """The caches of the CPU this process runs on, from sysfs (`index*/{level,type,size,
    shared_cpu_list}` under `root`): the data or unified cache of each level, the L3's size
    divided by the CPUs sharing it. A level sysfs does not list takes FALLBACK_CACHES' figure
    (an L3 absent: the L2's size); nothing readable at all: FALLBACK_CACHES."""
    import glob
    import os

    def read(d: str, name: str) -> str:
        with open(os.path.join(d, name)) as f:
            return f.read()

    found: dict[int, int] = {}
    for d in sorted(glob.glob(os.path.join(root, "index*"))):
        try:
            level = int(read(d, "level"))
            kind = read(d, "type").strip()
            size = parse_size(read(d, "size"))
            try:
                sharing = _cpu_count(read(d, "shared_cpu_list"))
            except OSError:
                sharing = 1
        except (OSError, ValueError):
            continue
        if kind not in ("Data", "Unified"):
            continue
        found[level] = size // sharing if level >= 3 else size
    if not found:
        return FALLBACK_CACHES
    l1 = found.get(1, FALLBACK_CACHES.l1)
    l2 = found.get(2, FALLBACK_CACHES.l2)
    return CacheSizes(l1, l2, found.get(3, l2), "sysfs")


_HOST_CACHES: list[CacheSizes] = []


def default_cache_sizes() -> tuple[int, int, int]:
    """The (L1, L2, L3 share) bytes the cpu plan uses when --cache-sizes is not given: the host's
    (sysfs read once per process)."""
    if not _HOST_CACHES:
        _HOST_CACHES.append(host_cache_sizes())
    c = _HOST_CACHES[0]
    return c.l1, c.l2, c.l3


# ----------------------------------------------------------------------------- FMA pipes


@dataclass(frozen=True)
class FmaPipes:
    """The FMA pipes of one core: how many, the bits each holds, the cycles from an FMA to its
    result. A vector wider than a pipe takes pipe_bits-wide pieces of several (Zen 4 runs a zmm FMA
    on both 256-bit pipes: one per cycle), so a core keeps `chains(bits)` independent FMAs of
    `bits` in flight: latency x the FMAs it starts per cycle."""

    pipes: int
    pipe_bits: int
    latency: int

    def chains(self, bits: int) -> int:
        per_cycle = self.pipes * self.pipe_bits / max(bits, self.pipe_bits)
        return max(1, math.ceil(self.latency * per_cycle))


# Microarchitecture facts, by /proc/cpuinfo's (vendor, family): AMD's Software Optimization Guide
# for family 19h (Zen 3, Zen 4), section 2.11 "Floating-Point Unit": two FMA pipes (FP0, FP1) of
# 256 bits, an FMA's latency 4 cycles; Zen 4 splits a 512-bit op over both halves (one zmm FMA
# per cycle). Family 17h (Zen 1, Zen 2): two FMA pipes, 5 cycles (the same guide for family 17h).
KNOWN_FMA_PIPES = {
    ("AuthenticAMD", 25): FmaPipes(2, 256, 4),
    ("AuthenticAMD", 23): FmaPipes(2, 256, 5),
}


def host_fma_pipes(cpuinfo: str | None = None) -> FmaPipes:
    """The FMA pipes of this machine's CPU: KNOWN_FMA_PIPES by /proc/cpuinfo's vendor and family
    (`cpuinfo`: its text, for tests); any other CPU: two pipes as wide as its widest vector
    registers, 4 cycles (Intel's optimization reference manual: ports 0 and 1 since Skylake, the
    server parts' port 5 fused with them for 512 bits), FALLBACK_FMA_PIPES' pipes and latency."""
    if cpuinfo is None:
        try:
            with open("/proc/cpuinfo") as f:
                cpuinfo = f.read()
        except OSError:
            return FmaPipes(*FALLBACK_FMA_PIPES)
    vendor, family = "", -1
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "vendor_id" and not vendor:
            vendor = value.strip()
        elif key.strip() == "cpu family" and family < 0 and value.strip().isdigit():
            family = int(value.strip())
    known = KNOWN_FMA_PIPES.get((vendor, family))
    if known is not None:
        return known
    pipes, _, latency = FALLBACK_FMA_PIPES
    return FmaPipes(pipes, host_vector_bits(cpuinfo), latency)


_HOST_FMA: list[FmaPipes] = []


def default_fma_pipes() -> tuple[int, int, int]:
    """The (pipes, bits per pipe, latency) the cpu plan uses when --fma-pipes is not given: the
    host's (/proc/cpuinfo read once per process)."""
    if not _HOST_FMA:
        _HOST_FMA.append(host_fma_pipes())
    f = _HOST_FMA[0]
    return f.pipes, f.pipe_bits, f.latency
