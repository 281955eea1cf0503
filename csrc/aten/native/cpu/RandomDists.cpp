// CPU kernels of the random distributions (see ../RandomDists.h for the
// transforms). As in cpu/Random.cpp, an op reserves its Philox counters up
// front and element i (row-major logical order) draws only from its own
// counter(s), so results are the same whatever the thread count.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>
#include "../../Parallel.h"
#include "../../TensorIterator.h"
#include "../Copy.h"
#include "../RandomDists.h"
#include "RandomFill.h"
#include "ops/binomial.h"
#include "ops/cauchy.h"
#include "ops/exponential.h"
#include "ops/geometric.h"
#include "ops/log_normal.h"
#include "ops/multinomial.h"
#include "ops/normal.h"
#include "ops/poisson.h"

namespace at::native {

namespace {

using c10::Philox4x32;


// t broadcast to `sizes`, as a contiguous float64 buffer in logical order
// (t itself when it already is one).
TensorBase as_double_buffer(const TensorBase& t, IntArrayRef sizes) {
  if (t.scalar_type() == ScalarType::Double && t.sizes().equals(sizes) && t.is_contiguous()) return t;
  int64_t nd = (int64_t)sizes.size(), off = nd - t.dim();
  DimVector strides(nd);
  for (int64_t d = 0; d < nd; ++d) strides[d] = d < off || t.sizes()[d - off] == 1 ? 0 : t.strides()[d - off];
  TensorBase buf = make_empty(sizes, TensorOptions(ScalarType::Double));
  copy_into(buf, make_view(t, sizes, strides, t.storage_offset()));
  return buf;
}


// Fills self with f(i, z), z one standard normal per element i, from
// Box-Muller pairs: float64 from 53-bit uniforms (2 per counter) in double,
// other floating dtypes from 24-bit uniforms (4 per counter) in float, the
// result rounded once. normal(Tensor, ...) and log_normal_ share this stream.
template <class scalar_t, class F>
void fill_standard_normal(const TensorBase& self, const std::optional<c10::Generator>& generator, const F& f) {
  if constexpr (std::is_same<scalar_t, double>::value) {
    fill_logical(self, 2, generator, [&](void* p, int64_t n, uint64_t seed, uint64_t base) {
      double* o = static_cast<double*>(p);
      parallel_for(0, (n + 1) / 2, kGrainSize / 32, [&](int64_t b, int64_t e) {
        for (int64_t c = b; c < e; ++c) {
          uint32_t r[4];
          Philox4x32::block(seed, 0, base + (uint64_t)c, r);
          double z[2];
          box_muller(uniform_open_double(r[0], r[1]), uniform_open_double(r[2], r[3]), z[0], z[1]);
          for (int64_t h = 0; h < 2 && 2 * c + h < n; ++h) o[2 * c + h] = f(2 * c + h, z[h]);
        }
      });
    });
  } else {
    fill_logical(self, 4, generator, [&](void* p, int64_t n, uint64_t seed, uint64_t base) {
      scalar_t* o = static_cast<scalar_t*>(p);
      parallel_for(0, (n + 3) / 4, kGrainSize / 32, [&](int64_t b, int64_t e) {
        for (int64_t c = b; c < e; ++c) {
          uint32_t r[4];
          Philox4x32::block(seed, 0, base + (uint64_t)c, r);
          float z[4];
          box_muller(uniform_open_float(r[0]), uniform_open_float(r[1]), z[0], z[1]);
          box_muller(uniform_open_float(r[2]), uniform_open_float(r[3]), z[2], z[3]);
          for (int64_t h = 0; h < 4 && 4 * c + h < n; ++h) o[4 * c + h] = f(4 * c + h, z[h]);
        }
      });
    });
  }
}

// Fills self with f(u) of one open uniform per element: float64 from 53-bit
// uniforms (2 per counter) computed in double; other floating dtypes from
// 24-bit uniforms (4 per counter) computed in float and rounded once.
template <class FF, class FD>
void fill_one_uniform(const TensorBase& self, const std::optional<c10::Generator>& generator, const char* name,
                      const FF& f_float, const FD& f_double) {
  TL_DISPATCH_FLOATING_TYPES(self.scalar_type(), name, [&] {
    if constexpr (std::is_same<scalar_t, double>::value) {
      fill_logical(self, 2, generator, [&](void* p, int64_t n, uint64_t seed, uint64_t base) {
        double* out = static_cast<double*>(p);
        parallel_for(0, (n + 1) / 2, kGrainSize / 16, [&](int64_t b, int64_t e) {
          for (int64_t c = b; c < e; ++c) {
            uint32_t r[4];
            Philox4x32::block(seed, 0, base + (uint64_t)c, r);
            out[2 * c] = f_double(uniform_open_double(r[0], r[1]));
            if (2 * c + 1 < n) out[2 * c + 1] = f_double(uniform_open_double(r[2], r[3]));
          }
        });
      });
    } else {
      fill_logical(self, 4, generator, [&](void* p, int64_t n, uint64_t seed, uint64_t base) {
        scalar_t* out = static_cast<scalar_t*>(p);
        parallel_for(0, (n + 3) / 4, kGrainSize / 16, [&](int64_t b, int64_t e) {
          for (int64_t c = b; c < e; ++c) {
            uint32_t r[4];
            Philox4x32::block(seed, 0, base + (uint64_t)c, r);
            int64_t i0 = 4 * c, m = std::min<int64_t>(4, n - i0);
            for (int64_t j = 0; j < m; ++j) out[i0 + j] = (scalar_t)f_float(uniform_open_float(r[j]));
          }
        });
      });
    }
  });
}

// Element i of a contiguous result of dtype `st` = sample(i, stream_i), the
// stream reading counter base + i (rejection samplers: a data-dependent
// number of uniforms per element).
template <class S>
void fill_streams(const TensorBase& out, const std::optional<c10::Generator>& generator, const char* name,
                  const S& sample) {
  TL_DISPATCH_FLOATING_TYPES(out.scalar_type(), name, [&] {
    fill_logical(out, 1, generator, [&](void* p, int64_t n, uint64_t seed, uint64_t base) {
      scalar_t* o = static_cast<scalar_t*>(p);
      parallel_for(0, n, kGrainSize / 64, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          PhiloxStream s(seed, base + (uint64_t)i);
          o[i] = (scalar_t)sample(i, s);
        }
      });
    });
  });
}

}  // namespace

