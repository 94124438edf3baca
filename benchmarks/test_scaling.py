"""The scaling study's generators, growth exponents and target verdicts (no tool is run).

Run: python3 -m pytest benchmarks/test_scaling.py   (~3 s)
"""
from __future__ import annotations

import math
import os
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
for path in (os.path.dirname(HERE), HERE):
    if path not in sys.path:
        sys.path.insert(0, path)

from loopopt import mlir  # noqa: E402
from loopopt.mlir import affine_map_attr, block_ops, func_body, functions, parse_module, walk  # noqa: E402

import report  # noqa: E402
import scaling  # noqa: E402
from scaling import Measurement  # noqa: E402


def body_names(text: str) -> list[str]:
    """Op names of the function body, in order (the text must parse and verify)."""
    module = parse_module(text, "generated.mlir")
    [fn] = functions(module)
    return [op.name for op in block_ops(func_body(fn))]


def top_loops(text: str) -> list:
    module = parse_module(text, "generated.mlir")
    [fn] = functions(module)
    return [op for op in block_ops(func_body(fn)) if op.name == "affine.for"], module


def upper_bound(loop) -> int:
    return affine_map_attr(loop, "upperBoundMap").results[0].value


def ops_named(op, name: str) -> int:
    """Ops of that name nested in `op` (walk leaves `op` itself out)."""
    return sum(1 for o in walk(op) if o.name == name)


@pytest.mark.parametrize("pattern", scaling.PATTERNS, ids=lambda p: p.name)
def test_every_pattern_parses_at_its_two_smallest_sizes_and_has_one_tool_of_each_side(pattern):
    for n in pattern.sizes[:2]:
        assert body_names(pattern.generate(n))[-1] == "func.return"
    assert any(scaling.is_loopopt(t) for t in pattern.tools)
    assert any(not scaling.is_loopopt(t) for t in pattern.tools)
    assert list(pattern.sizes) == sorted(set(pattern.sizes)) and len(pattern.sizes) >= 2


def test_chain_layouts_differ_only_in_where_the_allocs_are():
    top, inter = body_names(scaling.chain_allocs_top(5)), body_names(scaling.chain_interleaved(5))
    assert sorted(top) == sorted(inter)
    assert top.count("affine.for") == 5 and top.count("memref.alloc") == 4
    first_loop = top.index("affine.for")
    assert all(i < first_loop for i, name in enumerate(top) if name == "memref.alloc")
    # interleaved: every alloc is right before the loop that fills it
    assert all(inter[i + 1] == "affine.for" for i, name in enumerate(inter) if name == "memref.alloc")
    assert scaling.chain_module is scaling.chain_allocs_top


@pytest.mark.parametrize("gen, depth", [(scaling.refused_1d, 1), (scaling.refused_2d, 2)])
def test_refused_nests_alternate_trip_counts_16_and_15_over_one_buffer(gen, depth):
    loops, module = top_loops(gen(7))
    assert [upper_bound(loop) for loop in loops] == [16, 15, 16, 15, 16, 15, 16]
    assert all(1 + ops_named(loop, "affine.for") == depth for loop in loops)
    [fn] = functions(module)
    assert len(fn.regions[0].blocks[0].arguments) == 1


def test_many_accesses_puts_k_loads_and_k_stores_in_the_first_loop():
    loops, _ = top_loops(scaling.many_accesses(12))
    assert len(loops) == 2
    assert (ops_named(loops[0], "affine.load"), ops_named(loops[0], "affine.store")) == (12, 12)
    assert upper_bound(loops[1]) == 4 * 12


def test_unrolled_private_writes_then_reads_each_iterations_own_slice():
    text = scaling.unrolled_private(8)
    loops, _ = top_loops(text)
    assert len(loops) == 1
    assert text.count("affine.store") == 16 and text.count("affine.load %b") == 8
    assert "%b[%i * 8 + 7]" in text and "%b[%i * 8 + 8]" not in text


def test_shared_buffer_nests_read_one_placed_buffer_transposed_and_in_place():
    text = scaling.shared_buffer(5)
    loops, module = top_loops(text)
    assert [upper_bound(loop) for loop in loops] == [16, 15, 16, 15, 16]
    assert all(1 + ops_named(loop, "affine.for") == 2 for loop in loops)
    inner = [next(o for o in walk(loop) if o.name == "affine.for") for loop in loops]
    assert [upper_bound(loop) for loop in inner] == [16, 15, 16, 15, 16]
    assert text.count("memref.alloc() : memref<16x16xf32>") == 1
    assert text.count("affine.load %a[%j, %i]") == text.count("affine.load %a[%i, %j]") == 5
    assert text.count("affine.store %z, %a[%i, %j]") == 5


