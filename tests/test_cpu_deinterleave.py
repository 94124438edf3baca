"""A depthwise convolution (or any nest whose every loop moves its input) of stride 3 or more gets
vector lanes along its output columns once its input is copied split by residue mod the stride
(codegen/cpu/deinterleave_strided.py, codegen/cpu/plan/deinterleave.py, step deinterleave-strided;
docs/cpu_codegen.md section 35).

Stride 2 is copied too (deinterleave_min_stride 2, the default), except where the nest reads each
element once (READ_ONCE: a 2 x 2 pooling window of stride 2), where the register tile's two loads
and a shuffle do what the copy would and the copy only adds a store per element.

Each program runs through the default cpu pipeline and is compared with its input natively (bit
for bit) and in the interpreter (which checks every element a vector access reads is in bounds).
The refused programs (the input written in the nest, a padded window read under a guard, a pooling
window LLVM reads as interleaved groups, a stride-2 window that fits its stride) keep their results
and say why. The mutation check (`scripts/mutation_check.py --only deinterleave`) shows the
read-only and in-bounds guards are needed, and that the READ_ONCE refusal is what leaves a 2 x 2
window of stride 2 to the tile.
"""
from __future__ import annotations

from loopopt.codegen.cpu.deinterleave_strided import shuffle_masks
from loopopt.options import TARGETS, Options
from loopopt.testing import optimize_and_compare


def cpu(bits: int = 512, **kw) -> Options:
    return Options(target=TARGETS["cpu"], vector_bits=bits, **kw)


def depthwise(c=4, k=5, s=3, oh=3, ow=20, order="c,y,x", reduction="iter_args", tail="", pad=0, extra_h=0,
              n=1, extra_w=0) -> str:
    """O[0, c, y, x] = sum over (i, j) of X[0, c, y * s + i - pad, x * s + j - pad] W[c, i, j] with the
    loops in `order` (names c, y, x), the input just large enough; `tail`: ops at the end of the
    innermost loop of the band (%c, %y, %x in scope); `pad` > 0 reads under an affine.if (zero
    padding written as torch-mlir's guarded form); `extra_h` rows of the input past the last the
    window reads; `extra_w` columns of each row past the last it reads (torch's padded rows of an
    even width); `n` images (a batch loop outside, as loop n of `order`)."""
    h, w = (oh - 1) * s + k - 2 * pad + extra_h, (ow - 1) * s + k - 2 * pad + extra_w
    xs, ws, os_ = f"memref<{n}x{c}x{h}x{w}xf32>", f"memref<{c}x{k}x{k}xf32>", f"memref<{n}x{c}x{oh}x{ow}xf32>"
    bounds = {"c": c, "y": oh, "x": ow, "n": n}
    if pad:
        load = f"""                %u = affine.if #inside(%y, %i, %x, %j) -> f32 {{
                  %l = affine.load %X[%n, %c, %y * {s} + %i - {pad}, %x * {s} + %j - {pad}] : {xs}
                  affine.yield %l : f32
                }} else {{
                  affine.yield %z : f32
                }}"""
    else:
        load = f"                %u = affine.load %X[%n, %c, %y * {s} + %i, %x * {s} + %j] : {xs}"
    if reduction == "memory":
        body = f"""          affine.store %z, %O[%n, %c, %y, %x] : {os_}
          affine.for %i = 0 to {k} {{
            affine.for %j = 0 to {k} {{
{load}
                %v = affine.load %W[%c, %i, %j] : {ws}
                %o = affine.load %O[%n, %c, %y, %x] : {os_}
                %p = arith.mulf %u, %v : f32
                %q = arith.addf %o, %p : f32
                affine.store %q, %O[%n, %c, %y, %x] : {os_}
            }}
          }}
"""
    else:
        body = f"""          %s1 = affine.for %i = 0 to {k} iter_args(%a1 = %z) -> (f32) {{
            %s2 = affine.for %j = 0 to {k} iter_args(%a2 = %a1) -> (f32) {{
{load}
                %v = affine.load %W[%c, %i, %j] : {ws}
                %p = arith.mulf %u, %v : f32
                %q = arith.addf %a2, %p : f32
                affine.yield %q : f32
            }}
            affine.yield %s2 : f32
          }}
          affine.store %s1, %O[%n, %c, %y, %x] : {os_}
"""
    if "n" not in order:
        order = "n," + order
    names = order.split(",")
    head = "".join(f"{'  ' * (m + 1)}affine.for %{v} = 0 to {bounds[v]} {{\n" for m, v in enumerate(names))
    foot = "".join(f"{'  ' * (m + 1)}}}\n" for m in reversed(range(len(names))))
    guard = (f"#inside = affine_set<(y, i, x, j) : (y * {s} + i - {pad} >= 0, {h - 1} - y * {s} - i + {pad} >= 0, "
             f"x * {s} + j - {pad} >= 0, {w - 1} - x * {s} - j + {pad} >= 0)>\n") if pad else ""
    return f"""{guard}func.func @k(%X: {xs}, %W: {ws}, %O: {os_}) {{
  %z = arith.constant 0.0 : f32
{head}{body}{tail}{foot}  return
}}
"""


