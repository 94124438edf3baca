#!/usr/bin/env bash
# Install everything loopopt and its tests need on a fresh Debian machine (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
# mlir-22-tools: mlir-opt and mlir-runner (checks, benchmarks); graphviz: the tests render --fpg-dot output;
# llvm-22-tools: LLVM's record viewer and statistics (share/opt-viewer), the tests read --remarks-yaml with them;
# llvm-22: opt, llc and llvm-objcopy 22 (loopopt.compile and `--emit` build shared objects with them; the unsuffixed opt/llc
# on PATH may be an older LLVM that cannot read LLVM 22's IR). --no-install-recommends keeps llvm-22-dev and
# libclang-cpp22 out (llvm-22 itself: about 21 MB to download, 98 MB installed)
if [ ! -x /usr/lib/llvm-22/bin/mlir-opt ] || [ ! -x /usr/lib/llvm-22/bin/mlir-runner ] || ! command -v dot >/dev/null \
   || [ ! -x /usr/lib/llvm-22/share/opt-viewer/opt-viewer.py ] || [ ! -x /usr/lib/llvm-22/bin/opt ] \
   || [ ! -x /usr/lib/llvm-22/bin/llc ] || [ ! -x /usr/lib/llvm-22/bin/llvm-objcopy ] || ! command -v cc >/dev/null; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends mlir-22-tools graphviz llvm-22-tools llvm-22 gcc libc6-dev >/dev/null
fi
python3 -m pip install -q -e '.[test]'
