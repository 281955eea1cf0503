"""torchlike.utils.summary: rows, counts, mult-adds and memory of a model, computed on
meta tensors without touching the model."""
import math

import numpy as np
import pytest

import torchlike
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike.utils.summary import LayerInfo, ModelStatistics


class TinyConv(nn.Module):
    """A convolution written over F.conv2d, so these tests need no nn.Conv2d."""

    def __init__(self, cin, cout, k, padding=0):
        super().__init__()
        self.weight = nn.Parameter(torchlike.randn(cout, cin, k, k))
        self.bias = nn.Parameter(torchlike.zeros(cout))
        self.padding = padding
        self.kernel_size = (k, k)

    def forward(self, x):
        return F.conv2d(x, self.weight, self.bias, padding=self.padding)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(TinyConv(1, 4, 3, padding=1), nn.ReLU())
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(4 * 8 * 8, 10))

    def forward(self, x):
        return self.head(self.features(x))


def _mlp():
    return nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 5))


def test_rows_shapes_and_params_of_an_mlp():
    model = _mlp()
    stats = torchlike.utils.summary(model, input_size=(4, 10))
    assert isinstance(stats, ModelStatistics)
    rows = stats.summary_list
    assert [r.class_name for r in rows] == ["Sequential", "Linear", "ReLU", "Linear"]
    assert [r.depth for r in rows] == [0, 1, 1, 1]
    assert [r.depth_index for r in rows[1:]] == [1, 2, 3]
    assert [r.output_size for r in rows] == [[4, 5], [4, 20], [4, 20], [4, 5]]
    assert [r.num_params for r in rows] == [0, 220, 0, 105]
    assert stats.total_params == 325 == sum(p.numel() for p in model.parameters())
    assert stats.trainable_params == 325 and stats.non_trainable_params == 0
    text = str(stats)
    assert "Sequential" in text.splitlines()[3]
    assert any(line.startswith("├─Linear: 1-1") and "[4, 20]" in line and "220" in line and "True" in line
               for line in text.splitlines())
    assert "Total params: 325" in text
    assert "Trainable params: 325" in text
    assert "Non-trainable params: 0" in text
    assert repr(stats) == text


def test_output_shapes_match_a_real_forward():
    model = Net()
    stats = torchlike.utils.summary(model, input_size=(2, 1, 8, 8))
    real = []
    handles = [m.register_forward_hook(lambda m, a, o: real.append((type(m).__name__, list(o.shape))) and None)
               for m in model.modules()]
    model(torchlike.randn(2, 1, 8, 8))
    for h in handles:
        h.remove()
    # Hooks fire on exit, so the real order is post-order; compare as (class, shape) multisets.
    got = [(r.class_name, r.output_size) for r in stats.summary_list]
    assert sorted(got) == sorted(real)
    assert len(got) == 7


def test_model_is_untouched_and_nothing_real_runs():
    model = Net()
    model.eval()
    seen = []

    class Probe(nn.Module):
        def forward(self, x):
            seen.append(x.device.type)
            return x

    model.head.insert(0, Probe())
    before = {k: v.clone() for k, v in model.state_dict().items()}
    torchlike.utils.summary(model, input_size=(2, 1, 8, 8))
    assert seen == ["meta"]
    assert not model.training
    for k, v in model.state_dict().items():
        assert v.device.type == "cpu"
        np.testing.assert_array_equal(v.numpy(), before[k].numpy())
    for m in model.modules():
        assert not m._forward_hooks and not m._forward_pre_hooks
    assert all(p.grad is None for p in model.parameters())


def test_mult_adds_linear_and_conv():
    stats = torchlike.utils.summary(nn.Linear(10, 20), input_size=(4, 10), col_names=["mult_adds"])
    assert stats.total_mult_adds == 4 * 20 * 10
    conv = TinyConv(3, 8, 3, padding=1)
    stats = torchlike.utils.summary(conv, input_size=(2, 3, 6, 6), col_names=["kernel_size", "mult_adds"])
    # Each of the 2*8*6*6 outputs is a dot product over 3 channels x 3 x 3.
    assert stats.total_mult_adds == (2 * 8 * 6 * 6) * (3 * 3 * 3)
    assert stats.summary_list[0].kernel_size == [3, 3]
    assert f"{stats.total_mult_adds:,}" in str(stats)
    assert f"Total mult-adds (M): {stats.total_mult_adds / 1e6:.2f}" in str(stats)


def test_depth_limit_folds_params_and_mult_adds_into_the_shown_ancestor():
    model = Net()
    full = torchlike.utils.summary(model, input_size=(2, 1, 8, 8), col_names=["num_params", "mult_adds"])
    shallow = torchlike.utils.summary(model, input_size=(2, 1, 8, 8), depth=1,
                                      col_names=["num_params", "mult_adds"])
    shown = [r for r in shallow.summary_list if r.depth <= 1]
    assert [r.class_name for r in shown] == ["Net", "Sequential", "Sequential"]
    assert shown[1].num_params == 4 * 9 + 4
    assert shown[2].num_params == 256 * 10 + 10
    conv_macs = [r.mult_adds for r in full.summary_list if r.class_name == "TinyConv"][0]
    assert shown[1].shown_mult_adds == conv_macs
    assert shallow.total_mult_adds == full.total_mult_adds
    text = str(shallow)
    assert "TinyConv" not in text and "Linear" not in text
    assert f"{4 * 9 + 4:,}" in text and f"{2570:,}" in text
    assert "Trainable" not in text.splitlines()[1]


