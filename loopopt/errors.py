"""User-facing errors: one line, the place, what is wrong."""


class LoopOptError(Exception):
    """An error the CLI prints as one line and exits 1 on; never a traceback."""
