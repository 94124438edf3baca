"""`loopopt IN --target cpu --emit llvm|object|shared -o OUT`: what each kind writes, the C header
beside it (it compiles, and a C program linked against the library calls the kernel and prints
what loopopt.compile's callable computes), and the refusals (exit 2, one line, before the input
is read)."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import loopopt
from loopopt import cli
from loopopt.errors import LoopOptError
from loopopt.frontend import fixtures
from loopopt.runtime import build, cache as cachemod

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK = os.path.join(REPO, "benchmarks", "models", "blocks", "mlp_dynamic_small.mlir")
MISSING = build.missing_tools()
pytestmark = [pytest.mark.toolchain, pytest.mark.skipif(MISSING is not None, reason=MISSING or "")]


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv(cachemod.CACHE_ENV, str(tmp_path_factory.getbasetemp() / "cli-cache"))


def loopopt_cli(*args, cwd=None, stdout=subprocess.PIPE, **kw):
    env = dict(os.environ, PYTHONPATH=REPO)
    return subprocess.run([sys.executable, "-m", "loopopt", *args], cwd=cwd, env=env, stdout=stdout,
                          stderr=subprocess.PIPE, timeout=900, **kw)


def elf_type(data: bytes) -> int:
    assert data[:4] == b"\x7fELF"
    return int.from_bytes(data[16:18], "little")  # 1 relocatable, 3 shared


def test_emit_prepared_llvm_object_and_shared(tmp_path):
    """Each kind is a stage of one build: the stages before the link (prepared MLIR, LLVM IR) come
    with the library's C beside them (OUT.c), whose functions their code calls."""
    for emit, name in (("prepared", "k.mlir"), ("llvm", "k.ll"), ("object", "k.o"), ("shared", "libk.so")):
        (tmp_path / emit).mkdir()
        name = os.path.join(emit, name)
        p = loopopt_cli(BLOCK, "--target", "cpu", "--emit", emit, "-o", str(tmp_path / name))
        assert p.returncode == 0, p.stderr
        data = (tmp_path / name).read_bytes()
        c_file = tmp_path / (os.path.splitext(name)[0] + ".c")
        assert c_file.exists() == (emit in ("prepared", "llvm"))
        if emit == "prepared":
            text = data.decode()
            assert "llvm.emit_c_interface" in text and "cf.assert" not in text and "loopopt_check_failed_" in text
        elif emit == "llvm":
            text = data.decode()
            assert "define void @_mlir_ciface_mlp_dynamic_small(ptr" in text and "define void @mlp_dynamic_small(" in text
            assert "_mlir_memref_to_llvm_alloc" in text or "malloc" not in text  # temporaries through the cache
            c = c_file.read_text()
            assert "int32_t loopopt_call_mlp_dynamic_small(" in c and "_mlir_memref_to_llvm_alloc(size_t" in c
        else:
            assert elf_type(data) == (1 if emit == "object" else 3)
        header = (tmp_path / (os.path.splitext(name)[0] + ".h")).read_text()
        assert "void _mlir_ciface_mlp_dynamic_small(loopopt_memref_f32_2d *arg0, loopopt_memref_f32_2d *arg1);" in header
        assert "int32_t loopopt_call_mlp_dynamic_small(" in header
    nm = subprocess.run(["nm", "-D", "--defined-only", str(tmp_path / "shared" / "libk.so")], capture_output=True,
                        text=True)
    assert "_mlir_ciface_mlp_dynamic_small" in nm.stdout


C_MAIN = r'''
#include <stdio.h>
#include "libk.h"
int main(void) {
  enum { B = 5, D = 16 };
  static float x[B * D], y[B * D];
  for (int i = 0; i < B * D; i++) x[i] = (float)(((7 * i + 3) % 251) * (2.0 / 251) - 1.0);
  loopopt_memref_f32_2d in = {x, x, 0, {B, D}, {D, 1}}, out = {y, y, 0, {B, D}, {D, 1}};
  _mlir_ciface_mlp_dynamic_small(&in, &out);
  for (int i = 0; i < B * D; i++) printf("%a\n", y[i]);
  return 0;
}
'''


