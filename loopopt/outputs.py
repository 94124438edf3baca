"""Every file the command line writes, and the rules it follows (docs/interfaces.md, outputs).

The CLI names its outputs once (`Output`: the flag and the path), checks them all with
`check_outputs` before it reads any input, and writes each with `write_output`:

* `-` is stdout. A closed stdout is an error, never a silent loss.
* A path is followed through symlinks to the file it names (the links stay). A new file gets the
  mode the umask allows. An existing regular file is replaced atomically (a temporary file beside
  it, then a rename): a failure, a full disk included, leaves the old file whole and no temporary
  file; the replacement keeps the old mode and, where permitted, the owner. A file we may not
  write is refused with the system's reason before any input is read (root may write it, as
  the shell and mlir-opt do). A file with several hard links is rewritten in place instead, as
  mlir-opt does, so every link sees the new text; its space is reserved first, so a full disk
  leaves it unchanged.
* A device, a FIFO or a descriptor under /proc (/dev/stdout) cannot be replaced, only written to:
  it is written straight (opened for appending: a descriptor naming a regular file is never
  truncated).
* The checkpoint (`exclusive`) is created, never replaced and never written through a symlink:
  if its name exists, whatever it is, the run is refused before any input is read (and again,
  atomically, when it is written: two runs racing for one directory never overwrite each other).
* Two outputs may not name one regular file (or one new path), and a side output may not name
  the input; `-o` may (the input is read whole first, as `mlir-opt x.mlir -o x.mlir` does).
  Devices, FIFOs and `-` may be shared: they get the outputs in writing order (stdout redirected
  to a file counts as that file for any other output that names it).
"""
from __future__ import annotations

import errno
import os
import secrets
import stat
import sys
from dataclasses import dataclass

from .errors import LoopOptError, UsageError, printable

# Standard streams that were closed when the process started (filled with /dev/null by
# `guard_std_streams`, so that no file the run opens becomes fd 0, 1 or 2).
CLOSED_STREAMS: set[int] = set()


@dataclass(frozen=True)
class Output:
    """One output of a run: the flag that names it, its path (`-`: stdout), and whether it must
    be a new file (the checkpoint)."""

    flag: str
    path: str
    exclusive: bool = False

    @property
    def shown(self) -> str:
        return "<stdout>" if self.path == "-" else printable(self.path)


