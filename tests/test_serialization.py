"""torchlike.save / torchlike.load: layout, storage sharing, dtypes, safety,
failures, and compatibility with PyTorch's files in both directions."""
import collections
import io
import mmap
import os
import pathlib
import pickle
import struct
import subprocess
import sys
import types
import zipfile

import numpy as np
import pytest

import torchlike as tl
from torchlike import serialization as ser
from conftest import requires_torch

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "torch_checkpoint_v1.pt")
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def roundtrip(obj, **load_kwargs):
    buf = io.BytesIO()
    tl.save(obj, buf)
    buf.seek(0)
    return tl.load(buf, **load_kwargs)


def as_numpy(t):
    if t.dtype == tl.bfloat16:
        return t.float().numpy()
    return t.numpy()


def same(a, b):
    return a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape) and np.array_equal(as_numpy(a), as_numpy(b))


def sample_per_dtype():
    values = tl.arange(-3, 3).reshape(2, 3)
    out = {}
    for name in DTYPES:
        dtype = getattr(tl, name)
        if name == "bool":
            out[name] = values > 0
        elif name == "uint8":
            out[name] = values.abs().to(dtype)
        elif dtype.is_floating_point:
            out[name] = values.to(dtype) / 2
        else:
            out[name] = values.to(dtype)
    return out


# ---- layout ----------------------------------------------------------------

def test_zip_layout_matches_pytorch(tmp_path):
    path = tmp_path / "model.ckpt.pt"
    x = tl.arange(6.0)
    tl.save({"a": x, "b": tl.ones(3, dtype=tl.int8)}, path)
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        assert names == ["model.ckpt/data.pkl", "model.ckpt/.format_version", "model.ckpt/.storage_alignment",
                         "model.ckpt/byteorder", "model.ckpt/data/0", "model.ckpt/data/1", "model.ckpt/version",
                         "model.ckpt/.data/serialization_id"]
        assert all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist())
        assert z.read("model.ckpt/byteorder") == sys.byteorder.encode()
        assert z.read("model.ckpt/version") == b"3\n"
        assert z.read("model.ckpt/.format_version") == b"1"
        assert z.read("model.ckpt/.storage_alignment") == b"64"
        assert len(z.read("model.ckpt/.data/serialization_id")) == 40
        assert z.read("model.ckpt/data/0") == np.arange(6, dtype=np.float32).tobytes()
        raw = path.read_bytes()
        for info in z.infolist():
            name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26:info.header_offset + 30])
            assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0, info.filename
        assert z.testzip() is None  # every CRC-32 is right


def test_file_object_uses_archive_prefix_and_byteorder_can_be_left_out():
    buf = io.BytesIO()
    tl.save(tl.ones(2), buf, _disable_byteorder_record=True)
    names = zipfile.ZipFile(io.BytesIO(buf.getvalue())).namelist()
    assert names[0] == "archive/data.pkl" and "archive/byteorder" not in names
    buf.seek(0)
    assert same(tl.load(buf), tl.ones(2))


def test_pickle_spells_pytorch_globals():
    buf = io.BytesIO()
    tl.save([tl.ones(2), tl.float16, tl.device("cpu"), tl.Size([2, 3])], buf)
    data = zipfile.ZipFile(io.BytesIO(buf.getvalue())).read("archive/data.pkl")
    names = set(ser._wo.globals_named_in(data))
    assert {"torch._utils._rebuild_tensor_v2", "torch.FloatStorage", "torch.float16", "torch.device",
            "torch.Size"} <= names
    assert not any(n.startswith("torchlike") for n in names)


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_pickle_protocols(protocol):
    buf = io.BytesIO()
    obj = {"t": tl.arange(4.0), "d": tl.int16, "s": tl.Size([1])}
    tl.save(obj, buf, pickle_protocol=protocol)
    buf.seek(0)
    back = tl.load(buf)
    assert same(back["t"], obj["t"]) and back["d"] == tl.int16 and back["s"] == tl.Size([1])


# ---- values and storage sharing ----------------------------------------------

@pytest.mark.parametrize("name", DTYPES)
def test_every_dtype_roundtrips(name):
    t = sample_per_dtype()[name]
    back = roundtrip({"t": t, "nc": t.t(), "zero_dim": t[1, 2], "empty": t[:0]})
    assert same(back["t"], t)
    assert same(back["nc"], t.t()) and back["nc"].stride() == t.t().stride()
    assert back["zero_dim"].dim() == 0 and same(back["zero_dim"], t[1, 2])
    assert tuple(back["empty"].shape) == (0, 3) and back["empty"].dtype == t.dtype