def test_strided_private_puts_every_access_of_the_temporary_in_one_residue_class():
    from loopopt.analysis.affine import Scope
    from loopopt.analysis.accesses import collect_accesses
    from loopopt.analysis.dependence import disjoint_classes

    k = 6
    loops, _ = top_loops(scaling.strided_private(k))
    [loop] = loops
    b = [a for a in collect_accesses(loop, Scope()) if mlir.value_owner(a.root)[0] is not None]  # the alloc
    assert len(b) == 2 * k and sum(a.is_write for a in b) == k
    assert len(disjoint_classes(b, Scope())) == 1  # unrolled_private's split into k classes does not apply


def test_distribute_refused_has_k_statements_and_a_reader_one_iteration_ahead():
    k = 7
    loops, _ = top_loops(scaling.distribute_refused(k))
    assert len(loops) == 2
    assert (ops_named(loops[0], "affine.load"), ops_named(loops[0], "affine.store")) == (k, k)
    assert (ops_named(loops[1], "affine.load"), ops_named(loops[1], "affine.store")) == (1, 1)
    assert f"%b[%i * {k} + {k}]" in scaling.distribute_refused(k)


def test_licm_loads_are_invariant_and_stores_never_reach_them():
    k = 9
    loops, _ = top_loops(scaling.licm_accesses(k))
    [loop] = loops
    loads = [o for o in walk(loop) if o.name == "affine.load"]
    stores = [o for o in walk(loop) if o.name == "affine.store"]
    assert len(loads) == len(stores) == k
    read = {affine_map_attr(o, "map").results[0].value for o in loads}  # constant subscripts
    assert read == set(range(k))
    lowest_store = min(int(str(affine_map_attr(o, "map").results[0]).split("+")[-1]) for o in stores)
    assert lowest_store >= k  # at i = 0; larger i only moves further away


def test_mixed_units_have_five_loops_and_allocs_right_before_their_loops():
    names = body_names(scaling.mixed(3))
    assert names.count("affine.for") == 15
    assert names.count("memref.alloc") == 3 * 3 - 1  # the last unit writes %out
    assert all(names[i + 1] == "affine.for" for i, name in enumerate(names) if name == "memref.alloc")
    loops, _ = top_loops(scaling.mixed(2))
    assert [upper_bound(loop) for loop in loops] == [64, 64, 16, 15, 4] * 2
    assert ops_named(loops[4], "affine.load") == scaling.MIXED_ACCESSES


@pytest.mark.parametrize("gen, depth", [(scaling.inplace_chain, 1), (scaling.inplace_chain_2d, 2),
                                        (scaling.inplace_chain_symbolic, 1)])
def test_inplace_chains_update_one_argument_in_place(gen, depth):
    text = gen(6)
    loops, module = top_loops(text)
    assert len(loops) == 6 and all(1 + ops_named(loop, "affine.for") == depth for loop in loops)
    [fn] = functions(module)
    assert "memref.alloc" not in text
    for loop in loops:  # each loop loads and stores the same element of %A
        [load] = [o for o in walk(loop) if o.name == "affine.load"]
        [store] = [o for o in walk(loop) if o.name == "affine.store"]
        assert load.operands[0] == store.operands[1] == fn.regions[0].blocks[0].arguments[0]
        assert str(affine_map_attr(load, "map")) == str(affine_map_attr(store, "map"))
    assert ("to %n" in text) == (gen is scaling.inplace_chain_symbolic)


