"""The user-facing C++ API (aten/ATen.h): generated at::Tensor methods, at::
functions on at::Tensor and operators, exercised by csrc/python/CppApiTesting.cpp
and checked here against NumPy; plus the build property the TensorBase/Tensor
split exists for (library code never includes the generated TensorBody.h)."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import torchlike as torch
from torchlike._C import _VariableFunctions as VF

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def ab():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4))
    b = rng.standard_normal((3, 4))
    return a, b, torch.tensor(a), torch.tensor(b)


def check(got, want, dtype=None):
    got = got.numpy()
    want = np.asarray(want)
    assert got.shape == want.shape
    if dtype is not None:
        assert got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_methods(ab):
    a, b, ta, tb = ab
    r = VF._cpp_api_test("methods", ta, tb)
    check(r[0], a + 2 * b)
    check(r[1], a + 3, np.float64)
    check(r[2], np.exp(a * 2.5 - b))
    check(r[3], a.sum(1, keepdims=True))
    check(r[4], a.sum(0))
    check(r[5], a @ b.T)
    check(r[6], a.max(1))
    check(r[7], a.argmax(1))
    check(r[8], a.T.reshape(-1))
    check(r[9], a[1])
    check(r[10], (a ** 2).mean())
    check(r[11], np.clip(a, -0.5, 0.5))
    assert r[12].dtype == torch.float32
    check(r[12], a.astype(np.float32))
    check(r[13], a[2:])
    check(r[14], a[1:3])


def test_functions(ab):
    a, b, ta, tb = ab
    r = VF._cpp_api_test("functions", ta, tb)
    check(r[0], np.where(a > 0, a, b))
    check(r[1], np.zeros((2, 3)), np.float64)
    check(r[2], np.arange(5), np.int64)   # integer end: int64, as in PyTorch
    check(r[3], a - b)
    check(r[4], a * 2, np.float64)        # a number keeps the tensor's dtype
    check(r[5], a @ b.T)
    check(r[6], a.sum())


def test_operators(ab):
    a, b, ta, tb = ab
    r = VF._cpp_api_test("operators", ta, tb)
    check(r[0], -a + b * 2 - a / 3)
    check(r[1], 1 - a)
    check(r[2], a < b)
    check(r[3], (a >= 0.25) & (b < 0.5))
    check(r[4], (a + b) * 2)


def test_inplace_methods_return_self(ab):
    a, b, ta, tb = ab
    r = VF._cpp_api_test("inplace", ta, tb)
    check(r[0], a * 2 + b - 1)
    assert r[1].item() is True
    check(r[2], a + b)
    assert r[3].item() is True
    check(r[4], a.max(1))
    check(r[5], a.argmax(1))
    assert r[6].item() is True
    np.testing.assert_array_equal(ta.numpy(), a)  # inputs untouched


def test_integer_tensor_with_number_keeps_dtype():
    t = torch.arange(6).reshape(2, 3)
    r = VF._cpp_api_test("functions", t, t)
    assert r[4].dtype == torch.int64
    np.testing.assert_array_equal(r[4].numpy(), np.arange(6).reshape(2, 3) * 2)


def test_errors_surface_as_python_exceptions():
    with pytest.raises(RuntimeError, match="must match the size"):
        VF._cpp_api_test("methods", torch.ones(3, 4), torch.ones(2, 5))
    with pytest.raises(ValueError, match="unknown scenario"):
        VF._cpp_api_test("nope", torch.ones(1), torch.ones(1))


def _ninja_deps():
    """{object file: [headers it included]} from ninja's dependency log, or None."""
    build = os.path.join(ROOT, "build", "ninja")
    ninja = shutil.which("ninja")
    if not os.path.exists(os.path.join(build, ".ninja_deps")) or ninja is None:
        return None
    out = subprocess.run([ninja, "-C", build, "-t", "deps"], capture_output=True, text=True).stdout
    deps, cur = {}, None
    for line in out.splitlines():
        if line and not line[0].isspace() and ": #deps" in line:
            cur = os.path.basename(line.split(":")[0])
            deps[cur] = []
        elif line.strip() and cur is not None:
            deps[cur].append(line.strip())
    return deps


@pytest.mark.skipif(_ninja_deps() is None, reason="no ninja build folder (not an in-place build)")
def test_library_code_does_not_include_tensor_body():
    """Adding an operator rewrites TensorBody.h/Functions.h; only the C++ API
    test file may depend on them, so such an edit rebuilds seconds, not everything."""
    deps = _ninja_deps()
    assert len(deps) > 100
    users = sorted(obj for obj, hs in deps.items()
                   if any(h.endswith(("generated/TensorBody.h", "generated/Functions.h")) for h in hs))
    assert users == ["csrc_python_CppApiTesting.cpp.o"], users
