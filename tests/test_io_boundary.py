"""The I/O boundary (issue 11): loopopt reads and writes the MLIR of the reference toolchain, MLIR 22,
and never damages the path it writes to.

Reading and writing: every program the project ships (examples, benchmark programs, regression inputs)
and FORMS (the op forms whose assembly differs between MLIR releases: aligned allocs, allocas and
globals, nontemporal and aligned loads and stores, `no_inline` calls, llvm.load/llvm.store and vector
memory ops with attributes) go through mlir-opt 22 in custom and in generic form. loopopt must parse
what mlir-opt 22 printed, print mlir-opt 22's own custom text back, run the pass, and write output that
mlir-opt 22 parses. mlir-opt runs three times in all (--split-input-file), not once per program.

Output files: `-o` and `--remarks-json` replace a regular file atomically, write straight into a
device, a FIFO or a descriptor, follow symlinks, and create files with the umask's mode.
"""
from __future__ import annotations

import errno
import importlib.metadata
import os
import re
import stat
import subprocess
import sys
import threading
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from loopopt import cli, driver
from loopopt.errors import LoopOptError
from loopopt.mlir import parse_module, print_module
from loopopt.toolchain import find_tool, mlir_opt

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*ROOT.glob("examples/**/*.mlir"), *ROOT.glob("benchmarks/programs/*.mlir"),
                  *ROOT.glob("tests/regressions/*.mlir")])
FORMS_NAME = "FORMS"

# Written as MLIR 22 accepts it; each attribute is one that a newer MLIR spells differently.
FORMS = """\
memref.global "private" @table : memref<64xf32> = dense<1.0> {alignment = 64 : i64}
memref.global "private" constant @bias : memref<64xf32> = dense<0.5> {alignment = 32 : i64}
memref.global @scratch : memref<64xf32> = uninitialized {alignment = 16 : i64}
func.func private @sink(memref<64xf32>)
func.func private @sink_attrs(memref<64xf32> {llvm.noalias}) -> (f32 {llvm.noundef})
func.func @keep_out_of_line(%m: memref<64xf32>) attributes {no_inline} {
  return
}
func.func @aligned_chain(%in: memref<64xf32>, %n: index) -> memref<64xf32> {
  %t = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  %out = memref.alloc() {alignment = 128 : i64} : memref<64xf32>
  %s = memref.alloca() {alignment = 16 : i64} : memref<64xf32>
  %d = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf32>
  %g = memref.get_global @table : memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = memref.load %in[%i] {nontemporal = true} : memref<64xf32>
    %w = memref.load %g[%i] {alignment = 16 : i64} : memref<64xf32>
    %x = arith.addf %v, %w : f32
    memref.store %x, %t[%i] {nontemporal = true} : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %v = memref.load %t[%i] {alignment = 8 : i64, nontemporal = true} : memref<64xf32>
    memref.store %v, %out[%i] {alignment = 64 : i64} : memref<64xf32>
    memref.store %v, %s[%i] : memref<64xf32>
  }
  func.call @sink(%s) {no_inline} : (memref<64xf32>) -> ()
  %r = call @sink_attrs(%s) {arg_attrs = [{llvm.noalias}], no_inline} : (memref<64xf32>) -> f32
  func.call @keep_out_of_line(%s) : (memref<64xf32>) -> ()
  memref.dealloc %t : memref<64xf32>
  memref.dealloc %d : memref<?xf32>
  return %out : memref<64xf32>
}
func.func @llvm_access(%p: !llvm.ptr, %v: f32) -> f32 {
  %a = llvm.load %p {alignment = 4 : i64} : !llvm.ptr -> f32
  %b = llvm.load volatile %p {alignment = 8 : i64, nontemporal} : !llvm.ptr -> f32
  %c = llvm.load %p invariant {alignment = 4 : i64} : !llvm.ptr -> f32
  %d = llvm.load %p atomic acquire {alignment = 4 : i64} : !llvm.ptr -> f32
  %e = llvm.load volatile %p : !llvm.ptr -> f32
  llvm.store %v, %p {alignment = 4 : i64} : f32, !llvm.ptr
  llvm.store volatile %a, %p {alignment = 16 : i64, nontemporal} : f32, !llvm.ptr
  llvm.store %b, %p atomic release {alignment = 4 : i64} : f32, !llvm.ptr
  llvm.store volatile %c, %p : f32, !llvm.ptr
  %s = arith.addf %d, %e : f32
  return %s : f32
}
func.func @vector_access(%m: memref<64xf32>, %mask: vector<4xi1>, %pass: vector<4xf32>, %idx: vector<4xi32>) {
  affine.for %i = 0 to 64 step 4 {
    %v = vector.load %m[%i] {alignment = 16 : i64, nontemporal = true} : memref<64xf32>, vector<4xf32>
    vector.store %v, %m[%i] {nontemporal = true} : memref<64xf32>, vector<4xf32>
    %l = vector.maskedload %m[%i], %mask, %pass {alignment = 16 : i64} : memref<64xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
    vector.maskedstore %m[%i], %mask, %l {alignment = 16 : i64} : memref<64xf32>, vector<4xi1>, vector<4xf32>
    %g = vector.gather %m[%i] [%idx], %mask, %pass {alignment = 16 : i64} : memref<64xf32>, vector<4xi32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
    vector.scatter %m[%i] [%idx], %mask, %g {alignment = 16 : i64} : memref<64xf32>, vector<4xi32>, vector<4xi1>, vector<4xf32>
    %e = vector.expandload %m[%i], %mask, %pass {alignment = 16 : i64} : memref<64xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
    vector.compressstore %m[%i], %mask, %e {alignment = 16 : i64} : memref<64xf32>, vector<4xi1>, vector<4xf32>
  }
  return
}
func.func @regions(%n: index) -> index {
  %r = scf.execute_region -> index no_inline {
    scf.yield %n : index
  }
  %s = affine.for %i = 0 to 8 iter_args(%acc = %r) -> (index) {
    %a = affine.apply affine_map<(d0)[s0] -> (d0 + s0)>(%i)[%acc]
    affine.yield %a : index
  }
  return %s : index
}
"""