def test_views_saved_together_share_storage():
    base = tl.arange(24.0).reshape(4, 6)
    back = roundtrip([base, base[1], base[::2, 1::3], base.t()])
    b, row, strided, tr = back
    assert row._storage_ptr() == b._storage_ptr() == strided._storage_ptr() == tr._storage_ptr()
    assert row.storage_offset() == 6 and strided.stride() == (12, 3)
    b[1, 0] = -5.0  # writes through the shared buffer, as in the saved tensors
    assert row[0].item() == -5.0 and tr[0, 1].item() == -5.0


def test_distinct_tensors_get_distinct_storages_and_identity_is_kept():
    a, b = tl.ones(3), tl.zeros(3)
    back = roundtrip({"a": a, "b": b, "again": a})
    assert back["a"]._storage_ptr() != back["b"]._storage_ptr()
    assert back["again"] is back["a"]


def test_only_the_view_is_saved_but_with_its_whole_storage():
    base = tl.arange(10.0)
    back = roundtrip(base[3:5])
    assert back.tolist() == [3.0, 4.0] and back.storage_offset() == 3 and back._storage_nbytes() == 40


def test_requires_grad_and_metadata_survive():
    w = tl.ones(2, requires_grad=True)
    state = collections.OrderedDict(w=w.detach(), g=w)
    state._metadata = collections.OrderedDict([("", {"version": 1})])
    back = roundtrip(state)
    assert isinstance(back, collections.OrderedDict) and list(back) == ["w", "g"]
    assert back._metadata == {"": {"version": 1}}
    assert back["g"].requires_grad and back["g"].is_leaf and not back["w"].requires_grad


def test_parameters_and_tensor_attributes():
    p = tl.nn.Parameter(tl.arange(3.0))
    frozen = tl.nn.Parameter(tl.ones(2), requires_grad=False)
    tagged = tl.ones(2)
    tagged.note = "kept"
    back = roundtrip({"p": p, "frozen": frozen, "tagged": tagged, "again": p})
    assert type(back["p"]) is tl.nn.Parameter and back["p"].requires_grad and back["again"] is back["p"]
    assert type(back["frozen"]) is tl.nn.Parameter and not back["frozen"].requires_grad
    assert type(back["tagged"]) is tl.Tensor and back["tagged"].note == "kept"
    data = zipfile.ZipFile(io.BytesIO(_saved_bytes(p))).read("archive/data.pkl")
    assert "torch._utils._rebuild_parameter" in ser._wo.globals_named_in(data)


def test_module_state_dict_roundtrip():
    tl.manual_seed(0)
    model = tl.nn.Linear(3, 2)
    sd = roundtrip(model.state_dict())
    fresh = tl.nn.Linear(3, 2)
    fresh.load_state_dict(sd)
    assert tl.equal(fresh.weight, model.weight) and tl.equal(fresh.bias, model.bias)
    assert list(sd) == ["weight", "bias"] and hasattr(sd, "_metadata")


def _saved_bytes(obj):
    buf = io.BytesIO()
    tl.save(obj, buf)
    return buf.getvalue()


def test_optimizer_style_state_dict():
    sd = {"state": {0: {"step": tl.tensor(3.0), "exp_avg": tl.full((5,), 0.25)}, 1: {"momentum_buffer": None}},
          "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "params": [0, 1], "foreach": None,
                            "nesterov": False}]}
    back = roundtrip(sd)
    assert back["param_groups"] == sd["param_groups"]
    assert same(back["state"][0]["exp_avg"], sd["state"][0]["exp_avg"])
    assert back["state"][0]["step"].item() == 3.0 and back["state"][1] == {"momentum_buffer": None}


def test_nested_containers_and_primitives():
    obj = {"list": [1, 2.5, "s", None, True], "tuple": (b"bytes", bytearray(b"ba")), "set": {1, 2},
           "complex": 1 + 2j, "big": 2 ** 80, "nested": [{"t": tl.ones(1)}], "counter": collections.Counter("aab")}
    back = roundtrip(obj)
    assert back["list"] == obj["list"] and back["tuple"] == obj["tuple"] and back["set"] == {1, 2}
    assert back["complex"] == 1 + 2j and back["big"] == 2 ** 80 and back["counter"] == obj["counter"]
    assert same(back["nested"][0]["t"], tl.ones(1))


def test_paths_pathlib_and_file_objects(tmp_path):
    x = tl.arange(5)
    tl.save(x, str(tmp_path / "a.pt"))
    tl.save(x, tmp_path / "b.pt")
    with open(tmp_path / "c.pt", "wb") as f:
        tl.save(x, f)
    for name in ("a.pt", "b.pt", "c.pt"):
        assert same(tl.load(tmp_path / name), x)
        assert same(tl.load(str(tmp_path / name)), x)
        with open(tmp_path / name, "rb") as f:
            assert same(tl.load(f), x)


