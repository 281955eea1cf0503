"""L-BFGS: quasi-Newton steps from a limited history of curvature pairs,
with a fixed step or a strong-Wolfe line search. Works on all parameters as
one flat vector, so it takes a single parameter group and a closure."""

import torchlike

from . import _common as C
from .optimizer import Optimizer

__all__ = ["LBFGS"]


def _minimizer_of_cubic(a, fa, ga, b, fb, gb, lo=None, hi=None):
    """Minimum of the cubic through (a, fa) and (b, fb) with slopes ga, gb,
    clamped into [lo, hi] (the points' own span by default); the midpoint of
    that interval when the cubic has no real minimizer."""
    if lo is None:
        lo, hi = min(a, b), max(a, b)
    secant = 3 * (fa - fb) / (a - b)
    d1 = ga + gb - secant
    disc = d1 * d1 - ga * gb
    if disc < 0:
        return (lo + hi) / 2.0
    d2 = disc ** 0.5
    # Written from whichever point is further right, so the division is by
    # the slope difference seen from that side.
    if a <= b:
        x = b - (b - a) * ((gb + d2 - d1) / (gb - ga + 2 * d2))
    else:
        x = a - (a - b) * ((ga + d2 - d1) / (ga - gb + 2 * d2))
    return min(max(x, lo), hi)


class _Trial:
    """One evaluated point of the line search: step t, loss, flat gradient
    and directional derivative."""

    __slots__ = ("t", "f", "g", "slope")

    def __init__(self, t, f, g, slope):
        self.t, self.f, self.g, self.slope = t, f, g, slope


def _strong_wolfe_search(evaluate, t, d, f0, g0, slope0, c1=1e-4, c2=0.9,
                         tolerance_change=1e-9, max_ls=25):
    """Find t satisfying the strong Wolfe conditions along d.

    Slopes are 0-dim tensors (and so, after interpolation, is t): the search
    then computes in the parameters' precision, as PyTorch's does, and picks
    the same trial points.

    evaluate(t) -> (loss, flat_grad) at x0 + t*d. Returns (loss, flat_grad,
    t, evaluations)."""
    d_scale = d.abs().max()
    start = _Trial(0.0, f0, g0.clone(), slope0)

    def probe(step):
        f, g = evaluate(step)
        return _Trial(step, f, g, g.dot(d))

    current = probe(t)
    evaluations = 1
    previous = start
    sufficient = lambda trial: trial.f <= f0 + c1 * trial.t * slope0  # noqa: E731

    # Phase 1: expand until the minimizer is bracketed (or Wolfe holds).
    low_high = None
    accepted = None
    tries = 0
    while tries < max_ls:
        if not sufficient(current) or (tries > 1 and current.f >= previous.f):
            low_high = [previous, current]
            break
        if abs(current.slope) <= -c2 * slope0:
            accepted = current
            break
        if current.slope >= 0:
            low_high = [previous, current]
            break
        lower = current.t + 0.01 * (current.t - previous.t)
        upper = current.t * 10
        nxt = _minimizer_of_cubic(previous.t, previous.f, previous.slope,
                                  current.t, current.f, current.slope, lower, upper)
        previous = current
        current = probe(nxt)
        evaluations += 1
        tries += 1
    if accepted is None and low_high is None:
        low_high = [start, current]

    if accepted is not None:
        return accepted.f, accepted.g, accepted.t, evaluations

    # Phase 2: zoom. `low_high[lo]` is always the better end of the bracket.
    lo = 0 if low_high[0].f <= low_high[-1].f else 1
    stalled = False
    done = False
    while not done and tries < max_ls:
        a, b = low_high
        if abs(b.t - a.t) * d_scale < tolerance_change:
            break
        t = _minimizer_of_cubic(a.t, a.f, a.slope, b.t, b.f, b.slope)
        left, right = min(a.t, b.t), max(a.t, b.t)
        margin = 0.1 * (right - left)
        # Keep trial points away from the bracket's ends so it shrinks.
        if min(right - t, t - left) < margin:
            if stalled or t >= right or t <= left:
                t = right - margin if abs(t - right) < abs(t - left) else left + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        trial = probe(t)
        evaluations += 1
        tries += 1
        hi = 1 - lo
        if not sufficient(trial) or trial.f >= low_high[lo].f:
            low_high[hi] = trial
            lo = 0 if low_high[0].f <= low_high[1].f else 1
        else:
            if abs(trial.slope) <= -c2 * slope0:
                done = True
            elif trial.slope * (low_high[hi].t - low_high[lo].t) >= 0:
                low_high[hi] = low_high[lo]
            low_high[lo] = trial
    best = low_high[lo]
    return best.f, best.g, best.t, evaluations


