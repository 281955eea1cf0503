"""torchlike.linalg beyond the op registry: decomposition identities, LAPACK
failures raised as LinAlgError, gradients through symmetric parametrizations
(cholesky, eigh, eigvalsh, pinv(hermitian=True) read one triangle),
second derivatives, out=, the torch-namespace aliases (torch.det,
torch.cholesky_solve, ...), the primitives' own checks, and PyTorch parity
(skipped when torch is absent)."""
import numpy as np
import pytest

import torchlike as tl
from torchlike.autograd.gradcheck import gradcheck, gradgradcheck

LA = tl.linalg
RNG = np.random.default_rng(1234)


def rand(*shape, dtype=tl.float64, shift=0.0, grad=False):
    a = RNG.uniform(-1, 1, shape)
    if shift:
        a = a + shift * np.eye(shape[-1])
    t = tl.tensor(a, dtype=dtype)
    return t.requires_grad_(True) if grad else t


def npy(t):
    return np.asarray(t.detach())


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(npy(a) if isinstance(a, tl.Tensor) else a,
                               npy(b) if isinstance(b, tl.Tensor) else b, rtol=tol, atol=tol)


def spd(X):
    n = X.shape[-1]
    return X @ X.mT + n * tl.eye(n, dtype=X.dtype)


# ---------------------------------------------------------------- identities

@pytest.mark.parametrize("dtype,tol", [(tl.float32, 1e-5), (tl.float64, 1e-12)])
@pytest.mark.parametrize("shape", [(5, 3), (3, 3), (3, 5), (2, 4, 2), (2, 2, 3, 4)])
def test_qr_identities(shape, dtype, tol):
    A = rand(*shape, dtype=dtype)
    m, n = shape[-2:]
    for mode in ("reduced", "complete"):
        Q, R = LA.qr(A, mode=mode)
        k = m if mode == "complete" else min(m, n)
        assert tuple(Q.shape) == tuple(shape[:-2]) + (m, k) and tuple(R.shape) == tuple(shape[:-2]) + (k, n)
        close(Q @ R, A, tol)
        close(Q.mT @ Q, np.broadcast_to(np.eye(k), Q.mT.shape[:-1] + (k,)), tol)
        close(R, np.triu(npy(R)), 0)
    Q, R = LA.qr(A, mode="r")
    assert Q.numel() == 0
    close(R, LA.qr(A).R, tol)


@pytest.mark.parametrize("dtype,tol", [(tl.float32, 1e-5), (tl.float64, 1e-12)])
@pytest.mark.parametrize("shape", [(5, 3), (3, 3), (3, 5), (2, 4, 2)])
def test_svd_identities(shape, dtype, tol):
    A = rand(*shape, dtype=dtype)
    U, S, Vh = LA.svd(A, full_matrices=False)
    close((U * S.unsqueeze(-2)) @ Vh, A, tol)
    Uf, Sf, Vhf = LA.svd(A)
    m, n = shape[-2:]
    assert tuple(Uf.shape[-2:]) == (m, m) and tuple(Vhf.shape[-2:]) == (n, n)
    close(Uf.mT @ Uf, np.broadcast_to(np.eye(m), Uf.shape), tol)
    close(Vhf @ Vhf.mT, np.broadcast_to(np.eye(n), Vhf.shape), tol)
    close(LA.svdvals(A), S, tol)
    assert bool((S[..., :-1] >= S[..., 1:]).all())  # descending


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_identity(upper):
    A = spd(rand(3, 4, 4))
    L = LA.cholesky(A, upper=upper)
    close(L.mT @ L if upper else L @ L.mT, A)
    close(L, np.triu(npy(L)) if upper else np.tril(npy(L)), 0)


