#!/usr/bin/env bash
# Install what the tests need, then run the whole default suite (fuzzing and benchmarks are separate).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# glibc fills freed memory with this byte: a use of an erased MLIR op (a use-after-free in the
# bindings) then crashes at once, with faulthandler's traceback, instead of now and then.
export MALLOC_PERTURB_="${MALLOC_PERTURB_:-165}"
# An erase that would leave its op reachable from the IR fails at once, naming the step and the op
# (tests/conftest.py sets it too; docs/reliability.md, "Use of erased ops").
export LOOPOPT_CHECK_ERASE="${LOOPOPT_CHECK_ERASE:-1}"
# One worker per CPU (pytest-xdist; LOOPOPT_TEST_WORKERS=0 runs in this process), whole files per
# worker: tests/test_lit.py's files run in one lit invocation on one worker (lit runs them in parallel).
python3 -m pytest -q -p no:cacheprovider -n "${LOOPOPT_TEST_WORKERS:-auto}" --dist loadfile "$@"
