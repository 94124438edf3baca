"""Issue 35: a convolution of stride larger than 2 along its output columns gets vector lanes once
its input is copied into a buffer whose last dimension runs along them (codegen/cpu/pack_strided.py,
codegen/cpu/plan/strided_packing.py, step pack-strided; docs/cpu_codegen.md section 31).

Each program runs through the default cpu pipeline and is compared with its input natively (bit
for bit) and in the interpreter (which checks every element a vector access reads is in bounds).
The refused programs (the input written in the nest, a copy too large) keep their results and say
why. The mutation check (`scripts/mutation_check.py --only "strided pack"`) shows the read-only
guard is needed.
"""
from __future__ import annotations

from loopopt.options import TARGETS, Options
from loopopt.testing import optimize_and_compare


def cpu(bits: int = 512, **kw) -> Options:
    return Options(target=TARGETS["cpu"], vector_bits=bits, **kw)


def conv(n=1, c=3, f=16, k=4, s=4, oh=4, ow=6, tail="", reduction="iter_args") -> str:
    """O[n, f, y, x] = sum over (c, i, j) of X[n, c, y * s + i, x * s + j] W[f, c, i, j], the input
    just large enough; `tail`: ops at the end of the f loop's body (%n, %f in scope)."""
    h, w = (oh - 1) * s + k, (ow - 1) * s + k
    xs, ws, os_ = f"memref<{n}x{c}x{h}x{w}xf32>", f"memref<{f}x{c}x{k}x{k}xf32>", f"memref<{n}x{f}x{oh}x{ow}xf32>"
    if reduction == "memory":  # as convert-linalg-to-affine-loops writes it
        body = f"""          affine.store %z, %O[%n, %f, %y, %x] : {os_}
          affine.for %c = 0 to {c} {{
            affine.for %i = 0 to {k} {{
              affine.for %j = 0 to {k} {{
                %u = affine.load %X[%n, %c, %y * {s} + %i, %x * {s} + %j] : {xs}
                %v = affine.load %W[%f, %c, %i, %j] : {ws}
                %o = affine.load %O[%n, %f, %y, %x] : {os_}
                %p = arith.mulf %u, %v : f32
                %q = arith.addf %o, %p : f32
                affine.store %q, %O[%n, %f, %y, %x] : {os_}
              }}
            }}
          }}
"""
    else:
        body = f"""          %s = affine.for %c = 0 to {c} iter_args(%a0 = %z) -> (f32) {{
            %s1 = affine.for %i = 0 to {k} iter_args(%a1 = %a0) -> (f32) {{
              %s2 = affine.for %j = 0 to {k} iter_args(%a2 = %a1) -> (f32) {{
                %u = affine.load %X[%n, %c, %y * {s} + %i, %x * {s} + %j] : {xs}
                %v = affine.load %W[%f, %c, %i, %j] : {ws}
                %p = arith.mulf %u, %v : f32
                %q = arith.addf %a2, %p : f32
                affine.yield %q : f32
              }}
              affine.yield %s2 : f32
            }}
            affine.yield %s1 : f32
          }}
          affine.store %s, %O[%n, %f, %y, %x] : {os_}
"""
    return f"""func.func @k(%X: {xs}, %W: {ws}, %O: {os_}) {{
  %z = arith.constant 0.0 : f32
  affine.for %n = 0 to {n} {{
    affine.for %f = 0 to {f} {{
      affine.for %y = 0 to {oh} {{
        affine.for %x = 0 to {ow} {{
{body}        }}
      }}
{tail}    }}
  }}
  return
}}
"""


def packed(messages):
    return [m for m in messages if m.startswith("[STRIDED PACK]")]


def stopped(messages):
    return [m for m in messages if m.startswith("[STOP STRIDED PACK]")]


def tiled_in_lanes(messages):
    return [m for m in messages if m.startswith("[REGISTER TILING]") and "vector<" in m]


def test_patch_convolution_is_packed_and_tiled_in_lanes():
    """A 4x4 kernel of stride 4 (a patch embedding): the input copied into 3x4x4x4x6, the rows
    and columns joined (24 columns) and tiled in vector lanes; bit-exact."""
    c = optimize_and_compare(conv(), "k", cpu())
    text, messages = c.text, c.messages
    assert packed(messages) and "3x4x4x4x6 buffer" in packed(messages)[0], messages
    assert tiled_in_lanes(messages), messages
    assert "memref<3x4x4x4x6xf32>" in text


