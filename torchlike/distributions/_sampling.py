"""Samplers torchlike has no kernel for yet, written over torchlike ops:
standard gamma (Marsaglia-Tsang) with an implicit reparameterisation
gradient, and von Mises (Best-Fisher)."""
import math

import torchlike
from torchlike.autograd import Function


def _gamma_draw(alpha):
    """Standard Gamma(alpha) variates, same shape as alpha (no autograd).

    Marsaglia & Tsang (2000): for a >= 1 with d = a - 1/3, c = 1/sqrt(9d),
    v = (1 + c z)^3 is accepted when log u < z^2/2 + d - d v + d log v, and
    d v is then Gamma(a). For a < 1 draw Gamma(a + 1) and scale by
    u^(1/a). Rejected entries are redrawn until none is left; acceptance
    is above 95%, so the loop runs a handful of times."""
    work = alpha.detach().to(torchlike.float64).reshape(-1)
    small = work < 1
    boosted = torchlike.where(small, work + 1, work)
    d = boosted - 1.0 / 3.0
    c = 1.0 / (9.0 * d).sqrt()
    out = torchlike.empty_like(work)
    pending = torchlike.arange(work.numel(), device=work.device)
    while pending.numel() > 0:
        dp, cp = d[pending], c[pending]
        z = torchlike.randn(pending.shape, dtype=work.dtype, device=work.device)
        u = torchlike.rand(pending.shape, dtype=work.dtype, device=work.device)
        v = (1 + cp * z) ** 3
        positive = v > 0
        safe_v = torchlike.where(positive, v, torchlike.ones_like(v))
        accept = positive & (u.log() < 0.5 * z * z + dp - dp * safe_v + dp * safe_v.log())
        out[pending[accept]] = (dp * safe_v)[accept]
        pending = pending[~accept]
    if bool(small.any()):
        u = torchlike.rand(work.shape, dtype=work.dtype, device=work.device)
        scale = torchlike.where(small, u.pow(1.0 / work), torchlike.ones_like(work))
        out = out * scale
    tiny = torchlike.finfo(alpha.dtype).tiny
    return out.reshape(alpha.shape).to(alpha.dtype).clamp(min=tiny)


def _gamma_sample_grad(x, alpha):
    """d x / d alpha at fixed CDF level (implicit reparameterisation):
    F(x; a) = u  =>  dx/da = -(dF/da) / (dF/dx), with dF/dx the density and
    dF/da by a central difference of the regularised incomplete gamma in
    float64 (step ~1e-5 a: truncation ~1e-10, well below float32 noise)."""
    xd = x.detach().to(torchlike.float64)
    ad = alpha.detach().to(torchlike.float64)
    h = 1e-5 * ad.clamp(min=1e-3)
    dF_da = (torchlike.special.gammainc(ad + h, xd) - torchlike.special.gammainc(ad - h, xd)) / (2 * h)
    log_pdf = (ad - 1) * xd.log() - xd - torchlike.lgamma(ad)
    grad = -dF_da / log_pdf.exp()
    # Where the density underflows, x sits at a tail and barely moves with a.
    grad = torchlike.where(torchlike.isfinite(grad), grad, torchlike.zeros_like(grad))
    return grad.to(x.dtype)


class _StandardGamma(Function):
    @staticmethod
    def forward(ctx, alpha):
        x = _gamma_draw(alpha)
        ctx.save_for_backward(x, alpha)
        return x

    @staticmethod
    def backward(ctx, grad_out):
        x, alpha = ctx.saved_tensors
        return grad_out * _gamma_sample_grad(x, alpha)


def standard_gamma(alpha):
    """Gamma(alpha, 1) samples, differentiable in alpha."""
    if alpha.requires_grad and torchlike.is_grad_enabled():
        return _StandardGamma.apply(alpha)
    return _gamma_draw(alpha)


def von_mises_draw(loc, concentration, shape):
    """Best & Fisher (1979) rejection sampler, in float64 for accuracy at
    small concentration; returns angles in [-pi, pi)."""
    kappa = concentration.detach().to(torchlike.float64).expand(shape).reshape(-1)
    mu = loc.detach().to(torchlike.float64).expand(shape).reshape(-1)
    tau = 1 + (1 + 4 * kappa * kappa).sqrt()
    rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
    r = (1 + rho * rho) / (2 * rho)
    # For tiny kappa the formula above loses everything to rounding; there
    # the distribution is uniform on the circle to within kappa.
    r = torchlike.where(kappa < 1e-5, torchlike.full_like(r, 1e17), r)
    w_out = torchlike.empty_like(kappa)
    pending = torchlike.arange(kappa.numel())
    while pending.numel() > 0:
        rp, kp = r[pending], kappa[pending]
        u1 = torchlike.rand(pending.shape, dtype=torchlike.float64)
        u2 = torchlike.rand(pending.shape, dtype=torchlike.float64)
        z = torchlike.cos(math.pi * u1)
        f = (1 + rp * z) / (rp + z)
        c = kp * (rp - f)
        accept = (c * (2 - c) - u2 > 0) | ((c / u2).log() + 1 - c >= 0)
        w_out[pending[accept]] = f[accept]
        pending = pending[~accept]
    sign = torchlike.where(torchlike.rand(kappa.shape, dtype=torchlike.float64) < 0.5, -1.0, 1.0)
    theta = mu + sign * w_out.clamp(-1, 1).acos()
    theta = torchlike.remainder(theta + math.pi, 2 * math.pi) - math.pi
    return theta.reshape(shape).to(loc.dtype)
