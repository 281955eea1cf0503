"""torchlike.utils.tensorboard.SummaryWriter: every event written is read
back with TensorBoard's own EventAccumulator (and, for the hparams plugin,
its protobufs); PyTorch's writer is the reference on top when installed."""
import io
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("tensorboard")

import torchlike as tl  # noqa: E402
from conftest import requires_torch  # noqa: E402
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402
from torchlike.utils.tensorboard import SummaryWriter  # noqa: E402


def load(path):
    acc = EventAccumulator(str(path), size_guidance={"tensors": 0, "images": 0, "scalars": 0, "histograms": 0})
    acc.Reload()
    return acc


def test_scalars_roundtrip(tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(5):
            w.add_scalar("loss", 1.0 / (step + 1), step)
        w.add_scalar("acc", tl.tensor(0.75), 9, walltime=123.0)
        w.add_scalar("np", np.float64(2.5), 3)
        w.add_scalar("new", tl.tensor([0.25]), 1, new_style=True)
        w.add_scalar("dbl", 1.0 / 3.0, 1, new_style=True, double_precision=True)
    acc = load(tmp_path)
    got = [(e.step, e.value) for e in acc.Scalars("loss")]
    assert [s for s, _ in got] == list(range(5))
    np.testing.assert_allclose([v for _, v in got], [1.0 / (s + 1) for s in range(5)], rtol=1e-6)
    (ev,) = acc.Scalars("acc")
    assert ev.step == 9 and ev.wall_time == 123.0 and ev.value == 0.75
    assert acc.Scalars("np")[0].value == 2.5
    new = acc.Tensors("new")[0]
    assert new.step == 1 and list(new.tensor_proto.float_val) == [0.25]
    assert acc.summary_metadata["new"].plugin_data.plugin_name == "scalars"
    assert list(acc.Tensors("dbl")[0].tensor_proto.double_val) == [1.0 / 3.0]
    with SummaryWriter(tmp_path / "bad") as w:
        with pytest.raises(AssertionError, match="Tensor should contain one element"):
            w.add_scalar("x", tl.ones(2), 0)
        with pytest.raises(ValueError):
            w.add_scalar("x", "text", 0)


def test_add_scalars_writes_one_run_per_key(tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(3):
            w.add_scalars("run", {"train": float(step), "val": 10.0 + step}, step)
    subdirs = sorted(os.listdir(tmp_path))
    assert "run_train" in subdirs and "run_val" in subdirs
    train = [(e.step, e.value) for e in load(tmp_path / "run_train").Scalars("run")]
    val = [(e.step, e.value) for e in load(tmp_path / "run_val").Scalars("run")]
    assert train == [(0, 0.0), (1, 1.0), (2, 2.0)]
    assert val == [(0, 10.0), (1, 11.0), (2, 12.0)]


def test_histogram(tmp_path):
    values = tl.tensor([-3.0, -1.0, 0.5, 2.0, 2.0])
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("tf", values, 1)
        w.add_histogram("auto", values.numpy(), 2, bins="auto")
        w.add_histogram("fixed", tl.arange(100.0), 3, bins=10)
        w.add_histogram("capped", tl.randn(5000), 4, max_bins=20)
        w.add_histogram_raw("raw", min=0.0, max=2.0, num=3, sum=3.0, sum_squares=5.0,
                            bucket_limits=[0.0, 1.0, 2.0], bucket_counts=[1, 1, 1], global_step=5)
        with pytest.raises(ValueError, match="The input has no element."):
            w.add_histogram("empty", tl.tensor([]), 0)
        with pytest.raises(ValueError, match="len\\(bucket_limits\\) != len\\(bucket_counts\\)"):
            w.add_histogram_raw("raw2", 0.0, 1.0, 1, 1.0, 1.0, [0.0, 1.0], [1])
    acc = load(tmp_path)
    h = acc.Histograms("tf")[0].histogram_value
    assert (h.min, h.max, h.num, h.sum, h.sum_squares) == (-3.0, 2.0, 5.0, 0.5, 18.25)
    assert sum(h.bucket) == 5 and h.bucket[0] == 0
    limits = np.array(h.bucket_limit)
    assert np.all(np.diff(limits) > 0) and limits[0] < -3.0 and limits[-1] >= 2.0
    # every value lies in the bucket (previous limit, limit] it is counted in
    for v in (-3.0, -1.0, 0.5, 2.0):
        k = int(np.searchsorted(limits, v, side="right"))
        assert h.bucket[k] >= 1
    f = acc.Histograms("fixed")[0].histogram_value
    np.testing.assert_allclose(list(f.bucket_limit), np.linspace(0, 99, 11), rtol=1e-12)
    assert list(f.bucket) == [0.0] + [10.0] * 10
    c = acc.Histograms("capped")[0].histogram_value
    assert len(c.bucket) <= 20 and sum(c.bucket) == 5000
    r = acc.Histograms("raw")[0].histogram_value
    assert list(r.bucket) == [1.0, 1.0, 1.0] and r.num == 3
    assert acc.Histograms("auto")[0].step == 2


def _decode(event):
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(event.encoded_image_string)))