// ---------------------------------------------------------------- multinomial

TensorBase multinomial_cpu(const TensorBase& self, int64_t num_samples, bool replacement,
                           const std::optional<c10::Generator>& generator) {
  DimVector out_sizes = multinomial_check(self, num_samples, replacement);
  TensorBase out = make_empty(out_sizes, TensorOptions(ScalarType::Long));
  const int64_t rows = self.dim() == 2 ? self.sizes()[0] : 1, cats = self.sizes()[self.dim() - 1];
  if (rows == 0) return out;
  TensorBase w = as_double_buffer(self, self.sizes());
  const double* wp = static_cast<const double*>(w.data_ptr());
  // Every weight must be finite and >= 0 and every row must have a positive
  // sum (PyTorch's checks, the first one over the whole tensor before the
  // second). Rows are checked in parallel and the errors raised here, outside
  // the workers.
  const int64_t check_grain = std::max<int64_t>(1, kGrainSize / cats);
  std::vector<double> totals(rows);
  std::vector<char> row_state(rows);  // 0 fine, 1 bad weight, 2 sum <= 0
  parallel_for(0, rows, check_grain, [&](int64_t rb, int64_t re) {
    for (int64_t r = rb; r < re; ++r) {
      const double* row = wp + r * cats;
      double sum = 0;
      bool ok = true;
      for (int64_t j = 0; j < cats; ++j) {
        double x = row[j];
        ok &= std::isfinite(x) && x >= 0;
        sum += x;
      }
      totals[r] = sum;
      row_state[r] = !ok ? 1 : sum > 0 ? 0 : 2;
    }
  });
  TL_CHECK(std::find(row_state.begin(), row_state.end(), 1) == row_state.end(),
           "probability tensor contains either `inf`, `nan` or element < 0");
  TL_CHECK(std::find(row_state.begin(), row_state.end(), 2) == row_state.end(),
           "invalid multinomial distribution (sum of probabilities <= 0)");
  int64_t* op = static_cast<int64_t*>(out.data_ptr());
  c10::GeneratorImpl* g = cpu_generator(generator);
  // Draw i of the op (sample s of row r when replacing, category j of row r
  // when not) uses half i % 2 of counter base + i / 2: 53-bit uniforms.
  const int64_t draws = rows * (replacement ? num_samples : cats);
  const auto reserved = g->reserve((uint64_t)((draws + 1) / 2));
  const uint64_t seed = reserved.seed, base = reserved.offset;
  // Consecutive draws share a counter: each worker keeps its last block.
  struct DrawCache {
    uint64_t ctr = ~(uint64_t)0;
    uint32_t r[4];
  };
  auto uniform_of = [seed, base](DrawCache& cache, int64_t i) {
    uint64_t ctr = base + (uint64_t)(i / 2);
    if (ctr != cache.ctr) {
      Philox4x32::block(seed, 0, ctr, cache.r);
      cache.ctr = ctr;
    }
    int h = (int)(i % 2);
    return uniform_open_double(cache.r[2 * h], cache.r[2 * h + 1]);
  };
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, cats + num_samples));
  if (replacement) {
    // Inverse CDF: running sums, then a binary search per sample for the
    // first category whose running sum exceeds u * total. A zero-weight
    // category repeats its predecessor's sum, so it is never the first to
    // exceed anything: it is never drawn.
    parallel_for(0, rows, grain, [&](int64_t rb, int64_t re) {
      std::vector<double> cdf(cats);
      DrawCache cache;
      for (int64_t r = rb; r < re; ++r) {
        const double* row = wp + r * cats;
        double acc = 0;
        int64_t last_positive = 0;
        for (int64_t j = 0; j < cats; ++j) {
          acc += row[j];
          cdf[j] = acc;
          if (row[j] > 0) last_positive = j;
        }
        for (int64_t s = 0; s < num_samples; ++s) {
          double target = uniform_of(cache, r * num_samples + s) * acc;
          int64_t k = std::upper_bound(cdf.begin(), cdf.end(), target) - cdf.begin();
          op[r * num_samples + s] = k < cats ? k : last_positive;  // u * acc rounded up to acc
        }
      }
    });
  } else {
    // Exponential race (Gumbel top-k): category j gets the key w_j / E_j,
    // E_j ~ Exp(1); the categories of the num_samples largest keys, largest
    // first, are a draw without replacement in order. Zero weights get key
    // 0 and come only after every positive one (ties: lower index first).
    parallel_for(0, rows, grain, [&](int64_t rb, int64_t re) {
      std::vector<double> key(cats);
      std::vector<int64_t> idx(cats);
      DrawCache cache;
      for (int64_t r = rb; r < re; ++r) {
        const double* row = wp + r * cats;
        const double inv_total = 1.0 / totals[r];  // keys stay finite whatever the weights' scale
        for (int64_t j = 0; j < cats; ++j) {
          double e = -std::log(uniform_of(cache, r * cats + j));
          key[j] = row[j] * inv_total / e;
        }
        int64_t* dst = op + r * num_samples;
        if (num_samples == 1) {
          dst[0] = std::max_element(key.begin(), key.end()) - key.begin();
          continue;
        }
        for (int64_t j = 0; j < cats; ++j) idx[j] = j;
        auto before = [&](int64_t a, int64_t b) { return key[a] > key[b] || (key[a] == key[b] && a < b); };
        if (num_samples < cats) std::nth_element(idx.begin(), idx.begin() + num_samples, idx.end(), before);
        std::sort(idx.begin(), idx.begin() + num_samples, before);
        std::copy(idx.begin(), idx.begin() + num_samples, dst);
      }
    });
  }
  return out;
}

