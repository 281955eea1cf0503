"""NumPy (float64) reference implementations of the optimizers' update
rules, written from the published algorithms, for tests/test_optim.py.

Each reference is a class with step(params, grads) updating a list of
float64 arrays in place; state lives on the instance.
"""
import math

import numpy as np


class _Ref:
    def __init__(self, n, **kw):
        self.kw = kw
        self.t = 0
        self.s = [dict() for _ in range(n)]

    def step(self, params, grads):
        self.t += 1
        for i, (p, g) in enumerate(zip(params, grads)):
            g = -g if self.kw.get("maximize") else g
            self.update(i, p, g, self.s[i])


class SGD(_Ref):
    def update(self, i, p, g, s):
        k = self.kw
        lr, mom, damp, wd = k.get("lr", 1e-3), k.get("momentum", 0), k.get("dampening", 0), k.get("weight_decay", 0)
        g = g + wd * p
        if mom:
            if "buf" not in s:
                s["buf"] = g.copy()
            else:
                s["buf"] = mom * s["buf"] + (1 - damp) * g
            g = g + mom * s["buf"] if k.get("nesterov") else s["buf"]
        p -= lr * g


class Adam(_Ref):
    decoupled_default = False
    wd_default = 0

    def update(self, i, p, g, s):
        k = self.kw
        lr, (b1, b2), eps = k.get("lr", 1e-3), k.get("betas", (0.9, 0.999)), k.get("eps", 1e-8)
        wd = k.get("weight_decay", self.wd_default)
        if k.get("decoupled_weight_decay", self.decoupled_default):
            p *= 1 - lr * wd
        else:
            g = g + wd * p
        m = s.setdefault("m", np.zeros_like(p))
        v = s.setdefault("v", np.zeros_like(p))
        m[...] = b1 * m + (1 - b1) * g
        v[...] = b2 * v + (1 - b2) * g * g
        t = self.t
        if k.get("amsgrad"):
            vmax = s.setdefault("vmax", np.zeros_like(p))
            vmax[...] = np.maximum(vmax, v)
            v = vmax
        p -= lr / (1 - b1 ** t) * m / (np.sqrt(v) / math.sqrt(1 - b2 ** t) + eps)


class AdamW(Adam):
    decoupled_default = True
    wd_default = 1e-2


class Adamax(_Ref):
    def update(self, i, p, g, s):
        k = self.kw
        lr, (b1, b2), eps = k.get("lr", 2e-3), k.get("betas", (0.9, 0.999)), k.get("eps", 1e-8)
        g = g + k.get("weight_decay", 0) * p
        m = s.setdefault("m", np.zeros_like(p))
        u = s.setdefault("u", np.zeros_like(p))
        m[...] = b1 * m + (1 - b1) * g
        u[...] = np.maximum(b2 * u, np.abs(g) + eps)
        p -= lr / (1 - b1 ** self.t) * m / u


class NAdam(_Ref):
    def update(self, i, p, g, s):
        k = self.kw
        lr, (b1, b2), eps = k.get("lr", 2e-3), k.get("betas", (0.9, 0.999)), k.get("eps", 1e-8)
        wd, psi, t = k.get("weight_decay", 0), k.get("momentum_decay", 4e-3), self.t
        if k.get("decoupled_weight_decay"):
            p *= 1 - lr * wd
        else:
            g = g + wd * p
        mu = b1 * (1 - 0.5 * 0.96 ** (t * psi))
        mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * psi))
        s["prod"] = s.get("prod", 1.0) * mu
        m = s.setdefault("m", np.zeros_like(p))
        v = s.setdefault("v", np.zeros_like(p))
        m[...] = b1 * m + (1 - b1) * g
        v[...] = b2 * v + (1 - b2) * g * g
        denom = np.sqrt(v / (1 - b2 ** t)) + eps
        p -= lr * (1 - mu) / (1 - s["prod"]) * g / denom
        p -= lr * mu_next / (1 - s["prod"] * mu_next) * m / denom


class RAdam(_Ref):
    def update(self, i, p, g, s):
        k = self.kw
        lr, (b1, b2), eps, t = k.get("lr", 1e-3), k.get("betas", (0.9, 0.999)), k.get("eps", 1e-8), self.t
        wd = k.get("weight_decay", 0)
        if k.get("decoupled_weight_decay"):
            p *= 1 - lr * wd
        else:
            g = g + wd * p
        m = s.setdefault("m", np.zeros_like(p))
        v = s.setdefault("v", np.zeros_like(p))
        m[...] = b1 * m + (1 - b1) * g
        v[...] = b2 * v + (1 - b2) * g * g
        m_hat = m / (1 - b1 ** t)
        rho_inf = 2 / (1 - b2) - 1
        rho = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
        if rho > 5:
            r = math.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
            p -= lr * m_hat * r * math.sqrt(1 - b2 ** t) / (np.sqrt(v) + eps)
        else:
            p -= lr * m_hat


class RMSprop(_Ref):
    def update(self, i, p, g, s):
        k = self.kw
        lr, alpha, eps, mom = k.get("lr", 1e-2), k.get("alpha", 0.99), k.get("eps", 1e-8), k.get("momentum", 0)
        g = g + k.get("weight_decay", 0) * p
        v = s.setdefault("v", np.zeros_like(p))
        v[...] = alpha * v + (1 - alpha) * g * g
        if k.get("centered"):
            gm = s.setdefault("gm", np.zeros_like(p))
            gm[...] = alpha * gm + (1 - alpha) * g
            denom = np.sqrt(v - gm * gm) + eps
        else:
            denom = np.sqrt(v) + eps
        if mom > 0:
            b = s.setdefault("b", np.zeros_like(p))
            b[...] = mom * b + g / denom
            p -= lr * b
        else:
            p -= lr * g / denom


