"""Build LLVM-dialect-bound MLIR into LLVM IR, an object or a shared library for this machine.

    mlir-opt RUNTIME_LOWERING_PASSES  affine/scf/memref/vector/math -> LLVM dialect (runtime.lowering)
    mlir-translate --mlir-to-llvmir
    opt -O3 -mtriple=T -mcpu=native   LLVM's IR optimisations (the loop vectorizer among them)
    llc -O3 -mcpu=native -align-loops=64 -relocation-model=pic -filetype=obj
    cc -shared K.o K_runtime.o -o K.so -lm
                                   (K_runtime.o: `cc -O2 -fPIC -c` of the library's C, runtime_source)

Every tool is Debian's LLVM 22 (`/usr/lib/llvm-22/bin`, or `NAME-22` on PATH, or
$LOOPOPT_LLVM_BIN), checked by its `--version`: the unsuffixed `opt`/`llc` on PATH may be an older
LLVM that cannot read LLVM 22's IR. What each flag is for (each was measured without it,
shared/notes/runtime.md): mlir-translate writes no target triple, and `opt -O3` without one does
not vectorize; `llc -O3` alone runs no IR optimisation; without PIC `cc -shared` refuses the
object's relocations; `-lm` records libm as needed, so a process without libm (a C program)
loads the library too. `-mcpu=native` makes code for this CPU and its features: the cache keys
on them (`host_cpu`).
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache

from ..errors import LoopOptError
from .lowering import LOWERING_PASSES, RUNTIME_LOWERING_PASSES
from .phases import phase

LLVM_MAJOR = 22
LLVM_BIN = f"/usr/lib/llvm-{LLVM_MAJOR}/bin"
INSTALL_HINT = f"apt-get install -y --no-install-recommends llvm-{LLVM_MAJOR} mlir-{LLVM_MAJOR}-tools (scripts/setup.sh)"
EMIT_KINDS = ("prepared", "llvm", "object", "shared")


class BuildError(LoopOptError):
    """A tool is missing or a build step failed; the message is one line."""


@dataclass(frozen=True)
class Toolchain:
    """The tools of one build and the facts a built object depends on."""

    mlir_opt: str
    mlir_translate: str
    opt: str
    llc: str
    cc: str
    llvm_version: str  # "22.1.8"
    triple: str  # llc's default target, this machine's
    host_cpu: str  # the CPU -mcpu=native names ("rocketlake", "znver4")
    host_features: str  # digest of the features -mcpu=native enables
    objcopy: str = ""  # llvm-objcopy: an object's hidden symbols made local (--emit object)

    def key(self) -> dict:
        """What a built object depends on besides its input: for the cache key."""
        return {"llvm": self.llvm_version, "triple": self.triple, "cpu": self.host_cpu,
                "features": self.host_features}


TOOLS = ("mlir-opt", "mlir-translate", "opt", "llc", "llvm-objcopy")


def _version_text(path: str) -> str:
    try:
        return subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def _candidates(name: str) -> list[str]:
    """Where LLVM 22's `name` may be, in order: $LOOPOPT_LLVM_BIN, /usr/lib/llvm-22/bin, `NAME-22` on PATH."""
    out = [os.path.join(d, name) for d in (os.environ.get("LOOPOPT_LLVM_BIN"), LLVM_BIN) if d]
    suffixed = shutil.which(f"{name}-{LLVM_MAJOR}")
    return out + ([suffixed] if suffixed else [])


def _fingerprint() -> dict:
    """What the probed facts depend on: every candidate tool file (path, inode, size, mtime), cc,
    and this CPU (/proc/cpuinfo's model and flags). Equal fingerprints: the stored probe holds."""
    files = {}
    for path in [p for n in TOOLS for p in _candidates(n)] + [shutil.which("cc") or ""]:
        try:
            st = os.stat(path)
            files[path] = [st.st_ino, st.st_size, st.st_mtime_ns]
        except OSError:
            files[path] = None
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            first = f.read().split("\n\n")[0]
        wanted = "".join(ln for ln in first.splitlines(True) if ln.startswith(("model name", "flags")))
        cpu = hashlib.sha256(wanted.encode()).hexdigest()
    except OSError:
        pass
    return {"files": files, "cpu": cpu, "format": 2}