def test_file_object_at_an_offset_and_unseekable_stream(tmp_path):
    buf = io.BytesIO()
    buf.write(b"HEADER")
    tl.save(tl.ones(2), buf)
    buf.seek(6)
    assert same(tl.load(buf), tl.ones(2))

    class Stream(io.RawIOBase):
        def __init__(self, data):
            self.inner = io.BytesIO(data)

        def readable(self):
            return True

        def seekable(self):
            return False

        def readinto(self, b):
            return self.inner.readinto(b)

    assert same(tl.load(Stream(buf.getvalue()[6:])), tl.ones(2))


# ---- map_location ------------------------------------------------------------

def test_map_location_forms():
    x = tl.arange(3.0)
    for loc in ("cpu", tl.device("cpu"), {"cpu": "cpu"}, {"cuda:0": "cpu"}):
        assert same(roundtrip(x, map_location=loc), x)
    seen = []

    def record(storage, location):
        seen.append((type(storage).__name__, location, storage.dtype, storage.nbytes()))
        return storage

    assert same(roundtrip(x, map_location=record), x)
    assert seen == [("CheckpointStorage", "cpu", tl.float32, 12)]
    # A callable returning None falls back to the default placement.
    assert same(roundtrip(x, map_location=lambda s, loc: None), x)


def test_map_location_errors():
    with pytest.raises(RuntimeError, match=r"don't know how to restore data location of .* \(tagged with xyz\)"):
        roundtrip(tl.ones(1), map_location="xyz")
    with pytest.raises(TypeError, match="map_location"):
        roundtrip(tl.ones(1), map_location=5)
    if not tl.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA device but torchlike.cuda.is_available.. is False"):
            roundtrip(tl.ones(1), map_location="cuda")


def test_location_tag_and_default_restore_location():
    x = tl.ones(2)
    assert ser.location_tag(x) == "cpu"
    storage = ser.CheckpointStorage(x)
    assert ser.default_restore_location(storage, "cpu") is storage
    with pytest.raises(RuntimeError, match="tagged with nowhere"):
        ser.default_restore_location(storage, "nowhere")


def test_register_package_is_consulted_in_priority_order():
    calls = []

    def tagger(storage):
        return None

    def deserializer(storage, location):
        calls.append(location)
        return storage if location == "shelf" else None

    before = list(ser._packages)
    try:
        ser.register_package(5, tagger, deserializer)
        assert ser._packages[0][0] == 5
        assert same(roundtrip(tl.ones(2), map_location="shelf"), tl.ones(2))
        assert calls == ["shelf"]
    finally:
        ser._packages[:] = before


# ---- mmap ------------------------------------------------------------------

def test_mmap_is_zero_copy_and_private(tmp_path):
    path = tmp_path / "m.pt"
    x = tl.arange(1000.0)
    tl.save({"x": x, "view": x[10:20]}, path)
    back = tl.load(path, mmap=True)
    assert same(back["x"], x) and back["view"]._storage_ptr() == back["x"]._storage_ptr()
    # The tensor's bytes are the file's bytes: find the data record's offset.
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("m/data/0")
    raw = path.read_bytes()
    name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26:info.header_offset + 30])
    data_offset = info.header_offset + 30 + name_len + extra_len
    ptr = back["x"].data_ptr()
    assert ptr % 64 == 0
    # Under MAP_PRIVATE the pointer lies in a mapping of the file, at the record's offset within it.
    assert (ptr - data_offset) % mmap.PAGESIZE == 0
    back["x"][0] = 42.0  # copy-on-write: the file keeps its bytes
    assert tl.load(path)["x"][0].item() == 0.0


def test_mmap_shared_writes_through(tmp_path):
    path = tmp_path / "s.pt"
    tl.save(tl.zeros(4), path)
    assert ser.get_default_mmap_options() == mmap.MAP_PRIVATE
    with ser.set_default_mmap_options(mmap.MAP_SHARED):
        assert ser.get_default_mmap_options() == mmap.MAP_SHARED
        t = tl.load(path, mmap=True)
        t[1] = 7.0
        del t
    assert ser.get_default_mmap_options() == mmap.MAP_PRIVATE
    assert tl.load(path).tolist() == [0.0, 7.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="expected mmap.MAP_PRIVATE or mmap.MAP_SHARED, but got 5"):
        ser.set_default_mmap_options(5)


def test_mmap_needs_a_path():
    buf = io.BytesIO()
    tl.save(tl.ones(1), buf)
    buf.seek(0)
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap argument"):
        tl.load(buf, mmap=True)


# ---- weights_only ------------------------------------------------------------

