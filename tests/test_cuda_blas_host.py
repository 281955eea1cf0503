"""Host-side logic of the CUDA matmul, convolution and cuBLAS loader, run on
the CPU through torchlike._C test hooks (csrc/python/CudaBlasTesting.cpp):

- the GEMM plan (aten/native/CudaBlasPlan.h) is replayed by a column-major
  GEMM written here in NumPy, on the operands' own strided buffers, and must
  give A @ B;
- the im2col / col2im element math (aten/native/CudaConvIndex.h) must agree
  with F.unfold / F.fold and a direct 3-d reference;
- the library search order (aten/native/CudaLibrarySearch.h) and the missing
  library message.

No GPU needed."""
import itertools
import os
import sys

import numpy as np
import pytest

import torchlike
import torchlike.nn.functional as F
from torchlike import _C


# ---------------------------------------------------------------- GEMM plan

def _colmajor_gemm(plan, a_buf, a_off, b_buf, b_off):
    """What cuBLAS computes for `plan`: C' (m x n, column-major, ldc) =
    op(first) @ op(second), with first = B's buffer and second = A's."""
    m, n, k = plan["m"], plan["n"], plan["k"]
    ld1, ld2, ldc = plan["first_ld"], plan["second_ld"], plan["ldc"]

    def op(buf, off, ld, trans, rows, cols):
        out = np.empty((rows, cols))
        for i in range(rows):
            for j in range(cols):
                out[i, j] = buf[off + (j + i * ld if trans else i + j * ld)]
        return out

    x = op(b_buf, b_off, ld1, plan["first_trans"], m, k)
    y = op(a_buf, a_off, ld2, plan["second_trans"], k, n)
    prod = x @ y
    c = np.zeros(ldc * n)
    for i in range(m):
        for j in range(n):
            c[i + j * ldc] = prod[i, j]
    return c


def _strided(rows, cols, rs, cs, off, rng):
    """A flat buffer holding a rows x cols matrix at (off, rs, cs), and the matrix."""
    size = off + (rows - 1) * rs + (cols - 1) * cs + 1 if rows and cols else off + 1
    buf = rng.standard_normal(size)
    mat = np.array([[buf[off + i * rs + j * cs] for j in range(cols)] for i in range(rows)])
    return buf, mat


LAYOUTS = [
    # (row stride, col stride) as functions of (rows, cols)
    ("row-major", lambda r, c: (c, 1)),
    ("row-major padded", lambda r, c: (c + 3, 1)),
    ("column-major", lambda r, c: (1, r)),
    ("column-major padded", lambda r, c: (1, r + 2)),
]


@pytest.mark.parametrize("m,n,k", [(3, 4, 5), (1, 4, 5), (3, 1, 5), (3, 4, 1), (1, 1, 7), (6, 2, 3)])
@pytest.mark.parametrize("la,lb", list(itertools.product(range(len(LAYOUTS)), repeat=2)))
def test_plan_replays_to_the_row_major_product(m, n, k, la, lb):
    rng = np.random.default_rng(m * 100 + n * 10 + k + la * 7 + lb)
    ars, acs = LAYOUTS[la][1](m, k)
    brs, bcs = LAYOUTS[lb][1](k, n)
    a_buf, a = _strided(m, k, ars, acs, 2, rng)
    b_buf, b = _strided(k, n, brs, bcs, 1, rng)
    plan = _C._cuda_blas_plan(m, n, k, ars, acs, brs, bcs, n)
    assert not plan["copy_a"] and not plan["copy_b"] and plan["fits"]
    assert (plan["m"], plan["n"], plan["k"]) == (n, m, k)
    c = _colmajor_gemm(plan, a_buf, 2, b_buf, 1)
    got = np.array([[c[i * plan["ldc"] + j] for j in range(n)] for i in range(m)])
    np.testing.assert_allclose(got, a @ b, rtol=1e-12, atol=1e-12)


def test_plan_transpose_flags_follow_the_layout():
    # A row-major, B column-major (a transposed weight, as in linear).
    p = _C._cuda_blas_plan(8, 16, 32, 32, 1, 1, 32, 16)
    assert p["first_trans"] is True and p["first_ld"] == 32
    assert p["second_trans"] is False and p["second_ld"] == 32
    # Both column-major.
    p = _C._cuda_blas_plan(8, 16, 32, 1, 8, 1, 32, 16)
    assert p["first_trans"] and p["second_trans"]
    assert (p["first_ld"], p["second_ld"]) == (32, 8)


