"""Export a small ONNX model as a fixture: the model (NAME.onnx), its import by `iree-import-onnx`
(NAME.mlir, the torch dialect with `torch.operator "onnx.*"`), and the outputs of onnx's own
reference evaluator (NAME.expected.json, same layout as export_torch.py's).

Runs where onnx and iree-base-compiler 3.11.0 are installed (iree-import-onnx ships in that wheel):

    /work/venv-torch/bin/pip install onnx==1.23.2 iree-base-compiler==3.11.0 numpy
    /work/venv-torch/bin/python benchmarks/models/export_onnx.py

The model is built with onnx.helper (no torch needed): Gemm (transB), Relu, Gemm, Softmax.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (BLOCKS_DIR, CHECKSUM_TEXT, FILL_TEXT, SEED, check_versions, harness_fill,  # noqa: E402
                    record, write_fixture)

PINNED = {"onnx": "1.23.2", "iree-base-compiler": "3.11.0"}
NAME = "onnx_mlp_small"
WHAT = "ONNX Gemm 8x16 -> 32 (transB), Relu, Gemm -> 16, Softmax"


def build_model():
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(SEED)
    init = [numpy_helper.from_array(rng.uniform(-0.25, 0.25, shape).astype(np.float32), name)
            for name, shape in (("W1", (32, 16)), ("B1", (32,)), ("W2", (16, 32)), ("B2", (16,)))]
    nodes = [helper.make_node("Gemm", ["x", "W1", "B1"], ["h"], transB=1),
             helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Gemm", ["r", "W2", "B2"], ["z"], transB=1),
             helper.make_node("Softmax", ["z"], ["y"], axis=-1)]
    graph = helper.make_graph(nodes, NAME, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 16])], initializer=init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="export_onnx.py")
    onnx.checker.check_model(model)
    return model


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=BLOCKS_DIR)
    p.add_argument("--any-version", action="store_true")
    a = p.parse_args(argv)
    bad = check_versions(PINNED)
    if bad and not a.any_version:
        print(f"export_onnx: error: {', '.join(bad)} (or pass --any-version)", file=sys.stderr)
        return 2
    import onnx
    from onnx.reference import ReferenceEvaluator

    model = build_model()
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, f"{NAME}.onnx")
    onnx.save(model, path)
    mlir = subprocess.run([sys.executable, "-m", "iree.compiler.tools.import_onnx", path, "-o", "-"],
                          capture_output=True, text=True, check=True).stdout
    x = harness_fill((8, 16), 0)
    (y,) = ReferenceEvaluator(model).run(None, {"x": x})
    producer = f"onnx {onnx.__version__}, iree-import-onnx (iree-base-compiler 3.11.0)"
    header = f"// {NAME}: {WHAT}. Exported by benchmarks/models/export_onnx.py ({producer}, seed {SEED}).\n"
    expected = {"block": NAME, "what": WHAT, "function": NAME, "format": "onnx (torch dialect)",
                "producer": producer, "seed": SEED, "fill": FILL_TEXT, "checksums": CHECKSUM_TEXT,
                "runs": [{"inputs": [record(x, values=False)], "outputs": [record(y)]}]}
    write_fixture(a.out, NAME, header + mlir, expected)
    print(f"{NAME}: {os.path.getsize(path)} bytes of ONNX, {len(mlir) / 1e3:.1f} KB of MLIR")
    return 0


if __name__ == "__main__":
    sys.exit(main())