def test_overlapping_stride_3_with_a_tail_and_a_sum_in_memory():
    """A 5x5 kernel of stride 3 (each input element copied up to 4 times, 25/9 on average), odd
    sizes (a masked tail), two images (the copy made per image, inside the batch loop), the sum
    in memory as the lowering writes it; bit-exact at 256 and 512 bits."""
    src = conv(n=2, c=2, f=7, k=5, s=3, oh=3, ow=5, reduction="memory")
    for bits in (256, 512):
        messages = optimize_and_compare(src, "k", cpu(bits)).messages
        assert packed(messages) and "2x5x5x3x5 buffer" in packed(messages)[0], messages
        assert tiled_in_lanes(messages), messages


def test_reassociated_sum_is_packed():
    """With the sum reassociable (framework input) the tile was refused as no gain; packed, it is
    tiled in lanes (each lane's sum still in order: bit-exact)."""
    messages = optimize_and_compare(conv(k=3, s=3, oh=5, ow=7), "k", cpu(reassociate=True)).messages
    assert packed(messages) and tiled_in_lanes(messages), messages


def test_input_written_in_the_nest_is_refused():
    """The f loop writes an element of X after each channel, which later channels read: a copy
    before f would read the old value. Refused with WRITTEN (a hot nest: the refusal is among the
    default remarks); results unchanged. (By default the step before it, deinterleave-strided,
    copies X per f iteration, after each write; with that step off this step is the one asked.)"""
    tail = ("    %v = affine.load %O[%n, %f, 0, 0] : memref<1x64x4x16xf32>\n"
            "    affine.store %v, %X[%n, 0, 0, %f] : memref<1x3x16x64xf32>\n")
    optimize_and_compare(conv(f=64, ow=16, tail=tail), "k", cpu())  # (de-interleaved per f: results the same)
    messages = optimize_and_compare(conv(f=64, ow=16, tail=tail), "k", cpu(deinterleave_min_stride=0)).messages
    assert not packed(messages), messages
    assert [m for m in stopped(messages) if "may be written" in m], messages


def test_copy_larger_than_the_growth_bound_is_refused():
    """An 8x8 kernel of stride 3 copies each element up to 9 times: 10240 elements for the 2030
    of the 29 x 35 input read (5.0 times), over strided_pack_growth (4), is refused; with the bound
    at 8 it is packed; at 0, nothing is."""
    src = conv(c=2, f=8, k=8, s=3, oh=8, ow=10)
    messages = optimize_and_compare(src, "k", cpu()).messages
    assert not packed(messages) and [m for m in stopped(messages) if "strided_pack_growth" in m], messages
    messages = optimize_and_compare(src, "k", cpu(strided_pack_growth=8)).messages
    assert packed(messages), messages
    messages = optimize_and_compare(conv(f=64), "k", cpu(strided_pack_growth=0)).messages
    assert not packed(messages) and stopped(messages), messages


def test_stride_2_is_left_to_the_strided_loads():
    """Stride 2 is read as two vectors and a shuffle by the tile itself: nothing is packed."""
    c = optimize_and_compare(conv(k=3, s=2, oh=4, ow=16), "k", cpu(256))
    text, messages = c.text, c.messages
    assert not packed(messages) and not stopped(messages), messages
    assert "vector.shuffle" in text


def test_loops_from_a_nonzero_lower_bound():
    """Rows and columns from 1 (a loop split leaves such): the copy's loops run from 0 over the
    trip counts and read at IV + lower bound, the nest reads the buffer at IV - lower bound."""
    src = conv(f=16, k=4, s=4, oh=5, ow=9).replace("affine.for %y = 0 to", "affine.for %y = 1 to") \
        .replace("affine.for %x = 0 to", "affine.for %x = 1 to")
    c = optimize_and_compare(src, "k", cpu())
    text, messages = c.text, c.messages
    assert packed(messages) and "3x4x4x4x8 buffer" in packed(messages)[0], messages
    assert tiled_in_lanes(messages), messages
