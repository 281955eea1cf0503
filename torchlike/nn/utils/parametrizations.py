"""The parametrization-based orthogonal, spectral_norm and weight_norm.

Each is a small module registered with parametrize.register_parametrization: its
forward maps the stored tensor(s) to the weight the layer uses, and its right_inverse
maps a weight back to what is stored (so assigning module.weight works).
"""
from enum import Enum, auto

import torchlike
import torchlike.nn.functional as F
from torchlike.nn.modules.module import Module
from torchlike.nn.utils import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---------------------------------------------------------------------------------------
# orthogonal
class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


def _conj_t(x):
    return x.mH if x.is_complex() else x.mT


def _orthonormal_columns(a):
    """Q of a = QR with R's diagonal made real and non-negative: the orthogonalization
    closest in spirit to the input (it keeps the span of every leading column set)."""
    q, r = torchlike.linalg.qr(a)
    d = r.diagonal(dim1=-2, dim2=-1)
    signs = d.sgn() if d.is_complex() else torchlike.where(d < 0, -torchlike.ones_like(d), torchlike.ones_like(d))
    return q * signs.unsqueeze(-2)


def _householder_qr(a):
    """LAPACK geqrf's output for a real (..., n, k) matrix with n >= k: R on and above
    the diagonal, the reflector tails below it (leading 1 implied), and tau, so that
    a = H_1 ... H_k R with H_j = I - tau_j v_j v_j^T. Used only by right_inverse, on
    small matrices, so a column loop is fine."""
    batch = a.shape[:-2]
    n, k = a.shape[-2], a.shape[-1]
    mats = a.reshape(-1, n, k).clone()
    taus = mats.new_zeros(mats.shape[0], k)
    for b in range(mats.shape[0]):
        m = mats[b]
        for j in range(min(n, k)):
            alpha = float(m[j, j])
            tail_norm = float(torchlike.linalg.vector_norm(m[j + 1:, j])) if j + 1 < n else 0.0
            if tail_norm == 0.0:
                continue  # already upper triangular in this column: no reflection (tau = 0)
            beta = -(1.0 if alpha >= 0 else -1.0) * (alpha * alpha + tail_norm * tail_norm) ** 0.5
            tau = (beta - alpha) / beta
            v = m[j + 1:, j] / (alpha - beta)
            full_v = torchlike.cat([m.new_ones(1), v])
            rest = m[j:, j + 1:]
            if rest.numel():
                rest -= tau * torchlike.outer(full_v, full_v @ rest)
            m[j, j] = beta
            m[j + 1:, j] = v
            taus[b, j] = tau
    return mats.reshape(a.shape), taus.reshape(batch + (k,))


def _has_orthonormal_columns(q):
    k = q.shape[-1]
    eye = torchlike.eye(k, dtype=q.dtype, device=q.device)
    tol = 10.0 * q.shape[-2] * torchlike.finfo(q.dtype).eps
    return bool(torchlike.allclose(_conj_t(q) @ q, eye, atol=tol))


class _Orthogonal(Module):
    """Maps a stored (..., n, k) tensor X (n >= k after transposing wide weights) to a
    matrix with orthonormal columns:

    - matrix_exp / cayley: A = L - L^H with L the lower triangle of X padded to n x n,
      Q = exp(A) or (I + A/2)(I - A/2)^{-1}, keeping the first k columns;
    - householder: the product of the reflectors stored below X's diagonal (unit
      leading entry, tau = 2 / (1 + |v|^2)), each column then scaled by the integer
      part of X's diagonal, which right_inverse sets to -1 and which therefore
      encodes a sign.

    With trivialization the result is further multiplied on the left by `base`, an
    n x n unitary buffer, and right_inverse stores the target in base and resets X to
    the point that maps to the identity."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        wide = n < k
        if wide:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            lower = X.tril()
            if n != k:
                pad = lower.new_zeros(lower.shape[:-1] + (n - k,))
                lower = torchlike.cat([lower, pad], dim=-1)
            skew = lower - _conj_t(lower)
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = torchlike.matrix_exp(skew)
            else:
                eye = torchlike.eye(n, dtype=X.dtype, device=X.device)
                # (I + A/2)(I - A/2)^{-1} = solve((I - A/2)^T, (I + A/2)^T)^T
                Q = torchlike.linalg.solve(_conj_t(eye - skew / 2.0), _conj_t(eye + skew / 2.0))
                Q = _conj_t(Q)
            if n != k:
                Q = Q[..., :k]
        else:
            reflectors = X.tril(-1)
            tau = 2.0 / (1.0 + (reflectors * reflectors).sum(dim=-2))
            Q = torchlike.linalg.householder_product(reflectors, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).trunc().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if wide:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        with torchlike.no_grad():
            wide = Q.size(-2) < Q.size(-1)
            if wide:
                Q = Q.mT
            n, k = Q.size(-2), Q.size(-1)
            if not _has_orthonormal_columns(Q):
                Q = _orthonormal_columns(Q)
            if hasattr(self, "base"):
                # The target goes into base (completed to an n x n unitary); the stored
                # X becomes -I, which every map sends to the first k columns of I.
                if n > k:
                    extra = torchlike.randn(Q.shape[:-1] + (n - k,), dtype=Q.dtype, device=Q.device)
                    full = _orthonormal_columns(torchlike.cat([Q, extra], dim=-1))
                    Q = torchlike.cat([Q, full[..., k:]], dim=-1)
                self.base = Q
                stored = -torchlike.eye(n, k, dtype=Q.dtype, device=Q.device).expand(Q.shape[:-2] + (n, k))
                stored = stored.clone()
            else:
                if self.orthogonal_map != _OrthMaps.householder:
                    raise NotImplementedError("It is not possible to assign to the matrix exponential or the "
                                              "Cayley parametrizations when use_trivialization=False.")
                # Q = H_1...H_k diag(R) with the reflectors and R from geqrf. forward
                # rebuilds the H_i from the reflectors alone (tau = 2/(1+|v|^2)), which
                # turns a skipped reflection (tau = 0) into a sign flip of its column;
                # the stored diagonal (the sign forward multiplies by) undoes it.
                reflectors, tau = _householder_qr(Q)
                r_diag = reflectors.diagonal(dim1=-2, dim2=-1)
                signs = torchlike.where(r_diag < 0, -torchlike.ones_like(r_diag), torchlike.ones_like(r_diag))
                signs = torchlike.where(tau == 0, -signs, signs)
                stored = reflectors.clone()
                stored.diagonal(dim1=-2, dim2=-1).copy_(signs)
            return stored.mT if wide else stored


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Constrains module.<name> (a matrix or batch of matrices) to have orthonormal
    columns (tall) or rows (wide), through the "matrix_exp", "cayley" or "householder"
    map; the default is "matrix_exp" for square or complex matrices and "householder"
    otherwise. The initial value is the current one, orthogonalised by QR if needed."""
    weight = getattr(module, name, None)
    if not isinstance(weight, torchlike.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    n, k = weight.size(-2), weight.size(-1)
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if n == k or weight.is_complex() else "householder"
    try:
        map_kind = _OrthMaps[orthogonal_map]
    except KeyError:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}") from None
    orth = _Orthogonal(weight, map_kind, use_trivialization=use_trivialization)
    # Registered unsafe: right_inverse may legitimately be unable to represent the
    # current value (matrix_exp/cayley without trivialization), and the stored X
    # of a wide matrix has the transposed shape's role.
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