def test_the_header_compiles_and_a_c_program_calls_the_library(tmp_path):
    p = loopopt_cli(BLOCK, "--target", "cpu", "--emit", "shared", "-o", str(tmp_path / "libk.so"))
    assert p.returncode == 0, p.stderr
    for std in ("c11", "c99"):
        c = subprocess.run(["cc", f"-std={std}", "-Wall", "-Wextra", "-Werror", "-c", "-x", "c", "libk.h", "-o",
                            os.devnull], cwd=tmp_path, capture_output=True, text=True)
        assert c.returncode == 0, c.stderr
    (tmp_path / "main.c").write_text(C_MAIN)
    c = subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", "main.c", "-o", "main", "-L.", "-lk",
                        "-Wl,-rpath,$ORIGIN"], cwd=tmp_path, capture_output=True, text=True)
    assert c.returncode == 0, c.stderr
    run = subprocess.run(["./main"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    got = np.array([float.fromhex(v) for v in run.stdout.split()], np.float32).reshape(5, 16)
    k = loopopt.compile(open(BLOCK).read(), filename=BLOCK)
    x = fixtures.harness_fill([5, 16], 0, "float32")
    assert np.array_equal(got, k(x))


CHECKED = """func.func @k(%a: memref<?xf32>, %b: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to %n {
    %x = affine.load %a[%i] : memref<?xf32>
    %ok = arith.cmpf oge, %x, %z : f32
    cf.assert %ok, "k: elements must be \\"non-negative\\" */"
    %y = math.sqrt %x : f32
    affine.store %y, %b[%i] : memref<?xf32>
  }
  return
}
"""
CHECKED_MESSAGE = 'k: elements must be "non-negative" */'

C_CHECKS = r'''
#include <stdio.h>
#include "libc.h"
int main(void) {
  enum { N = 1000 };
  static float a[N], b[N];
  for (int i = 0; i < N; i++) a[i] = (float)i * 0.25f;
  loopopt_memref_f32_1d x = {a, a, 0, {N}, {1}}, y = {b, b, 0, {N}, {1}};
  for (int round = 0; round < 3; round++) {
    a[600] = -1.0f;
    int32_t n = loopopt_call_k(&x, &y);
    printf("%d %s\n", (int)n, loopopt_check_message_k(n));
    a[600] = 4.0f;
    n = loopopt_call_k(&x, &y);
    printf("%d %a %a\n", (int)n, b[600], b[999]);
  }
  printf("%d\n", loopopt_check_message_k(0) == 0 && loopopt_check_message_k(2) == 0);
  return 0;
}
'''


@pytest.mark.parametrize("emit", ["shared", "object"])
def test_the_header_declares_the_check_wrapper_and_a_c_program_gets_the_failed_check(tmp_path, emit):
    """`loopopt_call_k` returns the failed check's number to a C caller (no abort), 0 once the data
    passes; the header declares it and lists the checks, and compiles as C99 and C11."""
    (tmp_path / "k.mlir").write_text(CHECKED)
    out = "libc.so" if emit == "shared" else "libc.o"
    p = loopopt_cli("k.mlir", "--target", "cpu", "--emit", emit, "-o", out, "--header", "libc.h", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    header = (tmp_path / "libc.h").read_text()
    assert "int32_t loopopt_call_k(loopopt_memref_f32_1d *arg0, loopopt_memref_f32_1d *arg1);" in header
    assert "const char *loopopt_check_message_k(int32_t n);" in header
    assert '1: k: elements must be "non-negative" * /' in header  # a message cannot end the comment
    for std in ("c11", "c99"):
        c = subprocess.run(["cc", f"-std={std}", "-Wall", "-Wextra", "-Werror", "-c", "-x", "c", "libc.h", "-o",
                            os.devnull], cwd=tmp_path, capture_output=True, text=True)
        assert c.returncode == 0, c.stderr
    (tmp_path / "main.c").write_text(C_CHECKS)
    link = ["-L.", "-lc_kernel"] if emit == "shared" else ["libc.o", "-lm"]
    if emit == "shared":
        os.rename(tmp_path / "libc.so", tmp_path / "libc_kernel.so")  # -lc would be libc itself
    c = subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", "main.c", "-o", "main", *link, "-Wl,-rpath,$ORIGIN"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert c.returncode == 0, c.stderr
    run = subprocess.run(["./main"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0:-1:2] == [f"1 {CHECKED_MESSAGE}"] * 3
    passed = [[float.fromhex(v) for v in line.split()] for line in lines[1:-1:2]]
    assert passed == [[0.0, 2.0, float(np.sqrt(np.float32(249.75)))]] * 3
    assert lines[-1] == "1" and CHECKED_MESSAGE not in run.stderr


def test_binary_to_stdout_goes_to_a_pipe_never_a_terminal(tmp_path):
    p = loopopt_cli(BLOCK, "--target", "cpu", "--emit", "object")
    assert p.returncode == 0 and elf_type(p.stdout) == 1
    import pty

    master, slave = pty.openpty()
    try:
        p = loopopt_cli(BLOCK, "--target", "cpu", "--emit", "shared", stdout=slave)
    finally:
        os.close(slave)
        os.close(master)
    assert p.returncode == 2
    assert p.stderr.decode().strip() == ("loopopt: error: --emit shared writes binary data; refusing to write it to "
                                         "a terminal: name a file with -o FILE (or redirect stdout)")


@pytest.mark.parametrize("args, message", [
    (["--emit", "shared", "--target", "trn1"], "--emit shared builds for this machine's CPU: it needs --target cpu (not trn1)"),
    (["--emit", "object"], "--emit object builds for this machine's CPU: it needs --target cpu (not trn1)"),
    (["--header", "x.h"], "--header goes with --emit prepared|llvm|object|shared"),
    (["--emit", "wasm"], "argument --emit: invalid choice"),
    (["--target", "cpu", "--emit", "shared", "-o", "k.h"], "-o k.h and --header k.h name the same file"),
    (["--target", "cpu", "--emit", "llvm", "-o", "k.c"], "-o k.c and --library-c k.c name the same file"),
    (["--target", "cpu", "--emit", "llvm", "-o", "-"], "--emit llvm -o - leaves the library's C its code calls "
     "unwritten: name a file with -o FILE (FILE.c is written beside it) or add --library-c FILE"),
    (["--target", "cpu", "--emit", "prepared"], "--emit prepared -o - leaves the library's C its code calls unwritten"),
    (["--target", "cpu", "--emit", "shared", "-o", "k.so", "--library-c", "k.c"],
     "--library-c goes with --emit prepared|llvm (object and shared have the library's C compiled in)"),
    (["--target", "cpu", "--emit", "llvm", "-o", ""], "-o '' names no file (an empty path)"),
    (["--target", "cpu", "--emit", "llvm", "-o", "k.ll", "--library-c", ""], "--library-c '' names no file"),
])
def test_bad_emit_combinations_are_usage_errors(tmp_path, args, message):
    p = loopopt_cli(BLOCK, *args, cwd=tmp_path)
    err = p.stderr.decode()
    assert p.returncode == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not os.listdir(tmp_path)


def test_a_failed_run_leaves_the_outputs_as_they_were(tmp_path):
    out, header = tmp_path / "libk.so", tmp_path / "libk.h"
    out.write_bytes(b"old library")
    header.write_text("old header")
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f(%a: memref<4xf32>) {\n  %x = bogus.op\n  return\n}\n")
    p = loopopt_cli(str(bad), "--target", "cpu", "--emit", "shared", "-o", str(out))
    assert p.returncode == 1 and len(p.stderr.decode().strip().splitlines()) == 1
    assert out.read_bytes() == b"old library" and header.read_text() == "old header"
    p = loopopt_cli(BLOCK, "--target", "cpu", "--emit", "shared", "-o", str(out), "--header", str(tmp_path / "api.h"))
    assert p.returncode == 0 and elf_type(out.read_bytes()) == 3
    assert header.read_text() == "old header" and "#ifndef API_H" in (tmp_path / "api.h").read_text()
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".loopopt-")]


def test_print_lowering_with_emit_prints_the_build():
    p = loopopt_cli("--print-lowering", "--target", "cpu", "--emit", "shared")
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stdout.decode().splitlines() if not ln.startswith("#")]
    assert [os.path.basename(ln.split()[0]) for ln in lines] == ["mlir-opt", "mlir-translate", "opt", "llc", "cc", "cc"]
    assert "--finalize-memref-to-llvm=use-generic-functions=1" in lines[0]
    assert "-O3" in lines[2] and "-mcpu=native" in lines[3] and "-relocation-model=pic" in lines[3]
    assert "-align-loops=64" in lines[3]  # a hot loop's speed must not depend on where the code before it ended
    assert "-fPIC" in lines[4] and lines[5].endswith("-lm") and "k.runtime.o" in lines[5]


def test_missing_tools_are_one_line_before_the_input_is_read(monkeypatch, tmp_path):
    monkeypatch.setattr(build, "missing_tools", lambda: "LLVM 22 tools not found: opt, llc: apt-get install ...")
    with pytest.raises(LoopOptError, match="--emit shared: LLVM 22 tools not found: opt, llc"):
        cli.run([str(tmp_path / "does-not-exist.mlir"), "--target", "cpu", "--emit", "shared", "-o",
                 str(tmp_path / "k.so")])


C_TWO = r'''
#include <stdio.h>
#include "a.h"
#include "b.h"
int main(void) {
  enum { B = 5, D = 16 };
  static float x[B * D], y[B * D], a[4] = {0, 1, 4, -9}, r[4];
  for (int i = 0; i < B * D; i++) x[i] = (float)(((7 * i + 3) % 251) * (2.0 / 251) - 1.0);
  loopopt_memref_f32_2d in = {x, x, 0, {B, D}, {D, 1}}, out = {y, y, 0, {B, D}, {D, 1}};
  loopopt_memref_f32_1d va = {a, a, 0, {3}, {1}}, vr = {r, r, 0, {3}, {1}};
  printf("%d ", (int)loopopt_call_mlp_dynamic_small(&in, &out));
  int n = loopopt_call_k(&va, &vr);
  printf("%d %a ", n, r[2]);
  va.sizes[0] = 4;
  printf("%d\n", (int)loopopt_call_k(&va, &vr));
  for (int i = 0; i < B * D; i++) printf("%a\n", y[i]);
  return 0;
}
'''


def test_objects_of_two_kernels_link_into_one_program(tmp_path):
    """Every object carries the library's C (the temporaries' cache, the check wrappers); its
    hidden names are made local and its public ones are weak, so two kernels' objects link into
    one C program, and each kernel runs right there (a failed check returns its number)."""
    (tmp_path / "k.mlir").write_text(CHECKED)
    for src, out in ((BLOCK, "a.o"), ("k.mlir", "b.o")):
        p = loopopt_cli(src, "--target", "cpu", "--emit", "object", "-o", out, cwd=tmp_path)
        assert p.returncode == 0, p.stderr
    (tmp_path / "main.c").write_text(C_TWO)
    c = subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", "main.c", "a.o", "b.o", "-o", "main", "-lm"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert c.returncode == 0, c.stderr
    run = subprocess.run(["./main"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    n1, n2, r2, n3 = lines[0].split()
    assert (n1, n2, float.fromhex(r2), n3) == ("0", "0", 2.0, "1")
    got = np.array([float.fromhex(v) for v in lines[1:]], np.float32).reshape(5, 16)
    k = loopopt.compile(open(BLOCK).read(), filename=BLOCK)
    assert np.array_equal(got, k(fixtures.harness_fill([5, 16], 0, "float32")))


def test_the_library_c_goes_beside_the_code_or_where_named_and_the_run_says_where(tmp_path):
    """--emit llvm|prepared: the emitted code calls functions only the library's C defines, so
    that C is always written: beside -o (OUT.c), or where --library-c says (then -o - works: the
    IR on stdout, the C in the named file); the run says on stderr which file holds it and how it
    is built, and the C says what it is. A path that cannot be written is one line, exit 1,
    before the input is read; nothing is left behind."""
    p = loopopt_cli(BLOCK, "--target", "cpu", "--emit", "llvm", "-o", "k.ll", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    note = [ln for ln in p.stderr.decode().splitlines() if ln.startswith("loopopt: note:")]
    assert note == ["loopopt: note: k.ll calls functions of the library's C, written to k.c: compile it with "
                    "`cc -std=gnu11 -O2 -fPIC -c` and link its object beside the kernel's (the whole build: "
                    "loopopt --print-lowering --target cpu --emit shared)"]
    c = (tmp_path / "k.c").read_text()
    assert c.startswith("/* The library's C of a kernel built by loopopt") and "_mlir_memref_to_llvm_alloc(size_t" in c
    assert sorted(os.listdir(tmp_path)) == ["k.c", "k.h", "k.ll"]
    (tmp_path / "piped").mkdir()
    p = loopopt_cli(BLOCK, "--target", "cpu", "--emit", "llvm", "-o", "-", "--library-c", "lib.c",
                    cwd=tmp_path / "piped")
    assert p.returncode == 0, p.stderr
    assert p.stdout == (tmp_path / "k.ll").read_bytes() and (tmp_path / "piped" / "lib.c").read_text() == c
    assert os.listdir(tmp_path / "piped") == ["lib.c"]  # no header for -o - without --header
    assert "loopopt: note: <stdout> calls functions of the library's C, written to lib.c" in p.stderr.decode()
    for bad in ("missing/k.ll", str(tmp_path / "k.ll" / "x.ll")):
        (tmp_path / "bad").mkdir(exist_ok=True)
        p = loopopt_cli(BLOCK, "--target", "cpu", "--emit", "llvm", "-o", bad, cwd=tmp_path / "bad")
        err = p.stderr.decode().strip()
        assert p.returncode == 1 and len(err.splitlines()) == 1 and "error: cannot write output:" in err, err
        assert os.listdir(tmp_path / "bad") == []
    p = loopopt_cli(BLOCK, "--target", "cpu", "--emit", "llvm", "-o", "k2.ll", "--library-c", "missing/k.c",
                    cwd=tmp_path / "bad")
    err = p.stderr.decode().strip()
    assert p.returncode == 1 and err == "missing/k.c: error: cannot write output: No such file or directory", err
    assert os.listdir(tmp_path / "bad") == []