// ---------------------------------------------------------------- normal with tensor parameters

namespace {
// mean + std * z with z standard normal, the parameters broadcast; either
// parameter may be a number (its tensor pointer null). Standard normals come
// in Box-Muller pairs: from 53-bit uniforms in double for float64 (two
// elements per counter), from 24-bit uniforms in float otherwise (four).
TensorBase normal_sample(const TensorBase* mean, double mean_v, const TensorBase* std, double std_v,
                         const std::optional<c10::Generator>& generator) {
  NormalPlan plan = normal_plan(mean, std);
  if (!std) check_normal_std(std_v);
  TensorBase out = make_empty(plan.sizes, TensorOptions(plan.dtype));
  if (out.numel() == 0) return out;
  TensorBase mbuf, sbuf;
  const double *mp = nullptr, *sp = nullptr;
  if (mean) {
    mbuf = as_double_buffer(*mean, plan.sizes);
    mp = static_cast<const double*>(mbuf.data_ptr());
  }
  if (std) {
    sbuf = as_double_buffer(*std, plan.sizes);
    sp = static_cast<const double*>(sbuf.data_ptr());
    int64_t n = sbuf.numel();
    bool ok = true;
    for (int64_t i = 0; i < n && ok; ++i) ok = sp[i] >= 0.0;  // NaN fails too
    TL_CHECK(ok, "normal expects all elements of std >= 0.0");
  }
  TL_DISPATCH_FLOATING_TYPES(plan.dtype, "normal", [&] {
    auto param = [](const double* v, double dflt, int64_t i) { return v ? v[i] : dflt; };
    if constexpr (std::is_same<scalar_t, double>::value) {
      fill_standard_normal<scalar_t>(out, generator, [&](int64_t i, double z) {
        return param(mp, mean_v, i) + param(sp, std_v, i) * z;
      });
    } else {
      fill_standard_normal<scalar_t>(out, generator, [&](int64_t i, float z) {
        return (scalar_t)((float)param(mp, mean_v, i) + (float)param(sp, std_v, i) * z);
      });
    }
  });
  return out;
}
}  // namespace

