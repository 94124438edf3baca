"""One options object carrying the seed's knobs, built from the CLI flags."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


@dataclass(frozen=True)
class Target:
    """Per-partition on-chip budgets of one target (bytes); partitions=0 means unpartitioned."""

    name: str
    partitions: int
    sbuf_bytes_per_partition: int
    psum_bytes_per_partition: int

    @property
    def partitioned(self) -> bool:
        return self.partitions > 0

    @property
    def kind(self) -> str:
        """"neuron" (a partitioned NeuronCore: the seed's rules) or "cpu" (loopopt/pipeline.py)."""
        return "neuron" if self.partitioned else "cpu"


KIB = 1024
# AWS Neuron NKI architecture guides: trn1/inf2 (NeuronCore-v2) and trn2 (NeuronCore-v3) have
# 128 SBUF partitions; SBUF is 24 MiB (192 KiB per partition) and PSUM 2 MiB (16 KiB per partition).
TARGETS: dict[str, Target] = {
    "trn1": Target("trn1", 128, 192 * KIB, 16 * KIB),
    "inf2": Target("inf2", 128, 192 * KIB, 16 * KIB),
    "trn2": Target("trn2", 128, 192 * KIB, 16 * KIB),
    # A CPU has no partition dimension; its "SBUF" is a per-core L2-sized working set.
    "cpu": Target("cpu", 0, 2048 * KIB, 0),
}
DEFAULT_TARGET = "trn1"


def switch(help: str, per_input: bool = False, default: bool | None = None):
    """An Options field that is a `--flag [BOOL]` switch: None (the default) until decided by the
    input or the host (`Options.resolved`); `per_input`: on for framework input, off for affine."""
    return field(default=default, metadata={"type": bool, "help": help, "switch": True, "per_input": per_input})


@dataclass(frozen=True)
class Options:
    """The seed's cl::opt knobs (names follow `printParams`) plus loopopt's own switches."""

    target: Target = field(default_factory=lambda: TARGETS[DEFAULT_TARGET])
    distance_threshold: int = 8  # loop-opt-distance-threshold
    sb_size: int = 0  # loop-opt-sb-size; 0 => target's figure
    psum_size: int = 0  # loop-opt-psum-size; 0 => target's figure
    enable_loop_distribution: bool = True
    enable_profitable_loop_fusion: bool = True
    enable_licm: bool = True
    verify_each: bool = True  # verify after every transform step; roll back on failure
    # cpu code generation (issue 24, docs/cpu_codegen.md). The numeric switches default to None:
    # off for affine input (every result stays bit-exact), on for a program a framework emitted
    # (lowered by the front end: torch reassociates its reductions and uses ~1-ulp vector math);
    # an explicit True/False always wins (`resolved`). Each switch is declared here once: its flag
    # (`flag_of`), help and type are read by the CLI and the API (`SWITCHES`).
    approximate_math: bool | None = switch(
        "cpu: exp/log/log1p/tanh/erf as polynomials within 1 ulp (log1p 2) (default: on for lowered framework input, off for "
        "affine input)", per_input=True)
    reassociate: bool | None = switch(
        "cpu: float reductions may be reordered into vector partial sums (default as above)", per_input=True)
    # vector register width the cpu plan assumes. None until `resolved`: the host's widest registers
    # (the cpu target is the machine loopopt runs on, as IREE's target-cpu=host and torch's AVX-512
    # kernels are); --vector-bits 256 plans for any AVX2 core
    vector_bits: int | None = field(default=None, metadata={"type": int})
    # math.exp on f32 computed by libm's own algorithm in vectorizable ops (bit-exact: the host's
    # `expf` bits). None until `resolved`: on where the host's expf is checked to be that algorithm
    exact_math: bool | None = switch(
        "cpu: math.exp on f32 computed by libm's own algorithm in vector lanes, bit-exact (default: on where the "
        "host's expf is checked to be glibc's)")
    contract: bool | None = switch(
        "cpu: a float multiply feeding an add may become one fused multiply-add (default as above)", per_input=True)
    # (L1 data, L2, L3 share) bytes the cpu plan's cache tiling assumes for one core. None until
    # `resolved`: the host's caches (codegen/cpu/host.py, from sysfs); --cache-sizes 48K,2M,8M
    cache_sizes: tuple[int, int, int] | None = field(default=None, metadata={"type": tuple})
    # (FMA pipes, bits each pipe holds, FMA latency in cycles) of one core: how many independent
    # accumulator chains keep its FMA pipes busy (docs/cpu_codegen.md section 44). None until
    # `resolved`: the host's (codegen/cpu/host.py, a documented microarchitecture fact);
    # --fma-pipes 2x256x4
    fma_pipes: tuple[int, int, int] | None = field(default=None, metadata={"type": tuple})
    # a strided operand copied before its product (codegen/cpu/plan/strided_packing.py) may hold at
    # most this many times the elements it reads: an overlapping kernel copies each element
    # KH x KW / (stride x stride) times (a 5x5 kernel of stride 3: 2.8), a non-overlapping one once;
    # 0: none is packed (an API knob, loopopt.optimize(..., strided_pack_growth=N))
    strided_pack_growth: int = 4
    # an operand that every loop around its nest moves (a depthwise convolution) and that moves by at
    # least this many elements along the register tile's lanes loop is copied de-interleaved by its
    # residue mod the stride (codegen/cpu/plan/deinterleave.py, docs/cpu_codegen.md section 35);
    # 2: stride 2 too, where the copy moves fewer vector ops than the tile (TRAFFIC, section 48); 3: stride 2 left to
    # the tile's two loads and a shuffle; 0: none is (an API knob, loopopt.optimize(..., deinterleave_min_stride=N))
    deinterleave_min_stride: int = 2
    # vectors per block of a window-free sweep whose body is a long chain of ops (codegen/cpu/plan/
    # sweep_vectors.py, docs/cpu_codegen.md section 74): that many chains overlap; 1: such loops are
    # left to LLVM's vectorizer (an API knob, loopopt.optimize(..., sweep_interleave=N))
    sweep_interleave: int = 4
    # bits of one vector of a sweep's window blocks (codegen/cpu/plan/sweep_vectors.py, docs/cpu_codegen.md
    # section 82), whatever the register width: 512 (16 f32 lanes: two registers of an AVX2 core) measured
    # faster than one register on AVX2 and AVX-512 cores (an API knob, loopopt.optimize(..., sweep_window_bits=N))
    sweep_window_bits: int = 512
    # the front end (loopopt/frontend/, docs/frontend.md): linalg/tensor, StableHLO and torch-dialect
    # input is recognised and lowered to affine loops before the pass
    lower: bool = True  # False (--no-lowering): take the input as it is, unsupported ops stay barriers
    lowering_pipeline: str = ""  # --lowering PIPELINE: replaces the built pipeline ("" = the built one)
    elementwise_fusion: bool = switch("fuse linalg elementwise ops on tensors before lowering (default false)",
                                      default=False)

    def resolved(self, framework_input: bool, vector_bits: Callable[[bool], int],
                 exact_math: Callable[[], bool],
                 cache_sizes: Callable[[], tuple[int, int, int]] | None = None,
                 fma_pipes: Callable[[], tuple[int, int, int]] | None = None) -> "Options":
        """These options with every per-input default (None) decided: on for a program a framework
        emitted (lowered by the front end), off for affine input; the vector width and exact math
        from the host (`vector_bits(framework_input)`, `exact_math()`: codegen/cpu/host.py), asked
        only when unset, and exact math only on the cpu target (its check costs ~50 ms); the cache
        sizes from `cache_sizes()` and the FMA pipes from `fma_pipes()` (the host's) on the cpu
        target when unset."""
        from dataclasses import replace

        unset = {name: framework_input for name in PER_INPUT_SWITCHES if getattr(self, name) is None}
        if self.vector_bits is None:
            unset["vector_bits"] = vector_bits(framework_input)
        if self.exact_math is None:
            unset["exact_math"] = not self.target.partitioned and exact_math()
        if self.cache_sizes is None and cache_sizes is not None and not self.target.partitioned:
            unset["cache_sizes"] = tuple(cache_sizes())
        if self.fma_pipes is None and fma_pipes is not None and not self.target.partitioned:
            unset["fma_pipes"] = tuple(fma_pipes())
        return replace(self, **unset) if unset else self

    @property
    def plan_vector_bits(self) -> int:
        """The width the cpu plan uses: `vector_bits`, or the affine default before `resolved`."""
        return self.vector_bits or PORTABLE_VECTOR_BITS

    @property
    def plan_cache_sizes(self) -> tuple[int, int, int]:
        """The (L1, L2, L3 share) bytes the cpu plan uses: `cache_sizes`, or FALLBACK_CACHE_SIZES
        before `resolved` (the same on every machine)."""
        return self.cache_sizes or FALLBACK_CACHE_SIZES

    @property
    def plan_fma_pipes(self) -> tuple[int, int, int]:
        """The (pipes, bits per pipe, latency) the cpu plan uses: `fma_pipes`, or FALLBACK_FMA_PIPES
        before `resolved` (the same on every machine)."""
        return self.fma_pipes or FALLBACK_FMA_PIPES

    @property
    def sb_budget(self) -> int:
        """SBSize resolved as the seed's run(): 0 means the target default."""
        return self.sb_size or self.target.sbuf_bytes_per_partition

    @property
    def psum_budget(self) -> int:
        return self.psum_size or self.target.psum_bytes_per_partition

    def params_text(self) -> str:
        """The seed's printParams() line."""
        return (
            f"distanceThreshold = {self.distance_threshold} SBSize = {self.sb_budget} "
            f"PSUMSize = {self.psum_budget} enableLoopDistribution = {int(self.enable_loop_distribution)} "
            f"enableProfitableLoopFusion = {int(self.enable_profitable_loop_fusion)}"
        )


# ---------------------------------------------------------------------------------------
# Ranges and conflicts, checked before any input is read (the CLI) or any IR is touched (the API).

def _fields() -> tuple:
    from dataclasses import fields

    return fields(Options)


# The `--flag [BOOL]` switches, in declaration order, and those whose default follows the input
# (Options.resolved): None until the input is known.
SWITCHES = tuple(f for f in _fields() if f.metadata.get("switch"))
PER_INPUT_SWITCHES = tuple(f.name for f in SWITCHES if f.metadata["per_input"])


def knob_type(name: str) -> type:
    """The type an Options field's value must have: the declared one (bool for the switches, int
    for vector_bits, whose default None means "decided by the input or the host"), else its
    default's."""
    f = next(f for f in _fields() if f.name == name)
    return f.metadata.get("type") or type(getattr(Options(), name))

# AVX2's width, which runs well on any x86-64 core of the last decade: the plan's width before the
# input is resolved, and what `--vector-bits 256` asks for.
PORTABLE_VECTOR_BITS = 256
VECTOR_WIDTHS = (128, 256, 512)  # the widths a plan may assume (--vector-bits; `host` is one of them)
# The caches the cpu plan assumes where the host's are unknown (no sysfs) or not asked (options not
# resolved): a current x86 server core's 48 KiB L1 data cache, the cpu target's 2 MiB L2 (its
# SBSize figure) and a 2 MiB share of L3.
FALLBACK_CACHE_SIZES = (48 * KIB, 2048 * KIB, 2048 * KIB)
# The FMA pipes the cpu plan assumes where the host's are unknown or not asked: two pipes of 256
# bits, 4 cycles from an FMA to its result (x86 since Haswell/Skylake and Zen 3/4: Intel's
# optimization reference manual, AMD's software optimization guide for family 19h).
FALLBACK_FMA_PIPES = (2, 256, 4)


INT_KNOB_MAX = 2 ** 31 - 1  # the seed's knobs are 32-bit cl::opt values
KNOB_RANGES: dict[str, tuple[int, int]] = {
    "distance_threshold": (0, INT_KNOB_MAX),
    "sb_size": (0, INT_KNOB_MAX),  # 0: the target's figure
    "psum_size": (0, INT_KNOB_MAX),
}
KNOB_FLAGS = {"distance_threshold": "--loop-opt-distance-threshold", "sb_size": "--loop-opt-sb-size",
              "psum_size": "--loop-opt-psum-size", "enable_loop_distribution": "--enable-loop-distribution",
              "enable_profitable_loop_fusion": "--enable-profitable-loop-fusion", "enable_licm": "--enable-licm"}
def knob_range_error(name: str, value: int, label: str) -> str | None:
    """The one-line complaint about an integer knob outside KNOB_RANGES, or None."""
    lo, hi = KNOB_RANGES.get(name, (0, INT_KNOB_MAX))
    if lo <= value <= hi:
        return None
    return f"{label} must be an integer from {lo} to {hi}, got {value}"


def flag_of(field_name: str) -> str:
    """The command-line flag of an Options field (`enable_licm` -> `--enable-licm`)."""
    return KNOB_FLAGS.get(field_name, "--" + field_name.replace("_", "-"))