def _probe() -> dict:
    """Run the probes (each tool's --version, in parallel, and opt's features for -mcpu=native):
    {"tools": {name: path or None}, "llc_version": text, "features": digest}."""
    from concurrent.futures import ThreadPoolExecutor

    cands = {n: [p for p in _candidates(n) if os.access(p, os.X_OK)] for n in TOOLS}
    paths = sorted({p for ps in cands.values() for p in ps})
    with ThreadPoolExecutor(max_workers=max(1, len(paths))) as pool:
        texts = dict(zip(paths, pool.map(_version_text, paths)))
    tools = {n: next((p for p in ps if f"version {LLVM_MAJOR}." in texts[p]), None) for n, ps in cands.items()}
    llc_text = texts.get(tools["llc"], "") if tools["llc"] else ""
    m = re.search(r"^\s*Default target: (\S+)", llc_text, re.MULTILINE)
    features = _host_features(tools["opt"], m.group(1)) if tools["opt"] and m else "unknown"
    return {"tools": tools, "llc_version": llc_text, "features": features}


@lru_cache(maxsize=1)
def _probed() -> dict:
    """The probe, once per process, and across processes from the cache directory's
    toolchain.json while the fingerprint holds (a probe runs a process per tool: seconds on a
    busy machine)."""
    from . import cache

    fp = _fingerprint()
    path = os.path.join(cache.cache_dir(), "toolchain.json")
    try:
        with open(path) as f:
            stored = json.load(f)
        if stored.get("fingerprint") == fp and isinstance(stored.get("probe"), dict):
            return stored["probe"]
    except (OSError, ValueError):
        pass
    probe = _probe()
    if all(probe["tools"].values()) and cache.ensure_dir(cache.cache_dir()) is None:
        with contextlib.suppress(OSError):
            cache.write_atomically(path, json.dumps({"fingerprint": fp, "probe": probe}, indent=1).encode())
    return probe


def llvm_tool(name: str) -> str | None:
    """Path of LLVM 22's `name` (opt, llc, mlir-opt, mlir-translate): $LOOPOPT_LLVM_BIN, then
    /usr/lib/llvm-22/bin, then `NAME-22` on PATH; only one whose --version says LLVM 22."""
    return _probed()["tools"].get(name)


def missing_tools() -> str | None:
    """None when every build tool is here, else one line naming what is missing and how to get it."""
    missing = [n for n in TOOLS if llvm_tool(n) is None]
    if shutil.which("cc") is None:
        missing.append("cc")
    if not missing:
        return None
    return f"LLVM {LLVM_MAJOR} tools not found: {', '.join(missing)}: {INSTALL_HINT}"


@lru_cache(maxsize=1)
def toolchain() -> Toolchain:
    """The tools and the host facts, found once per process; BuildError if a tool is missing."""
    why = missing_tools()
    if why is not None:
        raise BuildError(f"loopopt: error: {why}")
    probe = _probed()
    text = probe["llc_version"]
    m = re.search(r"LLVM version (\S+)", text)
    return Toolchain(llvm_tool("mlir-opt"), llvm_tool("mlir-translate"), llvm_tool("opt"), llvm_tool("llc"),
                     shutil.which("cc"), m.group(1) if m else "unknown", _field(text, "Default target") or "unknown",
                     _field(text, "Host CPU") or "unknown", probe["features"], llvm_tool("llvm-objcopy"))


def _field(text: str, label: str) -> str | None:
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(label):
            return line[len(label):].strip(" :")
    return None


def _host_features(opt: str, triple: str) -> str:
    """A digest of the target features `opt -mcpu=native` stamps on a function: two machines
    that report one CPU name may still differ (a VM without AVX-512)."""
    probe = "define void @f() {\n  ret void\n}\n"
    p = subprocess.run([opt, "-S", f"-mtriple={triple}", "-mcpu=native", "-O1"], input=probe,
                       capture_output=True, text=True, timeout=60)
    found = [ln for ln in p.stdout.splitlines() if "target-features" in ln]
    return hashlib.sha256("".join(found).encode()).hexdigest()[:16] if found else "unknown"


# ----------------------------------------------------------------------------- the steps

