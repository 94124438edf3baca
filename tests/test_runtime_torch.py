"""torch.compile(model, backend=loopopt.torch_backend): eager's results on every PyTorch block of
the benchmark, through loopopt kernels (no fallback), one kernel for every batch of a dynamic graph,
and an eager fallback with one warning naming the op or cause where a graph cannot be taken.

Needs torch and torch-mlir (the `torch` extra), skipped without them; here:
    PYTHONPATH=$PWD /work/venv-torch/bin/python -m pytest -q -p no:cacheprovider tests/test_runtime_torch.py
The small blocks run by default, the full-size ones under `-m long`.
"""
from __future__ import annotations

import os
import sys
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_mlir.fx")

import loopopt  # noqa: E402
from loopopt.frontend import fixtures  # noqa: E402
from loopopt.runtime import build, cache as cachemod  # noqa: E402
from loopopt.runtime.kernel import Kernel  # noqa: E402
from loopopt.runtime.torch_backend import GraphKernel, LoopoptFallbackWarning  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "benchmarks", "models"))
import export_torch  # noqa: E402
from common import SEED  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# the sweep's graphs of output views sized by the inputs, run here on their own too
from torch_sweep import _flat_per_row, _half_of_dim1, _overlapping_halves, _view_of_result_and_result  # noqa: E402

MISSING = build.missing_tools()
pytestmark = [pytest.mark.toolchain, pytest.mark.skipif(MISSING is not None, reason=MISSING or "")]


@pytest.fixture(scope="module", autouse=True)
def cache_dir(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(cachemod.CACHE_ENV, str(tmp_path_factory.mktemp("loopopt-cache")))
        yield


class Recorder:
    """loopopt.torch_backend, keeping what it returned for each graph."""

    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs, **options):
        got = loopopt.torch_backend(gm, example_inputs, **options)
        self.graphs.append(got)
        return got


def _kernels_only(rec) -> bool:
    """Every kernel the recorded graphs built is a Kernel (no graph or signature fell back)."""
    return all(isinstance(k, Kernel) for g in rec.graphs if isinstance(g, GraphKernel) for k in g.kernels.values())


def relative_error(got, want) -> float:
    got, want = got.detach().double(), want.detach().double()
    if not want.dtype.is_floating_point:
        return 0.0 if torch.equal(got, want) else float("inf")
    scale = float(want.abs().max()) or 1.0
    return float((got - want).abs().max()) / scale


BLOCKS = {b.name: b for b in export_torch.blocks()}
SMALL = [n for n in BLOCKS if n.endswith("_small")]
# As in tests/test_runtime.py: every block is expected to lower (gpt2_layer's math.fpowi is
# multiplications since the powers step).
DOES_NOT_LOWER: set = set()


def _marks(name: str) -> list:
    marks = [] if name in SMALL else [pytest.mark.long]
    if name.removesuffix("_small") in DOES_NOT_LOWER:
        marks.append(pytest.mark.xfail(raises=LoopoptFallbackWarning, strict=False,
                                       reason="its vectorized math.fpowi does not lower"))
    return marks


CASES = [pytest.param(n, marks=_marks(n)) for n in SMALL + [n for n in BLOCKS if n not in SMALL]]


@pytest.mark.parametrize("name", CASES)
def test_torch_compile_matches_eager_on_the_benchmark_blocks(name):
    block = BLOCKS[name]
    torch.manual_seed(SEED)
    model = block.build().eval()
    rec = Recorder()
    compiled = torch.compile(model, backend=rec)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)  # a fallback fails the test
        for shapes in block.run_shapes():
            xs = [torch.from_numpy(fixtures.harness_fill(s, k, block.dtype(k))) for k, s in enumerate(shapes)]
            got, want = compiled(*xs), model(*xs)
            got = got if isinstance(got, tuple) else (got,)
            want = want if isinstance(want, tuple) else (want,)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                assert g.shape == w.shape and g.dtype == w.dtype
                assert relative_error(g, w) <= fixtures.RTOL, (name, shapes)
    kernels = [k for g in rec.graphs if isinstance(g, GraphKernel) for k in g.kernels.values()]
    assert kernels and all(isinstance(k, Kernel) for k in kernels)


def test_a_dynamic_batch_is_one_kernel_for_every_size():
    torch.manual_seed(SEED)
    model = BLOCKS["mlp_dynamic_small"].build().eval()
    rec = Recorder()
    compiled = torch.compile(model, backend=rec)
    with torch.no_grad():
        for batch in (8, 5, 3, 11, 8):
            x = torch.from_numpy(fixtures.harness_fill([batch, 16], 0, "float32"))
            assert relative_error(compiled(x), model(x)) <= fixtures.RTOL
    dynamic = [g for g in rec.graphs if isinstance(g, GraphKernel) and g.plan is not None]
    assert len(dynamic) == 1 and list(dynamic[0].kernels) == [("dynamic", True, (), (None,))]  # weights frozen
    assert None in dynamic[0].kernels[("dynamic", True, (), (None,))].spec.params[-1].shape  # the batch is a dynamic dim


class Norms(torch.nn.Module):
    """Float attributes (LayerNorm's and GroupNorm's eps, LeakyReLU's slope): under dynamic=True
    TorchDynamo passes each as a 0-d tensor the graph reads by .item()."""

    def __init__(self, groups: int = 0):
        super().__init__()
        self.lin = torch.nn.Linear(16, 32)
        self.ln = torch.nn.LayerNorm(32)
        self.act = torch.nn.LeakyReLU(0.1)
        self.gn = torch.nn.GroupNorm(groups, 32) if groups else None

    def forward(self, x):
        y = self.act(self.ln(self.lin(x)))
        return self.gn(y) if self.gn is not None else y


@pytest.mark.parametrize("groups", [0, 4])
def test_dynamic_true_specialises_float_attributes(groups):
    """dynamic=True: the floats' values are written into the kernels, no fallback, eager's
    results at every batch; one kernel for every batch where the graph exports with a dynamic
    batch (torch-mlir takes GroupNorm's decomposition only with static sizes: a kernel per batch)."""
    torch.manual_seed(SEED)
    model = Norms(groups).eval()
    rec = Recorder()
    compiled = torch.compile(model, backend=rec, dynamic=True)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        for batch in (3, 17, 5):
            x = torch.randn(batch, 16)
            assert relative_error(compiled(x), model(x)) <= fixtures.RTOL, batch
    graphs = [g for g in rec.graphs if isinstance(g, GraphKernel)]
    assert len(graphs) == 1 and len(graphs[0].scalars) == (3 if groups else 2)
    assert all(isinstance(k, Kernel) for k in graphs[0].kernels.values())
    assert len(graphs[0].kernels) == (3 if groups else 1), list(graphs[0].kernels)


def test_a_specialised_scalar_of_another_value_builds_another_kernel():
    """The graph called with a changed 0-d input (an eps of 4.0 where 1e-5 was written in): a
    second kernel with eager's results, never the first kernel."""
    torch.manual_seed(SEED)
    seen = []

    def record(gm, example_inputs):
        seen.append(list(example_inputs))
        return rec(gm, example_inputs)

    rec = Recorder()
    compiled = torch.compile(Norms().eval(), backend=record, dynamic=True)
    with torch.no_grad():
        compiled(torch.randn(4, 16))
        graph, args = rec.graphs[0], seen[0]
        args = [4 if isinstance(a, torch.SymInt) else a for a in args]
        args[[i for i, a in enumerate(args) if isinstance(a, torch.Tensor) and a.dim() == 2 and
              not isinstance(a, torch.nn.Parameter)][0]] = torch.randn(4, 16)
        eps = min(graph.scalars)  # LayerNorm's, before LeakyReLU's slope
        first = graph(*args)[0]
        args[eps] = torch.tensor(4.0, dtype=args[eps].dtype)
        got, want = graph(*args)[0], graph.gm.forward(*args)[0]
    assert relative_error(got, want) <= fixtures.RTOL and relative_error(first, want) > 0.1
    assert len(graph.kernels) == 2


class Sorted(torch.nn.Module):
    """A sort of one row of 4194336: longer than loopopt-sorts-to-loops merges (MAX_MERGE, section 79)."""

    def forward(self, x):
        return torch.sort(x.reshape(-1).repeat(2 ** 17 + 1), dim=-1).values * 2


class InPlace(torch.nn.Module):
    def forward(self, x):
        x.add_(1)
        return x * 2


class InPlaceView(torch.nn.Module):
    """An update through a view of the input: not the in-place op's own operand, found in the
    exported program's signature."""

    def forward(self, x):
        x.view(-1)[:5].mul_(3)
        return x + 1


class MaskedEncoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True).eval()

    def forward(self, x):  # x: 4 x 8
        pad = torch.zeros(1, 4, dtype=torch.bool)
        pad[:, -1] = True
        return self.layer(x.reshape(1, 4, 8).repeat(1, 1, 4), src_key_padding_mask=pad)


class ShapeInPlace(torch.nn.Module):
    def forward(self, x):
        x.unsqueeze_(0)
        return x * 2


@pytest.mark.parametrize("module, reason", [(Sorted(), "cannot lower 'tm_tensor.sort': a row of 4194336 elements")])
def test_a_graph_it_cannot_take_runs_eagerly_with_one_warning(module, reason):
    compiled = torch.compile(module, backend=loopopt.torch_backend)
    x = torch.from_numpy(fixtures.harness_fill([4, 8], 0, "float32"))
    a, b = x.clone(), x.clone()
    with warnings.catch_warnings(record=True) as caught, torch.no_grad():
        warnings.simplefilter("always")
        got = compiled(a)
        again = compiled(x.clone())
    want = module(b)
    assert torch.equal(got, want) and torch.equal(a, b)  # the in-place update happened as in eager
    assert again.shape == want.shape
    ours = [str(w.message) for w in caught if issubclass(w.category, LoopoptFallbackWarning)]
    assert len(ours) == 1 and reason in ours[0] and "runs eagerly" in ours[0]


