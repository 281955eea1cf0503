"""An out-of-tree backend on PrivateUse1 (tests/extension_backend/, C++),
built with cpp_extension.load during the tests: its own allocator with
counters, DeviceGuard, copy kernels and generators; a few native kernels and
the CPU fallback for the rest. Named "npu" with rename_privateuse1_backend and
generate_methods_for_privateuse1_backend, it trains a small MLP end to end
(forward, backward, SGD, state_dict to CPU and back) with the same results as
on CPU, and its allocator's counters come back to zero.

The backend's device runtime is installed around each test and removed after
it (npu.install / npu.uninstall, and the name reset), so the tests that
install their own fake PrivateUse1 backend (test_devices.py) can share a
process with these, in any order."""
import gc
import os
import shutil

import numpy as np
import pytest

import torchlike as tl
from torchlike import _privateuse1
from torchlike.utils import cpp_extension as ce

HERE = os.path.dirname(os.path.abspath(__file__))
BACKEND_DIR = os.path.join(HERE, "extension_backend")
SOURCES = [os.path.join(BACKEND_DIR, f) for f in ("npu_device.cpp", "npu_ops.cpp", "npu_module.cpp")]
try:
    import pybind11  # noqa: F401
except ImportError:
    pybind11 = None
pytestmark = pytest.mark.skipif(shutil.which(ce.get_cxx_compiler()) is None or not ce.is_ninja_available()
                                or pybind11 is None, reason="needs a C++ compiler, ninja and pybind11")


def load_backend(**kwargs):
    """The test backend, built (once per cache: the per-user cache is shared
    by test processes, which cpp_extension's file lock serialises) and imported."""
    return ce.load("npu_backend", SOURCES, **kwargs)


@pytest.fixture(scope="module")
def npu_ext():
    return load_backend()


def install(ext):
    ext.install(2)
    tl.utils.rename_privateuse1_backend("npu")
    tl.utils.generate_methods_for_privateuse1_backend()
    tl._register_device_module("npu", ext)


def uninstall(ext):
    gc.collect()
    ext.uninstall()
    _privateuse1._reset_privateuse1_backend_name()


@pytest.fixture
def npu(npu_ext):
    install(npu_ext)
    try:
        yield npu_ext
    finally:
        uninstall(npu_ext)


def arr(t):
    return t.detach().cpu().numpy()


# ------------------------------------------------------------------ naming

def test_naming_the_backend(npu):
    d = tl.device("npu:1")
    assert (d.type, d.index, str(d)) == ("npu", 1, "npu:1")
    assert tl.device("privateuseone:0") == tl.device("npu:0")  # the built-in name still parses
    assert tl.npu.is_available() and tl.npu.device_count() == 2
    import importlib
    assert importlib.import_module("torchlike.npu") is npu
    x = tl.arange(6.0).reshape(2, 3)
    y = x.npu()
    assert y.is_npu and not x.is_npu and y.device == tl.device("npu:0")
    assert x.to("npu").device == tl.device("npu", 0)
    assert x.npu(1).device == tl.device("npu:1") and x.to("npu:1").is_npu
    assert x.npu("npu:1").device.index == 1 and x.npu(tl.device("npu")).device.index == 0
    np.testing.assert_array_equal(arr(y), arr(x))
    assert y.npu() is y  # already there: no copy
    # Values are read through a CPU copy: tolist, item, printing; numpy() refuses, as for CUDA.
    assert y.tolist() == x.tolist() and y[1, 2].item() == 5.0
    assert repr(tl.arange(3.0).npu(1)) == "tensor([0., 1., 2.], device='npu:1')"
    with pytest.raises(TypeError, match="can't convert npu:0 device type tensor to numpy"):
        y.numpy()
    npu.set_device(1)
    try:
        assert tl.empty(2, device="npu").device == tl.device("npu:1")  # index-less: the current device
        assert x.npu().device.index == 1
    finally:
        npu.set_device(0)
    m = tl.nn.Linear(3, 2)
    assert m.to("npu") is m and m.weight.is_npu and m.bias.device == tl.device("npu:0")
    m2 = tl.nn.Linear(3, 2).npu(1)
    assert m2.weight.device == tl.device("npu:1")
    assert tl.accelerator.current_accelerator() == tl.device("npu")