# (op, attribute text) as mlir-opt 22 prints them; each must be on one line of loopopt's output.
SPELLINGS_22 = [
    ('memref.global "private" @table', "{alignment = 64 : i64}"),
    ('memref.global "private" constant @bias', "{alignment = 32 : i64}"),
    ("memref.global @scratch", "= uninitialized {alignment = 16 : i64}"),
    ("memref.alloc()", "{alignment = 128 : i64}"),
    ("memref.alloc(%arg1)", "{alignment = 64 : i64}"),
    ("memref.alloca()", "{alignment = 16 : i64}"),
    ("memref.load %arg0", "{nontemporal = true}"),
    ("memref.load", "{alignment = 8 : i64, nontemporal = true}"),
    ("memref.store", "{nontemporal = true}"),
    ("memref.store", "{alignment = 64 : i64}"),
    ("call @sink(", "{no_inline}"),
    ("call @sink_attrs(", "{arg_attrs = [{llvm.noalias}], no_inline}"),
    ("func.func @keep_out_of_line", "attributes {no_inline}"),
    ("llvm.load %arg0", "{alignment = 4 : i64}"),
    ("llvm.load volatile %arg0", "{alignment = 8 : i64, nontemporal}"),
    ("llvm.load %arg0 invariant", "{alignment = 4 : i64}"),
    ("llvm.load %arg0 atomic acquire", "{alignment = 4 : i64}"),
    ("llvm.store volatile", "{alignment = 16 : i64, nontemporal}"),
    ("llvm.store", "atomic release {alignment = 4 : i64}"),
    ("vector.load", "{alignment = 16 : i64, nontemporal = true}"),
    ("vector.store", "{nontemporal = true}"),
    ("vector.maskedload", "{alignment = 16 : i64}"),
    ("vector.maskedstore", "{alignment = 16 : i64}"),
    ("vector.gather", "{alignment = 16 : i64}"),
    ("vector.scatter", "{alignment = 16 : i64}"),
    ("vector.expandload", "{alignment = 16 : i64}"),
    ("vector.compressstore", "{alignment = 16 : i64}"),
    ("scf.execute_region -> index", "no_inline {"),
]


def _missing_spellings(text: str) -> list[tuple[str, str]]:
    lines = text.splitlines()
    return [(op, attr) for op, attr in SPELLINGS_22 if not any(op in ln and attr in ln for ln in lines)]


# --- the bindings (no toolchain needed) ---------------------------------------------------------


def test_installed_bindings_are_the_pinned_version():
    """The boundary was measured for the pinned bindings; another version prints other forms."""
    pins = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pin = next(p for p in pins if p.startswith("iree-base-compiler=="))
    wanted = pin.split("==", 1)[1]
    installed = importlib.metadata.version("iree-base-compiler")
    assert installed == wanted, f"iree-base-compiler {installed} is installed, pyproject.toml pins {wanted}: pip install -e ."