def test_a_graph_changing_an_inputs_sizes_in_place_runs_eagerly():
    """`x.unsqueeze_(0)` on a graph input (TorchDynamo applies such a change itself, outside the
    graph; an FX graph handed to the backend directly may hold it): no copy of a result into the
    caller's tensor changes its sizes, so the graph runs eagerly, saying why."""
    gm = torch.fx.symbolic_trace(ShapeInPlace())
    x = torch.rand(4, 8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = loopopt.torch_backend(gm, [x.clone()])
    ours = [str(w.message) for w in caught if issubclass(w.category, LoopoptFallbackWarning)]
    assert len(ours) == 1 and "op unsqueeze_ changes a graph input's sizes in place" in ours[0]
    a = x.clone()
    assert torch.equal(run(a), x[None] * 2) and a.shape == (1, 4, 8)


class InPlaceRead(torch.nn.Module):
    """An input read before and after its in-place update, and returned as a view of itself."""

    def forward(self, x, y):
        before = x.sum(1, keepdim=True)
        x.mul_(y)
        return x + before, x[:, :3]


@pytest.mark.parametrize("module, n_inputs", [(InPlace(), 1), (InPlaceView(), 1), (InPlaceRead(), 2)])
@pytest.mark.parametrize("dynamic", [False, True])
def test_in_place_updates_of_inputs_run_as_kernels(module, n_inputs, dynamic):
    """A graph that updates an input in place (the op's own operand, or through a view of it) runs
    as a kernel that returns the input's final value, copied into the caller's tensor: eager's
    results, the input left as eager leaves it, an output eager makes as a view of the input still
    a view of it; no fallback (these ran eagerly before: `op add_ updates a graph input in place`)."""
    rec = Recorder()
    compiled = torch.compile(module, backend=rec, dynamic=dynamic)
    for rows in (4, 6):
        xs = [torch.rand(rows, 8) + 0.5 for _ in range(n_inputs)]
        mine, theirs = [x.clone() for x in xs], [x.clone() for x in xs]
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("error", LoopoptFallbackWarning)
            got = compiled(*mine)
        want = module(*theirs)
        got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
        assert all(relative_error(g, w) <= fixtures.RTOL for g, w in zip(got, want))
        assert all(relative_error(a, b) <= fixtures.RTOL for a, b in zip(mine, theirs))
        if isinstance(module, InPlaceRead):
            assert got[1]._base is mine[0] or got[1].untyped_storage().data_ptr() == mine[0].data_ptr()
    assert _kernels_only(rec) and any(isinstance(g, GraphKernel) and g.updates for g in rec.graphs)


def test_batch_norm_in_training_mode_runs_as_a_kernel_and_updates_its_statistics():
    """BatchNorm2d in training mode: the batch's statistics normalise, and running_mean,
    running_var and num_batches_tracked are updated in place (graph inputs: the module's
    buffers). One kernel, no fallback; over three calls the outputs and the buffers as eager's."""
    torch.manual_seed(SEED)
    ours = torch.nn.Sequential(torch.nn.BatchNorm2d(16), torch.nn.ReLU()).train()
    theirs = torch.nn.Sequential(torch.nn.BatchNorm2d(16), torch.nn.ReLU()).train()
    theirs.load_state_dict(ours.state_dict())
    rec = Recorder()
    compiled = torch.compile(ours, backend=rec)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        for _ in range(3):
            x = torch.rand(4, 16, 7, 7) * 3 + 1
            assert relative_error(compiled(x), theirs(x)) <= fixtures.RTOL
    bn, want = ours[0], theirs[0]
    assert relative_error(bn.running_mean, want.running_mean) <= fixtures.RTOL
    assert relative_error(bn.running_var, want.running_var) <= fixtures.RTOL
    assert int(bn.num_batches_tracked) == int(want.num_batches_tracked) == 3
    assert _kernels_only(rec) and sum(len(g.updates) for g in rec.graphs if isinstance(g, GraphKernel)) == 3


class HalvesItsWeight(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.rand(4, 8))

    def forward(self, x):
        self.w.mul_(0.5)
        return x + self.w


def test_a_graph_updating_a_frozen_weight_runs_eagerly():
    """A parameter is frozen into the kernel as a constant: a graph that updates one in place runs
    eagerly, saying why; the weight updated and the results as eager's on every call."""
    torch.manual_seed(SEED)
    ours, theirs = HalvesItsWeight(), HalvesItsWeight()
    theirs.load_state_dict(ours.state_dict())
    compiled = torch.compile(ours, backend=loopopt.torch_backend)
    with warnings.catch_warnings(record=True) as caught, torch.no_grad():
        warnings.simplefilter("always")
        for _ in range(2):
            x = torch.rand(4, 8)
            assert torch.equal(compiled(x), theirs(x)) and torch.equal(ours.w, theirs.w)
    ours = [str(w.message) for w in caught if issubclass(w.category, LoopoptFallbackWarning)]
    assert len(ours) == 1 and "the graph updates a frozen weight in place" in ours[0], ours


def test_an_updated_input_sharing_memory_with_another_runs_eagerly():
    """The kernel reads each input from its own memory before the update is copied in: where an
    updated input shares memory with another input of the call, the call runs eagerly (eager's
    results, the other input sees the update as in eager), with one warning saying why."""
    def fn(x, y):
        x.add_(1)
        return y * 2

    compiled = torch.compile(fn, backend=loopopt.torch_backend)
    with warnings.catch_warnings(record=True) as caught, torch.no_grad():
        warnings.simplefilter("always")
        a, b = torch.rand(4, 8), torch.rand(4, 8)
        compiled(a, b)  # separate tensors: a kernel
        base = torch.rand(4, 8)
        c = base.clone()
        got = compiled(c, c[:])  # y views x: eager's order of the update and the read
    want = fn(base, base[:])
    assert torch.equal(got, want) and torch.equal(c, base)
    ours = [str(w.message) for w in caught if issubclass(w.category, LoopoptFallbackWarning)]
    assert any("shares memory with another input" in m for m in ours), ours


def test_softplus_keeps_its_small_values():
    """Softplus (beta 1) of very negative inputs is log1p(exp(x)), about e^x: with math.log1p
    lowered as log(1 + x) (MLIR's default) every value below -17 was 0. Elementwise within
    1e-5 relative of eager, as a kernel (section 59)."""
    rec = Recorder()
    compiled = torch.compile(lambda x: torch.nn.functional.softplus(x), backend=rec)
    x = torch.linspace(-40.0, 5.0, 256)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        got = compiled(x)
    want = torch.nn.functional.softplus(x)
    assert float(((got - want).abs() / want.abs()).max()) <= 1e-5
    assert _kernels_only(rec)


@pytest.mark.parametrize("fn", [torch.nn.functional.elu, lambda x: torch.nn.functional.elu(x, alpha=0.5),
                                torch.nn.functional.celu])
def test_elu_keeps_its_small_negative_values(fn):
    """ELU's negative side is alpha * expm1(x) in eager; torch-mlir wrote exp(x) - 1 (-1e-10 gave
    0): within 2e-6 relative of eager elementwise, a kernel."""
    rec = Recorder()
    compiled = torch.compile(fn, backend=rec)
    x = torch.cat((torch.tensor([-1e-10, -1e-7, -3e-5, -0.0, 1e-10]), torch.linspace(-20.0, 5.0, 123)))
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        got = compiled(x)
    want = fn(x)
    nz = want != 0
    assert float(((got - want)[nz].abs() / want[nz].abs()).max()) <= 2e-6
    assert torch.equal(got[~nz], want[~nz]) and _kernels_only(rec)


def test_expm1_keeps_its_small_values():
    """torch.expm1 was lowered as exp(x) - 1 (expm1(1e-10) gave 0, expm1(1e-7) 1.19e-7); written
    as Kahan's (u - 1) * x / log(u) (the cpu step expm1): elementwise within 2e-6 relative of
    eager from -1e-30 to 80, -0 kept, -1 below -17, +-inf and NaN as eager's; a kernel."""
    rec = Recorder()
    compiled = torch.compile(lambda x: torch.expm1(x), backend=rec)
    tiny = torch.tensor([1e-30, -1e-30, 1e-10, -1e-10, 1e-7, -1e-7, 3e-5, -3e-5, -0.0, 0.0,
                         float("inf"), float("-inf"), float("nan"), -200.0, 88.7, 100.0])
    x = torch.cat((tiny, torch.linspace(-20.0, 80.0, 240)))
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        got = compiled(x)
    want = torch.expm1(x)
    finite = torch.isfinite(want) & (want != 0)
    assert float(((got - want)[finite].abs() / want[finite].abs()).max()) <= 2e-6
    assert torch.equal(got[~finite].nan_to_num(7.0), want[~finite].nan_to_num(7.0))
    assert torch.equal(torch.signbit(got), torch.signbit(want))
    assert _kernels_only(rec)


@pytest.mark.parametrize("dynamic", [False, True])
def test_cumsum_runs_as_a_kernel(dynamic):
    """torch.cumsum is torch-mlir's tm_tensor.scan, which loopopt-scans-to-loops lowers (it ran
    eagerly before): no fallback, eager's results (eager sums in double: within rounding); with
    dynamic=True also at a doubled batch (docs/cpu_codegen.md section 43)."""
    def model(x):
        return torch.cumsum(x.abs(), -1) * 0.5 + torch.cumsum(x, 0)

    rec = Recorder()
    compiled = torch.compile(model, backend=rec, dynamic=dynamic)
    xs = [torch.rand(4, 300) - 0.5] + ([torch.rand(8, 300) - 0.5] if dynamic else [])
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        for x in xs:
            assert relative_error(compiled(x), model(x)) <= fixtures.RTOL
    assert any(isinstance(g, GraphKernel) for g in rec.graphs) and _kernels_only(rec)


def test_batch_first_attention_reads_its_projection_weight_once():
    """nn.MultiheadAttention(batch_first=True) transposes its input, and torch writes the input
    projection of the transposed input as W^T broadcast over the sequence and a batched product.
    loopopt-matmul-of-broadcast-operand makes it one matrix product: the kernel's library holds the
    weight, not 64 copies of it (before: a 64 x 64 x 192 constant, 3 MB; docs/cpu_codegen.md
    section 49). A key padding mask, as a padded batch passes it; eager's results, no fallback."""
    torch.manual_seed(SEED)
    mha = torch.nn.MultiheadAttention(64, 4, batch_first=True).eval()

    def model(x, pad):
        return mha(x, x, x, key_padding_mask=pad, need_weights=False)[0]

    rec = Recorder()
    compiled = torch.compile(model, backend=rec)
    x = torch.rand(8, 64, 64) - 0.5
    pad = torch.arange(64)[None] >= torch.tensor([64, 40, 33, 64, 50, 61, 32, 45])[:, None]
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        got, want = compiled(x, pad), model(x, pad)
    assert _kernels_only(rec) and relative_error(got, want) <= fixtures.RTOL
    libraries = [k.library for g in rec.graphs if isinstance(g, GraphKernel) for k in g.kernels.values()]
    assert libraries and all(os.path.getsize(lib) < (1 << 20) for lib in libraries), \
        [os.path.getsize(lib) for lib in libraries]


def test_batch_first_attention_with_dynamic_shapes():
    """The same attention under dynamic=True: the projections' batched products have a dynamic
    batch (the sequence), read W in place (no reshape); eager's results at two batch and sequence
    sizes through one compiled module, no fallback."""
    torch.manual_seed(SEED)
    mha = torch.nn.MultiheadAttention(32, 4, batch_first=True).eval()

    def model(x, pad):
        return mha(x, x, x, key_padding_mask=pad, need_weights=False)[0]

    rec = Recorder()
    compiled = torch.compile(model, backend=rec, dynamic=True)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        for b, s in ((3, 20), (5, 12)):
            x = torch.rand(b, s, 32) - 0.5
            pad = torch.arange(s)[None] >= torch.randint(s // 2, s + 1, (b, 1))
            assert relative_error(compiled(x, pad), model(x, pad)) <= fixtures.RTOL, (b, s)
    assert any(isinstance(g, GraphKernel) for g in rec.graphs) and _kernels_only(rec)


@pytest.mark.parametrize("norm_first, activation", [(False, "relu"), (True, "gelu")])
def test_pytorchs_fused_encoder_layer_runs_as_the_ops_it_fuses(norm_first, activation):
    """nn.TransformerEncoderLayer under no_grad calls one fused op torch-mlir cannot lower; the
    backend exports the layer's own ops instead (torch_fused.unfuse): no fallback, eager's results,
    with an in-place masked_fill_ on a tensor the graph made beside it (not an input update)."""
    torch.manual_seed(SEED)
    layer = torch.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True, norm_first=norm_first,
                                             activation=activation).eval()

    def model(x):
        bias = torch.zeros(x.shape[-1])
        bias.masked_fill_(x[0, 0] > 10, 1.0)  # never: the inputs are in [0, 1)
        return layer(x) + bias

    rec = Recorder()
    compiled = torch.compile(model, backend=rec)
    x = torch.rand(2, 24, 64)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        got, want = compiled(x), model(x)
    graphs = [g for g in rec.graphs if isinstance(g, GraphKernel)]
    assert graphs and any(n.target is torch._transformer_encoder_layer_fwd for n in graphs[0].gm.graph.nodes)
    assert _kernels_only(rec)
    assert relative_error(got, want) <= fixtures.RTOL


@pytest.mark.parametrize("groups", [1, 4])
def test_a_grouped_transposed_conv_with_a_bias_runs_as_a_kernel(groups):
    """nn.ConvTranspose2d (a bias by default) with groups: the phases' branch yields the bias's
    grouped view, which did not lower before (docs/cpu_codegen.md section 42); no fallback."""
    torch.manual_seed(SEED)
    model = torch.nn.ConvTranspose2d(16, 16, 4, stride=2, padding=1, groups=groups).eval()
    rec = Recorder()
    compiled = torch.compile(model, backend=rec)
    x = torch.rand(1, 16, 7, 7) * 2 - 1
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        got, want = compiled(x), model(x)
    assert _kernels_only(rec)
    assert relative_error(got, want) <= fixtures.RTOL


def _clone_then_set(x):
    y = x.clone()
    y[:, 0] = 0
    return y * 2


def _update_views_of_a_copy(x):
    y = x * 1
    y[1] += 2
    y[:, 1:3].mul_(5)
    return y


def _set_through_a_flat_view(x):  # torch-mlir folds the clone: the insert lands on a reshape of x
    y = x.clone()
    y.view(-1)[3:7] = x[0, :4]
    y.copy_(y * 3)
    return y


def _a_mask_it_builds(x):
    m = torch.zeros(x.shape, dtype=torch.bool)
    m[:, -2:] = True
    return x.masked_fill(m, -1.0)


@pytest.mark.parametrize("fn", [_clone_then_set, _update_views_of_a_copy, _set_through_a_flat_view, _a_mask_it_builds])
def test_in_place_updates_of_tensors_the_graph_made_run_as_kernels(fn):
    """setitem and in-place ops on tensors the graph made are value semantics after the export:
    kernels, eager's results, and the input left as eager leaves it (not written)."""
    rec = Recorder()
    compiled = torch.compile(fn, backend=rec)
    x = torch.rand(4, 8)
    a, b = x.clone(), x.clone()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        got = compiled(a)
    assert torch.equal(got, fn(b)) and torch.equal(a, x) and torch.equal(b, x)
    assert _kernels_only(rec)


def test_a_fused_encoder_layer_with_a_mask_runs_eagerly_naming_the_op():
    """With a padding mask the fused op is left in the graph (torch_fused.unfuse takes none with a
    mask): the graph runs eagerly, the one warning names the op torch-mlir could not lower."""
    torch.manual_seed(SEED)
    module = MaskedEncoder()
    compiled = torch.compile(module, backend=loopopt.torch_backend)
    x = torch.rand(4, 8)
    with warnings.catch_warnings(record=True) as caught, torch.no_grad():
        warnings.simplefilter("always")
        got, want = compiled(x), module(x)
    assert relative_error(got[:, :3], want[:, :3]) <= fixtures.RTOL  # the tokens not padded
    ours = [str(w.message) for w in caught if issubclass(w.category, LoopoptFallbackWarning)]
    assert len(ours) == 1 and "(op aten._transformer_encoder_layer_fwd)" in ours[0], ours


def test_a_call_that_needs_autograd_runs_eagerly():
    torch.manual_seed(SEED)
    model = BLOCKS["mlp_relu_small"].build()
    compiled = torch.compile(model, backend=loopopt.torch_backend)
    x = torch.from_numpy(fixtures.harness_fill([8, 16], 0, "float32"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = compiled(x)
    assert y.requires_grad and torch.allclose(y, model(x))
    y.sum().backward()
    assert model.fc1.weight.grad is not None
    assert any("needs autograd" in str(w.message) for w in caught if issubclass(w.category, LoopoptFallbackWarning))


def test_inputs_are_read_in_place_and_weights_updates_are_seen():
    """Parameters are frozen into the kernel while they are unchanged; an in-place update or new
    storage switches the graph to kernels taking the weights as inputs, so the next call uses the
    new weights. A non-contiguous input is made contiguous (a copy) and gives eager's result."""
    torch.manual_seed(SEED)
    model = BLOCKS["mlp_relu_small"].build().eval()
    rec = Recorder()
    compiled = torch.compile(model, backend=rec)
    x = torch.from_numpy(fixtures.harness_fill([16, 8], 0, "float32")).t()
    assert not x.is_contiguous()
    with torch.no_grad():
        assert relative_error(compiled(x), model(x)) <= fixtures.RTOL
        graph = rec.graphs[-1]
        assert graph.freeze and [k.spec.n_inputs for k in graph.kernels.values()] == [1]  # weights are constants
        model.fc2.bias.add_(1.0)
        assert relative_error(compiled(x), model(x)) <= fixtures.RTOL
        assert not graph.freeze and sorted(k.spec.n_inputs for k in graph.kernels.values()) == [1, 5]
        model.fc1.weight.data = model.fc1.weight.data * 2  # new storage: seen too
        assert relative_error(compiled(x), model(x)) <= fixtures.RTOL


def test_a_failing_check_in_the_kernel_gives_eagers_error():
    """An embedding's index range is a check inside the kernel's loop: an index out of range makes
    the kernel raise CheckFailed, the call runs in eager, which raises torch's IndexError; the
    process goes on and the next call is the kernel's again."""
    torch.manual_seed(SEED)
    emb = torch.nn.Embedding(10, 4)
    rec = Recorder()
    compiled = torch.compile(lambda i: emb(i) * 2, backend=rec)
    good = torch.tensor([1, 2, 9])
    with torch.no_grad():
        assert torch.equal(compiled(good), emb(good) * 2)
        kernels = [k for g in rec.graphs for k in g.kernels.values()]
        assert len(kernels) == 1 and isinstance(kernels[0], Kernel) and kernels[0].spec.in_kernel
        with pytest.warns(LoopoptFallbackWarning, match="run-time check failed: index must be smaller than dim size"):
            with pytest.raises(IndexError):
                compiled(torch.tensor([1, 12, 3]))
        calls = []
        kernels[0]._fn = lambda *a, f=kernels[0]._fn: calls.append(1) or f(*a)
        assert torch.equal(compiled(good), emb(good) * 2) and calls == [1]


# ---- found by the adversarial sweep (tests/torch_sweep.py), each wrong or a crash before ----

@pytest.mark.parametrize("fn", [lambda x: (x.t(), x * 2), lambda x: (x.contiguous(), x + 1),
                                lambda x: (x[1:], x.view(12), x - 1), lambda x: ((y := x * 2), y.view(-1))])
def test_outputs_eager_makes_as_views_share_memory_as_in_eager(fn):
    """An output eager makes as a view of an input (x.t(), x.contiguous()) or of another output
    shares its memory: a caller's later in-place op on it changes the input. Before, the kernel
    wrote a new array (the input unchanged by the caller's update). Now such outputs are made
    again from the inputs and the kernel's outputs, as eager makes them."""
    rec = Recorder()
    compiled = torch.compile(fn, backend=rec)
    x = torch.rand(3, 4)
    a, b = x.clone(), x.clone()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        got, want = compiled(a), fn(b)
    assert _kernels_only(rec) and [g.views is not None for g in rec.graphs] == [True]
    for g, w in zip(got, want):
        assert torch.equal(g, w) and g.stride() == w.stride()
    for g in got:
        g.add_(1)  # the caller's in-place op: the same effect on the inputs and the other outputs
    for w in want:
        w.add_(1)
    assert torch.equal(a, b)
    assert all(torch.equal(g, w) for g, w in zip(got, want))


# ---- outputs: views with dynamic sizes, eager's strides (docs/runtime.md, "Outputs") ----

def _same_as_eager(got, want, args_got, args_want):
    """Values, shapes, strides, and which outputs share memory with which inputs and outputs."""
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape)
        assert g.stride() == w.stride(), (g.shape, g.stride(), w.stride())
        assert relative_error(g, w) <= fixtures.RTOL

    def sharing(outs, ins):
        ptrs = [t.untyped_storage().data_ptr() for t in list(ins) + list(outs)]
        return [[p == q for q in ptrs] for p in ptrs]

    assert sharing(got, args_got) == sharing(want, args_want)


def _compare_at_sizes(fn, make, sizes, dynamic, rec):
    compiled = torch.compile(fn, backend=rec, dynamic=dynamic)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        for n in sizes:
            x = make(n)
            a, b = x.clone(memory_format=torch.preserve_format), x.clone(memory_format=torch.preserve_format)
            got, want = compiled(a), fn(b)
            _same_as_eager(got, want, (a,), (b,))
            outs_got = got if isinstance(got, tuple) else (got,)
            outs_want = want if isinstance(want, tuple) else (want,)
            for g, w in zip(outs_got, outs_want):  # a caller's later in-place op: eager's effect
                g.add_(1)
                w.add_(1)
            assert torch.equal(a, b) and all(relative_error(g, w) <= fixtures.RTOL for g, w in zip(outs_got, outs_want))


@pytest.mark.parametrize("fn", [_half_of_dim1, _flat_per_row, _overlapping_halves, _view_of_result_and_result])
def test_output_views_sized_by_the_inputs_are_one_dynamic_kernel(fn):
    """Under dynamic=True an output view sized by the inputs (`x[:, :x.shape[1] // 2]`, `x.view(b, -1)`
    with a symbolic b) made the kernel return an output it could not size: the graph was built
    once per shape (or, for views of a value the graph does not return, ran eagerly). Now such
    outputs are left out of the kernel and made after it by the graph's own view ops, on the
    call's inputs and SymInt sizes: one kernel for every size, eager's sizes, strides and
    aliasing, at two batch sizes."""
    rec = Recorder()
    _compare_at_sizes(fn, lambda n: torch.rand(n, 6, 2) if fn is _flat_per_row else torch.rand(n, 6), (4, 7), True, rec)
    assert _kernels_only(rec) and len(rec.graphs) == 1
    assert list(rec.graphs[0].kernels) == [("dynamic", True, (), (None,))]  # (no input in a permuted layout)


def test_an_in_place_op_on_a_view_of_a_returned_value_is_applied_once():
    """`y, y.view(-1).mul_(2)`: the kernel's y has the update already; the view made after the
    kernel ran the mul_ again (both outputs were 4x, eager's 2x: a wrong result). An in-place op
    in the views made after the kernel now stands for its operand."""
    def fn(x):
        y = x * 2
        return y, y.view(-1).mul_(2)

    rec = Recorder()
    _compare_at_sizes(fn, lambda n: torch.rand(n, 3), (4,), False, rec)
    assert _kernels_only(rec)


_conv = None


def _channels_last_conv(x):
    return _conv(x)


def _channels_last_math(x):
    return torch.sigmoid(x * 2 + 1)


def _transposed_result(x):
    return (x * 2).t(), x.permute(1, 0) - 1


def _one_channel_math(x):  # channels_last with C = 1: eager's stride of C is 1, not H * W
    return x * 2 + 1


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("fn", [_channels_last_conv, _channels_last_math, _transposed_result, _one_channel_math])
def test_outputs_have_eagers_strides(fn, dynamic):
    """Eager's result of a conv or an elementwise op on a channels_last input is channels_last;
    `(x * 2).t()` is a transpose of a row-major result. The kernels returned row-major outputs
    (equal values, other strides: `x.permute(0, 2, 3, 1).view(n, -1)` works on eager's
    channels_last result and raised on ours). Each result is now copied into memory ordered as
    eager's strides give (TorchDynamo's fake tensors carry them) and returned as a view of it with
    eager's sizes and strides."""
    global _conv
    torch.manual_seed(SEED)
    _conv = torch.nn.Conv2d(3, 4, 3, padding=1).eval()
    if fn is _transposed_result:
        make = lambda n: torch.rand(n, 5)  # noqa: E731
    elif fn is _one_channel_math:
        if dynamic:  # (the strides come from TorchDynamo's fake tensors; docs/runtime.md)
            pytest.xfail("under dynamic=True the fake result of a C = 1 channels_last input has row-major strides "
                         "(s0*s1, s0*s1, s0, 1) where eager's are (12, 1, 4, 1): a size-1 dim's stride only")
        make = lambda n: torch.rand(n, 1, 3, 4).to(memory_format=torch.channels_last)  # noqa: E731
    else:
        make = lambda n: torch.rand(n, 3, 5, 6).to(memory_format=torch.channels_last)  # noqa: E731
    rec = Recorder()
    _compare_at_sizes(fn, make, (2, 3), dynamic, rec)
    assert _kernels_only(rec)
    assert any(o is not None for g in rec.graphs for o in g.outputs.orders)
    if fn is not _transposed_result:
        compiled = torch.compile(fn, backend=loopopt.torch_backend, dynamic=dynamic)
        with torch.no_grad():
            y = compiled(make(2))
        assert y.is_contiguous(memory_format=torch.channels_last)
        assert y.permute(0, 2, 3, 1).view(2, -1).shape[0] == 2  # eager's NHWC view (raised on row-major)



def test_eager_strides_false_keeps_results_row_major():
    """options={"eager_strides": False}: the results stay row-major (no copy into eager's layout),
    the values eager's."""
    x = torch.rand(2, 3, 5, 6).to(memory_format=torch.channels_last)
    compiled = torch.compile(_channels_last_math, backend=loopopt.torch_backend, options={"eager_strides": False})
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        got, want = compiled(x), _channels_last_math(x)
    assert got.is_contiguous() and not want.is_contiguous() and relative_error(got, want) <= fixtures.RTOL

# ---- inputs in a permuted layout, passed as their memory (docs/runtime.md, "Inputs in a permuted layout") ----

def _cl(*shape):
    return torch.rand(*shape).to(memory_format=torch.channels_last)


def _add_cl(x, y):
    return torch.sigmoid(x * y + 1)


def _mixed(x, y):
    return x + y, y * x


def _residual(x):
    return torch.relu(_conv(x) + x[:, :1])


def _spy_arrays(monkeypatch):
    """The data pointers of the arrays each kernel call is given (torch_backend._array)."""
    from loopopt.runtime import torch_backend

    seen, real = [], torch_backend._array

    def spy(t, order=None):
        a = real(t, order)
        seen.append(a.ctypes.data)
        return a

    monkeypatch.setattr(torch_backend, "_array", spy)
    return seen


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("fn, n_inputs, written", [(_channels_last_math, 1, True), (_add_cl, 2, True),
                                                   (_channels_last_conv, 1, True)])
def test_channels_last_inputs_are_passed_without_a_copy(fn, n_inputs, written, dynamic, monkeypatch):
    """A channels_last input was copied to row-major before the kernel (and a channels_last
    result copied back after it): a 2 MB sigmoid cost 3x. The kernel is now built on the permuted
    graph: it takes the input's memory as is (the array it is given is the tensor's own memory),
    and a result the graph makes by pointwise ops is written in eager's order by the kernel (a
    conv's is written row-major and copied). Eager's values and strides, at two batch sizes; one
    kernel for both under dynamic=True (but the conv: a kernel per shape, as before)."""
    global _conv
    torch.manual_seed(SEED)
    _conv = torch.nn.Conv2d(3, 4, 3, padding=1).eval()
    seen = _spy_arrays(monkeypatch)
    torch._dynamo.reset()  # (the functions are compiled by other tests too: TorchDynamo's cache would serve them)
    rec = Recorder()
    compiled = torch.compile(fn, backend=rec, dynamic=dynamic)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        for n in (2, 3):
            xs = [_cl(n, 3, 5, 6) for _ in range(n_inputs)]
            seen.clear()
            got, want = compiled(*xs), fn(*xs)
            _same_as_eager(got, want, xs, xs)
            assert seen == [x.data_ptr() for x in xs]  # each input's own memory: no copy
    assert _kernels_only(rec)
    layouts = [lay for g in rec.graphs for lay in g.layouts.values()]
    assert layouts and all(lay.inputs == ((0, 2, 3, 1),) * n_inputs and lay.written == (written,) for lay in layouts)
    if dynamic and fn is not _channels_last_conv:
        assert len(rec.graphs) == 1 and list(rec.graphs[0].kernels) == [("dynamic", True, (), ((0, 2, 3, 1),) * n_inputs)]


@pytest.mark.parametrize("fn", [_mixed, _residual])
def test_mixed_layouts_and_pointwise_paths_keep_eagers_results(fn):
    """`x_cl + y, y * x_cl`: eager lays the first out channels_last, the second row-major; a
    residual `relu(conv(x) + x)`: the result is not pointwise. Where a pointwise path leads from a
    permuted input to a result written in another order the input is copied row-major (a
    transposed read in the loop nest measured slower than the copy), else passed as is. Eager's
    values and strides either way."""
    global _conv
    torch.manual_seed(SEED)
    _conv = torch.nn.Conv2d(3, 4, 3, padding=1).eval()
    torch._dynamo.reset()
    rec = Recorder()
    compiled = torch.compile(fn, backend=rec)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        xs = (_cl(2, 3, 5, 6), torch.rand(2, 3, 5, 6)) if fn is _mixed else (_cl(2, 3, 5, 6),)
        _same_as_eager(compiled(*xs), fn(*xs), xs, xs)
    assert _kernels_only(rec)
    (layout,) = rec.graphs[0].layouts.values()
    if fn is _mixed:
        assert layout.written == (True, False) and layout.inputs == (None, None)  # x reaches y * x, row-major
    else:  # the conv's result written channels_last by the kernel: x, which reaches it through the add, as is
        assert layout.written == (True,) and layout.inputs == ((0, 2, 3, 1),)


class _ConvBlock(torch.nn.Module):
    """conv + BatchNorm (eval) + ReLU with a residual: `relu(bn(conv(x)) + x)`, 16 channels."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(16, 16, 3, padding=1, bias=False)
        self.bn = torch.nn.BatchNorm2d(16)
        self.bn.running_mean.uniform_(-0.5, 0.5)
        self.bn.running_var.uniform_(0.5, 2.0)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)) + x)


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("freeze", [True, False])
def test_a_conv_result_is_written_in_eagers_layout_when_its_stores_follow_it(dynamic, freeze, monkeypatch):
    """A conv's (and a residual's) result on a channels_last input was written row-major and
    copied into eager's layout after the call. The kernel is now built writing it in eager's
    order (the graph ends with `.permute(order)`; the copy folded into its writers, the weight
    laid out along the output channels, the register tile's lanes along them) and kept where no
    store into the result walks across that order (its info["across"]): then the call returns a
    view of the kernel's own array, no copy. With the weight an input (freeze_weights=False) it
    cannot be laid out: the stores walk across, and the result is built row-major and copied,
    as before. Eager's values and strides at two batch sizes (the input's own memory passed where
    the result is written by the kernel)."""
    from loopopt.runtime import torch_backend

    torch.manual_seed(SEED)
    model = _ConvBlock().eval()
    seen = _spy_arrays(monkeypatch)
    clones = []
    real_made = torch_backend.GraphKernel._made

    def made(self, args, results, layout):
        clones.extend(w for _, _, _, w in layout.after)
        return real_made(self, args, results, layout)

    monkeypatch.setattr(torch_backend.GraphKernel, "_made", made)
    torch._dynamo.reset()
    rec = Recorder()
    compiled = torch.compile(model, backend=rec, dynamic=dynamic, options={"freeze_weights": freeze})
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        for n in (2, 3):
            x = _cl(n, 16, 6, 7)
            seen.clear()
            got, want = compiled(x), model(x)
            _same_as_eager(got, want, (x,), (x,))
            assert got.stride() == want.stride() and got.is_contiguous(memory_format=torch.channels_last)
            if freeze:
                assert x.data_ptr() in seen  # the input's own memory
    assert _kernels_only(rec)
    layouts = [lay for g in rec.graphs for lay in g.layouts.values()]
    kernels = [k for g in rec.graphs for k in g.kernels.values()]
    assert layouts
    if freeze:
        assert all(lay.inputs[0] == (0, 2, 3, 1) for lay in layouts)  # x, as its memory
        assert all(lay.written == (True,) and lay.checked == (True,) for lay in layouts)
        assert all(k.info["across"] == [0] for k in kernels)
        assert clones and all(clones)  # every result a view of the kernel's array
    else:  # x reaches the copied result through the add: copied row-major, as before
        assert all(lay.written == (False,) and (0, 2, 3, 1) not in lay.inputs for lay in layouts)
        assert clones and not any(clones)


def test_a_layout_change_between_calls_builds_another_kernel():
    """The kernel of a graph is built for its inputs' layouts: a call with another layout (which
    TorchDynamo's guards send to another graph; here the graph is called directly) must never run
    it. The key holds each input's memory order: channels_last, row-major, another permutation
    and a strided input (copied: not dense) each find their own kernel (the strided one the
    row-major's), with eager's values and strides (a fake run on the new layout gives them)."""
    torch._dynamo.reset()
    rec = Recorder()
    compiled = torch.compile(_channels_last_math, backend=rec)
    x = _cl(2, 3, 5, 6)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        compiled(x)
        (g,) = rec.graphs
        layouts = [_cl(2, 3, 5, 6), torch.rand(2, 3, 5, 6), torch.rand(2, 5, 3, 6).transpose(1, 2),
                   torch.rand(2, 3, 5, 12)[..., ::2], _cl(2, 3, 5, 6), torch.rand(2, 3, 6, 5).transpose(2, 3)]
        for t in layouts:
            _same_as_eager(g(t), _channels_last_math(t), (t,), (t,))
    orders = sorted((k[3] for k in g.kernels), key=str)
    assert orders == sorted([((0, 2, 3, 1),), (None,), ((0, 2, 1, 3),), ((0, 1, 3, 2),)], key=str)
    assert _kernels_only(rec)


def test_kernel_layout_rule():
    """The rule (torch_layout.kernel_layout) on facts given: a permuted result is written by the
    kernel when its graph is pointwise, or, when it is not, unless a kernel built so stored it
    across its layout (`across`); a permuted input is passed as is unless a pointwise path
    leads from it to a result written in another order; no facts: everything copied."""
    from loopopt.runtime.torch_layout import GraphFacts, kernel_layout, memory_order

    cl = (0, 2, 3, 1)
    facts = GraphFacts(pointwise=(True, False), reach=(frozenset({0}), frozenset({1})), orders=(cl, cl))
    lay = kernel_layout((cl, cl), (0, 1), (cl, cl), facts)  # the second result (not pointwise) tried in eager's order
    assert lay.written == (True, True) and lay.checked == (False, True) and lay.inputs == (cl, cl)
    lay = kernel_layout((cl, cl), (0, 1), (cl, cl), facts, frozenset({1}))  # ... and stored across: copied
    assert lay.written == (True, False) and lay.inputs == (cl, None)
    assert [(j, w) for j, _, _, w in lay.after] == [(0, True), (1, False)]
    lay = kernel_layout((cl, cl), (0, 1), (cl, None), facts)
    assert lay.inputs == (cl, None) and not lay.plain
    assert kernel_layout((cl,), (0,), (cl,), None) == kernel_layout((None,), (0,), (cl,), None)
    conv_facts = GraphFacts(pointwise=(False,), reach=(frozenset(),), orders=(cl,))
    assert kernel_layout((cl,), (0,), (cl,), conv_facts).inputs == (cl,)
    lay = kernel_layout((cl,), (0,), (cl,), conv_facts)  # a conv's result: written, checked on the kernel
    assert lay.written == (True,) and lay.checked == (True,)
    assert lay.across([0]) == frozenset() and lay.across([3]) == {0} and lay.across(None) == {0}
    lay = kernel_layout((cl,), (0,), (cl,), conv_facts, frozenset({0}))  # stored across: copied after
    assert lay.written == (False,) and lay.checked == (False,) and lay.across([3]) == frozenset()
    residual = GraphFacts(pointwise=(False,), reach=(frozenset({0}),), orders=(cl,))
    assert kernel_layout((cl,), (0,), (cl,), residual, frozenset({0})).inputs == (None,)
    assert memory_order(_cl(2, 3, 4, 5)) == cl and memory_order(torch.rand(2, 3)) is None
    assert memory_order(torch.rand(3, 4).t()) == (1, 0)
    assert memory_order(torch.rand(3, 8)[:, ::2]) is None and memory_order(torch.rand(1, 4).expand(3, 4)) is None
    assert memory_order(_cl(2, 1, 4, 5)) is None  # C = 1: contiguous already


def test_dense_order_is_row_major_for_every_size():
    """The order of dims in which strides are row-major, from sizes and strides that may be
    symbolic (TorchDynamo's SymInt expressions): identities for every value of the symbols."""
    import sympy

    from loopopt.runtime.torch_layout import dense_order, inverse

    n, c, h, w = sympy.symbols("n c h w", positive=True, integer=True)
    assert dense_order((n, c, h, w), (c * h * w, h * w, w, 1)) == (0, 1, 2, 3)
    assert dense_order((n, c, h, w), (h * w * c, 1, w * c, c)) == (0, 2, 3, 1)  # channels_last
    assert dense_order((n, 1, h, w), (h * w, 1, w, 1)) == (0, 2, 3, 1)  # size 1: its stride kept exactly
    assert dense_order((h, w), (1, h)) == (1, 0)
    assert dense_order((h, w), (0, 1)) is None  # expanded
    assert dense_order((h, w), (2 * w, 1)) is None  # a gap: a strided view
    assert dense_order((h, w), (w, 1 + 0 * h)) == (0, 1)
    assert dense_order((3, 4), (1, 4)) is None  # overlapping
    assert inverse((0, 2, 3, 1)) == (0, 3, 1, 2)

def _view_after_unsqueeze_in_place(x):
    y = x * 2
    v = y[0]
    v.unsqueeze_(0)
    return y, v


def test_views_after_a_size_change_in_place_run_eagerly():
    """`v = y[0]; v.unsqueeze_(0); return y, v`: the view made again from the kernel's y would be
    y[0] without the unsqueeze (a 3-vector for eager's 1x3). A graph with an op that changes a
    tensor's sizes in place and outputs to make as views is refused: eager, one warning naming it."""
    compiled = torch.compile(_view_after_unsqueeze_in_place, backend=loopopt.torch_backend, dynamic=True)
    with warnings.catch_warnings(record=True) as caught, torch.no_grad():
        warnings.simplefilter("always")
        for n in (4, 7):
            x = torch.rand(n, 3)
            a, b = x.clone(), x.clone()
            _same_as_eager(compiled(a), _view_after_unsqueeze_in_place(b), (a,), (b,))
    ours = [str(w.message) for w in caught if issubclass(w.category, LoopoptFallbackWarning)]
    assert len(ours) == 1 and "op unsqueeze_ changes a tensor's sizes in place" in ours[0], ours


def _nan_semantics(x, y):
    return (torch.maximum(x, y), torch.minimum(x, y), x.clamp(-1, 1), torch.nn.functional.hardtanh(x),
            x.argmax(), torch.max(x.view(2, 4), 1).indices, x.argmin(), torch.nn.functional.relu6(x),
            torch.clamp(x, min=0))


def test_nan_and_integer_neg_follow_eager_as_kernels():
    """torch-mlir lowers maximum/minimum/clamp as compare + select (a NaN gave the other operand
    or the bound), argmax skipping NaN, and an integer neg through f32 (-(2**31 - 1) came out
    -2**31): torch_exact's decompositions give eager's results, still as kernels."""
    nan, inf = float("nan"), float("inf")
    x = torch.tensor([nan, inf, -inf, -0.0, 0.0, 1.5, -2.5, 3.0])
    y = torch.tensor([1.0, nan, -0.0, 0.0, -inf, 2.0, nan, -0.0])
    ints = torch.tensor([-2**31 + 1, 2**31 - 1, 0, -5, 1 << 25 | 1], dtype=torch.int32)
    for fn, args in [(_nan_semantics, (x, y)), (lambda a: (-a, torch.neg(a) * 2, a.clamp(min=0.5)), (ints,))]:
        rec = Recorder()
        compiled = torch.compile(fn, backend=rec)
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("error", LoopoptFallbackWarning)
            got, want = compiled(*args), fn(*args)
        assert _kernels_only(rec)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and torch.equal(torch.isnan(g), torch.isnan(w)), (g, w)
            assert torch.equal(torch.nan_to_num(g), torch.nan_to_num(w)), (g, w)


@pytest.mark.parametrize("fn, reason", [(lambda a, b: a % b, "integer division by a tensor"),
                                        (lambda a, b: a // b, "integer division by a tensor"),
                                        (lambda a, b: a.view(-1) * b.sum(), "a view of a tensor with no elements")])
def test_what_would_kill_the_process_runs_eagerly(fn, reason):
    """An integer % or // by a tensor: a zero divisor trapped in the kernel (SIGFPE killed the
    process; eager raises ZeroDivisionError). A view of a tensor with no elements: torch-mlir's
    aten.view lowering divided by the size (SIGFPE in the compiler). Both now run eagerly with
    the one warning naming the op."""
    compiled = torch.compile(fn, backend=loopopt.torch_backend)
    empty = "no elements" in reason
    a = torch.zeros(0, 3, dtype=torch.int64) if empty else torch.tensor([5, -7, 9])
    b = torch.tensor([2, 3, 0])
    with warnings.catch_warnings(record=True) as caught, torch.no_grad():
        warnings.simplefilter("always")
        if empty:
            assert torch.equal(compiled(a, b), fn(a, b))
        else:
            with pytest.raises(RuntimeError, match="ZeroDivisionError"):
                compiled(a, b)
    ours = [str(w.message) for w in caught if issubclass(w.category, LoopoptFallbackWarning)]
    assert len(ours) == 1 and reason in ours[0] and "(op aten." in ours[0], ours


def test_a_weight_updated_through_data_is_seen_when_checked():
    """`w.data.mul_(2)` updates a tensor with its own version counter: the frozen weight's
    version and pointer stay. With freeze_weights="checked" the guard compares the values with
    the copy taken when frozen on every call (by default it does not: reading every weight per
    call is the cost; docs/runtime.md)."""
    torch.manual_seed(SEED)
    model = torch.nn.Linear(4, 3).eval()
    rec = Recorder()
    compiled = torch.compile(model, backend=rec, options={"freeze_weights": "checked"})
    x = torch.rand(2, 4)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)  # (it ran eagerly: options= was one unknown knob)
        assert torch.allclose(compiled(x), model(x))
        model.weight.data.mul_(2.0)
        model.bias.data.copy_(torch.full((3,), 5.0))
        assert torch.allclose(compiled(x), model(x))
    assert _kernels_only(rec) and [g.check_values for g in rec.graphs] == [True]


def test_a_model_made_under_inference_mode_freezes_its_weights():
    """Its parameters are inference tensors, which have no version counter: reading it for the
    freeze guard raised RuntimeError (an exception the model does not raise). Their values are
    the guard; an update inside inference_mode (no version bump) is seen."""
    with torch.inference_mode():
        model = torch.nn.Linear(4, 3)
        compiled = torch.compile(model, backend=loopopt.torch_backend)
        x = torch.rand(2, 4)
        with warnings.catch_warnings():
            warnings.simplefilter("error", LoopoptFallbackWarning)
            assert torch.allclose(compiled(x), model(x))
            model.weight.mul_(2.0)
            assert torch.allclose(compiled(x), model(x))


def test_first_calls_from_threads_build_one_at_a_time():
    """Threads (each its own grad mode: TorchDynamo compiles the graph again in each) used to
    export at the same time; torch.export is not thread-safe and failed ("Trying to pop empty
    mode stack"), so the calls ran eagerly. Builds now take one lock."""
    import threading

    fn = lambda x: torch.tanh(x) * 3 + x  # noqa: E731
    compiled = torch.compile(fn, backend=loopopt.torch_backend)
    xs = [torch.rand(16, 8) for _ in range(3)]
    got = [None] * len(xs)

    def work(i):
        with torch.no_grad():
            got[i] = compiled(xs[i])

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        threads = [threading.Thread(target=work, args=(i,)) for i in range(len(xs))]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    assert all(torch.allclose(g, fn(x)) for g, x in zip(got, xs))
    assert not [w for w in caught if issubclass(w.category, LoopoptFallbackWarning)]


@pytest.mark.long
def test_the_adversarial_sweep():
    """Every case of tests/torch_sweep.py: eager's outputs, aliasing, inputs after the call and
    exceptions (or a fallback to eager, with one warning per reason)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch_sweep

    failed = {}
    for case in torch_sweep.CASES:
        fails, _, _ = torch_sweep.compare(case)
        if fails and not case.known:
            failed[case.name] = fails
    assert not failed, failed


def _integer_scalar_models():
    """Graphs whose constant float tensors meet a negative integer (torch-mlir folded it as unsigned)."""
    def timestep(t):  # diffusers-like sinusoidal frequencies from a constant's log
        freqs = torch.exp(-torch.log(torch.tensor(10000.0)) * torch.arange(4, dtype=torch.float32) / 4)
        return t[:, None] * freqs[None]

    return {
        "neg of a constant's log": timestep,
        "constant times -3": lambda t: t * (torch.tensor(9.0) * -3),
        "constant plus -1": lambda t: t * (torch.tensor(9.0) + -1),
        "constant minus -1": lambda t: t * (torch.tensor(9.0) - -1),
        "constant above -1": lambda t: t * (torch.tensor(-0.5) > -1),
        "constant below -1": lambda t: t * (torch.tensor(-0.5) < -1),
        "constant equal to -1": lambda t: t * (torch.tensor(-1.0) == -1),
        "input times -2": lambda t: t * -2 + (t > -1),
    }


@pytest.mark.parametrize("name", list(_integer_scalar_models()))
def test_negative_integer_scalars_of_float_constants(name):
    """torch-mlir folds `mul`/`add`/`sub` and the comparisons of a constant float tensor and a
    negative integer as if the integer were unsigned (`torch.tensor(9.0) * -1` gave 1.66e20,
    `-torch.log(torch.tensor(10000.0))` 1.70e20, so a diffusion timestep embedding's frequencies
    were inf and NaN); float_scalars passes the integer as a float of the same value (section 66).
    Eager's results, as a kernel."""
    fn = _integer_scalar_models()[name]
    rec = Recorder()
    compiled = torch.compile(fn, backend=rec)
    t = torch.tensor([1.0, -2.0, 3.0])
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        got = compiled(t)
    assert torch.equal(got, fn(t))
    assert _kernels_only(rec)


def test_float_scalars_keeps_exponents_and_inexact_integers():
    """float_scalars rewrites an integer number against a float tensor, not a pow's exponent, not an
    integer against an integer tensor, not one an f32 cannot hold exactly."""
    from loopopt.runtime.torch_exact import float_scalars

    class M(torch.nn.Module):
        def forward(self, x, i):
            return x * -1, x ** 3, i * -1, x + (2 ** 24 + 1), x.half() - 3

    program = torch.export.export(M(), (torch.ones(2), torch.ones(2, dtype=torch.int64)), strict=False)
    program = program.run_decompositions({})
    assert float_scalars(program) == 2
    numbers = {n.target._schema.name: [a for a in n.args if isinstance(a, (int, float))]
               for n in program.graph.nodes if n.op == "call_function"}
    ints = [n.args[1] for n in program.graph.nodes if n.op == "call_function" and len(n.args) > 1
            and type(n.args[1]) is int]
    assert sorted(ints) == [-1, 3, 2 ** 24 + 1], numbers


_NEGATIVE_SCATTERS = {
    "scatter": "torch.zeros_like(p).scatter(-1, idx, v)",
    "scatter_add": "torch.zeros_like(p).scatter_add(-1, idx, v)",
    "scatter_value": "torch.zeros_like(p).scatter(-1, idx, 1.0)",
    "scatter_reduce": "p.scatter_reduce(-1, idx, v, 'amax')",
}


@pytest.mark.parametrize("name", list(_NEGATIVE_SCATTERS))
def test_a_scatter_along_a_negative_dim_does_not_abort_the_process(name):
    """torch-mlir's lowering of a scatter along a negative dim allocated until LLVM aborted the
    process ("LLVM ERROR: out of memory", at 4 x 8); scatter_dims writes the dim it means
    (section 66). Run in a child process (before the fix it died): eager's results, as a kernel
    (loopopt-scatters-to-loops) or with one fallback warning naming tm_tensor.scatter."""
    import subprocess
    import textwrap

    code = textwrap.dedent(f"""
        import warnings, torch, loopopt
        def f(p, idx, v):
            return {_NEGATIVE_SCATTERS[name]}
        torch.manual_seed(0)
        args = (torch.rand(4, 8), torch.randint(8, (4, 2)), torch.rand(4, 2))
        with warnings.catch_warnings(record=True) as caught, torch.no_grad():
            warnings.simplefilter("always")
            got = torch.compile(f, backend=loopopt.torch_backend)(*args)
        assert torch.equal(got, f(*args))
        fell = [str(w.message) for w in caught if "Fallback" in type(w.message).__name__]
        assert len(fell) <= 1 and all("tm_tensor.scatter" in m for m in fell), fell
        print("ok")
        """)
    import resource

    def limited():  # the runaway lowering stops at 8 GB of address space, not at the host's memory
        resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (REPO, os.environ.get("PYTHONPATH")) if p))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=env,
                          preexec_fn=limited)
    assert done.returncode == 0 and "ok" in done.stdout, done.stderr[-2000:]