# ---------------------------------------------------------------------------------------
# weight_norm
def _norm_over_other_dims(v, dim):
    """|v| over every dimension except `dim`, keeping dims; over everything for dim=-1."""
    if dim == -1:
        return torchlike.linalg.vector_norm(v)
    return torchlike.norm_except_dim(v, 2, dim)


class _WeightNorm(Module):
    """weight = g * v / |v|, the norm taken over every dimension but `dim`."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / _norm_over_other_dims(weight_v, self.dim))

    def right_inverse(self, weight):
        return _norm_over_other_dims(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrizes module.<name> as g * v / |v| with g (the magnitude, one per slice
    along `dim`, or a scalar for dim=None) stored as original0 and v (the direction)
    as original1."""
    wn = _WeightNorm(dim)
    parametrize.register_parametrization(module, name, wn, unsafe=True)

    def upgrade_old_keys(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        # Checkpoints of the hook-based weight_norm name the halves <name>_g / <name>_v.
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(upgrade_old_keys)
    return module


# ---------------------------------------------------------------------------------------
# spectral_norm
class _SpectralNorm(Module):
    """weight / sigma, sigma the largest singular value of the weight viewed as a
    (size(dim), -1) matrix, estimated by power iteration on the buffers _u and _v
    (advanced in training mode only). A 1-D weight is simply normalised."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            mat = self._as_matrix(weight)
            rows, cols = mat.shape
            u = F.normalize(mat.new_empty(rows).normal_(0, 1), dim=0, eps=self.eps)
            v = F.normalize(mat.new_empty(cols).normal_(0, 1), dim=0, eps=self.eps)
            self.register_buffer("_u", u)
            self.register_buffer("_v", v)
            # Start from a good estimate rather than a random one.
            self._iterate(mat, 15)

    def _as_matrix(self, weight):
        if self.dim != 0:
            weight = weight.movedim(self.dim, 0)
        return weight.flatten(1)

    def _iterate(self, mat, steps):
        with torchlike.no_grad():
            for _ in range(steps):
                self._v = F.normalize(torchlike.mv(_conj_t(mat), self._u), dim=0, eps=self.eps)
                self._u = F.normalize(torchlike.mv(mat, self._v), dim=0, eps=self.eps)

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        mat = self._as_matrix(weight)
        if self.training:
            self._iterate(mat, self.n_power_iterations)
        # Clones so that a later in-place update of the buffers does not invalidate
        # the graph of this forward.
        u = self._u.clone(memory_format=torchlike.contiguous_format)
        v = self._v.clone(memory_format=torchlike.contiguous_format)
        sigma = torchlike.vdot(u, torchlike.mv(mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divides module.<name> by its spectral norm, estimated with n_power_iterations
    power-iteration steps per training forward (dim: the output dimension, 1 for the
    transposed convolutions and 0 otherwise)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, torchlike.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        transposed = (torchlike.nn.ConvTranspose1d, torchlike.nn.ConvTranspose2d, torchlike.nn.ConvTranspose3d) \
            if hasattr(torchlike.nn, "ConvTranspose1d") else ()
        dim = 1 if transposed and isinstance(module, transposed) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
