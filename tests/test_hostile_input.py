"""Hostile input through the CLI (`python3 -m loopopt INPUT -o OUT`), issue 6 part 5.

The contract for every input: exit 0 with a valid output file, or exit 1 with ONE stderr
line `...: error: ...`; never a Python traceback, never a partial or clobbered output file,
always within a time limit (per case) and an address-space limit (MEMORY_LIMIT).
"""
from __future__ import annotations

import os
import random
import re
import resource
import subprocess
import sys

import pytest

from loopopt.fuzz import GeneratorConfig, generate_program
from loopopt.mlir import parse_module
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool, mlir_opt

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEMORY_LIMIT = 3 * 1024 ** 3  # bytes of address space per CLI run
ERROR_LINE = re.compile(r"^\S.*: error: \S.*$")
OLD_OUTPUT = b"// an output file from an earlier run\n"


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_cli(tmp_path, data: bytes, *flags, old_output: bytes | None = None, timeout: float = 60):
    """Run the CLI on `data`; returns (process, output path)."""
    inp = tmp_path / "input.mlir"
    inp.write_bytes(data)
    out = tmp_path / "output.mlir"
    if old_output is not None:
        out.write_bytes(old_output)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-m", "loopopt", str(inp), "-o", str(out), *flags], cwd=ROOT, env=env,
                       capture_output=True, timeout=timeout, preexec_fn=_limit_memory)
    return p, out


def assert_contract(p, out, old_output: bytes | None = None) -> str | None:
    """The one-line contract; returns the output text on success, None on a clean error."""
    stderr = p.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr, stderr
    leftovers = [f for f in os.listdir(out.parent) if f.startswith(".loopopt-")]
    assert not leftovers, f"temporary files left behind: {leftovers}"
    if p.returncode == 0:
        text = out.read_text()
        parse_module(text, "output")
        return text
    lines = stderr.splitlines()
    assert p.returncode == 1, f"exit {p.returncode}: {stderr}"
    assert len(lines) == 1 and ERROR_LINE.match(lines[0]), f"not one error line: {stderr!r}"
    if old_output is None:
        assert not out.exists(), "a failed run left an output file"
    else:
        assert out.read_bytes() == old_output, "a failed run changed the existing output file"
    return None


def assert_clean_error(tmp_path, data: bytes, *flags, timeout: float = 60) -> str:
    """Exit 1 with one error line, tried with and without an existing output file; returns the line."""
    for old in (None, OLD_OUTPUT):
        p, out = run_cli(tmp_path, data, *flags, old_output=old, timeout=timeout)
        assert p.returncode == 1, f"expected an error, got exit {p.returncode}: {p.stderr.decode()[:300]}"
        assert assert_contract(p, out, old) is None
        if out.exists():
            out.unlink()
    return p.stderr.decode().strip()


def assert_ok(tmp_path, data: bytes, *flags, timeout: float = 60) -> str:
    p, out = run_cli(tmp_path, data, *flags, timeout=timeout)
    text = assert_contract(p, out)
    assert text is not None, f"expected success, got: {p.stderr.decode()[:300]}"
    return text


def verify_with_opt(text: str, *args: str) -> None:
    if find_tool("mlir-opt") is None:
        return
    p = mlir_opt(text, [*args, "-o", os.devnull])
    assert p.returncode == 0, p.stderr[:500]


def _sample_program() -> str:
    return generate_program(random.Random(11), GeneratorConfig(min_nests=4)).text


# ---------------------------------------------------------------- malformed text


@pytest.mark.parametrize("text", [
    "func.func @f( {",
    "hello world",
    "module { func.func @f() { return }",
    'func.func @f(%A: memref<8xf32>) {\n  affine.for %i = 0 to 8 {\n'
    '    affine.store %x, %A[%i] : memref<8xf32>\n  }\n  return\n}\n',
    "func.func @f() {\n  %c = arith.constant 1.0 : i32\n  return\n}\n",
    "func.func @f(%A: memref<8xf32>) {\n  %v = affine.load %A[%i] : memref<8xf32>\n  return\n}\n",
    "}}}}",
], ids=["unclosed-paren", "prose", "unclosed-module", "undefined-value", "bad-constant-type", "undefined-index",
        "braces"])
