"""An adversarial sweep of loopopt.torch_backend: small PyTorch functions and modules on the
corners of aliasing and semantics, each run through `torch.compile(..., backend=loopopt.torch_backend)`
and eagerly on inputs made alike, compared on what a caller could observe:

- the outputs: type, dtype, shape, values (floats to a tolerance, NaN, inf and the sign of zero
  exactly; integers and bools exactly), strides where eager's output is not contiguous (a failure in
  the cases marked strides=True, a note elsewhere: eager's are not promised), `is_inference`;
- aliasing: which outputs share memory with which inputs and with each other (a caller's later
  in-place op on an output would see it) must be eager's;
- the inputs after the call (the update of an input must be exactly eager's);
- exceptions: eager's type or none; warnings: at most one LoopoptFallbackWarning per reason.

    PYTHONPATH=$PWD /work/venv-torch/bin/python tests/torch_sweep.py [NAME...]

prints one line per case (pass / FAIL: what differs) and whether the compiled side ran eagerly.
tests/test_runtime_torch.py runs the table under `-m long` (test_the_adversarial_sweep).
"""
from __future__ import annotations

import copy
import math
import sys
import threading
import warnings
from dataclasses import dataclass, field
from typing import Callable

import torch

RTOL = 1e-4


@dataclass
class Case:
    """`fn` called on `make(seed)`'s argument tuples in turn (one call each), under `mode`
    ("no_grad", "inference", "grad"); `script` instead runs its own steps on (fn, state) and
    returns what it observed. `module`: fn is a factory of a module (one per side)."""
    name: str
    fn: Callable
    make: Callable = None  # seed -> list of argument tuples, one per call
    mode: str = "no_grad"
    dynamic: bool | None = None
    module: bool = False
    script: Callable | None = None  # (f, seed) -> list of observations
    known: str = ""  # a difference left (docs/runtime.md, "Adversarial sweep"): reported, not failed
    strides: bool = False  # eager's strides are expected (a failure, not a note, when they differ)
    options: dict | None = None  # torch.compile(..., options=): the backend's options


def _r(*shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return (torch.rand(*shape, generator=g, dtype=torch.float64) * 4 - 2).to(dtype)
    if dtype is torch.bool:
        return torch.rand(*shape, generator=g) > 0.5
    return torch.randint(-9, 10, shape, generator=g, dtype=dtype)


def one(*makers):
    """make for one call: each maker is seed -> tensor (or a value)."""
    return lambda seed: [tuple(m(seed) if callable(m) else m for m in makers)]


def calls(*maker_lists):
    return lambda seed: [tuple(m(seed) if callable(m) else m for m in ms) for ms in maker_lists]


def t(*shape, dtype=torch.float32):
    return lambda seed: _r(*shape, dtype=dtype, seed=seed)


def const(values, dtype=torch.float32):
    return lambda seed: torch.tensor(values, dtype=dtype)


# ---- the functions -------------------------------------------------------------------------

def _special():
    return torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1.5, -2.5, 3.0])


def _special_rev():
    return torch.tensor([1.0, float("nan"), -0.0, 0.0, -float("inf"), 2.0, float("nan"), -0.0])


class BNTrain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.bn = torch.nn.BatchNorm1d(4)

    def forward(self, x):
        return self.bn(x) * 2


class Lin(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.fc(x))


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(()))
        self.register_buffer("acc", torch.zeros(4))

    def forward(self, x):
        self.count += 1
        self.acc.add_(x.sum(0))
        return x * 2


def _weights_script(update):
    """A Linear compiled, called, its weights changed by `update`, called again."""
    def script(f_of, seed):
        m = Lin().eval()
        f = f_of(m)
        x = _r(2, 4, seed=seed)
        obs = [f(x)]
        update(m)
        obs.append(f(x))
        obs.append(f(x))
        return obs, (m.fc.weight.detach().clone(), m.fc.bias.detach().clone())
    return script


def _w_add(m):
    m.fc.weight.add_(1.0)


def _w_data_mul(m):
    m.fc.weight.data.mul_(2.0)  # .data: a tensor with its own version counter


def _w_data_copy(m):
    m.fc.bias.data.copy_(torch.full((3,), 5.0))


def _w_replaced(m):
    m.fc.weight = torch.nn.Parameter(torch.ones(3, 4))


def _w_load_state(m):
    m.load_state_dict({"fc.weight": torch.full((3, 4), 0.5), "fc.bias": torch.zeros(3)})


def _w_detach_update(m):
    m.fc.weight.detach().mul_(3.0)  # detach(): shares the version counter


def _inference_model_script(f_of, seed):
    """Parameters made under inference_mode (inference tensors: no version counter), one
    updated in place between calls."""
    m = Lin().eval()
    f = f_of(m)
    x = _r(2, 4, seed=seed)
    obs = [f(x)]
    m.fc.weight.mul_(2.0)
    obs.append(f(x))
    return obs, (m.fc.weight.detach().clone(),)


def _threads_script(f_of, seed):
    f = f_of(lambda x: torch.tanh(x) * 3 + x)
    xs = [_r(64, 32, seed=seed + i) for i in range(8)]
    f(xs[0])
    results = [None] * len(xs)

    def work(i):
        for _ in range(20):
            results[i] = f(xs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(xs))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return results, tuple(xs)