def guard_std_streams() -> set[int]:
    """Open /dev/null on each of fds 0, 1, 2 that is closed, so later files never take their
    numbers (a library writing to fd 2 would write into our output); the closed ones are
    remembered in CLOSED_STREAMS. sys.stderr is pointed at /dev/null if it was closed: nothing
    meant for stderr ever lands in stdout (`print(file=None)` would)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            got = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
            if got != fd:
                os.dup2(got, fd)
                os.close(got)
            CLOSED_STREAMS.add(fd)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")
    return set(CLOSED_STREAMS)


# ---------------------------------------------------------------------------------------
# Checks before any input is read.


def _file_identity(st: os.stat_result) -> tuple | None:
    """What two paths share when they name one regular file; None for anything else."""
    return ("file", st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def output_identity(path: str) -> tuple | None:
    """The regular file (or the new path) an output would write, or None for a stream that may be
    shared (stdout on a pipe or terminal, a device, a FIFO)."""
    if path == "-":
        try:
            return _file_identity(os.fstat(1))
        except OSError:
            return None
    try:
        return _file_identity(os.stat(path))
    except FileNotFoundError:
        return ("new", os.path.realpath(path))
    except OSError:
        return None  # reported by check_writable


def input_identity(path: str) -> tuple | None:
    """The regular file or FIFO the input is, or None (stdin that is not a file, a device, a
    missing file): what no side output may name."""
    try:
        st = os.fstat(0) if path == "-" else os.stat(path)
    except OSError:
        return None
    if stat.S_ISFIFO(st.st_mode) and path != "-":
        return ("fifo", st.st_dev, st.st_ino)
    return _file_identity(st)


def check_outputs(outputs: list[Output], input_path: str) -> None:
    """Refuse, before any input is read, outputs that would destroy one another or the input
    (UsageError: a bad command line) and outputs that cannot be written (LoopOptError)."""
    seen: dict = {}
    source = input_identity(input_path)
    for out in outputs:
        if out.path == "":
            raise UsageError(f"loopopt: error: {out.flag} '' names no file (an empty path); give a path, or - for stdout")
    for out in outputs:
        ident = output_identity(out.path)
        if source is not None and source[0] == "fifo" and out.flag != "-o" and out.path != "-":
            ident = input_identity(out.path) or ident
        if ident is None:
            continue
        if ident == source and out.flag != "-o":
            raise UsageError(f"loopopt: error: {out.flag} {out.shown} is the input file; name another file")
        if ident in seen and not (out.path == seen[ident].path == "-"):  # stdout twice: in order
            raise UsageError(f"loopopt: error: {out.flag} {out.shown} and {seen[ident].flag} "
                             f"{seen[ident].shown} name the same file; give each output its own file")
        seen[ident] = out
    for out in outputs:
        check_writable(out)


def _cannot_write(out: Output, why: str) -> LoopOptError:
    return LoopOptError(f"{out.shown}: error: cannot write output: {why}")


def check_writable(out: Output) -> None:
    """LoopOptError if `out` cannot be written: stdout closed, the checkpoint's name taken, the
    path a directory, a file we may not open for writing, a missing or unwritable directory."""
    if out.path == "-":
        if 1 in CLOSED_STREAMS or sys.stdout is None:
            raise _cannot_write(out, "stdout is closed")
        return
    if out.exclusive:
        if os.path.lexists(out.path):
            raise LoopOptError(f"{out.shown}: error: the checkpoint file exists (from an earlier run?); "
                               "loopopt never overwrites or follows one: remove it or run in another directory")
        _check_directory(out, os.path.dirname(os.path.abspath(out.path)))
        return
    try:
        target = _resolve_output(out.path)
    except OSError as e:
        raise _cannot_write(out, e.strerror or str(e)) from None
    if target is None:  # a descriptor under /proc: written through
        if _closed_descriptor(out.path):
            raise _cannot_write(out, "stdout is closed")
        return
    try:
        st = os.stat(target)
    except FileNotFoundError:
        _check_directory(out, os.path.dirname(target))
        return
    except OSError as e:
        raise _cannot_write(out, e.strerror or str(e)) from None
    if stat.S_ISDIR(st.st_mode):
        raise _cannot_write(out, os.strerror(errno.EISDIR))
    if stat.S_ISREG(st.st_mode):
        try:  # the kernel's own permission check; opening for writing changes nothing
            os.close(os.open(target, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)))
        except OSError as e:
            raise _cannot_write(out, e.strerror or str(e)) from None


def _check_directory(out: Output, d: str) -> None:
    try:
        st = os.stat(d)
    except OSError as e:
        raise _cannot_write(out, e.strerror or str(e)) from None
    if not stat.S_ISDIR(st.st_mode):
        raise _cannot_write(out, os.strerror(errno.ENOTDIR))
    if not os.access(d, os.W_OK | os.X_OK):
        raise _cannot_write(out, os.strerror(errno.EACCES))


def _closed_descriptor(path: str) -> bool:
    """Whether `path` leads to /proc/self/fd/N (or the process's own /proc/PID/fd/N) for a
    standard stream that was closed at start (now /dev/null: writing it would lose the output)."""
    p = os.path.abspath(path)
    for _ in range(40):
        if not os.path.islink(p):
            break
        link = os.readlink(p)
        p = os.path.normpath(os.path.join(os.path.dirname(p), link))
        for prefix in ("/proc/self/fd/", f"/proc/{os.getpid()}/fd/", "/proc/thread-self/fd/"):
            if p.startswith(prefix) and p[len(prefix):].isdigit():
                return int(p[len(prefix):]) in CLOSED_STREAMS
    return False


# ---------------------------------------------------------------------------------------
# Writing.


def write_output(out: Output, text: str | bytes) -> None:
    """Write `text` (str: written as UTF-8; bytes: as they are) to `out` by the rules above. Raises
    LoopOptError with one line on failure (BrokenPipeError when the reader of stdout or a FIFO
    went away: the CLI stops quietly)."""
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    try:
        if out.path == "-":
            _write_stdout(out, text, data)
        elif out.exclusive:
            _create_exclusive(out, data)
        else:
            _write_path(out.path, data)
    except BrokenPipeError:
        raise
    except OSError as e:
        if e.errno == errno.EEXIST and out.exclusive:
            raise LoopOptError(f"{out.shown}: error: the checkpoint file appeared while loopopt ran (another "
                               "run in this directory?); it was left alone and this run's checkpoint not written") from None
        raise _cannot_write(out, e.strerror or str(e)) from None


def _write_stdout(out: Output, text: str | bytes, data: bytes) -> None:
    """Straight to fd 1 when sys.stdout is the process's stdout (nothing is left in a buffer that
    a failed write would try again at exit); through sys.stdout when it was replaced (tests)."""
    if 1 in CLOSED_STREAMS or sys.stdout is None:
        raise OSError(errno.EBADF, "stdout is closed")
    stream = sys.stdout
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        fd = None
    if fd is None:
        if isinstance(text, bytes):
            stream = getattr(stream, "buffer", stream)
        stream.write(text)
        stream.flush()
        return
    stream.flush()
    _write_all(fd, data)


def _write_path(path: str, data: bytes) -> None:
    target = _resolve_output(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    if target is None or (st is not None and not stat.S_ISREG(st.st_mode)):
        _write_through(path, data)
    elif st is not None and st.st_nlink > 1:
        _rewrite_in_place(target, data)
    else:
        try:
            _replace_file(target, data, st)
        except PermissionError:
            if st is None:
                raise
            _rewrite_in_place(target, data)  # a file we may write in a directory we may not


def _resolve_output(path: str) -> str | None:
    """The path of the file that `path` names after following symlinks, or None if the path leads
    into /proc: there a link names an open descriptor (/dev/stdout), which is written, never replaced."""
    p = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on a chain of links
        d = os.path.realpath(os.path.dirname(p))
        if d == "/proc" or d.startswith("/proc/"):
            return None
        p = os.path.join(d, os.path.basename(p))
        if not os.path.islink(p):
            return p
        p = os.path.join(d, os.readlink(p))
    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))


def _temporary_beside(target: str) -> tuple[str, int]:
    """A new file `.loopopt-<random>.tmp` in target's directory (mode 0666 less the umask)."""
    d = os.path.dirname(target)
    for _ in range(100):
        tmp = os.path.join(d, f".loopopt-{secrets.token_hex(6)}.tmp")
        try:
            return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
        except FileExistsError:
            continue
    raise OSError(errno.EEXIST, f"no free temporary file name in {d}")