def test_forms_keep_mlir_22_spelling_through_the_pass():
    result = driver.optimize(FORMS, filename=FORMS_NAME)
    assert result.num_loops_fused >= 1, "the pass did not run on the aligned, nontemporal chain"
    assert _missing_spellings(result.text) == []


def test_forms_print_in_mlir_22_spelling():
    assert _missing_spellings(print_module(parse_module(FORMS, FORMS_NAME))) == []


@pytest.mark.parametrize("newer", [
    "%a = memref.alloc() alignment = 64 : memref<4xf32>",
    "%a = memref.load %m[%i] nontemporal(true) : memref<4xf32>",
])
def test_newer_mlir_spelling_is_refused_in_one_line(newer):
    """Newer MLIR's spellings are not MLIR 22: refused like any syntax error, in one line."""
    text = f"func.func @f(%m: memref<4xf32>, %i: index) {{\n  {newer}\n  return\n}}\n"
    with pytest.raises(LoopOptError) as e:
        parse_module(text, "new.mlir")
    assert re.match(r"^new\.mlir:2:\d+: error: ", str(e.value)) and "\n" not in str(e.value)


# --- against mlir-opt 22 ----------------------------------------------------------------------------

SPLIT = "\n// -----\n"
ERROR_AT = re.compile(r"^<stdin>:(\d+):\d+: error: .*$", re.M)
NAMES = [str(p.relative_to(ROOT)) for p in SOURCES] + [FORMS_NAME]
CASES = [f"{name} [{form}]" for name in NAMES for form in ("custom", "generic")]


def _mlir_opt_22() -> str | None:
    tool = find_tool("mlir-opt")
    if tool is None:
        return None
    version = subprocess.run([tool, "--version"], capture_output=True, text=True).stdout
    return tool if re.search(r"LLVM version 22\.", version) else None


needs_mlir_opt_22 = pytest.mark.skipif(_mlir_opt_22() is None, reason="needs mlir-opt 22 (mlir-22-tools)")


def _batch(texts: list[str], args: list[str]) -> tuple[list[str] | None, dict[int, str]]:
    """mlir-opt ARGS over every text in one process: (outputs if all passed and printed, {index: first
    error}); index -1 holds a failure that names no line."""
    starts, line = [], 1
    for t in texts:
        starts.append(line)
        line += t.count("\n") + SPLIT.count("\n")
    p = mlir_opt(SPLIT.join(texts), ["--split-input-file", *args])
    errors: dict[int, str] = {}
    for m in ERROR_AT.finditer(p.stderr):
        index = max(i for i, s in enumerate(starts) if s <= int(m.group(1)))
        errors.setdefault(index, m.group(0))
    if p.returncode != 0:
        return None, errors or {-1: p.stderr.strip()[:300]}
    if "-o" in args:
        return None, errors
    outputs = [o.strip() + "\n" for o in re.split(r"^// -----$", p.stdout, flags=re.M)]
    assert len(outputs) == len(texts), "mlir-opt's split output does not line up with its input"
    return outputs, errors


def _print_22(texts: list[str], args: list[str]) -> list[str | None]:
    """mlir-opt 22's print of each text (None where it refuses one)."""
    outputs, _ = _batch(texts, args)
    if outputs is None:  # rare: find the refused ones one by one
        outputs = [(_batch([t], args)[0] or [None])[0] for t in texts]
    return outputs


@dataclass
class Case:
    given: str | None  # what mlir-opt 22 printed: the custom or the generic form
    custom: str | None  # mlir-opt 22's custom form of the same program
    reread: str | None = None  # loopopt's print of `given`, before the pass
    output: str | None = None  # loopopt's output after the pass
    error: str | None = None  # why loopopt failed, if it did
    rejected: str | None = None  # mlir-opt 22's first error on `output`