def test_malformed_text_is_one_error_line(tmp_path, text):
    line = assert_clean_error(tmp_path, text.encode())
    assert "input.mlir" in line


@pytest.mark.parametrize("fraction", [0.1, 0.33, 0.5, 0.77, 0.95])
def test_truncated_program_is_one_error_line(tmp_path, fraction):
    text = _sample_program()
    cut = text[: int(len(text) * fraction)]
    assert_clean_error(tmp_path, cut.encode())


@pytest.mark.parametrize("data", [b"", b"   \n\t\n", b"// only a comment\n"], ids=["empty", "blank", "comment"])
def test_empty_input(tmp_path, data):
    p, out = run_cli(tmp_path, data)
    text = assert_contract(p, out)
    if text is not None:  # an empty module is a valid module; the output must say so
        assert "module" in text


@pytest.mark.parametrize("data", [b"\xff\xfe\x00\x01", "func.func @f() {\n  return\n}\n".encode() + b"\xc3\x28\n",
                                  b"func.func @f() {\x00 return }\n"],
                         ids=["binary", "bad-utf8-tail", "nul-byte"])
def test_non_text_bytes_are_one_error_line(tmp_path, data):
    line = assert_clean_error(tmp_path, data)
    assert "UTF-8" in line or "NUL" in line or "error" in line


