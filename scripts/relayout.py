"""Apply a rename map of loopopt's modules to the tree: move the files (git mv), rewrite every
import (absolute and relative, at module and function level) and every dotted or path reference
in code, tests, scripts, benchmarks and docs. Used once per layout change; the map is the record.

    python3 scripts/relayout.py            # apply RENAMES to the working tree
    python3 scripts/relayout.py --check    # print what would change, change nothing
    python3 scripts/relayout.py --rewrite FILE...  # after the move: rewrite the given files only
                                                   # (a branch written against the old layout)
"""
from __future__ import annotations

import ast
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# old module -> new module (issue 34: the seed's pass, the cpu back end, and below both the
# general facts and the mechanical loop rewrites)
RENAMES = {
    # the seed's pass (LoopOptimization)
    "loopopt.transforms.fusion": "loopopt.loop_optimization.fusion",
    "loopopt.transforms.pair_restructuring": "loopopt.loop_optimization.pair_restructuring",
    "loopopt.transforms.iter_args_fusion": "loopopt.loop_optimization.iter_args_fusion",
    "loopopt.transforms.contraction": "loopopt.loop_optimization.contraction",
    "loopopt.transforms.licm": "loopopt.loop_optimization.licm",
    "loopopt.analysis.fusion_legality": "loopopt.loop_optimization.fusion_legality",
    "loopopt.analysis.profit": "loopopt.loop_optimization.profit",
    # the cpu back end: steps named after their --passes names
    "loopopt.transforms.untile": "loopopt.codegen.cpu.untile",
    "loopopt.transforms.scalar_replacement": "loopopt.codegen.cpu.scalar_replacement",
    "loopopt.transforms.dead_stores": "loopopt.codegen.cpu.dead_stores",
    "loopopt.transforms.product_isolation": "loopopt.codegen.cpu.isolate_products",
    "loopopt.transforms.constant_copies": "loopopt.codegen.cpu.fold_constant_copies",
    "loopopt.transforms.operand_packing": "loopopt.codegen.cpu.pack_operands",
    "loopopt.transforms.locality_interchange": "loopopt.codegen.cpu.loop_order",
    "loopopt.transforms.transpose_blocking": "loopopt.codegen.cpu.block_transposes",
    "loopopt.transforms.register_tiling": "loopopt.codegen.cpu.register_tile",
    "loopopt.transforms.constant_panels": "loopopt.codegen.cpu.pack_constant_panels",
    "loopopt.transforms.vectorize": "loopopt.codegen.cpu.vectorize",
    # the cpu back end: its plans
    "loopopt.analysis.cpu_plan": "loopopt.codegen.cpu.plan.cpu_plan",
    "loopopt.analysis.locality": "loopopt.codegen.cpu.plan.locality",
    "loopopt.analysis.packing": "loopopt.codegen.cpu.plan.packing",
    "loopopt.analysis.constant_copies": "loopopt.codegen.cpu.plan.constant_copies",
    "loopopt.analysis.constant_panels": "loopopt.codegen.cpu.plan.constant_panels",
    "loopopt.analysis.sibling_reuse": "loopopt.codegen.cpu.plan.sibling_reuse",
    "loopopt.analysis.pair_locality": "loopopt.codegen.cpu.plan.pair_locality",
    # the cpu back end: math emitters and the host's libm
    "loopopt.transforms.math_approx": "loopopt.codegen.cpu.math.math_approx",
    "loopopt.transforms.exact_math": "loopopt.codegen.cpu.math.exact_math",
    "loopopt.analysis.libm": "loopopt.codegen.cpu.math.libm",
}

NEW_PACKAGES = {
    "loopopt.loop_optimization": "The seed's LoopOptimization pass: greedy profit-based fusion with its legality battery\n"
                                 "and rescues (distribution, GCD tiling, interchange), contraction and LICM.\n\n"
                                 "It asks loopopt.analysis for facts and loopopt.transforms for the loop rewrites; what a\n"
                                 "target changes in it comes through a target-hooks object, never a test of the target.",
    "loopopt.codegen": "Code generators: what runs after the seed's pass, per target.",
    "loopopt.codegen.cpu": "The cpu code generator (--target cpu): the plans (plan/), one module per step named after\n"
                           "its --passes name, the math emitters (math/), and the host's facts.",
    "loopopt.codegen.cpu.plan": "Plans of the cpu code generator: facts and decisions as data, computed before any IR changes.",
    "loopopt.codegen.cpu.math": "Math emitters of the cpu code generator (polynomials, libm's exact exp) and the host's libm.",
}

