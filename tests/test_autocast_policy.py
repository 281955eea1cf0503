"""Autocast policy tables, op by op: the output dtype of every operator with a
policy under CPU autocast (bfloat16 and float16) and under the CUDA policy
(its generated AutocastCUDA kernels run here on CPU tensors through a
test-only alias), against fixed tables transcribed from PyTorch 2.13's lists,
and against the installed PyTorch where it can be observed."""
import contextlib

import pytest

import torchlike as tl
from tests.conftest import requires_torch

_state = tl._C._VariableFunctions
F32, F64, BF16, F16 = tl.float32, tl.float64, tl.bfloat16, tl.float16

# ---- the tables (PyTorch 2.13's autocast lists, restricted to the operators torchlike has)

CPU_POLICY = {
    "lower": ["addbmm", "addmm", "baddbmm", "bmm", "linear", "matmul", "mm", "convolution"],
    "fp32": ["prod", "prod.dim_int", "quantile", "quantile.scalar", "nanquantile", "nanquantile.scalar", "trace"],
    "promote": ["cat", "stack", "index_copy"],
}
CUDA_POLICY = {
    "lower": ["addbmm", "addmm", "addmv", "addr", "baddbmm", "bmm", "convolution", "einsum", "linear", "matmul",
              "mm", "mv"],
    "fp32": ["acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log1p", "log2", "pow.Scalar",
             "pow.Tensor_Tensor", "reciprocal", "rsqrt", "sinh", "tan", "softplus", "layer_norm",
             "native_layer_norm", "frobenius_norm.dim", "dist", "logsumexp"],
    "fp32_set_opt_dtype": ["cumprod", "cumsum", "log_softmax.int", "softmax.int", "prod", "prod.dim_int", "sum",
                           "sum.dim_IntList"],
    "fp32_append_dtype": ["norm.Scalar"],
    "promote": ["addcdiv", "addcmul", "atan2", "dot", "index_put", "scatter_add", "tensordot", "vdot"],
}


def _flat(table):
    return {op: policy for policy, ops in table.items() for op in ops}


# ---- calls: overload name -> (function of (module, x) building args, where x(shape, dtype) makes a tensor)