def _replace_file(target: str, data: bytes, old: os.stat_result | None) -> None:
    """Write a temporary file beside `target`, then rename it over `target`.

    A new file gets the mode the umask allows (0666 & ~umask, as any program's new file); a replaced
    file keeps its mode and, where permitted, its owner."""
    tmp, fd = _temporary_beside(target)
    try:
        if old is not None:
            os.fchmod(fd, stat.S_IMODE(old.st_mode))
            if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
                try:
                    os.fchown(fd, old.st_uid, old.st_gid)
                except PermissionError:
                    pass
        _write_all(fd, data)
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(tmp, target)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        _unlink_quietly(tmp)
        raise


def _rewrite_in_place(target: str, data: bytes) -> None:
    """Overwrite `target` itself (its hard links see the new text). The space is reserved first
    (posix_fallocate), so a full disk fails before any byte changes where the file system can say."""
    fd = os.open(target, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        if data:
            try:
                os.posix_fallocate(fd, 0, len(data))
            except OSError as e:
                if e.errno not in (errno.EINVAL, errno.EOPNOTSUPP, errno.ENOSYS):
                    raise
        _write_all(fd, data)
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)


def _create_exclusive(out: Output, data: bytes) -> None:
    """A file that did not exist: written whole beside it, then linked to its name, which fails if
    the name exists in any form (a file, a symlink, dangling or not); never follows a link."""
    path = os.path.abspath(out.path)
    tmp, fd = _temporary_beside(path)
    try:
        _write_all(fd, data)
        os.fsync(fd)
        os.close(fd)
        fd = -1
        try:
            os.link(tmp, path, follow_symlinks=False)
        except OSError as e:
            if e.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EMLINK, errno.EXDEV):
                raise
            _create_without_link(path, data)  # a file system without hard links
    finally:
        if fd >= 0:
            os.close(fd)
        _unlink_quietly(tmp)


def _create_without_link(path: str, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        _write_all(fd, data)
    except BaseException:
        os.close(fd)
        _unlink_quietly(path)
        raise
    os.close(fd)


def _write_through(path: str, data: bytes) -> None:
    """Write into what `path` names as it is (device, FIFO, descriptor): opened for appending, so a
    descriptor that names a regular file is never truncated."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_CLOEXEC", 0))
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