@pytest.mark.parametrize("gen", [scaling.refused_copy, scaling.refused_copy_1d, scaling.refused_copy_symbolic])
def test_refused_copies_sit_between_a_copy_in_and_a_copy_out_of_one_placed_buffer(gen):
    text = gen(5)
    loops, module = top_loops(text)
    assert len(loops) == 7 and text.count("memref.alloc") == 1
    [fn] = functions(module)
    a, b = list(fn.regions[0].blocks[0].arguments)[:2]
    t = next(o for o in walk(fn) if o.name == "memref.alloc").results[0]

    def buffers(loop, name):  # the buffer operand of each load or store in the loop
        return [o.operands[0 if name == "affine.load" else 1] for o in walk(loop) if o.name == name]

    assert buffers(loops[0], "affine.load") == [a] and buffers(loops[0], "affine.store") == [t]
    assert buffers(loops[-1], "affine.load") == [t] and buffers(loops[-1], "affine.store") == [b]
    for loop in loops[1:-1]:
        assert buffers(loop, "affine.load") == [t, t] and buffers(loop, "affine.store") == [t]
    if gen is scaling.refused_copy_symbolic:
        n, m = list(fn.regions[0].blocks[0].arguments)[2:]
        assert [loop.operands[0] for loop in loops[1:-1]] == [n, m, n, m, n]
    else:
        assert [upper_bound(loop) for loop in loops[1:-1]] == [16, 15, 16, 15, 16]


def test_deep_nest_is_one_perfect_nest_of_the_given_depth():
    loops, _ = top_loops(scaling.deep_nest(40))
    assert len(loops) == 1 and 1 + ops_named(loops[0], "affine.for") == 40


# --- growth exponents

def test_local_exponent_is_the_slope_between_the_two_largest_sizes_that_ran():
    pts = [(100, 1.0), (200, 4.0), (400, 16.0)]
    assert scaling.local_exponent(pts) == pytest.approx(2.0)
    assert scaling.local_exponent(pts + [(800, None)]) == pytest.approx(2.0)
    assert scaling.local_exponent([(100, 1.0), (400, 2.0)]) == pytest.approx(0.5)
    assert scaling.local_exponent([(100, 1.0)]) is None
    assert scaling.growth_exponent([(10, 3.0), (100, 30.0), (1000, 300.0)]) == pytest.approx(1.0)


def test_net_exponent_removes_a_fixed_start_up_cost():
    pts = [(n, 0.4 + 0.001 * n) for n in (1000, 2000)]
    assert scaling.local_exponent(pts) < 0.9
    assert scaling.net_exponent(pts, 0.4) == pytest.approx(1.0)
    assert scaling.net_exponent(pts, 1.5) is None  # not above the fixed cost
    assert scaling.net_exponent(pts, None) is None


def test_a_timeout_gives_a_lower_bound_on_the_exponent():
    pts = [(100, 2.0, "ok"), (200, None, "timeout (120 s)"), (400, None, "skipped (timed out at 200)")]
    assert scaling.timeout_lower_bound(pts) == pytest.approx(math.log(60) / math.log(2))
    assert scaling.timeout_lower_bound([(100, 2.0, "ok"), (200, 3.0, "ok")]) is None
    assert scaling.timeout_lower_bound([(100, None, "timeout (120 s)")]) is None


# --- the target

def _ms(pattern, tool, times, statuses=None):
    sizes = (100, 200)
    statuses = statuses or ["ok"] * len(times)
    return [Measurement(pattern, tool, n, t, 100.0, s) for n, t, s in zip(sizes, times, statuses)]


def test_verdicts_need_both_faster_at_the_largest_size_and_slow_growth():
    fast_linear = _ms("p", scaling.LOOPOPT_CPU, [1.0, 2.0])
    fast_quadratic = _ms("p", scaling.LOOPOPT_TRN1, [1.0, 4.0])
    mlir = _ms("p", scaling.MLIR_FUSION, [2.0, 5.0])
    v = {x.tool: x for x in scaling.verdicts(fast_linear + fast_quadratic + mlir)}
    assert v[scaling.LOOPOPT_CPU].met and v[scaling.LOOPOPT_CPU].mlir_seconds == 5.0
    assert v[scaling.LOOPOPT_TRN1].faster and not v[scaling.LOOPOPT_TRN1].grows_ok
    slower = scaling.verdicts(_ms("q", scaling.LOOPOPT_CPU, [1.0, 2.0]) + _ms("q", scaling.MLIR_FUSION, [0.5, 1.0]))
    assert not slower[0].faster and slower[0].grows_ok and not slower[0].met