def _calls(m):
    """One representative call per overload, written against module m
    (torchlike or torch), taking a tensor factory x(*shape, dtype=...)."""
    idx = lambda: m.tensor([0, 2])  # noqa: E731
    return {
        "mm": lambda x, d: m.mm(x(3, 4, dtype=d), x(4, 2, dtype=d)),
        "bmm": lambda x, d: m.bmm(x(2, 3, 4, dtype=d), x(2, 4, 2, dtype=d)),
        "addmm": lambda x, d: m.addmm(x(3, 2, dtype=d), x(3, 4, dtype=d), x(4, 2, dtype=d)),
        "addbmm": lambda x, d: m.addbmm(x(3, 2, dtype=d), x(2, 3, 4, dtype=d), x(2, 4, 2, dtype=d)),
        "baddbmm": lambda x, d: m.baddbmm(x(2, 3, 2, dtype=d), x(2, 3, 4, dtype=d), x(2, 4, 2, dtype=d)),
        "linear": lambda x, d: m.nn.functional.linear(x(3, 4, dtype=d), x(2, 4, dtype=d), x(2, dtype=d)),
        "matmul": lambda x, d: m.matmul(x(3, 4, dtype=d), x(4, dtype=d)),
        "convolution": lambda x, d: m.nn.functional.conv2d(x(1, 2, 5, 5, dtype=d), x(3, 2, 3, 3, dtype=d)),
        "addmv": lambda x, d: m.addmv(x(3, dtype=d), x(3, 4, dtype=d), x(4, dtype=d)),
        "addr": lambda x, d: m.addr(x(3, 4, dtype=d), x(3, dtype=d), x(4, dtype=d)),
        "einsum": lambda x, d: m.einsum("ij,jk->ik", x(3, 4, dtype=d), x(4, 2, dtype=d)),
        "mv": lambda x, d: m.mv(x(3, 4, dtype=d), x(4, dtype=d)),
        "prod": lambda x, d: m.prod(x(5, dtype=d)),
        "prod.dim_int": lambda x, d: m.prod(x(3, 4, dtype=d), 1),
        "quantile": lambda x, d: m.quantile(x(6, dtype=d), m.tensor([0.25, 0.5], dtype=d)),
        "quantile.scalar": lambda x, d: m.quantile(x(6, dtype=d), 0.5),
        "nanquantile": lambda x, d: m.nanquantile(x(6, dtype=d), m.tensor([0.25, 0.5], dtype=d)),
        "nanquantile.scalar": lambda x, d: m.nanquantile(x(6, dtype=d), 0.5),
        "trace": lambda x, d: m.trace(x(3, 3, dtype=d)),
        "cat": lambda x, d: m.cat([x(2, 3, dtype=d), x(1, 3, dtype=d)]),
        "stack": lambda x, d: m.stack([x(2, 3, dtype=d), x(2, 3, dtype=d)]),
        "index_copy": lambda x, d: m.index_copy(x(3, 2, dtype=d), 0, idx(), x(2, 2, dtype=d)),
        "acos": lambda x, d: m.acos(x(4, dtype=d) * 0.5),
        "asin": lambda x, d: m.asin(x(4, dtype=d) * 0.5),
        "cosh": lambda x, d: m.cosh(x(4, dtype=d)),
        "erfinv": lambda x, d: m.erfinv(x(4, dtype=d) * 0.5),
        "exp": lambda x, d: m.exp(x(4, dtype=d)),
        "expm1": lambda x, d: m.expm1(x(4, dtype=d)),
        "log": lambda x, d: m.log(x(4, dtype=d).abs() + 1),
        "log10": lambda x, d: m.log10(x(4, dtype=d).abs() + 1),
        "log1p": lambda x, d: m.log1p(x(4, dtype=d).abs()),
        "log2": lambda x, d: m.log2(x(4, dtype=d).abs() + 1),
        "pow.Scalar": lambda x, d: m.pow(2.0, x(4, dtype=d)),
        "pow.Tensor_Tensor": lambda x, d: m.pow(x(4, dtype=d).abs(), x(4, dtype=d)),
        "reciprocal": lambda x, d: m.reciprocal(x(4, dtype=d) + 3),
        "rsqrt": lambda x, d: m.rsqrt(x(4, dtype=d).abs() + 1),
        "sinh": lambda x, d: m.sinh(x(4, dtype=d)),
        "tan": lambda x, d: m.tan(x(4, dtype=d)),
        "softplus": lambda x, d: m.nn.functional.softplus(x(4, dtype=d)),
        "layer_norm": lambda x, d: m.nn.functional.layer_norm(x(2, 4, dtype=d), (4,)),
        "native_layer_norm": lambda x, d: m.native_layer_norm(x(2, 4, dtype=d), [4], None, None, 1e-5)[0],
        "frobenius_norm.dim": lambda x, d: m.frobenius_norm(x(3, 4, dtype=d), [0, 1]),
        "dist": lambda x, d: m.dist(x(4, dtype=d), x(4, dtype=d)),
        "logsumexp": lambda x, d: m.logsumexp(x(3, 4, dtype=d), 1),
        "cumprod": lambda x, d: m.cumprod(x(4, dtype=d), 0),
        "cumsum": lambda x, d: m.cumsum(x(4, dtype=d), 0),
        "log_softmax.int": lambda x, d: m.log_softmax(x(2, 4, dtype=d), 1),
        "softmax.int": lambda x, d: m.softmax(x(2, 4, dtype=d), 1),
        "sum": lambda x, d: m.sum(x(4, dtype=d)),
        "sum.dim_IntList": lambda x, d: m.sum(x(3, 4, dtype=d), 1),
        "norm.Scalar": lambda x, d: m.norm(x(4, dtype=d)),
        "addcdiv": lambda x, d: m.addcdiv(x(4, dtype=d), x(4, dtype=d), x(4, dtype=d).abs() + 1),
        "addcmul": lambda x, d: m.addcmul(x(4, dtype=d), x(4, dtype=d), x(4, dtype=d)),
        "atan2": lambda x, d: m.atan2(x(4, dtype=d), x(4, dtype=d)),
        "dot": lambda x, d: m.dot(x(4, dtype=d), x(4, dtype=d)),
        "index_put": lambda x, d: m.index_put(x(3, dtype=d), (idx(),), x(2, dtype=d)),
        "scatter_add": lambda x, d: m.scatter_add(x(3, dtype=d), 0, idx(), x(2, dtype=d)),
        "tensordot": lambda x, d: m.tensordot(x(3, 4, dtype=d), x(4, 2, dtype=d), 1),
        "vdot": lambda x, d: m.vdot(x(4, dtype=d), x(4, dtype=d)),
    }


