"""Large constants in the runtime's build (loopopt.runtime.build.externalize_constants): a
constant global of EXTERNAL_CONSTANT_BYTES or more reaches the shared object or the object as a
hidden symbol of a data object, not as LLVM IR text; results are bit-identical, two kernels with a
global of one name keep their own bytes, and an object's copy is local."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import loopopt
from loopopt.runtime import build, cache as cachemod

MISSING = build.missing_tools()
pytestmark = [pytest.mark.toolchain, pytest.mark.skipif(MISSING is not None, reason=MISSING or "")]
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROWS, COLS = 64, 512  # 128 KiB of f32: above EXTERNAL_CONSTANT_BYTES


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv(cachemod.CACHE_ENV, str(tmp_path_factory.getbasetemp() / "constants-cache"))


def blob(values: np.ndarray) -> str:
    return "0x" + (64).to_bytes(4, "little").hex().upper() + values.astype("<f4").tobytes().hex().upper()


def kernel_text(big: np.ndarray, small: np.ndarray, fn: str = "addw") -> str:
    """out[i, j] = x[i, j] * W[i, j] + b[j], W a large resource constant, b a small one."""
    return f"""module {{
  memref.global "private" constant @w : memref<{ROWS}x{COLS}xf32> = dense_resource<w_blob> {{alignment = 64 : i64}}
  memref.global "private" constant @b : memref<{COLS}xf32> = dense_resource<b_blob> {{alignment = 64 : i64}}
  func.func @{fn}(%x: memref<{ROWS}x{COLS}xf32>, %out: memref<{ROWS}x{COLS}xf32>) {{
    %w = memref.get_global @w : memref<{ROWS}x{COLS}xf32>
    %b = memref.get_global @b : memref<{COLS}xf32>
    affine.for %i = 0 to {ROWS} {{
      affine.for %j = 0 to {COLS} {{
        %a = affine.load %x[%i, %j] : memref<{ROWS}x{COLS}xf32>
        %c = affine.load %w[%i, %j] : memref<{ROWS}x{COLS}xf32>
        %d = affine.load %b[%j] : memref<{COLS}xf32>
        %e = arith.mulf %a, %c : f32
        %f = arith.addf %e, %d : f32
        affine.store %f, %out[%i, %j] : memref<{ROWS}x{COLS}xf32>
      }}
    }}
    return
  }}
}}

{{-#
  dialect_resources: {{
    builtin: {{
      w_blob: "{blob(big)}",
      b_blob: "{blob(small)}"
    }}
  }}
#-}}
"""


def data(seed: int):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((ROWS, COLS)).astype(np.float32), rng.standard_normal(COLS).astype(np.float32),
            rng.standard_normal((ROWS, COLS)).astype(np.float32))


def test_a_large_constant_becomes_an_external_declaration_and_its_bytes():
    big, small, _ = data(1)
    text, consts = build.externalize_constants(kernel_text(big, small))
    assert [c.name for c in consts] == ["w"]
    assert consts[0].data == big.astype("<f4").tobytes() and consts[0].alignment == 64
    assert f"memref.global constant @w : memref<{ROWS}x{COLS}xf32> {{alignment = 64 : i64}}" in text
    assert "w_blob" not in text and "b_blob:" in text and "dense_resource<b_blob>" in text
    # nothing at or above the threshold: the text is unchanged
    same, none = build.externalize_constants(kernel_text(big, small), min_bytes=ROWS * COLS * 4 + 1)
    assert none == () and same == kernel_text(big, small)


def test_the_kernel_reads_the_constants_bytes_bit_for_bit():
    big, small, x = data(2)
    k = loopopt.compile(kernel_text(big, small), cache=False)
    want = x * big + small  # one multiply and one add per element in f32, as the kernel does
    out = np.zeros_like(x)
    k(x, out)
    assert np.array_equal(out, want)


def test_two_kernels_with_a_global_of_one_name_keep_their_own_bytes():
    b1, s1, x = data(3)
    b2, s2, _ = data(4)
    k1 = loopopt.compile(kernel_text(b1, s1), cache=False)
    k2 = loopopt.compile(kernel_text(b2, s2), cache=False)
    o1, o2 = np.zeros_like(x), np.zeros_like(x)
    k1(x, o1)
    k2(x, o2)
    assert np.array_equal(o1, x * b1 + s1) and np.array_equal(o2, x * b2 + s2)


def test_an_objects_constant_is_a_local_symbol(tmp_path):
    big, small, _ = data(5)
    (tmp_path / "k.mlir").write_text(kernel_text(big, small))
    p = subprocess.run([sys.executable, "-m", "loopopt", "k.mlir", "--target", "cpu", "--emit", "object", "-o", "k.o"],
                       cwd=tmp_path, env=dict(os.environ, PYTHONPATH=REPO), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    nm = subprocess.run([build.toolchain().nm if hasattr(build.toolchain(), "nm") else "nm", "k.o"], cwd=tmp_path,
                        capture_output=True, text=True)
    syms = {ln.split()[-1]: ln.split()[-2] for ln in nm.stdout.splitlines() if len(ln.split()) >= 2}
    assert syms.get("w") == "r", nm.stdout  # defined, read-only, local
    assert (tmp_path / "k.o").stat().st_size > ROWS * COLS * 4