TEXT_SUFFIXES = (".py", ".md", ".mlir", ".sh", ".toml", ".cfg", ".txt", ".json")
SKIP_DIRS = {".git", "__pycache__", "node_modules", ".pytest_cache"}


def path_of(mod: str, package: bool = False) -> str:
    return mod.replace(".", "/") + ("/__init__.py" if package else ".py")


def module_files() -> dict[str, str]:
    out = {}
    for dp, dn, fn in os.walk(os.path.join(ROOT, "loopopt")):
        dn[:] = [d for d in dn if d not in SKIP_DIRS]
        for f in fn:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(dp, f), ROOT)
                mod = rel[:-3].replace("/", ".")
                out[mod[:-9] if mod.endswith(".__init__") else mod] = rel
    return out


def is_package(mod: str, files: dict) -> bool:
    return files.get(mod, "").endswith("__init__.py")


def new_name(mod: str) -> str:
    return RENAMES.get(mod, mod)


def absolute(cur_mod: str, cur_is_pkg: bool, level: int, module: str | None) -> str:
    parts = cur_mod.split(".")
    if not cur_is_pkg:
        parts = parts[:-1]
    if level:
        parts = parts[:len(parts) - (level - 1)]
        return ".".join(parts + ([module] if module else []))
    return module or ""


def relative(from_mod: str, from_is_pkg: bool, target: str) -> tuple[int, str]:
    """(level, module) of a relative import of `target` written in `from_mod`."""
    here = from_mod.split(".") if from_is_pkg else from_mod.split(".")[:-1]
    t = target.split(".")
    common = 0
    while common < min(len(here), len(t)) and here[common] == t[common]:
        common += 1
    level = len(here) - common + 1
    return level, ".".join(t[common:])