class Custom:
    def __init__(self, value=1):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, Custom) and other.value == self.value


class Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


class EvilEval:
    def __reduce__(self):
        return (eval, ("__import__('os').getcwd()",))


def test_weights_only_is_the_default_and_refuses_unknown_globals():
    buf = io.BytesIO()
    tl.save({"x": Custom(3)}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError) as info:
        tl.load(buf)
    message = str(info.value)
    assert "Weights only load failed" in message
    assert f"Unsupported global: GLOBAL {__name__}.Custom was not an allowed global by default" in message
    assert "add_safe_globals" in message and "weights_only` set to `False`" in message
    buf.seek(0)
    assert tl.load(buf, weights_only=False) == {"x": Custom(3)}


def test_os_system_payload_never_runs(tmp_path):
    marker = tmp_path / "pwned"
    buf = io.BytesIO()
    tl.save(Evil(str(marker)), buf)
    assert not marker.exists()
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL (posix|nt|os)\.system whose module .* is blocked"):
        tl.load(buf)
    assert not marker.exists()
    # Allow-listing does not unblock a dangerous module.
    with ser.safe_globals([os.system]):
        buf.seek(0)
        with pytest.raises(pickle.UnpicklingError):
            tl.load(buf)
    assert not marker.exists()
    buf.seek(0)
    assert ser.get_unsafe_globals_in_checkpoint(buf) == [f"{os.system.__module__}.system"]


def test_type_objects_need_allow_listing_like_in_pytorch():
    buf = io.BytesIO()
    tl.save({"kind": float}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL float was not an allowed global"):
        tl.load(buf)
    with ser.safe_globals([float]):
        buf.seek(0)
        assert tl.load(buf) == {"kind": float}


def test_builtins_eval_payload_is_refused():
    buf = io.BytesIO()
    tl.save(EvilEval(), buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL eval was not an allowed global"):
        tl.load(buf)


def test_hand_written_pickle_with_stack_global_is_refused(tmp_path):
    # A data.pkl written by hand (protocol 4, STACK_GLOBAL) naming subprocess.
    marker = tmp_path / "pwned2"
    payload = pickle.dumps(Evil(str(marker)), protocol=4)
    buf = io.BytesIO()
    tl.save(0, buf)
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name in src.namelist():
            z.writestr(name, payload if name.endswith("data.pkl") else src.read(name))
    out.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="blocked"):
        tl.load(out)
    assert not marker.exists()
    out.seek(0)
    assert ser.get_unsafe_globals_in_checkpoint(out) == [f"{os.system.__module__}.system"]


def test_safe_globals_api():
    ser.clear_safe_globals()
    assert ser.get_safe_globals() == []
    buf = io.BytesIO()
    tl.save([Custom(5)], buf)
    with ser.safe_globals([Custom]):
        assert ser.get_safe_globals() == [Custom]
        buf.seek(0)
        assert ser.get_unsafe_globals_in_checkpoint(buf) == []
        buf.seek(0)
        assert tl.load(buf) == [Custom(5)]
    assert ser.get_safe_globals() == []
    buf.seek(0)
    assert ser.get_unsafe_globals_in_checkpoint(buf) == [f"{__name__}.Custom"]
    ser.add_safe_globals([(Custom, f"{__name__}.Custom")])
    try:
        buf.seek(0)
        assert tl.load(buf) == [Custom(5)]
    finally:
        ser.clear_safe_globals()
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError):
        tl.load(buf)


def test_weights_only_with_pickle_module_and_load_args():
    buf = io.BytesIO()
    tl.save(tl.ones(2), buf)
    buf.seek(0)
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module is specified"):
        tl.load(buf, pickle_module=pickle, weights_only=True)
    buf.seek(0)
    assert same(tl.load(buf, pickle_module=pickle), tl.ones(2))  # an explicit pickle_module means weights_only=False
    buf.seek(0)
    with pytest.warns(UserWarning, match="pickle_load_args only works if `weights_only=False`"):
        tl.load(buf, encoding="latin1")


def test_weights_only_rejects_out_of_bounds_views():
    # A crafted file whose tensor claims more elements than its storage has
    # must not read past the buffer.
    buf = io.BytesIO()
    tl.save(tl.ones(4), buf)
    z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    data = z.read("archive/data.pkl")
    pos = data.index(b"K\x04\x85")  # the size tuple (4,)
    bad = data[:pos] + b"K\x40\x85" + data[pos + 3:]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as w:
        for name in z.namelist():
            w.writestr(name, bad if name.endswith("data.pkl") else z.read(name))
    out.seek(0)
    with pytest.raises(RuntimeError, match="past the end of its storage"):
        tl.load(out)
    # A storage claiming more elements than its record holds is refused before
    # anything is allocated for it.
    pos = data.index(b"K\x04t")  # numel 4 closing the persistent id
    huge = data[:pos] + b"\x8a\x06\x00\x00\x00\x00\x00\x01t" + data[pos + 3:]  # LONG1: 2**40
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as w:
        for name in z.namelist():
            w.writestr(name, huge if name.endswith("data.pkl") else z.read(name))
    out.seek(0)
    with pytest.raises(RuntimeError, match="holds 16 bytes but its storage needs 4398046511104"):
        tl.load(out)