def pooling(k=3, s=3, c=32, oh=8, ow=40) -> str:
    """A sum pooling window of k x k, stride s, in the order (c, y, x), sums that may be
    reassociated (the front end's form: reassociate on); hot enough for the default remarks."""
    h, w = (oh - 1) * s + k, (ow - 1) * s + k
    xs, os_ = f"memref<1x{c}x{h}x{w}xf32>", f"memref<1x{c}x{oh}x{ow}xf32>"
    return f"""func.func @k(%X: {xs}, %O: {os_}) {{
  %z = arith.constant 0.0 : f32
  affine.for %c = 0 to {c} {{
    affine.for %y = 0 to {oh} {{
      affine.for %x = 0 to {ow} {{
        %s1 = affine.for %i = 0 to {k} iter_args(%a1 = %z) -> (f32) {{
          %s2 = affine.for %j = 0 to {k} iter_args(%a2 = %a1) -> (f32) {{
            %u = affine.load %X[0, %c, %y * {s} + %i, %x * {s} + %j] : {xs}
            %q = arith.addf %a2, %u : f32
            affine.yield %q : f32
          }}
          affine.yield %s2 : f32
        }}
        affine.store %s1, %O[0, %c, %y, %x] : {os_}
      }}
    }}
  }}
  return
}}
"""


def copied(messages):
    return [m for m in messages if m.startswith("[DEINTERLEAVE]")]


def stopped(messages):
    return [m for m in messages if m.startswith("[STOP DEINTERLEAVE]")]


def tiled_in_vectors(messages):
    return [m for m in messages if m.startswith("[REGISTER TILING]") and "vector<" in m]


def test_the_masks_gather_every_stride_th_lane():
    for s, w in ((2, 8), (3, 16), (4, 16), (5, 8), (3, 4)):
        for r, masks in enumerate(shuffle_masks(s, w)):
            assert len(masks) == s - 1
            lanes = [[k * w + i for i in range(w)] for k in range(s)]  # the elements of each vector
            acc = [lanes[0][m] if m < w else lanes[1][m - w] for m in masks[0]]
            for k, mask in enumerate(masks[1:], start=2):
                acc = [acc[m] if m < w else lanes[k][m - w] for m in mask]
            assert acc == [s * i + r for i in range(w)], (s, w, r)


def test_a_depthwise_convolution_of_stride_3_is_copied_and_tiled_in_vectors():
    for bits, ow in ((512, 20), (256, 13), (512, 40)):
        got = optimize_and_compare(depthwise(ow=ow), options=cpu(bits))
        assert copied(got.messages), got.messages
        assert "by residue mod 3" in copied(got.messages)[0]
        assert "one slice per iteration" in copied(got.messages)[0]  # the channel loop: a slice each
        assert tiled_in_vectors(got.messages), got.messages
        assert "vector.shuffle" in got.text