def test_scatter_dims_writes_the_dim_a_negative_one_means():
    """scatter_dims rewrites a scatter's negative dim as dim + rank, leaves a non-negative one and
    other ops' dims (a gather along -1 lowers as it is)."""
    from loopopt.runtime.torch_exact import scatter_dims

    class M(torch.nn.Module):
        def forward(self, p, idx, v):
            return p.scatter(-1, idx, v), p.scatter_add(0, idx, v), torch.gather(p, -1, idx), p.scatter(-2, idx, v)

    args = (torch.rand(4, 8), torch.randint(4, (4, 2)), torch.rand(4, 2))
    program = torch.export.export(M(), args, strict=False).run_decompositions({})
    assert scatter_dims(program) == 2
    dims = sorted((n.target._schema.name.split("::")[-1], n.args[1]) for n in program.graph.nodes
                  if n.op == "call_function" and n.target._schema.name.split("::")[-1] in ("scatter", "scatter_add", "gather"))
    assert dims == [("gather", -1), ("scatter", 0), ("scatter", 1), ("scatter_add", 0)]


def test_index_add_scatter_add_and_index_put_run_as_kernels():
    """A GCN layer's degree count and message sum (index_add_ along dim 0, repeated indices), a
    scatter_add along -1 and an accumulating index_put of negative indices are torch-mlir's
    tm_tensor.scatter, which loopopt-scatters-to-loops lowers
    (they ran eagerly before): no fallback, eager's results bit for bit (the same adds in the same
    order of the index; section 66)."""
    def gcn(x, edges, w):
        src, dst = edges[0], edges[1]
        deg = torch.zeros(x.shape[0]).index_add_(0, dst, torch.ones(dst.shape[0])) + 1
        h = x @ w
        msg = h[src] * torch.rsqrt(deg[src] * deg[dst])[:, None]
        return torch.zeros_like(h).index_add_(0, dst, msg) + h / deg[:, None]

    def scatter_add(p, idx, v):
        return p.scatter_add(-1, idx, v)

    def index_put_from_the_end(x, i, v):  # negative indices count from the end (torch-mlir passes them as they are)
        return x.index_put((i - 10,), v, accumulate=True)

    torch.manual_seed(0)
    cases = [(gcn, (torch.rand(64, 16), torch.randint(64, (2, 512)), torch.rand(16, 16))),
             (scatter_add, (torch.rand(8, 10), torch.randint(10, (8, 6)), torch.rand(8, 6))),
             (index_put_from_the_end, (torch.rand(10, 5), torch.randint(10, (30,)), torch.rand(30, 5)))]
    for fn, args in cases:
        rec = Recorder()
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("error", LoopoptFallbackWarning)
            got = torch.compile(fn, backend=rec)(*args)
        assert torch.equal(got, fn(*args))
        assert _kernels_only(rec)