# ---- failures ----------------------------------------------------------------

def test_truncated_and_corrupt_files(tmp_path):
    path = tmp_path / "t.pt"
    tl.save({"w": tl.arange(100.0)}, path)
    raw = path.read_bytes()
    for cut in (10, len(raw) // 2, len(raw) - 5):
        bad = tmp_path / f"cut{cut}.pt"
        bad.write_bytes(raw[:cut])
        with pytest.raises(RuntimeError, match=r"cut\d+\.pt.*failed finding central directory.*truncated or corrupted"):
            tl.load(bad)
    # A flipped byte inside data.pkl is caught by its CRC-32 (storage records
    # are not checked: MAP_SHARED loading writes into them, as in PyTorch).
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("t/data.pkl")
    name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26:info.header_offset + 30])
    flip = info.header_offset + 30 + name_len + extra_len + 7
    corrupt = tmp_path / "flip.pt"
    corrupt.write_bytes(raw[:flip] + bytes([raw[flip] ^ 0xFF]) + raw[flip + 1:])
    with pytest.raises(RuntimeError, match="flip.pt.*CRC-32 mismatch in record t/data.pkl"):
        tl.load(corrupt)
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"definitely not a checkpoint" * 4)
    with pytest.raises(pickle.UnpicklingError, match="garbage.pt' is not a checkpoint"):
        tl.load(garbage)
    with pytest.raises(FileNotFoundError):
        tl.load(tmp_path / "missing.pt")


def test_bad_targets():
    with pytest.raises(AttributeError, match="expected 'f' to be string, path, or a file-like object"):
        tl.save(1, 5)
    with pytest.raises(AttributeError, match="You can only torchlike.load from a file that is seekable"):
        tl.load(5)


class Unpicklable:
    def __reduce__(self):
        raise RuntimeError("cannot pickle this")