class LBFGS(Optimizer):
    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        C.check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def __setstate__(self, state):
        super().__setstate__(state)
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    # Flat views over all parameters ------------------------------------
    def _flat_grad(self):
        pieces = []
        for p in self._params:
            if p.grad is None:
                pieces.append(p.new_zeros(p.numel()))
            else:
                pieces.append(p.grad.reshape(-1))
        return torchlike.cat(pieces, 0)

    def _move(self, step, direction):
        """params += step * direction (direction laid out flat)."""
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(direction[offset:offset + n].view_as(p), alpha=step)
            offset += n

    def _snapshot(self):
        return [p.clone() for p in self._params]

    def _restore(self, saved):
        for p, value in zip(self._params, saved):
            p.copy_(value)

    def _evaluate_at(self, closure, saved, step, direction):
        """Loss and flat gradient at saved + step*direction; params restored."""
        self._move(step, direction)
        with torchlike.enable_grad():
            loss = float(closure())
        grad = self._flat_grad()
        self._restore(saved)
        return loss, grad

    def step(self, closure):
        """Run up to max_iter L-BFGS iterations; `closure` (required) clears
        the gradients, recomputes the loss, backpropagates and returns it."""
        if closure is None:
            raise RuntimeError("LBFGS requires a closure that reevaluates the model")
        group = self.param_groups[0]
        lr = group["lr"]
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        history_size = group["history_size"]
        line_search = group["line_search_fn"]

        # All of LBFGS's state hangs off the first parameter.
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        with torchlike.enable_grad():
            first_loss = closure()
        loss = float(first_loss)
        evals_this_call = 1
        state["func_evals"] += 1
        grad_vec = self._flat_grad()
        if grad_vec.abs().max().item() <= tol_grad:
            return first_loss

        d = state.get("d")
        t = state.get("t")
        grad_diffs = state.get("old_dirs")
        moves = state.get("old_stps")
        inv_curv = state.get("ro")
        h_diag = state.get("H_diag")
        last_grad = state.get("prev_flat_grad")
        last_loss = state.get("prev_loss")

        iterations = 0
        while iterations < max_iter:
            iterations += 1
            state["n_iter"] += 1

            if state["n_iter"] == 1:
                d = grad_vec.neg()
                grad_diffs, moves, inv_curv = [], [], []
                h_diag = 1
            else:
                # Curvature pair from the last move; kept only when it is
                # positive enough to keep the inverse Hessian estimate definite.
                y = grad_vec.sub(last_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:
                    # Oldest pair out once the history is full.
                    for history, item in ((grad_diffs, y), (moves, s), (inv_curv, 1.0 / ys)):
                        history.append(item)
                        del history[:-history_size]
                    h_diag = ys / y.dot(y)
                d = self._two_loop(state, grad_vec, grad_diffs, moves, inv_curv, h_diag, history_size)

            if last_grad is None:
                last_grad = grad_vec.clone()
            else:
                last_grad.copy_(grad_vec)
            last_loss = loss

            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / grad_vec.abs().sum()) * lr
            else:
                t = lr
            slope = grad_vec.dot(d)
            if slope > -tol_change:
                break

            evals = 0
            if line_search is not None:
                if line_search != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                saved = self._snapshot()
                loss, grad_vec, t, evals = _strong_wolfe_search(
                    lambda step: self._evaluate_at(closure, saved, step, d),
                    t, d, loss, grad_vec, slope)
                self._move(t, d)
                converged = grad_vec.abs().max().item() <= tol_grad
            else:
                self._move(t, d)
                converged = False
                if iterations != max_iter:
                    with torchlike.enable_grad():
                        loss = float(closure())
                    grad_vec = self._flat_grad()
                    converged = grad_vec.abs().max().item() <= tol_grad
                    evals = 1
            evals_this_call += evals
            state["func_evals"] += evals

            if iterations == max_iter or evals_this_call >= max_eval or converged:
                break
            if d.mul(t).abs().max() <= tol_change:
                break
            if abs(loss - last_loss) < tol_change:
                break

        state.update(d=d, t=t, old_dirs=grad_diffs, old_stps=moves, ro=inv_curv, H_diag=h_diag,
                     prev_flat_grad=last_grad, prev_loss=last_loss)
        return first_loss

    @staticmethod
    def _two_loop(state, grad_vec, grad_diffs, moves, inv_curv, h_diag, history_size):
        """Direction -H g from the stored pairs (the L-BFGS two-loop recursion).
        The dot products stay 0-dim float32 tensors, as in PyTorch, so both
        round the same way."""
        count = len(grad_diffs)
        alphas = state.get("al")
        if alphas is None or len(alphas) < history_size:
            alphas = state["al"] = [None] * history_size
        q = grad_vec.neg()
        for i in reversed(range(count)):
            alphas[i] = moves[i].dot(q) * inv_curv[i]
            q.add_(grad_diffs[i], alpha=-alphas[i])
        r = torchlike.mul(q, h_diag)
        for i in range(count):
            beta = grad_diffs[i].dot(r) * inv_curv[i]
            r.add_(moves[i], alpha=alphas[i] - beta)
        return r