TensorBase normal_tensor_float_cpu(const TensorBase& mean, double std, const std::optional<c10::Generator>& generator) {
  return normal_sample(&mean, 0.0, nullptr, std, generator);
}

TensorBase normal_float_tensor_cpu(double mean, const TensorBase& std, const std::optional<c10::Generator>& generator) {
  return normal_sample(nullptr, mean, &std, 0.0, generator);
}

TensorBase normal_tensor_tensor_cpu(const TensorBase& mean, const TensorBase& std,
                                    const std::optional<c10::Generator>& generator) {
  if (auto v = wrapped_number_value(std)) return normal_sample(&mean, 0.0, nullptr, *v, generator);
  return normal_sample(&mean, 0.0, &std, 0.0, generator);
}

// ---------------------------------------------------------------- poisson, binomial

TensorBase poisson_cpu(const TensorBase& self, const std::optional<c10::Generator>& generator) {
  check_poisson(self);
  TensorBase out = make_empty(self.sizes(), TensorOptions(self.scalar_type()));
  if (out.numel() == 0) return out;
  TensorBase rates = as_double_buffer(self, self.sizes());
  const double* rp = static_cast<const double*>(rates.data_ptr());
  int64_t n = rates.numel();
  bool ok = true;
  for (int64_t i = 0; i < n && ok; ++i) ok = rp[i] >= 0.0;  // NaN fails too
  TL_CHECK(ok, "invalid Poisson rate, expected rate to be non-negative");
  fill_streams(out, generator, "poisson", [rp](int64_t i, PhiloxStream& s) { return sample_poisson(rp[i], s); });
  return out;
}