def test_failed_save_keeps_previous_file(tmp_path):
    path = tmp_path / "ckpt.pt"
    tl.save({"epoch": 1, "w": tl.ones(3)}, path)
    before = path.read_bytes()
    with pytest.raises(RuntimeError, match="cannot pickle this"):
        tl.save({"epoch": 2, "w": tl.zeros(3), "bad": Unpicklable()}, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ckpt.pt"]  # no temporary file left behind


def test_save_interrupted_while_writing_keeps_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.pt"
    tl.save({"epoch": 1}, path)
    before = path.read_bytes()
    real = ser._ZipRecordWriter.add

    def add_then_fail(self, name, data, *args, **kwargs):
        real(self, name, data, *args, **kwargs)
        if "/data/" in name:  # after the first storage's bytes are on disk
            raise KeyboardInterrupt

    monkeypatch.setattr(ser._ZipRecordWriter, "add", add_then_fail)
    with pytest.raises(KeyboardInterrupt):
        tl.save({"epoch": 2, "w": tl.ones(1000)}, path)
    monkeypatch.undo()
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["ckpt.pt"]
    assert tl.load(path) == {"epoch": 1}


def test_saved_file_permissions_follow_umask(tmp_path):
    path = tmp_path / "p.pt"
    tl.save(1, path)
    umask = os.umask(0)
    os.umask(umask)
    assert (path.stat().st_mode & 0o777) == (0o666 & ~umask)
    os.chmod(path, 0o640)
    tl.save(2, path)  # an existing file keeps its mode
    assert (path.stat().st_mode & 0o777) == 0o640


def test_mixed_dtype_views_of_one_storage_are_refused():
    x = tl.arange(4.0)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        tl.save([x, x.view(tl.int32)], io.BytesIO())


# ---- other public names --------------------------------------------------------

def test_crc32_option(tmp_path):
    assert ser.get_crc32_options() is True
    ser.set_crc32_options(False)
    try:
        tl.save(tl.ones(3), tmp_path / "nocrc.pt")
    finally:
        ser.set_crc32_options(True)
    with zipfile.ZipFile(tmp_path / "nocrc.pt") as z:
        assert all(i.CRC == 0 for i in z.infolist())
    assert same(tl.load(tmp_path / "nocrc.pt"), tl.ones(3))


def test_load_endianness_setting_and_big_endian_files(tmp_path):
    assert ser.get_default_load_endianness() is None
    with pytest.raises(TypeError, match="Invalid argument type in function set_default_load_endianness"):
        ser.set_default_load_endianness("x")
    # A file whose byteorder record says big: its bytes are swapped on load.
    x = tl.tensor([1.0, 2.0, -3.5])
    buf = io.BytesIO()
    tl.save(x, buf)
    z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as w:
        for name in z.namelist():
            data = z.read(name)
            if name.endswith("byteorder"):
                data = b"big"
            elif "/data/" in name:
                data = np.frombuffer(data, dtype="<f4").astype(">f4").tobytes()
            w.writestr(name, data)
    out.seek(0)
    assert tl.load(out).tolist() == [1.0, 2.0, -3.5]
    # Without a byteorder record the default endianness decides.
    out2 = io.BytesIO()
    with zipfile.ZipFile(out2, "w") as w:
        for name in z.namelist():
            if name.endswith("byteorder"):
                continue
            data = z.read(name)
            if "/data/" in name:
                data = np.frombuffer(data, dtype="<f4").astype(">f4").tobytes()
            w.writestr(name, data)
    ser.set_default_load_endianness(ser.LoadEndianness.BIG)
    try:
        out2.seek(0)
        assert tl.load(out2).tolist() == [1.0, 2.0, -3.5]
    finally:
        ser.set_default_load_endianness(None)
    assert [e.name for e in ser.LoadEndianness] == ["NATIVE", "LITTLE", "BIG"]


def test_skip_data(tmp_path):
    path = tmp_path / "skip.pt"
    with ser.skip_data():
        tl.save({"a": tl.full((16,), 3.0)}, path)
    with zipfile.ZipFile(path) as z:
        assert z.getinfo("skip/data/0").file_size == 64
    assert tl.load(path)["a"].tolist() == [0.0] * 16  # the bytes were never written
    tl.save({"a": tl.full((16,), 3.0)}, path)
    with ser.skip_data():
        loaded = tl.load(path)["a"]
    assert tuple(loaded.shape) == (16,) and loaded.dtype == tl.float32


def test_small_helpers(tmp_path):
    assert issubclass(ser.SourceChangeWarning, Warning)
    with ser.mkdtemp() as d:
        assert os.path.isdir(d)
        (pathlib.Path(d) / "f").write_text("x")
    assert not os.path.exists(d)

    Mod = types.ModuleType("mod")
    Mod.__version__ = "1.12.0rc1"

    assert ser.check_module_version_greater_or_equal(Mod, (1, 12))
    assert not ser.check_module_version_greater_or_equal(Mod, (1, 13))
    Mod.__version__ = "x.y"
    with pytest.raises(RuntimeError, match="'mod' module version string is malformed 'x.y'"):
        ser.check_module_version_greater_or_equal(Mod, (1, 2))
    with pytest.warns(UserWarning, match="continuing assuming that requirement is met"):
        assert ser.check_module_version_greater_or_equal(Mod, (1, 2), False)
    assert repr(ser.StorageType("HalfStorage")) == "StorageType(dtype=torchlike.float16)"
    assert ser.normalize_storage_type("LongStorage").dtype == tl.int64
    assert ser.storage_to_tensor_type(ser.CheckpointStorage(tl.ones(1))) == "torch.FloatTensor"
    with pytest.raises(RuntimeError, match="HPU device module is not registered"):
        ser.validate_hpu_device("hpu:0")
    if not tl.cuda.is_available():
        with pytest.raises(RuntimeError, match="is_available.. is False"):
            ser.validate_cuda_device("cuda:0")


@pytest.mark.parametrize("protocol", [2, 4])
def test_legacy_format_roundtrip(protocol):
    base = tl.arange(6.0)
    buf = io.BytesIO()
    tl.save({"a": base, "v": base[2:4], "i": tl.ones(2, dtype=tl.int64)}, buf, _use_new_zipfile_serialization=False,
            pickle_protocol=protocol)
    assert not buf.getvalue().startswith(b"PK")
    buf.seek(0)
    back = tl.load(buf)
    assert back["a"].tolist() == list(range(6)) and back["v"].tolist() == [2.0, 3.0]
    assert back["v"]._storage_ptr() == back["a"]._storage_ptr()
    assert back["i"].dtype == tl.int64
    truncated = io.BytesIO(buf.getvalue()[:-10])
    with pytest.raises(RuntimeError, match="legacy checkpoint is truncated"):
        tl.load(truncated)


# ---- PyTorch's files ------------------------------------------------------------

def test_fixture_written_by_pytorch_loads_without_pytorch():
    # A subprocess with torch made unimportable: the fixture must load on its own.
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import torchlike as tl\n"
        f"obj = tl.load({FIXTURE!r})\n"
        "print(sorted(obj), type(obj['dtypes']['bfloat16']).__name__)\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['dtypes', 'misc', 'optimizer', 'parameter', 'state_dict'] Tensor"


def test_fixture_values():
    obj = tl.load(FIXTURE)
    expected = sample_per_dtype()
    for name in DTYPES:
        assert same(obj["dtypes"][name], expected[name]), name
    sd = obj["state_dict"]
    base = tl.arange(24.0).reshape(4, 6)
    assert list(sd) == ["weight", "row_view", "transposed", "strided", "scalar", "empty"]
    assert same(sd["weight"], base) and same(sd["row_view"], base[1]) and same(sd["transposed"], base.t())
    assert same(sd["strided"], base[::2, 1::3]) and sd["strided"].stride() == (12, 3)
    assert sd["row_view"]._storage_ptr() == sd["weight"]._storage_ptr() == sd["transposed"]._storage_ptr()
    assert sd["scalar"].dtype == tl.float64 and sd["scalar"].item() == 2.5 and sd["scalar"].dim() == 0
    assert tuple(sd["empty"].shape) == (0, 3)
    assert sd._metadata == {"": {"version": 1}, "layer": {"version": 2}}
    param = obj["parameter"]
    assert type(param) is tl.nn.Parameter and param.requires_grad
    assert np.allclose(param.detach().numpy(), np.linspace(-1, 1, 5))
    opt = obj["optimizer"]
    assert opt["param_groups"][0]["betas"] == (0.9, 0.999) and opt["state"][0]["step"].item() == 3.0
    assert obj["misc"] == [tl.Size([2, 3]), tl.device("cpu"), tl.float16, (1, "two", 3.0), {4, 5}, b"raw", None]
    assert ser.get_unsafe_globals_in_checkpoint(FIXTURE) == []
    mapped = tl.load(FIXTURE, mmap=True)
    assert same(mapped["state_dict"]["weight"], base)


@requires_torch
def test_pytorch_loads_our_files(tmp_path):
    import torch
    path = tmp_path / "ours.pt"
    per_dtype = sample_per_dtype()
    base = tl.arange(24.0).reshape(4, 6)
    sd = collections.OrderedDict(w=base, row=base[1], t=base.t(), s=tl.tensor(1.5), e=tl.zeros(0, 2))
    sd._metadata = {"": {"version": 1}}
    tagged = tl.ones(1)
    tagged.note = "n"
    tl.save({"dtypes": per_dtype, "sd": sd, "misc": [tl.Size([2]), tl.device("cpu"), tl.bfloat16],
             "grad": tl.ones(2, requires_grad=True), "param": tl.nn.Parameter(tl.ones(3)), "tagged": tagged}, path)
    got = torch.load(path)  # weights_only=True in PyTorch too
    for name in DTYPES:
        theirs = got["dtypes"][name]
        assert str(theirs.dtype) == f"torch.{name}"
        assert np.array_equal(theirs.float().numpy(), per_dtype[name].float().numpy())
    assert got["sd"]["row"].untyped_storage().data_ptr() == got["sd"]["w"].untyped_storage().data_ptr()
    assert got["sd"]["t"].stride() == (1, 6) and got["sd"]._metadata == {"": {"version": 1}}
    assert got["misc"] == [torch.Size([2]), torch.device("cpu"), torch.bfloat16]
    assert got["grad"].requires_grad and tuple(got["sd"]["e"].shape) == (0, 2)
    assert type(got["param"]) is torch.nn.Parameter and got["tagged"].note == "n"
    opt = {"state": {0: {"step": tl.tensor(2.0), "exp_avg": tl.zeros(3)}},
           "param_groups": [{"lr": 0.1, "betas": (0.9, 0.99), "params": [0]}]}
    tl.save(opt, tmp_path / "opt.pt")
    got = torch.load(tmp_path / "opt.pt")
    assert got["param_groups"] == opt["param_groups"] and got["state"][0]["step"].item() == 2.0
    assert torch.load(path, mmap=True)["sd"]["w"].sum().item() == 276.0


@requires_torch
def test_we_load_pytorch_files(tmp_path):
    import torch
    path = tmp_path / "theirs.pt"
    base = torch.arange(12.0).reshape(3, 4)
    torch.save({"w": base, "v": base[:, 1], "b": torch.ones(3, dtype=torch.bfloat16),
                "p": torch.nn.Parameter(torch.ones(2))}, path)
    got = tl.load(path)
    assert got["w"].tolist() == base.tolist() and got["v"].tolist() == [1.0, 5.0, 9.0]
    assert got["v"]._storage_ptr() == got["w"]._storage_ptr() and got["v"].stride() == (4,)
    assert got["b"].dtype == tl.bfloat16 and got["p"].requires_grad
    legacy = tmp_path / "legacy.pt"
    torch.save({"w": base, "v": base[1]}, legacy, _use_new_zipfile_serialization=False)
    got = tl.load(legacy)
    assert got["v"].tolist() == [4.0, 5.0, 6.0, 7.0] and got["v"]._storage_ptr() == got["w"]._storage_ptr()


@requires_torch
def test_pytorch_loads_our_legacy_files(tmp_path):
    import torch
    path = tmp_path / "legacy_ours.pt"
    tl.save({"x": tl.arange(5), "y": tl.ones(2, 2)}, path, _use_new_zipfile_serialization=False)
    got = torch.load(path)
    assert got["x"].tolist() == [0, 1, 2, 3, 4] and got["y"].tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_whole_module_roundtrip_with_weights_only_false():
    tl.manual_seed(0)
    model = tl.nn.Sequential(tl.nn.Linear(3, 4), tl.nn.Linear(4, 2))
    buf = io.BytesIO()
    tl.save(model, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL torchlike.nn.modules"):
        tl.load(buf)
    buf.seek(0)
    back = tl.load(buf, weights_only=False)
    x = tl.ones(1, 3)
    assert type(back) is tl.nn.Sequential and tl.equal(back(x), model(x))
    assert type(back[0].weight) is tl.nn.Parameter


@requires_torch
def test_whole_pytorch_module_loads_as_torchlike_module():
    import torch
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 2))
    buf = io.BytesIO()
    torch.save(theirs, buf)
    buf.seek(0)
    ours = tl.load(buf, weights_only=False)
    assert type(ours) is tl.nn.Sequential and type(ours[0]) is tl.nn.Linear
    expected = theirs(torch.ones(1, 3)).detach().numpy()
    assert np.allclose(ours(tl.ones(1, 3)).detach().numpy(), expected)


