#!/usr/bin/env python3
"""Mutation check of the test suite: disable each legality check in turn, run the suite, and
report whether it fails (the check is "caught"). Every mutation must be caught.

    python3 scripts/mutation_check.py [--only NAME] [--pytest-args "..."]

Each mutation runs in a scratch copy of the repository, so the work tree is never touched.
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

# (name, file, the exact text of the check, the text that disables it). The tests that should
# catch it run first (fast feedback); if they pass, the whole suite runs.
FOCUS = {
    "fusion": ["tests/test_fusion.py", "tests/test_fpg.py"],
    "licm": ["tests/test_licm.py"],
    "interchange": ["tests/test_interchange.py", "tests/test_reorder_property.py"],
    "contraction": ["tests/test_fusion.py", "tests/test_restructure_in_driver.py"],
    "dead iterations": ["tests/test_restructure_in_driver.py"],
}
MUTATIONS = [
    ("fusion: trip count", "loopopt/transforms/fusion.py",
     "    if not same_trip_count(l1, l2, scope):\n        return StopReason(UNMATCHED_TRIP_COUNT)",
     "    if False:\n        return StopReason(UNMATCHED_TRIP_COUNT)"),
    ("fusion: partition dim", "loopopt/transforms/fusion.py",
     "        if not accesses_partition_dim(lp, scope,",
     "        if False and not accesses_partition_dim(lp, scope,"),
    ("fusion: negative distance", "loopopt/transforms/fusion.py",
     "            if dist is not None and dependence.may_be_negative(dist):",
     "            if False:"),
    ("fusion: ops between the loops", "loopopt/transforms/fusion.py",
     "        if _conflict(effects(x), e1):",
     "        if False:"),
    ("licm: zero-trip guard", "loopopt/transforms/licm.py",
     "    if not facts.runs_at_least_once:\n        return \"loop may run zero times\"",
     "    if False:\n        return \"loop may run zero times\""),
    ("interchange: bound check", "loopopt/analysis/legality.py",
     "            if pos[m] > pos[k]:",
     "            if False:"),
    ("interchange: dependence check", "loopopt/analysis/legality.py",
     "        if not bad_pairs.is_empty():\n            return _dependence_text(bp, bad_pairs)",
     "        if False:\n            return _dependence_text(bp, bad_pairs)"),
    ("contraction: same element", "loopopt/transforms/contraction.py",
     "            if not stores or not same_element(stores[-1], load, scope):",
     "            if not stores:"),
    ("contraction: privacy of a shrunk buffer", "loopopt/transforms/contraction.py",
     "        if private_loop_violation(accesses, alloc_depth, k, scope):",
     "        if False:"),
    ("dead iterations: later reads", "loopopt/transforms/pair_restructuring.py",
     "            if dependence.sets_intersect(tails[b.root], dependence.element_set(b, scope)):",
     "            if False:"),
]


def run_one(name: str, path: str, old: str, new: str, pytest_args: list[str]) -> tuple[bool, float, str]:
    with tempfile.TemporaryDirectory(prefix="loopopt-mut-") as tmp:
        for d in ("loopopt", "tests", "examples"):
            shutil.copytree(os.path.join(ROOT, d), os.path.join(tmp, d),
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        for f in ("pyproject.toml",):
            shutil.copy(os.path.join(ROOT, f), tmp)
        target = os.path.join(tmp, path)
        text = open(target).read()
        if text.count(old) != 1:
            return False, 0.0, f"mutation site not found exactly once in {path}"
        open(target, "w").write(text.replace(old, new))
        t0 = time.time()
        env = dict(os.environ, PYTHONPATH=tmp, LOOPOPT_FUZZ_COUNT=os.environ.get("LOOPOPT_FUZZ_COUNT", "150"))
        focus = FOCUS.get(name.split(":")[0], [])
        for selection in ([*focus, *pytest_args], ["tests", *pytest_args]):
            p = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *selection],
                               cwd=tmp, env=env, capture_output=True, text=True)
            if p.returncode != 0:
                break
        failed = [ln for ln in p.stdout.splitlines() if ln.startswith("FAILED")]
        return p.returncode != 0, time.time() - t0, (failed[0] if failed else p.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="run only mutations whose name contains this text")
    ap.add_argument("--pytest-args", default="", help="extra pytest arguments (e.g. a test selection)")
    args = ap.parse_args()
    caught = 0
    chosen = [m for m in MUTATIONS if not args.only or args.only in m[0]]
    for name, path, old, new in chosen:
        ok, secs, what = run_one(name, path, old, new, args.pytest_args.split())
        caught += ok
        print(f"{'CAUGHT ' if ok else 'MISSED '} {name:42s} {secs:6.1f} s  {what}", flush=True)
    print(f"{caught} of {len(chosen)} disabled checks caught")
    return 0 if caught == len(chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