def _ties_zeros_nan(shape, nan: bool):
    """Few distinct values (ties on every row), -0.0 beside 0.0, NaN and infinities when `nan`."""
    g = torch.Generator().manual_seed(SEED)
    x = torch.randint(-3, 4, shape, generator=g).float()
    x[torch.rand(shape, generator=g) < 0.3] = -0.0
    if nan:
        x[torch.rand(shape, generator=g) < 0.2] = float("nan")
        x[torch.rand(shape, generator=g) < 0.1] = float("inf")
        x[torch.rand(shape, generator=g) < 0.1] = -float("inf")
    return x


def _same_bits(a, b) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(
        a.contiguous().view(torch.int32) if a.dtype == torch.float32 else a,
        b.contiguous().view(torch.int32) if b.dtype == torch.float32 else b)


def _sorted_as_eagers_stable_sort(fn, stable, x):
    """`fn` compiled with the backend on x: its results bit for bit `stable`'s (eager's stable
    sort), the first one as numbers eager's default sort's; returns the Recorder."""
    rec = Recorder()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        got = torch.compile(fn, backend=rec)(x.clone())
    want, default = stable(x.clone()), fn(x.clone())
    got, want, default = ((tuple(got), tuple(want), tuple(default)) if isinstance(want, tuple)
                          else ((got,), (want,), (default,)))
    assert all(_same_bits(g, w) for g, w in zip(got, want)), (got, want)
    assert _same_values(got[0], default[0]) if got[0].is_floating_point() else True
    return rec