@pytest.fixture(scope="module")
def cases() -> dict[str, Case]:
    sources = [p.read_text() for p in SOURCES] + [FORMS]
    custom = _print_22(sources, [])
    generic = _print_22(sources, ["--mlir-print-op-generic"])
    out: dict[str, Case] = {}
    for name, c, g in zip(NAMES, custom, generic):
        for form, given in (("custom", c), ("generic", g)):
            case = out[f"{name} [{form}]"] = Case(given, c)
            if given is None:
                continue
            try:
                case.reread = print_module(parse_module(given, name))
                case.output = driver.optimize(given, filename=name).text
            except Exception as e:  # LoopOptError, or a crash: both fail the case
                case.error = f"{type(e).__name__}: {e}"
    written = [k for k, c in out.items() if c.output is not None]
    _, errors = _batch([out[k].output for k in written], ["-o", os.devnull])
    for i, message in errors.items():
        if i < 0:
            pytest.fail(f"mlir-opt 22 failed on loopopt's outputs: {message}")
        out[written[i]].rejected = message
    return out


@pytest.mark.toolchain
@needs_mlir_opt_22
@pytest.mark.parametrize("case", CASES)
def test_loopopt_reads_what_mlir_opt_22_prints(cases, case):
    c = cases[case]
    assert c.given is not None, "mlir-opt 22 refuses this program"
    assert c.error is None
    assert c.reread.strip() == c.custom.strip(), "loopopt prints this program differently from mlir-opt 22"


@pytest.mark.toolchain
@needs_mlir_opt_22
@pytest.mark.parametrize("case", CASES)
def test_mlir_opt_22_reads_what_loopopt_writes(cases, case):
    c = cases[case]
    assert c.output is not None, c.error or "mlir-opt 22 refuses this program"
    assert c.rejected is None, c.rejected


@pytest.mark.toolchain
@needs_mlir_opt_22
def test_the_pass_changed_programs(cases):
    """The check above is not vacuous: the pass rewrote many of the programs it was given."""
    changed = [k for k, c in cases.items() if c.output and c.output.strip() != c.custom.strip()]
    assert len(changed) >= len(cases) // 4
    assert f"{FORMS_NAME} [generic]" in changed


# --- output files ------------------------------------------------------------------------------------

INPUT = ROOT / "examples" / "chain3.mlir"
OLD = "// an older output\n"


@pytest.fixture(scope="module")
def expected(tmp_path_factory) -> tuple[str, str]:
    """(optimized text, remarks JSON) of INPUT, written to a plain new file."""
    d = tmp_path_factory.mktemp("expected")
    assert cli.run([str(INPUT), "-o", str(d / "out.mlir"), "--remarks-json", str(d / "r.json")]) == 0
    return (d / "out.mlir").read_text(), (d / "r.json").read_text()


def _leftovers(d: Path) -> list[str]:
    return [f for f in os.listdir(d) if f.startswith(".loopopt-")]


def test_private_device_node_is_written_not_replaced(tmp_path):
    dev = tmp_path / "null"
    try:
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # the numbers of /dev/null
    except OSError as e:
        pytest.skip(f"cannot make a device node here: {e.strerror}")
    cli.run([str(INPUT), "-o", str(dev), "--remarks-json", str(dev)])
    st = os.stat(dev)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)
    assert _leftovers(tmp_path) == []


def test_fifo_gets_the_output_and_stays_a_fifo(tmp_path, expected):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    cli.run([str(INPUT), "-o", str(fifo)])
    reader.join(timeout=10)
    assert not reader.is_alive()
    assert got == [expected[0].encode()]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_symlink_is_followed_and_kept(tmp_path, expected):
    (tmp_path / "real.mlir").write_text(OLD)
    os.chmod(tmp_path / "real.mlir", 0o640)
    os.symlink("real.mlir", tmp_path / "link.mlir")
    os.symlink("link.mlir", tmp_path / "link2.mlir")  # a chain of two links
    cli.run([str(INPUT), "-o", str(tmp_path / "link2.mlir")])
    assert os.readlink(tmp_path / "link2.mlir") == "link.mlir"
    assert os.readlink(tmp_path / "link.mlir") == "real.mlir"
    assert (tmp_path / "real.mlir").read_text() == expected[0]
    assert stat.S_IMODE(os.stat(tmp_path / "real.mlir").st_mode) == 0o640, "a replaced file keeps its mode"
    assert _leftovers(tmp_path) == []


def test_dangling_symlink_creates_its_target(tmp_path, expected):
    (tmp_path / "sub").mkdir()
    os.symlink("sub/new.mlir", tmp_path / "link.mlir")
    cli.run([str(INPUT), "-o", str(tmp_path / "link.mlir")])
    assert os.path.islink(tmp_path / "link.mlir")
    assert (tmp_path / "sub" / "new.mlir").read_text() == expected[0]