def test_naming_errors(npu):
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda, meta, npu device type at start of device "
                                           "string: xpu"):
        tl.device("xpu")
    with pytest.raises(RuntimeError, match="Invalid device index npu:5: there are 2 npu devices"):
        tl.ones(2).to("npu:5")
    with pytest.raises(RuntimeError, match="has already been set! Current backend: npu"):
        tl.utils.rename_privateuse1_backend("tpu")
    tl.utils.rename_privateuse1_backend("npu")  # the same name again: nothing to do
    with pytest.raises(RuntimeError, match="Invalid device, must be npu device"):
        tl.ones(2).npu("cpu")
    with pytest.raises(RuntimeError, match="The runtime module of 'cuda' has already been registered"):
        tl._register_device_module("cuda", npu)
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda, meta, npu device type"):
        tl._register_device_module("tpu", npu)


def test_backend_registration_module_is_the_same_api():
    from torchlike.utils import backend_registration as br
    assert br.rename_privateuse1_backend is tl.utils.rename_privateuse1_backend
    assert br.generate_methods_for_privateuse1_backend is tl.utils.generate_methods_for_privateuse1_backend
    assert br._get_privateuse1_backend_name() == "privateuseone"


def test_rename_refuses_builtin_names():
    with pytest.raises(RuntimeError, match="cannot name a PrivateUse1 backend"):
        tl.utils.rename_privateuse1_backend("cuda")
    with pytest.raises(RuntimeError, match="rename the backend first"):
        tl.utils.generate_methods_for_privateuse1_backend()


# ------------------------------------------------------------------ kernels: native and fallback

def test_native_kernels_and_the_cpu_fallback(npu):
    x = tl.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]]).npu()
    f0, n0 = npu.fallback_calls(), npu.native_calls()
    z = tl.empty(2, 3, device="npu").fill_(1.5)  # empty + fill_: native
    s = x + z                                     # add.Tensor: native
    assert npu.fallback_calls() == f0 and npu.native_calls() >= n0 + 3
    np.testing.assert_array_equal(arr(s), arr(x) + 1.5)
    r = tl.relu(x)                                # no npu kernel: the CPU fallback
    assert npu.fallback_calls() == f0 + 1 and r.is_npu
    np.testing.assert_array_equal(arr(r), np.maximum(arr(x), 0))
    # Views stay on the backend's storage (as_strided/view kernels, composites).
    v = x.view(3, 2)
    t = x.t()
    assert v.is_npu and t.is_npu and t.stride() == (1, 3)
    v[0, 0] = 100.0
    assert arr(x)[0, 0] == 100.0 and arr(t)[0, 0] == 100.0
    # Reductions, matmul and comparisons through the fallback.
    a = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    A = tl.tensor(a).npu()
    np.testing.assert_allclose(arr(A @ A.t()), a @ a.T, rtol=1e-6)
    np.testing.assert_allclose(arr(A.sum(1)), a.sum(1), rtol=1e-6)
    assert (A > 5).dtype == tl.bool and arr(A > 5).sum() == 6
    assert A.sum().item() == 66.0


def test_fallback_writes_back_inplace_and_out_arguments(npu):
    a = tl.tensor([1.0, 2.0, 3.0]).npu()
    b = tl.tensor([10.0, 20.0, 30.0]).npu()
    v0 = a._version
    r = a.mul_(b)  # in place through the fallback: the npu tensor itself, updated
    assert r is a and a._version > v0
    np.testing.assert_array_equal(arr(a), [10.0, 40.0, 90.0])
    out = tl.empty(3, device="npu")
    got = tl.mul(a, b, out=out)
    assert got is out
    np.testing.assert_array_equal(arr(out), [100.0, 800.0, 2700.0])
    # An out= argument the CPU kernel resizes is resized on the backend.
    small = tl.empty(0, device="npu")
    tl.sub(b, a, out=small)
    assert small.shape == (3,) and small.is_npu
    np.testing.assert_array_equal(arr(small), [-0.0 + 10 - 10, 20.0 - 40.0, 30.0 - 90.0])
    # A view through the fallback writes through to its base.
    base = tl.zeros(2, 3).npu()
    base[1].add_(tl.ones(3).npu())
    base[:, 0].mul_(tl.tensor(5.0))  # a CPU 0-dim tensor beside npu ones is a scalar, as in PyTorch
    np.testing.assert_array_equal(arr(base), [[0, 0, 0], [5, 1, 1]])
    # Factories with device=npu go through the fallback and land on the backend.
    ar = tl.arange(5, device="npu")
    assert ar.is_npu and ar.dtype == tl.int64 and arr(ar).tolist() == [0, 1, 2, 3, 4]
    tl.manual_seed(3)
    g = tl.randn(4, device="npu")
    tl.manual_seed(3)
    assert g.is_npu and np.array_equal(arr(g), arr(tl.randn(4)))  # the fallback draws from the CPU generator
    gen = tl.Generator(device="npu:1")
    assert gen.device == tl.device("npu:1")