def _factory(m, seed=0):
    gen = m.Generator().manual_seed(seed)

    def x(*shape, dtype):
        return m.randn(*shape, generator=gen).to(dtype)
    return x


def _mixed_factory(m, dtypes):
    """Tensors alternate through `dtypes` (to see what promote picks)."""
    gen = m.Generator().manual_seed(1)
    count = [0]

    def x(*shape, dtype):
        d = dtypes[count[0] % len(dtypes)]
        count[0] += 1
        return m.randn(*shape, generator=gen).to(d)
    return x


# Expected output dtype of a call whose floating inputs are all `given`, in a region of dtype `low`.
def _expected(policy, given, low):
    if policy is None:
        return given
    if policy == "lower":
        return low
    if policy == "promote":
        return given  # every input has the same dtype: the widest is it (or the region's, if wider)
    return F32       # fp32, fp32_set_opt_dtype, fp32_append_dtype


@contextlib.contextmanager
def _cuda_policy_on_cpu(dtype):
    """Runs the generated AutocastCUDA kernels on CPU tensors: CUDA autocast
    on (without the Python region, which would see no CUDA and disable
    itself) and CPU tensors treated as the CUDA kernels' own."""
    was, old_dtype = _state._autocast_is_enabled("cuda"), _state._autocast_get_dtype("cuda")
    _state._autocast_set_dtype("cuda", dtype)
    _state._autocast_set_enabled("cuda", True)
    _state._autocast_set_eligible_alias("cpu", "cuda")
    try:
        yield
    finally:
        _state._autocast_set_eligible_alias(None, None)
        _state._autocast_set_enabled("cuda", was)
        _state._autocast_set_dtype("cuda", old_dtype)


# ---- the registered tables are exactly the fixed ones

@pytest.mark.parametrize("device,table", [("cpu", CPU_POLICY), ("cuda", CUDA_POLICY)])
def test_registered_policies_match_the_table(device, table):
    registered = {name[len("aten::"):]: _state._autocast_policy(name, device)
                  for name in _state._autocast_policy_ops(device)}
    assert registered == _flat(table)


def test_ops_without_policy_report_none_and_have_no_autocast_kernel():
    for op in ("add.Tensor", "sigmoid", "mean", "exp2", "var.correction"):
        assert _state._autocast_policy(op, "cpu") is None and _state._autocast_policy(op, "cuda") is None
        assert "Autocast" not in tl._C._dispatch_dump(f"aten::{op}")
    assert "AutocastCPU: autocast lower" in tl._C._dispatch_dump("aten::mm")
    assert "AutocastCUDA: autocast fp32_set_opt_dtype" in tl._C._dispatch_dump("aten::sum")


@requires_torch
@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_policy_sets_match_pytorch_registrations(device):
    """Every torchlike operator PyTorch 2.13 autocasts on this device type has
    a policy here, and no other one does."""
    import torch
    key = "AutocastCPU" if device == "cpu" else "AutocastCUDA"
    ours = set(_flat(CPU_POLICY if device == "cpu" else CUDA_POLICY))
    theirs = set()
    for name in tl._C._dispatch_list_ops():
        if not name.startswith("aten::"):
            continue
        try:
            if torch._C._dispatch_has_kernel_for_dispatch_key(name, key):
                theirs.add(name[len("aten::"):])
        except RuntimeError:  # an operator PyTorch does not have
            pass
    if device == "cpu":
        # PyTorch's CPU list names conv1d/2d/3d (and the transposed forms), which
        # torchlike's functional convolutions reach through `convolution`.
        assert all(torch._C._dispatch_has_kernel_for_dispatch_key(f"aten::{n}", key)
                   for n in ("conv1d", "conv2d", "conv3d", "conv_transpose2d.input"))
        ours.discard("convolution")
    assert ours == theirs


# ---- output dtypes, op by op

CPU_CASES = sorted(set(_flat(CPU_POLICY)) | {"sum", "softmax.int", "exp", "log", "pow.Tensor_Tensor", "cumsum",
                                            "addcmul", "dot", "mv", "atan2"})