def rewrite_imports(src: str, cur_old: str, cur_new: str, cur_is_pkg: bool, all_mods: set) -> tuple[str, dict]:
    """The file's text with every loopopt import mapped through RENAMES, written relative if it
    was relative, and the bare names bound to renamed modules (old -> new) for identifier uses."""
    tree = ast.parse(src)
    lines = src.splitlines(keepends=True)
    edits = []  # (first line, last line, new text)
    renamed_names: dict[str, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in RENAMES:
                        raise SystemExit(f"{cur_old}: `import {a.name}` not handled; rewrite it by hand")
            continue
        base = absolute(cur_old, cur_is_pkg, node.level, node.module)
        if not base.startswith("loopopt"):
            continue
        # each imported name: either a module (base.name) or an attribute of base
        groups: dict[str, list] = {}
        for a in node.names:
            sub = f"{base}.{a.name}"
            if sub in all_mods:
                target = new_name(sub)
                pkg, _, leaf = target.rpartition(".")
                bound = a.asname or a.name
                if a.asname is None and leaf != a.name:
                    renamed_names[a.name] = leaf
                groups.setdefault(pkg, []).append((leaf, a.asname))
            else:
                groups.setdefault(new_name(base), []).append((a.name, a.asname))
        attributes_only = all(f"{base}.{a.name}" not in all_mods for a in node.names)
        first, last = node.lineno - 1, node.end_lineno - 1
        indent = re.match(r"\s*", lines[first]).group(0)
        tail = lines[last].rstrip("\n")
        code_end = tail.find("#")
        comment = "  " + tail[code_end:] if code_end >= 0 else ""
        out = []
        for pkg, names in groups.items():
            if node.level:
                level, rel = relative(cur_new, cur_is_pkg, pkg)
                mod_text = "." * level + rel
            else:
                mod_text = pkg
            if attributes_only and len(groups) == 1:
                # attributes of one module: keep the statement's layout, change the module only
                text = "".join(lines[first:last + 1])
                out.append(re.sub(r"^(\s*from\s+)[.\w]+(\s+import)",
                                  lambda mm: mm.group(1) + mod_text + mm.group(2), text, count=1))
                comment = ""
                break
            items = ", ".join(f"{n} as {al}" if al else n for n, al in names)
            out.append(f"{indent}from {mod_text} import {items}{comment}\n")
        if "".join(out) == "".join(lines[first:last + 1]):
            continue
        edits.append((first, last, "".join(out)))
    for first, last, text in sorted(edits, reverse=True):
        lines[first:last + 1] = [text]
    return "".join(lines), renamed_names


def rename_identifier_uses(src: str, renamed: dict[str, str]) -> str:
    """`register_tiling` -> `register_tile` (its attributes and the bare name) where the file
    bound the renamed module to its old bare name; `register_tiling.py` (a path) is left to the
    text replacements."""
    for old, new in renamed.items():
        src = re.sub(rf"(?<![\w./]){re.escape(old)}(?!\w|\.py\b)", new, src)
    return src


def text_replacements() -> list[tuple[re.Pattern, str]]:
    reps = []
    for old, new in sorted(RENAMES.items(), key=lambda kv: -len(kv[0])):
        reps.append((re.compile(rf"(?<![\w.]){re.escape(old)}(?![\w])"), new))
        op, np_ = path_of(old), path_of(new)
        reps.append((re.compile(rf"(?<![\w/]){re.escape(op)}"), np_))
        short_old, short_new = op[len("loopopt/"):], np_[len("loopopt/"):]
        reps.append((re.compile(rf"(?<![\w/.]){re.escape(short_old)}"), short_new))
    return reps


def rewrite_file(path: str, all_mods: set, reps) -> bool:
    """Rewrite one file's imports and references; True if it changed."""
    rel = os.path.relpath(path, ROOT)
    src = open(path, encoding="utf-8").read()
    new = src
    if path.endswith(".py"):
        cur = rel[:-3].replace("/", ".")
        is_pkg = cur.endswith(".__init__")
        cur = cur[:-9] if is_pkg else cur
        old_name = {v: k for k, v in RENAMES.items()}.get(cur, cur)  # a moved file: where it was
        try:
            new, renamed = rewrite_imports(new, old_name, cur, is_pkg, all_mods)
        except SyntaxError:
            renamed = {}
        new = rename_identifier_uses(new, renamed)
    for pat, rep in reps:
        new = pat.sub(rep, new)
    if new != src:
        with open(path, "w", encoding="utf-8") as out:
            out.write(new)
    return new != src


def main() -> int:
    check = "--check" in sys.argv
    os.chdir(ROOT)
    files = module_files()
    if "--rewrite" in sys.argv:
        all_mods = set(files) | set(RENAMES)
        reps = text_replacements()
        for path in sys.argv[sys.argv.index("--rewrite") + 1:]:
            print(f"{path}: {'rewritten' if rewrite_file(os.path.abspath(path), all_mods, reps) else 'unchanged'}")
        return 0
    all_mods = set(files)
    missing = [m for m in RENAMES if m not in files]
    if missing:
        raise SystemExit(f"not found: {missing}")
    reps = text_replacements()
    changed = []
    for dp, dn, fn in os.walk(ROOT):
        dn[:] = [d for d in dn if d not in SKIP_DIRS]
        for f in fn:
            if not f.endswith(TEXT_SUFFIXES):
                continue
            path = os.path.join(dp, f)
            rel = os.path.relpath(path, ROOT)
            if rel == "scripts/relayout.py":
                continue
            try:
                src = open(path, encoding="utf-8").read()
            except UnicodeDecodeError:
                continue
            new = src
            if f.endswith(".py"):
                cur_old = rel[:-3].replace("/", ".")
                is_pkg = cur_old.endswith(".__init__")
                cur_old = cur_old[:-9] if is_pkg else cur_old
                cur_new = new_name(cur_old) if cur_old.startswith("loopopt") else cur_old
                try:
                    new, renamed = rewrite_imports(new, cur_old, cur_new, is_pkg, all_mods)
                except SyntaxError:
                    renamed = {}
                new = rename_identifier_uses(new, renamed)
            for pat, rep in reps:
                new = pat.sub(rep, new)
            if new != src:
                changed.append(rel)
                if not check:
                    with open(path, "w", encoding="utf-8") as out:
                        out.write(new)
    for mod, doc in NEW_PACKAGES.items():
        init = path_of(mod, package=True)
        if not check and not os.path.exists(init):
            os.makedirs(os.path.dirname(init), exist_ok=True)
            with open(init, "w", encoding="utf-8") as out:
                out.write(f'"""{doc}\n"""\n')
            subprocess.run(["git", "add", init], check=True)
    for old, new in RENAMES.items():
        src, dst = files[old], path_of(new)
        print(f"{src} -> {dst}")
        if not check:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            subprocess.run(["git", "mv", src, dst], check=True)
    print(f"{len(changed)} files rewritten", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