_SORTS = {  # the graph, and eager's stable sort it is compared with
    "sort": (lambda x: torch.sort(x, dim=-1), lambda x: torch.sort(x, dim=-1, stable=True)),
    "sort_descending_dim0": (lambda x: torch.sort(x, dim=0, descending=True),
                             lambda x: torch.sort(x, dim=0, descending=True, stable=True)),
    "sort_3d": (lambda x: torch.sort(x.reshape(4, 6, 8), dim=1), lambda x: torch.sort(x.reshape(4, 6, 8), dim=1, stable=True)),
    "argsort": (lambda x: torch.argsort(x, dim=-1, descending=True),
                lambda x: torch.argsort(x, dim=-1, descending=True, stable=True)),
    "msort": (lambda x: torch.msort(x), lambda x: torch.sort(x, dim=0, stable=True).values),
    "sort_stable": (lambda x: torch.sort(x, dim=0, stable=True), lambda x: torch.sort(x, dim=0, stable=True)),
    "argsort_stable": (lambda x: torch.argsort(x, dim=0, descending=True, stable=True),
                       lambda x: torch.argsort(x, dim=0, descending=True, stable=True)),
}


def _same_values(a, b) -> bool:
    """Equal as numbers (-0.0 == 0.0), NaN where the other has NaN."""
    return torch.equal(torch.isnan(a), torch.isnan(b)) and torch.equal(a.nan_to_num(7.0), b.nan_to_num(7.0))