def test_images_dataformats(tmp_path):
    chw = tl.rand(3, 4, 5)
    with SummaryWriter(tmp_path) as w:
        w.add_image("chw", chw, 0)
        w.add_image("hwc", chw.permute(1, 2, 0), 0, dataformats="HWC")
        w.add_image("hw", chw[0], 0, dataformats="HW")
        w.add_image("rgba", tl.rand(4, 5, 4), 0, dataformats="HWC")
        w.add_image("u8", (chw * 255).to(tl.uint8), 0)
        w.add_images("batch", tl.rand(10, 3, 4, 5), 1)
        w.add_images("nhwc1", tl.rand(3, 4, 5, 1), 1, dataformats="NHWC")
        w.add_images("nhw", tl.rand(2, 4, 5), 1, dataformats="NHW")
        with pytest.raises(ValueError):
            w.add_image("bad", chw, 0, dataformats="XYZ")
        with pytest.raises(ValueError):
            w.add_image("bad", chw, 0, dataformats="HWC1")
    acc = load(tmp_path)
    expect = (chw.numpy() * 255).clip(0, 255).astype(np.uint8).transpose(1, 2, 0)
    for tag in ("chw", "hwc"):
        ev = acc.Images(tag)[0]
        assert (ev.height, ev.width) == (4, 5)
        np.testing.assert_array_equal(_decode(ev), expect)
    gray = _decode(acc.Images("hw")[0])
    assert gray.shape == (4, 5, 3) and np.array_equal(gray[..., 0], gray[..., 2])
    np.testing.assert_array_equal(gray[..., 0], expect[..., 0])
    assert _decode(acc.Images("rgba")[0]).shape == (4, 5, 4)
    np.testing.assert_array_equal(_decode(acc.Images("u8")[0]), (chw * 255).to(tl.uint8).numpy().transpose(1, 2, 0))
    b = acc.Images("batch")[0]
    assert (b.height, b.width) == (8, 40)  # 10 images: 8 per row, 2 rows
    grid = _decode(b)
    assert np.all(grid[4:, 10:] == 0)  # unused cells of the second row stay black
    n = acc.Images("nhwc1")[0]
    assert (n.height, n.width) == (4, 15) and _decode(n).shape == (4, 15, 3)
    assert (acc.Images("nhw")[0].height, acc.Images("nhw")[0].width) == (4, 10)