def test_eigh_and_eig_identities():
    A = rand(2, 4, 4)
    A = A + A.mT
    w, V = LA.eigh(A)
    close(A @ V, V * w.unsqueeze(-2))
    close(LA.eigvalsh(A), w)
    wu, _ = LA.eigh(A, UPLO="U")
    close(wu, w)
    # eig on a matrix with a real spectrum, float32 too (the registry skips its float32 signs)
    P = rand(3, 3, shift=2.0)
    B = P @ tl.tensor(np.diag([1.0, -2.0, 3.0])) @ LA.inv(P)
    for dt, tol in ((tl.float64, 1e-10), (tl.float32, 1e-4)):
        Bd = B.to(dt)
        w, V = LA.eig(Bd)
        close(Bd @ V, V * w.unsqueeze(-2), tol)
        close(np.sort(npy(LA.eigvals(Bd))), [-2.0, 1.0, 3.0], tol)


def test_lu_identities():
    for shape in [(4, 4), (3, 5), (5, 3), (2, 3, 3)]:
        A = rand(*shape)
        P, L, U = LA.lu(A)
        close(P @ L @ U, A)
        LU, piv = LA.lu_factor(A)
        assert piv.dtype == tl.int32
        P2, L2, U2 = tl.lu_unpack(LU, piv)
        close(P2, P, 0)
        close(L2, L, 0)
        close(U2, U, 0)
    A = rand(2, 4, 4, shift=4)
    B = rand(2, 4, 3)
    LU, piv = LA.lu_factor(A)
    close(LA.lu_solve(LU, piv, B), LA.solve(A, B))
    close(LA.lu_solve(LU, piv, B, adjoint=True), LA.solve(A.mT, B))
    close(LA.lu_solve(LU, piv, B.mT, left=False), LA.solve(A, B.mT, left=False))


def test_det_slogdet_inv_consistency():
    A = rand(3, 4, 4, shift=1)
    sign, logabs = LA.slogdet(A)
    close(sign * tl.exp(logabs), LA.det(A))
    close(A @ LA.inv(A), np.broadcast_to(np.eye(4), (3, 4, 4)))
    P = tl.tensor(np.eye(3)[[1, 0, 2]])  # one row swap: det -1
    close(LA.det(P), -1.0)
    assert float(LA.slogdet(P).sign) == -1.0


def test_matrix_exp_identities():
    A = rand(3, 3)
    close(LA.matrix_exp(A) @ LA.matrix_exp(-A), np.eye(3), 1e-12)
    D = tl.tensor(np.diag([1.0, -2.0, 30.0]))  # large norm: scaling and squaring
    close(LA.matrix_exp(D), np.diag(np.exp([1.0, -2.0, 30.0])), 1e-11 * np.exp(30))


def test_pinv_lstsq_rank_deficient():
    A = tl.tensor([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]], dtype=tl.float64)
    close(LA.pinv(A), np.linalg.pinv(npy(A)))
    assert int(LA.matrix_rank(A)) == 1
    B = tl.tensor([[1.0], [2.0], [3.0]], dtype=tl.float64)
    sol = LA.lstsq(A, B, driver="gelsd")
    close(sol.solution, np.linalg.lstsq(npy(A), npy(B), rcond=None)[0])
    assert int(sol.rank) == 1
    assert sol.residuals.numel() == 0  # not full rank: no residuals, as PyTorch


def test_ldl_factor_reconstructs_indefinite_matrices():
    from opinfo.linalg import ldl_reconstruct
    for dt, tol in ((tl.float64, 1e-12), (tl.float32, 1e-5)):
        A = rand(3, 5, 5)
        A = A + A.mT
        A = (A - A * tl.eye(5, dtype=A.dtype)).to(dt)  # zero diagonal: indefinite, forces 2x2 pivots
        LD, piv = LA.ldl_factor(A)
        close(ldl_reconstruct(npy(LD), npy(piv)), A, tol)
        B = rand(3, 5, 2).to(dt)
        close(LA.ldl_solve(LD, piv, B), LA.solve(A, B), tol * 100)
    assert bool((piv < 0).any())  # the sample really exercises 2x2 pivots
    with pytest.raises(RuntimeError, match="derivative for aten::_linalg_sytrf is not implemented"):
        LA.ldl_factor(rand(3, 3, grad=True)).LD.sum().backward()


# ---------------------------------------------------------------- LAPACK failures

