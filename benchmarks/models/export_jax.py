"""Export JAX functions as StableHLO fixtures (the second front end of issue 26), with JAX's outputs.

Runs only where JAX is installed (CPU build); the default test suite never needs it:

    /work/venv-torch/bin/pip install jax==0.10.2 jaxlib==0.10.2 numpy     # any venv; CPU wheels
    /work/venv-torch/bin/python benchmarks/models/export_jax.py

Writes NAME.mlir (`jax.jit(f).lower(*args).as_text()`: StableHLO text) and NAME.expected.json
(same layout as export_torch.py's) into benchmarks/models/blocks/. Inputs get the native
harness's fill (common.harness_fill); weights are numpy draws from SEED, baked in as constants.
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (BLOCKS_DIR, CHECKSUM_TEXT, FILL_TEXT, SEED, check_versions, harness_fill,  # noqa: E402
                    record, write_fixture)

PINNED = {"jax": "0.10.2", "jaxlib": "0.10.2"}


def functions():
    """name -> (what, function, input shapes). Built here so the file imports without JAX."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(SEED)
    w1 = jnp.asarray(rng.uniform(-0.25, 0.25, (16, 32)).astype(np.float32))
    b1 = jnp.asarray(rng.uniform(-0.25, 0.25, (32,)).astype(np.float32))
    w2 = jnp.asarray(rng.uniform(-0.18, 0.18, (32, 16)).astype(np.float32))
    b2 = jnp.asarray(rng.uniform(-0.18, 0.18, (16,)).astype(np.float32))

    def jax_mlp_small(x):
        return jnp.dot(jax.nn.relu(jnp.dot(x, w1) + b1), w2) + b2

    def jax_softmax_small(x):
        return jax.nn.softmax(x, axis=-1)

    def jax_layernorm_small(x):
        mean = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean((x - mean) ** 2, axis=-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(var + 1e-5)

    return {
        "jax_mlp_small": ("x @ W1 + b1, ReLU, @ W2 + b2: 8x16 -> 32 -> 16", jax_mlp_small, [(8, 16)]),
        "jax_softmax_small": ("jax.nn.softmax over the last dim of 8x32", jax_softmax_small, [(8, 32)]),
        "jax_layernorm_small": ("layer norm (no affine part) of 8x32", jax_layernorm_small, [(8, 32)]),
    }


def export(name: str, what: str, fn, shapes) -> tuple[str, dict]:
    import jax
    from importlib import metadata

    import numpy as np

    inputs = [harness_fill(s, k) for k, s in enumerate(shapes)]
    text = jax.jit(fn).lower(*inputs).as_text()
    text = text.replace("func.func public @main(", f"func.func public @{name}(", 1)
    got = fn(*inputs)
    got = got if isinstance(got, tuple) else (got,)
    producer = f"jax {metadata.version('jax')}, jaxlib {metadata.version('jaxlib')}"
    header = f"// {name}: {what}. Exported by benchmarks/models/export_jax.py ({producer}, seed {SEED}).\n"
    expected = {
        "block": name, "what": what, "function": name, "format": "stablehlo", "producer": producer,
        "seed": SEED, "fill": FILL_TEXT, "checksums": CHECKSUM_TEXT,
        "runs": [{"inputs": [record(x, values=False) for x in inputs],
                  "outputs": [record(np.asarray(y)) for y in got]}],
    }
    return header + text, expected


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=BLOCKS_DIR)
    p.add_argument("--any-version", action="store_true")
    a = p.parse_args(argv)
    bad = check_versions(PINNED)
    if bad and not a.any_version:
        print(f"export_jax: error: {', '.join(bad)} (or pass --any-version)", file=sys.stderr)
        return 2
    for name, (what, fn, shapes) in functions().items():
        text, expected = export(name, what, fn, shapes)
        write_fixture(a.out, name, text, expected)
        print(f"{name:22s} {len(text) / 1e3:7.1f} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
