"""A copy that feeds a matrix product stays whole, unfused with the product (cpu; fusion's cost
model; docs/cpu_codegen.md section 64).

torch-mlir writes `nn.Linear`'s W^T, for a weight the function receives, as a copy of the whole
argument with its dimensions permuted (`T[k, n] = W[n, k]`), and the product reads T as its right
operand. The seed's profit counts T twice (its write and its read back), so the greedy fusion
joins the copy with the product: the product's loops are interchanged to put the reduction k
outermost, the copy fused there, T contracted to one row, and product isolation then cuts the
fused loop into strips (of 128 iterations: its 2 MiB budget), each a copy of 128 rows of T and
a product over those 128 reduction iterations. Every strip then loads and stores the whole
output again (the product's sums go through memory once per strip instead of staying in the
register tile's accumulators for the whole reduction), the output's zero fill no longer fuses
with the product, and each strip's copy is over half of L2. Left whole, the copy is read by the
product's own packing (panel layout, `pack-column-blocks`, `transpose-tiles`), which lays T out
as the register tile reads it.

**Rule.** On the cpu, a pair of loops is refused when

* one is a copy nest (`copy_nest`: nothing but loops, loads and stores, every store a whole
  permuted or plain copy `D[g(i)] = S[f(i)]` of one buffer into another,
  `permuted_copies.match_permuted_copy`), and the other reads one of the copy's destinations D as
  an operand of a product (`permuted_copies.product_operand`: the loaded value multiplied by a
  value loaded from another buffer) in a loop that sums into a buffer (`summed_into`: in memory,
  or in iter_args stored after the loop: the product's reduction loop, its output C);
* D exceeds the fusion budget (`Options.sb_budget`): fused, product isolation could not give the
  product the whole copy and would cut the fused loop into strips of the reduction; and
* C exceeds L2 (`Options.plan_cache_sizes`): each strip after the first loads and stores the
  whole output again from beyond L2, where unfused the register tile keeps its sums in
  registers through the whole reduction and stores C once.

A product whose output stays in L2 (Q, K and V of 128 tokens, 384 KiB each; a recurrent cell's
gates of a batch of 32) keeps the fusion: its strips reread C from L2, and pack-column-blocks
makes each strip's copy per column block, so the transposed weight is never written whole.
Refusing a fusion is always legal: both nests run as they were, in their order.
"""
from __future__ import annotations

from dataclasses import dataclass

from .... import mlir
from ....analysis.loops import nested_in, parent_op
from ....analysis.memory import value_name
from ....mlir import ir
from .cpu_plan import memory_reductions
from .permuted_copies import PermutedCopy, match_permuted_copy, product_operand

# what a copy nest may hold besides its copies' loads and stores
COPY_NEST_OPS = ("affine.for", "affine.yield", "affine.load", "affine.store")


@dataclass(frozen=True)
class CopyIntoProduct:
    """`copy` writes the buffer that the product in the consumer nest reads at `read` and sums
    into `output` (its `output_bytes`)."""

    copy: PermutedCopy
    read: ir.Operation
    output: ir.Value
    output_bytes: int

    def text(self, l2: int) -> str:
        """`%x (2816 x 1024) permuted into 1024 x 2816 by the loop at LOC, read as an operand by
        the product at LOC, whose 128 x 2816 output (1408 KiB) exceeds L2 (512 KiB): ...`."""
        src, dst, out = self.copy.source.type, self.copy.dest.type, self.output.type
        how = "permuted" if self.copy.source_loops != self.copy.dest_loops else "copied"
        return (f"{value_name(self.copy.source)} ({_shape(src)}) {how} into {_shape(dst)} "
                f"({copy_bytes(dst) // 1024} KiB) by the loop at {mlir.location_of(self.copy.loops[0])}, read as "
                f"an operand by the product at {mlir.location_of(self.read)}, whose {_shape(out)} output "
                f"({self.output_bytes // 1024} KiB) exceeds L2 ({l2 // 1024} KiB): each strip would load and store "
                "it again")


def _shape(t) -> str:
    return " x ".join(str(d) for d in t.shape)


def copy_bytes(t) -> int | None:
    """Bytes of a statically shaped buffer type, else None."""
    if not isinstance(t, ir.MemRefType) or not t.has_static_shape:
        return None
    n = 1
    for d in t.shape:
        n *= d
    return n * mlir.element_size_bytes(t.element_type)


def copy_nest(loop: ir.Operation) -> list[PermutedCopy] | None:
    """The copies of `loop` when it holds nothing but loops, loads and stores, every store a
    whole copy of one buffer into another (the identity allowed: `match_permuted_copy(..,
    identity=True)`) whose load is the store's alone; else None."""
    stores = []
    for op in mlir.walk(loop):
        if op.name not in COPY_NEST_OPS:
            return None
        if op.name == "affine.store":
            stores.append(op)
    copies = [match_permuted_copy(st, identity=True) for st in stores]
    if not copies or any(c is None for c in copies):
        return None
    return copies


def product_read(dest: ir.Value, nest: ir.Operation, scope) -> tuple[ir.Operation, ir.Value] | None:
    """(a load of `dest` inside `nest` whose value a product multiplies (`product_operand`)
    directly in a loop that sums into a buffer (`summed_into`), that buffer); None if there is
    none."""
    for u in dest.uses:
        op = mlir.operation(u.owner)
        if op.name != "affine.load" or not nested_in(op, nest) or not product_operand(op):
            continue
        out = summed_into(parent_op(op), scope)
        if out is not None:
            return op, out
    return None


def summed_into(loop: ir.Operation | None, scope) -> ir.Value | None:
    """The buffer the reduction `loop` sums into: the store of a sum it keeps in memory
    (`memory_reductions`), or of a value it carries in iter_args, stored after it; else None."""
    if loop is None or loop.name != "affine.for":
        return None
    sums = memory_reductions(loop, scope)
    if sums:
        return sums[0].store.operands[1]
    for r in loop.results:
        for u in r.uses:
            st = mlir.operation(u.owner)
            if st.name == "affine.store" and st.operands[0] == r:
                return st.operands[1]
    return None


def copy_into_product(l1: ir.Operation, l2: ir.Operation, scope, budget: int, l2_bytes: int) -> CopyIntoProduct | None:
    """A copy of one loop of the pair whose destination, over `budget` bytes, a product in the
    other reads, the product's output over `l2_bytes` (module doc), or None: the pair is not
    refused. Either order: a product before a copy that rewrites the buffer it read (torch-mlir's
    transposes of two weights share one empty tensor, so one buffer) would be cut into strips as
    well."""
    for copier, reader in ((l1, l2), (l2, l1)):
        for c in copy_nest(copier) or ():
            size = copy_bytes(c.dest.type)
            if size is None or size <= budget:
                continue
            found = product_read(c.dest, reader, scope)
            if found is None:
                continue
            out = copy_bytes(found[1].type)
            if out is not None and out > l2_bytes:
                return CopyIntoProduct(c, found[0], found[1], out)
    return None