def test_trainable_flags_and_frozen_params():
    model = Net()
    model.features.requires_grad_(False)
    stats = torchlike.utils.summary(model, input_size=(2, 1, 8, 8))
    flags = {r.class_name: r.trainable for r in stats.summary_list}
    assert flags["TinyConv"] == "False"
    assert flags["Linear"] == "True"
    assert flags["ReLU"] == "--"
    assert flags["Net"] == "Partial"
    assert stats.trainable_params == 2570
    assert stats.non_trainable_params == 40
    assert "Non-trainable params: 40" in str(stats)


def test_a_module_called_twice_is_marked_recursive_and_counted_once():
    class Twice(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 6)

        def forward(self, x):
            return self.fc(self.fc(x))

    stats = torchlike.utils.summary(Twice(), input_size=(3, 6), col_names=["num_params", "mult_adds"])
    rows = stats.summary_list
    assert [r.is_recursive for r in rows] == [False, False, True]
    assert [r.depth_index for r in rows[1:]] == [1, 2]
    assert stats.total_params == 42
    assert stats.total_mult_adds == 2 * 3 * 6 * 6
    assert "(recursive)" in str(stats)
    hidden = torchlike.utils.summary(Twice(), input_size=(3, 6), row_settings=["hide_recursive_layers"])
    assert "(recursive)" not in str(hidden)


def test_memory_estimate():
    model = _mlp()
    stats = torchlike.utils.summary(model, input_size=(4, 10))
    assert stats.total_input == 4 * 10 * 4
    assert stats.total_param_bytes == 325 * 4
    # Leaf outputs: Linear [4,20], ReLU [4,20], Linear [4,5]; times two for their gradients.
    assert stats.total_output_bytes == 2 * 4 * (80 + 80 + 20)
    text = str(stats)
    total = (stats.total_input + stats.total_output_bytes + stats.total_param_bytes) / 1e6
    assert f"Estimated Total Size (MB): {total:.2f}" in text
    assert f"Params size (MB): {325 * 4 / 1e6:.2f}" in text
    double = torchlike.utils.summary(_mlp().double(), input_size=(4, 10), dtypes=[torchlike.float64])
    assert double.total_input == 2 * stats.total_input
    assert double.total_param_bytes == 2 * stats.total_param_bytes


def test_buffers_count_in_params_size_but_not_in_params():
    class WithStats(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)
            self.register_buffer("running", torchlike.zeros(100))

        def forward(self, x):
            return self.fc(x) + self.running[:3]

    stats = torchlike.utils.summary(WithStats(), input_size=(2, 3))
    assert stats.total_params == 12
    assert stats.total_param_bytes == (12 + 100) * 4


