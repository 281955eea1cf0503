// Per-element index math of the GPU convolution's im2col path
// (cuda/Conv.cu), host/device so the CPU test hooks check the very same code
// against F.unfold / F.fold.
//
// Columns of one image: row r = (c, kd, kh, kw) over channels x kernel taps,
// column o = (od, oh, ow) over output positions; element (r, o) is the input
// value the tap reads at that output position, or 0 in the padding. The
// adjoint (col2vol, the transposed convolution and the input gradient) is
// computed as a gather: each input element sums the column entries that read
// it, so no two threads write one address and the result is deterministic.
#pragma once
#include <cstdint>

#include "ConvPool.h"
#include "Math.h"

namespace at::native::conv_index {

// The flat input offset (c, id, ih, iw) within one image that column entry
// (row, col) reads, or -1 when it falls in the padding.
TL_HOST_DEVICE inline int64_t vol2col_source(const Window3& w, int64_t row, int64_t col) {
  const int64_t kvol = w.k_numel();
  const int64_t c = row / kvol, kidx = row % kvol;
  const int64_t kw = kidx % w.k[2], kh = (kidx / w.k[2]) % w.k[1], kd = kidx / (w.k[1] * w.k[2]);
  const int64_t ow = col % w.out[2], oh = (col / w.out[2]) % w.out[1], od = col / (w.out[1] * w.out[2]);
  const int64_t id = w.in_coord(0, od, kd), ih = w.in_coord(1, oh, kh), iw = w.in_coord(2, ow, kw);
  if (id < 0 || id >= w.in[0] || ih < 0 || ih >= w.in[1] || iw < 0 || iw >= w.in[2]) return -1;
  return ((c * w.in[0] + id) * w.in[1] + ih) * w.in[2] + iw;
}

// The output coordinate along dim `i` whose tap `kk` reads input coordinate
// `pos`, or -1 when no output position does (stride skips it, or it lies
// beyond the output).
TL_HOST_DEVICE inline int64_t reading_output(const Window3& w, int i, int64_t pos, int64_t kk) {
  const int64_t num = pos + w.p[i] - kk * w.d[i];
  if (num < 0 || num % w.s[i] != 0) return -1;
  const int64_t o = num / w.s[i];
  return o < w.out[i] ? o : -1;
}

// Calls f(row, col) for every column entry that reads input element
// (c, id, ih, iw) = `index` of one image's (channels x in volume).
template <class F>
TL_HOST_DEVICE inline void for_each_reader(const Window3& w, int64_t index, F&& f) {
  const int64_t iw = index % w.in[2], ih = (index / w.in[2]) % w.in[1], id = (index / (w.in[2] * w.in[1])) % w.in[0];
  const int64_t c = index / w.in_numel();
  const int64_t kvol = w.k_numel();
  for (int64_t kd = 0; kd < w.k[0]; ++kd) {
    const int64_t od = reading_output(w, 0, id, kd);
    if (od < 0) continue;
    for (int64_t kh = 0; kh < w.k[1]; ++kh) {
      const int64_t oh = reading_output(w, 1, ih, kh);
      if (oh < 0) continue;
      for (int64_t kw = 0; kw < w.k[2]; ++kw) {
        const int64_t ow = reading_output(w, 2, iw, kw);
        if (ow < 0) continue;
        f(c * kvol + (kd * w.k[1] + kh) * w.k[2] + kw, (od * w.out[1] + oh) * w.out[2] + ow);
      }
    }
  }
}

// Images per im2col chunk: the column buffer (images x rows x cols elements
// of `elem` bytes) stays under `budget` bytes, at least one image.
TL_HOST_DEVICE inline int64_t images_per_chunk(int64_t N, int64_t rows, int64_t cols, int64_t elem, int64_t budget) {
  const int64_t per = rows * cols * elem;
  if (per <= 0) return N > 0 ? N : 1;
  int64_t nb = budget / per;
  if (nb < 1) nb = 1;
  return nb < N ? nb : (N > 0 ? N : 1);
}

}  // namespace at::native::conv_index