def test_missing_input_file_is_one_error_line(tmp_path):
    p = subprocess.run([sys.executable, "-m", "loopopt", str(tmp_path / "nope.mlir"), "-o", str(tmp_path / "o.mlir")],
                       cwd=ROOT, capture_output=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert p.returncode == 1 and assert_contract(p, tmp_path / "o.mlir") is None


# ---------------------------------------------------------------- unknown dialects


UNKNOWN_BETWEEN = """\
func.func @f(%A: memref<16xf32>, %B: memref<16xf32>) {
  %T = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %v = affine.load %A[%i] : memref<16xf32>
    affine.store %v, %T[%i] : memref<16xf32>
  }
  "foo.bar"(%T) : (memref<16xf32>) -> ()
  affine.for %i = 0 to 16 {
    %v = affine.load %T[%i] : memref<16xf32>
    affine.store %v, %B[%i] : memref<16xf32>
  }
  memref.dealloc %T : memref<16xf32>
  return
}
"""


def test_unknown_op_is_kept_as_an_opaque_op(tmp_path):
    """The CLI accepts unregistered ops (the parser allows them) and must keep them."""
    text = assert_ok(tmp_path, b'func.func @f() {\n  "foo.bar"() : () -> ()\n  return\n}\n')
    assert '"foo.bar"() : () -> ()' in text
    verify_with_opt(text, "--allow-unregistered-dialect")


def test_unknown_op_between_loops_blocks_fusion_across_it(tmp_path):
    """An opaque op may read or write any buffer it gets: nothing moves across it."""
    text = assert_ok(tmp_path, UNKNOWN_BETWEEN.encode())
    fors = [m.start() for m in re.finditer(r"affine\.for", text)]
    bar = text.index('"foo.bar"')
    assert len(fors) == 2 and fors[0] < bar < fors[1], text
    verify_with_opt(text, "--allow-unregistered-dialect")


def test_unknown_type_and_attribute(tmp_path):
    src = b'func.func @f(%x: !foo.thing) attributes {foo.attr = #foo.attr<"x">} {\n  return\n}\n'
    text = assert_ok(tmp_path, src)
    assert "!foo.thing" in text


# ---------------------------------------------------------------- huge numbers


HUGE_CONSTANTS = """\
func.func @f(%A: memref<4xf32>, %B: memref<4xi64>) {
  %big = arith.constant 3.0e38 : f32
  %tiny = arith.constant 1.0e-45 : f32
  %imax = arith.constant 9223372036854775807 : i64
  %imin = arith.constant -9223372036854775808 : i64
  affine.for %i = 0 to 4 {
    %v = affine.load %A[%i] : memref<4xf32>
    %w = arith.mulf %v, %big : f32
    %u = arith.addf %w, %tiny : f32
    affine.store %u, %A[%i] : memref<4xf32>
  }
  affine.for %i = 0 to 4 {
    %v = affine.load %B[%i] : memref<4xi64>
    %w = arith.addi %v, %imax : i64
    %u = arith.muli %w, %imin : i64
    affine.store %u, %B[%i] : memref<4xi64>
  }
  return
}
"""


def test_huge_constants_keep_results(tmp_path):
    text = assert_ok(tmp_path, HUGE_CONSTANTS.encode())
    assert "9223372036854775807" in text
    assert_same_results(HUGE_CONSTANTS, text, seed=0)


@pytest.mark.parametrize("const", ["99999999999999999999999 : i64", "1.0e999 : f64", "0x1FFFFFFFF : i32"],
                         ids=["int-too-wide", "float-out-of-range", "hex-too-wide"])
def test_out_of_range_constants(tmp_path, const):
    src = (f"func.func @f() -> i64 {{\n  %c = arith.constant {const}\n"
           "  %z = arith.constant 0 : i64\n  return %z : i64\n}\n")
    p, out = run_cli(tmp_path, src.encode())
    assert_contract(p, out)


def test_huge_trip_counts_are_not_enumerated(tmp_path):
    """Trip counts near 2^63 must be analysed symbolically, not walked."""
    n = 9223372036854775807
    src = f"""\
func.func @f(%A: memref<{n}xf32>, %B: memref<{n}xf32>) {{
  %c = arith.constant 1.0 : f32
  affine.for %i = 0 to {n} {{
    affine.store %c, %A[%i] : memref<{n}xf32>
  }}
  affine.for %i = 0 to {n} {{
    %v = affine.load %A[%i] : memref<{n}xf32>
    affine.store %v, %B[%i] : memref<{n}xf32>
  }}
  affine.for %i = 0 to {n} step 4611686018427387904 {{
    affine.store %c, %B[%i] : memref<{n}xf32>
  }}
  return
}}
"""
    text = assert_ok(tmp_path, src.encode(), timeout=60)
    verify_with_opt(text)


@pytest.mark.parametrize("shape", ["9223372036854775807", "4294967296x4294967296", "9223372036854775807x2"])
def test_absurd_memref_sizes(tmp_path, shape):
    """Footprint and profit arithmetic on absurd shapes: a result or a clean error, in bounded memory."""
    sub = ", ".join(["%i"] + ["0"] * (shape.count("x")))
    ty = f"memref<{shape}xf32>"
    src = f"""\
func.func @f(%A: {ty}) {{
  %c = arith.constant 1.0 : f32
  %T = memref.alloc() : {ty}
  affine.for %i = 0 to 8 {{
    affine.store %c, %T[{sub}] : {ty}
  }}
  affine.for %i = 0 to 8 {{
    %v = affine.load %T[{sub}] : {ty}
    affine.store %v, %A[{sub}] : {ty}
  }}
  memref.dealloc %T : {ty}
  return
}}
"""
    p, out = run_cli(tmp_path, src.encode())
    text = assert_contract(p, out)
    if text is not None:
        verify_with_opt(text)


# ---------------------------------------------------------------- size of the program


def _many_loops(n: int, fusable: bool) -> str:
    """n sibling loops: B[k, i] = A[k, i] + 1 over 0..2 (fusable) or over k..k+1 (all different)."""
    ty = f"memref<{n}x2xf32>"
    lines = [f"func.func @many(%A: {ty}, %B: {ty}) {{", "  %c = arith.constant 1.0 : f32"]
    for k in range(n):
        lo, hi, col = (0, 2, f"%i{k}") if fusable else (k, k + 1, "0")
        row = f"{k}" if fusable else f"%i{k}"
        lines += [f"  affine.for %i{k} = {lo} to {hi} {{",
                  f"    %v{k} = affine.load %A[{row}, {col}] : {ty}",
                  f"    %w{k} = arith.addf %v{k}, %c : f32",
                  f"    affine.store %w{k}, %B[{row}, {col}] : {ty}",
                  "  }"]
    return "\n".join(lines + ["  return", "}"]) + "\n"


@pytest.mark.long  # 25-50 s each; the default suite keeps test_thousand_loops_quickly, and
# benchmarks/run.py --scaling measures compile time up to 4,000 loops
@pytest.mark.parametrize("fusable", [False, True], ids=["distinct-bounds", "same-bounds"])
def test_ten_thousand_loops_correct_within_bounded_time(tmp_path, fusable):
    src = _many_loops(10_000, fusable)
    text = assert_ok(tmp_path, src.encode(), timeout=180)
    assert_same_results(src, text, seed=0, trials=1)


def test_thousand_loops_quickly(tmp_path):
    src = _many_loops(1000, True)
    text = assert_ok(tmp_path, src.encode(), timeout=60)
    assert_same_results(src, text, seed=0, trials=1)


def _deep_nest(depth: int) -> str:
    lines = ["func.func @deep(%A: memref<2xf32>) {", "  %c = arith.constant 1.0 : f32"]
    for k in range(depth):
        lines.append("  " * (k + 1) + f"affine.for %i{k} = 0 to 1 {{")
    ind = "  " * (depth + 1)
    lines += [f"{ind}%v = affine.load %A[%i0] : memref<2xf32>", f"{ind}%w = arith.addf %v, %c : f32",
              f"{ind}affine.store %w, %A[%i{depth - 1} + 1] : memref<2xf32>"]
    for k in reversed(range(depth)):
        lines.append("  " * (k + 1) + "}")
    return "\n".join(lines + ["  return", "}"]) + "\n"


@pytest.mark.parametrize("flags", [(), ("--enable-licm=false",)], ids=["default", "no-licm"])
def test_five_hundred_deep_nest(tmp_path, flags):
    src = _deep_nest(500)
    p, out = run_cli(tmp_path, src.encode(), *flags, timeout=60)
    text = assert_contract(p, out)
    if text is not None:
        assert text.count("affine.for") <= 500 and "arith.addf" in text and "affine.store" in text
        verify_with_opt(text)


def test_deep_nest_results_kept(tmp_path):
    """A depth the interpreter can still run (Python nests at most 20 blocks)."""
    src = _deep_nest(12)
    text = assert_ok(tmp_path, src.encode())
    assert_same_results(src, text, seed=0)


# ---------------------------------------------------------------- non-affine accesses


NON_AFFINE = """\
func.func @gather(%A: memref<8xf32>, %idx: memref<8xindex>, %B: memref<8xf32>) {
  %T = memref.alloc() : memref<8xf32>
  %two = arith.constant 2.0 : f32
  affine.for %i = 0 to 8 {
    %v = affine.load %A[%i] : memref<8xf32>
    %w = arith.mulf %v, %two : f32
    affine.store %w, %T[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    %j = affine.load %idx[%i] : memref<8xindex>
    %v = memref.load %T[%j] : memref<8xf32>
    affine.store %v, %B[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    %j = affine.load %idx[%i] : memref<8xindex>
    %v = affine.load %B[%i] : memref<8xf32>
    memref.store %v, %T[%j] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    %v = affine.load %T[%i] : memref<8xf32>
    affine.store %v, %A[%i] : memref<8xf32>
  }
  memref.dealloc %T : memref<8xf32>
  return
}
"""


@pytest.mark.parametrize("target", ["trn1", "cpu"])
def test_non_affine_load_and_store_in_loops_keep_results(tmp_path, target):
    """A memref.load/store at a data-dependent index touches any element: no fusion may reorder it."""
    text = assert_ok(tmp_path, NON_AFFINE.encode(), "--target", target)
    assert "memref.load" in text and "memref.store" in text
    for seed in range(4):
        assert_same_results(NON_AFFINE, text, seed=seed)


def test_bad_flag_value_is_one_error_line_exit_2(tmp_path):
    """A knob out of range is a bad command line: exit 2 (the documented code), one line, and the
    output file left alone."""
    p, out = run_cli(tmp_path, _sample_program().encode(), "--loop-opt-distance-threshold=-3", old_output=OLD_OUTPUT)
    lines = p.stderr.decode().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and "distance-threshold" in lines[0], p.stderr
    assert out.read_bytes() == OLD_OUTPUT