def test_mixing_devices_raises(npu):
    x = tl.ones(3).npu()
    with pytest.raises(RuntimeError, match=r"Expected all tensors to be on the same device, but found at least two "
                                           r"devices, npu:0 and cpu! \(when checking arguments for aten::mul.Tensor\)"):
        x * tl.ones(3)
    with pytest.raises(RuntimeError, match=r"found at least two devices, npu:0 and cpu! \(when checking arguments "
                                           r"for aten::add.Tensor\)"):
        x + tl.ones(3)  # the native kernel refuses the same way
    with pytest.raises(RuntimeError, match="found at least two devices, npu:0 and npu:1"):
        tl.mul(x, tl.ones(3).npu(1))
    with pytest.raises(RuntimeError, match="found at least two devices"):
        x.mul_(tl.ones(3))
    np.testing.assert_array_equal(arr(x), [1, 1, 1])  # a refused in-place op leaves its tensor alone


def test_fallback_follows_alias_annotations_of_custom_ops(npu):
    """Operators defined in Python with CPU kernels only (torchlike.library)
    run on the backend through the fallback, which reads their schema's alias
    annotations: a written argument is updated, a view result is a view of
    the backend tensor, a fresh result comes back as a copy."""
    lib = tl.library.Library("npu_alias_test", "DEF")
    try:
        lib.define("scale_(Tensor(a!) x, float s) -> ()")
        lib.define("first_row(Tensor(a) x) -> Tensor(a)")
        lib.define("twice(Tensor x) -> Tensor")
        lib.define("reshaped(Tensor(a) x) -> Tensor(a)")
        lib.define("plus_one_on(Tensor x, Device device) -> Tensor")
        lib.impl("scale_", lambda x, s: x.mul_(s), "CPU")
        lib.impl("first_row", lambda x: x[0], "CPU")
        lib.impl("twice", lambda x: x * 2, "CPU")
        lib.impl("reshaped", lambda x: x.reshape(-1), "CPU")  # a view when it can be, else a copy
        lib.impl("plus_one_on", lambda x, device: (x + 1).to(device), "CPU")
        ops = tl.ops.npu_alias_test
        x = tl.arange(6.0).reshape(2, 3).npu()
        assert ops.scale_(x, 10.0) is None
        np.testing.assert_array_equal(arr(x), [[0, 10, 20], [30, 40, 50]])
        row = ops.first_row(x[1:])  # a view: of the npu tensor's storage, not of a CPU copy
        assert row.is_npu and row.shape == (3,)
        row.fill_(-1.0)
        np.testing.assert_array_equal(arr(x), [[0, 10, 20], [-1, -1, -1]])
        t = ops.twice(x)
        assert t.is_npu
        np.testing.assert_array_equal(arr(t), 2 * arr(x))
        flat = ops.reshaped(x)
        assert flat.is_npu and flat.shape == (6,)
        flat[0] = 7.0  # a view (x is contiguous): writes through
        assert arr(x)[0, 0] == 7.0
        copied = ops.reshaped(x.t())  # the CPU kernel copied: a fresh npu tensor
        assert copied.is_npu
        np.testing.assert_array_equal(arr(copied), arr(x).T.reshape(-1))
        copied[0] = -5.0
        assert arr(x)[0, 0] == 7.0
        # CPU inputs and a device= argument naming the backend: run on the CPU, result on the backend.
        moved = ops.plus_one_on(tl.ones(2, 2), tl.device("npu:1"))
        assert moved.device == tl.device("npu:1") and moved.tolist() == [[2.0, 2.0], [2.0, 2.0]]
        # A view of an input whose CPU copy has another layout cannot be mapped back.
        with pytest.raises(NotImplementedError, match="npu_alias_test::first_row returns a view of its input"):
            ops.first_row(x[:, ::2])
    finally:
        lib._destroy()


# ------------------------------------------------------------------ autograd, autocast

def test_autograd_needs_no_registration(npu):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    res = []
    for dev in ("cpu", "npu"):
        A = tl.tensor(a, dtype=tl.float64).to(dev).requires_grad_()
        B = tl.tensor(b, dtype=tl.float64).to(dev).requires_grad_()
        loss = (tl.tanh(A @ B) * 3 + A.sum()).pow(2).mean()
        loss.backward()
        assert A.grad.device.type == dev and A.grad_fn is None
        res.append((loss.item(), arr(A.grad), arr(B.grad)))
    assert res[0][0] == pytest.approx(res[1][0], rel=1e-12)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-12)
    np.testing.assert_allclose(res[1][2], res[0][2], rtol=1e-12)