def test_symlink_into_proc_is_a_descriptor_written_through(tmp_path, expected):
    """Like /dev/stdout -> /proc/self/fd/1: the link and the open file stay; the file is not truncated."""
    log = tmp_path / "log.json"
    log.write_text("first line\n")
    fd = os.open(log, os.O_WRONLY | os.O_APPEND)
    r, w = os.pipe()
    try:
        os.symlink(f"/proc/self/fd/{fd}", tmp_path / "stdout-like")
        os.symlink(f"/proc/self/fd/{w}", tmp_path / "pipe-like")
        inode = os.stat(log).st_ino
        cli.run([str(INPUT), "-o", str(tmp_path / "pipe-like"), "--remarks-json", str(tmp_path / "stdout-like")])
        os.close(w)
        w = -1
        with os.fdopen(r, "rb") as f:
            r = -1
            assert f.read() == expected[0].encode()
    finally:
        for x in (fd, r, w):
            if x >= 0:
                os.close(x)
    assert os.stat(log).st_ino == inode
    assert log.read_text() == "first line\n" + expected[1]
    assert os.readlink(tmp_path / "stdout-like") == f"/proc/self/fd/{fd}"


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002], ids=oct)
def test_new_files_get_the_umask_mode(tmp_path, umask):
    old = os.umask(umask)
    try:
        cli.run([str(INPUT), "-o", str(tmp_path / "out.mlir"), "--remarks-json", str(tmp_path / "r.json")])
    finally:
        os.umask(old)
    for f in ("out.mlir", "r.json"):
        assert oct(stat.S_IMODE(os.stat(tmp_path / f).st_mode)) == oct(0o666 & ~umask)


def test_dash_is_stdout(capsys, expected):
    cli.run([str(INPUT), "-o", "-"])
    assert capsys.readouterr().out == expected[0]


def test_bad_input_leaves_the_output_file_alone(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f( {\n")
    out = tmp_path / "out.mlir"
    out.write_text(OLD)
    inode = os.stat(out).st_ino
    with pytest.raises(LoopOptError):
        cli.run([str(bad), "-o", str(out)])
    assert out.read_text() == OLD and os.stat(out).st_ino == inode
    assert _leftovers(tmp_path) == []


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    """The disk fills half way through: the old output stays whole, the temporary file goes."""
    out = tmp_path / "out.mlir"
    out.write_text(OLD)
    real_write = os.write

    def half_then_full(fd, data):
        if len(data) > 8:
            return real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", half_then_full)
    with pytest.raises(LoopOptError) as e:
        cli.run([str(INPUT), "-o", str(out)])
    monkeypatch.undo()
    assert str(e.value) == f"{out}: error: cannot write output: No space left on device"
    assert out.read_text() == OLD
    assert _leftovers(tmp_path) == []


def test_directory_is_one_error_line(tmp_path):
    with pytest.raises(LoopOptError) as e:
        cli.run([str(INPUT), "-o", str(tmp_path)])
    assert str(e.value) == f"{tmp_path}: error: cannot write output: Is a directory"


def test_cli_as_a_process_writes_through_dev_stdout_symlink(tmp_path, expected):
    """The reported case end to end: `--remarks-json` names a symlink to /dev/stdout."""
    os.symlink("/dev/stdout", tmp_path / "out")
    p = subprocess.run([sys.executable, "-m", "loopopt", str(INPUT), "-o", "-",
                        "--remarks-json", str(tmp_path / "out")], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert p.stdout == expected[1] + expected[0]
    assert os.readlink(tmp_path / "out") == "/dev/stdout"


def test_reader_closing_the_pipe_is_not_an_internal_error(tmp_path):
    """`loopopt big.mlir | head`: the reader goes away; loopopt stops quietly with 141 (SIGPIPE's
    shell status), no traceback and no 'internal error'."""
    lines = ["func.func @f(%a: memref<4xf32>) {"]
    lines += [f"  affine.for %i{k} = 0 to 4 {{ %v{k} = affine.load %a[%i{k}] : memref<4xf32> }}" for k in range(2000)]
    big = tmp_path / "big.mlir"
    big.write_text("\n".join(lines + ["  return", "}"]) + "\n")
    r, w = os.pipe()
    os.close(r)  # nobody will ever read
    p = subprocess.run([sys.executable, "-m", "loopopt", str(big), "--enable-licm", "false",
                        "--loop-opt-distance-threshold", "0"], stdout=w, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    os.close(w)
    assert p.returncode == 141, p.stderr
    assert "internal error" not in p.stderr and "Traceback" not in p.stderr