def test_two_images_are_copied_one_channel_of_one_image_at_a_time():
    got = optimize_and_compare(depthwise(n=2, ow=18), options=cpu())
    assert copied(got.messages) and "one slice per iteration into a 11x3x19 buffer" in copied(got.messages)[0], \
        got.messages
    assert tiled_in_vectors(got.messages), got.messages


def test_stride_4_a_window_wider_than_the_stride_and_sums_in_memory():
    got = optimize_and_compare(depthwise(k=7, s=4, oh=2, ow=17, reduction="memory"), options=cpu())
    assert copied(got.messages) and "4 elements apart" in copied(got.messages)[0], got.messages
    assert tiled_in_vectors(got.messages), got.messages


def test_fewer_columns_than_one_vector_copy_in_narrower_vectors():
    """Rows of 16 columns (no whole number of groups of 3: copied row by row), 5 groups of 3 per
    row: vectors of 4 lanes (`copy_width`), the last group overlapping; one group: the copy in
    scalars."""
    got = optimize_and_compare(depthwise(k=4, s=3, oh=4, ow=5), options=cpu())
    assert copied(got.messages), got.messages
    assert "vector.shuffle" in got.text and "vector<4xf32>, vector<4xf32>" in got.text, got.text
    got = optimize_and_compare(depthwise(k=2, s=3, oh=4, ow=2), options=cpu())
    assert copied(got.messages) and "vector.shuffle" not in got.text, got.messages


def test_the_columns_outside_the_channels_are_ordered_after_the_copy():
    """The depthwise form torch-mlir lowers (y, x, c): the channels around the reduction read
    the input a plane apart; the copy makes the columns contiguous, and the band is reordered
    (c, y, x) first: the columns give the lanes, the channels slice the copy."""
    for reduction in ("iter_args", "memory"):
        got = optimize_and_compare(depthwise(order="y,x,c", ow=24, reduction=reduction),
                                   options=cpu(reassociate=True))
        # (the batch loop of one is gone by then: step unit-loops; the band is (y, x, c))
        assert copied(got.messages) and "the band reordered 2:0:1 first" in copied(got.messages)[0], got.messages
        assert "one slice per iteration into a 1x11x3x25 buffer" in copied(got.messages)[0]
        assert tiled_in_vectors(got.messages), got.messages


def test_the_channels_stay_inside_when_moving_them_out_would_reverse_a_dependence():
    """Each sum starts from the output of the next channel one row up: (y, x, c) and the lanes
    order (y, c, x) run that one first, (c, y, x) would not. The copy goes before the rows, the
    channels stay where they are."""
    program = depthwise(order="y,x,c", ow=24)
    program = program.replace("affine.for %y = 0 to 3", "affine.for %y = 1 to 3").replace(
        "affine.for %c = 0 to 4", "affine.for %c = 0 to 3").replace(
        "          %s1 = affine.for %i = 0 to 5 iter_args(%a1 = %z)",
        "          %init = affine.load %O[%n, %c + 1, %y - 1, %x] : memref<1x4x3x24xf32>\n"
        "          %s1 = affine.for %i = 0 to 5 iter_args(%a1 = %init)")
    got = optimize_and_compare(program, options=cpu(reassociate=True))
    assert copied(got.messages), got.messages
    # (no batch loop of one to slice it by since step unit-loops: the copy keeps the unit dimension)
    assert "reordered" not in copied(got.messages)[0] and "a 1x3x8x3x25 buffer" in copied(got.messages)[0], got.messages


