"""One options object carrying the seed's knobs, built from the CLI flags."""
from __future__ import annotations

from dataclasses import dataclass, field


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
    # cpu code generation (issue 24, docs/cpu_codegen.md). The three numeric switches default to None:
    # off for affine input (every result stays bit-exact), on for a program a framework emitted
    # (lowered by the front end: torch reassociates its reductions and uses ~1-ulp vector math);
    # an explicit True/False always wins (`resolved`).
    approximate_math: bool | None = None  # math.exp/log/tanh/erf in vectorizable loops become polynomials (<= 1 ulp)
    reassociate: bool | None = None  # float sum/product reductions may be reordered into vector partial sums
    # vector register width the cpu plan assumes. None until `resolved`: the host's widest registers
    # (the cpu target is the machine loopopt runs on, as IREE's target-cpu=host and torch's AVX-512
    # kernels are); --vector-bits 256 plans for any AVX2 core
    vector_bits: int | None = None
    # math.exp on f32 computed by libm's own algorithm in vectorizable ops (bit-exact: the host's
    # `expf` bits). None until `resolved`: on where the host's expf is checked to be that algorithm
    exact_math: bool | None = None
    contract: bool | None = None  # a float multiply feeding an add may become one fused multiply-add (one rounding, not two)
    # the front end (loopopt/frontend/, docs/frontend.md): linalg/tensor, StableHLO and torch-dialect
    # input is recognised and lowered to affine loops before the pass
    lower: bool = True  # False (--no-lowering): take the input as it is, unsupported ops stay barriers
    lowering_pipeline: str = ""  # --lowering PIPELINE: replaces the built pipeline ("" = the built one)
    elementwise_fusion: bool = False  # --elementwise-fusion: linalg-fuse-elementwise-ops on tensors first

    def resolved(self, framework_input: bool) -> "Options":
        """These options with every per-input default (None) decided: on for a program a framework
        emitted (lowered by the front end), off for affine input."""
        from dataclasses import replace

        unset = {name: framework_input for name in PER_INPUT_SWITCHES if getattr(self, name) is None}
        if self.vector_bits is None:
            unset["vector_bits"] = default_vector_bits(framework_input)
        if self.exact_math is None:  # the host check (~50 ms) only where it is used: the cpu target
            unset["exact_math"] = not self.target.partitioned and default_exact_math()
        return replace(self, **unset) if unset else self

    @property
    def plan_vector_bits(self) -> int:
        """The width the cpu plan uses: `vector_bits`, or the affine default before `resolved`."""
        return self.vector_bits or PORTABLE_VECTOR_BITS

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

# Switches whose default depends on the input (Options.resolved): None until the input is known.
PER_INPUT_SWITCHES = ("approximate_math", "reassociate", "contract")

# AVX2's width, which runs well on any x86-64 core of the last decade: the plan's width before the
# input is resolved, and what `--vector-bits 256` asks for.
PORTABLE_VECTOR_BITS = 256
VECTOR_WIDTHS = (128, 256, 512)  # the widths a plan may assume (--vector-bits; `host` is one of them)


def default_vector_bits(framework_input: bool) -> int:
    """The plan's width when none is asked for, for any input: the host's widest registers (as
    `-march=native`). The output stays correct on any core: LLVM splits vectors wider than the
    machine's registers. Measured (benchmarks/results/results.md, loopopt-wide): the 512-bit plan is
    as fast or faster on every benchmark program of this AVX-512 core, 2x on mm2."""
    del framework_input  # one default for affine and framework input
    from .analysis.roofline import host_vector_bits

    return host_vector_bits()


def default_exact_math() -> bool:
    """On where the host's libm `expf` gives the bits of the algorithm codegen/cpu/math/exact_math.py
    emits (codegen/cpu/math/libm.py checks it against a model on 2,000+ inputs, once per process)."""
    from .codegen.cpu.math.libm import host_expf

    return host_expf().matches


