"""List-at-a-time tensor arithmetic for the optimizers' update formulas.

Each optimizer writes its update once against these helpers. `MULTI` sends
each call to one native multi-tensor (`torchlike._foreach_*`) kernel that
loops over the whole list; `SINGLE` applies the same operation tensor by
tensor with ordinary Tensor methods (the `foreach=False` and differentiable
path). Both compute in the same order, so they agree bit for bit.

`scale` arguments may be a number or a list with one number per tensor.
"""

import torchlike


def _per_tensor(scale, n):
    if isinstance(scale, (list, tuple)):
        return list(scale)
    return [scale] * n


def _runs(scales):
    """Split a per-tensor scale list into runs of equal values, so the
    multi-tensor path needs one call per distinct value (usually one)."""
    runs, start = [], 0
    for i in range(1, len(scales) + 1):
        if i == len(scales) or scales[i] != scales[start]:
            runs.append((start, i, scales[start]))
            start = i
    return runs


class _Single:
    """Tensor-by-tensor implementation."""

    @staticmethod
    def add_(xs, ys, alpha=1):
        for x, y, a in zip(xs, ys, _per_tensor(alpha, len(xs))):
            x.add_(y, alpha=a)

    @staticmethod
    def add(xs, ys, alpha=1):
        return [x.add(y, alpha=a) for x, y, a in zip(xs, ys, _per_tensor(alpha, len(xs)))]

    @staticmethod
    def add_scalar_(xs, value):
        for x, v in zip(xs, _per_tensor(value, len(xs))):
            x.add_(v)

    @staticmethod
    def mul_(xs, value):
        for x, v in zip(xs, _per_tensor(value, len(xs))):
            x.mul_(v)

    @staticmethod
    def mul_list_(xs, ys):
        for x, y in zip(xs, ys):
            x.mul_(y)

    @staticmethod
    def div_(xs, value):
        for x, v in zip(xs, _per_tensor(value, len(xs))):
            x.div_(v)

    @staticmethod
    def div_list_(xs, ys):
        for x, y in zip(xs, ys):
            x.div_(y)

    @staticmethod
    def addcmul_(xs, a, b, value=1):
        for x, s, t, v in zip(xs, a, b, _per_tensor(value, len(xs))):
            x.addcmul_(s, t, value=v)

    @staticmethod
    def addcdiv_(xs, a, b, value=1):
        for x, s, t, v in zip(xs, a, b, _per_tensor(value, len(xs))):
            x.addcdiv_(s, t, value=v)

    @staticmethod
    def lerp_(xs, ends, weight):
        for x, e, w in zip(xs, ends, _per_tensor(weight, len(xs))):
            x.lerp_(e, w)

    @staticmethod
    def sqrt(xs):
        return [x.sqrt() for x in xs]

    @staticmethod
    def maximum_(xs, ys):
        for x, y in zip(xs, ys):
            torchlike.maximum(x, y, out=x)

    @staticmethod
    def neg(xs):
        return [x.neg() for x in xs]

    @staticmethod
    def abs(xs):
        return [x.abs() for x in xs]

    @staticmethod
    def clone(xs):
        return [x.clone() for x in xs]

    @staticmethod
    def copy_(xs, ys):
        for x, y in zip(xs, ys):
            x.copy_(y)

    @staticmethod
    def zero_(xs):
        for x in xs:
            x.zero_()


def _call_runs(fn, scale, n, *lists, **kw):
    scales = _per_tensor(scale, n)
    for start, stop, value in _runs(scales):
        fn(*[lst[start:stop] for lst in lists], value, **kw)


class _Multi:
    """Multi-tensor implementation over the native _foreach_ kernels."""

    @staticmethod
    def add_(xs, ys, alpha=1):
        if not xs:
            return
        _call_runs(lambda a, b, s: torchlike._foreach_add_(a, b, alpha=s), alpha, len(xs), xs, ys)

    @staticmethod
    def add(xs, ys, alpha=1):
        out = []
        for start, stop, value in _runs(_per_tensor(alpha, len(xs))):
            out.extend(torchlike._foreach_add(xs[start:stop], ys[start:stop], alpha=value))
        return out

    @staticmethod
    def add_scalar_(xs, value):
        _call_runs(torchlike._foreach_add_, value, len(xs), xs)

    @staticmethod
    def mul_(xs, value):
        _call_runs(torchlike._foreach_mul_, value, len(xs), xs)

    @staticmethod
    def mul_list_(xs, ys):
        if xs:
            torchlike._foreach_mul_(xs, ys)

    @staticmethod
    def div_(xs, value):
        _call_runs(torchlike._foreach_div_, value, len(xs), xs)

    @staticmethod
    def div_list_(xs, ys):
        if xs:
            torchlike._foreach_div_(xs, ys)

    @staticmethod
    def addcmul_(xs, a, b, value=1):
        _call_runs(lambda x, s, t, v: torchlike._foreach_addcmul_(x, s, t, value=v),
                   value, len(xs), xs, a, b)

    @staticmethod
    def addcdiv_(xs, a, b, value=1):
        _call_runs(lambda x, s, t, v: torchlike._foreach_addcdiv_(x, s, t, value=v),
                   value, len(xs), xs, a, b)

    @staticmethod
    def lerp_(xs, ends, weight):
        _call_runs(torchlike._foreach_lerp_, weight, len(xs), xs, ends)

    @staticmethod
    def sqrt(xs):
        return list(torchlike._foreach_sqrt(xs)) if xs else []

    @staticmethod
    def maximum_(xs, ys):
        if xs:
            torchlike._foreach_maximum_(xs, ys)

    @staticmethod
    def neg(xs):
        return list(torchlike._foreach_neg(xs)) if xs else []

    @staticmethod
    def clone(xs):
        # A copy involves no arithmetic: per-tensor clone is already one kernel each.
        return [x.clone() for x in xs]

    @staticmethod
    def abs(xs):
        return list(torchlike._foreach_abs(xs)) if xs else []

    @staticmethod
    def copy_(xs, ys):
        if xs:
            torchlike._foreach_copy_(xs, ys)

    @staticmethod
    def zero_(xs):
        if xs:
            torchlike._foreach_zero_(xs)


SINGLE = _Single()
MULTI = _Multi()


def pick(foreach):
    return MULTI if foreach else SINGLE
