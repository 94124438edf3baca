"""Issue 23: every output path, flag and API call either does what it says or refuses in one line.

The tables of docs/interfaces.md as tests: each output (`-o`, the side files, the checkpoint)
against each kind of path; each flag's range and conflicts (checked before any input is read:
the input is a FIFO nobody writes, so reading it would hang); the exit codes; the input limits;
the standard streams; the Python API (source types, interrupts, state across calls)."""
from __future__ import annotations

import errno
import gc
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import loopopt
from loopopt import api, cli, mlir, outputs
from loopopt.errors import LoopOptError, UsageError

ROOT = Path(__file__).resolve().parent.parent
INPUT = ROOT / "examples" / "chain3.mlir"
REFUSED = ROOT / "examples" / "refused_pair.mlir"
OLD = "// an older file\n"
ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
SIDE_FLAGS = ["--remarks-json", "--remarks-yaml", "--fpg-dot"]
PATH_FLAGS = ["-o"] + SIDE_FLAGS


def main(argv, capsys) -> tuple[int, str]:
    """`loopopt argv` in this process: (exit code, stderr)."""
    with pytest.raises(SystemExit) as e:
        cli.main([str(a) for a in argv])
    return e.value.code, capsys.readouterr().err


def process(argv, *, cwd=ROOT, timeout=60, preexec=None, stdin=None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "loopopt", *map(str, argv)], cwd=cwd, env=ENV, capture_output=True,
                          timeout=timeout, preexec_fn=preexec, stdin=stdin, **kw)


def one_error_line(err: str | bytes) -> str:
    err = err.decode() if isinstance(err, bytes) else err
    lines = err.splitlines()
    assert len(lines) == 1 and "error" in lines[0] and "Traceback" not in err, err
    return lines[0]


@pytest.fixture(scope="module")
def expected(tmp_path_factory) -> dict:
    """What each path output of a run on INPUT holds, written to new files."""
    d = tmp_path_factory.mktemp("expected")
    argv = [INPUT, "-o", d / "o"] + [x for f in SIDE_FLAGS for x in (f, d / f.strip("-"))]
    assert cli.run(list(map(str, argv))) == 0
    return {"-o": (d / "o").read_text(), **{f: (d / f.strip("-")).read_text() for f in SIDE_FLAGS}}


def _leftovers(d: Path) -> list[str]:
    return [f for f in os.listdir(d) if f.startswith(".loopopt-")]


def _argv(flag: str, path, tmp_path: Path) -> list:
    """A run writing `flag` to `path` (and -o to a scratch file when flag is a side output)."""
    return [INPUT, flag, path] + ([] if flag == "-o" else ["-o", tmp_path / "scratch.mlir"])


# ---------------------------------------------------------------------------------------
# The output table: -o and each side file, against each kind of path.

@pytest.mark.parametrize("flag", PATH_FLAGS)
def test_new_file_is_created_with_the_umask_mode(tmp_path, flag, expected, capsys):
    old = os.umask(0o027)
    try:
        code, _ = main(_argv(flag, tmp_path / "new.out", tmp_path), capsys)
    finally:
        os.umask(old)
    assert code == 0 and (tmp_path / "new.out").read_text() == expected[flag]
    assert stat.S_IMODE(os.stat(tmp_path / "new.out").st_mode) == 0o640


@pytest.mark.parametrize("flag", PATH_FLAGS)
def test_existing_file_is_replaced_whole_keeping_its_mode(tmp_path, flag, expected, capsys):
    f = tmp_path / "old.out"
    f.write_text(OLD)
    os.chmod(f, 0o604)
    code, _ = main(_argv(flag, f, tmp_path), capsys)
    assert code == 0 and f.read_text() == expected[flag]
    assert stat.S_IMODE(os.stat(f).st_mode) == 0o604 and _leftovers(tmp_path) == []


@pytest.mark.parametrize("flag", PATH_FLAGS)
def test_symlink_is_followed_and_stays(tmp_path, flag, expected, capsys):
    (tmp_path / "real").write_text(OLD)
    os.symlink("real", tmp_path / "link")
    os.symlink("sub/new", tmp_path / "dangling")
    (tmp_path / "sub").mkdir()
    for link, target in (("link", "real"), ("dangling", "sub/new")):
        code, _ = main(_argv(flag, tmp_path / link, tmp_path), capsys)
        assert code == 0 and os.path.islink(tmp_path / link)
        assert (tmp_path / target).read_text() == expected[flag]