@pytest.mark.parametrize("low", [BF16, F16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("op", CPU_CASES)
def test_cpu_autocast_output_dtype(op, low):
    policy = _flat(CPU_POLICY).get(op)
    call = _calls(tl)[op]
    given = F32 if policy in ("lower", "promote", None) else low
    with tl.autocast("cpu", dtype=low):
        out = call(_factory(tl), given)
    assert out.dtype == _expected(policy, given, low)
    # Outside the region nothing is cast.
    assert call(_factory(tl), given).dtype == given


@requires_torch
@pytest.mark.parametrize("low", [BF16, F16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("op", CPU_CASES)
def test_cpu_autocast_output_dtype_matches_pytorch(op, low):
    import torch
    tdt = {BF16: torch.bfloat16, F16: torch.float16, F32: torch.float32}
    for given in (F32, low):
        with tl.autocast("cpu", dtype=low):
            ours = _calls(tl)[op](_factory(tl), given)
        with torch.autocast("cpu", dtype=tdt[low]):
            theirs = _calls(torch)[op](_factory(torch), tdt[given])
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], (op, given)


@pytest.mark.parametrize("op", sorted(CPU_POLICY["promote"]))
def test_cpu_promote_picks_the_widest_input(op):
    call = _calls(tl)[op]
    with tl.autocast("cpu"):
        assert call(_mixed_factory(tl, [F32, BF16]), None).dtype == F32
        assert call(_mixed_factory(tl, [BF16, BF16]), None).dtype == BF16
        # float64 is not eligible: it keeps its dtype and the op's own promotion decides.
        assert call(_mixed_factory(tl, [F64, F64]), None).dtype == F64


@pytest.mark.parametrize("low", [F16, BF16], ids=["fp16", "bf16"])
@pytest.mark.parametrize("op", sorted(_flat(CUDA_POLICY)))
def test_cuda_policy_output_dtype(op, low):
    """The generated AutocastCUDA kernels, run on CPU tensors."""
    policy = _flat(CUDA_POLICY)[op]
    given = F32 if policy in ("lower", "promote") else low
    with _cuda_policy_on_cpu(low):
        out = _calls(tl)[op](_factory(tl), given)
    assert out.dtype == _expected(policy, given, low)


def test_cuda_set_opt_dtype_leaves_an_explicit_dtype_and_integer_inputs():
    x = tl.randn(4)
    with _cuda_policy_on_cpu(F16):
        assert tl.sum(x.half()).dtype == F32
        assert tl.sum(x.half(), dtype=F64).dtype == F64     # the caller's dtype wins
        assert tl.sum(x.half(), dtype=F16).dtype == F16
        assert tl.softmax(x.half(), 0, dtype=F64).dtype == F64
        assert tl.cumsum(tl.arange(4), 0).dtype == tl.int64  # not eligible: int stays int
        assert tl.norm(x.half()).dtype == F32                # fp32_append_dtype
        # The values are float32 sums of the float16 inputs.
        assert float(tl.sum(x.half())) == pytest.approx(float(x.half().float().sum()), rel=1e-6)


def test_cuda_promote_mixed_inputs_and_the_region_dtype():
    a, b = tl.randn(4), tl.randn(4)
    with _cuda_policy_on_cpu(F16):
        assert tl.atan2(a.half(), b).dtype == F32
        assert tl.atan2(a.half(), b.half()).dtype == F16
        assert tl.addcmul(a.half(), b.half(), b.bfloat16()).dtype == F32  # float16 with bfloat16: float32


def test_cuda_policy_leaves_other_devices_alone():
    """Without the alias the AutocastCUDA kernels see CPU tensors as another
    device's and cast nothing."""
    a = tl.randn(3, 4)
    was = _state._autocast_is_enabled("cuda")
    _state._autocast_set_enabled("cuda", True)
    try:
        assert tl.mm(a, a.t()).dtype == F32
        assert tl.exp(a.half()).dtype == F16
    finally:
        _state._autocast_set_enabled("cuda", was)


def test_cuda_banned_binary_cross_entropy():
    p = tl.rand(4) * 0.8 + 0.1
    with _cuda_policy_on_cpu(F16):
        with pytest.raises(RuntimeError) as e:
            tl.nn.functional.binary_cross_entropy(p, p)
        with pytest.raises(RuntimeError):
            tl.nn.BCELoss()(p, p)
        # The logits form is safe.
        tl.nn.functional.binary_cross_entropy_with_logits(p, p)
    assert str(e.value).startswith("torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe "
                                   "to autocast.\nMany models use a sigmoid layer")
    assert "binary_cross_entropy_with_logits" in str(e.value)
    # CPU autocast allows it, as PyTorch's does.
    with tl.autocast("cpu"):
        assert tl.nn.functional.binary_cross_entropy(p, p).dtype == F32


# ---- functional losses written in Python: PyTorch's autocast runs them in float32

PY_FP32_CPU = ["nll_loss", "cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits", "mse_loss",
               "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "poisson_nll_loss", "hinge_embedding_loss",
               "margin_ranking_loss", "soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
               "cosine_embedding_loss", "triplet_margin_loss", "ctc_loss", "cdist"]


def _loss_calls(m):
    F = m.nn.functional
    cls = lambda: m.tensor([0, 2, 1, 0])  # noqa: E731
    sign = lambda: m.tensor([1.0, -1.0, 1.0, -1.0])  # noqa: E731
    prob = lambda x, d: (x(4, 3, dtype=m.float32).sigmoid() * 0.8 + 0.1).to(d)  # noqa: E731
    return {
        "nll_loss": lambda x, d: F.nll_loss(x(4, 3, dtype=d), cls()),
        "cross_entropy": lambda x, d: F.cross_entropy(x(4, 3, dtype=d), cls()),
        "binary_cross_entropy": lambda x, d: F.binary_cross_entropy(prob(x, d), prob(x, d)),
        "binary_cross_entropy_with_logits": lambda x, d: F.binary_cross_entropy_with_logits(x(4, 3, dtype=d),
                                                                                            prob(x, d)),
        "mse_loss": lambda x, d: F.mse_loss(x(4, 3, dtype=d), x(4, 3, dtype=d)),
        "l1_loss": lambda x, d: F.l1_loss(x(4, 3, dtype=d), x(4, 3, dtype=d)),
        "smooth_l1_loss": lambda x, d: F.smooth_l1_loss(x(4, 3, dtype=d), x(4, 3, dtype=d)),
        "huber_loss": lambda x, d: F.huber_loss(x(4, 3, dtype=d), x(4, 3, dtype=d)),
        "kl_div": lambda x, d: F.kl_div(x(4, 3, dtype=d), prob(x, d), reduction="batchmean"),
        "poisson_nll_loss": lambda x, d: F.poisson_nll_loss(x(4, 3, dtype=d), prob(x, d)),
        "hinge_embedding_loss": lambda x, d: F.hinge_embedding_loss(x(4, dtype=d), sign().to(d)),
        "margin_ranking_loss": lambda x, d: F.margin_ranking_loss(x(4, dtype=d), x(4, dtype=d), sign().to(d)),
        "soft_margin_loss": lambda x, d: F.soft_margin_loss(x(4, dtype=d), sign().to(d)),
        "multi_margin_loss": lambda x, d: F.multi_margin_loss(x(4, 3, dtype=d), cls()),
        "multilabel_margin_loss": lambda x, d: F.multilabel_margin_loss(x(2, 3, dtype=d),
                                                                        m.tensor([[0, 2, -1], [1, -1, 0]])),
        "cosine_embedding_loss": lambda x, d: F.cosine_embedding_loss(x(4, 3, dtype=d), x(4, 3, dtype=d), sign()),
        "triplet_margin_loss": lambda x, d: F.triplet_margin_loss(x(4, 3, dtype=d), x(4, 3, dtype=d),
                                                                  x(4, 3, dtype=d)),
        "ctc_loss": lambda x, d: F.ctc_loss(x(6, 2, 4, dtype=m.float32).log_softmax(2).to(d),
                                            m.tensor([[1, 2], [3, 1]]),
                                            m.tensor([6, 6]), m.tensor([2, 2])),
        "cdist": lambda x, d: m.cdist(x(3, 2, dtype=d), x(4, 2, dtype=d)),
    }


@pytest.mark.parametrize("low", [BF16, F16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("op", PY_FP32_CPU)
def test_python_losses_run_in_float32_under_cpu_autocast(op, low):
    call = _loss_calls(tl)[op]
    with tl.autocast("cpu", dtype=low):
        assert call(_factory(tl), low).dtype == F32
        assert tl.is_autocast_enabled("cpu")   # the op's own autocast-off spell is over
    assert call(_factory(tl), low).dtype == low


def _numpy_factory(m):
    """The same values for torchlike and torch (their random streams differ)."""
    import numpy as np
    rng = np.random.default_rng(0)

    def x(*shape, dtype):
        return m.tensor(rng.standard_normal(shape).astype("float32")).to(dtype)
    return x


@requires_torch
@pytest.mark.parametrize("op", PY_FP32_CPU)
def test_python_losses_match_pytorch_under_cpu_autocast(op):
    import torch
    with tl.autocast("cpu"):
        ours = _loss_calls(tl)[op](_numpy_factory(tl), BF16)
    with torch.autocast("cpu"):
        theirs = _loss_calls(torch)[op](_numpy_factory(torch), torch.bfloat16)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    # Same float32 computation of the same (bfloat16-rounded) inputs.
    assert ours.shape == tuple(theirs.shape)
    assert ours.float().flatten().tolist() == pytest.approx(theirs.float().flatten().tolist(), rel=1e-4, abs=1e-5)


# ---- other ops written in Python that PyTorch's autocast lists: each runs at
# the listed precision, and the ops it is made of are not cast again (pinverse
# is matmuls inside, which would otherwise run in the low precision).

def _spd(m, x, n=3):
    a = x(n, n, dtype=m.float32)
    return a @ a.T + n * m.eye(n)


PY_POLICY_CPU = {
    # op: (expected output under CPU autocast: "low" or "f32", call(m, x))
    "prelu": ("low", lambda m, x: m.nn.functional.prelu(x(2, 3, dtype=m.float32), x(3, dtype=m.float32))),
    "scaled_dot_product_attention": ("low", lambda m, x: m.nn.functional.scaled_dot_product_attention(
        x(1, 2, 4, 8, dtype=m.float32), x(1, 2, 4, 8, dtype=m.float32), x(1, 2, 4, 8, dtype=m.float32))),
    "linalg.vecdot": ("low", lambda m, x: m.linalg.vecdot(x(3, dtype=m.float32), x(3, dtype=m.float32))),
    "pinverse": ("f32", lambda m, x: m.pinverse(x(3, 3, dtype=m.float32))),
    "linalg.lstsq": ("f32", lambda m, x: m.linalg.lstsq(x(4, 3, dtype=m.float32), x(4, 2, dtype=m.float32))[0]),
    "lu_solve": ("f32", lambda m, x: m.lu_solve(x(3, 1, dtype=m.float32), *m.linalg.lu_factor(_spd(m, x)))),
}


@pytest.mark.parametrize("low", [BF16, F16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("op", sorted(PY_POLICY_CPU))
def test_python_ops_follow_cpu_policy(op, low):
    want, call = PY_POLICY_CPU[op]
    with tl.autocast("cpu", dtype=low):
        got = call(tl, _numpy_factory(tl))
        assert tl.is_autocast_enabled("cpu")
    assert got.dtype == (low if want == "low" else F32)
    assert call(tl, _numpy_factory(tl)).dtype == F32  # outside: untouched


@requires_torch
@pytest.mark.parametrize("op", sorted(PY_POLICY_CPU))
def test_python_ops_match_pytorch_under_cpu_autocast(op):
    import warnings

    import torch
    _, call = PY_POLICY_CPU[op]
    with tl.autocast("cpu"):
        ours = call(tl, _numpy_factory(tl))
    with warnings.catch_warnings(), torch.autocast("cpu"):
        warnings.simplefilter("ignore")
        theirs = call(torch, _numpy_factory(torch))
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert ours.float().flatten().tolist() == pytest.approx(theirs.float().flatten().tolist(), rel=2e-2, abs=2e-2)


# Python-written ops on PyTorch's CPU fp32 list take low-precision inputs (what a
# lowered conv or matmul hands them) and run in float32, the LAPACK-backed ones
# included, which refuse half outside autocast.
def _lowp(m, x, *shape):
    return x(*shape, dtype=m.float32).to(m.bfloat16)


PY_FP32_FROM_LOW = {
    "avg_pool3d": lambda m, x: m.nn.functional.avg_pool3d(_lowp(m, x, 1, 1, 4, 4, 4), 2),
    "max_pool3d": lambda m, x: m.nn.functional.max_pool3d(_lowp(m, x, 1, 1, 4, 4, 4), 2),
    "adaptive_avg_pool3d": lambda m, x: m.nn.functional.adaptive_avg_pool3d(_lowp(m, x, 1, 1, 4, 4, 4), 2),
    "adaptive_max_pool3d": lambda m, x: m.nn.functional.adaptive_max_pool3d(_lowp(m, x, 1, 1, 4, 4, 4), 2),
    "max_unpool2d": lambda m, x: m.nn.functional.max_unpool2d(
        *m.nn.functional.max_pool2d(_lowp(m, x, 1, 1, 4, 4), 2, return_indices=True), 2),
    "fractional_max_pool2d": lambda m, x: m.nn.functional.fractional_max_pool2d(
        _lowp(m, x, 1, 1, 6, 6), 2, output_size=3, _random_samples=m.full((1, 1, 2), 0.5, dtype=m.bfloat16)),
    "reflect pad 1d": lambda m, x: m.nn.functional.pad(_lowp(m, x, 1, 2, 5), (1, 1), mode="reflect"),
    "reflect pad 2d": lambda m, x: m.nn.functional.pad(_lowp(m, x, 1, 2, 5, 5), (1, 1, 1, 1), mode="reflect"),
    "replicate pad 3d": lambda m, x: m.nn.functional.pad(_lowp(m, x, 1, 2, 3, 3, 3), (1,) * 6, mode="replicate"),
    "grid_sample": lambda m, x: m.nn.functional.grid_sample(_lowp(m, x, 1, 1, 4, 4), _lowp(m, x, 1, 2, 2, 2).tanh(),
                                                            align_corners=False),
    "linalg.inv": lambda m, x: m.linalg.inv(_lowp(m, x, 3, 3)),
    "linalg.solve": lambda m, x: m.linalg.solve(_lowp(m, x, 3, 3), _lowp(m, x, 3, 1)),
    "linalg.svdvals": lambda m, x: m.linalg.svdvals(_lowp(m, x, 3, 3)),
    "linalg.qr": lambda m, x: m.linalg.qr(_lowp(m, x, 3, 3))[0],
    "linalg.eigvalsh": lambda m, x: m.linalg.eigvalsh(_lowp(m, x, 3, 3)),
    "linalg.cond": lambda m, x: m.linalg.cond(_lowp(m, x, 3, 3)),
    "inverse": lambda m, x: m.inverse(_lowp(m, x, 3, 3)),
    "cholesky_inverse": lambda m, x: m.cholesky_inverse(_lowp(m, x, 3, 3).tril() + 3 * m.eye(3, dtype=m.bfloat16)),
}


@pytest.mark.parametrize("op", sorted(PY_FP32_FROM_LOW))
def test_python_fp32_ops_take_low_precision_inputs_under_cpu_autocast(op):
    call = PY_FP32_FROM_LOW[op]
    with tl.autocast("cpu"):
        assert call(tl, _numpy_factory(tl)).dtype == F32
    if op.startswith(("linalg", "inverse", "cholesky")):
        with pytest.raises(RuntimeError, match="Low precision dtypes not supported"):
            call(tl, _numpy_factory(tl))  # outside autocast half is refused, as PyTorch does
    else:
        assert call(tl, _numpy_factory(tl)).dtype == BF16


@requires_torch
@pytest.mark.parametrize("op", sorted(PY_FP32_FROM_LOW))
def test_python_fp32_ops_from_low_precision_match_pytorch(op):
    import torch
    call = PY_FP32_FROM_LOW[op]
    with tl.autocast("cpu"):
        ours = call(tl, _numpy_factory(tl))
    with torch.autocast("cpu"):
        theirs = call(torch, _numpy_factory(torch))
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert ours.flatten().tolist() == pytest.approx(theirs.flatten().tolist(), rel=1e-3, abs=1e-3)


def test_lstm_under_cpu_autocast_runs_in_the_region_dtype_and_trains_fp32_weights():
    tl.manual_seed(0)
    lstm = tl.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    x = tl.randn(5, 2, 3)
    with tl.autocast("cpu"):
        out, (h, c) = lstm(x)
    assert out.dtype == h.dtype == c.dtype == BF16
    ref, _ = lstm(x)
    assert (out.float() - ref).abs().max().item() < 5e-2
    out.float().sum().backward()
    assert lstm.weight_hh_l1_reverse.grad.dtype == F32 and lstm.weight_hh_l0.grad.abs().sum().item() > 0
