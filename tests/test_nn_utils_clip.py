"""nn.utils gradient clipping and parameter vectors, against exact math (and PyTorch)."""
import math

import numpy as np
import pytest

import torchlike
import torchlike.nn as nn
from torchlike.nn import utils
from conftest import requires_torch


def _params(grads):
    ps = []
    for g in grads:
        p = nn.Parameter(torchlike.zeros(len(g)))
        p.grad = torchlike.tensor(g)
        ps.append(p)
    return ps


@pytest.mark.parametrize("foreach", [None, False, True])
@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, "inf", float("inf")])
def test_clip_grad_norm_matches_formula(foreach, norm_type):
    grads = [[3.0, -4.0], [1.0, 2.0, -2.0]]
    ps = _params(grads)
    flat = np.concatenate([np.array(g) for g in grads])
    p = float(norm_type)
    expected = np.abs(flat).max() if math.isinf(p) else (np.abs(flat) ** p).sum() ** (1 / p)
    if foreach and not hasattr(torchlike, "_foreach_norm"):
        with pytest.raises(RuntimeError, match="foreach=True"):
            utils.clip_grad_norm_(ps, 1.0, norm_type=norm_type, foreach=foreach)
        return
    total = utils.clip_grad_norm_(ps, 1.0, norm_type=norm_type, foreach=foreach)
    assert total.dim() == 0 and abs(total.item() - expected) < 1e-5
    coef = min(1.0, 1.0 / (expected + 1e-6))
    for prm, g in zip(ps, grads):
        np.testing.assert_allclose(prm.grad.numpy(), np.array(g) * coef, rtol=1e-5)


def test_clip_grad_norm_no_change_below_max_and_single_tensor():
    (p,) = _params([[0.3, 0.4]])
    total = utils.clip_grad_norm_(p, 10.0)  # a bare tensor is accepted
    assert abs(total.item() - 0.5) < 1e-6
    np.testing.assert_allclose(p.grad.numpy(), [0.3, 0.4], rtol=1e-5)
    assert utils.clip_grad_norm_([], 1.0).item() == 0.0
    q = nn.Parameter(torchlike.ones(2))  # no grad: skipped
    assert utils.clip_grad_norm_([q], 1.0).item() == 0.0 and q.grad is None


def test_clip_grad_norm_nonfinite():
    ps = _params([[1.0, float("nan")]])
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
    total = utils.clip_grad_norm_(ps, 1.0)
    assert math.isnan(total.item())


def test_clip_grad_norm_deprecated_alias_and_value():
    ps = _params([[3.0, -4.0]])
    with pytest.warns(FutureWarning, match="clip_grad_norm_"):
        total = utils.clip_grad_norm(ps, 1.0)
    assert abs(total.item() - 5.0) < 1e-6
    ps = _params([[3.0, -4.0, 0.5]])
    assert utils.clip_grad_value_(ps, 1.0) is None
    np.testing.assert_allclose(ps[0].grad.numpy(), [1.0, -1.0, 0.5])


def test_get_total_norm_and_clip_with_norm():
    ts = [torchlike.tensor([3.0]), torchlike.tensor([4.0])]
    assert abs(utils.get_total_norm(ts).item() - 5.0) < 1e-6
    ps = _params([[3.0], [4.0]])
    utils.clip_grads_with_norm_(ps, 1.0, torchlike.tensor(5.0))
    np.testing.assert_allclose([ps[0].grad.item(), ps[1].grad.item()], [0.6, 0.8], rtol=1e-5)


def test_parameters_to_vector_roundtrip():
    m = nn.Linear(3, 2)
    vec = utils.parameters_to_vector(m.parameters())
    assert vec.shape == (8,)
    np.testing.assert_allclose(vec[:6].detach().numpy(), m.weight.detach().numpy().reshape(-1))
    utils.vector_to_parameters(torchlike.arange(8.0), m.parameters())
    np.testing.assert_allclose(m.weight.detach().numpy(), np.arange(6.0).reshape(2, 3))
    np.testing.assert_allclose(m.bias.detach().numpy(), [6.0, 7.0])
    assert isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        utils.vector_to_parameters([1.0], m.parameters())


@requires_torch
def test_clip_parity_with_pytorch():
    import torch
    rng = np.random.default_rng(0)
    shapes = [(3, 4), (5,), (2, 2, 2)]
    grads = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    for norm_type in (2.0, 1.0, "inf", 0.5):
        res = []
        for lib in (torchlike, torch):
            ps = []
            for g in grads:
                p = lib.nn.Parameter(lib.zeros(g.shape))
                p.grad = lib.from_numpy(g.copy())
                ps.append(p)
            total = lib.nn.utils.clip_grad_norm_(ps, 0.7, norm_type=norm_type)
            res.append((total.item(), [p.grad.numpy().copy() for p in ps]))
        assert abs(res[0][0] - res[1][0]) < 1e-4 * max(1, abs(res[1][0]))
        for a, b in zip(res[0][1], res[1][1]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