@pytest.mark.parametrize("flag", PATH_FLAGS)
def test_hard_linked_file_is_rewritten_in_place(tmp_path, flag, expected, capsys):
    """As mlir-opt: every link sees the new text (a rename would leave the other link stale)."""
    f, other = tmp_path / "a.out", tmp_path / "b.out"
    f.write_text(OLD * 100)  # longer than the output: the rest must go
    os.link(f, other)
    inode = os.stat(f).st_ino
    code, _ = main(_argv(flag, f, tmp_path), capsys)
    assert code == 0 and other.read_text() == f.read_text() == expected[flag]
    assert os.stat(f).st_ino == inode and os.stat(f).st_nlink == 2 and _leftovers(tmp_path) == []


def _without_dac_override() -> list[str]:
    """A prefix that runs a command as root without root's permission override (so it meets
    file modes as the shell and mlir-opt of an ordinary user do), or [] when not root."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: cannot drop the permission override")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]


@pytest.mark.parametrize("flag", PATH_FLAGS)
def test_read_only_file_is_refused_before_the_input_is_read(tmp_path, flag):
    """Refused with the system's reason, as `sh -c '> f'` and mlir-opt refuse it; the input (a
    FIFO nobody writes) is never opened."""
    f = tmp_path / "ro.out"
    f.write_text(OLD)
    os.chmod(f, 0o444)
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    argv = [fifo, flag, f] + ([] if flag == "-o" else ["-o", tmp_path / "scratch.mlir"])
    p = subprocess.run(_without_dac_override() + [sys.executable, "-m", "loopopt", *map(str, argv)], cwd=ROOT,
                       env=ENV, capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and one_error_line(p.stderr) == f"{f}: error: cannot write output: Permission denied"
    assert f.read_text() == OLD and not (tmp_path / "scratch.mlir").exists()


@pytest.mark.parametrize("flag", PATH_FLAGS)
def test_directories_missing_or_named_are_refused(tmp_path, flag, capsys):
    for path, why in ((tmp_path, "Is a directory"), (tmp_path / "nope" / "x", "No such file or directory")):
        code, err = main(_argv(flag, path, tmp_path), capsys)
        assert code == 1 and one_error_line(err) == f"{path}: error: cannot write output: {why}"
    assert not (tmp_path / "nope").exists() and not (tmp_path / "scratch.mlir").exists()


@pytest.mark.parametrize("flag", PATH_FLAGS)
def test_device_and_fifo_are_written_through(tmp_path, flag, expected, capsys):
    code, _ = main(_argv(flag, os.devnull, tmp_path), capsys)
    assert code == 0 and stat.S_ISCHR(os.stat(os.devnull).st_mode)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    code, _ = main(_argv(flag, fifo, tmp_path), capsys)
    reader.join(timeout=30)
    assert code == 0 and got == [expected[flag].encode()] and stat.S_ISFIFO(os.stat(fifo).st_mode)


@pytest.mark.parametrize("flag", PATH_FLAGS)
def test_full_disk_is_one_line_and_keeps_the_old_file(tmp_path, flag, monkeypatch, capsys):
    code, err = main(_argv(flag, "/dev/full", tmp_path), capsys)
    assert code == 1 and one_error_line(err) == "/dev/full: error: cannot write output: No space left on device"
    f = tmp_path / "old.out"
    f.write_text(OLD)
    real_write = os.write

    def half_then_full(fd, data):
        if len(data) > 8:
            return real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", half_then_full)
    code, err = main(_argv(flag, f, tmp_path), capsys)
    monkeypatch.undo()
    assert code == 1 and one_error_line(err) == f"{f}: error: cannot write output: No space left on device"
    assert f.read_text() == OLD and _leftovers(tmp_path) == []


def test_o_may_be_the_input_a_side_file_may_not(tmp_path, expected, capsys):
    """`-o in.mlir` optimizes in place (the input is read whole first, as mlir-opt); a side file
    naming the input, or two outputs naming one file, is a bad command line: exit 2, nothing
    written, the input intact."""
    src = tmp_path / "in.mlir"
    for flag in SIDE_FLAGS:
        src.write_text(INPUT.read_text())
        code, err = main([src, flag, src, "-o", tmp_path / "out.mlir"], capsys)
        assert code == 2 and one_error_line(err) == f"loopopt: error: {flag} {src} is the input file; name another file"
        assert src.read_text() == INPUT.read_text() and not (tmp_path / "out.mlir").exists()
    src.write_text(INPUT.read_text())
    code, _ = main([src, "-o", src], capsys)
    assert code == 0 and src.read_text() == expected["-o"]


@pytest.mark.parametrize("first, second", [("--remarks-json", "-o"), ("--remarks-yaml", "--fpg-dot"),
                                           ("--fpg-dot", "-o"), ("--remarks-json", "--remarks-yaml")])
def test_two_outputs_naming_one_file_are_refused(tmp_path, first, second, capsys):
    x = tmp_path / "x"
    x.write_text(OLD)
    os.symlink("x", tmp_path / "alias")  # the same file under another name counts too
    for other in (x, tmp_path / "alias"):
        argv = [INPUT, first, x, second, other] + ([] if "-o" in (first, second) else ["-o", os.devnull])
        code, err = main(argv, capsys)
        assert code == 2 and "name the same file" in one_error_line(err)
        assert x.read_text() == OLD
    code, err = main([INPUT, first, tmp_path / "new", second, tmp_path / "new"]
                     + ([] if "-o" in (first, second) else ["-o", os.devnull]), capsys)
    assert code == 2 and not (tmp_path / "new").exists()


def test_streams_may_be_shared(tmp_path, capsys, expected):
    """Devices and stdout take several outputs, in writing order (side files first, -o last)."""
    code, _ = main([INPUT, "--remarks-json", os.devnull, "-o", os.devnull], capsys)
    assert code == 0
    with pytest.raises(SystemExit) as e:
        cli.main([str(INPUT), "--remarks-json", "-", "-o", "-"])
    assert e.value.code == 0 and capsys.readouterr().out == expected["--remarks-json"] + expected["-o"]


# ---------------------------------------------------------------------------------------
# The checkpoint: created, never replaced, never through a symlink.

def test_checkpoint_is_created_in_the_current_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, _ = main([INPUT, "--checkpoint", "-o", os.devnull], capsys)
    assert code == 0 and (tmp_path / cli.CHECKPOINT_FILE).read_text().startswith("// loopopt checkpoint")
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("kind", ["file", "symlink", "dangling-symlink"])
def test_checkpoint_name_taken_is_refused_before_reading(tmp_path, monkeypatch, kind, capsys):
    """A second run in the directory, or a symlink planted there: exit 1, nothing written through
    it, nothing overwritten, the output not written either."""
    monkeypatch.chdir(tmp_path)
    ck = tmp_path / cli.CHECKPOINT_FILE
    (tmp_path / "victim").write_text(OLD)
    if kind == "file":
        ck.write_text(OLD)
    else:
        os.symlink("victim" if kind == "symlink" else "nowhere", ck)
    code, err = main([INPUT, "--checkpoint", "-o", tmp_path / "out.mlir"], capsys)
    assert code == 1 and "the checkpoint file exists" in one_error_line(err)
    assert (tmp_path / "victim").read_text() == OLD and not (tmp_path / "nowhere").exists()
    assert (ck.read_text() == OLD) if kind == "file" else os.path.islink(ck)
    assert not (tmp_path / "out.mlir").exists()


@pytest.mark.parametrize("kind", ["file", "dangling-symlink"])
def test_checkpoint_appearing_during_the_run_is_left_alone(tmp_path, kind):
    """Two runs racing: the name is taken after the check; the write is refused atomically."""
    ck = tmp_path / "ck.txt"
    out = outputs.Output("--checkpoint", str(ck), exclusive=True)
    outputs.check_writable(out)
    if kind == "file":
        ck.write_text(OLD)
    else:
        os.symlink("nowhere", ck)
    with pytest.raises(LoopOptError, match="appeared while loopopt ran"):
        outputs.write_output(out, "// this run's checkpoint\n")
    assert (ck.read_text() == OLD) if kind == "file" else not (tmp_path / "nowhere").exists()
    assert _leftovers(tmp_path) == []


def test_checkpoint_named_by_another_output_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, err = main([INPUT, "--checkpoint", "-o", cli.CHECKPOINT_FILE], capsys)
    assert code == 2 and "name the same file" in one_error_line(err)
    assert not (tmp_path / cli.CHECKPOINT_FILE).exists()


# ---------------------------------------------------------------------------------------
# Flags: ranges and conflicts, all before the input is read (a FIFO nobody writes: reading it
# would hang), exit 2 with one line.

BAD_COMMAND_LINES = [
    (["--loop-opt-distance-threshold=-3"], "--loop-opt-distance-threshold must be an integer from 0 to 2147483647"),
    (["--loop-opt-sb-size", "9223372036854775808"], "--loop-opt-sb-size must be an integer from 0 to 2147483647"),
    (["--loop-opt-psum-size=-1"], "--loop-opt-psum-size must be"),
    (["--passes", ""], "empty pipeline"),
    (["--passes", ",,,"], "empty pipeline"),
    (["--passes", "fuse,,licm"], "empty pass name at position 2"),
    (["--passes", "fuse=3"], "pass 'fuse' takes no argument"),
    (["--passes", "licm=foo"], "pass 'licm' takes no argument"),
    (["--passes", "tile=9223372036854775808"], "the tile size must be an integer >= 2 and <= 2147483647"),
    (["--passes", "bogus"], "unknown pass 'bogus'"),
    (["--enable-licm", "false", "--passes", "licm"], "--enable-licm false conflicts with --passes naming 'licm'"),
    (["--enable-loop-distribution=0", "--passes", "fuse,distribute"], "--enable-loop-distribution false conflicts"),
    (["--target", "gpu"], "invalid choice"),
    (["--remarks-json", "{fifo}"], "is the input file"),
]


@pytest.mark.parametrize("flags, needle", BAD_COMMAND_LINES, ids=[" ".join(f) or "empty" for f, _ in BAD_COMMAND_LINES])
def test_bad_command_line_exit_2_before_reading_the_input(tmp_path, flags, needle):
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    flags = [f.replace("{fifo}", str(fifo)) for f in flags]
    p = process([fifo, *flags, "-o", tmp_path / "out.mlir"], text=True, timeout=60)
    assert p.returncode == 2 and needle in one_error_line(p.stderr), p.stderr
    assert not (tmp_path / "out.mlir").exists() and p.stdout == ""


def test_unwritable_outputs_exit_1_before_reading_the_input(tmp_path):
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    (tmp_path / cli.CHECKPOINT_FILE).write_text(OLD)
    for argv in ([fifo, "-o", tmp_path / "no" / "out"], [fifo, "--checkpoint", "-o", os.devnull]):
        p = process(argv, cwd=tmp_path, text=True)
        assert p.returncode == 1, p.stderr
        one_error_line(p.stderr)


def test_api_checks_the_same_rules_before_any_ir():
    text = INPUT.read_text()
    for passes in ("", ",,,", "fuse=3", "licm=foo", "tile=9223372036854775808", ["fuse", ""]):
        with pytest.raises(UsageError):
            loopopt.optimize(text, passes=passes)
    with pytest.raises(ValueError, match="conflicts"):
        loopopt.optimize(text, passes="licm", enable_licm=False)
    with pytest.raises(ValueError, match="from 0 to 2147483647"):
        loopopt.optimize(text, distance_threshold=2 ** 63)
    assert loopopt.optimize(text, passes=" fuse , licm ").num_loops_fused == 2


def test_ctrl_c_exits_130_in_one_line_writing_nothing(tmp_path):
    code = ("import sys, time, loopopt.cli as c, loopopt.loop_optimization.licm as l\n"
            "def slow(*a, **k):\n    sys.stderr.write('in licm\\n'); sys.stderr.flush(); time.sleep(60)\n"
            "l.licm_function = slow\nc.main(sys.argv[1:])\n")
    p = subprocess.Popen([sys.executable, "-c", code, str(INPUT), "--remarks-json", str(tmp_path / "r"), "-o",
                          str(tmp_path / "o")], env=ENV, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stderr.readline() == "in licm\n"
        p.send_signal(signal.SIGINT)
        err = p.communicate(timeout=30)[1]
    finally:
        p.kill()
    assert p.returncode == 130 and err == "loopopt: interrupted\n"
    assert os.listdir(tmp_path) == []


def test_internal_error_exits_3_in_one_line(tmp_path):
    code = ("import sys, loopopt.api as a, loopopt.cli as c\n"
            "def boom(*x, **k): raise RuntimeError('injected')\n"
            "a.run = boom\nc.main(sys.argv[1:])\n")
    p = subprocess.run([sys.executable, "-c", code, str(INPUT), "-o", str(tmp_path / "o")], env=ENV, cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 3 and "internal error: RuntimeError: injected" in one_error_line(p.stderr)
    assert not (tmp_path / "o").exists()


# ---------------------------------------------------------------------------------------
# Inputs: bounded, refused early when they cannot be text.

def test_dev_zero_is_refused_at_its_first_bytes():
    p = process(["/dev/zero", "-o", os.devnull], text=True, timeout=30,
                preexec=lambda: __import__("resource").setrlimit(__import__("resource").RLIMIT_AS, (3 << 30, 3 << 30)))
    assert p.returncode == 1
    assert one_error_line(p.stderr) == "/dev/zero: error: input contains NUL bytes (byte 0); expected MLIR text"


def test_endless_text_stream_is_refused_at_the_size_limit():
    yes = subprocess.Popen([sys.executable, "-c", "import sys\nb = b'// x\\n' * 65536\nwhile True: sys.stdout.buffer.write(b)"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        p = process(["-", "-o", os.devnull], stdin=yes.stdout, text=True, timeout=60)
    finally:
        yes.kill()
        yes.wait()
    assert p.returncode == 1 and "input is larger than 256 MiB" in one_error_line(p.stderr)


def test_bytecode_input_is_one_line_naming_it(tmp_path, capsys):
    mlir_opt = shutil.which("mlir-opt") or "/usr/lib/llvm-22/bin/mlir-opt"
    bc = tmp_path / "in.mlirbc"
    if os.path.exists(mlir_opt):
        subprocess.run([mlir_opt, str(INPUT), "--emit-bytecode", "-o", str(bc)], check=True)
    else:
        bc.write_bytes(b"ML\xefR\x06loopopt-test\x00" + bytes(range(1, 64)))
    assert bc.read_bytes()[:4] == b"ML\xefR"
    code, err = main([bc, "-o", tmp_path / "o"], capsys)
    assert code == 1 and "input is MLIR bytecode; loopopt reads MLIR text" in one_error_line(err)
    with pytest.raises(LoopOptError, match="MLIR bytecode"):
        loopopt.optimize(bc.read_bytes())


@pytest.mark.parametrize("raw, shown", [(b"we\xffird.mlir", "we\\xffird.mlir"), (b"new\nline.mlir", "new\\nline.mlir")],
                         ids=["non-utf8", "newline"])
def test_odd_file_names_keep_every_output(tmp_path, monkeypatch, capsys, raw, shown):
    """A non-UTF-8 byte (was an internal UnicodeEncodeError with --fpg-dot or --checkpoint) or a
    newline (dropped every DebugLoc from the YAML) in the input's name: escaped (`\\xff`, `\\n`)
    in every output, each line stays one line, every DebugLoc stays in the YAML."""
    monkeypatch.chdir(tmp_path)
    name = os.fsdecode(raw)
    Path(name).write_text(INPUT.read_text())
    code, err = main([name, "--fpg-dot", "d.dot", "--checkpoint", "--remarks", "--remarks-yaml", "r.yaml",
                      "-o", os.devnull], capsys)
    assert code == 0, err
    assert f"{shown}:5:3: passed: [LOOP FUSION]" in err
    assert all(ln.startswith(("analysis", shown)) for ln in err.splitlines())
    assert f"// input: {shown}" in Path(cli.CHECKPOINT_FILE).read_text()
    assert f"L0\\n{shown}:5:3" in Path("d.dot").read_text()
    yaml_text = Path("r.yaml").read_text()
    assert yaml_text.count("\nDebugLoc:") == 5 and f"File: '{shown}'" in yaml_text


# ---------------------------------------------------------------------------------------
# Standard streams.

def _close(*fds):
    def pre():
        for fd in fds:
            os.close(fd)
    return pre


def test_closed_stderr_never_lands_in_stdout(expected):
    p = process([INPUT, "--remarks", "--trace", "--timing", "-o", "-"], preexec=_close(2))
    assert p.returncode == 0 and p.stdout.decode() == expected["-o"]


def test_closed_stdout_stdin_and_full_stdout_are_one_line_exit_1(tmp_path):
    for argv, pre, stdin, line in (
            ([INPUT, "-o", "-"], _close(1), None, "<stdout>: error: cannot write output: stdout is closed"),
            ([INPUT, "--remarks-json", "/dev/stdout", "-o", os.devnull], _close(1), None,
             "/dev/stdout: error: cannot write output: stdout is closed"),
            (["-", "-o", os.devnull], _close(0), None, "<stdin>: error: cannot read input: stdin is closed")):
        p = process(argv, preexec=pre, stdin=stdin, text=True)
        assert p.returncode == 1 and one_error_line(p.stderr) == line
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "loopopt", str(INPUT)], stdout=full, stderr=subprocess.PIPE,
                           text=True, env=ENV, cwd=ROOT, timeout=60)
    assert p.returncode == 1
    assert one_error_line(p.stderr) == "<stdout>: error: cannot write output: No space left on device"


# ---------------------------------------------------------------------------------------
# Deep nests: they work up to mlir.MAX_NESTING_DEPTH (parser, verifier, printer and loopopt's
# recursive walks on a big stack), deeper ones get one line.

def _deep(depth: int) -> str:
    lines = ["func.func @deep(%A: memref<2xf32>) {", "%c = arith.constant 1.0 : f32"]
    lines += [f"affine.for %i{k} = 0 to 1 {{" for k in range(depth)]
    lines += ["%v = affine.load %A[%i0] : memref<2xf32>", "%w = arith.addf %v, %c : f32",
              f"affine.store %w, %A[%i{depth - 1} + 1] : memref<2xf32>"]
    return "\n".join(lines + ["}"] * depth + ["return", "}"]) + "\n"


def test_three_thousand_deep_nest_is_optimized(tmp_path):
    """Was a segfault (MLIR's parser recursing on an 8 MB stack: mlir-opt 22 crashes too)."""
    src = tmp_path / "deep.mlir"
    src.write_text(_deep(3000))
    p = process([src, "--enable-licm=false", "-o", tmp_path / "out.mlir"], text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-500:]
    out = (tmp_path / "out.mlir").read_text()
    assert out.count("affine.for") == 3000 and out.count("affine.store") == 1


@pytest.mark.parametrize("target", ["trn1", pytest.param("cpu", marks=pytest.mark.long)])
def test_recursive_walks_fit_deep_nests(target):
    """1,500 levels through the whole pipeline: no step rolled back (fusion's and LICM's walks
    recurse once per level; the default limit of 1,000 frames made them [INTERNAL]). The cpu
    pipeline's steps on top take 100 s here: `long`."""
    res = loopopt.optimize(_deep(1500), target)
    assert not [r.message for r in res.remarks if "[INTERNAL]" in r.message]
    assert res.text.count("affine.for") == 1500 and sys.getrecursionlimit() == 1000


def test_deeper_than_the_limit_is_one_line(tmp_path, capsys):
    depth = mlir.MAX_NESTING_DEPTH + 10
    src = tmp_path / "deeper.mlir"
    src.write_text(_deep(depth))
    code, err = main([src, "-o", tmp_path / "o"], capsys)
    # the function body's brace, the loops' and the load's bracket
    assert code == 1 and one_error_line(err) == (f"{src}: error: input nests {depth + 2} levels deep; loopopt "
                                                 f"handles at most {mlir.MAX_NESTING_DEPTH}")


# ---------------------------------------------------------------------------------------
# Nested modules.

NESTED = """\
module {
  module @inner {
    func.func @chain(%a: memref<64xf32>, %b: memref<64xf32>) {
      %t = memref.alloc() : memref<64xf32>
      affine.for %i = 0 to 64 {
        %x = affine.load %a[%i] : memref<64xf32>
        affine.store %x, %t[%i] : memref<64xf32>
      }
      affine.for %i = 0 to 64 {
        %x = affine.load %t[%i] : memref<64xf32>
        affine.store %x, %b[%i] : memref<64xf32>
      }
      memref.dealloc %t : memref<64xf32>
      return
    }
  }
}
"""


def test_functions_in_nested_modules_are_optimized():
    from loopopt.testing import assert_same_results

    res = loopopt.optimize(NESTED, "cpu", filename="n.mlir")
    assert res.num_loops_fused == 1 and res.text.count("affine.for") == 1 and "module @inner" in res.text
    assert [r.location for r in res.remarks if r.name == "LoopFusion"] == ["n.mlir:5:7"]
    assert_same_results(NESTED, res.text, seed=1)


# ---------------------------------------------------------------------------------------
# The Python API: source types, interrupts, names, state across calls.

@pytest.mark.parametrize("make", [str, str.encode, lambda t: bytearray(t.encode()), lambda t: mlir.parse_module(t)],
                         ids=["str", "bytes", "bytearray", "Module"])
def test_accepted_source_types(make):
    assert loopopt.optimize(make(INPUT.read_text())).num_loops_fused == 2


@pytest.mark.parametrize("bad, hint", [(None, ""), (3, ""), (Path(INPUT), "pass its text"),
                                       ("module-op", "pass the ir.Module")], ids=["None", "int", "Path", "Operation"])
def test_wrong_source_type_is_a_type_error(bad, hint):
    if bad == "module-op":
        bad = mlir.parse_module(INPUT.read_text()).operation
    with pytest.raises(TypeError, match=f"source must be MLIR text.*{hint}"):
        loopopt.optimize(bad)


def _interrupting(monkeypatch, how):
    """LICM (after fusion changed the module) stops with an interrupt."""
    from loopopt.loop_optimization import licm

    real = licm.licm_function

    def step(*a, **k):
        if how == "raise":
            raise KeyboardInterrupt
        os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C: it reaches the waiting main thread
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # the worker is stopped at its next instruction
            pass
        return real(*a, **k)

    monkeypatch.setattr(licm, "licm_function", step)


@pytest.mark.parametrize("how", ["raise", "signal"])
def test_interrupt_leaves_the_callers_module_as_it_was(monkeypatch, how):
    module = mlir.parse_module(INPUT.read_text(), "chain3.mlir")
    before = str(module)
    _interrupting(monkeypatch, how)
    with pytest.raises(KeyboardInterrupt):
        loopopt.optimize(module)
    assert str(module) == before and str(module).count("func.func") == 1
    assert mlir.verify(module.operation) is None
    monkeypatch.undo()
    assert loopopt.optimize(module).num_loops_fused == 2  # and it can still be optimized


def test_bad_input_inside_a_step_leaves_the_module_as_it_was(monkeypatch):
    from loopopt.loop_optimization import licm

    def bad(*a, **k):
        raise LoopOptError("x.mlir:1:1: error: injected")

    module = mlir.parse_module(INPUT.read_text())
    before = str(module)
    monkeypatch.setattr(licm, "licm_function", bad)
    with pytest.raises(LoopOptError, match="injected"):
        loopopt.optimize(module)
    assert str(module) == before


def test_details_and_locations_name_the_same_file():
    module = mlir.parse_module(REFUSED.read_text())  # registered as <input>
    res = loopopt.optimize(module, "cpu", filename="given.mlir")
    refused = [r for r in res.remarks if r.name == "NegativeDistance"]
    assert refused and all(r.location.startswith("given.mlir:") and "(given.mlir:3:8)" in r.detail for r in refused)
    assert "<input>" not in res.remarks_text()
    # without filename=, a module parsed by loopopt.mlir keeps the name it was parsed with
    res = loopopt.optimize(mlir.parse_module(REFUSED.read_text(), "r.mlir"), "cpu")
    assert {r.location.split(":")[0] for r in res.remarks if r.location} == {"r.mlir"}


def test_no_state_grows_across_calls():
    """The file-name table holds one entry per live context, the recursion limit is put back."""
    gc.collect()
    base = len(mlir._FILES)
    for k in range(25):
        loopopt.optimize(INPUT.read_text(), filename=f"f{k}.mlir")
    module = mlir.parse_module(INPUT.read_text(), "m.mlir")
    for k in range(10):
        loopopt.optimize(module, filename=f"g{k}.mlir")
    gc.collect()
    assert len(mlir._FILES) <= base + 1 and mlir.source_file(module.operation) == "m.mlir"
    assert sys.getrecursionlimit() == 1000


def test_remarks_json_holds_every_argument(tmp_path, capsys):
    """What the YAML leaves out (the code, hoisted ops) is in the JSON lines."""
    code, _ = main([INPUT, "--remarks-json", tmp_path / "r.json", "-o", os.devnull], capsys)
    fused = [json.loads(x) for x in (tmp_path / "r.json").read_text().splitlines()]
    fused = [r for r in fused if r["args"].get("code") == "LOOP_FUSION"]
    assert code == 0 and len(fused) == 2 and all("hoisted" in r["args"] for r in fused)