def test_single_loops_are_held_within_twice_mlir_or_half_a_second_and_the_chain_under_ten_seconds():
    assert scaling.meets_goal(scaling.WITHIN, 0.99, 0.04) and not scaling.meets_goal(scaling.WITHIN, 1.01, 0.04)
    assert scaling.meets_goal(scaling.WITHIN, 1.9, 1.0) and not scaling.meets_goal(scaling.WITHIN, 2.1, 1.0)
    assert scaling.meets_goal(scaling.WITHIN, 5.0, None) and not scaling.meets_goal(scaling.WITHIN, None, 0.04)
    assert scaling.meets_goal(scaling.under(10), 9.9, 1.0) and not scaling.meets_goal(scaling.under(10), 10.5, None)
    assert scaling.meets_goal(scaling.GROWTH_ONLY, 50.0, 1.0) and not scaling.meets_goal(scaling.GROWTH_ONLY, None, 1.0)
    # the pattern's goal and limit: licm is a single loop, inplace_chain must stay under 10 s with k <= 1.2
    licm = [Measurement("licm", scaling.LOOPOPT_CPU, n, t, 1.0, "ok", 1, c) for n, t, c in ((100, 0.5, 0.4), (200, 0.9, 0.6))]
    licm += [Measurement("licm", scaling.MLIR_LICM, n, 0.04, 1.0, "ok", 1, 0.03) for n in (100, 200)]
    [v] = scaling.verdicts(licm)
    assert v.goal == scaling.WITHIN and v.faster and v.cpu_ok and v.met
    chain = [Measurement("inplace_chain", scaling.LOOPOPT_CPU, n, t, 1.0, "ok", 1, t) for n, t in ((1000, 4.0), (2000, 9.5))]
    [v] = scaling.verdicts(chain)
    assert v.faster and v.limit == 1.2 and not v.grows_ok  # k = 1.25


def test_measure_reports_the_childs_cpu_time():
    secs, _, status, cpu = scaling.measure([sys.executable, "-c", "sum(range(3 * 10 ** 7))"], timeout=60)
    assert status == "ok" and 0.05 < cpu <= secs + 0.05


def test_the_fastest_mlir_tool_is_the_reference_and_a_timeout_counts_as_slower():
    lo = _ms("p", scaling.LOOPOPT_CPU, [1.0, 2.0])
    both = lo + _ms("p", scaling.MLIR_FUSION, [2.0, 9.0]) + _ms("p", scaling.MLIR_LICM, [0.5, 1.0])
    [v] = scaling.verdicts(both)
    assert v.mlir_tool == scaling.MLIR_LICM and not v.faster
    late = lo + _ms("p", scaling.MLIR_FUSION, [50.0, None], ["ok", "timeout (120 s)"])
    [v] = scaling.verdicts(late)
    assert v.met and v.mlir_seconds is None and v.mlir_status.startswith("timeout")
    mine_late = _ms("p", scaling.LOOPOPT_CPU, [1.0, None], ["ok", "timeout (120 s)"]) + _ms("p", scaling.MLIR_FUSION, [2.0, 5.0])
    [v] = scaling.verdicts(mine_late)
    assert not v.faster and not v.grows_ok


def test_summary_and_markdown_show_the_numbers_and_the_misses():
    results = (_ms("p", scaling.LOOPOPT_CPU, [1.0, 4.0]) + _ms("p", scaling.MLIR_FUSION, [2.0, None], ["ok", "timeout (120 s)"]))
    data = scaling.summarize(results, startup=0.4)
    fits = data["fits"]["p"]
    assert fits[scaling.LOOPOPT_CPU]["exponent_last"] == pytest.approx(2.0)
    assert fits[scaling.MLIR_FUSION]["exponent_at_least"] == pytest.approx(math.log(60) / math.log(2))
    [v] = data["verdicts"]
    assert v["faster"] and not v["grows_ok"] and not v["met"]
    text = "\n".join(report.scaling_markdown(data))
    assert "| p | 200 | loopopt --target cpu | 4.00 | > 120 s (timeout) | 2.00 |" in text
    assert "| 200 | 4.00 | > 120 s (timeout) |" in text
    assert "**NO**" in text


