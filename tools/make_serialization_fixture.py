"""Regenerate tests/fixtures/torch_checkpoint_v1.pt with PyTorch's own torch.save.

tests/test_serialization.py loads that file without PyTorch and rebuilds the
expected values from the same recipe (see `expected_arrays` there), so keep
the two in step. Run: python tools/make_serialization_fixture.py
"""
import collections
import os

import torch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def build():
    per_dtype = {}
    for name in DTYPES:
        dtype = getattr(torch, name)
        # 2x3 values -3..2 (or their truth values / absolute values for the unsigned types).
        values = torch.arange(-3, 3).reshape(2, 3)
        if name == "bool":
            per_dtype[name] = values > 0
        elif name == "uint8":
            per_dtype[name] = values.abs().to(dtype)
        else:
            per_dtype[name] = (values.to(dtype) / 2) if dtype.is_floating_point else values.to(dtype)
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    state = collections.OrderedDict()
    state["weight"] = base
    state["row_view"] = base[1]           # shares base's storage at offset 6
    state["transposed"] = base.t()        # non-contiguous
    state["strided"] = base[::2, 1::3]
    state["scalar"] = torch.tensor(2.5, dtype=torch.float64)
    state["empty"] = torch.zeros(0, 3)
    state._metadata = collections.OrderedDict([("", {"version": 1}), ("layer", {"version": 2})])
    param = torch.nn.Parameter(torch.linspace(-1, 1, 5))
    optimizer_state = {
        "state": {0: {"step": torch.tensor(3.0), "exp_avg": torch.full((5,), 0.25)}},
        "param_groups": [{"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0.01,
                          "amsgrad": False, "params": [0]}],
    }
    return {
        "dtypes": per_dtype,
        "state_dict": state,
        "parameter": param,
        "optimizer": optimizer_state,
        "misc": [torch.Size([2, 3]), torch.device("cpu"), torch.float16, (1, "two", 3.0), {4, 5}, b"raw", None],
    }


def main():
    out = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "torch_checkpoint_v1.pt")
    torch.save(build(), out)
    print(f"wrote {os.path.normpath(out)} ({os.path.getsize(out)} bytes) with torch {torch.__version__}")


if __name__ == "__main__":
    main()