INT_KNOB_MAX = 2 ** 31 - 1  # the seed's knobs are 32-bit cl::opt values
KNOB_RANGES: dict[str, tuple[int, int]] = {
    "distance_threshold": (0, INT_KNOB_MAX),
    "sb_size": (0, INT_KNOB_MAX),  # 0: the target's figure
    "psum_size": (0, INT_KNOB_MAX),
}
KNOB_FLAGS = {"distance_threshold": "--loop-opt-distance-threshold", "sb_size": "--loop-opt-sb-size",
              "psum_size": "--loop-opt-psum-size", "enable_loop_distribution": "--enable-loop-distribution",
              "enable_profitable_loop_fusion": "--enable-profitable-loop-fusion", "enable_licm": "--enable-licm"}
TILE_SIZE_RANGE = (2, INT_KNOB_MAX)
# Passes of --passes that take an argument (`name=arg`); every other pass takes none.
PASS_ARGUMENTS = {"tile": "a tile size N", "interchange": "a permutation P such as 1:0"}
# A pipeline may not name a pass its switch turns off: (step name, Options field, flag).
PASS_SWITCHES = (("licm", "enable_licm", "--enable-licm"),
                 ("distribute", "enable_loop_distribution", "--enable-loop-distribution"))


def knob_range_error(name: str, value: int, label: str) -> str | None:
    """The one-line complaint about an integer knob outside KNOB_RANGES, or None."""
    lo, hi = KNOB_RANGES.get(name, (0, INT_KNOB_MAX))
    if lo <= value <= hi:
        return None
    return f"{label} must be an integer from {lo} to {hi}, got {value}"


def parse_passes(spec) -> list[str]:
    """An explicit pipeline, `"fuse,licm"` or `["fuse", "licm"]`, as its list of `name[=arg]`
    elements, checked: at least one pass, no empty element, known names (the driver's table),
    an argument only where PASS_ARGUMENTS says so, and a tile size in TILE_SIZE_RANGE. Raises
    UsageError with one line; never looks at IR."""
    from .errors import UsageError

    if isinstance(spec, str):
        text, parts = spec, spec.split(",")
    elif isinstance(spec, (list, tuple)) and all(isinstance(p, str) for p in spec):
        text, parts = ",".join(spec), list(spec)
    else:
        raise TypeError(f"loopopt: passes must be a string like 'fuse,licm' or a list of pass names, "
                        f"not {type(spec).__name__}")
    parts = [p.strip() for p in parts]
    if not any(parts):
        raise UsageError(f"loopopt: error: --passes {text!r}: empty pipeline; name at least one pass "
                         "(e.g. fuse,licm)")
    out = []
    for k, part in enumerate(parts, 1):
        if not part:
            raise UsageError(f"loopopt: error: --passes {text!r}: empty pass name at position {k}")
        name, eq, arg = (s.strip() for s in part.partition("="))
        if eq and name not in PASS_ARGUMENTS:
            raise UsageError(f"loopopt: error: --passes {text!r}: pass '{name}' takes no argument "
                             f"(got '{part}')")
        if name == "tile":
            lo, hi = TILE_SIZE_RANGE
            if not (arg.isascii() and arg.isdigit() and lo <= int(arg) <= hi):
                raise UsageError(f"loopopt: error: --passes tile={arg or '?'}: the tile size must be an "
                                 f"integer >= {lo} and <= {hi}")
        out.append(f"{name}={arg}" if eq else name)
    _driver_steps(out)  # unknown names and bad permutations
    return out


def _driver_steps(passes: list[str]) -> list:
    """The driver's steps for `passes` (its table knows the names and checks the arguments)."""
    from . import driver
    from .errors import LoopOptError, UsageError

    try:
        return driver._pipeline_steps(passes)
    except UsageError:
        raise
    except LoopOptError as e:
        raise UsageError(str(e)) from None


def pipeline_conflict(options: "Options", passes: list[str] | None) -> str | None:
    """The complaint when an explicit pipeline names a pass its switch turns off, else None."""
    if passes is None:
        return None
    for p in passes:
        steps = _driver_steps([p])
        for switched, field_name, flag in PASS_SWITCHES:
            if steps and steps[0][0] == switched and not getattr(options, field_name):
                return f"loopopt: error: {flag} false conflicts with --passes naming '{p}'; drop one of them"
    return None