@pytest.mark.parametrize("name", list(_SORTS))
@pytest.mark.parametrize("nan", [False, True])
def test_sorts_run_as_kernels_with_eagers_values_and_indices(name, nan):
    """torch.sort, argsort and msort are torch-mlir's tm_tensor.sort, which loopopt-sorts-to-loops
    lowers (they ran eagerly before): no fallback; with ties, -0.0 beside 0.0, NaN and infinities,
    values and indices bit for bit those of eager's stable sort (NaN after every number ascending,
    before descending; section 72). Eager's default sort (stable=False) is the same on rows of 16
    or fewer; on longer rows (msort's 24) it orders ties otherwise (std::sort), so it is compared
    as numbers. `stable=True` (aten.sort.stable, which torch-mlir does not import) is written as
    aten.sort (torch_exact.stable_sorts): the same stable sort here."""
    fn, stable = _SORTS[name]
    x = _ties_zeros_nan((24, 8), nan)
    rec = _sorted_as_eagers_stable_sort(fn, stable, x)
    assert _kernels_only(rec) and any(isinstance(g, GraphKernel) for g in rec.graphs)


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("nan", [False, True])
def test_topk_runs_as_a_kernel(largest, nan):
    """torch.topk is a tm_tensor.sort and a slice: eager's values (as numbers: eager leaves the
    order of tied elements unspecified, its CPU topk a partial sort, so of 0.0 and -0.0 either may
    come first), the indices valid (distinct on each row, each pointing at its value bit for bit);
    on rows without ties, values and indices eager's bit for bit."""
    x = _ties_zeros_nan((32, 8), nan)

    def fn(x):
        return torch.topk(x, 3, dim=-1, largest=largest)

    rec = Recorder()
    compiled = torch.compile(fn, backend=rec)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        values, indices = compiled(x.clone())
        want_values, _ = fn(x.clone())
        assert _same_values(values, want_values)
        assert _same_bits(x.gather(-1, indices), values)
        assert all(len(set(row.tolist())) == 3 for row in indices)
        distinct = torch.rand(32, 8, generator=torch.Generator().manual_seed(SEED))
        v2, i2 = compiled(distinct)
        w2, j2 = fn(distinct)
    assert _same_bits(v2, w2) and torch.equal(i2, j2)
    assert _kernels_only(rec) and any(isinstance(g, GraphKernel) for g in rec.graphs)