TensorBase binomial_cpu(const TensorBase& count, const TensorBase& prob, const std::optional<c10::Generator>& generator) {
  DimVector sizes = binomial_check(count, prob);
  TensorBase out = make_empty(sizes, TensorOptions(count.scalar_type()));
  if (out.numel() == 0) return out;
  TensorBase cbuf = as_double_buffer(count, sizes), pbuf = as_double_buffer(prob, sizes);
  const double* cp = static_cast<const double*>(cbuf.data_ptr());
  const double* pp = static_cast<const double*>(pbuf.data_ptr());
  fill_streams(out, generator, "binomial",
               [cp, pp](int64_t i, PhiloxStream& s) { return sample_binomial(cp[i], pp[i], s); });
  return out;
}

// ---------------------------------------------------------------- in-place samplers

TensorBase exponential_cpu_(const TensorBase& self, double lambd, const std::optional<c10::Generator>& generator) {
  exponential_meta_(self, lambd, generator);  // checks + version bump
  float lf = (float)lambd;
  fill_one_uniform(
      self, generator, "exponential_", [lf](float u) { return exponential_from_uniform(u, lf); },
      [lambd](double u) { return exponential_from_uniform(u, lambd); });
  return self;
}

TensorBase cauchy_cpu_(const TensorBase& self, double median, double sigma,
                       const std::optional<c10::Generator>& generator) {
  cauchy_meta_(self, median, sigma, generator);
  float mf = (float)median, sf = (float)sigma;
  fill_one_uniform(
      self, generator, "cauchy_", [mf, sf](float u) { return cauchy_from_uniform(u, mf, sf); },
      [median, sigma](double u) { return cauchy_from_uniform(u, median, sigma); });
  return self;
}

TensorBase geometric_cpu_(const TensorBase& self, double p, const std::optional<c10::Generator>& generator) {
  geometric_meta_(self, p, generator);
  const double log1m_p = std::log1p(-p);
  // Computed in double for every dtype (counts can exceed float's 2^24 exact
  // integers). Integer results go through int64, so a count too large for a
  // narrow dtype wraps as in PyTorch instead of being undefined.
  TL_DISPATCH_NUMERIC_TYPES(self.scalar_type(), "geometric_", [&] {
    fill_logical(self, 2, generator, [&](void* ptr, int64_t n, uint64_t seed, uint64_t base) {
      scalar_t* out = static_cast<scalar_t*>(ptr);
      parallel_for(0, (n + 1) / 2, kGrainSize / 16, [&](int64_t b, int64_t e) {
        for (int64_t c = b; c < e; ++c) {
          uint32_t r[4];
          Philox4x32::block(seed, 0, base + (uint64_t)c, r);
          for (int64_t h = 0; h < 2 && 2 * c + h < n; ++h) {
            double v = geometric_from_uniform(uniform_open_double(r[2 * h], r[2 * h + 1]), log1m_p);
            if constexpr (std::is_floating_point<scalar_t>::value || !std::is_integral<scalar_t>::value) {
              out[2 * c + h] = (scalar_t)v;
            } else {
              int64_t iv = v < 9.2e18 ? (int64_t)v : std::numeric_limits<int64_t>::max();
              out[2 * c + h] = (scalar_t)iv;
            }
          }
        }
      });
    });
  });
  return self;
}

TensorBase log_normal_cpu_(const TensorBase& self, double mean, double std,
                           const std::optional<c10::Generator>& generator) {
  log_normal_meta_(self, mean, std, generator);
  TL_DISPATCH_FLOATING_TYPES(self.scalar_type(), "log_normal_", [&] {
    if constexpr (std::is_same<scalar_t, double>::value) {
      fill_standard_normal<scalar_t>(self, generator, [&](int64_t, double z) { return std::exp(mean + std * z); });
    } else {
      float m = (float)mean, s = (float)std;
      fill_standard_normal<scalar_t>(self, generator, [&](int64_t, float z) { return (scalar_t)std::exp(m + s * z); });
    }
  });
  return self;
}

}  // namespace at::native
