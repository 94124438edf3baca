#!/usr/bin/env bash
# Install what the tests need, then run the whole default suite (fuzzing and benchmarks are separate).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
python3 -m pytest -q -p no:cacheprovider "$@"