def test_unknown_pytorch_global_is_not_taken_from_pytorch():
    # A hand-made pickle naming a torch.* global torchlike lacks: refused, not
    # imported from an installed PyTorch.
    payload = b"\x80\x02ctorch.no_such_module\nThing\nq\x00)\x81q\x01."
    buf = io.BytesIO()
    tl.save(0, buf)
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name in src.namelist():
            z.writestr(name, payload if name.endswith("data.pkl") else src.read(name))
    out.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="torchlike has no torchlike.no_such_module.Thing"):
        tl.load(out, weights_only=False)


AS_TORCH_SCRIPT = """
import sys
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint
model = nn.Linear(4, 3)
x = torch.randn(2, 4, requires_grad=True)
checkpoint(model, x, use_reentrant=False).sum().backward()
torch.save({"model": model.state_dict(), "grad": model.weight.grad}, sys.argv[1])
ckpt = torch.load(sys.argv[1])
fresh = nn.Linear(4, 3)
fresh.load_state_dict(ckpt["model"])
print(torch.equal(fresh.weight, model.weight), torch.equal(ckpt["grad"], model.weight.grad))
"""


def test_pytorch_style_script_through_as_torch(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(AS_TORCH_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    result = subprocess.run([sys.executable, "-m", "torchlike.as_torch", str(script), str(tmp_path / "c.pt")],
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True"]


def test_fast_pickler_is_used_and_its_renaming_never_touches_user_strings(monkeypatch):
    def no_python_pickler(base):
        raise AssertionError("the pure-Python pickler was used")

    obj = {"t": tl.ones(2), "p": tl.nn.Parameter(tl.zeros(1)), "d": tl.bfloat16, "dev": tl.device("cpu"),
           "size": tl.Size([3])}
    with monkeypatch.context() as m:
        m.setattr(ser, "_pickler_class", no_python_pickler)
        data = zipfile.ZipFile(io.BytesIO(_saved_bytes(obj))).read("archive/data.pkl")
    assert set(ser._wo.globals_named_in(data)) == {
        "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_parameter", "torch.FloatStorage",
        "torch.bfloat16", "torch.device", "torch.Size", "collections.OrderedDict"}
    # A string holding the exact bytes of a renamed GLOBAL opcode: the fast
    # path declines (it could not tell them apart) and the result is intact.
    tricky = "c" + ser.__name__ + "\n_rebuild_tensor_v2\n"
    back = roundtrip({"s": tricky, "t": tl.ones(2), "s2": "ctorchlike._tensor\nSize\n"})
    assert back["s"] == tricky and back["s2"] == "ctorchlike._tensor\nSize\n" and same(back["t"], tl.ones(2))