def test_rows_outside_the_channels_with_the_lanes_innermost_are_reordered():
    """(y, c, x), as fusion leaves torch's depthwise nest in a block: x already gives the lanes;
    the channels go first (1:0:2, legal by isl) so that each channel's copy is made just before the
    nest reads it, not the whole input before the band. Where each sum starts from the next
    channel's output one row up, (c, y, x) would reverse that dependence: the copy goes before the
    band, the order stays."""
    got = optimize_and_compare(depthwise(k=3, s=2, oh=5, ow=12, order="y,c,x", extra_w=1), options=cpu(256))
    assert copied(got.messages) and "the band reordered 1:0:2 first" in copied(got.messages)[0], got.messages
    assert "one slice per iteration into a 1x2x143 buffer" in copied(got.messages)[0], got.messages
    program = depthwise(k=3, s=2, oh=5, ow=12, order="y,c,x", extra_w=1).replace(
        "affine.for %y = 0 to 5", "affine.for %y = 1 to 5").replace(
        "affine.for %c = 0 to 4", "affine.for %c = 0 to 3").replace(
        "          %s1 = affine.for %i = 0 to 3 iter_args(%a1 = %z)",
        "          %init = affine.load %O[%n, %c + 1, %y - 1, %x] : memref<1x4x5x12xf32>\n"
        "          %s1 = affine.for %i = 0 to 3 iter_args(%a1 = %init)")
    assert "%init" in program
    got = optimize_and_compare(program, options=cpu(256))
    assert copied(got.messages) and "reordered" not in copied(got.messages)[0], got.messages
    assert "copied before the nest" in copied(got.messages)[0], got.messages


def test_the_front_ends_depthwise_convolution_natively():
    program = """
module {
  func.func @k(%x: tensor<1x8x50x50xf32>, %w: tensor<8x5x5xf32>) -> tensor<1x8x16x16xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x8x16x16xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    %2 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<3> : vector<2xi64>} ins(%x, %w : tensor<1x8x50x50xf32>, tensor<8x5x5xf32>) outs(%1 : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    return %2 : tensor<1x8x16x16xf32>
  }
}
"""
    import loopopt

    lowered = loopopt.optimize(program, "cpu", passes="none").text  # the front end's affine loops
    got = optimize_and_compare(lowered, options=cpu(reassociate=True, contract=True), rtol=1e-3, normwise=True)
    assert copied(got.messages) and tiled_in_vectors(got.messages), got.messages
    assert "the band reordered" in copied(got.messages)[0], got.messages


def test_the_input_written_in_the_nest_is_refused():
    """Each iteration writes its sum into a row of the input the next row of windows reads: the
    copy before the nest would read the elements before they are written."""
    tail = "          affine.store %s1, %X[%n, %c, %y * 3 + 5, %x] : memref<1x4x12x62xf32>\n"
    got = optimize_and_compare(depthwise(order="y,x,c", tail=tail, extra_h=1), options=cpu(reassociate=True),
                               passes=["deinterleave-strided", "loop-order", "register-tile"])
    assert not copied(got.messages)
    assert any("may be written" in m for m in stopped(got.messages)), got.messages


def test_a_padded_window_read_under_a_guard_is_refused():
    got = optimize_and_compare(depthwise(order="y,x,c", pad=1), options=cpu(reassociate=True),
                               passes=["deinterleave-strided"])
    assert not copied(got.messages)
    assert any("outside the operand's static shape" in m for m in stopped(got.messages)), got.messages


def test_a_pooling_window_no_wider_than_its_stride_is_left_to_llvm():
    for k, s in ((3, 3), (4, 4)):
        got = optimize_and_compare(pooling(k, s), options=cpu(reassociate=True))
        assert not copied(got.messages)
        assert any("interleaved groups" in m for m in stopped(got.messages)), got.messages
    got = optimize_and_compare(pooling(5, 3), options=cpu(reassociate=True))  # windows overlap: copied
    assert copied(got.messages), got.messages


def test_the_knob_turns_it_off_and_at_3_leaves_stride_2_to_the_shuffles():
    got = optimize_and_compare(depthwise(), options=cpu(deinterleave_min_stride=0))
    assert not copied(got.messages)
    got = optimize_and_compare(depthwise(s=2, ow=20), options=cpu())
    assert copied(got.messages) and "by residue mod 2" in copied(got.messages)[0], got.messages
    assert tiled_in_vectors(got.messages), got.messages
    got = optimize_and_compare(depthwise(s=2, ow=20), options=cpu(deinterleave_min_stride=3))
    assert not copied(got.messages) and tiled_in_vectors(got.messages), got.messages