def test_text_and_tensor(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_text("notes", "hello **world**", 3)
        w.add_tensor("t", tl.arange(6.0).reshape(2, 3), 4)
    acc = load(tmp_path)
    ev = acc.Tensors("notes/text_summary")[0]
    assert ev.step == 3 and list(ev.tensor_proto.string_val) == [b"hello **world**"]
    assert acc.summary_metadata["notes/text_summary"].plugin_data.plugin_name == "text"
    from tensorboard.util import tensor_util

    arr = tensor_util.make_ndarray(acc.Tensors("t")[0].tensor_proto)
    np.testing.assert_array_equal(arr, np.arange(6.0).reshape(2, 3))


def test_hparams(tmp_path):
    from tensorboard.plugins.hparams import api_pb2, plugin_data_pb2

    with SummaryWriter(tmp_path) as w:
        w.add_hparams({"lr": 0.1, "bs": 32, "opt": "adam", "flag": True, "t": tl.tensor(3.0)},
                      {"acc": 0.9, "loss": tl.tensor(0.2)},
                      hparam_domain_discrete={"opt": ["adam", "sgd"]}, run_name="trial")
        with pytest.raises(TypeError, match="hparam_dict and metric_dict should be dictionary."):
            w.add_hparams([1], {})
    acc = load(tmp_path / "trial")

    def plugin(tag):
        data = plugin_data_pb2.HParamsPluginData()
        data.ParseFromString(acc.summary_metadata[tag].plugin_data.content)
        return data

    exp = plugin("_hparams_/experiment").experiment
    kinds = {h.name: h.type for h in exp.hparam_infos}
    assert kinds == {"lr": api_pb2.DATA_TYPE_FLOAT64, "bs": api_pb2.DATA_TYPE_FLOAT64, "opt": api_pb2.DATA_TYPE_STRING,
                     "flag": api_pb2.DATA_TYPE_FLOAT64, "t": api_pb2.DATA_TYPE_FLOAT64}
    opt = [h for h in exp.hparam_infos if h.name == "opt"][0]
    assert [v.string_value for v in opt.domain_discrete.values] == ["adam", "sgd"]
    assert [m.name.tag for m in exp.metric_infos] == ["acc", "loss"]
    start = plugin("_hparams_/session_start_info").session_start_info
    assert start.hparams["lr"].number_value == 0.1 and start.hparams["opt"].string_value == "adam"
    assert start.hparams["flag"].number_value == 1.0 and start.hparams["t"].number_value == 3.0
    assert plugin("_hparams_/session_end_info").session_end_info.status == api_pb2.STATUS_SUCCESS
    np.testing.assert_allclose(acc.Scalars("acc")[0].value, 0.9, rtol=1e-6)
    np.testing.assert_allclose(acc.Scalars("loss")[0].value, 0.2, rtol=1e-6)


def test_figure(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(2, 1), dpi=50)
    plt.plot([0, 1], [0, 1])
    figs = [plt.figure(figsize=(2, 1), dpi=50) for _ in range(2)]
    with SummaryWriter(tmp_path) as w:
        w.add_figure("one", fig, 0)
        w.add_figure("two", figs, 0)
    acc = load(tmp_path)
    assert (acc.Images("one")[0].height, acc.Images("one")[0].width) == (50, 100)
    assert (acc.Images("two")[0].height, acc.Images("two")[0].width) == (50, 200)
    assert not plt.fignum_exists(fig.number)  # close=True closed it


def test_writer_lifecycle(tmp_path, monkeypatch):
    w = SummaryWriter(tmp_path / "a", filename_suffix=".mine")
    w.add_scalar("x", 1.0, 0)
    w.flush()
    files = os.listdir(tmp_path / "a")
    assert len(files) == 1 and files[0].startswith("events.out.tfevents.") and files[0].endswith(".mine")
    assert [e.value for e in load(tmp_path / "a").Scalars("x")] == [1.0]
    w.close()
    w.close()  # twice is fine
    w.add_scalar("x", 2.0, 1)  # a closed writer re-opens a new event file
    w.close()
    assert len(os.listdir(tmp_path / "a")) == 2
    assert sorted(e.value for e in load(tmp_path / "a").Scalars("x")) == [1.0, 2.0]
    assert w.get_logdir() == str(tmp_path / "a")
    monkeypatch.chdir(tmp_path)
    d = SummaryWriter(comment="_exp")
    assert d.log_dir.startswith("runs" + os.sep) and d.log_dir.endswith("_exp")
    d.close()
    with SummaryWriter(tmp_path / "p", purge_step=5) as pw:
        pw.add_scalar("y", 1.0, 5)
    assert [e.step for e in load(tmp_path / "p").Scalars("y")] == [5]
    with SummaryWriter(tmp_path / "cs") as cw:
        cw.add_custom_scalars_multilinechart(["loss/train", "loss/val"], title="losses")
        cw.add_custom_scalars({"cat": {"band": ["Margin", ["m", "lo", "hi"]]}})
    from tensorboard.plugins.custom_scalar import layout_pb2

    layout = layout_pb2.Layout()
    layout.ParseFromString(load(tmp_path / "cs").Tensors("custom_scalars__config__")[-1].tensor_proto.string_val[0])
    assert layout.category[0].chart[0].margin.series[0].upper == "hi"


def test_import_error_without_tensorboard():
    code = (
        "import sys; sys.modules['tensorboard'] = None\n"
        "try:\n    import torchlike.utils.tensorboard\nexcept ImportError as e:\n    print(type(e).__name__)\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=120)
    assert out.stdout.strip() == "ModuleNotFoundError", out.stderr


@requires_torch
def test_matches_torch_writer(tmp_path):
    import torch
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    rng = np.random.default_rng(0)
    samples = [np.arange(10.0), np.array([-3.0, -1.0, 0.5, 2.0]), rng.standard_normal(1000) * 1e3]
    img = rng.random((3, 4, 5)).astype(np.float32)
    batch = rng.random((5, 1, 4, 5)).astype(np.float32)
    for root, W, T in ((tmp_path / "ours", SummaryWriter, tl.tensor), (tmp_path / "torch", TorchWriter, torch.tensor)):
        with W(str(root)) as w:
            for i, v in enumerate(samples):
                w.add_histogram(f"h{i}", T(v), 0)
                w.add_histogram(f"a{i}", T(v), 0, bins="auto")
            w.add_image("img", T(img), 0)
            w.add_images("batch", T(batch), 0)
            w.add_text("t", "x", 0)
            w.add_hparams({"lr": 0.1, "opt": "sgd", "on": False}, {"m": 1.0}, run_name="r")
    ours, ref = load(tmp_path / "ours"), load(tmp_path / "torch")
    for tag in [f"h{i}" for i in range(3)] + [f"a{i}" for i in range(3)]:
        a, b = ours.Histograms(tag)[0].histogram_value, ref.Histograms(tag)[0].histogram_value
        np.testing.assert_allclose(list(a.bucket_limit), list(b.bucket_limit), rtol=1e-12)
        assert list(a.bucket) == list(b.bucket)
        assert (a.min, a.max, a.num) == (b.min, b.max, b.num)
        np.testing.assert_allclose([a.sum, a.sum_squares], [b.sum, b.sum_squares], rtol=1e-12)
    for tag in ("img", "batch"):
        np.testing.assert_array_equal(_decode(ours.Images(tag)[0]), _decode(ref.Images(tag)[0]))
    assert ours.Tensors("t/text_summary")[0].tensor_proto == ref.Tensors("t/text_summary")[0].tensor_proto
    o, r = load(tmp_path / "ours" / "r"), load(tmp_path / "torch" / "r")
    for tag in ("_hparams_/experiment", "_hparams_/session_start_info", "_hparams_/session_end_info"):
        from tensorboard.plugins.hparams import plugin_data_pb2

        x, y = plugin_data_pb2.HParamsPluginData(), plugin_data_pb2.HParamsPluginData()
        x.ParseFromString(o.summary_metadata[tag].plugin_data.content)
        y.ParseFromString(r.summary_metadata[tag].plugin_data.content)
        assert x == y, tag