def test_linalg_error_is_runtime_error():
    assert issubclass(LA.LinAlgError, RuntimeError)
    assert set(LA.common_notes) == {"experimental_warning", "sync_note", "sync_note_ex", "sync_note_has_ex"}
    with pytest.raises(LA.LinAlgError, match=r"linalg.inv: The diagonal element 2 is zero"):
        LA.inv(tl.tensor([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(LA.LinAlgError, match=r"\(Batch element 1\)"):
        LA.cholesky(tl.stack([tl.eye(2), -tl.eye(2)]))
    with pytest.raises(LA.LinAlgError, match="leading minor of order 2"):
        LA.cholesky(tl.tensor([[1.0, 0.0], [0.0, -1.0]]))
    with pytest.raises(LA.LinAlgError, match="singular"):
        LA.solve(tl.zeros(2, 3, 3), tl.ones(2, 3, 1))


def test_ex_variants_report_info_without_raising():
    A = tl.stack([tl.eye(3), tl.zeros(3, 3), tl.eye(3)])
    inv_, info = LA.inv_ex(A)
    assert info.dtype == tl.int32 and info.tolist() == [0, 1, 0]
    assert LA.cholesky_ex(tl.tensor([[1.0, 0.0], [0.0, -1.0]])).info.item() == 2
    assert LA.solve_ex(tl.zeros(3, 3), tl.ones(3)).info.item() == 1
    assert LA.lu_factor_ex(tl.zeros(2, 2)).info.item() == 1
    with pytest.raises(LA.LinAlgError):
        LA.inv_ex(A, check_errors=True)


def test_eig_complex_spectrum_raises():
    with pytest.raises(RuntimeError, match="complex eigenvalues"):
        LA.eigvals(tl.tensor([[0.0, 1.0], [-1.0, 0.0]]))


def test_primitives_check_their_inputs():
    with pytest.raises(RuntimeError, match="_linalg_getrf: expected a float32 or float64 tensor"):
        tl._linalg_getrf(tl.ones(2, 2, dtype=tl.float16))
    with pytest.raises(RuntimeError, match="_linalg_gesv: A must be batches of square matrices"):
        tl._linalg_gesv(tl.ones(2, 3), tl.ones(2, 1))
    with pytest.raises(RuntimeError, match="_linalg_trsm: A and B must have the same batch dimensions"):
        tl._linalg_trsm(tl.ones(2, 2, 2), tl.ones(3, 2, 1), True, True, False)
    with pytest.raises(RuntimeError, match="pivots must be 1-based row indices"):
        tl._linalg_lu_perm(tl.tensor([5, 2], dtype=tl.int32), 2)
    m = tl._linalg_geev(tl.empty(4, 3, 3, device="meta"))
    assert [tuple(t.shape) for t in m] == [(4, 2, 3), (4, 3, 3), (4,)]


def test_out_and_return_types():
    A = rand(3, 3, shift=3)
    out = tl.empty(3, 3, dtype=tl.float64)
    r = LA.inv(A, out=out)
    assert r is out
    close(out, LA.inv(A))
    q, r_ = tl.empty(3, 3, dtype=tl.float64), tl.empty(3, 3, dtype=tl.float64)
    res = LA.qr(A, out=(q, r_))
    assert res.Q is q and res.R is r_
    with pytest.raises(RuntimeError, match="Expected out tensor to have shape"):
        LA.inv(A, out=tl.empty(2, 2, dtype=tl.float64))
    assert type(LA.svd(A)).__name__ == "linalg_svd" and LA.svd(A)._fields == ("U", "S", "Vh")


# ---------------------------------------------------------------- gradients

SYM_GRADS = {
    "cholesky": lambda X: LA.cholesky(spd(X)),
    "cholesky_upper": lambda X: LA.cholesky(spd(X), upper=True),
    "cholesky_ex": lambda X: LA.cholesky_ex(spd(X)).L,
    "eigh": lambda X: (lambda w, V: (w, V * V))(*LA.eigh(X + X.mT)),
    "eigh_upper": lambda X: (lambda w, V: (w, V * V))(*LA.eigh(X + X.mT, UPLO="U")),
    "eigvalsh": lambda X: LA.eigvalsh(X + X.mT),
    "pinv_hermitian": lambda X: LA.pinv(spd(X), hermitian=True),
    "cholesky_solve": lambda X: tl.cholesky_solve(X[..., :1], LA.cholesky(spd(X))),
    "cholesky_inverse": lambda X: tl.cholesky_inverse(LA.cholesky(spd(X))),
}


@pytest.mark.parametrize("name", sorted(SYM_GRADS))
def test_symmetric_gradients(name):
    X = rand(2, 3, 3, grad=True)
    assert gradcheck(SYM_GRADS[name], [X])
    assert gradgradcheck(SYM_GRADS[name], [X])


SECOND_ORDER = {
    "inv": (lambda A: LA.inv(A), [(3, 3)], 3.0),
    "det": (lambda A: LA.det(A), [(2, 3, 3)], 3.0),
    "slogdet": (lambda A: LA.slogdet(A).logabsdet, [(3, 3)], 3.0),
    "solve": (lambda A, B: LA.solve(A, B), [(3, 3), (3, 2)], 3.0),
    "solve_triangular": (lambda A, B: LA.solve_triangular(A, B, upper=True), [(3, 3), (3, 2)], 3.0),
    "qr": (lambda A: tuple(LA.qr(A)), [(4, 3)], 0.0),
    "svd": (lambda A: (lambda U, S, Vh: (S, U * U, Vh * Vh))(*LA.svd(A, full_matrices=False)), [(4, 3)], 0.0),
    "lu_factor": (lambda A: LA.lu_factor(A).LU, [(3, 3)], 0.0),
    "matrix_exp": (lambda A: LA.matrix_exp(A), [(3, 3)], 0.0),
    "matrix_norm_2": (lambda A: LA.matrix_norm(A, 2), [(3, 4)], 0.0),
    "lstsq": (lambda A, B: LA.lstsq(A, B).solution, [(5, 3), (5, 2)], 0.0),
    "householder_product": (lambda A, t: LA.householder_product(A, t), [(4, 3), (2,)], 0.0),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_derivatives(name):
    f, shapes, shift = SECOND_ORDER[name]
    inputs = [rand(*s, shift=shift if len(s) >= 2 and s[-1] == s[-2] else 0.0, grad=True) for s in shapes]
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


def test_det_gradient_of_singular_matrix():
    A = tl.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], dtype=tl.float64, requires_grad=True)
    assert gradcheck(LA.det, [A])
    LA.det(A).backward()
    adj_t = np.array([[4.0, 4.0, -4.0], [-2.0, -2.0, 2.0], [0.0, 0.0, 0.0]])  # cofactor matrix of A
    close(A.grad, adj_t)


def test_eig_gradient():
    P = rand(3, 3, shift=2.0)
    A = (P @ tl.tensor(np.diag([1.0, 2.0, -3.0])) @ LA.inv(P)).detach().requires_grad_(True)
    assert gradcheck(lambda A: (lambda w, V: (w, V * V))(*LA.eig(A)), [A])


def test_qr_mode_r_and_complete_tall_are_not_differentiable():
    A = rand(4, 3, grad=True)
    with pytest.raises(RuntimeError, match="mode='r'"):
        LA.qr(A, mode="r").R.sum().backward()
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete' and nrows > ncols"):
        LA.qr(A, mode="complete").Q.sum().backward()


# ---------------------------------------------------------------- torch-namespace aliases

def test_torch_namespace_aliases():
    A = rand(2, 3, 3, shift=3)
    close(tl.det(A), LA.det(A))
    close(tl.inverse(A), LA.inv(A))
    close(tl.slogdet(A).logabsdet, LA.slogdet(A).logabsdet)
    close(tl.matrix_power(A, 3), A @ A @ A)
    close(tl.matrix_exp(A), LA.matrix_exp(A))
    close(tl.pinverse(A), LA.pinv(A))
    neg = tl.tensor([[-1.0, 0.0], [0.0, 1.0]], dtype=tl.float64)
    assert np.isnan(float(tl.logdet(neg)))
    assert float(tl.logdet(tl.zeros(2, 2))) == -np.inf
    S = spd(rand(3, 3))
    L = tl.cholesky(S)
    B = rand(3, 2)
    close(tl.cholesky_solve(B, L), LA.solve(S, B))
    close(tl.cholesky_solve(B, L.mT, upper=True), LA.solve(S, B))
    close(tl.cholesky_inverse(L), LA.inv(S))
    U, Sv, V = tl.svd(A[0])
    close((U * Sv) @ V.mT, A[0])
    Uz, _, Vz = tl.svd(A[0], compute_uv=False)
    assert float(Uz.abs().sum()) == 0 and tuple(Vz.shape) == (3, 3)
    close(tl.qr(A).Q, LA.qr(A).Q)
    T = tl.tensor(np.triu(npy(A[0])))
    X, Tc = tl.triangular_solve(B, T)
    close(T @ X, B)
    close(Tc, T, 0)
    X, _ = tl.triangular_solve(B, T, transpose=True)
    close(T.mT @ X, B)
    close(tl.chain_matmul(A[0], A[1], A[0]), A[0] @ A[1] @ A[0])


# ---------------------------------------------------------------- PyTorch parity

def _torch():
    return pytest.importorskip("torch")


PARITY = [
    ("inv", lambda m, A: m.linalg.inv(A), "sq"),
    ("det", lambda m, A: m.linalg.det(A), "sq"),
    ("slogdet", lambda m, A: tuple(m.linalg.slogdet(A)), "sq"),
    ("cholesky", lambda m, A: m.linalg.cholesky(A @ A.mT + 3 * m.eye(3, dtype=A.dtype)), "sq"),
    ("qr", lambda m, A: tuple(m.linalg.qr(A)), "rect"),
    ("svdvals", lambda m, A: m.linalg.svdvals(A), "rect"),
    ("pinv", lambda m, A: m.linalg.pinv(A), "rect"),
    ("matrix_exp", lambda m, A: m.linalg.matrix_exp(A), "sq"),
    ("norm_nuc", lambda m, A: m.linalg.matrix_norm(A, "nuc"), "rect"),
    ("vector_norm", lambda m, A: m.linalg.vector_norm(A, 3, dim=-1), "rect"),
    ("cond", lambda m, A: m.linalg.cond(A), "sq"),
    ("lu_factor", lambda m, A: tuple(m.linalg.lu_factor(A)), "sq"),
    ("eigvalsh", lambda m, A: m.linalg.eigvalsh(A + A.mT), "sq"),
    ("solve_triangular", lambda m, A: m.linalg.solve_triangular(A, A.mT, upper=False, left=False), "sq"),
    ("lstsq", lambda m, A: m.linalg.lstsq(A, A[..., :2]).solution, "rect"),
    ("vander", lambda m, A: m.linalg.vander(A[..., 0, :]), "rect"),
    ("ldl_factor", lambda m, A: tuple(m.linalg.ldl_factor((A + A.mT).detach() - 3 * m.eye(3, dtype=A.dtype))), "sq"),
]


@pytest.mark.parametrize("name", [p[0] for p in PARITY])
def test_pytorch_parity_values_and_grads(name):
    torch = _torch()
    f, kind = next((f, k) for n, f, k in PARITY if n == name)
    a = RNG.uniform(-1, 1, (2, 3, 3) if kind == "sq" else (2, 4, 3))
    if kind == "sq":
        a = a + 3 * np.eye(3)
    ta = torch.tensor(a, requires_grad=True)
    la = tl.tensor(a).requires_grad_(True)
    rt, rl = f(torch, ta), f(tl, la)
    rt = rt if isinstance(rt, tuple) else (rt,)
    rl = rl if isinstance(rl, tuple) else (rl,)
    for x, y in zip(rt, rl):
        np.testing.assert_allclose(np.asarray(y.detach()), x.detach().numpy(), rtol=1e-10, atol=1e-10)
    lt = sum((x * x).sum() for x in rt if x.is_floating_point() and x.requires_grad)
    ll = sum((y * y).sum() for y in rl if y.is_floating_point() and y.requires_grad)
    if isinstance(lt, int):
        return
    lt.backward()
    ll.backward()
    np.testing.assert_allclose(npy(la.grad), ta.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_pytorch_parity_errors():
    torch = _torch()
    for mod in (torch, tl):
        with pytest.raises(RuntimeError, match="The diagonal element 1 is zero"):
            mod.linalg.inv(mod.zeros(3, 3))
        with pytest.raises(RuntimeError, match="A must be batches of square matrices, but they are 3 by 4"):
            mod.linalg.det(mod.zeros(3, 4))
        with pytest.raises(RuntimeError, match="Low precision dtypes not supported. Got Half"):
            mod.linalg.inv(mod.zeros(3, 3, dtype=mod.float16))
    assert issubclass(torch.linalg.LinAlgError, RuntimeError) and issubclass(tl.linalg.LinAlgError, RuntimeError)
    a = np.random.default_rng(0).uniform(-1, 1, (2, 4, 3))
    rt, rl = torch.linalg.lstsq(torch.tensor(a), torch.tensor(a[..., :2]), driver="gelsd"), \
        LA.lstsq(tl.tensor(a), tl.tensor(a[..., :2]), driver="gelsd")
    for x, y in zip(rt, rl):
        assert tuple(x.shape) == tuple(y.shape)


EMPTY_CASES = {
    "det": lambda m, A: m.linalg.det(A), "slogdet": lambda m, A: tuple(m.linalg.slogdet(A)),
    "inv": lambda m, A: m.linalg.inv(A), "cholesky": lambda m, A: m.linalg.cholesky(A),
    "qr": lambda m, A: tuple(m.linalg.qr(A)), "qr_complete": lambda m, A: tuple(m.linalg.qr(A, "complete")),
    "svd": lambda m, A: tuple(m.linalg.svd(A)), "svd_reduced": lambda m, A: tuple(m.linalg.svd(A, False)),
    "svdvals": lambda m, A: m.linalg.svdvals(A), "eigh": lambda m, A: tuple(m.linalg.eigh(A)),
    "lu_factor": lambda m, A: tuple(m.linalg.lu_factor(A)), "lu": lambda m, A: tuple(m.linalg.lu(A)),
    "pinv": lambda m, A: m.linalg.pinv(A), "matrix_rank": lambda m, A: m.linalg.matrix_rank(A),
    "norm": lambda m, A: m.linalg.norm(A), "matrix_norm_2": lambda m, A: m.linalg.matrix_norm(A, 2),
    "matrix_exp": lambda m, A: m.linalg.matrix_exp(A), "matrix_power_0": lambda m, A: m.linalg.matrix_power(A, 0),
    "cond": lambda m, A: m.linalg.cond(A),
}


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3), (3, 0), (0, 3), (1, 1)])
def test_pytorch_parity_empty_and_1x1(shape):
    """Empty matrices and batches (and 1x1) give PyTorch's shapes and values, or
    raise where PyTorch raises."""
    torch = _torch()
    a = np.full(shape, 2.0)
    for name, f in EMPTY_CASES.items():
        try:
            rt, et = f(torch, torch.tensor(a)), None
        except RuntimeError as e:
            rt, et = None, e
        if et is not None:
            with pytest.raises(RuntimeError):
                f(tl, tl.tensor(a))
            continue
        rl = f(tl, tl.tensor(a))
        rt, rl = (rt if isinstance(rt, tuple) else (rt,)), (rl if isinstance(rl, tuple) else (rl,))
        for x, y in zip(rt, rl):
            assert tuple(x.shape) == tuple(y.shape), f"{name}{shape}"
            np.testing.assert_allclose(np.asarray(y), x.numpy(), rtol=1e-12, atol=1e-12, err_msg=f"{name}{shape}")
