"""Step residue-order (codegen/cpu/residue_order.py, plan/residue_order.py): docs/cpu_codegen.md
section 43.

Checked: a dilated convolution's row loop (dilation 2 and 3, a masked tail of lanes) runs by
residue mod the dilation, results unchanged (interpreter on three inputs, every output bit for
bit, and natively); an undilated convolution is left as it was (a row read again in the next
iteration: D = 1), and so is one whose loads of D iterations fit in L2 (the tests plan for a 2 KiB
L2); a loop whose iterations conflict (a write read again D iterations later) is refused with the
reason, also through a masked vector store; a loop of fewer than 2 D iterations is left alone."""
from __future__ import annotations

from loopopt.options import TARGETS, Options
from loopopt.testing import optimize_and_compare


L2 = 2048  # a small L2, so that the small programs here hold more than it between a read and its reuse


def cpu(bits: int = 256, **kw) -> Options:
    kw.setdefault("cache_sizes", (1024, L2, 65536))
    return Options(target=TARGETS["cpu"], vector_bits=bits, **kw)


def conv(dilation: int, co: int = 4, ci: int = 8, oh: int = 12, ow: int = 19) -> str:
    """C[o, y, x] = sum over c, kh, kw of W[o, c, kh, kw] * X[c, y + d kh, x + d kw] (padded input)."""
    ih, iw = oh + 2 * dilation, ow + 2 * dilation
    return f"""
func.func @k(%X: memref<{ci}x{ih}x{iw}xf32>, %W: memref<{co}x{ci}x3x3xf32>, %C: memref<{co}x{oh}x{ow}xf32>) {{
  %z = arith.constant 0.0 : f32
  affine.for %o = 0 to {co} {{
    affine.for %y = 0 to {oh} {{
      affine.for %x = 0 to {ow} {{
        affine.store %z, %C[%o, %y, %x] : memref<{co}x{oh}x{ow}xf32>
      }}
    }}
  }}
  affine.for %o = 0 to {co} {{
    affine.for %y = 0 to {oh} {{
      affine.for %x = 0 to {ow} {{
        affine.for %c = 0 to {ci} {{
          affine.for %kh = 0 to 3 {{
            affine.for %kw = 0 to 3 {{
              %w = affine.load %W[%o, %c, %kh, %kw] : memref<{co}x{ci}x3x3xf32>
              %v = affine.load %X[%c, %y + %kh * {dilation}, %x + %kw * {dilation}] : memref<{ci}x{ih}x{iw}xf32>
              %a = affine.load %C[%o, %y, %x] : memref<{co}x{oh}x{ow}xf32>
              %p = arith.mulf %w, %v : f32
              %s = arith.addf %a, %p : f32
              affine.store %s, %C[%o, %y, %x] : memref<{co}x{oh}x{ow}xf32>
            }}
          }}
        }}
      }}
    }}
  }}
  return
}}
"""


def _residue(messages: list[str]) -> list[str]:
    return [m for m in messages if "RESIDUE ORDER]" in m]


def test_a_dilated_convolution_runs_its_rows_by_residue():
    c = optimize_and_compare(conv(2), "k", cpu())
    got = _residue(c.messages)
    assert got == ["[RESIDUE ORDER] the loop's 12 iterations run by residue mod 2: loads read again "
                   "2, 4 iterations later are read again 1, 2 later (2 iterations load 5 KiB)"], got
    assert any(m.startswith("[REGISTER TILING]") for m in c.messages)
    assert " = 0 to 2 {" in c.text
    assert "to 12 step 2 {" in c.text
    assert "vector.maskedstore" in c.text  # 19 columns: a masked tail, modelled as its whole vector


def test_dilation_three_gives_residues_mod_three():
    c = optimize_and_compare(conv(3, oh=10), "k", cpu())
    got = _residue(c.messages)
    assert got == ["[RESIDUE ORDER] the loop's 10 iterations run by residue mod 3: loads read again "
                   "3, 6 iterations later are read again 1, 2 later (3 iterations load 7 KiB)"], got
    assert "to 10 step 3 {" in c.text


def test_an_undilated_convolution_keeps_its_order():
    c = optimize_and_compare(conv(1), "k", cpu())
    assert _residue(c.messages) == []
    assert " step 2 {" not in c.text


def test_a_loop_of_fewer_than_two_passes_per_residue_is_left_alone():
    c = optimize_and_compare(conv(3, oh=5), "k", cpu())
    assert _residue(c.messages) == []


# A loop whose reads of A at rows i and i + 6 would gain (D = 6), but it writes A at row i + 13,
# which iterations i + 7 and i + 13 read (another residue mod 6): its iterations may not be reordered.
CARRIED = """
func.func @k(%A: memref<40x256xf32>, %B: memref<256xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 24 {
    %s = affine.for %k = 0 to 256 iter_args(%acc = %z) -> (f32) {
      %a = affine.load %A[%i, %k] : memref<40x256xf32>
      %b = affine.load %A[%i + 6, %k] : memref<40x256xf32>
      %w = affine.load %B[%k] : memref<256xf32>
      %p = arith.mulf %a, %w : f32
      %q = arith.addf %p, %b : f32
      %t = arith.addf %acc, %q : f32
      affine.yield %t : f32
    }
    affine.store %s, %A[%i + 13, 0] : memref<40x256xf32>
  }
  return
}
"""


def test_a_loop_whose_iterations_conflict_is_refused():
    c = optimize_and_compare(CARRIED, "k", cpu())
    got = _residue(c.messages)
    assert got == ["[STOP RESIDUE ORDER] the loop carries a dependence: its iterations may not be reordered"], got
    refusal = next(r for r in c.remarks if r.pass_name == "residue-order")
    assert "written in one iteration and touched in another" in refusal.args["reason"]
    assert "step 6" not in c.text


# The same conflict through a masked vector store (as the register tile's masked tail writes): it
# may write any lane of its vector, so it counts as the whole vector (accesses.may_access).
MASKED = CARRIED.replace(
    "    affine.store %s, %A[%i + 13, 0] : memref<40x256xf32>\n",
    "    %v = vector.broadcast %s : f32 to vector<4xf32>\n"
    "    %m = vector.create_mask %c3 : vector<4xi1>\n"
    "    %r = affine.apply affine_map<(d0) -> (d0 + 13)>(%i)\n"
    "    vector.maskedstore %A[%r, %c0], %m, %v : memref<40x256xf32>, vector<4xi1>, vector<4xf32>\n",
).replace("  %z = arith.constant 0.0 : f32\n",
          "  %z = arith.constant 0.0 : f32\n  %c0 = arith.constant 0 : index\n  %c3 = arith.constant 3 : index\n")


def test_a_masked_store_counts_as_its_whole_vector():
    assert "vector.maskedstore" in MASKED
    c = optimize_and_compare(MASKED, "k", cpu())
    got = _residue(c.messages)
    assert got == ["[STOP RESIDUE ORDER] the loop carries a dependence: its iterations may not be reordered"], got


def test_a_dilated_convolution_whose_rows_fit_in_l2_keeps_its_order():
    """The same program with the default caches: two iterations load 5 KiB, which L2 holds until
    the reuse: nothing to gain."""
    c = optimize_and_compare(conv(2), "k", Options(target=TARGETS["cpu"], vector_bits=256))
    assert _residue(c.messages) == []