_LONG_SORTS = {  # rows longer than the ranks take (section 79): merged; the graph, eager's stable sort
    "sort_1000": (lambda x: torch.sort(x.reshape(8, 1000), dim=-1),
                  lambda x: torch.sort(x.reshape(8, 1000), dim=-1, stable=True)),
    "sort_descending_dim0": (lambda x: torch.sort(x.reshape(1000, 8), dim=0, descending=True),
                             lambda x: torch.sort(x.reshape(1000, 8), dim=0, descending=True, stable=True)),
    "argsort_4000": (lambda x: torch.argsort(x.reshape(2, 4000), dim=-1, descending=True),
                     lambda x: torch.argsort(x.reshape(2, 4000), dim=-1, descending=True, stable=True)),
}


@pytest.mark.parametrize("name", list(_LONG_SORTS))
@pytest.mark.parametrize("nan", [False, True])
def test_long_sorts_run_as_kernels_with_eagers_stable_order(name, nan):
    """Rows of 1000 and 4000 (ties, -0.0 beside 0.0, NaN and infinities): one kernel, values and
    indices bit for bit eager's stable sort; eager's default sort as numbers (it orders ties
    otherwise on rows longer than 16)."""
    fn, stable = _LONG_SORTS[name]
    x = _ties_zeros_nan((8000,), nan)
    rec = _sorted_as_eagers_stable_sort(fn, stable, x)
    assert _kernels_only(rec) and any(isinstance(g, GraphKernel) for g in rec.graphs)


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("nan", [False, True])
def test_topk_over_a_vocabulary_runs_as_a_kernel(largest, nan):
    """topk(k=50) over rows of 32000 (an LLM's sampling step): the first 50 selected, values and
    indices bit for bit the first 50 of eager's stable sort; eager's topk's values as numbers; on
    rows without ties eager's topk's values and indices bit for bit."""
    def fn(x):
        return torch.topk(x, 50, dim=-1, largest=largest)

    x = _ties_zeros_nan((4, 32000), nan)
    rec = Recorder()
    compiled = torch.compile(fn, backend=rec)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        values, indices = compiled(x.clone())
        sv, si = torch.sort(x, dim=-1, descending=largest, stable=True)
        assert _same_bits(values, sv[:, :50]) and torch.equal(indices, si[:, :50])
        assert _same_values(values, fn(x.clone())[0])
        distinct = (torch.randperm(4 * 32000, generator=torch.Generator().manual_seed(SEED)) - 64000).float().reshape(4, 32000)
        v2, i2 = compiled(distinct)
        w2, j2 = fn(distinct)
    assert _same_bits(v2, w2) and torch.equal(i2, j2)
    assert _kernels_only(rec) and any(isinstance(g, GraphKernel) for g in rec.graphs)


class _Moe(torch.nn.Module):
    """benchmarks/models/probe_compile.py's moe kind, smaller: top-2 of 8 experts, softmax, topk,
    scatter of the renormalised weights, two einsums."""

    def __init__(self, d=32, h=64, experts=8):
        super().__init__()
        g = torch.Generator().manual_seed(SEED)
        self.router = torch.nn.Linear(d, experts, bias=False)
        self.w1 = torch.nn.Parameter(torch.randn(experts, d, h, generator=g) * d ** -0.5)
        self.w2 = torch.nn.Parameter(torch.randn(experts, h, d, generator=g) * h ** -0.5)

    def forward(self, x):
        p = torch.softmax(self.router(x), -1)
        top, idx = torch.topk(p, 2, -1)
        weights = torch.zeros_like(p).scatter(-1, idx, top / top.sum(-1, keepdim=True))
        y = torch.einsum("teh,ehd->ted", torch.nn.functional.silu(torch.einsum("td,edh->teh", x, self.w1)), self.w2)
        return torch.einsum("te,ted->td", weights, y)


def test_a_mixture_of_experts_runs_as_a_kernel():
    """The moe probe kind fell back naming tm_tensor.sort (its topk); now one kernel, eager's
    result within rounding (the einsums' sums in another order; the routing the same)."""
    torch.manual_seed(SEED)
    model = _Moe().eval()
    x = torch.randn(16, 32)
    rec = Recorder()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        got = torch.compile(model, backend=rec)(x)
        want = model(x)
    assert relative_error(got, want) <= fixtures.RTOL
    assert _kernels_only(rec) and any(isinstance(g, GraphKernel) for g in rec.graphs)


# -- complex values as real tensors (torch_complex; docs/cpu_codegen.md section 71) --------------

def _as_real(t):
    return torch.view_as_real(t.resolve_conj()) if t.is_complex() else t


def _complex_kernels(rec) -> bool:
    """Every recorded graph with complex values ran through its real graph's kernels (no fallback)."""
    from loopopt.runtime.torch_complex import ComplexCall

    calls = [g for g in rec.graphs if isinstance(g, ComplexCall)]
    return bool(calls) and all(isinstance(c.run, GraphKernel) and c.run.kernels and
                               all(isinstance(k, Kernel) for k in c.run.kernels.values()) for c in calls)