STRIDE_2_PASSES = ["deinterleave-strided", "loop-order", "register-tile"]  # named: every refusal is reported


def test_stride_2_a_window_that_fits_its_stride_is_left_to_the_tiles_shuffles():
    """A 2 x 2 window of stride 2 reads each element once: the tile's two loads and a shuffle per W
    lanes move fewer vector ops than the copy's loads, shuffles and stores and the nest's loads
    (TRAFFIC, `stride2_traffic`; every column in vectors at 512 bits). In the pooling's
    order the tile's lanes loop is P itself; in torch's depthwise order (y, x, c) it is the columns
    loop-order moves around the sum; in (c, y, x) the kernel's weights too. A 3 x 3 window of
    stride 2 reads most columns twice and is copied."""
    got = optimize_and_compare(pooling(2, 2), options=cpu(reassociate=True), passes=STRIDE_2_PASSES)
    assert not copied(got.messages) and tiled_in_vectors(got.messages), got.messages
    assert any("fewer vector ops than the copy" in m for m in stopped(got.messages)), got.messages
    for order, kw in (("y,x,c", {"reassociate": True}), ("c,y,x", {})):
        got = optimize_and_compare(depthwise(k=2, s=2, ow=24, order=order), options=cpu(**kw),
                                   passes=STRIDE_2_PASSES)
        assert not copied(got.messages), got.messages
        assert any("fewer vector ops than the copy" in m for m in stopped(got.messages)), got.messages
    got = optimize_and_compare(pooling(3, 2), options=cpu(reassociate=True))
    assert copied(got.messages) and "by residue mod 2" in copied(got.messages)[0], got.messages
    assert tiled_in_vectors(got.messages), got.messages


def test_the_traffic_rule_counts_the_whole_nest():
    """`stride2_traffic` per element of the operand read t times (uses / elements) at 8 lanes:
    with every column in whole vectors the copy pays above t = 3 / 2 (a 3 x 3 window of stride 2:
    t = 9 / 4, 32 columns, rows of 65: 32 x 9 uses per 65 elements); a 2 x 2 window (t = 1) and a
    3 x 2 one (t = 3 / 2) stay with the tile; 7 columns leave the tile one vector of 4 and three
    columns one at a time, where the copied nest runs one masked vector: a 2 x 2 window pays."""
    from loopopt.codegen.cpu.plan.deinterleave import stride2_traffic, vector_columns

    assert vector_columns(32, 8) == (4, 32) and vector_columns(28, 8) == (4, 28) and vector_columns(7, 8) == (1, 4)
    assert vector_columns(13, 8) == (2, 12)  # a vector of 8, one of 4, one column alone
    assert stride2_traffic(32 * 9, 65, 32, 8).pays
    assert not stride2_traffic(32 * 4, 2 * 64, 32, 8).pays  # one output row of a 2 x 2 window: t = 1
    assert not stride2_traffic(96, 64, 32, 8).pays  # t = 3/2: even, not copied
    assert stride2_traffic(7 * 4, 2 * 14, 7, 8).pays
    # the tile: 3 per vector and use (4 vectors per row of 32 columns); the copy: the nest's 4
    # vectors per row and use, (stride + 1) / W per element copied
    t = stride2_traffic(32 * 4, 2 * 64, 32, 8)
    assert (t.tile, t.copy) == (32 * 4 * 12 / 32, 32 * 4 * 4 / 32 + 2 * 64 * 3 / 8)


def test_stride_2_a_window_that_fits_its_stride_with_columns_left_to_scalars_is_copied():
    """A 2 x 2 sum pooling of stride 2 with 7 output columns at 256 bits: the tile would run a
    vector of 4 and three columns one at a time (no masked stride-2 load); the copied nest runs
    one masked vector of 8: copied (TRAFFIC counts it), bit-exact."""
    got = optimize_and_compare(pooling(2, 2, ow=7), options=cpu(256, reassociate=True), passes=STRIDE_2_PASSES)
    assert copied(got.messages) and tiled_in_vectors(got.messages), got.messages


