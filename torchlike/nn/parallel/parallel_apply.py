"""parallel_apply: modules[i](*inputs[i], **kwargs_tup[i]) for every i, each
in its own thread (torchlike kernels release the GIL, so they run side by
side); the first exception is re-raised with the replica it came from."""
import threading

import torchlike

__all__ = ["parallel_apply"]


def parallel_apply(modules, inputs, kwargs_tup=None, devices=None):
    if len(modules) != len(inputs):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of inputs "
                             f"{len(inputs)}")
    if kwargs_tup is not None:
        if len(modules) != len(kwargs_tup):
            raise AssertionError("the number of modules and of kwargs must match")
    else:
        kwargs_tup = ({},) * len(modules)
    results = {}
    grad_enabled = torchlike.is_grad_enabled()

    def worker(i, module, inp, kwargs):
        try:
            with torchlike.set_grad_enabled(grad_enabled):
                if not isinstance(inp, (list, tuple)):
                    inp = (inp,)
                results[i] = module(*inp, **kwargs)
        except Exception as e:
            results[i] = (e, f"in replica {i}")
    if len(modules) > 1:
        threads = [threading.Thread(target=worker, args=(i, m, x, k))
                   for i, (m, x, k) in enumerate(zip(modules, inputs, kwargs_tup))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    else:
        worker(0, modules[0], inputs[0], kwargs_tup[0])
    outputs = []
    for i in range(len(inputs)):
        out = results[i]
        if isinstance(out, tuple) and len(out) == 2 and isinstance(out[0], Exception) \
                and isinstance(out[1], str) and out[1].startswith("in replica"):
            err = out[0]
            raise type(err)(f"Caught {type(err).__name__} {out[1]}: {err}") from err
        outputs.append(out)
    return outputs
