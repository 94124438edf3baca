#!/usr/bin/env python3
"""Mutation check of the test suite: disable each legality check in turn, run the tests, and
report whether they fail (the check is "caught"). Every mutation must be caught.

    python3 scripts/mutation_check.py [--only NAME] [--focus-only] [--pytest-args "..."]

Each mutation runs in a scratch copy of the repository, so the work tree is never touched. The
tests aimed at the check run first (with -x); if they pass, the whole suite runs unless
--focus-only. `--baseline` first runs each focus selection unmutated: a mutation only counts as
caught when its selection passes without it.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Tests aimed at each group of checks (by the mutation name's prefix). The soundness suites hold
# the adversarial programs of issue 10; the fixed-seed fuzz property generates all its classes.
SOUNDNESS = ["tests/test_soundness.py", "tests/test_soundness_transforms.py"]
FUZZ = ["tests/test_fuzz.py::test_differential_property_fixed_seed",
        "tests/test_fuzz.py::test_saved_regression_keeps_its_results"]
FOCUS = {
    "fusion": ["tests/test_fusion.py", "tests/test_fpg.py"],
    "licm": ["tests/test_licm.py"],
    "interchange": ["tests/test_interchange.py", "tests/test_reorder_property.py"],
    "contraction": ["tests/test_fusion.py", "tests/test_restructure_in_driver.py"],
    "dead iterations": ["tests/test_restructure_in_driver.py", "tests/test_soundness_transforms.py"],
    "effects": SOUNDNESS + FUZZ,
    "fusion legality": SOUNDNESS + FUZZ,
    "memory": SOUNDNESS + FUZZ,
    "dependence": SOUNDNESS + FUZZ,
    "loops": SOUNDNESS + FUZZ,
    "affine": SOUNDNESS + FUZZ,
    "licm trap": ["tests/test_soundness_transforms.py", *FUZZ],
    "recompute": ["tests/test_cost_model_recompute.py"],
    "scalar replacement": ["tests/test_cost_model_scalrep.py"],
    "constant copies": ["tests/test_cpu_constant_copies.py"],
    "constant panels": ["tests/test_cpu_constant_panels.py"],
    "exact math": ["tests/test_cpu_exact_math.py"],
    "register tiling": ["tests/test_cpu_tile_soundness.py"],
    "rows in lanes": ["tests/test_cpu_rows_in_lanes.py"],
    "time tiles": ["tests/test_cpu_time_tiles.py"],
    "sweep vectors": ["tests/test_cpu_sweep_vectors.py"],
    "contraction planner": ["tests/test_cpu_contractions.py"],
    "fma pipes": ["tests/test_cpu_fma_pipes.py"],
    "flat rows": ["tests/test_cpu_flat_rows.py", "tests/test_cpu_flat_loops.py"],
    "product isolation": ["tests/test_cpu_product_isolation.py"],
    "strided pack": ["tests/test_cpu_strided_pack.py"],
    "deinterleave": ["tests/test_cpu_deinterleave.py"],
    "linear views": ["tests/test_cpu_linear_views.py"],
    "fold copy": ["tests/test_cpu_permuted_copies.py"],
    "fresh symbols": ["tests/test_fresh_symbols.py"],
    "interrupts": ["tests/test_interrupts.py"],
    "runtime": ["tests/test_runtime.py", "tests/test_runtime_checks.py"],
    "runtime call": ["tests/test_runtime_call.py", "tests/test_runtime_alloc.py"],
    "runtime alloc": ["tests/test_runtime_alloc.py", "tests/test_runtime_cli.py",
                      "tests/test_runtime.py::test_the_printed_recipe_builds_what_compile_builds"],
    "powers": ["tests/test_cpu_powers.py"],
    "inserted zeros": ["tests/test_zero_phases.py"],
    "torch layout": ["tests/test_runtime_torch.py::test_a_layout_change_between_calls_builds_another_kernel",
                     "tests/test_runtime_torch.py::test_kernel_layout_rule"],
    "read-only inputs": ["tests/test_runtime.py::test_an_update_of_a_reshaped_input_leaves_the_callers_array_alone"],
    "unit dims": ["tests/test_unit_dims.py"],
    "branch buffers": ["tests/test_frontend_branch_buffers.py"],
    "shared fills": ["tests/test_frontend_branch_buffers.py"],
    "unit loops": ["tests/test_unit_loops.py"],
    "checks": ["tests/test_checks.py", "tests/test_guard_ops.py"],
    "dead carried": ["tests/test_dead_carried.py", "tests/test_cpu_lane_reductions.py"],
    "vector math": ["tests/test_cpu_powers.py"],
    "math scaling": ["tests/test_cpu_vectorize.py::test_ldexp_scaling_keeps_the_bits_of_the_two_halves",
                     "tests/test_cpu_math.py::test_max_error_against_libm"],
    "signatures": ["tests/test_compile_scaling.py"],
    "rescue preconditions": ["tests/test_rescue_preconditions.py", "tests/test_compile_scaling.py"],
    "cache tiling": ["tests/test_cpu_cache_tiling.py"],
    "panel layout": ["tests/test_cpu_cache_tiling.py"],
    "isolation strips": ["tests/test_cpu_cache_tiling.py"],
    "product fusion": ["tests/test_cpu_product_fusion.py"],
    "product split": ["tests/test_cpu_product_split.py"],
    "gathered lanes": ["tests/test_cpu_gathered_lanes.py", "tests/test_cpu_powers.py"],
    "transpose tiles": ["tests/test_cpu_transpose_tiles.py"],
    "classifier heads": ["tests/test_cpu_classifier_heads.py"],
    "flat reductions": ["tests/test_cpu_classifier_heads.py"],
    "pack B": ["tests/test_cpu_pack_column_blocks.py"],
    "adversarial round 4": ["tests/test_adversarial_round4.py"],
    "column reductions": ["tests/test_cpu_column_reductions.py"],
    "lanes order": ["tests/test_cpu_lanes_order.py"],
    "row streams": ["tests/test_row_streams.py"],
    "residue order": ["tests/test_cpu_residue_order.py"],
    "scans": ["tests/test_frontend_scans.py"],
    "recompute casts": ["tests/test_recompute_casts.py"],
    "inner level": ["tests/test_fusion_inner_level.py"],
}
# The issue 22 check is aimed at by the class 13 programs, the tests of each transform's rule
# for untraced memrefs and the fuzzer's forwarding classes (in the fixed-seed property).
UNTRACED_FOCUS = ["tests/test_soundness_untraced.py", "tests/test_cost_model_scalrep.py", "tests/test_soundness.py", *FUZZ]
FOCUS_BY_NAME = {
    "effects: any write may change a buffer of untraced origin": UNTRACED_FOCUS,
    "memory: arguments of a function whose address is taken are untraced": UNTRACED_FOCUS,
    "memory: a public function follows the module's calls of it": UNTRACED_FOCUS,
    "recompute: a stored counter is the read iteration's counter": ["tests/test_recompute_counter.py"],
    "recompute: every value of the producer's loops is had at the read": ["tests/test_recompute_counter.py"],
    "erase check: a value of the erased op still used outside it": ["tests/test_erase_check.py"],
    "contraction: a slice's stride counts only loops with two iterations": ["tests/test_compile_scaling.py"],
    "rows in lanes: a row reached through mod / floordiv is no address a strip recomputes": ["tests/test_fuzz.py"],
}

# (name, file, [(the exact text of the check, the text that disables it), ...]).
MUTATIONS = [
    # issue 38 (each question asked once per access signature, shortcuts that must decide alike)
    ("signatures: two accesses alike only with one index", "loopopt/analysis/facts.py",
     [("        return (a.key, a.root, a.is_write, a.index, a.extent, loops)",
       "        return (a.key, a.root, a.is_write, None, a.extent, loops)")]),
    ("signatures: inner loops by depth keep their bounds", "loopopt/analysis/facts.py",
     [("    loops += tuple((None, ren[lp.name], named(lp.lower), named(lp.upper), lp.step) for lp in a.loops[cut:])",
       "    loops += tuple((None, ren[lp.name]) for lp in a.loops[cut:])")]),
    ("rescue preconditions: an interchange the nest refuses", "loopopt/loop_optimization/pair_restructuring.py",
     [("        return check_loop_interchange(band, perm, Scope(), options) is not None",
       "        return True")]),
    ("contraction: a slice's stride counts only loops with two iterations", "loopopt/loop_optimization/contraction.py",
     [("            if hi - lo > 1:\n                stride = gcd(stride, abs(c))",
       "            if True:\n                stride = gcd(stride, abs(c))")]),
    ("fusion: trip count", "loopopt/loop_optimization/fusion_legality.py",
     [("    if not same_trip_count(l1, l2, scope):\n        return Refusal(Code.UNMATCHED_TRIP_COUNT)",
       "    if False:\n        return Refusal(Code.UNMATCHED_TRIP_COUNT)")]),
    ("fusion: partition dim", "loopopt/loop_optimization/fusion_legality.py",
     [("        if not (_partition_dim(lp, facts) if facts is not None else accesses_partition_dim(lp, scope)):",
       "        if False:")]),
    ("fusion: negative distance", "loopopt/loop_optimization/fusion_legality.py",
     [("                if dependence.may_be_negative_between(a, b, ax1, ax2, scope):", "                if False:"),
      ("            if dist is not None and dependence.may_be_negative(dist):", "            if False:")]),
    ("fusion: ops between the loops", "loopopt/loop_optimization/fusion_legality.py",
     [("        if _conflict(effects(x), e1):", "        if False:")]),
    ("licm: zero-trip guard", "loopopt/loop_optimization/licm.py",
     [("    if not facts.runs_at_least_once:\n        return _refuse(Code.LICM_ZERO_TRIP,",
       "    if False:\n        return _refuse(Code.LICM_ZERO_TRIP,")]),
    ("licm: written elements of a buffer (one set per loop and buffer)", "loopopt/loop_optimization/licm.py",
     [("            if not sets_intersect(access_elements(ap, facts.n_outer, scope), we.elements):",
       "            if True:")]),
    ("interchange: bound check", "loopopt/analysis/legality.py",
     [("            if pos[m] > pos[k]:", "            if False:")]),
    ("interchange: dependence check", "loopopt/analysis/legality.py",
     [("        if not bad_pairs.is_empty():\n            return _dependence_text(bp, bad_pairs)",
       "        if False:\n            return _dependence_text(bp, bad_pairs)")]),
    ("contraction: same element", "loopopt/loop_optimization/contraction.py",
     [("        if not same_element(latest, load, scope) or latest.op.operands[0].type != op.results[0].type:",
       "        if latest.op.operands[0].type != op.results[0].type:")]),
    ("contraction: privacy of a shrunk buffer", "loopopt/loop_optimization/contraction.py",
     [("        if private_loop_violation(accesses, alloc_depth, k, scope):", "        if False:")]),
    ("dead iterations: later reads", "loopopt/loop_optimization/pair_restructuring.py",
     [("        why = removed_read_violation(accesses(later), tails, scope, [], LATER_READS)",
       "        why = None")]),
    ("dead iterations: kept iterations read the removed head", "loopopt/loop_optimization/pair_restructuring.py",
     [("        why = removed_read_violation(accesses(loop), heads, scope, [kept], KEPT_READS)",
       "        why = None")]),
    # issue 10 ("sound by default")
    ("effects: untraced memref is a barrier", "loopopt/analysis/effects.py",
     [("        if k is UNTRACED:\n            self.untraced(root)",
       "        if False:\n            self.untraced(root)")]),
    ("fusion legality: unmodelled op is a barrier", "loopopt/loop_optimization/fusion_legality.py",
     [("    for lp in (l1, l2):\n        e = effects(lp)\n        if e.unknown:",
       "    for lp in (l1, l2):\n        e = effects(lp)\n        if False:")]),
    ("memory: one key per global", "loopopt/analysis/memory.py",
     [('        return ("global", global_symbol(root))', "        return root")]),
    ("memory: argument alias classes", "loopopt/analysis/memory.py",
     [("        classes = call_site_classes(fn)\n        if classes is None:\n            return root",
       "        classes = None\n        if classes is None:\n            return root")]),
    ("dependence: vector extents", "loopopt/analysis/dependence.py",
     [("        if wa == 1 and wb == 1:\n            out.append(f\"{x} = {y}\")",
       "        if True:\n            out.append(f\"{x} = {y}\")")]),
    ("loops: step anchored at the max of several lower bounds", "loopopt/analysis/loops.py",
     [("        if self.step != 1 and len(self.lower) == 1:", "        if self.step != 1:")]),
    ("affine: loop-carried values are not symbols", "loopopt/analysis/affine.py",
     [("            if parent is None or parent.name != \"func.func\":\n                # iter_args",
       "            if False:\n                # iter_args")]),
    ("licm trap: semi-affine ops stay in loops that may not run", "loopopt/loop_optimization/licm.py",
     [("    if summary.traps and not get().runs_at_least_once:", "    if False:"),
      ("        if may_trap(op) and not get().runs_at_least_once:", "        if False:")]),
    # issue 12 (the cpu cost model's rewrites)
    ("recompute: reads covered in the same enclosing iteration", "loopopt/loop_optimization/pair_restructuring.py",
     [("        if not read.is_subset(wr):\n            return False", "        if False:\n            return False")]),
    ("scalar replacement: another access to the accumulator's buffer", "loopopt/codegen/cpu/scalar_replacement.py",
     [("        if mlir.op_key(a.op) not in mine and dependence.may_alias(a, probe):", "        if False:")]),
    ("scalar replacement: a write between store and load ends forwarding", "loopopt/codegen/cpu/scalar_replacement.py",
     [("            latest = [e for e in latest if not ends_entry(op, e, facts)]", "            pass")]),
    # issue 22 (memrefs of untraced origin in the transforms that keep per-buffer state)
    ("effects: any write may change a buffer of untraced origin", "loopopt/analysis/effects.py",
     [("        return key is UNTRACED or UNTRACED in self.writes or key in self.writes",
       "        return UNTRACED in self.writes or key in self.writes")]),
    ("memory: arguments of a function whose address is taken are untraced", "loopopt/analysis/memory.py",
     [("    if address_taken:\n        out = [UNTRACED", "    if False:\n        out = [UNTRACED")]),
    ("memory: a public function follows the module's calls of it", "loopopt/analysis/memory.py",
     [("    if not _is_private(fn) and not calls and not address_taken:", "    if not _is_private(fn):")]),    # issue 24 (compile-time copies of constants)
    ("constant copies: the buffer is only read after the nest", "loopopt/codegen/cpu/plan/constant_copies.py",
     [("        elif not (user.name in READ_USERS and use.operand_number == 0):\n            return None",
       "        elif False:\n            return None")]),
    ("constant copies: every element of the buffer written", "loopopt/codegen/cpu/plan/constant_copies.py",
     [("    if len(store_ivs) != len(nest) or [trips[k] for k in store_ivs] != list(dst_t.shape):",
       "    if False:")]),
    ("constant panels: J a multiple of the panel", "loopopt/codegen/cpu/plan/constant_panels.py",
     [("    if lo is None or lo % step or not (0 <= offset and offset + width <= step <= MAX_PANEL):",
       "    if lo is None or not (0 <= offset and step <= MAX_PANEL):")]),
    # issue 24 (exp by libm's own algorithm)
    ("exact math: the table index is the low 5 bits", "loopopt/codegen/cpu/math/exact_math.py",
     [("b.const(2 ** libm.EXPF_TABLE_BITS - 1, i64)", "b.const(2 ** (libm.EXPF_TABLE_BITS + 1) - 1, i64)")]),
    ("exact math: the host's expf must agree on every checked input", "loopopt/codegen/cpu/math/libm.py",
     [("        if not _same(got, want):", "        if False:")]),
    ("exact math: only exp on f32 has an exact form", "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("                    return _refuse(loop, Code.NO_EXACT_FORM, why_not, op)", "                    pass")]),
    # issue 35 (what the front end leaves: powers as products, math without a vector lowering)
    ("powers: powf becomes a product only with approximate_math", "loopopt/codegen/cpu/powers.py",
     [("        if not approximate_math:\n            return (f\"math.powf to the power {n}: libm's powf",
       "        if False:\n            return (f\"math.powf to the power {n}: libm's powf")]),
    # section 25 (exp scaled by ldexp only where the plan is for AVX-512, and only on scalars)
    ("math scaling: ldexp only for a 512-bit plan", "loopopt/codegen/cpu/math/math_approx.py",
     [("    return vector_bits >= 512", "    return True")]),
    ("math scaling: ops on vectors keep the two halves", "loopopt/codegen/cpu/math/math_approx.py",
     [("        if not self.ldexp or isinstance(self.ftype, ir.VectorType):", "        if not self.ldexp:")]),
    ("vector math: fpowi is never put on vector lanes", "loopopt/codegen/cpu/plan/vector_math.py",
     [("    if op.name in NO_VECTOR_LOWERING:", "    if False:")]),
    # issue 35 (run-time checks: analysis/checks.py's rule in every transform that moves ops)
    ("checks: fusion keeps a check in order with its hazards", "loopopt/loop_optimization/fusion_legality.py",
     [("    why = fusion_order_refusal(l1, l2, between, hoist, facts.scope)", "    why = None")]),
    ("checks: a trap never moves before a check", "loopopt/analysis/checks.py",
     [("        return self.kind == VISIBLE or moves_before_check", "        return self.kind == VISIBLE")]),
    ("checks: two messages keep their order", "loopopt/analysis/checks.py",
     [("            return message(self.op) != message(check)", "            return False")]),
    ("checks: only a private buffer is unseen after an abort", "loopopt/analysis/checks.py",
     [('    return root_origin(root) == "alloc" and escaping_use(root, {**READ_OPS, **WRITE_OPS}) is None',
       "    return True")]),
    ("checks: an access is in bounds only where isl proves it", "loopopt/analysis/checks.py",
     [("            if not out.intersect(dom).is_empty():\n                return False",
       "            if False:\n                return False")]),
    ("checks: a check cannot fail only after a check of the same value", "loopopt/analysis/checks.py",
     [("            if is_check(op) and op.operands[0] == cond:", "            if is_check(op):")]),
    ("checks: checks first keeps the loop's visible writes", "loopopt/codegen/cpu/checks_first.py",
     [("    why = order_refusal(rest, checks, scope)", "    why = None")]),
    ("checks: checks first reads nothing the loop writes", "loopopt/codegen/cpu/checks_first.py",
     [("    why = written_by_loop(loop, [o for o in slice_ops if o.name in READ_OPS], scope)", "    why = None")]),
    ("checks: conditions run ahead in lanes only if none may trap", "loopopt/codegen/cpu/checks_first.py",
     [("    return all(not may_trap(o) and (o.name not in READ_OPS or in_bounds(o, scope)) for o in slice_ops)",
       "    return True")]),
    ("checks: licm hoists across no hazard of a check", "loopopt/loop_optimization/licm.py",
     [("    return order_refusal(before, [op], scope)", "    return None")]),
    ("checks: dead stores keep an argument's store a check between may see", "loopopt/codegen/cpu/dead_stores.py",
     [("            check = check_between(*pair, order)", "            check = None")]),
    ("checks: dead stores look for checks in the nest of the store and of the later store", "loopopt/codegen/cpu/dead_stores.py",
     [("        found = checks_in(op)\n", "        found = [] if at_b or mlir.op_key(op) == first else checks_in(op)\n")]),
    ("checks: scalar replacement keeps a seen accumulator in memory", "loopopt/codegen/cpu/scalar_replacement.py",
     [("    bad = hazards(acc.ops, facts.scope) if checks else []", "    bad = []")]),
    ("checks: a reordered nest keeps a check with its hazards", "loopopt/analysis/checks.py",
     [("    checks = checks_in(root)\n    if not checks:", "    checks = []\n    if not checks:")]),
    ("checks: distribution keeps a check with its hazards", "loopopt/analysis/legality.py",
     [("    edges |= check_edges([body[k] for k in stmt_idx], scope)", "    pass")]),
    ("dead carried: a stored result goes only when nobody reads its buffer", "loopopt/transforms/dead_carried.py",
     [("        if any(mlir.operation(u.owner).name in READ_OPS for u in root.uses):\n            return None",
       "        if False:\n            return None")]),
    ("dead carried: a stored result goes only into a buffer of the function's own", "loopopt/transforms/dead_carried.py",
     [('        if root != user.operands[1] or root_origin(root) != "alloc" or \\\n',
       '        if root != user.operands[1] or \\\n')]),
    ("vector math: a buffer of i1 is never read as a vector", "loopopt/codegen/cpu/plan/vector_math.py",
     [("    if isinstance(elem, ir.IntegerType) and ir.IntegerType(elem).width % 8:", "    if False:")]),
    # section 29: reductions down a column, unit dimensions in the contiguity test
    ("column reductions: no gain only where LLVM can vectorize the reduction loop", "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("        column = access_refusal(band[-1], facts.accesses(band[-1]), facts.scope)", "        column = None")]),
    ("column reductions: only dimensions of static size 1 are skipped", "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("if not mt.is_dynamic_dim(d) and mt.get_dim_size(d) == 1)", "if strides[d] == 0)")]),
    ("column reductions: the dimension that moves is contiguous in memory", "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("        if layout and layout[last] != 1:", "        if layout and layout[-1] != 1:")]),
    # section 30: the loop whose lanes are contiguous moved directly around the reduction
    ("lanes order: the reorder keeps every dependence (isl)", "loopopt/codegen/cpu/plan/lanes_order.py",
     [("        why = check_loop_interchange(list(band), list(order), facts.scope, options)", "        why = None")]),
    ("lanes order: the loop moved around the reduction carries no dependence there", "loopopt/codegen/cpu/plan/lanes_order.py",
     [("            if carries_at(conflict, [names[k] for k in order], len(order) - 1):", "            if False:")]),
    # issue 33 (register tiling on hand-written programs)
    ("register tiling: column blocks copy only pure ops of the row loop", "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("    copied = block_copy_refusal(rows_q, p) if nc else None", "    copied = None")]),
    # section 53: a load beside the product is copied into the column blocks when nothing in the row loop writes its buffer
    ("register tiling: a load copied into the column blocks reads a buffer the row loop never writes",
     "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("    return key is not UNTRACED and not effects.may_write(key)", "    return True")]),
    ("register tiling: every operand of a lane op has a lane form", "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("                why = lane_operand_refusal(op, v, piv, lanes)\n                if why is not None:\n"
       "                    return why\n        for v in op.results:",
       "                pass\n        for v in op.results:")]),
    ("register tiling: a value stored on lanes has a lane form", "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("                why = lane_operand_refusal(op, op.operands[0], piv, lanes)", "                why = None")]),
    ("register tiling: the loop's counter as data is its lanes' iterations", "loopopt/codegen/cpu/register_tile.py",
     [("            if vector and self.widths[c] > 1 and v == self.piv:", "            if False:")]),
    ("register tiling: each row's partials start from its own row's init", "loopopt/codegen/cpu/register_tile.py",
     [("    cur = [[row_value(rowmaps, m, inits[red.position])", "    cur = [[row_value(rowmaps, 0, inits[red.position])")]),
    # issue 35: rows and columns as one loop through a collapsed view (codegen/cpu/flat_rows.py)
    ("adversarial round 4: a collapse view's own index gives strides only for a row-major view",
     "loopopt/analysis/accesses.py",
     [('owner.name == "memref.collapse_shape" and row_major(mlir.memref_type(memref)):',
       'owner.name == "memref.collapse_shape":')]),
    ("adversarial round 4: dead stores keep an argument's store a call between may see",
     "loopopt/codegen/cpu/dead_stores.py",
     [("        found = _may_end_the_run(op)\n", "        found = None\n")]),
    ("adversarial round 4: pack B leaves a shared buffer whole while a product reading it is unpacked",
     "loopopt/codegen/cpu/pack_column_blocks.py",
     [("            unpacked = _unpacked_reader(alloc, plans)\n", "            unpacked = None\n")]),
    ("adversarial round 4: pack B keeps every copy while a refused clone's product reads the buffer",
     "loopopt/codegen/cpu/pack_column_blocks.py",
     [("                if n == of and unpacked is None:", "                if n == of:")]),
    ("flat rows: every access through the view ends in H x W elements", "loopopt/codegen/cpu/flat_rows.py",
     [("    if mt is None or len(mt.shape) < 2 or list(mt.shape[-2:]) != [rows, cols] or not _identity_contiguous(mt):",
       "    if mt is None or len(mt.shape) < 2 or not _identity_contiguous(mt):")]),
    ("flat rows: the buffer's rows are contiguous", "loopopt/codegen/cpu/flat_rows.py",
     [("    if mt is None or len(mt.shape) < 2 or list(mt.shape[-2:]) != [rows, cols] or not _identity_contiguous(mt):",
       "    if mt is None or len(mt.shape) < 2 or list(mt.shape[-2:]) != [rows, cols]:")]),
    ("flat rows: the last two indices are exactly (row, column)", "loopopt/codegen/cpu/flat_rows.py",
     [("    if not (_is(forms[-2], hp) and _is(forms[-1], wp)) or any(_uses(f, hp | wp) for f in forms[:-2]):",
       "    if any(_uses(f, hp | wp) for f in forms[:-2]):")]),
    ("flat rows: no other index uses the row or column", "loopopt/codegen/cpu/flat_rows.py",
     [("    if not (_is(forms[-2], hp) and _is(forms[-1], wp)) or any(_uses(f, hp | wp) for f in forms[:-2]):",
       "    if not (_is(forms[-2], hp) and _is(forms[-1], wp)):")]),
    ("flat rows: an index before the last two that is not linear uses neither the row nor the column",
     "loopopt/codegen/cpu/flat_rows.py",
     [("    if any(f is None for f in forms[-2:]) or any(f is None and _dims(e) & (hp | wp)",
       "    if any(f is None for f in forms[-2:]) or any(f is None and False")]),
    ("flat rows: the counters are used by accesses only", "loopopt/codegen/cpu/flat_rows.py",
     [("            why = access_refusal(op, h_iv, w_iv, rows, cols, top)",
       "            why = access_refusal(op, h_iv, w_iv, rows, cols, top) if op.name in ACCESSES else None")]),
    ("flat rows: a vector access through a collapsed view is at any element", "loopopt/analysis/accesses.py",
     [('        raise NonAffine("vector access through a collapse_shape view")', "        pass")]),
    ("strided pack: the strided operand is read-only in the nest the copy goes before",
     "loopopt/codegen/cpu/plan/strided_packing.py",
     [("    top = next((lp for lp in free if not _writes(lp, key)), None)",
       "    top = next((lp for lp in free), None)")]),
    ("deinterleave: the strided operand is read-only in the nest the copy goes before",
     "loopopt/codegen/cpu/plan/deinterleave.py",
     [("    if eff.unknown or eff.may_write(key):", "    if eff.unknown:")]),
    ("deinterleave: the band is reordered for slices only where the reorder keeps every dependence (isl)",
     "loopopt/codegen/cpu/plan/deinterleave.py",
     [("    if order == tuple(lanes) or check_loop_interchange(list(band), list(order), facts.scope, options) is not None:",
       "    if order == tuple(lanes):")]),
    ("deinterleave: the copy reads only elements inside the operand's static shape",
     "loopopt/codegen/cpu/plan/deinterleave.py",
     [("        if lo < 0 or hi >= n:", "        if False:")]),
    ("deinterleave: a stride-2 nest is copied only where the copy moves fewer vector ops (TRAFFIC)",
     "loopopt/codegen/cpu/plan/deinterleave.py",
     [("    costly = traffic_refusal(plans, q, band, facts, options)", "    costly = None")]),
    ("deinterleave: rows are copied as one stream only when each holds whole groups of the stride",
     "loopopt/codegen/cpu/plan/deinterleave.py",
     [("    return width if width > 0 and width % stride == 0 else 0", "    return width if width > 0 else 0")]),
    ("deinterleave: rows are copied as one stream only from a row-major contiguous operand",
     "loopopt/codegen/cpu/plan/deinterleave.py",
     [("    if rank < 2 or rank - 2 in sliced or mt is None or not mlir.identity_layout(mt):",
       "    if rank < 2 or rank - 2 in sliced or mt is None:")]),
    # section 46: permuted copies folded into their consumer or writers
    ("fold copy: every read of the destination runs after the copy writes its element (isl)",
     "loopopt/codegen/cpu/plan/permuted_copies.py",
     [("                if total is None or not total.subtract(after).is_empty():", "                if False:")]),
    ("fold copy: the source is not written after the copy reads an element (isl)",
     "loopopt/codegen/cpu/plan/permuted_copies.py",
     [("        if s is None or (k.index is not None and w.index is not None and s.is_empty()):", "        if True:")]),
    ("fold copy: into writers only where nothing but the copy touches the destination",
     "loopopt/codegen/cpu/plan/permuted_copies.py",
     [("        if mlir.op_key(a.op) != mlir.op_key(c.store) and may_alias(a, store):", "        if False:")]),
    ("linear views: an access is read at base + i only where isl proves its address one element further "
     "every iteration", "loopopt/codegen/cpu/plan/locality.py",
     [("        if not bad.is_empty():", "        if False:")]),
    ("linear views: no index operand is computed inside the loop (the base folds the counter only)",
     "loopopt/codegen/cpu/plan/linear_views.py",
     [("    if any(v != iv and _computed_in(v, loop) for v in idx):", "    if False:")]),
    ("linear views: the dimensions an access moves in have static extents", "loopopt/codegen/cpu/plan/linear_views.py",
     [("    if any(mt.is_dynamic_dim(d) for d in dims):", "    if False:")]),
    # issue 35 (one planner for contractions)
    ("contraction planner: no loop of the reduction band has bounds moving with the lanes",
     "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("    if any(defined_inside(v, p) for b in band for v in bound_values(b)):",
       "    if any(defined_inside(v, p) for v in bound_values(band[0])):")]),
    ("contraction planner: the loops between the rows and the lanes have the same bounds for every row",
     "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("    if any(defined_inside(v, q) for lp in [*between, p, *band] for v in bound_values(lp)):",
       "    if any(defined_inside(v, q) for lp in [p, *band] for v in bound_values(lp)):")]),
    ("contraction planner: a value computed between the rows and the lanes loop moves with the rows",
     "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("    outer = [q, *between] if q is not None else []", "    outer = [q] if q is not None else []")]),
    ("contraction planner: the vectors a step shares across the rows are counted in the registers",
     "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("    shared = nv + 1 if width > 1 and loads.lanes and mr > 1 and not loads.unrolled else 0", "    shared = 0")]),
    ("contraction planner: rows are jammed only where it is legal", "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("        rows_q, why = _rows_loop(q, p, r, facts, mem, between)\n", "        rows_q, why = q, \"\"\n")]),
    ("contraction planner: no masked tail with an op that may trap on lanes", "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("        if op.name in TRAPPING_OPS and any(lanes.varies(v) for v in op.results):", "        if False:")]),
    ("contraction planner: no masked tail for a loop carrying values", "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("    if carried:\n        return \"the loop carries values across its lanes\"",
       "    if False:\n        return \"the loop carries values across its lanes\"")]),
    ("contraction planner: no masked tail with a load of stride 2", "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("    if strided:\n        return \"a load reads every second element\"",
       "    if False:\n        return \"a load reads every second element\"")]),
    ("contraction planner: a shuffled load has stride 2", "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("            or strides[-1] != LANE_STRIDE:", "            or strides[-1] < 2:")]),
    ("contraction planner: a shuffled load's row is contiguous", "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("    return bool(layout) and layout[-1] == 1", "    return True")]),
    ("contraction planner: a tile covers P's columns with masks only where a masked tail may run",
     "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("    cover = masked and cover_pays(cols, width)\n", "    cover = cover_pays(cols, width)\n"),
      ("tail=0 if cover and covering(cols, nv, width) else", "tail=0 if covering(cols, nv, width) else"),
      ("cover=(cover and covering(cols, nv, width)) or mixed,", "cover=covering(cols, nv, width) or mixed,")]),
    # docs/cpu_codegen.md section 38: the columns left over in a narrower vector
    ("contraction planner: the tail's one masked vector holds every column left over",
     "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("    w = max(MIN_LANES, 1 << (left - 1).bit_length()) if masked else 1 << (left.bit_length() - 1)",
       "    w = 1 << (left.bit_length() - 1)")]),
    ("contraction planner: every vector of a covering step that may pass P's end is masked",
     "loopopt/codegen/cpu/register_tile.py",
     [("                if span_cols is None or offsets[c] + widths[c] > span_cols:", "                if span_cols is None:")]),
    ("contraction planner: a covering vector's mask counts from its own first column",
     "loopopt/codegen/cpu/register_tile.py",
     [("_tail_mask(hi, j0, widths[c], inner, p.location, offsets[c])", "_tail_mask(hi, j0, widths[c], inner, p.location)")]),
    # docs/cpu_codegen.md section 44: the columns left over in the same step as the whole vectors
    ("contraction planner: a covering tile ending in the narrower tail holds every column left over",
     "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("and cols // width == nv - 1 and 0 < cols % width <= rest.tail)", "and cols // width == nv - 1 and 0 < cols % width)")]),
    ("contraction planner: a joint step's masks count the columns it covers",
     "loopopt/codegen/cpu/register_tile.py",
     [("        return [(MASKED, (w,) * (nv - 1) + (plan.tail or w,), cols)]",
       "        return [(MASKED, (w,) * (nv - 1) + (plan.tail or w,), cols + w)]")]),
    # section 44's gate: the columns left over join the whole vectors' step only where their own
    # step's accumulator chains are no more than the host's FMA pipes x latency need
    ("fma pipes: the old tail is kept where its rows' chains keep the FMA pipes busy",
     "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("return any(mr * reductions <= pipes.chains(lanes * lane_bits)", "return any(True")]),
    # issue 35, section 24: the registers a tile holds besides its accumulators
    ("contraction planner: a masked tail after one vector that runs once is live with it",
     "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("        return 2\n    return nv", "        return nv\n    return nv")]),
    ("contraction planner: loads of neither rows nor lanes are held for the whole tile",
     "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("    return held if held <= registers // 3 else 0", "    return 0")]),
    ("contraction planner: held loads count only while they fit a third of the registers",
     "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("    return held if held <= registers // 3 else 0", "    return held")]),
    ("contraction planner: a unit loop runs exactly once", "loopopt/transforms/unit_loops.py",
     [("    return cb is not None and 0 < cb[1] - cb[0] <= mlir.int_attr(loop, \"step\")",
       "    return cb is not None and cb[1] - cb[0] <= mlir.int_attr(loop, \"step\")")]),
    # issue 33 (cpu code generation and rescues on inputs outside the benchmarks)
    ("fresh symbols: a taken name is never returned", "loopopt/mlir.py",
     [("    if not numbered and base not in taken:\n        return base", "    if not numbered:\n        return base")]),
    ("fresh symbols: a new panel global is named fresh", "loopopt/codegen/cpu/pack_constant_panels.py",
     [("add_constant_global(mlir.fresh_symbol_name(module_op, stem),", "add_constant_global(stem,")]),
    ("fresh symbols: a panel global is reused only with the panels' contents", "loopopt/codegen/cpu/pack_constant_panels.py",
     [("            same = name is not None and blobs.get(name) == data", "            same = True")]),
    ("recompute: a stored counter is the read iteration's counter", "loopopt/loop_optimization/pair_restructuring.py",
     [("replace_all_uses_with(remapped(plan.store.operands[0], plan, iv_values, made))",
       "replace_all_uses_with(next((n for o, n in made if o == plan.store.operands[0]), plan.store.operands[0]))")]),
    ("recompute: every value of the producer's loops is had at the read", "loopopt/loop_optimization/pair_restructuring.py",
     [("    why = remap_refusal(producer, ivs, body, store)\n", "    why = None\n")]),
    ("erase check: a value of the erased op still used outside it", "loopopt/mlir.py",
     [("            if op_key(user) not in keys:", "            if False:")]),
    ("interrupts: never raised into an import", "loopopt/mlir.py",
     [("            if _importing(self.thread):", "            if False:")]),
    ("interrupts: raised again when a callback swallowed it", "loopopt/mlir.py",
     [("            if self._sent_at is None or time.monotonic() - self._sent_at >= RESEND_SECONDS:",
       "            if self._sent_at is None:")]),
    ("interrupts: Python's flag is looked at while waiting", "loopopt/mlir.py",
     [("                stage.wake.get(timeout=POLL_SECONDS)", "                stage.wake.get()")]),
    # issue 36 (the runtime: what keeps a call or a cached library from crashing or lying)
    ("runtime: a cached library must match its manifest", "loopopt/runtime/cache.py",
     [("    if size != m.get(\"size\") or digest != m.get(\"sha256\"):", "    if False:")]),
    ("runtime: builders of one key take turns", "loopopt/runtime/cache.py",
     [("        entry, why = lookup(directory, key)  # another process may have built it meanwhile\n"
       "        if entry is not None:\n            return entry, \"hit\"\n", "")]),
    ("runtime: the module's checks run before the call", "loopopt/runtime/kernel.py",
     [("        if spec.checks:\n            self._run_checks(dims, scalars)", "        if False:\n            pass")]),
    ("runtime: a written array must not overlap another argument", "loopopt/runtime/kernel.py",
     [("                if (sa.writes or sb.writes) and a0 < b1 and b0 < a1:", "                if False:")]),
    ("runtime: arrays must be C-contiguous", "loopopt/runtime/kernel.py",
     [("        if not a.flags.c_contiguous:", "        if False:")]),
    ("runtime: only functions with a body get the C interface", "loopopt/runtime/lowering.py",
     [("        if not private and mlir.func_body(fn) is not None:", "        if True:")]),
    ("torch layout: the kernels' key holds each input's memory order", "loopopt/runtime/torch_backend.py",
     [("        key = (signature(args), self.freeze, values, orders)\n", "        key = (signature(args), self.freeze, values, ())\n"),
      ("                (signature(args), self.freeze, values, orders)\n", "                (signature(args), self.freeze, values, ())\n")]),
    ("torch layout: an input is passed as its memory only in a dense permuted layout", "loopopt/runtime/torch_layout.py",
     [("    return order if t.permute(order).is_contiguous() else None", "    return order")]),
    # issue 35 (bit-exact vectors across rows and time tiling)
    ("time tiles: a time loop deeper than the dependence test takes is refused", "loopopt/codegen/cpu/plan/time_tiles.py",
     [("    if depth > MAX_OUTER_LOOPS:", "    if False:")]),
    ("rows in lanes: a row reached through mod / floordiv is no address a strip recomputes",
     "loopopt/codegen/cpu/plan/rows_in_lanes.py",
     [("    if _semi_affine(mlir.affine_map_attr(owner, \"map\")) and any(_depends_on(x, ivs, p) for x in owner.operands):",
       "    if False:")]),
    ("rows in lanes: no dependence between two rows of a strip runs backward", "loopopt/codegen/cpu/plan/rows_in_lanes.py",
     [("    why = interleave_violation(plan, facts)\n    if why is not None:",
       "    why = interleave_violation(plan, facts)\n    if False:")]),
    ("rows in lanes: a lane's copy only of what each row writes before it reads it", "loopopt/codegen/cpu/plan/rows_in_lanes.py",
     [("        if all(_covered(r, [w for w in accs if w.is_write], position, p, n_outer, scope)\n"
       "               for r in accs if not r.is_write):",
       "        if True:")]),
    ("rows in lanes: a lane's copy only of a buffer nothing outside the rows touches",
     "loopopt/codegen/cpu/plan/rows_in_lanes.py",
     [("        if any(not nested_in(mlir.operation(u.owner), p) for u in root.uses",
       "        if False and any(not nested_in(mlir.operation(u.owner), p) for u in root.uses")]),
    ("rows in lanes: the reduction's bounds do not move with the row", "loopopt/codegen/cpu/plan/rows_in_lanes.py",
     [("    if any(v in varying for v in bound_ops):", "    if False:")]),
    ("rows in lanes: nothing with unknown effects in the row loop", "loopopt/codegen/cpu/plan/rows_in_lanes.py",
     [("    unknown = unknown_effect_ops(p)\n", "    unknown = []\n")]),
    ("rows in lanes: a jammed row loop keeps the order of every dependence", "loopopt/codegen/cpu/plan/rows_in_lanes.py",
     [("    return jam_violation(lp, plan, facts) is None", "    return True")]),
    ("rows in lanes: a load the jammed rows share reads nothing the loop writes",
     "loopopt/codegen/cpu/plan/rows_in_lanes.py",
     [("        if any(may_alias(a, w) for w in written):\n            continue", "        pass")]),
    ("sweep vectors: no load reads what an earlier iteration stored", "loopopt/codegen/cpu/plan/sweep_vectors.py",
     [("    why = carried_violation(loop, facts)\n    if why is not None:", "    why = carried_violation(loop, facts)\n    if False:")]),
    ("sweep vectors: no store writes an element a store at or before it in the body writes later",
     "loopopt/codegen/cpu/plan/sweep_vectors.py",
     [("            if b.is_write and order.get(mlir.op_key(b.op), 0) > order.get(mlir.op_key(a.op), 0):",
       "            if b.is_write:")]),
    ("sweep vectors: every load comes before every store", "loopopt/codegen/cpu/plan/sweep_vectors.py",
     [("    if late:\n", "    if False:\n")]),
    ("sweep vectors: a load or store walks its last index by exactly one", "loopopt/codegen/cpu/plan/sweep_vectors.py",
     [("        if ivs[0] != (1 if last else 0):", "        if False:")]),
    ("sweep vectors: a memref whose last index is contiguous", "loopopt/codegen/cpu/plan/sweep_vectors.py",
     [("        form = None if acc is None or not _identity_layout(mem) else", "        form = None if acc is None else")]),
    ("time tiles: the tiled order keeps every dependence", "loopopt/codegen/cpu/plan/time_tiles.py",
     [("        why = tiling_violation(pairs, f, bt, bx, x0)\n        if why is None:",
       "        why = tiling_violation(pairs, f, bt, bx, x0)\n        if True:")]),
    ("time tiles: a sweep's bounds do not move with the time loop", "loopopt/codegen/cpu/plan/time_tiles.py",
     [("        if any(defined_inside(v, t_loop) for v in list(s.operands)[:lb.n_inputs + ub.n_inputs]):",
       "        if False:")]),
    ("runtime: a module with checks is called through its wrapper", "loopopt/runtime/kernel.py",
     [("        if spec.messages:  # the module has checks", "        if False:  # the module has checks")]),
    ("runtime: the check wrappers' jump buffer is per thread", "loopopt/runtime/checks.py",
     [("        \"static _Thread_local jmp_buf *loopopt_active;\",", "        \"static jmp_buf *loopopt_active;\",")]),
    # issue 35 (cache tiling, panels of a local B, isolation in strips)
    ("cache tiling: the blocked order keeps every dependence", "loopopt/codegen/cpu/cache_tile.py",
     [("        return permutation_violation(nest, blocked_order(len(band), levels), Scope())", "        return None")]),
    ("cache tiling: only a sum in memory, or carried from its own element, is cut", "loopopt/codegen/cpu/plan/cache_plan.py",
     [("    if kc and not sum_in_memory_only(tile):", "    if False:")]),
    ("cache tiling: a sum carried from its element ends in that element", "loopopt/codegen/cpu/plan/cache_plan.py",
     [("len(list(carried[0].uses)) != 1 or not _same_address(ld, st):", "len(list(carried[0].uses)) != 1:")]),
    ("cache tiling: blocks copy only pure ops of the row loop", "loopopt/codegen/cpu/plan/cache_plan.py",
     [("        copied = block_copy_refusal(q, p)  # each block runs Q's body: only pure ops may be copied",
       "        copied = None")]),
    ("cache tiling: a column loop carrying values is not cut", "loopopt/codegen/cpu/plan/cache_plan.py",
     [("    if nc and has_iter_args_op(p):", "    if False:")]),
    ("panel layout: a vector access stays within one panel", "loopopt/codegen/cpu/plan/panel_layout.py",
     [("            why = crossing(op, panel, scope)", "            why = None")]),
    ("panel layout: every use of the buffer is an access the layout rewrites", "loopopt/codegen/cpu/plan/panel_layout.py",
     [("        if user.name not in ACCESS_OPS + MASKED_OPS or use.operand_number != mpos:", "        if False:")]),
    ("panel layout: a masked vector access stays within one panel", "loopopt/codegen/cpu/plan/panel_layout.py",
     [("        if op.name.startswith(\"affine.vector_\") or op.name in MASKED_OPS:",
       "        if op.name.startswith(\"affine.vector_\"):")]),
    ("transpose tiles: the copy's source and destination cannot alias", "loopopt/codegen/cpu/plan/transpose_tiles.py",
     [("    if keys_may_alias(la.key, sa.key):", "    if False:")]),
    ("transpose tiles: a loop is at least one tile", "loopopt/codegen/cpu/plan/transpose_tiles.py",
     [("    if None in trips or any(t < lanes for t in trips):", "    if None in trips:")]),
    ("transpose tiles: whole tiles stop before a loop's partial tile", "loopopt/codegen/cpu/plan/transpose_tiles.py",
     [("    bm = b0 + (b1 - b0) // lanes * lanes", "    bm = b0 + -(-(b1 - b0) // lanes) * lanes")]),
    ("transpose tiles: a loop with a partial tile has constant bounds", "loopopt/codegen/cpu/plan/transpose_tiles.py",
     [("    if any(t % lanes for t in trips) and None in (constant_bounds(a), constant_bounds(b)):", "    if False:")]),
    ("transpose tiles: no two iterations store to one element", "loopopt/codegen/cpu/plan/transpose_tiles.py",
     [("and walks_last(index_strides(sa, nb)) and walks_across(index_strides(sa, na))):",
       "and walks_last(index_strides(sa, nb))):")]),
    ("transpose tiles: a mapped copy is one chain from the load, its other operands from outside the band",
     "loopopt/codegen/cpu/plan/transpose_tiles.py",
     [("        if len(list(prev.results[0].uses)) != 1 or mlir.operation(next(iter(prev.results[0].uses)).owner) != op:",
       "        if False:"),
      ("            if v.type != elem or _defined_inside(v, outer):", "            if v.type != elem:")]),
    ("transpose tiles: a mapped copy's ops have a lane form", "loopopt/codegen/cpu/plan/transpose_tiles.py",
     [("    if any(op.name not in MAP_OPS or len(op.results) != 1 or op.results[0].type != elem for op in maps):",
       "    if any(len(op.results) != 1 or op.results[0].type != elem for op in maps):")]),
    ("product isolation: a sum of squares is no matrix product (the factors are read along different loops)",
     "loopopt/codegen/cpu/isolate_products.py",
     [("    return a is None or b is None or a != b", "    return True")]),
    ("classifier heads: the unit dimension an expansion replaces is indexed by 0 in every access",
     "loopopt/codegen/cpu/isolate_products.py",
     [("        if size == 1 and all(d < len(m.results) and _is_zero(m.results[d]) for m in maps):",
       "        if size == 1:")]),
    ("flat reductions: the inner loop carries exactly the outer loop's values", "loopopt/codegen/cpu/flat_reductions.py",
     [("    if list(w.operands) != h_args or list(yield_op.operands) != list(w.results):", "    if False:")]),
    ("flat reductions: every access of the pair goes through the view exactly", "loopopt/codegen/cpu/flat_reductions.py",
     [("            why = access_refusal(mlir.operation(u.owner), h_iv, w_iv, rows, cols, top)", "            why = None")]),
    ("flat reductions: a sum or product is reordered only with --reassociate", "loopopt/codegen/cpu/flat_reductions.py",
     [("    if not exact and not options.reassociate:", "    if False:")]),
    ("pack B: every use of the buffer is the copy's store, a load or a dealloc",
     "loopopt/codegen/cpu/plan/column_block_packing.py",
     [("        elif user.name in READ_OPS and use.operand_number == 0:", "        elif True:")]),
    ("pack B: the nest that fills the buffer is a plain copy", "loopopt/codegen/cpu/plan/column_block_packing.py",
     [("        if op.name not in COPY_OPS:", "        if False:"),
      ("    if len(loads) != 1 or stores != [store] or store.operands[0] != loads[0].results[0] \\",
       "    if len(loads) != 1 \\")]),
    ("pack B: nothing from the copy to the product's end writes the source",
     "loopopt/codegen/cpu/plan/column_block_packing.py",
     [("        if any(keys_may_alias(k, wkey) for k in eff.writes):", "        if False:")]),
    ("pack B: every element a block reads is written by its copy", "loopopt/codegen/cpu/plan/column_block_packing.py",
     [("        if not read.is_subset(written):", "        if False:")]),
    ("pack B: the block's copy runs only iterations of the copy", "loopopt/codegen/cpu/plan/column_block_packing.py",
     [("        if not clone_dom.is_subset(orig_dom):", "        if False:")]),
    ("pack B: one write per element and the block's writes within its columns",
     "loopopt/codegen/cpu/plan/column_block_packing.py",
     [("        if not m.is_injective():", "        if False:"),
      ("        if not written.is_subset(window):", "        if False:")]),
    ("pack B: a row-blocked product keeps the whole copy", "loopopt/codegen/cpu/plan/column_block_packing.py",
     [("        if plan.refusal is None and plan.repeats and not PACK_PER_ROW_BLOCK:", "        if False:")]),
    ("pack B: a copy read by several loop nests stays whole", "loopopt/codegen/cpu/plan/column_block_packing.py",
     [("        elif plan.refusal is None and products > 1 and not PACK_PER_ROW_BLOCK:", "        elif False:")]),
    ("pack B: a loop around the column blocks restricts the copy's rows only if the block reads within it",
     "loopopt/codegen/cpu/plan/column_block_packing.py",
     [("        (reduction if within else repeats).append(lp)", "        reduction.append(lp)")]),
    ("isolation strips: each piece gets buffers of its own", "loopopt/codegen/cpu/isolate_products.py",
     [("        private += _privatize(rest, candidates)", "        pass")]),
    # issue 36, the kernels' temporaries and the repeated call (runtime/alloc.py, kernel.py's memo)
    ("runtime alloc: a cached block leaves the cache before it is given out", "loopopt/runtime/alloc.py",
     [("    loopopt_take(c, best);\n", "")]),
    ("runtime alloc: the cache of freed blocks is bounded in bytes", "loopopt/runtime/alloc.py",
     [("  while (c->n == LOOPOPT_SLOTS || (c->n && c->held + size > limit)) {{",
       "  while (c->n == LOOPOPT_SLOTS) {{")]),
    ("runtime alloc: a block larger than the limit is freed, not kept", "loopopt/runtime/alloc.py",
     [("  if (size > limit) {{\n    free(b);\n    return;\n  }}\n", "")]),
    ("runtime alloc: the cache of freed blocks is per thread", "loopopt/runtime/alloc.py",
     [("static _Thread_local struct loopopt_cache loopopt_cache;", "static struct loopopt_cache loopopt_cache;")]),
    ("runtime alloc: a failed check hands back the temporaries its call held", "loopopt/runtime/checks.py",
     [('            f"    {alloc.ABANDON}(outer_call); /* the temporaries the kernel held when it stopped */",\n', "")]),
    ("runtime alloc: a freed block leaves the live list", "loopopt/runtime/alloc.py",
     [("  c->live_bytes -= size;\n  c->live_n--;\n", "")]),
    ("runtime alloc: an object's hidden names are made local", "loopopt/runtime/build.py",
     [("        return localize_hidden(_link([obj, *extra], [\"-r\", \"-nostdlib\"], tc, 600), tc) if extra else obj",
       "        return _link([obj, *extra], [\"-r\", \"-nostdlib\"], tc, 600) if extra else obj")]),
    ("runtime alloc: the printed recipe lowers as the library's build", "loopopt/runtime/build.py",
     [("    passes = \" \".join(RUNTIME_LOWERING_PASSES)", "    passes = \" \".join(LOWERING_PASSES)")]),
    ("runtime alloc: the memo serves only the same arrays", "loopopt/runtime/kernel.py",
     [("                    if r() is not a or a.shape != shape", "                    if a.shape != shape")]),
    ("runtime alloc: the memo serves only arrays unchanged since checked", "loopopt/runtime/kernel.py",
     [("                    if r() is not a or a.shape != shape or a.dtype is not dtype or a.flags.num & mask != want:",
       "                    if r() is not a:")]),
    ("runtime alloc: the memo's out= tuple goes with the inputs' count", "loopopt/runtime/kernel.py",
     [("            elif type(out) is tuple and len(args) == n_in:", "            elif type(out) is tuple:")]),
    # issue 36 (the repeated call in C, runtime/callext.py: the same guards as the Python memo's)
    ("runtime call: the C memo serves only the same arrays", "loopopt/runtime/callext.py",
     [("    if (target != a || a == Py_None) /* a dead reference's target reads as None (before 3.13) */",
       "    if (a == Py_None)")]),
    ("runtime call: the C memo serves only arrays unchanged since checked", "loopopt/runtime/callext.py",
     [("        (PyArray_FLAGS(arr) & g->mask) != g->want ||", "")]),
    ("runtime call: the C memo compares the dims", "loopopt/runtime/callext.py",
     [("    if (PyArray_NDIM(arr) != g->nd || (PyObject *)PyArray_DESCR(arr) != g->descr ||",
       "    if ((PyObject *)PyArray_DESCR(arr) != g->descr ||"),
      ("        memcmp(PyArray_DIMS(arr), &e->dims[g->dim_at], sizeof(npy_intp) * (size_t)g->nd) != 0)",
       "        0)")]),
    ("runtime call: the C memo's out= tuple goes with the inputs' count", "loopopt/runtime/callext.py",
     [("    } else if (PyTuple_CheckExact(out) && npos == e->n_in) {", "    } else if (PyTuple_CheckExact(out)) {")]),
    ("runtime call: a check failing in the C call raises", "loopopt/runtime/callext.py",
     [("  if (e->checked && got) {", "  if (0) {")]),
    ("runtime call: the C call releases the GIL when another thread could take it", "loopopt/runtime/callext.py",
     [("  if (runs_alone())\n", "  if (1)\n")]),
    # issue 35 (gpt2_layer: a sum fused into a product's output loop blocks its register tile)
    ("product fusion: a product's output loop takes on no sum its tile's lanes may not share",
     "loopopt/codegen/cpu/hooks.py",
     [("        if kind is None or reduction_loop_of(p, facts.scope) is None:", "        if True:")]),
    # section 39 (a batched Linear: the split rescue cut the product's rows at the batch size)
    ("product split: a loop over a product's rows, columns or reduction is not split for a head that fuses",
     "loopopt/codegen/cpu/hooks.py",
     [("        if dim is None:\n            return None", "        if True:\n            return None")]),
    ("product split: a batch loop (C and both factors) is no product dimension", "loopopt/codegen/cpu/isolate_products.py",
     [("        if iv in c and (iv in a) != (iv in b):", "        if iv in c:")]),
    ("gathered lanes: no masked tail with a gathered load", "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("    if gathered:\n        return \"a load of i1 reads every lane on its own\"",
       "    if False:\n        return \"a load of i1 reads every lane on its own\"")]),
    ("gathered lanes: a load of i1 is never read as two vectors", "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("            if narrow is None and strided is not None and strided_lane_load(p, a, axis.name):",
       "            if strided is not None and strided_lane_load(p, a, axis.name):")]),
    # frontend/rewrites.py (docs/frontend.md): a public function's inputs are only read
    ("read-only inputs: tensor arguments are marked not writable", "loopopt/frontend/rewrites.py",
     [("            entries[WRITABLE] = ir.BoolAttr.get(False)", "            entries[WRITABLE] = ir.BoolAttr.get(True)")]),
    # frontend/zero_phases.py (docs/frontend.md): products with inserted zeros are skipped only
    # where each is a zero that adding changes nothing: weights finite, no accumulator at -0
    ("inserted zeros: every weight is checked finite at run time", "loopopt/frontend/zero_phases.py",
     [('[f"%abs = math.absf %in : {ety}", f"%pass = arith.cmpf olt, %abs, %{out}_c : {ety}"]',
       '[f"%abs = math.absf %in : {ety}", "%pass = arith.constant true"]')]),
    ("inserted zeros: no accumulator starts at -0, checked at run time", "loopopt/frontend/zero_phases.py",
     [('f"%pass = arith.cmpi ne, %bits, %{out}_c : i{bits}"]', '"%pass = arith.constant true"]')]),
    ("inserted zeros: an init filled with the constant -0 is refused", "loopopt/frontend/zero_phases.py",
     [("            return not (attr.value == 0.0 and math.copysign(1.0, attr.value) < 0), None",
       "            return True, None")]),
    ("inserted zeros: the elements around the slice are a constant zero", "loopopt/frontend/zero_phases.py",
     [("    return str(attr) if attr is not None and attr.value == 0.0 else None",
       "    return str(attr) if attr is not None else None")]),
    ("inserted zeros: a spatial dimension reshaped by the expand_shape is refused", "loopopt/frontend/zero_phases.py",
     [("        if k is None or groups[k] != [i]:", "        if k is None:")]),
    ("inserted zeros: a convolution with a stride or a dilation is refused", "loopopt/frontend/zero_phases.py",
     [('    if not (_unit_attr(conv, "strides") and _unit_attr(conv, "dilations")):', "    if False:")]),
    # frontend/branch_yields.py, rewrites.py (docs/cpu_codegen.md section 42): an scf.if result is
    # replaced only by the value both branches yield; a fill is shared only by exclusive branches
    ("branch buffers: only a result both branches yield as one value is folded", "loopopt/frontend/branch_yields.py",
     [("    same = tuple(a if a == b else None for a, b in zip(then_y.operands, else_y.operands))",
       "    same = tuple(a for a, b in zip(then_y.operands, else_y.operands))")]),
    ("shared fills: only users in different branches of one scf.if share a fill", "loopopt/frontend/rewrites.py",
     [('            return name == "scf.if" and other != index', '            return name == "scf.if"')]),
    # frontend/unit_dims.py (docs/cpu_codegen.md section 37): a temporary loses a trailing
    # dimension only where it has size 1 and every use is an affine access (or its dealloc)
    ("unit dims: a use other than an affine access or a dealloc leaves the buffer", "loopopt/frontend/unit_dims.py",
     [("        if _MEMREF_OPERAND.get(user.name) != u.operand_number:", "        if False:")]),
    ("unit dims: a buffer of another layout is left alone", "loopopt/frontend/unit_dims.py",
     [("    if t is None or not mlir.identity_layout(t):", "    if t is None:")]),
    ("unit dims: only dimensions of static size 1 are dropped", "loopopt/frontend/unit_dims.py",
     [("    while k < len(shape) - 1 and shape[len(shape) - 1 - k] == 1:", "    while k < len(shape) - 1:")]),
    # codegen/cpu/unit_loops.py, cpu_plan.unit_tail (docs/cpu_codegen.md section 38): only a loop of one
    # iteration is replaced by its body; a lane access leaves out only trailing dimensions of size 1
    ("unit loops: only a loop of one iteration is replaced by its body", "loopopt/transforms/unit_loops.py",
     [('    return cb is not None and 0 < cb[1] - cb[0] <= mlir.int_attr(loop, "step")',
       "    return cb is not None and 0 < cb[1] - cb[0]")]),
    ("unit loops: a lane access leaves out only dimensions of static size 1", "loopopt/codegen/cpu/plan/cpu_plan.py",
     [("    while k < mt.rank - 1 and not mt.is_dynamic_dim(mt.rank - 1 - k) and mt.get_dim_size(mt.rank - 1 - k) == 1:",
       "    while k < mt.rank - 1:")]),
    # docs/cpu_codegen.md section 23: a parallel loop joins only a reduction that stays vector; a
    # gathered element is recomputed only from a producer whose body is its value at that point
    ("row streams: a reduction joined by a parallel loop stays vector (exact, or reassociated)",
     "loopopt/codegen/cpu/hooks.py",
     [("    return bool(reds) and len(reds) == len(writes) and all(r.exact or reassociate for r in reds)",
       "    return bool(reds)")]),
    # docs/cpu_codegen.md section 41: a widening copy is cast again in its readers
    # section 47: a pair over SBSize fuses at the next inner common loop; a batch of one put back
    ("inner level: the inner pair passes the battery in the fused shells", "loopopt/loop_optimization/inner_level.py",
     [("    if not inner_legal(i1, i2, inner_facts):", "    if False:")]),
    ("inner level: a reshaped result is computed in place only when the copy is the view's one use",
     "loopopt/frontend/rewrites.py",
     [('    if view is None or view.name != kind or len(list(v.uses)) != 1:',
       '    if view is None or view.name != kind:')]),
    ("recompute casts: the copy's maps are the identity (its element at a point is the cast of the input's there)",
     "loopopt/frontend/cast_recompute.py",
     [("    if any(\"parallel\" not in k for k in kinds) or not all(_identity(m) for m in _maps(producer)):",
       "    if any(\"parallel\" not in k for k in kinds):")]),
    ("recompute casts: only a widening cast (a copy with more bytes than its input)", "loopopt/frontend/cast_recompute.py",
     [("ops[0].name not in WIDENING or", "ops[0].name not in WIDENING + (\"arith.truncf\",) or")]),
    ("recompute casts: a reader that writes into the copy keeps it", "loopopt/frontend/cast_recompute.py",
     [("    if use.operand_number >= n_in:", "    if False:")]),
    ("recompute casts: a reader runs no more iterations than the copy has elements", "loopopt/frontend/cast_recompute.py",
     [("    if points > produced:", "    if False:")]),
    ("row streams: a gather's producer has no reduction loop", "loopopt/frontend/gather_recompute.py",
     [('    if any("parallel" not in k for k in kinds):', "    if False:")]),
    ("row streams: a gather's producer does not read its output's initial value", "loopopt/frontend/gather_recompute.py",
     [("        if next(iter(arg.uses), None) is not None:\n            return \"its producer's body reads its output's initial value\"",
       "        if False:\n            return \"its producer's body reads its output's initial value\"")]),
    ("row streams: a gather's producer body holds only pure arith/math ops", "loopopt/frontend/gather_recompute.py",
     [('        if op.name in ("linalg.yield", "linalg.index") or _pure_body_op(op):', "        if True:")]),
    ("row streams: an extract runs no more often than its producer has points", "loopopt/frontend/gather_recompute.py",
     [("    if here > points:", "    if False:")]),
    ("row streams: a store is overwritten only by a later store of the same element", "loopopt/codegen/cpu/dead_stores.py",
     [('        if o.name == "affine.store" and _same_address(store, o):', '        if o.name == "affine.store":')]),
    ("row streams: an argument's store is dead only if no op between uses the argument", "loopopt/codegen/cpu/dead_stores.py",
     [("        for b in (order or BlockOrder()).after(a)[:MAX_SCAN]:\n            if _non_store_uses(b, users):\n                return None",
       "        for b in (order or BlockOrder()).after(a)[:MAX_SCAN]:\n            if False:\n                return None")]),
    ("row streams: the later nest writes every element the store wrote", "loopopt/codegen/cpu/dead_stores.py",
     [("    return fa is not None and fb is not None and _nested_text(fa, fb)", "    return True")]),
    ("row streams: the overwriting store runs in every iteration", "loopopt/codegen/cpu/dead_stores.py",
     [('        if all(p.name == "affine.for" for p in', '        if all(True for p in')]),
    ("row streams: an argument whose store is removed shares memory with no other", "loopopt/codegen/cpu/dead_stores.py",
     [("    key = buffer_key(buf)\n    if key is not buf:\n        return False", "    return True")]),
    ("row streams: no use of the buffer between a store and the store overwriting it", "loopopt/codegen/cpu/dead_stores.py",
     [('            if mlir.op_key(x) in users and x.name not in ("affine.store", "memref.store", "affine.vector_store"):',
       "            if False:")]),
    # codegen/cpu/plan/residue_order.py (docs/cpu_codegen.md section 43): a loop runs by residue only when
    # no two of its iterations touch one element, one writing; a masked vector access counts as its vector
    ("residue order: a loop whose iterations conflict keeps its order", "loopopt/codegen/cpu/plan/residue_order.py",
     [("        if carries:\n", "        if False:\n")]),
    # frontend/scans.py (docs/cpu_codegen.md section 43): a dynamic scanned dimension only without the
    # accumulator, its loops guarded; the accumulator is the last output only for two elements or more
    ("scans: a dynamic scanned dimension is rewritten only when the accumulator is unused", "loopopt/frontend/scans.py",
     [("    if t.is_dynamic_dim(dim) and with_acc:", "    if False:")]),
    ("scans: a dynamic scanned dimension's loops run only when it is not empty", "loopopt/frontend/scans.py",
     [("    if dim in sizes:  # a dynamic scanned dimension: nothing to do when it is empty", "    if False:")]),
    ("scans: a scan of one element keeps its accumulator", "loopopt/frontend/scans.py",
     [('        src = (f"%y = affine.load %out[{index(str(n - 1))}] : {mt}" if n >= 2 else',
       '        src = (f"%y = affine.load %out[{index(str(n - 1))}] : {mt}" if n >= 1 else')]),
    ("residue order: a masked access counts as every element of its vector", "loopopt/codegen/cpu/plan/residue_order.py",
     [("        if a.index is None and a.op.name in MASKED_ACCESSES:\n            a = may_access(a.op, scope)\n",
       "        if a.index is None and a.op.name in MASKED_ACCESSES:\n            continue\n")]),
]


def _scratch(tmp: str) -> None:
    for d in ("loopopt", "tests", "examples", "scripts", "benchmarks"):  # tests import benchmarks/scaling.py and run the model blocks
        if os.path.isdir(os.path.join(ROOT, d)):
            shutil.copytree(os.path.join(ROOT, d), os.path.join(tmp, d),
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for f in ("pyproject.toml",):
        shutil.copy(os.path.join(ROOT, f), tmp)


def _pytest(tmp: str, selection: list[str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=tmp, LOOPOPT_FUZZ_COUNT=os.environ.get("LOOPOPT_FUZZ_COUNT", "150"))
    return subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *selection],
                          cwd=tmp, env=env, capture_output=True, text=True)


def _summary(p: subprocess.CompletedProcess) -> str:
    failed = [ln for ln in p.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
    lines = p.stdout.strip().splitlines()
    return failed[0] if failed else (lines[-1] if lines else p.stderr.strip()[-200:])


def focus_of(name: str) -> list[str]:
    return FOCUS_BY_NAME.get(name) or FOCUS.get(name.split(":")[0], [])


def run_one(name: str, path: str, edits: list, pytest_args: list[str], focus_only: bool) -> tuple[bool, float, str]:
    with tempfile.TemporaryDirectory(prefix="loopopt-mut-") as tmp:
        _scratch(tmp)
        target = os.path.join(tmp, path)
        text = open(target).read()
        for old, new in edits:
            if text.count(old) != 1:
                return False, 0.0, f"mutation site not found exactly once in {path}: {old.splitlines()[0].strip()!r}"
            text = text.replace(old, new)
        open(target, "w").write(text)
        t0 = time.time()
        selections = [[*focus_of(name), *pytest_args]]
        if not focus_only:
            selections.append(["tests", *pytest_args])
        for selection in selections:
            p = _pytest(tmp, selection)
            if p.returncode != 0:
                break
        return p.returncode != 0, time.time() - t0, _summary(p)


def baseline(names: list[str], pytest_args: list[str]) -> dict:
    """Focus selection -> None if it passes unmutated, else what failed."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="loopopt-mut-") as tmp:
        _scratch(tmp)
        for name in names:
            key = tuple(focus_of(name))
            if key in out:
                continue
            p = _pytest(tmp, [*key, *pytest_args])
            out[key] = None if p.returncode == 0 else _summary(p)
            print(f"BASELINE {'ok  ' if out[key] is None else 'FAIL'} {' '.join(key)}"
                  f"{'' if out[key] is None else '  ' + out[key]}", flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="run only mutations whose name contains this text")
    ap.add_argument("--pytest-args", default="", help="extra pytest arguments (e.g. a test selection)")
    ap.add_argument("--focus-only", action="store_true", help="never fall back to the whole suite")
    ap.add_argument("--baseline", action="store_true", help="first check each focus selection passes unmutated")
    args = ap.parse_args()
    chosen = [m for m in MUTATIONS if not args.only or args.only in m[0]]
    extra = args.pytest_args.split()
    base = baseline([m[0] for m in chosen], extra) if args.baseline else {}
    caught = 0
    for name, path, edits in chosen:
        if base.get(tuple(focus_of(name))):
            print(f"SKIPPED  {name:52s}  its tests fail without the mutation", flush=True)
            continue
        ok, secs, what = run_one(name, path, edits, extra, args.focus_only)
        caught += ok
        print(f"{'CAUGHT ' if ok else 'MISSED '} {name:52s} {secs:6.1f} s  {what}", flush=True)
    print(f"{caught} of {len(chosen)} disabled checks caught")
    return 0 if caught == len(chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