def test_whole_rows_are_copied_as_one_stream_per_slice():
    """Rows of an even width (torch pads 14 columns to 16; the window reads 15): the copy takes each
    channel's rows whole as one stream through a view joining rows and columns (`plane_rows`):
    a 2 x 120 buffer (15 rows x 16 columns split by residue), the nest reading it at
    (2y + i) * 8 + (2x + j) floordiv 2. Stride 3 with rows of 30 likewise; rows of 31 (no whole
    number of groups of 3) are copied row by row. Each bit-exact natively and in the interpreter."""
    got = optimize_and_compare(depthwise(k=3, s=2, oh=7, ow=7, extra_w=1), options=cpu(256))
    assert copied(got.messages) and "into a 1x2x120 buffer" in copied(got.messages)[0], got.messages
    assert "memref.collapse_shape %arg0 [[0], [1], [2, 3]]" in got.text and tiled_in_vectors(got.messages)
    got = optimize_and_compare(depthwise(k=5, s=3, oh=4, ow=9, extra_w=1, order="y,x,c"),
                               options=cpu(512, reassociate=True))
    assert copied(got.messages) and "into a 1x3x140 buffer" in copied(got.messages)[0], got.messages
    got = optimize_and_compare(depthwise(k=5, s=3, oh=4, ow=9, extra_w=2), options=cpu(512))
    assert copied(got.messages) and "into a 1x14x3x10 buffer" in copied(got.messages)[0], got.messages


def test_rows_apart_in_memory_are_copied_row_by_row():
    """An input whose rows are 20 elements apart (a strided layout, 16 columns each): no view joins
    them into one stream; copied row by row (in the interpreter: the native harness allocates
    identity layouts only)."""
    src = depthwise(k=3, s=2, oh=7, ow=7, extra_w=1).replace(
        "memref<1x4x15x16xf32>", "memref<1x4x15x16xf32, strided<[1360, 340, 20, 1]>>")
    got = optimize_and_compare(src, options=cpu(256), natively=False)
    assert copied(got.messages) and "into a 1x15x2x8 buffer" in copied(got.messages)[0], got.messages
    assert "collapse_shape %arg0" not in got.text


def test_stride_2_the_front_ends_depthwise_convolution_of_14_columns():
    """MobileNet's stride-2 depthwise 3 x 3 (torch's order, 14 output columns): the band is
    reordered, each channel copied in vectors of 8 (14 groups of 2 per row, `copy_width`)."""
    program = """
module {
  func.func @k(%x: tensor<1x8x29x29xf32>, %w: tensor<8x3x3xf32>) -> tensor<1x8x14x14xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x8x14x14xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x8x14x14xf32>) -> tensor<1x8x14x14xf32>
    %2 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w : tensor<1x8x29x29xf32>, tensor<8x3x3xf32>) outs(%1 : tensor<1x8x14x14xf32>) -> tensor<1x8x14x14xf32>
    return %2 : tensor<1x8x14x14xf32>
  }
}
"""
    import loopopt

    lowered = loopopt.optimize(program, "cpu", passes="none").text
    got = optimize_and_compare(lowered, options=cpu(reassociate=True, contract=True), rtol=1e-3, normwise=True)
    assert copied(got.messages) and tiled_in_vectors(got.messages), got.messages
    assert "by residue mod 2" in copied(got.messages)[0] and "the band reordered" in copied(got.messages)[0]
    assert "vector<8xf32>, vector<8xf32>" in got.text


def test_a_convolution_with_output_channels_is_left_to_pack_strided():
    from test_cpu_strided_pack import conv

    got = optimize_and_compare(conv(k=5, s=3, oh=3, ow=7, c=2, f=8), options=cpu())
    assert not copied(got.messages)
    assert any(m.startswith("[STRIDED PACK]") for m in got.messages), got.messages