def test_a_merged_run_replaces_the_patterns_it_measured_and_keeps_the_others():
    old = scaling.summarize(_ms("licm", scaling.LOOPOPT_CPU, [1.0, 2.0]) + _ms("mixed", scaling.LOOPOPT_CPU, [3.0, 4.0]), 0.2)
    old.update(date="2026-01-01", machine={"load_average": [1.0, 1.0, 1.0], "cpu": "AMD"})
    data = scaling.merge_results(old, _ms("mixed", scaling.LOOPOPT_CPU, [5.0, 6.0]), 0.3, 60.0)
    got = {(m["pattern"], m["size"]): m["seconds"] for m in data["measurements"]}
    assert got == {("licm", 100): 1.0, ("licm", 200): 2.0, ("mixed", 100): 5.0, ("mixed", 200): 6.0}
    assert [m["pattern"] for m in data["measurements"]] == ["licm", "licm", "mixed", "mixed"]  # PATTERNS order
    assert data["merged"]["rerun"] == ["mixed"]
    assert data["merged"]["kept"]["licm"]["date"] == "2026-01-01"
    assert data["fits"]["mixed"][scaling.LOOPOPT_CPU]["exponent_last"] == pytest.approx(math.log(6 / 5) / math.log(2))
    assert data["units"]["licm"].endswith("(kept from the run of 2026-01-01 on AMD, load average at start "
                                          "1.00, 1.00, 1.00, start-up 0.20 s)")
    # net of the kept run's own start-up (0.2 s), not this run's (0.3 s)
    assert data["fits"]["licm"][scaling.LOOPOPT_CPU]["exponent_last_net"] == pytest.approx(math.log(1.8 / 0.8) / math.log(2))
    again = scaling.merge_results(dict(data, date="2026-02-02"), _ms("mixed", scaling.LOOPOPT_CPU, [5.0, 6.0]), 0.3, 60.0)
    assert again["merged"]["kept"]["licm"]["date"] == "2026-01-01"  # the run it was measured in
    assert again["units"]["licm"].count("kept from") == 1


def test_select_patterns_resizes_only_the_chains_and_rejects_unknown_names():
    picked = {p.name: p for p in scaling.select_patterns(None, (10, 20))}
    assert picked["chain_allocs_top"].sizes == picked["chain_interleaved"].sizes == (10, 20)
    assert picked["refused_1d"].sizes == next(p for p in scaling.PATTERNS if p.name == "refused_1d").sizes
    assert [p.name for p in scaling.select_patterns("mixed,licm", quick=True)] == ["mixed", "licm"]
    assert all(len(p.sizes) == 2 for p in scaling.select_patterns(None, quick=True))
    with pytest.raises(SystemExit, match="nope"):
        scaling.select_patterns("nope")


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for an adoptive parent to reap it."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_timeout_kills_the_tool_under_gnu_time_too(tmp_path):
    pid_file = tmp_path / "pid"
    sleeper = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    secs, _, status, cpu = scaling.measure([sys.executable, "-c", sleeper], timeout=1.0)
    assert secs is None and cpu is None and status == "timeout (1 s)"
    pid = int(pid_file.read_text())
    deadline = time.time() + 5
    while _alive(pid) and time.time() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def test_a_failing_tool_reports_its_exit_code_and_first_error_line():
    secs, _, status, _ = scaling.measure([sys.executable, "-c", "import sys; sys.exit('bad input')"], timeout=30)
    assert secs is None and status == "exit 1: bad input"


def test_the_readme_quote_replaces_only_the_text_between_the_markers(tmp_path):
    data = scaling.summarize(_ms("p", scaling.LOOPOPT_CPU, [1.0, 2.0]) + _ms("p", scaling.MLIR_FUSION, [3.0, 9.0]))
    readme = tmp_path / "README.md"
    readme.write_text(f"before\n{report.README_BEGIN}\nstale numbers\n{report.README_END}\nafter\n")
    assert report.quote_in_readme(str(readme), data)
    text = readme.read_text()
    assert text.startswith("before\n") and text.endswith(f"{report.README_END}\nafter\n")
    assert "stale numbers" not in text and "| p | 200 | loopopt --target cpu | 2.00 | 9.00 | 1.00 |" in text
    readme.write_text("no markers\n")
    assert not report.quote_in_readme(str(readme), data)
    assert readme.read_text() == "no markers\n"


def test_an_mlir_tool_that_timed_out_at_a_smaller_size_is_shown_as_such():
    results = (_ms("p", scaling.LOOPOPT_CPU, [1.0, 2.0])
               + _ms("p", scaling.MLIR_FUSION, [None, None], ["timeout (120 s)", "skipped (timed out at 100)"]))
    data = scaling.summarize(results)
    data["timeout"] = 120
    [v] = data["verdicts"]
    assert v["met"]
    assert "> 120 s already at N = 100 (timeout)" in "\n".join(report.scaling_target_markdown(data))
