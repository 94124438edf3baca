"""User-facing errors: one line, the place, what is wrong, and the exit code each one means.

Exit codes of the `loopopt` command (README, Usage):
  0 ok; 1 bad input or an I/O error (LoopOptError); 2 bad command line (UsageError, checked
  before any input is read); 3 internal error (a bug: please report it); 130 interrupted;
  141 the reader of stdout went away.
"""

EXIT_OK = 0
EXIT_INPUT = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141


class LoopOptError(Exception):
    """Bad input or an I/O error: the CLI prints it as one line and exits 1; never a traceback."""

    exit_code = EXIT_INPUT


class UsageError(LoopOptError, ValueError):
    """A bad command line or API argument (a knob out of range, a bad pipeline, conflicting
    flags or outputs): exit 2. A ValueError too, so API callers can catch it as one."""

    exit_code = EXIT_USAGE


class ErasedOpInUse(BaseException):
    """Debug mode (`LOOPOPT_CHECK_ERASE=1`, on in the test suite): a step was about to erase an op
    while a value it defines (a result, or a result or block argument inside it) is still used
    outside it, which would leave freed memory reachable from the IR. Raised before the erase,
    naming the step and the op. A BaseException, so no `except Exception` of a step, a scratch
    trial or the driver's rollback turns the bug into a quiet refusal: it reaches the caller."""


def printable(name: str) -> str:
    """`name` as every output shows it: undecodable bytes (a non-UTF-8 file name arrives as
    surrogate escapes) and control characters written as Python escapes (`\\xff`, `\\n`), so an
    error or remark stays one line of UTF-8 text; a printable name is returned unchanged."""
    if name.isprintable():
        return name
    out = []
    for ch in name:
        if ch.isprintable() and not 0xD800 <= ord(ch) <= 0xDFFF:
            out.append(ch)
        elif 0xDC80 <= ord(ch) <= 0xDCFF:  # os.fsdecode's escape of the byte ord(ch) - 0xDC00
            out.append(f"\\x{ord(ch) - 0xDC00:02x}")
        else:
            out.append(ch.encode("unicode_escape", "backslashreplace").decode("ascii"))
    return "".join(out)
