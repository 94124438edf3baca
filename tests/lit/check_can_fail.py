"""Show that golden lit files can fail: `python3 tests/lit/check_can_fail.py [FILE ...]`.

For each file (default: every tests/lit/**/*.mlir) three mutants are written to a scratch copy
of the suite and run with lit; every mutant must FAIL and the original must PASS:
  first  - the first positive check line gets a pattern no output contains;
  last   - the last positive check line gets such a pattern (filecheck reached the end);
  noop   - each `loopopt %s` RUN line gets `--passes=none` (parse, verify, print: no transform runs),
           so the checks must depend on what the transforms did. Files whose output does not
           depend on the transforms (parameters, analysis, errors) say `// MUTANT-N: skip`.
Not part of the default test run (it takes a few minutes); exit status 1 if a mutant survives.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

LIT = Path(__file__).resolve().parent
CHECK_LINE = re.compile(r"^// [A-Z0-9]+(-NEXT|-SAME|-LABEL|-DAG|-EMPTY)?: ")
SKIP_NOOP = "MUTANT-N: skip"
LIT_MAIN = "import sys; from lit.main import main; sys.exit(main())"


def positive_checks(lines: list[str]) -> list[int]:
    """Indices of check lines a wrong pattern makes fail (not RUN/REQUIRES/NOT/EMPTY lines)."""
    return [k for k, line in enumerate(lines) if CHECK_LINE.match(line)
            and not line.startswith(("// RUN:", "// REQUIRES:", "// MUTANT")) and "-EMPTY:" not in line]


def mutants(name: str, text: str) -> dict[str, str]:
    lines = text.splitlines(keepends=True)
    checks = positive_checks(lines)
    out = {}
    for tag, k in (("first", checks[0]), ("last", checks[-1])):
        changed = list(lines)
        changed[k] = lines[k].rstrip("\n") + " NO_OUTPUT_HAS_THIS\n"
        out[tag] = "".join(changed)
    if SKIP_NOOP not in text:
        noop = re.sub(r"(// RUN: .*?\bloopopt %s[^|>]*?)(\s*(?:2>&1|\||-o|>|$))", r"\1 --passes=none\2", text,
                      flags=re.M)
        if noop == text:
            raise SystemExit(f"{name}: no `loopopt %s` RUN line to mutate (mark it `// {SKIP_NOOP}`)")
        out["noop"] = noop
    return out


def failing(paths: list[Path]) -> set[str]:
    """Names (relative to their suite root) of the lit tests among `paths` that did not pass."""
    proc = subprocess.run([sys.executable, "-c", LIT_MAIN, "-q", "-j2", *map(str, paths)],
                          capture_output=True, text=True)
    return set(re.findall(r"^  loopopt :: (\S+)", proc.stdout, re.M))


def main(names: list[str]) -> int:
    names = names or sorted(p.relative_to(LIT).as_posix() for p in LIT.rglob("*.mlir") if "Output" not in p.parts)
    scratch = Path(tempfile.mkdtemp(prefix="loopopt-can-fail-"))
    try:
        shutil.copy(LIT / "lit.cfg.py", scratch)
        written = {}
        for name in names:
            for tag, text in mutants(name, (LIT / name).read_text()).items():
                mutant = name.replace("/", "__")[:-len(".mlir")] + f".{tag}.mlir"
                (scratch / mutant).write_text(text)
                written[mutant] = name
        survived = sorted(set(written) - failing([scratch / m for m in written]))
        broken = sorted(failing([LIT / n for n in names]))
    finally:
        shutil.rmtree(scratch)
    for m in survived:
        print(f"mutant passed (its checks cannot fail this way): {m}")
    for n in broken:
        print(f"original fails: {n}")
    print(f"{len(names)} files, {len(written)} mutants, {len(survived)} survived, {len(broken)} originals failing")
    return 1 if survived or broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
