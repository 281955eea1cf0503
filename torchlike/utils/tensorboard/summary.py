"""Builders of TensorBoard `Summary` protocol buffers from tensors, arrays
and numbers: scalars, histograms, images (PNG), text, hparams and custom
scalar layouts."""
import io
import math
import numbers

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

__all__ = [
    "custom_scalars",
    "histogram",
    "histogram_raw",
    "hparams",
    "image",
    "scalar",
    "tensor_proto",
    "text",
    "to_numpy",
]


def to_numpy(value):
    """A NumPy array from a torchlike tensor (detached, on the CPU), a
    NumPy array, a Python number or a list."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (numbers.Number, np.generic)):
        return np.array([value])
    detach = getattr(value, "detach", None)
    if detach is not None:
        t = detach()
        if t.device.type != "cpu":
            t = t.cpu()
        return t.numpy()
    return np.asarray(value)


def _plugin(name, content=b""):
    return SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=name, content=content))


def scalar(name, value, new_style=False, double_precision=False):
    """One scalar. The classic form is a `simple_value`; new_style writes a
    0-d tensor for the scalars plugin (float64 when double_precision)."""
    arr = to_numpy(value).squeeze()
    if arr.ndim != 0:
        raise AssertionError(
            f"Tensor should contain one element (0 dimensions). Was given size: {arr.size} and {arr.ndim} dimensions."
        )
    number = float(arr)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=number)])
    if double_precision:
        proto = TensorProto(dtype="DT_DOUBLE", double_val=[number])
    else:
        proto = TensorProto(dtype="DT_FLOAT", float_val=[number])
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=_plugin("scalars"))])


def tensor_proto(tag, tensor):
    """A whole tensor, for the tensor plugin data class."""
    arr = to_numpy(tensor)
    kinds = {
        np.dtype(np.float16): ("DT_HALF", "half_val"),
        np.dtype(np.float32): ("DT_FLOAT", "float_val"),
        np.dtype(np.float64): ("DT_DOUBLE", "double_val"),
        np.dtype(np.int32): ("DT_INT32", "int_val"),
        np.dtype(np.int64): ("DT_INT64", "int64_val"),
        np.dtype(np.bool_): ("DT_BOOL", "bool_val"),
    }
    if arr.dtype not in kinds:
        raise TypeError(f"add_tensor: unsupported dtype {arr.dtype}")
    dtype, field = kinds[arr.dtype]
    shape = TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in arr.shape])
    values = arr.reshape(-1)
    if field == "half_val":
        values = values.view(np.uint16)
    proto = TensorProto(dtype=dtype, tensor_shape=shape, **{field: values.tolist()})
    return Summary(value=[Summary.Value(tag=tag, tensor=proto, metadata=_plugin("tensor"))])


def _tensorflow_edges():
    """TensorFlow's default histogram buckets: +-1e-12 * 1.1^k up to 1e20,
    0 in the middle, and the float64 extremes to catch everything else."""
    positive = []
    edge = 1e-12
    while edge < 1e20:
        positive.append(edge)
        edge *= 1.1
    big = np.finfo(np.float64).max
    return np.array([-big] + [-e for e in reversed(positive)] + [0.0] + positive + [big])


_TF_EDGES = None


def histogram_raw(name, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):
    proto = HistogramProto(
        min=min, max=max, num=num, sum=sum, sum_squares=sum_squares,
        bucket_limit=bucket_limits, bucket=bucket_counts,
    )
    return Summary(value=[Summary.Value(tag=name, histo=proto)])


def _merge_buckets(counts, limits, max_bins):
    """Merge neighbouring buckets so that at most max_bins remain."""
    group = int(math.ceil(len(counts) / max_bins))
    n = len(counts)
    pad = (-n) % group
    padded = np.concatenate([counts, np.zeros(pad)])
    merged = padded.reshape(-1, group).sum(1)
    # a merged bucket ends where its last member ended
    ends = np.concatenate([limits, np.full(pad, limits[-1])]).reshape(-1, group)[:, -1]
    return merged, ends


def histogram(name, values, bins, max_bins=None):
    """Histogram of all elements. `bins` is 'tensorflow' (TensorFlow's
    exponential buckets) or anything numpy.histogram accepts."""
    global _TF_EDGES
    arr = to_numpy(values).astype(np.float64).reshape(-1)
    if arr.size == 0:
        raise ValueError("The input has no element.")
    if isinstance(bins, str) and bins == "tensorflow":
        if _TF_EDGES is None:
            _TF_EDGES = _tensorflow_edges()
        edges = _TF_EDGES
    else:
        edges = bins
    counts, edges = np.histogram(arr, bins=edges)
    # Each bucket is reported by its right edge; a zero bucket in front
    # carries the left edge of the first, so bucket i covers (limit[i-1], limit[i]].
    limits = np.asarray(edges, dtype=np.float64)
    counts = np.concatenate([[0], counts]).astype(np.float64)
    if max_bins is not None and len(counts) > max_bins:
        counts, limits = _merge_buckets(counts, limits, max_bins)
    nonzero = np.nonzero(counts)[0]
    start = max(int(nonzero[0]) - 1, 0)
    stop = int(nonzero[-1]) + 1
    return histogram_raw(
        name,
        min=float(arr.min()),
        max=float(arr.max()),
        num=float(arr.size),
        sum=float(arr.sum()),
        sum_squares=float(np.dot(arr, arr)),
        bucket_limits=limits[start:stop].tolist(),
        bucket_counts=counts[start:stop].tolist(),
    )


def _to_hwc(arr, dataformats):
    """Rearrange an image array with the named axes (a permutation of
    'CHW'/'HWC'/'HW', optionally with 'N') to height x width x channels,
    with 1-channel images repeated to RGB."""
    fmt = dataformats.upper()
    if len(set(fmt)) != len(fmt) or not set(fmt) <= set("NCHW") or "H" not in fmt or "W" not in fmt:
        raise ValueError(f"dataformats {dataformats!r} must name distinct axes among N, C, H and W")
    if arr.ndim != len(fmt):
        raise ValueError(
            f"size of input tensor and input format are different. tensor shape: {arr.shape}, input_format: {dataformats}"
        )
    if "N" in fmt:
        order = [fmt.index(a) for a in "N" + ("C" if "C" in fmt else "") + "HW"]
        batch = np.transpose(arr, order)
        if "C" not in fmt:
            batch = batch[:, None]
        return np.transpose(_grid(batch), (1, 2, 0))
    if "C" not in fmt:
        arr = np.transpose(arr, [fmt.index("H"), fmt.index("W")])[..., None]
    else:
        arr = np.transpose(arr, [fmt.index("H"), fmt.index("W"), fmt.index("C")])
    if arr.shape[2] == 1:
        arr = np.repeat(arr, 3, axis=2)
    return arr


def _grid(batch, per_row=8):
    """N x C x H x W -> C x (rows*H) x (cols*W), up to 8 images per row,
    unused cells black; 1-channel images become RGB."""
    n, c, h, w = batch.shape
    if c == 1:
        batch = np.repeat(batch, 3, axis=1)
        c = 3
    cols = min(n, per_row)
    rows = int(math.ceil(n / cols))
    canvas = np.zeros((c, rows * h, cols * w), dtype=batch.dtype)
    for k in range(n):
        r, q = divmod(k, cols)
        canvas[:, r * h:(r + 1) * h, q * w:(q + 1) * w] = batch[k]
    return canvas


def _png(hwc_uint8):
    from PIL import Image

    mode = {1: "L", 3: "RGB", 4: "RGBA"}[hwc_uint8.shape[2]]
    pixels = hwc_uint8[:, :, 0] if mode == "L" else hwc_uint8
    buf = io.BytesIO()
    Image.fromarray(pixels, mode=mode).save(buf, format="PNG")
    return buf.getvalue()


def image(tag, img, dataformats="CHW"):
    """An image summary; float images are taken to lie in [0, 1], uint8
    images in [0, 255]."""
    arr = to_numpy(img)
    hwc = _to_hwc(arr, dataformats)
    if hwc.dtype != np.uint8:
        hwc = (hwc.astype(np.float32) * 255.0).clip(0, 255).astype(np.uint8)
    height, width, channels = hwc.shape
    encoded = Summary.Image(height=height, width=width, colorspace=channels, encoded_image_string=_png(hwc))
    return Summary(value=[Summary.Value(tag=tag, image=encoded)])


def text(tag, text_string):
    proto = TensorProto(
        dtype="DT_STRING",
        string_val=[text_string.encode("utf-8")],
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]),
    )
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", tensor=proto, metadata=_plugin("text"))])


def _hparam_value(v):
    """Python value of an hparam: numbers and bools as float, strings as
    they are, one-element tensors by their item."""
    if hasattr(v, "numel") and hasattr(v, "item"):
        if v.numel() != 1:
            raise ValueError("hparam tensors must have exactly one element")
        v = v.item()
    if isinstance(v, np.generic):
        v = v.item()
    return v


def hparams(hparam_dict, metric_dict, hparam_domain_discrete=None):
    """The three summaries the hparams plugin reads: the experiment
    (hparam and metric declarations), session start (values) and end."""
    from tensorboard.plugins.hparams import api_pb2, plugin_data_pb2
    from google.protobuf import struct_pb2

    if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
        raise TypeError("hparam_dict and metric_dict should be dictionary.")
    hparam_domain_discrete = hparam_domain_discrete or {}
    if not isinstance(hparam_domain_discrete, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary.")
    for key, choices in hparam_domain_discrete.items():
        if key not in hparam_dict or not isinstance(choices, list):
            raise TypeError(
                "parameter: hparam_domain_discrete[{}] should be a list of same type as hparam_dict[{}].".format(key, key)
            )

    infos, start = [], plugin_data_pb2.SessionStartInfo()
    for key, raw in hparam_dict.items():
        v = _hparam_value(raw)
        if v is None:
            continue
        if isinstance(v, str):
            start.hparams[key].string_value = v
            kind = api_pb2.DATA_TYPE_STRING
            domain = [struct_pb2.Value(string_value=c) for c in hparam_domain_discrete.get(key, [])]
        elif isinstance(v, (bool, numbers.Real)):
            start.hparams[key].number_value = float(v)
            kind = api_pb2.DATA_TYPE_FLOAT64
            domain = [struct_pb2.Value(number_value=float(c)) for c in hparam_domain_discrete.get(key, [])]
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        info = api_pb2.HParamInfo(name=key, type=kind)
        if domain:
            info.domain_discrete.CopyFrom(struct_pb2.ListValue(values=domain))
        infos.append(info)

    metrics = [api_pb2.MetricInfo(name=api_pb2.MetricName(tag=k)) for k in metric_dict]
    experiment = api_pb2.Experiment(hparam_infos=infos, metric_infos=metrics)

    def wrap(tag, **payload):
        content = plugin_data_pb2.HParamsPluginData(version=0, **payload).SerializeToString()
        return Summary(value=[Summary.Value(tag=tag, metadata=_plugin("hparams", content))])

    end = plugin_data_pb2.SessionEndInfo(status=api_pb2.STATUS_SUCCESS)
    return (
        wrap("_hparams_/experiment", experiment=experiment),
        wrap("_hparams_/session_start_info", session_start_info=start),
        wrap("_hparams_/session_end_info", session_end_info=end),
    )


def custom_scalars(layout):
    """Layout for the custom scalars dashboard:
    {category: {chart title: ['Multiline' | 'Margin', [tags...]]}}."""
    from tensorboard.plugins.custom_scalar import layout_pb2

    categories = []
    for category, charts in layout.items():
        built = []
        for title, (kind, tags) in charts.items():
            if kind == "Margin":
                if len(tags) != 3:
                    raise AssertionError("a Margin chart takes [value, lower, upper] tags")
                series = [layout_pb2.MarginChartContent.Series(value=tags[0], lower=tags[1], upper=tags[2])]
                built.append(layout_pb2.Chart(title=title, margin=layout_pb2.MarginChartContent(series=series)))
            else:
                built.append(layout_pb2.Chart(title=title, multiline=layout_pb2.MultilineChartContent(tag=tags)))
        categories.append(layout_pb2.Category(title=category, chart=built))
    content = layout_pb2.Layout(category=categories).SerializeToString()
    tensor = TensorProto(dtype="DT_STRING", string_val=[content], tensor_shape=TensorShapeProto())
    return Summary(
        value=[Summary.Value(tag="custom_scalars__config__", tensor=tensor, metadata=_plugin("custom_scalars"))]
    )