def _rand_script(f_of, seed):
    f = f_of(lambda x: x + torch.rand(x.shape))
    x = torch.zeros(64)
    torch.manual_seed(seed)
    a, b = f(x), f(x)
    # not frozen: two calls differ; in [0, 1)
    return [torch.tensor([bool((a != b).any()), bool((a >= 0).all() and (a < 1).all())])], (x,)


def _dynamic_sizes_script(fn, sizes, extra=(), shape=(3,)):
    def script(f_of, seed):
        f = f_of(fn)
        return [f(_r(n, *shape, seed=seed + n), *extra) for n in sizes], ()
    return script


def _half_of_dim1(x):
    return x[:, : x.shape[1] // 2], x + 1


def _flat_per_row(x):
    return x.view(x.shape[0], -1), x * 2


def _overlapping_halves(x):
    y = x * 2 + 1
    n = x.shape[0]
    return y[: n // 2 + 1], y[n // 2 - 1:]


def _view_of_result_and_result(x):
    y = torch.relu(x - 0.5)
    return y.view(x.shape[0], -1)[:, 1:], y


def _inplace_on_view_of_result(x):
    y = x * 2
    return y, y.view(-1).mul_(2)


def _unsqueeze_view_in_place(x):
    y = x * 2
    v = y[0]
    v.unsqueeze_(0)
    return y, v


def _t_in_place_after_view(x):
    y = x * 2
    v = y[0]
    y.t_()
    return y, v


class ConvCL(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        return self.conv(x), torch.sigmoid(x * 2)


def _channels_last(*shape):
    return lambda s: _r(*shape, seed=s).to(memory_format=torch.channels_last)


def _conv_cl_dynamic_script(f_of, seed):
    f = f_of(ConvCL().eval())
    return [f(_channels_last(n, 3, 5, 6)(seed + n)) for n in (2, 3, 5)], ()


class ResidualCL(torch.nn.Module):
    """A channels_last block whose input also reaches the result by a pointwise path (the add)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = torch.nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x) + x)


def _cl_dynamic_script(fn, n_inputs=1):
    def script(f_of, seed):
        f = f_of(fn)
        return [f(*[_channels_last(n, 3, 5, 6)(seed + n + 10 * k) for k in range(n_inputs)]) for n in (2, 3, 5)], ()
    return script


def _mixed_layouts(x, y):
    return x + y, y * x, torch.sigmoid(x) - y


def _nhwc_flat_of_result(x):
    return (x * 2).permute(0, 2, 3, 1).reshape(x.shape[0], -1), x - 1


def _cl_in_place_on_made(x):
    y = x * 2
    y.add_(1)
    return y, y.relu()


def _cl_view_of_input_and_math(x):
    return x.permute(0, 2, 3, 1), torch.tanh(x)


def _cl_views_of_result(x):
    y = torch.sigmoid(x)
    return y, y[:, 1:], y.permute(0, 2, 3, 1)


def _cl_views_of_hidden_base(x):
    y = x * 2
    return y[:, :1], y[:, 1:]


def _graph_break(x):
    y = x * 2
    torch._dynamo.graph_break()
    return y + 1, x.sum()


def _out_arg(x, out):
    torch.add(x, 1, out=out)
    return out * 2


def _out_arg_graph(x):
    buf = torch.empty_like(x)
    torch.mul(x, 3, out=buf)
    return buf + 1


def _view_update(x):
    x[1:].mul_(2)
    return x.sum()


def _setitem_input(x):
    x[0] = 7.0
    return x * 1


def _inplace_input(x):
    x.add_(1)
    return x * 2


def _inplace_return_input(x):
    x.mul_(2)
    return x


def _copy_into(x, y):
    y.copy_(x * 2)
    return y.sum()


def _resize(x):
    y = x.clone()
    y.t_()
    return y + 0


def _int_math(a, b):
    return a // b, a % b, torch.div(a, b, rounding_mode="trunc"), torch.fmod(a, b), torch.remainder(a, b)


def _int_div_true(a, b):
    return a / b


def _noncontig_inplace(x):
    y = x.t().clone()
    y.add_(1)
    return y


def _shared_storage_inputs(x, y):
    return x + y


def _contiguous(x):
    return x.contiguous()


def _contig_and_math(x):
    return x.contiguous(), x + 1


def _reshape_contig(x):
    return x.reshape(-1), x * 2


def _expand_out(x):
    return x.expand(3, 4), x + 1


def _detach_out(x):
    return x.detach(), x * 2


def _to_same(x):
    return x.to(torch.float32), x * 2


def _clone_out(x):
    return x.clone()


def _two_equal_exprs(x):
    return x + 1, x + 1


def _out_and_view(x):
    y = x * 2
    return y, y.view(-1)


def _overlapping_views(x):
    y = x * 2
    return y[:2], y[1:]


def _disjoint_views(x):
    y = x * 2
    return y[0], y[1:]


def _out_twice(x):
    y = x * 2
    return y, y


def _int_overflow(a):
    return a * 1000000, a + 2147483000, (a * 3).to(torch.int8)


def _float_to_int(x):
    return x.to(torch.int32), x.to(torch.int64), x.round(), x.trunc(), x.floor()


def _bool_ops(a, b):
    return a & b, a | b, a ^ b, ~a, a.sum(), torch.where(a, 1, 2)


def _scalar_arg(x, s):
    return x * s + s


def _int_scalar_arg(x, n):
    return x + n, x.reshape(n, -1)


def _cat_empty(x, e):
    return torch.cat([x, e], 0), e.sum(0), e.amax(0) if e.shape[0] else e.sum(0)


def _reduce_empty(e):
    return e.sum(), e.prod(), e.mean()


def _mean_int(a):
    return a.sum(), a.float().mean(), a.max()


def _cumsum_like(x):
    return x.argmax(), x.argmin(), torch.max(x, 0).values


def _softmax_inf(x):
    return torch.softmax(x, -1), torch.log_softmax(x, -1)


def _clamp_nan(x):
    return x.clamp(-1, 1), torch.clamp(x, min=0), torch.nan_to_num(x), torch.nn.functional.relu6(x), \
        x.clamp(max=-0.5)


def _clamp_int(a):
    return a.clamp(min=0.5), a.clamp(-3, 4), a.clamp(min=torch.tensor(1.5)), torch.relu(a)


def _minmax(x, y):
    return torch.maximum(x, y), torch.minimum(x, y), torch.fmax(x, y), torch.fmin(x, y), x.max(), x.min(), \
        x.amax(), x.amin()


def _relu_sign(x):
    return torch.relu(x), torch.sign(x), torch.abs(x), -x, torch.nn.functional.silu(x), torch.sigmoid(x), x * 0, \
        torch.where(x > 0, x, 0.0), torch.nn.functional.leaky_relu(x), torch.nn.functional.hardtanh(x)


def _where_scalar(x):
    return torch.where(x > 0, x, -0.0)


def _pow_sqrt(x):
    return torch.sqrt(x), torch.rsqrt(x), x ** 2, x ** 0.5, torch.exp(x), torch.log(x), torch.tanh(x), 1 / x


def _float_eq(x, y):
    return x == y, x < y, x != y, torch.isnan(x), torch.isinf(x)


def _half_ops(x):
    return x * 2 + 1, x.sum(), x.float()


def _to_half(x):
    return x.half(), x.to(torch.bfloat16), x.double() * 2


def _bcast(x, y, z):
    return x + y * z


def _bcast_inplace_graph(x, y):
    z = x.clone()
    z += y
    return z


def _zero_d(a, b):
    return a + b, a * 2, (a > 0)


def _zero_d_mixed(x, a):
    return x * a, a + 1


def _matmul_bcast(x, w):
    return x @ w


def _index(x, i):
    return x[i], x.index_select(0, i), torch.gather(x, 1, i.view(-1, 1).expand(-1, 2))


def _bool_mask_index(x):
    return x.masked_fill(x > 0, 0.0), x * (x > 0)


def _arange_dtype(x):
    return torch.arange(x.shape[0]) + x.long(), torch.arange(0, 1, 0.25) + x[:4].float()


def _full_int(x):
    return torch.full(x.shape, 3) * x, torch.ones_like(x, dtype=torch.int32) + x.int()


def _input_returned_and_math(x):
    return x, x + 1


def _view_t(x):
    return x.t(), x * 2


def _view_slice(x):
    return x[1:], x * 2


def _view_view(x):
    return x.view(2, 6), x + 1


def _view_only(x):
    return x.view(-1)


def _view_of_view_math(x, y):
    return x.unsqueeze(0), y.squeeze(), x + y


def _permute_out(x):
    return (x * 2).permute(2, 0, 1)


def _t_out(x):
    return (x + 1).t()


def _strided_slice_out(x):
    return (x * 3)[:, ::2]


def _div_zero_int(a, b):
    return a // b


def _mod_zero_int(a, b):
    return a % b


def _div_zero_float(x, y):
    return x / y, x // y, x % y


def _float_floordiv(x, y):
    return x // y, x % y, torch.fmod(x, y), torch.remainder(x, y)


def _int_pow(a):
    return a ** 2, a.pow(3), torch.abs(a), -a, torch.sign(a)


def _int_min_abs(a):
    return torch.abs(a), -a, a // -1


def _cast_nan_int(x):
    return x.to(torch.int64)


def _compare_dtype(a, x):
    return a + x, a * 2.5, a / 2


def _bitshift(a, b):
    return a << b, a >> b


def _std(x):
    return x.std(), x.var(0), x.std(1, unbiased=False)


def _topk_like(x):
    return x.sort(-1).values


def _item_branch(x):
    if x.sum() > 0:
        return x * 2
    return x * 3


def _dropout_eval(x):
    return torch.nn.functional.dropout(x, 0.5, training=False) + 1


def _dropout_train(x):
    return torch.nn.functional.dropout(x, 0.5, training=True)


def _bn_train_script(f_of, seed):
    m = BNTrain().train()
    f = f_of(m)
    x = _r(6, 4, seed=seed)
    out = [f(x), f(x * 2)]
    return out, (m.bn.running_mean.clone(), m.bn.running_var.clone(), m.bn.num_batches_tracked.clone())


def _buffer_update_script(f_of, seed):
    m = Counter()
    f = f_of(m)
    x = _r(3, 4, seed=seed)
    out = [f(x), f(x)]
    return out, (m.count.clone(), m.acc.clone())


def _no_grad_vs_inference_script(mode):
    def script(f_of, seed):
        f = f_of(lambda x: (x * 2).relu())
        x = _r(3, 4, seed=seed)
        ctx = torch.inference_mode() if mode == "inference" else torch.no_grad()
        with ctx:
            y = f(x)
        y.add_(1)  # the caller's later in-place op, outside the mode
        return [y], (x,)
    return script


def _caller_inplace_script(fn, update):
    """The caller updates an output in place after the call: aliasing with inputs is observed."""
    def script(f_of, seed):
        f = f_of(fn)
        x = _r(3, 4, seed=seed)
        got = f(x)
        outs = got if isinstance(got, tuple) else (got,)
        update(outs)
        return list(outs), (x,)
    return script


def _add1_first(outs):
    outs[0].add_(1)


CASES = [
    # aliasing of outputs with inputs and with each other
    Case("return_input_unchanged", lambda x: x, one(t(3, 4))),
    Case("return_input_and_math", _input_returned_and_math, one(t(3, 4))),
    Case("return_view_t", _view_t, one(t(3, 4))),
    Case("return_view_slice", _view_slice, one(t(3, 4))),
    Case("return_view_view", _view_view, one(t(3, 4))),
    Case("return_view_only", _view_only, one(t(3, 4))),
    Case("return_unsqueeze_squeeze_and_math", _view_of_view_math, one(t(3, 4), t(3, 4))),
    Case("return_contiguous_of_contiguous", _contiguous, one(t(3, 4))),
    Case("return_contiguous_and_math", _contig_and_math, one(t(3, 4))),
    Case("return_reshape_and_math", _reshape_contig, one(t(3, 4))),
    Case("return_expand_and_math", _expand_out, one(t(1, 4))),
    Case("return_detach_and_math", _detach_out, one(t(3, 4))),
    Case("return_to_same_dtype_and_math", _to_same, one(t(3, 4))),
    Case("return_clone", _clone_out, one(t(3, 4))),
    Case("return_same_tensor_twice", _out_twice, one(t(3, 4))),
    Case("return_output_and_its_view", _out_and_view, one(t(3, 4))),
    Case("return_two_equal_exprs", _two_equal_exprs, one(t(3, 4))),
    Case("return_permuted_result", _permute_out, one(t(2, 3, 4))),
    Case("return_transposed_result", _t_out, one(t(3, 4))),
    Case("return_strided_slice_of_result", _strided_slice_out, one(t(3, 4))),
    Case("return_overlapping_views_of_a_temporary", _overlapping_views, one(t(3, 4))),
    Case("return_disjoint_views_of_a_temporary", _disjoint_views, one(t(3, 4))),
    Case("return_view_dynamic", None, dynamic=True,
         script=_dynamic_sizes_script(lambda x: (x.t(), x[1:], x + 1), [3, 1, 0, 4])),
    Case("return_view_dynamic_derived_size", None, dynamic=True, strides=True,
         script=_dynamic_sizes_script(_half_of_dim1, [4, 7, 5], shape=(6,))),
    Case("return_view_dynamic_flat_per_row", None, dynamic=True, strides=True,
         script=_dynamic_sizes_script(_flat_per_row, [4, 7], shape=(6, 2))),
    Case("return_overlapping_views_dynamic", None, dynamic=True, strides=True,
         script=_dynamic_sizes_script(_overlapping_halves, [4, 7, 5], shape=(3,))),
    Case("return_view_of_result_dynamic", None, dynamic=True, strides=True,
         script=_dynamic_sizes_script(_view_of_result_and_result, [4, 7], shape=(3, 2))),
    Case("inplace_on_view_of_returned_result", _inplace_on_view_of_result, one(t(3, 4)), strides=True),
    Case("unsqueeze_in_place_of_a_view", _unsqueeze_view_in_place, one(t(3, 4)), strides=True),
    Case("t_in_place_after_a_view", _t_in_place_after_view, one(t(3, 4)), strides=True),
    Case("caller_updates_view_output", _view_t, script=_caller_inplace_script(_view_t, _add1_first)),
    Case("caller_updates_contiguous_output", _contiguous, script=_caller_inplace_script(_contiguous, _add1_first)),
    Case("caller_updates_clone_output", _clone_out, script=_caller_inplace_script(_clone_out, _add1_first)),
    # non-contiguous and aliased inputs
    Case("input_transposed", lambda x: x * 2 + 1, one(lambda s: _r(4, 3, seed=s).t())),
    Case("input_sliced", lambda x: x * 2 + 1, one(lambda s: _r(4, 6, seed=s)[1:3, ::2])),
    Case("input_expanded_stride0", lambda x: x * 2 + 1, one(lambda s: _r(1, 4, seed=s).expand(3, 4))),
    Case("input_offset_view", lambda x: x.sum(0), one(lambda s: _r(5, 4, seed=s)[2:])),
    Case("inputs_share_storage", _shared_storage_inputs, lambda s: [(lambda a: (a, a.t()))(_r(3, 3, seed=s))]),
    Case("same_input_twice", _shared_storage_inputs, lambda s: [(lambda a: (a, a))(_r(3, 3, seed=s))]),
    Case("input_channels_last", lambda x: x * 2, one(lambda s: _r(1, 3, 2, 2, seed=s).to(memory_format=torch.channels_last))),
    Case("channels_last_conv_and_math", ConvCL, one(_channels_last(2, 3, 5, 6)), module=True, strides=True),
    Case("channels_last_c1", lambda x: x * 2 + 1, one(_channels_last(2, 1, 3, 4)), strides=True),
    Case("channels_last_dynamic", None, dynamic=True, strides=True, script=_conv_cl_dynamic_script),
    Case("transposed_result_strides", lambda x: ((x * 2).t(), x.permute(1, 0) - 1), one(t(3, 5)), strides=True),
    # channels_last inputs passed as their memory, results written in eager's order (docs/runtime.md)
    Case("channels_last_two_inputs", lambda x, y: torch.sigmoid(x * y + 1), one(_channels_last(2, 3, 5, 6),
                                                                                 _channels_last(2, 3, 5, 6)), strides=True),
    Case("channels_last_mixed_layouts", _mixed_layouts, one(_channels_last(2, 3, 5, 6), t(2, 3, 5, 6)), strides=True),
    Case("channels_last_broadcast_bias", lambda x, b: x * 2 + b, one(_channels_last(2, 3, 5, 6), t(3, 1, 1)),
         strides=True),
    Case("channels_last_residual_block", ResidualCL, one(_channels_last(2, 3, 5, 6)), module=True, strides=True),
    Case("channels_last_nhwc_flat_of_result", _nhwc_flat_of_result, one(_channels_last(2, 3, 5, 6)), strides=True),
    Case("channels_last_in_place_on_made", _cl_in_place_on_made, one(_channels_last(2, 3, 5, 6)), strides=True),
    Case("channels_last_view_of_input", _cl_view_of_input_and_math, one(_channels_last(2, 3, 5, 6)), strides=True),
    Case("channels_last_reduction", lambda x: (x.sum(1), x.mean((2, 3), keepdim=True) * x), one(_channels_last(2, 3, 5, 6)),
         strides=True),
    Case("channels_last_layout_changes", lambda x: torch.sigmoid(x * 2), calls(
        [_channels_last(2, 3, 5, 6)], [t(2, 3, 5, 6)], [lambda s: _r(2, 3, 6, 5, seed=s).transpose(2, 3)],
        [_channels_last(2, 3, 5, 6)]), strides=True),
    Case("channels_last_strided_input", lambda x: x * 2 + 1, one(lambda s: _channels_last(2, 3, 5, 8)(s)[..., ::2]),
         strides=True),
    Case("channels_last_expanded_input", lambda x: x * 2 + 1, one(lambda s: _r(1, 3, 1, 1, seed=s).expand(2, 3, 4, 5)
                                                                  .contiguous(memory_format=torch.channels_last)[:1]
                                                                  .expand(2, 3, 4, 5))),
    Case("channels_last_views_of_result", _cl_views_of_result, one(_channels_last(2, 3, 5, 6)), strides=True),
    Case("channels_last_views_of_hidden_base", _cl_views_of_hidden_base, one(_channels_last(2, 3, 5, 6)), strides=True),
    Case("channels_last_dynamic_math", None, dynamic=True, strides=True,
         script=_cl_dynamic_script(lambda x: torch.sigmoid(x * 2 + 1))),
    Case("channels_last_dynamic_two_inputs", None, dynamic=True, strides=True,
         script=_cl_dynamic_script(lambda x, y: x * y - x, 2)),
    # zero-size and 0-d
    Case("zero_size_dim", lambda x: x * 2 + 1, one(t(0, 4))),
    Case("zero_size_cat", _cat_empty, one(t(2, 3), t(0, 3))),
    Case("zero_size_reduce", _reduce_empty, one(t(0, 3))),
    Case("zero_d_inputs", _zero_d, one(lambda s: torch.tensor(1.5), lambda s: torch.tensor(-2.0))),
    Case("zero_d_with_tensor", _zero_d_mixed, one(t(3), lambda s: torch.tensor(2.5))),
    Case("zero_d_int", _zero_d, one(lambda s: torch.tensor(3), lambda s: torch.tensor(-7))),
    # dtypes
    Case("int32_math", _int_math, one(lambda s: torch.tensor([-7, 7, -8, 8, 0, -1], dtype=torch.int32),
                                      lambda s: torch.tensor([2, -2, 3, -3, 5, 2], dtype=torch.int32))),
    Case("int64_math", _int_math, one(lambda s: torch.tensor([-7, 7, -8, 8, 0, -1]),
                                      lambda s: torch.tensor([2, -2, 3, -3, 5, 2]))),
    Case("int_true_div", _int_div_true, one(lambda s: torch.tensor([-7, 7, 1]), lambda s: torch.tensor([2, -2, 3]))),
    Case("int_div_by_zero", _div_zero_int, one(lambda s: torch.tensor([1, 2]), lambda s: torch.tensor([1, 0]))),
    Case("int_mod_by_zero", _mod_zero_int, one(lambda s: torch.tensor([1, 2]), lambda s: torch.tensor([1, 0]))),
    Case("int_overflow", _int_overflow, one(lambda s: torch.tensor([3000, -3000, 100], dtype=torch.int32))),
    Case("int_pow_abs_sign", _int_pow, one(t(6, dtype=torch.int64))),
    Case("int_min_abs_neg", _int_min_abs, one(lambda s: torch.tensor([-2**31, 2**31 - 1, 0, -5], dtype=torch.int32))),
    Case("int_shift", _bitshift, one(lambda s: torch.tensor([1, -8, 5]), lambda s: torch.tensor([1, 2, 3]))),
    Case("int_sum_max", _mean_int, one(t(5, dtype=torch.int32))),
    Case("int_plus_float", _compare_dtype, one(t(4, dtype=torch.int32), t(4))),
    Case("bool_ops", _bool_ops, one(t(6, dtype=torch.bool), t(6, dtype=torch.bool))),
    Case("float_to_int", _float_to_int, one(const([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7, -2.7]))),
    Case("float_nan_to_int", _cast_nan_int, one(const([float("nan"), float("inf"), 1e20, -1e20]))),
    Case("float64", lambda x: (x * 1e-200 * 1e-200, x.sum()), one(t(4, dtype=torch.float64))),
    Case("float16", _half_ops, one(t(4, dtype=torch.float16))),
    Case("bfloat16", _half_ops, one(t(4, dtype=torch.bfloat16))),
    Case("to_half_bf16_double", _to_half, one(t(4))),
    Case("float_floordiv_mod", _float_floordiv, one(const([-7.5, 7.5, -7.5, 7.5, 5.0]), const([2.0, -2.0, -2.0, 2.0, -2.5]))),
    Case("float_div_zero", _div_zero_float, one(const([1.0, -1.0, 0.0, -0.0]), const([0.0, 0.0, 0.0, -0.0]))),
    # NaN / inf / -0
    Case("nan_min_max", _minmax, one(lambda s: _special(), lambda s: _special_rev())),
    Case("relu_sign_neg_zero", _relu_sign, one(lambda s: _special())),
    Case("gelu_special", lambda x: torch.nn.functional.gelu(x), one(lambda s: _special()),
         known="eager's gelu(inf) is NaN (its vectorized erf), the kernel's inf"),
    Case("where_neg_zero", _where_scalar, one(lambda s: _special())),
    Case("clamp_nan", _clamp_nan, one(lambda s: _special())),
    Case("clamp_int_result_type", _clamp_int, one(t(6, dtype=torch.int64))),
    Case("pow_sqrt_special", _pow_sqrt, one(lambda s: _special())),
    Case("float_compare_nan", _float_eq, one(lambda s: _special(), lambda s: _special_rev())),
    Case("argmax_nan", _cumsum_like, one(lambda s: torch.tensor([[1.0, float("nan")], [3.0, 2.0]]))),
    Case("argmax_ties", lambda x: (x.argmax(), x.argmin(-1)), one(const([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]))),
    Case("softmax_inf", _softmax_inf, one(const([[float("-inf"), 0.0, 1.0], [float("-inf")] * 3]))),
    Case("std_var", _std, one(t(3, 4))),
    # broadcasting
    Case("broadcast_three", _bcast, one(t(3, 1), t(1, 4), t(4))),
    Case("broadcast_inplace_graph", _bcast_inplace_graph, one(t(3, 4), t(4))),
    Case("broadcast_matmul", _matmul_bcast, one(t(2, 3, 4), t(4, 5))),
    Case("index_gather", _index, one(t(4, 3), lambda s: torch.tensor([2, 0, 2]))),
    Case("index_out_of_range", _index, one(t(4, 3), lambda s: torch.tensor([3, 0, 3]))),
    Case("masked_fill", _bool_mask_index, one(t(3, 4))),
    Case("arange_dtype", _arange_dtype, one(t(4, dtype=torch.int32))),
    Case("full_int", _full_int, one(t(2, 3, dtype=torch.int32))),
    # in-place
    Case("inplace_on_input", _inplace_input, one(t(3, 4))),
    Case("inplace_return_input", _inplace_return_input, one(t(3, 4))),
    Case("setitem_on_input", _setitem_input, one(t(3, 4))),
    Case("inplace_through_view_of_input", _view_update, one(t(3, 4))),
    Case("copy_into_second_input", _copy_into, one(t(3, 4), t(3, 4))),
    Case("out_arg_input", _out_arg, one(t(3, 4), t(3, 4))),
    Case("out_arg_graph_made", _out_arg_graph, one(t(3, 4))),
    Case("inplace_t_on_clone", _resize, one(t(3, 4))),
    Case("inplace_on_noncontig_clone", _noncontig_inplace, one(t(3, 4))),
    # modes and grad
    Case("grad_mode_no_requires_grad", lambda x: x * 2, one(t(3, 4)), mode="grad"),
    Case("grad_mode_requires_grad", lambda x: x * 2,
         one(lambda s: _r(3, 4, seed=s).requires_grad_()), mode="grad"),
    Case("no_grad_requires_grad", lambda x: x * 2, one(lambda s: _r(3, 4, seed=s).requires_grad_())),
    Case("inference_mode", lambda x: (x * 2, x.sum()), one(t(3, 4)), mode="inference"),
    Case("inference_mode_module", Lin, one(t(2, 4)), mode="inference", module=True),
    Case("outputs_updated_after_inference_mode", None, script=_no_grad_vs_inference_script("inference")),
    Case("outputs_updated_after_no_grad", None, script=_no_grad_vs_inference_script("no_grad")),
    # scalars and SymInts
    Case("python_float_arg", _scalar_arg, calls((t(3), 2.5), (t(3), -0.0), (t(3), float("nan")))),
    Case("python_int_arg", _int_scalar_arg, calls((t(2, 6), 3), (t(2, 6), 4), (t(2, 6), 2))),
    Case("python_float_arg_dynamic", _scalar_arg, calls((t(3), 2.5), (t(3), -0.0), (t(3), 7.0)), dynamic=True),
    Case("dynamic_sizes", None, script=_dynamic_sizes_script(lambda x: (x * 2).sum(0) + x.shape[0], [3, 5, 0, 1, 2, 7])),
    Case("dynamic_true_sizes", None, dynamic=True,
         script=_dynamic_sizes_script(lambda x: (x * 2).sum(0) + x.shape[0], [3, 5, 0, 1, 2])),
    Case("dynamic_true_view", None, dynamic=True,
         script=_dynamic_sizes_script(lambda x: (x.view(-1) * 2, x.t() + 1), [3, 1, 0, 4])),
    Case("dynamic_true_mean", None, dynamic=True,
         script=_dynamic_sizes_script(lambda x: x.mean(0) + x.softmax(0), [4, 1, 0, 2])),
    # graph break, random, data-dependent
    Case("graph_break_middle", _graph_break, one(t(3, 4))),
    Case("item_branch", _item_branch, calls((t(3),), (lambda s: -_r(3, seed=s).abs() - 1,))),
    Case("rand_not_frozen", None, script=_rand_script),
    Case("dropout_eval", _dropout_eval, one(t(3, 4))),
    Case("sort", _topk_like, one(t(3, 4))),
    # modules: buffers, weights, threads
    Case("batchnorm_train_running_stats", None, script=_bn_train_script),
    Case("buffer_updated_in_forward", None, script=_buffer_update_script),
    Case("weight_add_inplace", None, script=_weights_script(_w_add)),
    # an update through .data bumps no version counter: seen with freeze_weights="checked" (not the
    # default; docs/runtime.md; before options= reached the backend these ran eagerly or stale)
    Case("weight_data_mul_inplace", None, script=_weights_script(_w_data_mul), options={"freeze_weights": "checked"}),
    Case("bias_data_copy", None, script=_weights_script(_w_data_copy), options={"freeze_weights": "checked"}),
    Case("weight_detach_update", None, script=_weights_script(_w_detach_update)),
    Case("parameter_replaced", None, script=_weights_script(_w_replaced)),
    Case("load_state_dict", None, script=_weights_script(_w_load_state)),
    Case("two_threads", None, script=_threads_script),
    Case("model_made_under_inference_mode", None, script=_inference_model_script, mode="inference"),
]


# ---- the comparison ------------------------------------------------------------------------

def _flat(x) -> list:
    if isinstance(x, (tuple, list)):
        return [y for e in x for y in _flat(e)]
    return [x]


def _storage(tn):
    try:
        return tn.untyped_storage().data_ptr()
    except Exception:
        return None


def _extent(x) -> tuple:
    """The bytes [first, last] a nonempty tensor's elements span in its storage."""
    first = x.storage_offset()
    last = first + sum((n - 1) * st for n, st in zip(x.shape, x.stride()))
    return first * x.element_size(), (last + 1) * x.element_size() - 1


def _overlap(a, b) -> bool:
    """Whether two tensors share memory that a caller's in-place update of one would show in the
    other: the same storage and intersecting spans (disjoint views of one storage, y[0] and y[1:],
    do not count)."""
    if a.numel() == 0 or b.numel() == 0:
        return False
    if _storage(a) != _storage(b) or _storage(a) in (None, 0):
        return False
    (a0, a1), (b0, b1) = _extent(a), _extent(b)
    return a0 <= b1 and b0 <= a1


def _same_values(got, want) -> str:
    if got.dtype != want.dtype:
        return f"dtype {got.dtype} != eager's {want.dtype}"
    if got.shape != want.shape:
        return f"shape {tuple(got.shape)} != eager's {tuple(want.shape)}"
    g, w = got.detach(), want.detach()
    if not w.dtype.is_floating_point and not w.is_complex():
        return "" if torch.equal(g, w) else f"values {g.tolist()} != eager's {w.tolist()}"
    g64, w64 = g.double(), w.double()
    if not torch.equal(torch.isnan(g64), torch.isnan(w64)):
        return f"NaN positions differ: {g.tolist()} vs eager's {w.tolist()}"
    finite = torch.isfinite(w64)
    if not torch.equal(torch.isinf(g64) & ~torch.isnan(g64), torch.isinf(w64)) or \
            not torch.equal(g64[torch.isinf(w64)], w64[torch.isinf(w64)]):
        return f"inf differs: {g.tolist()} vs eager's {w.tolist()}"
    if finite.any():
        tol = {torch.float16: 2e-3, torch.bfloat16: 2e-2}.get(w.dtype, RTOL)
        scale = max(float(w64[finite].abs().max()), 1.0)
        err = float((g64[finite] - w64[finite]).abs().max())
        if err > tol * scale:
            return f"values differ by {err:.3g} (scale {scale:.3g}): {g.tolist()} vs eager's {w.tolist()}"
    return ""


def _zero_signs(x) -> list:
    x = x.detach().double().reshape(-1)
    return [bool(torch.signbit(v)) for v in x if v == 0]


def _aliasing(outs, ins) -> list:
    """For each output: the inputs and earlier outputs it shares memory with (by position), and
    whether it is the very same object."""
    tens = [(i, x) for i, x in enumerate(ins) if isinstance(x, torch.Tensor)]
    table = []
    for k, o in enumerate(outs):
        if not isinstance(o, torch.Tensor):
            table.append(None)
            continue
        table.append((tuple(i for i, x in tens if _overlap(o, x)),
                      tuple(j for j in range(k) if isinstance(outs[j], torch.Tensor) and _overlap(o, outs[j]))))
    return table


@dataclass
class Side:
    outputs: list = field(default_factory=list)  # per call: a flat list of outputs
    inputs: list = field(default_factory=list)  # per call: the arguments after it
    aliasing: list = field(default_factory=list)
    error: BaseException | None = None
    ours: list = field(default_factory=list)  # LoopoptFallbackWarning messages
    others: list = field(default_factory=list)  # other warnings' categories and messages


def _context(mode):
    if mode == "no_grad":
        return torch.no_grad()
    if mode == "inference":
        return torch.inference_mode()
    return torch.enable_grad()


def run_side(case: Case, seed: int, compiled: bool) -> Side:
    import loopopt
    from loopopt.runtime.torch_backend import LoopoptFallbackWarning

    torch._dynamo.reset()
    side = Side()

    def f_of(fn):
        if not compiled:
            return fn
        kw = {} if case.dynamic is None else {"dynamic": case.dynamic}
        if case.options:
            kw["options"] = case.options
        return torch.compile(fn, backend=loopopt.torch_backend, **kw)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if case.script is not None:
                with _context(case.mode):
                    obs, after = case.script(f_of, seed)
                for o in obs:
                    side.outputs.append(_flat(o))
                    side.aliasing.append(_aliasing(_flat(o), after))
                side.inputs.append(list(after))
            else:
                fn = case.fn() if case.module else case.fn
                if case.module:
                    fn.eval()
                f = f_of(fn)
                for args in case.make(seed):
                    with _context(case.mode):
                        got = f(*args)
                    outs = _flat(got)
                    side.outputs.append(outs)
                    side.aliasing.append(_aliasing(outs, args))
                    side.inputs.append([a.detach().clone() if isinstance(a, torch.Tensor) else a for a in args])
        except Exception as e:  # noqa: BLE001 - compared with eager's
            side.error = e
    for w in caught:
        if issubclass(w.category, LoopoptFallbackWarning):
            side.ours.append(str(w.message))
        else:
            side.others.append(f"{w.category.__name__}: {w.message}")
    return side


def compare(case: Case, seed: int = 0) -> tuple[list, list, Side]:
    """(failures, notes, our side) of one case."""
    want = run_side(case, seed, compiled=False)
    got = run_side(case, seed, compiled=True)
    fails, notes = [], []
    if (want.error is None) != (got.error is None) or \
            (want.error is not None and type(want.error) is not type(got.error)):
        fails.append(f"exception {type(got.error).__name__ if got.error else None}: {got.error!s:.200} "
                     f"vs eager's {type(want.error).__name__ if want.error else None}: {want.error!s:.200}")
        return fails, notes, got
    if want.error is not None:
        return fails, notes, got
    if len(got.outputs) != len(want.outputs):
        fails.append(f"{len(got.outputs)} calls observed vs eager's {len(want.outputs)}")
        return fails, notes, got
    for c, (go, wo) in enumerate(zip(got.outputs, want.outputs)):
        if len(go) != len(wo):
            fails.append(f"call {c}: {len(go)} outputs vs eager's {len(wo)}")
            continue
        for k, (g, w) in enumerate(zip(go, wo)):
            if isinstance(w, torch.Tensor) != isinstance(g, torch.Tensor):
                fails.append(f"call {c} output {k}: {type(g).__name__} vs eager's {type(w).__name__}")
                continue
            if not isinstance(w, torch.Tensor):
                if not (g == w or (isinstance(w, float) and math.isnan(w) and math.isnan(g))):
                    fails.append(f"call {c} output {k}: {g!r} vs eager's {w!r}")
                continue
            why = _same_values(g, w)
            if why:
                fails.append(f"call {c} output {k}: {why}")
            elif w.dtype.is_floating_point and _zero_signs(g) != _zero_signs(w):
                # a note: eager's own sign of zero in maximum/minimum/fmax depends on the length
                # (the vectorized loop takes the other operand on a tie)
                notes.append(f"call {c} output {k}: the sign of zero differs: {g.tolist()} vs eager's {w.tolist()}")
            if w.numel() > 1 and g.stride() != w.stride():
                (fails if case.strides else notes).append(f"call {c} output {k}: strides {g.stride()} vs eager's "
                                                          f"{w.stride()}")
            if g.is_inference() != w.is_inference():
                notes.append(f"call {c} output {k}: is_inference {g.is_inference()} vs eager's {w.is_inference()}")
            if g.requires_grad != w.requires_grad:
                fails.append(f"call {c} output {k}: requires_grad {g.requires_grad} vs eager's {w.requires_grad}")
        if got.aliasing[c] != want.aliasing[c]:
            fails.append(f"call {c}: aliasing (inputs, earlier outputs) per output {got.aliasing[c]} "
                         f"vs eager's {want.aliasing[c]}")
    for c, (gi, wi) in enumerate(zip(got.inputs, want.inputs)):
        for k, (g, w) in enumerate(zip(gi, wi)):
            if isinstance(w, torch.Tensor):
                why = _same_values(g, w)
                if why:
                    fails.append(f"call {c} input {k} after the call: {why}")
    if len(got.ours) != len(set(got.ours)):
        fails.append(f"a fallback warning repeated: {got.ours}")
    return fails, notes, got


def main(names) -> int:
    bad = 0
    for case in CASES:
        if names and case.name not in names:
            continue
        fails, notes, got = compare(case)
        status = ("KNOWN" if case.known else "FAIL") if fails else ("eager" if got.ours else "kernel")
        bad += bool(fails) and not case.known
        print(f"{case.name:40s} {status}", flush=True)
        for line in fails:
            print(f"    fail: {line}"[:400])
        for line in got.ours:
            print(f"    warn: {line}"[:300])
        for line in notes:
            print(f"    note: {line}"[:300])
        if got.error is not None:
            print(f"    (both raise {type(got.error).__name__}: {str(got.error)[:150]})")
    return bad


if __name__ == "__main__":
    sys.exit(1 if main(set(sys.argv[1:])) else 0)
