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