def test_autocast_on_the_backend(npu):
    assert tl.amp.is_autocast_available("npu")
    a = tl.ones(4, 8).npu()
    b = tl.ones(8, 2).npu()
    with tl.autocast("npu", dtype=tl.float16):
        y = a @ b                  # mm: lower (the CUDA column's policy)
        s = tl.softmax(y, dim=1)   # softmax: fp32
        c = a @ b.cpu().npu()
    assert y.dtype == tl.float16 and y.is_npu and s.dtype == tl.float32 and c.dtype == tl.float16
    np.testing.assert_array_equal(arr(y).astype(np.float32), np.full((4, 2), 8.0))
    with tl.autocast("cpu", dtype=tl.bfloat16):
        assert (a @ b).dtype == tl.float32  # a CPU region does not touch npu tensors
    assert (a @ b).dtype == tl.float32


# ------------------------------------------------------------------ end to end

def make_mlp():
    tl.manual_seed(0)
    return tl.nn.Sequential(tl.nn.Linear(5, 16), tl.nn.ReLU(), tl.nn.Linear(16, 16), tl.nn.Tanh(),
                            tl.nn.Linear(16, 3))


def train(model, device, steps=6):
    rng = np.random.default_rng(1)
    opt = tl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(steps):
        x = tl.tensor(rng.standard_normal((8, 5)), dtype=tl.float32).to(device)
        target = tl.tensor(rng.integers(0, 3, 8)).to(device)
        opt.zero_grad()
        loss = tl.nn.functional.cross_entropy(model(x), target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def test_mlp_trains_on_the_backend_as_on_cpu(npu):
    cpu_model = make_mlp()
    cpu_losses = train(cpu_model, "cpu")
    model = make_mlp().to("npu")
    assert all(p.is_npu for p in model.parameters())
    npu_losses = train(model, "npu")
    assert all(p.is_npu and p.grad.is_npu for p in model.parameters())
    # The same CPU kernels run the same math: equal up to float rounding.
    np.testing.assert_allclose(npu_losses, cpu_losses, rtol=1e-5)
    assert npu_losses[-1] < npu_losses[0]
    for (name, p), q in zip(model.named_parameters(), cpu_model.parameters()):
        np.testing.assert_allclose(arr(p), arr(q), rtol=1e-5, atol=1e-6, err_msg=name)
    # state_dict to CPU and back into a fresh model on the backend.
    state = {k: v.cpu() for k, v in model.state_dict().items()}
    assert all(v.device.type == "cpu" for v in state.values())
    fresh = tl.nn.Sequential(tl.nn.Linear(5, 16), tl.nn.ReLU(), tl.nn.Linear(16, 16), tl.nn.Tanh(),
                             tl.nn.Linear(16, 3)).npu()
    fresh.load_state_dict(state)
    assert all(p.is_npu for p in fresh.parameters())
    x = tl.tensor(np.random.default_rng(2).standard_normal((4, 5)), dtype=tl.float32)
    with tl.no_grad():
        np.testing.assert_array_equal(arr(fresh(x.npu())), arr(model(x.npu())))
        np.testing.assert_allclose(arr(fresh(x.npu())), arr(cpu_model(x)), rtol=1e-5, atol=1e-6)


def test_allocator_counters_return_to_zero(npu):
    gc.collect()
    assert npu.memory_allocated() == 0 and npu.live_blocks() == 0
    made = npu.total_blocks()
    x = tl.ones(256).npu()
    assert npu.memory_allocated() == 256 * 4 and npu.live_blocks() == 1
    model = make_mlp().npu()
    train(model, "npu", steps=2)
    assert npu.memory_allocated() > 0 and npu.max_memory_allocated() >= npu.memory_allocated()
    del x, model
    gc.collect()
    assert npu.memory_allocated() == 0 and npu.live_blocks() == 0
    assert npu.total_blocks() > made + 50  # every intermediate came from the npu allocator


def test_uninstalled_backend_is_unavailable(npu_ext):
    # Outside the `npu` fixture the runtime and the fallback are not registered.
    assert not npu_ext.is_available()
    assert "PrivateUse1: missing" in tl._C._dispatch_dump_table("aten::relu")
    install(npu_ext)
    try:
        assert "PrivateUse1: npu CPU fallback [backend fallback]" in tl._C._dispatch_dump_table("aten::relu")
    finally:
        uninstall(npu_ext)
    assert "PrivateUse1: missing" in tl._C._dispatch_dump_table("aten::relu")
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda, meta, privateuseone device type"):
        tl.device("npu")
    with pytest.raises(RuntimeError, match="'privateuseone' is not available"):
        tl.ones(2).to("privateuseone")