class Adagrad(_Ref):
    def update(self, i, p, g, s):
        k = self.kw
        lr, decay, eps = k.get("lr", 1e-2), k.get("lr_decay", 0), k.get("eps", 1e-10)
        g = g + k.get("weight_decay", 0) * p
        acc = s.setdefault("sum", np.full_like(p, k.get("initial_accumulator_value", 0)))
        acc += g * g
        p -= lr / (1 + (self.t - 1) * decay) * g / (np.sqrt(acc) + eps)


class Adadelta(_Ref):
    def update(self, i, p, g, s):
        k = self.kw
        lr, rho, eps = k.get("lr", 1.0), k.get("rho", 0.9), k.get("eps", 1e-6)
        g = g + k.get("weight_decay", 0) * p
        v = s.setdefault("v", np.zeros_like(p))
        u = s.setdefault("u", np.zeros_like(p))
        v[...] = rho * v + (1 - rho) * g * g
        delta = np.sqrt(u + eps) / np.sqrt(v + eps) * g
        u[...] = rho * u + (1 - rho) * delta * delta
        p -= lr * delta


class ASGD(_Ref):
    def update(self, i, p, g, s):
        k = self.kw
        lr, lambd, alpha, t0 = k.get("lr", 1e-2), k.get("lambd", 1e-4), k.get("alpha", 0.75), k.get("t0", 1e6)
        g = g + k.get("weight_decay", 0) * p
        eta, mu = s.get("eta", lr), s.get("mu", 1.0)
        p *= 1 - lambd * eta
        p -= eta * g
        ax = s.setdefault("ax", np.zeros_like(p))
        ax[...] = p if mu == 1 else ax + mu * (p - ax)
        s["eta"] = lr / (1 + lambd * lr * self.t) ** alpha
        s["mu"] = 1 / max(1, self.t - t0)


class Rprop(_Ref):
    def update(self, i, p, g, s):
        k = self.kw
        lr, (down, up), (lo, hi) = k.get("lr", 1e-2), k.get("etas", (0.5, 1.2)), k.get("step_sizes", (1e-6, 50))
        prev = s.setdefault("prev", np.zeros_like(p))
        size = s.setdefault("size", np.full_like(p, lr))
        agree = g * prev
        size[...] = np.clip(size * np.where(agree > 0, up, np.where(agree < 0, down, 1.0)), lo, hi)
        g = np.where(agree < 0, 0.0, g)
        p -= np.sign(g) * size
        prev[...] = g


class Adafactor(_Ref):
    def update(self, i, p, g, s):
        k = self.kw
        lr, decay, (eps1, eps2), d = k.get("lr", 1e-2), k.get("beta2_decay", -0.8), k.get("eps", (None, 1e-3)), k.get("d", 1.0)
        eps1 = np.finfo(np.float32).eps if eps1 is None else eps1
        t = self.t
        beta = 1 - t ** decay
        rho = min(lr, 1 / math.sqrt(t))
        alpha = max(eps2, math.sqrt(np.mean(p * p))) * rho
        p *= 1 - lr * k.get("weight_decay", 0.0)
        if p.ndim > 1:
            r = s.setdefault("r", np.zeros(p.shape[:-1] + (1,)))
            c = s.setdefault("c", np.zeros(p.shape[:-2] + (1, p.shape[-1])))
            r[...] = beta * r + (1 - beta) * np.mean(g * g, axis=-1, keepdims=True)
            c[...] = beta * c + (1 - beta) * np.mean(g * g, axis=-2, keepdims=True)
            v = r @ c / np.maximum(np.mean(r, axis=-2, keepdims=True), eps1)
        else:
            v = s.setdefault("v", np.zeros_like(p))
            v[...] = beta * v + (1 - beta) * g * g
        u = g / np.sqrt(np.maximum(v, eps1 * eps1))
        u = u / max(1.0, math.sqrt(np.mean(u * u)) / d)
        p -= alpha * u


class Muon(_Ref):
    def update(self, i, p, g, s):
        k = self.kw
        lr, wd, mom = k.get("lr", 1e-3), k.get("weight_decay", 0.1), k.get("momentum", 0.95)
        a, b, c = k.get("ns_coefficients", (3.4445, -4.775, 2.0315))
        buf = s.setdefault("buf", np.zeros_like(p))
        buf[...] = mom * buf + (1 - mom) * g
        u = (mom * buf + (1 - mom) * g) if k.get("nesterov", True) else buf.copy()
        x = u.T if u.shape[0] > u.shape[1] else u
        x = x / max(np.linalg.norm(x), k.get("eps", 1e-7))
        for _ in range(k.get("ns_steps", 5)):
            gram = x @ x.T
            x = a * x + (b * gram + c * gram @ gram) @ x
        x = x.T if u.shape[0] > u.shape[1] else x
        rows, cols = p.shape
        rule = k.get("adjust_lr_fn")
        rate = lr * 0.2 * math.sqrt(max(rows, cols)) if rule == "match_rms_adamw" else lr * math.sqrt(max(1, rows / cols))
        p *= 1 - lr * wd
        p -= rate * x


REFERENCES = {c.__name__: c for c in (SGD, Adam, AdamW, Adamax, NAdam, RAdam, RMSprop, Adagrad, Adadelta,
                                       ASGD, Rprop, Adafactor, Muon)}