def test_several_inputs_input_data_and_kwargs():
    class Pair(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(3, 4)
            self.b = nn.Linear(5, 4)

        def forward(self, x, y, scale=1.0):
            return self.a(x) * scale + self.b(y)

    model = Pair()
    s1 = torchlike.utils.summary(model, input_size=[(2, 3), (2, 5)], col_names=["input_size", "output_size"])
    assert s1.summary_list[0].input_size == [[2, 3], [2, 5]]
    assert s1.summary_list[0].output_size == [2, 4]
    s2 = torchlike.utils.summary(model, input_data=[torchlike.randn(7, 3), torchlike.randn(7, 5)], scale=2.0)
    assert s2.summary_list[0].output_size == [7, 4]
    s3 = torchlike.utils.summary(model, input_data={"x": torchlike.randn(1, 3), "y": torchlike.randn(1, 5)})
    assert s3.summary_list[0].output_size == [1, 4]
    s4 = torchlike.utils.summary(model, input_size=[(3,), (5,)], batch_dim=0)
    assert s4.summary_list[0].output_size == [1, 4]
    assert s4.total_input == (3 + 5) * 4


def test_integer_inputs_through_dtypes():
    class Lookup(nn.Module):
        def __init__(self):
            super().__init__()
            self.table = nn.Parameter(torchlike.randn(50, 8))
            self.fc = nn.Linear(8, 2)

        def forward(self, idx):
            return self.fc(F.embedding(idx, self.table))

    stats = torchlike.utils.summary(Lookup(), input_size=(4, 7), dtypes=[torchlike.long])
    assert stats.summary_list[0].output_size == [4, 7, 2]
    assert stats.total_input == 4 * 7 * 8
    assert stats.total_params == 50 * 8 + 18


def test_var_names_ascii_and_all_columns():
    model = Net()
    stats = torchlike.utils.summary(model, input_size=(2, 1, 8, 8), row_settings=("depth", "var_names"),
                                    col_names=("input_size", "output_size", "num_params", "params_percent",
                                               "kernel_size", "mult_adds", "trainable"), col_width=20)
    text = str(stats)
    lines = text.splitlines()
    assert lines[1].startswith("Layer (type (var_name):depth-idx)")
    for header in ("Input Shape", "Output Shape", "Param #", "Param %", "Kernel Shape", "Mult-Adds", "Trainable"):
        assert header in lines[1]
    assert any("Sequential (features): 1-1" in line for line in lines)
    assert any("TinyConv (0): 2-1" in line and "[3, 3]" in line for line in lines)
    pct = 100.0 * 2570 / 2610
    assert f"{pct:.2f}%" in text
    plain = str(torchlike.utils.summary(model, input_size=(2, 1, 8, 8), row_settings=["ascii_only"]))
    assert all(ord(c) < 128 for c in plain)
    assert "  + TinyConv" in plain


def test_eval_and_train_modes_apply_to_the_copy_only():
    modes = []

    class Spy(nn.Module):
        def forward(self, x):
            modes.append(self.training)
            return x

    model = nn.Sequential(Spy())
    torchlike.utils.summary(model, input_size=(1, 2), mode="eval")
    torchlike.utils.summary(model, input_size=(1, 2))
    model.eval()
    torchlike.utils.summary(model, input_size=(1, 2), mode="train")
    assert modes == [False, True, True]
    assert not model.training


def test_device_cpu_runs_a_copy_and_gives_the_same_table():
    model = Net()
    meta = torchlike.utils.summary(model, input_size=(2, 1, 8, 8))
    cpu = torchlike.utils.summary(model, input_size=(2, 1, 8, 8), device="cpu")
    assert str(meta) == str(cpu)


def test_verbose_prints(capsys):
    stats = torchlike.utils.summary(_mlp(), input_size=(1, 10), verbose=1)
    assert capsys.readouterr().out.strip() == str(stats)
    torchlike.utils.summary(_mlp(), input_size=(1, 10))
    assert capsys.readouterr().out == ""


def test_errors():
    model = _mlp()
    with pytest.raises(ValueError, match="unknown column 'params'"):
        torchlike.utils.summary(model, input_size=(1, 10), col_names=["params"])
    with pytest.raises(ValueError, match="unknown row setting"):
        torchlike.utils.summary(model, input_size=(1, 10), row_settings=["colour"])
    with pytest.raises(ValueError, match="not both"):
        torchlike.utils.summary(model, input_size=(1, 10), input_data=torchlike.zeros(1, 10))
    with pytest.raises(ValueError, match="needs input_size or input_data"):
        torchlike.utils.summary(model)
    with pytest.raises(ValueError, match="mode"):
        torchlike.utils.summary(model, input_size=(1, 10), mode="test")
    with pytest.raises(TypeError, match="nn.Module"):
        torchlike.utils.summary(lambda x: x, input_size=(1, 10))
    with pytest.raises(ValueError, match="2 dtypes for 1 inputs"):
        torchlike.utils.summary(model, input_size=(1, 10), dtypes=[torchlike.float32, torchlike.float32])
    # A shape mismatch inside the forward names the layer that failed.
    with pytest.raises(RuntimeError, match=r"forward pass of Sequential > Linear\(0\) failed on meta"):
        torchlike.utils.summary(model, input_size=(1, 11))
    for m in model.modules():
        assert not m._forward_hooks and not m._forward_pre_hooks


def test_layer_info_repr():
    stats = torchlike.utils.summary(_mlp(), input_size=(1, 10))
    assert isinstance(stats.summary_list[1], LayerInfo)
    assert repr(stats.summary_list[1]) == "Linear: 1-1"


@pytest.mark.skipif(not all(hasattr(nn, n) for n in ("Conv2d", "BatchNorm2d", "MaxPool2d", "Dropout")),
                    reason="nn.Conv2d/BatchNorm2d/MaxPool2d/Dropout not available")
def test_demo_cnn():
    model = nn.Sequential(
        nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                      nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2)),
        nn.Sequential(nn.Flatten(), nn.Dropout(0.25), nn.Linear(64 * 4 * 4, 128), nn.ReLU(), nn.Linear(128, 10)))
    stats = torchlike.utils.summary(model, input_size=(64, 1, 8, 8), col_names=["output_size", "num_params",
                                                                               "mult_adds", "trainable"])
    assert stats.total_params == sum(p.numel() for p in model.parameters()) == 151498
    leaves = [r for r in stats.summary_list if r.is_leaf]
    assert leaves[0].output_size == [64, 32, 8, 8]
    assert leaves[6].class_name == "MaxPool2d" and leaves[6].output_size == [64, 64, 4, 4]
    assert leaves[-1].output_size == [64, 10]
    conv2 = leaves[3]
    assert conv2.mult_adds == 64 * 64 * 8 * 8 * 32 * 9
    # Running statistics are buffers: counted in the size, not in the parameters.
    assert stats.total_param_bytes == 4 * (151498 + 2 * (32 + 64)) + 8 * 2
    assert math.isfinite(stats.total_mult_adds)