def test_plan_size_one_dims_ignore_their_stride():
    # A 1 x k row with a huge row stride (a slice of a bigger matrix), and a
    # k x 1 column whose column stride is 0 (an expanded vector).
    p = _C._cuda_blas_plan(1, 1, 5, 10 ** 6, 1, 1, 0, 1)
    assert not p["copy_a"] and not p["copy_b"]
    assert p["second_ld"] >= 1 and p["first_ld"] >= 1


@pytest.mark.parametrize("strides,copy", [((2, 2), True), ((0, 1), True), ((1, 0), True), ((5, 1), False),
                                          ((1, 4), False), ((3, 1), True), ((1, 2), True)])
def test_plan_asks_for_a_copy_when_strides_are_not_a_blas_layout(strides, copy):
    # A is 4 x 5: a row stride below 5 with unit columns overlaps rows.
    p = _C._cuda_blas_plan(4, 3, 5, strides[0], strides[1], 3, 1, 3)
    assert p["copy_a"] is copy
    assert p["copy_b"] is False


def test_plan_refuses_leading_dimensions_beyond_int():
    big = 2 ** 31
    p = _C._cuda_blas_plan(4, 3, 5, big, 1, 3, 1, 3)
    assert p["copy_a"]  # ld too large to pass: copy to a compact layout
    p = _C._cuda_blas_plan(big, 3, 5, 5, 1, 3, 1, 3)
    assert not p["fits"]


# ---------------------------------------------------------------- im2col index math

def _window(in_, out, k, s, p, d):
    return tuple(in_), tuple(out), tuple(k), tuple(s), tuple(p), tuple(d)


def _out_extent(i, k, s, p, d):
    return (i + 2 * p - d * (k - 1) - 1) // s + 1


@pytest.mark.parametrize("H,W,k,s,p,d", [
    (5, 6, (3, 3), (1, 1), (1, 1), (1, 1)),
    (7, 5, (2, 3), (2, 1), (0, 2), (1, 1)),
    (8, 8, (3, 2), (2, 3), (1, 0), (2, 1)),
    (4, 4, (1, 1), (1, 1), (0, 0), (1, 1)),
])
def test_vol2col_matches_unfold(H, W, k, s, p, d):
    C = 3
    x = torchlike.randn(1, C, H, W, dtype=torchlike.float64)
    oh, ow = (_out_extent(H, k[0], s[0], p[0], d[0]), _out_extent(W, k[1], s[1], p[1], d[1]))
    win = _window((1, H, W), (1, oh, ow), (1,) + k, (1,) + s, (0,) + p, (1,) + d)
    cols = _C._cuda_conv_vol2col(x.flatten().tolist(), *win)
    want = F.unfold(x, k, dilation=d, padding=p, stride=s)[0].numpy()
    np.testing.assert_array_equal(np.array(cols).reshape(want.shape), want)


@pytest.mark.parametrize("H,W,k,s,p,d", [
    (5, 6, (3, 3), (1, 1), (1, 1), (1, 1)),
    (7, 5, (2, 3), (2, 1), (0, 2), (1, 1)),
    (9, 8, (3, 2), (2, 3), (1, 0), (2, 1)),
])
def test_col2vol_gather_matches_fold(H, W, k, s, p, d):
    C = 2
    oh, ow = (_out_extent(H, k[0], s[0], p[0], d[0]), _out_extent(W, k[1], s[1], p[1], d[1]))
    cols = torchlike.randn(1, C * k[0] * k[1], oh * ow, dtype=torchlike.float64)
    win = _window((1, H, W), (1, oh, ow), (1,) + k, (1,) + s, (0,) + p, (1,) + d)
    got = _C._cuda_conv_col2vol(cols.flatten().tolist(), *win)
    want = F.fold(cols, (H, W), k, dilation=d, padding=p, stride=s)[0].numpy()
    np.testing.assert_allclose(np.array(got).reshape(want.shape), want, rtol=1e-12, atol=1e-12)


