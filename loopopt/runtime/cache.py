"""Built kernels cached by content in the user's cache directory.

Where: $LOOPOPT_CACHE_DIR, else $XDG_CACHE_HOME/loopopt, else ~/.cache/loopopt (created 0700).

Key: the SHA-256 of everything a built object depends on (`key_material`): the input text, the
options and pipeline, the entry function's name, loopopt's version and a digest of its own source
files (a changed optimizer is a new key), the lowering pipeline and build flags, and the toolchain
facts (LLVM version, target triple, host CPU and its features: `-mcpu=native` code runs only on
such a machine).

An entry is two files: `KEY-NONCE.so`, the library, and `KEY.json`, its manifest (the key, the
library's file name, size and SHA-256, the kernel's spec). Rules:
* Written atomically: each file is written under a temporary name in the cache directory,
  flushed, then renamed into place, the manifest last; a reader sees a whole entry or none.
* Checked before it is loaded: the manifest must parse, carry this format and this key, and name
  a library of the recorded size and SHA-256; anything else (a truncated or corrupted file, a
  manifest of another format, a missing library) is a miss, and the entry is rebuilt. A library is
  never loaded unless its bytes are the ones its builder recorded.
* Every build gets a new library name (the nonce): `ctypes.CDLL` of a path the process has already
  loaded returns the old library, even when the file was replaced.
* Builders of one key take turns: an exclusive lock (`KEY.lock`, flock) is held from the second
  lookup to the manifest's rename, so two processes building one key build it once; the second
  finds the first's entry. Readers take no lock. A rebuilt entry's old library is removed after
  the new manifest is in place (a process that has it loaded keeps its mapping).
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import tempfile
from dataclasses import dataclass, field

CACHE_ENV = "LOOPOPT_CACHE_DIR"
FORMAT = 1


def cache_dir() -> str:
    """The cache directory (not created)."""
    d = os.environ.get(CACHE_ENV)
    if d:
        return d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "loopopt")


_CODE_DIGEST: str | None = None


def code_digest() -> str:
    """SHA-256 over loopopt's own Python sources (path and bytes), once per process: a key made by
    other code is another key, even under the same version number."""
    global _CODE_DIGEST
    if _CODE_DIGEST is None:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        h = hashlib.sha256()
        for d, subdirs, files in sorted(os.walk(root)):
            subdirs.sort()
            for f in sorted(files):
                if f.endswith(".py"):
                    path = os.path.join(d, f)
                    h.update(os.path.relpath(path, root).encode() + b"\0")
                    with open(path, "rb") as fh:
                        h.update(fh.read())
                    h.update(b"\0")
        _CODE_DIGEST = h.hexdigest()
    return _CODE_DIGEST


def key_of(material: dict) -> str:
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


@dataclass
class Entry:
    """A verified entry: the library's path, the spec's JSON, and the manifest's other fields."""

    key: str
    library: str
    spec_json: str
    info: dict = field(default_factory=dict)


def _sha256_file(path: str) -> tuple[int, str]:
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            size += len(chunk)
            h.update(chunk)
    return size, h.hexdigest()


def _paths(directory: str, key: str) -> tuple[str, str]:
    return os.path.join(directory, f"{key}.json"), os.path.join(directory, f"{key}.lock")


def lookup(directory: str, key: str) -> tuple[Entry | None, str]:
    """(the entry, "") if a whole, matching entry exists, else (None, why not)."""
    manifest_path, _ = _paths(directory, key)
    try:
        with open(manifest_path, "rb") as f:
            m = json.loads(f.read().decode("utf-8"))
    except FileNotFoundError:
        return None, "not cached"
    except (OSError, ValueError) as e:
        return None, f"manifest unreadable ({type(e).__name__})"
    if not isinstance(m, dict) or m.get("format") != FORMAT or m.get("key") != key:
        return None, "manifest of another format or key"
    name = m.get("library")
    if not isinstance(name, str) or os.path.basename(name) != name or not name.startswith(key):
        return None, "manifest names no library of this key"
    library = os.path.join(directory, name)
    try:
        size, digest = _sha256_file(library)
    except OSError:
        return None, "library missing"
    if size != m.get("size") or digest != m.get("sha256"):
        return None, "library does not match its manifest (truncated or corrupted)"
    if not isinstance(m.get("spec"), str):
        return None, "manifest has no spec"
    return Entry(key, library, m["spec"], {k: v for k, v in m.items() if k not in ("spec",)}), ""


def _write_new(directory: str, name: str, data: bytes, mode: int = 0o644) -> str:
    """Write `data` under a temporary name, flush it, rename it to `name`; the path."""
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        final = os.path.join(directory, name)
        os.replace(tmp, final)
        return final
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_atomically(path: str, data: bytes) -> None:
    """Replace `path` by `data` whole (a temporary file beside it, then a rename)."""
    _write_new(os.path.dirname(path), os.path.basename(path), data)


def store(directory: str, key: str, library: bytes, spec_json: str, info: dict) -> Entry:
    """Write a new entry (library first, then the manifest that names it)."""
    name = f"{key}-{secrets.token_hex(6)}.so"
    path = _write_new(directory, name, library, 0o755)
    manifest = {**info, "format": FORMAT, "key": key, "library": name, "size": len(library),
                "sha256": hashlib.sha256(library).hexdigest(), "spec": spec_json}
    _write_new(directory, f"{key}.json", json.dumps(manifest, sort_keys=True, indent=1).encode("utf-8"))
    return Entry(key, path, spec_json, {k: v for k, v in manifest.items() if k != "spec"})


@contextlib.contextmanager
def key_lock(directory: str, key: str):
    """Hold the key's exclusive lock (blocking)."""
    import fcntl

    _, lock_path = _paths(directory, key)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _remove_others(directory: str, key: str, keep: str) -> None:
    """Libraries of `key` other than `keep` (a rebuilt entry's old ones)."""
    for f in os.listdir(directory):
        if f.startswith(key + "-") and f.endswith(".so") and os.path.join(directory, f) != keep:
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(directory, f))


def ensure_dir(directory: str) -> str | None:
    """Create the cache directory (0700); None when usable, else why not."""
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except OSError as e:
        return f"cannot create {directory}: {e.strerror or e}"
    if not os.access(directory, os.W_OK | os.X_OK):
        return f"{directory} is not writable"
    return None


def get_or_build(directory: str, key: str, build) -> tuple[Entry, str]:
    """The entry for `key`, built with `build()` -> (library bytes, spec JSON, info) when none
    valid exists. Returns (entry, how): "hit", "built", or "rebuilt (<why the old one was refused>)"."""
    entry, why = lookup(directory, key)
    if entry is not None:
        return entry, "hit"
    with key_lock(directory, key):
        entry, why = lookup(directory, key)  # another process may have built it meanwhile
        if entry is not None:
            return entry, "hit"
        library, spec_json, info = build()
        entry = store(directory, key, library, spec_json, info)
        _remove_others(directory, key, entry.library)
    return entry, "built" if why == "not cached" else f"rebuilt ({why})"