class _Rope(torch.nn.Module):
    """Meta's LLaMA rotary embedding: x as complex pairs times freqs_cis (torch.polar), back to
    real pairs; q and k of (batch, tokens, heads, 16)."""

    def __init__(self, seq=12, hd=16):
        super().__init__()
        freqs = 1.0 / 10000.0 ** (torch.arange(0, hd, 2).float() / hd)
        self.freqs_cis = torch.polar(torch.ones(seq, hd // 2), torch.outer(torch.arange(seq).float(), freqs))

    def rotary(self, x):
        xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(xc * self.freqs_cis[None, :, None]).flatten(3).type_as(x)

    def forward(self, q, k):
        return self.rotary(q) + 1, self.rotary(k).transpose(1, 2)


def _product_chain(a, b, c):  # complex inputs and outputs of the graph itself
    p = a * b * c
    return p - a, (p + 2).conj() * 0.5, p.abs()


def _polar_of_angles(t, r):
    angles = torch.outer(t, torch.arange(1, 9, dtype=torch.float32) / 8)
    return torch.view_as_real(torch.polar(r.abs()[:, None], angles) * torch.complex(r[:, None], -r[:, None]))


def _conj_abs_angle(x, y):
    xc, yc = torch.view_as_complex(x), torch.view_as_complex(y)
    z = torch.cat([xc.conj() * yc, (xc - yc)[..., :2]], 1).unsqueeze(0)
    return torch.view_as_real(z), xc.abs(), yc.angle(), z.real.sum() + z.imag.sum()


def _complex_cases():
    torch.manual_seed(3)
    c = lambda *s: torch.randn(*s, dtype=torch.complex64)  # noqa: E731
    return [("rope", _Rope(), (torch.randn(2, 12, 3, 16), torch.randn(2, 12, 3, 16))),
            ("product_chain", _product_chain, (c(6, 5), c(5), c(6, 1))),
            ("polar_of_angles", _polar_of_angles, (torch.randn(10), torch.randn(10))),
            ("conj_abs_angle", _conj_abs_angle, (torch.randn(4, 6, 2), torch.randn(4, 6, 2)))]


@pytest.mark.parametrize("name", [n for n, _, _ in _complex_cases()])
def test_complex_graphs_run_as_kernels_of_their_real_form(name):
    """view_as_complex, polar, complex products, sums, conj, abs, angle, cat, slicing, and complex
    inputs and outputs of the graph: torch-mlir imports them as the complex dialect, which loopopt
    does not take (every such graph ran eagerly, `complex.create` named). Written on real tensors of
    a trailing dim 2 (torch_complex), they run as kernels, eager's values (products as eager orders
    them; cos, sin, atan2 and hypot within the kernels' approximations)."""
    fn, args = next((f, a) for n, f, a in _complex_cases() if n == name)
    rec = Recorder()
    compiled = torch.compile(fn, backend=rec)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        got, want = compiled(*args), fn(*args)
        again = compiled(*args)
    assert _complex_kernels(rec)
    got, want, again = (o if isinstance(o, tuple) else (o,) for o in (got, want, again))
    for g, w, h in zip(got, want, again):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
        g, w = _as_real(g).double(), _as_real(w).double()
        assert float((g - w).abs().max()) <= 2e-6 * max(float(w.abs().max()), 1.0), name
        assert torch.equal(_as_real(h), _as_real(g).to(_as_real(h).dtype))


def test_complex_rules_are_eagers_arithmetic_bit_for_bit():
    """The real graph (torch_complex.as_real) run eagerly equals eager's complex ops bit for bit,
    on infinities, NaN and signed zeros too: the product's order (ac - bd, ad + bc), the sum's
    `self + alpha * other` with alpha a complex 1 or -1, a real operand or number promoted with
    imaginary part 0, neg and conj; abs (hypot: infinite where a part is)."""
    from loopopt.runtime.torch_complex import as_real

    def arith(a, b, r):
        return (a * b, a + b, a - b, b - a, a * r, r * b, a + r, r - a, a * 3, 2 - b, a + 1.5j, -a,
                a.conj() * b, (a * b).real, torch.view_as_real(a)[..., 1], a.abs(), (a * b)[..., 1:].abs())

    special = [0.0, -0.0, 1.5, -2.25, float("inf"), float("-inf"), float("nan"), 3e38]
    re = torch.tensor(special).repeat_interleave(len(special))
    im = torch.tensor(special).repeat(len(special))
    a = torch.complex(re, im)
    b = torch.complex(im.flip(0), re)
    r = torch.tensor(special).repeat(len(special)).flip(0)
    reals = []

    def capture(gm, example_inputs):
        real = as_real(gm)
        reals.append(real)
        return gm.forward

    torch.compile(arith, backend=capture)(a, b, r)
    (real,) = reals
    assert real.inputs == (0, 1)
    got = real.gm(torch.view_as_real(a), torch.view_as_real(b), r)
    want = arith(a, b, r)
    for k, (g, w) in enumerate(zip(got, want)):
        w = _as_real(w)
        assert g.shape == w.shape and g.dtype == w.dtype, k
        assert torch.equal(_bits(g), _bits(w)), (k, g[_bits(g) != _bits(w)], w[_bits(g) != _bits(w)])


def _bits(t):
    """A float32 tensor's bits, every NaN as one (eager's and the rules' NaN may differ in sign)."""
    return torch.where(torch.isnan(t), torch.full_like(t, float("nan")), t).view(torch.int32)


@pytest.mark.parametrize("fn, named", [(lambda x: torch.view_as_real(torch.exp(torch.view_as_complex(x))), "torch.exp"),
                                       (lambda x: torch.view_as_real(torch.view_as_complex(x) / 3), "operator.truediv"),
                                       (lambda x: torch.view_as_complex(x).sum(0).abs(), "Tensor.sum")])
def test_a_complex_op_not_written_runs_eagerly_naming_it(fn, named):
    """A complex op torch_complex has no rule for (exp, a division, a complex reduction): the
    graph runs eagerly, eager's result, one warning naming the op."""
    x = torch.randn(4, 6, 2)
    compiled = torch.compile(fn, backend=loopopt.torch_backend)
    with warnings.catch_warnings(record=True) as caught, torch.no_grad():
        warnings.simplefilter("always")
        got = compiled(x)
    assert torch.equal(got, fn(x))
    ours = [str(w.message) for w in caught if issubclass(w.category, LoopoptFallbackWarning)]
    assert len(ours) == 1 and f"complex op {named}" in ours[0], ours


def _same_values_and_zero_signs(got, want) -> bool:
    """Equal values, NaN where eager's, and the sign of every zero eager's (of every number)."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if not want.dtype.is_floating_point:
        return torch.equal(got, want)
    number = ~torch.isnan(want)  # (a NaN's sign bit is no value eager promises)
    return (torch.equal(torch.isnan(got), torch.isnan(want)) and torch.equal(got[number], want[number])
            and torch.equal(torch.signbit(got[number]), torch.signbit(want[number])))


_FLOATS = (torch.tensor([1.0, 2.0, 0.5, -1.0, 3.0, 0.3, -0.7, 7.0, 0.0, -0.0, float("nan"), float("inf"), -2.5, 1e-30,
                         1e10, -1e10, -1.0, 5.5]),
           torch.tensor([0.1, -0.1, 0.0, -0.0, 3.0, -0.3, 0.7, float("inf"), 0.5, 0.5, 1.0, 2.0, -1.0, -1.0, 0.1, 0.7,
                         0.5, -1.5]))
_INTS = torch.tensor([-7046029254386353131, 7046029254386353131, 2 ** 62 + 12345, -2 ** 62 - 977 * 5 - 3, 123, -5,
                      -2 ** 63, 2 ** 63 - 1, 0, 977, -977, 2 ** 53 + 1])


def _float_divisions(x, y):
    return (x // y, x // 0.1, torch.floor_divide(x, -0.7), torch.div(x, 0.1, rounding_mode="floor"),
            torch.div(x, y, rounding_mode="trunc"), torch.fmod(x, y), torch.fmod(x, 0.1), torch.remainder(x, 0.1),
            torch.round(x * 0.3, decimals=1), torch.round(x, decimals=-1))


def _int_divisions(h):
    return (h // -977, h // 977, h // 12, h // -1024, h // 1, torch.div(h, 977, rounding_mode="floor"),
            torch.div(h, -12, rounding_mode="trunc"), torch.div(h, 7, rounding_mode="trunc"), torch.fmod(h, 977),
            torch.fmod(h, -12), torch.remainder(h, 4096))


@pytest.mark.parametrize("fn, args", [(_float_divisions, _FLOATS), (_int_divisions, (_INTS,)),
                                      (_int_divisions, ((_INTS % 100003).to(torch.int32),)),
                                      (_int_divisions, ((_INTS % 1001 - 500).to(torch.int16),))],
                         ids=["float32", "int64", "int32", "int16"])
def test_floor_division_fmod_and_round_decimals_follow_eager_as_kernels(fn, args):
    """torch-mlir lowers a float floor division as floor(a / b) (1.0 // 0.1 gave 10, eager's Python
    // gives 9), an integer one through f64 (a 64-bit hash // -977 off by one), a float fmod as
    a - b * trunc(a / b) (fmod(1, 0.1) gave 0, fmod(7, inf) NaN), and does not take round(x,
    decimals): torch_exact's decompositions give eager's results bit for bit, as kernels
    (section 70)."""
    rec = Recorder()
    compiled = torch.compile(fn, backend=rec)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        got, want = compiled(*args), fn(*args)
    assert _kernels_only(rec)
    for k, (g, w) in enumerate(zip(got, want)):
        assert _same_values_and_zero_signs(g, w), (k, g, w)


def _fmod_family(x, y):
    return (torch.fmod(x, y), torch.remainder(x, y), torch.floor_divide(x, y), torch.fmod(x, 0.1),
            torch.remainder(x, -1.5), torch.floor_divide(x, 1e-30), torch.fmod(x, 3e-45))


def _hard_fmod_pairs(n: int = 4096):
    """Float32 pairs where an exact fmod is hard: x next to k y (k up to 2^30, 0..2 ulp off), |x| up
    to FLT_MAX over subnormal y, random bit patterns (NaN and inf among them), zeros, infinities."""
    import numpy as np

    rng = np.random.default_rng(78)
    y = rng.integers(1, 0x7F000000, n, dtype=np.uint32).view(np.float32)
    k = np.floor(2.0 ** rng.uniform(0, 30, n))
    with np.errstate(over="ignore"):
        near = (k * y.astype(np.float64)).astype(np.float32).view(np.uint32).astype(np.int64)
    x = (near + rng.integers(-2, 3, n)).astype(np.uint32)
    third = n // 3
    x[:third] = rng.integers(0x60000000, 0x7F800000, third, dtype=np.uint32)
    y[:third] = rng.integers(1, 0x00800000, third, dtype=np.uint32).view(np.float32)
    x[third:2 * third] = rng.integers(0, 2 ** 32, third, dtype=np.uint32)
    xs = np.concatenate([x.view(np.float32), np.float32([0.0, -0.0, np.inf, -np.inf, 7.0, -7.0, 1.0, 5.5])])
    ys = np.concatenate([y, np.float32([1.5, -1.5, 2.0, 0.5, np.inf, 0.0, 0.1, -0.0])])
    sign = rng.integers(0, 2, len(xs)).astype(bool)
    return torch.from_numpy(np.where(sign, -xs, xs)), torch.from_numpy(ys)


def test_fmod_remainder_and_floor_divide_on_hard_pairs_are_cs_fmod_as_kernels():
    """Their arith.remf runs as section 78's exact reduction in vector ops (a fmodf call per
    element before): C's fmod bit for bit, zero signs included, on pairs where the quotient is
    near an integer, far beyond 2^24, or the divisor subnormal. The reference is eager on 8
    elements at a time: its scalar loop calls C's fmod. Eager's AVX2 loop (16 elements and more)
    divides: NaN wherever x / y overflows (1550 of these 4104 pairs), other values where the
    quotient passes 2^24 (fmod(x, 0.1): 153, fmod(x, 3e-45): 3008); the kernel keeps C's."""
    import numpy as np

    x, y = _hard_fmod_pairs()
    rec = Recorder()
    compiled = torch.compile(_fmod_family, backend=rec)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error", LoopoptFallbackWarning)
        got = compiled(x, y)
        chunks = [_fmod_family(x[i:i + 8], y[i:i + 8]) for i in range(0, len(x), 8)]
    assert _kernels_only(rec)
    for k, g in enumerate(got):
        w = torch.cat([c[k] for c in chunks])
        assert _same_values_and_zero_signs(g, w), (k, (g != w).nonzero()[:4], g, w)
    with np.errstate(invalid="ignore"):
        c_fmod = torch.from_numpy(np.fmod(x.numpy(), y.numpy()))
    assert _same_values_and_zero_signs(got[0], c_fmod)


def test_floor_division_decompositions_are_eagers_on_every_value():
    """The decompositions themselves, run eagerly, against eager's ops: every int8 dividend by every
    nonzero int8 divisor, random int64 over the whole range by divisors of both signs, odd, even
    and powers of two, and floats of a grid of halves and tenths by numbers and by tensors."""
    from loopopt.runtime import torch_exact as te

    a8 = torch.arange(-128, 128, dtype=torch.int8)
    for b in [d for d in range(-128, 128) if d]:
        assert torch.equal(te.floor_divide(a8, b), a8 // b), b
        assert torch.equal(te._div_mode(a8, b, rounding_mode="trunc"), torch.div(a8, b, rounding_mode="trunc")), b
        assert torch.equal(te.fmod(a8, b), torch.fmod(a8, b)), b
    g = torch.Generator().manual_seed(0)
    a64 = torch.cat([torch.randint(-2 ** 63, 2 ** 63 - 1, (4096,), generator=g), _INTS])
    for b in (1, -1, 2, -2, 3, -977, 977, 12, -12, 1024, -1024, 2 ** 40 + 1, -(2 ** 62), 2 ** 63 - 1):
        assert torch.equal(te.floor_divide(a64, b), a64 // b), b
        assert torch.equal(te.fmod(a64, b), torch.fmod(a64, b)), b
    x = torch.cat([torch.arange(-400, 401) / 10, torch.arange(-400, 401) / 2, _FLOATS[0]])
    for b in (0.1, -0.1, 0.3, 1.5, -0.7, 2.0, 1e-3, float("inf")):
        assert _same_values_and_zero_signs(te.floor_divide(x, b), x // b), b
        assert _same_values_and_zero_signs(te.fmod(x, b), torch.fmod(x, b)), b
        assert _same_values_and_zero_signs(te.floor_divide(x, torch.full_like(x, b)), x // torch.full_like(x, b)), b
    for d in (-2, -1, 0, 1, 2, 3):
        assert _same_values_and_zero_signs(te.round_decimals(x * 0.37, decimals=d), torch.round(x * 0.37, decimals=d)), d


@pytest.mark.parametrize("bias, lead", [(True, (256,)), (False, (2, 7))])
def test_bilinear_is_a_matrix_product_not_a_broadcast(bias, lead):
    """nn.Bilinear: torch-mlir's lowering of aten._trilinear materialised the n x o x i x j broadcast
    product (8x eager's time on 256 pairs of 64 and 48 into 64); torch_exact's bilinear is one matrix
    product of x2 by the weight as it lies and a row-wise dot with x1 (section 70). Eager's values,
    as a kernel with no 4-D tensor in its linalg."""
    from loopopt.runtime import torch_backend as tb

    torch.manual_seed(0)
    model = torch.nn.Bilinear(64, 48, 32, bias=bias).eval()
    a, b = torch.rand(*lead, 64), torch.rand(*lead, 48)
    texts = []
    to_linalg = tb.to_linalg

    def keeping(*args, **kwargs):
        texts.append(to_linalg(*args, **kwargs))
        return texts[-1]

    rec = Recorder()
    with pytest.MonkeyPatch.context() as mp, warnings.catch_warnings(), torch.no_grad():
        mp.setattr(tb, "to_linalg", keeping)
        warnings.simplefilter("error", LoopoptFallbackWarning)
        got, want = torch.compile(model, backend=rec)(a, b), model(a, b)
    assert _kernels_only(rec) and got.shape == want.shape
    assert relative_error(got, want) <= 1e-5
    assert texts and not any("x64x64x48x" in t or "x32x64x48x" in t for t in texts), "the broadcast product is back"


@pytest.mark.parametrize("fn, make, op", [
    (lambda x: torch.nn.functional.pad(x, (-1, 2, 1, -2), value=0.5), lambda: torch.rand(1, 4, 10, 10), "aten.pad"),
    (lambda c: torch.nn.functional.fold(c, (10, 10), 3, padding=1, stride=2),
     lambda: torch.nn.functional.unfold(torch.rand(1, 4, 10, 10), 3, padding=1, stride=2), "aten.col2im")])
def test_negative_pads_and_a_padded_fold_run_eagerly_naming_the_op(fn, make, op):
    """A pad by a negative amount and F.fold with padding: torch-mlir lowers each to slices of
    negative offsets, which bufferization refused (the one warning quoted it, not the op). Eager's
    result, with one warning naming the op (section 70)."""
    x = make()
    with warnings.catch_warnings(record=True) as caught, torch.no_grad():
        warnings.simplefilter("always")
        got = torch.compile(fn, backend=loopopt.torch_backend)(x)
    assert torch.equal(got, fn(x))
    ours = [str(w.message) for w in caught if issubclass(w.category, LoopoptFallbackWarning)]
    assert len(ours) == 1 and f"(op {op}" in ours[0] and "negative offset" in ours[0], ours


def test_a_fold_without_padding_and_a_positive_pad_run_as_kernels():
    """negative_offsets sends only a negative pad or a padded fold to eager."""
    x = torch.rand(1, 4, 9, 9)
    cols = torch.nn.functional.unfold(x, 3, stride=2)
    for fn, arg in [(lambda c: torch.nn.functional.fold(c, (9, 9), 3, stride=2), cols),
                    (lambda t: torch.nn.functional.pad(t, (1, 2, 0, 3), value=0.5), x)]:
        torch._dynamo.reset()
        rec = Recorder()
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("error", LoopoptFallbackWarning)
            got = torch.compile(fn, backend=rec)(arg)
        assert _kernels_only(rec) and relative_error(got, fn(arg)) <= 1e-6