def test_vol2col_and_col2vol_are_adjoint_in_3d():
    # <vol2col(x), c> == <x, col2vol(c)> for a 3-d window with every option set.
    rng = np.random.default_rng(0)
    in_, k, s, p, d = (4, 5, 6), (2, 3, 2), (2, 1, 3), (1, 1, 0), (1, 2, 1)
    out = tuple(_out_extent(i, kk, ss, pp, dd) for i, kk, ss, pp, dd in zip(in_, k, s, p, d))
    C = 2
    x = rng.standard_normal(C * int(np.prod(in_)))
    c = rng.standard_normal(C * int(np.prod(k)) * int(np.prod(out)))
    win = _window(in_, out, k, s, p, d)
    vx = np.array(_C._cuda_conv_vol2col(x.tolist(), *win))
    ac = np.array(_C._cuda_conv_col2vol(c.tolist(), *win))
    assert vx.shape == c.shape and ac.shape == x.shape
    np.testing.assert_allclose(vx @ c, x @ ac, rtol=1e-10)
    # And vol2col against a direct reference.
    xr = x.reshape((C,) + in_)
    ref = np.zeros((C,) + k + out)
    for ci, kd, kh, kw, od, oh, ow in itertools.product(range(C), *map(range, k), *map(range, out)):
        pos = [o * ss - pp + kk * dd for o, ss, pp, kk, dd in zip((od, oh, ow), s, p, (kd, kh, kw), d)]
        if all(0 <= q < n for q, n in zip(pos, in_)):
            ref[ci, kd, kh, kw, od, oh, ow] = xr[(ci,) + tuple(pos)]
    np.testing.assert_array_equal(vx, ref.ravel())


def test_images_per_chunk():
    assert _C._cuda_conv_images_per_chunk(64, 576, 3136, 4, 256 << 20) == 37
    assert _C._cuda_conv_images_per_chunk(4, 10, 10, 4, 1 << 30) == 4
    assert _C._cuda_conv_images_per_chunk(4, 10 ** 6, 10 ** 4, 4, 1) == 1  # always at least one image
    assert _C._cuda_conv_images_per_chunk(3, 0, 10, 4, 100) == 3


# ---------------------------------------------------------------- library search

SUBDIRS = ["nvidia/cu13/lib", "nvidia/cublas/lib"]


def test_search_order_wheels_then_system():
    got = _C._cuda_library_candidates("libcublas.so.13", SUBDIRS, "", "/site/a:/site/b/")
    assert got == [
        "/site/a/nvidia/cu13/lib/libcublas.so.13",
        "/site/a/nvidia/cublas/lib/libcublas.so.13",
        "/site/b/nvidia/cu13/lib/libcublas.so.13",
        "/site/b/nvidia/cublas/lib/libcublas.so.13",
        "libcublas.so.13",
        "/usr/local/cuda/lib64/libcublas.so.13",
    ]


def test_override_comes_first_as_a_file_or_a_folder():
    got = _C._cuda_library_candidates("libcublas.so.13", SUBDIRS, "/opt/x/libcublas.so.13", "/s")
    assert got[0] == "/opt/x/libcublas.so.13"
    # The sibling cuBLASLt is taken from the overridden library's folder.
    got = _C._cuda_library_candidates("libcublasLt.so.13", SUBDIRS, "/opt/x/libcublas.so.13", "/s")
    assert got[0] == "/opt/x/libcublasLt.so.13"
    got = _C._cuda_library_candidates("libcublas.so.13", SUBDIRS, "/opt/cublas", "")
    assert got[0] == "/opt/cublas/libcublas.so.13"
    assert got[1:] == ["libcublas.so.13", "/usr/local/cuda/lib64/libcublas.so.13"]


def test_search_drops_empty_entries_and_duplicates():
    got = _C._cuda_library_candidates("libcublas.so.13", SUBDIRS, "", "::/s::/s:")
    assert got == ["/s/nvidia/cu13/lib/libcublas.so.13", "/s/nvidia/cublas/lib/libcublas.so.13",
                   "libcublas.so.13", "/usr/local/cuda/lib64/libcublas.so.13"]


def test_missing_library_message_names_the_wheel_and_the_override():
    msg = _C._cuda_library_missing_message("matrix multiplication on CUDA", "libcublas.so.13", "nvidia-cublas",
                                           "TORCHLIKE_CUBLAS_PATH", ["/a/libcublas.so.13", "libcublas.so.13"],
                                           "libcublas.so.13: cannot open shared object file")
    assert "pip install nvidia-cublas" in msg
    assert "TORCHLIKE_CUBLAS_PATH" in msg
    assert "/a/libcublas.so.13, libcublas.so.13" in msg
    assert "cannot open shared object file" in msg


def test_python_hands_its_path_to_the_search():
    from torchlike import _cuda_blas
    dirs = _cuda_blas.nvidia_site_dirs()
    assert len(dirs) == len(set(dirs))
    for d in sys.path:
        if d and os.pathsep not in d:
            assert os.path.abspath(d) in dirs


def test_cudnn_without_a_gpu_reports_none():
    import torchlike.backends.cudnn as cudnn
    if not torchlike.cuda.is_available():
        assert cudnn.is_available() is False and cudnn.version() is None
    assert isinstance(cudnn.is_available(), bool)
