"""Every mutation of scripts/mutation_check.py names a site found exactly once in its file: a
mutation whose site moved (a refactor renamed the guarded line) would otherwise be reported as
missed only when the slow mutation run happens, and the guard would go untested meanwhile."""
from __future__ import annotations

import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _mutations():
    spec = importlib.util.spec_from_file_location("mutation_check", os.path.join(ROOT, "scripts", "mutation_check.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.MUTATIONS


def test_every_mutation_site_is_found_exactly_once():
    missing = []
    for name, path, substitutions in _mutations():
        with open(os.path.join(ROOT, path)) as f:
            text = f.read()
        for old, new in substitutions:
            if text.count(old) != 1 or old == new:
                missing.append(f"{name}: {old[:70]!r} found {text.count(old)} times in {path}")
    assert not missing, "\n".join(missing)