def _run(step: str, cmd: list[str], data: bytes, timeout: float) -> bytes:
    try:
        with phase(step):
            p = subprocess.run(cmd, input=data, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise BuildError(f"loopopt: error: {step} timed out after {timeout:.0f} s") from None
    except OSError as e:
        raise BuildError(f"loopopt: error: {step}: {e.strerror or e}") from None
    if p.returncode != 0:
        raise BuildError(f"loopopt: error: {step} failed: {_first_error(p.stderr.decode('utf-8', 'replace'))}")
    return p.stdout


def _first_error(stderr: str) -> str:
    lines = [ln.strip() for ln in stderr.splitlines() if "error" in ln] or \
            [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    return lines[0] if lines else "(no message)"


def to_llvm_ir(marked_text: str, tc: Toolchain | None = None, timeout: float = 1800,
               generic_alloc: bool = True) -> bytes:
    """LLVM IR text of a module whose entry points are marked (lowering.mark_entry_points);
    generic_alloc (every build but the tests' malloc variant): memref.alloc/dealloc call MLIR's
    generic allocation functions, which the library's C (runtime_source) defines."""
    tc = tc or toolchain()
    passes = RUNTIME_LOWERING_PASSES if generic_alloc else LOWERING_PASSES
    llvm_dialect = _run("mlir-opt", [tc.mlir_opt, *passes], marked_text.encode("utf-8"), timeout)
    return _run("mlir-translate", [tc.mlir_translate, "--mlir-to-llvmir"], llvm_dialect, timeout)


def opt_flags(tc: Toolchain) -> list[str]:
    return ["-O3", f"-mtriple={tc.triple}", "-mcpu=native"]


def llc_flags(tc: Toolchain) -> list[str]:
    """-align-loops=64: every loop header starts a cache line (llc's default is 16 bytes), so a hot
    loop's speed does not depend on where the code before it happened to end (layernorm: 195 µs
    at the default placement, 161 aligned; the harness's JIT, which places code per process, runs
    it at 160 or 205)."""
    return ["-O3", f"-mtriple={tc.triple}", "-mcpu=native", "-align-loops=64", "-relocation-model=pic",
            "-filetype=obj"]


def cc_flags() -> list[str]:
    return ["-shared", "-lm"]


def wrapper_cc_flags() -> list[str]:
    """How the check wrappers' C (runtime.checks.wrapper_source) is compiled: position-independent,
    for any x86-64 (a setjmp and a call: nothing to tune for the CPU)."""
    return ["-std=gnu11", "-O2", "-fPIC"]


def compile_c(source: str, tc: Toolchain | None = None, timeout: float = 600) -> bytes:
    """A relocatable object from C source (the check wrappers)."""
    tc = tc or toolchain()
    with tempfile.TemporaryDirectory(prefix="loopopt-build-") as d:
        src, dst = os.path.join(d, "checks.c"), os.path.join(d, "checks.o")
        with open(src, "w", encoding="utf-8") as f:
            f.write(source)
        _run("cc -c", [tc.cc, *wrapper_cc_flags(), "-c", src, "-o", dst], b"", timeout)
        with open(dst, "rb") as f:
            return f.read()


def _link(objects: list[bytes], flags: list[str], tc: Toolchain, timeout: float) -> bytes:
    """`cc FLAGS objects... -o out`'s output (a shared library, or with -r one relocatable object)."""
    with tempfile.TemporaryDirectory(prefix="loopopt-build-") as d:
        srcs = []
        for i, obj in enumerate(objects):
            srcs.append(os.path.join(d, f"k{i}.o"))
            with open(srcs[-1], "wb") as f:
                f.write(obj)
        dst = os.path.join(d, "out")
        _run(f"cc {flags[0]}", [tc.cc, flags[0], *srcs, "-o", dst, *flags[1:]], b"", timeout)
        with open(dst, "rb") as f:
            return f.read()


def to_object(llvm_ir: bytes, tc: Toolchain | None = None, timeout: float = 1800) -> bytes:
    """A relocatable, position-independent object for this machine from LLVM IR."""
    tc = tc or toolchain()
    bitcode = _run("opt", [tc.opt, *opt_flags(tc), "-", "-o", "-"], llvm_ir, timeout)
    return _run("llc", [tc.llc, *llc_flags(tc), "-", "-o", "-"], bitcode, timeout)


def to_shared(obj: bytes, tc: Toolchain | None = None, timeout: float = 600, extra: tuple[bytes, ...] = ()) -> bytes:
    """A shared library from an object and `extra` objects (linked by `cc` against libm)."""
    return _link([obj, *extra], cc_flags(), tc or toolchain(), timeout)


def runtime_source(checks_c: str | None, generic_alloc: bool = True) -> str | None:
    """The C compiled into the library beside the kernel: the temporaries' cache (runtime.alloc,
    first: the check wrappers test its macro) and the check wrappers (runtime.checks); None when
    there is neither."""
    from . import alloc

    if not generic_alloc:
        return checks_c
    return LIBRARY_C_PREAMBLE + alloc.source() + "\n" + (checks_c or "")


LIBRARY_C_PREAMBLE = """\
/* The library's C of a kernel built by loopopt (docs/runtime.md): the functions the kernel's code
   calls, which nothing else defines (its temporaries' allocator; its run-time checks' wrappers).
   `loopopt --emit prepared|llvm` writes it beside the code; build it with
     cc -std=gnu11 -O2 -fPIC -c THIS.c -o THIS.o
   and link THIS.o with the kernel's object (cc -shared k.o THIS.o -o libk.so -lm). */
"""


def localize_hidden(obj: bytes, tc: Toolchain, timeout: float = 600) -> bytes:
    """`obj` with its hidden symbols made local (llvm-objcopy --localize-hidden): the runtime's
    allocation functions, the failure function and the wrappers' helpers then bind inside this
    object only, so objects of two kernels link into one program."""
    with tempfile.TemporaryDirectory(prefix="loopopt-build-") as d:
        path = os.path.join(d, "k.o")
        with open(path, "wb") as f:
            f.write(obj)
        _run("llvm-objcopy", [tc.objcopy, "--localize-hidden", path], b"", timeout)
        with open(path, "rb") as f:
            return f.read()


# ----------------------------------------------------------------------------- large constants

def split_resources(text: str) -> tuple[str, str]:
    """(the module, its `{-# ... #-}` trailer or "") of text printed by the bindings.

    The printer starts the trailer (`dialect_resources` blobs, `external_resources`) on a line
    of its own that is exactly `{-#`; no such line can occur inside the module, where strings
    print newlines escaped. The module's closing brace is the last `}` before it."""
    at = text.find("\n{-#\n")
    if at < 0:
        return text, ""
    return text[:at + 1], text[at + 1:]



EXTERNAL_CONSTANT_BYTES = 64 << 10  # a constant global this large is linked from a data object
_GLOBAL_RE = re.compile(r'^(\s*)memref\.global (?:"private" )?constant @([A-Za-z_][\w.$]*) : (memref<[^>]*>) = '
                        r'dense_resource<([\w.$-]+)>(.*)$', re.M)
_ALIGN_RE = re.compile(r"alignment = (\d+)")


@dataclass(frozen=True)
class DataConstant:
    """A constant global's bytes, linked from a data object instead of the kernel's LLVM IR."""

    name: str
    data: bytes
    alignment: int


def externalize_constants(marked_text: str, min_bytes: int = EXTERNAL_CONSTANT_BYTES) -> tuple[str, tuple[DataConstant, ...]]:
    """(`marked_text` with every constant global of `min_bytes` or more made an external
    declaration of the same name and type, those globals' bytes). LLVM IR prints a constant as
    one number per element: a model's 25 MB of weights became 165 MB of .ll text that
    mlir-translate took 37 s to write and opt 16 s to read (an LSTM cell under torch.compile);
    as a data object (`data_object`: `.incbin` of the raw bytes) they cost nothing. The bytes are
    the resource blob's (its first four bytes, the blob's alignment, dropped); the values the
    kernel reads are the same bytes, so results are bit-identical."""
    module, trailer = split_resources(marked_text)
    if not trailer:
        return marked_text, ()
    blobs = dict(re.findall(r'^\s*([\w.$-]+): "0x([0-9A-Fa-f]*)"', trailer, re.M))
    out: list[DataConstant] = []
    dropped: set[str] = set()

    def swap(m: re.Match) -> str:
        indent, name, mtype, key, rest = m.groups()
        hexdata = blobs.get(key)
        if hexdata is None or len(hexdata) < 8 or (len(hexdata) - 8) // 2 < min_bytes:
            return m.group(0)
        blob_align = int.from_bytes(bytes.fromhex(hexdata[:8]), "little")
        a = _ALIGN_RE.search(rest)
        align = max(16, blob_align, int(a.group(1)) if a else 0)
        out.append(DataConstant(name, bytes.fromhex(hexdata[8:]), align))
        dropped.add(key)
        return f"{indent}memref.global constant @{name} : {mtype}{rest}"

    module = _GLOBAL_RE.sub(swap, module)
    if not out:
        return marked_text, ()
    still = set(re.findall(r"dense_resource<([\w.$-]+)>", module))
    lines = [ln for ln in trailer.splitlines()
             if not ((m := re.match(r'^\s*([\w.$-]+): "0x', ln)) and m.group(1) in dropped and m.group(1) not in still)]
    for k in range(len(lines) - 1):
        if lines[k].rstrip().endswith(",") and lines[k + 1].strip().startswith("}"):
            lines[k] = lines[k].rstrip()[:-1]
    return module + "\n".join(lines) + "\n", tuple(out)


def data_object(constants: tuple[DataConstant, ...], tc: Toolchain, timeout: float = 600) -> bytes:
    """A relocatable object defining each constant as a hidden, read-only symbol of its bytes."""
    with tempfile.TemporaryDirectory(prefix="loopopt-build-") as d:
        asm = ['\t.section .rodata.loopopt_constants,"a",@progbits']
        for k, c in enumerate(constants):
            path = os.path.join(d, f"c{k}.bin")
            with open(path, "wb") as f:
                f.write(c.data)
            asm += [f"\t.globl {c.name}", f"\t.hidden {c.name}", f"\t.type {c.name},@object",
                    f"\t.p2align {max(c.alignment, 1).bit_length() - 1}", f"{c.name}:", f'\t.incbin "{path}"',
                    f"\t.size {c.name}, {len(c.data)}"]
        src, dst = os.path.join(d, "constants.s"), os.path.join(d, "constants.o")
        with open(src, "w", encoding="utf-8") as f:
            f.write("\n".join(asm) + "\n")
        _run("cc -c (constants)", [tc.cc, "-c", src, "-o", dst], b"", timeout)
        with open(dst, "rb") as f:
            return f.read()


def build(marked_text: str, emit: str, tc: Toolchain | None = None, checks_c: str | None = None,
          generic_alloc: bool = True) -> bytes:
    """The bytes of `emit` (llvm: LLVM IR text, object, shared) for a marked module: the one build
    of loopopt.compile and `loopopt --emit`. checks_c: the C source of its check wrappers
    (runtime.checks; the module's cf.asserts must then be lowered to its calls). The library's C
    (runtime_source: the temporaries' cache and the wrappers) is compiled and linked in; an
    object is the two linked by `cc -r` with their hidden symbols made local. generic_alloc=False
    (tests only): temporaries through malloc, as the harness's."""
    if emit not in EMIT_KINDS or emit == "prepared":
        raise ValueError(f"loopopt: unknown emit kind {emit!r} (known: llvm, object, shared)")
    tc = tc or toolchain()
    c_source = runtime_source(checks_c, generic_alloc)
    constants: tuple[DataConstant, ...] = ()
    if emit != "llvm":  # LLVM IR text stays whole: a user builds it alone
        with phase("externalize constants"):
            marked_text, constants = externalize_constants(marked_text)
    ll = to_llvm_ir(marked_text, tc, generic_alloc=generic_alloc)
    if emit == "llvm":
        return ll
    obj = to_object(ll, tc)
    extra = (compile_c(c_source, tc),) if c_source is not None else ()
    if constants:
        extra += (data_object(constants, tc),)
    if emit == "object":
        return localize_hidden(_link([obj, *extra], ["-r", "-nostdlib"], tc, 600), tc) if extra else obj
    return to_shared(obj, tc, extra=extra)


def recipe(tc: Toolchain | None = None, emit: str = "shared", name: str = "k") -> str:
    """The build of `emit` as shell commands a user can rerun, one step a line: the same passes,
    flags and C as loopopt.compile's build. They start from NAME.mlir and NAME.c, which
    `loopopt IN --target cpu --emit prepared -o NAME.mlir` writes."""
    tc = tc or toolchain()
    passes = " ".join(RUNTIME_LOWERING_PASSES)
    lines = [
        f"# loopopt's back end (loopopt.runtime.build), the build of loopopt.compile and --emit. First:",
        f"#   loopopt IN --target cpu [options] --emit prepared -o {name}.mlir",
        f"# writes {name}.mlir (the optimized module, its entry points marked llvm.emit_c_interface, its run-time",
        f"# checks lowered to calls of the library's failure function), {name}.c (the library's C: the temporaries'",
        f"# cache and the check wrappers) and {name}.h (the C interface).",
    ]
    if emit == "prepared":
        return "\n".join(lines) + "\n"
    lines += [
        f"{tc.mlir_opt} {name}.mlir {passes} -o {name}.llvm.mlir",
        f"{tc.mlir_translate} --mlir-to-llvmir {name}.llvm.mlir -o {name}.ll",
    ]
    if emit == "llvm":
        return "\n".join(lines) + "\n"
    lines += [
        f"{tc.opt} {' '.join(opt_flags(tc))} {name}.ll -o {name}.bc",
        f"{tc.llc} {' '.join(llc_flags(tc))} {name}.bc -o {name}.o",
        f"{tc.cc} {' '.join(wrapper_cc_flags())} -c {name}.c -o {name}.runtime.o",
    ]
    if emit == "object":
        lines += [f"{tc.cc} -r -nostdlib {name}.o {name}.runtime.o -o {name}.all.o",
                  f"{tc.objcopy} --localize-hidden {name}.all.o"]
    else:
        lines.append(f"{tc.cc} {' '.join(cc_flags()[:1])} {name}.o {name}.runtime.o -o lib{name}.so "
                     f"{' '.join(cc_flags()[1:])}")
    return "\n".join(lines) + "\n"
