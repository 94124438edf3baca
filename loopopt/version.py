"""loopopt's version, read once: the installed package's, or from a source tree pyproject.toml's."""
from __future__ import annotations


def _version() -> str:
    """The installed package's version; from a source tree, pyproject.toml's."""
    from importlib import metadata

    try:
        return metadata.version("loopopt")
    except metadata.PackageNotFoundError:
        pass
    import os
    import tomllib

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyproject.toml")
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)["project"]["version"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"


__version__ = _version()
