// Random ops on CPU, driven by the counter-based Philox generator
// (c10/Generator.h). An op reserves a block of counters up front; element i
// (in row-major logical order) draws only from counter base + i / K (K
// elements per counter), so its value depends on (seed, offset, i) alone and
// is the same whatever the thread count or chunking of parallel_for.
#include <cmath>
#include <vector>
#include "../../Parallel.h"
#include "../../TensorIterator.h"
#include "../Copy.h"
#include "../Factory.h"
#include "RandomFill.h"
#include "ops/bernoulli.h"
#include "ops/normal.h"
#include "ops/random.h"
#include "ops/randperm.h"
#include "ops/uniform.h"

namespace at::native {

namespace {


using c10::Philox4x32;

// [0, 1) from the top 24 bits (exact in float) / 53 bits (exact in double).
inline float u01_float(uint32_t x) { return (float)(x >> 8) * (1.0f / 16777216.0f); }
inline double u01_double(uint32_t lo, uint32_t hi) {
  return (double)((((uint64_t)hi << 32) | lo) >> 11) * (1.0 / 9007199254740992.0);
}

// Unbiased integer in [0, range) for element `ctr` (Lemire's multiply-shift
// with rejection). Rejected draws move to a fresh 64-bit word of the same
// counter, then to the same counter under a higher ctr_hi "round": ordinary
// draws all use ctr_hi = 0, so retries never collide with another element's
// numbers and the result still depends only on (seed, ctr).
inline uint64_t bounded(uint64_t seed, uint64_t ctr, uint64_t range, uint64_t threshold) {
  for (uint64_t round = 0;; ++round) {
    uint32_t r[4];
    Philox4x32::block(seed, round, ctr, r);
    for (int h = 0; h < 2; ++h) {
      uint64_t x = ((uint64_t)r[2 * h + 1] << 32) | r[2 * h];
      if (range == 0) return x;  // the full 2^64 range
      unsigned __int128 m = (unsigned __int128)x * range;
      if ((uint64_t)m >= threshold) return (uint64_t)(m >> 64);
    }
  }
}
inline uint64_t rejection_threshold(uint64_t range) { return (0 - range) % range; }  // 2^64 mod range

// The 32-bit variant for ranges up to 2^32: word j of a counter serves one
// element (four elements per counter). `x` is that word from round 0; a
// rejected draw retries word j of the same counter in rounds 1, 2, ...
inline uint32_t bounded32(uint64_t seed, uint64_t ctr, int j, uint32_t x, uint64_t range, uint32_t threshold) {
  for (uint64_t round = 1;; ++round) {
    uint64_t m = (uint64_t)x * range;
    if ((uint32_t)m >= threshold) return (uint32_t)(m >> 32);
    uint32_t r[4];
    Philox4x32::block(seed, round, ctr, r);
    x = r[j];
  }
}

// Fills n values of T, K per Philox counter: gen(r, vals) turns the 4 words of
// counter c into elements c*K .. c*K+K-1. Writes into `out` (contiguous).
template <class T, int K, class G>
void philox_fill(T* out, int64_t n, uint64_t seed, uint64_t base, const G& gen) {
  int64_t nctr = (n + K - 1) / K;
  parallel_for(0, nctr, std::max<int64_t>(1, kGrainSize / (4 * K)), [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      uint32_t r[4];
      Philox4x32::block(seed, 0, base + (uint64_t)c, r);
      T vals[K];
      gen(r, vals);
      int64_t i0 = c * K, m = std::min<int64_t>(K, n - i0);
      for (int64_t j = 0; j < m; ++j) out[i0 + j] = vals[j];
    }
  });
}


}  // namespace

TensorBase uniform_(const TensorBase& self, double from, double to, const std::optional<c10::Generator>& generator) {
  uniform_meta_(self, from, to, generator);  // checks + version bump
  TL_DISPATCH_FLOATING_TYPES(self.scalar_type(), "uniform_", [&] {
    double range = to - from;
    // A value that rounds up to `to` in a narrow dtype is folded back to
    // `from`, keeping the result in [from, to) (what PyTorch does too).
    auto finish = [from, to, range](double u) {
      scalar_t v = (scalar_t)(u * range + from);
      return (double)v >= to && to > from ? (scalar_t)from : v;
    };
    if constexpr (std::is_same<scalar_t, double>::value) {
      fill_logical(self, 2, generator, [&](void* p, int64_t n, uint64_t seed, uint64_t base) {
        philox_fill<double, 2>(static_cast<double*>(p), n, seed, base, [&](const uint32_t* r, double* v) {
          v[0] = finish(u01_double(r[0], r[1]));
          v[1] = finish(u01_double(r[2], r[3]));
        });
      });
    } else {
      fill_logical(self, 4, generator, [&](void* p, int64_t n, uint64_t seed, uint64_t base) {
        philox_fill<scalar_t, 4>(static_cast<scalar_t*>(p), n, seed, base, [&](const uint32_t* r, scalar_t* v) {
          for (int j = 0; j < 4; ++j) v[j] = finish((double)u01_float(r[j]));
        });
      });
    }
  });
  return self;
}

TensorBase normal_(const TensorBase& self, double mean, double std, const std::optional<c10::Generator>& generator) {
  normal_meta_(self, mean, std, generator);
  TL_DISPATCH_FLOATING_TYPES(self.scalar_type(), "normal_", [&] {
    // Box-Muller: a pair of uniforms (u1 in (0, 1], u2 in [0, 1)) gives two
    // independent standard normals r*cos(2 pi u2), r*sin(2 pi u2).
    if constexpr (std::is_same<scalar_t, double>::value) {
      fill_logical(self, 2, generator, [&](void* p, int64_t n, uint64_t seed, uint64_t base) {
        philox_fill<double, 2>(static_cast<double*>(p), n, seed, base, [&](const uint32_t* r, double* v) {
          double u1 = 1.0 - u01_double(r[0], r[1]), u2 = u01_double(r[2], r[3]);
          double rad = std::sqrt(-2.0 * std::log(u1)), sn, cs;
          ::sincos(2.0 * M_PI * u2, &sn, &cs);
          v[0] = mean + std * rad * cs;
          v[1] = mean + std * rad * sn;
        });
      });
    } else {
      float m = (float)mean, s = (float)std;
      fill_logical(self, 4, generator, [&](void* p, int64_t n, uint64_t seed, uint64_t base) {
        philox_fill<scalar_t, 4>(static_cast<scalar_t*>(p), n, seed, base, [&](const uint32_t* r, scalar_t* v) {
          for (int h = 0; h < 2; ++h) {
            float u1 = 1.0f - u01_float(r[2 * h]), u2 = u01_float(r[2 * h + 1]);
            float rad = std::sqrt(-2.0f * std::log(u1)), sn, cs;
            ::sincosf(2.0f * (float)M_PI * u2, &sn, &cs);
            v[2 * h] = (scalar_t)(m + s * rad * cs);
            v[2 * h + 1] = (scalar_t)(m + s * rad * sn);
          }
        });
      });
    }
  });
  return self;
}

namespace {
// The largest integer `to` of random_(from) with to=None: one past the
// dtype's max for integers, 2^digits + 1 for floats (every integer up to
// 2^digits is exactly representable), 2 for bool.
int64_t random_default_to(ScalarType st) {
  switch (st) {
    case ScalarType::Bool: return 2;
    case ScalarType::Byte: return 256;
    case ScalarType::Char: return 128;
    case ScalarType::Short: return 32768;
    case ScalarType::Int: return (int64_t)1 << 31;
    case ScalarType::Long: return std::numeric_limits<int64_t>::max();  // one short of 2^63, see below
    case ScalarType::Half: return (1 << 11) + 1;
    case ScalarType::BFloat16: return (1 << 8) + 1;
    case ScalarType::Float: return ((int64_t)1 << 24) + 1;
    case ScalarType::Double: return ((int64_t)1 << 53) + 1;
    default: TL_CHECK(false, "random_: unsupported dtype ", st);
  }
}
int64_t dtype_min(ScalarType st) {
  switch (st) {
    case ScalarType::Bool: case ScalarType::Byte: return 0;
    case ScalarType::Char: return -128;
    case ScalarType::Short: return -32768;
    case ScalarType::Int: return -((int64_t)1 << 31);
    case ScalarType::Long: return std::numeric_limits<int64_t>::min();
    case ScalarType::Half: return -((int64_t)1 << 11);
    case ScalarType::BFloat16: return -((int64_t)1 << 8);
    case ScalarType::Float: return -((int64_t)1 << 24);
    default: return -((int64_t)1 << 53);
  }
}
}  // namespace

TensorBase random_from_(const TensorBase& self, int64_t from, std::optional<int64_t> to,
                    const std::optional<c10::Generator>& generator) {
  random_from_meta_(self, from, to, generator);
  ScalarType st = self.scalar_type();
  // Default `to`: one past the largest value the dtype stores exactly; for
  // int64 that is 2^63, which int64_t cannot hold, so the range is computed
  // in uint64 (from = INT64_MIN then gives the full 2^64, encoded as 0).
  bool long_default = st == ScalarType::Long && !to;
  int64_t to_v = to.value_or(random_default_to(st));
  TL_CHECK(long_default || from < to_v, "random_ expects 'from' to be less than 'to', but got from=", from,
           " >= to=", to_v);
  if (!isFloatingType(st)) {
    // Integer results must hold [from, to - 1] exactly (floats round, as in PyTorch).
    int64_t max_v = st == ScalarType::Long ? std::numeric_limits<int64_t>::max() : random_default_to(st) - 1;
    TL_CHECK(from >= dtype_min(st) && (long_default || to_v - 1 <= max_v), "random_ expects 'from' and 'to - 1' to be within the range of ",
             st, " [", dtype_min(st), ", ", max_v, "], but got from=", from, " and to=", to_v);
  }
  uint64_t range = long_default ? (uint64_t)std::numeric_limits<int64_t>::max() - (uint64_t)from + 1
                                : (uint64_t)to_v - (uint64_t)from;
  uint64_t thr = range ? rejection_threshold(range) : 0;
  if (range != 0 && range <= ((uint64_t)1 << 32)) {
    // Common case (randint over < 2^32 values): 32-bit draws, 4 per counter.
    uint32_t thr32 = (uint32_t)(((uint64_t)1 << 32) % range);
    TL_DISPATCH_ALL_TYPES(st, "random_", [&] {
      fill_logical(self, 4, generator, [&](void* p, int64_t n, uint64_t seed, uint64_t base) {
        scalar_t* out = static_cast<scalar_t*>(p);
        int64_t nctr = (n + 3) / 4;
        parallel_for(0, nctr, kGrainSize / 16, [&](int64_t b, int64_t e) {
          for (int64_t c = b; c < e; ++c) {
            uint32_t r[4];
            Philox4x32::block(seed, 0, base + (uint64_t)c, r);
            int64_t i0 = 4 * c, m = std::min<int64_t>(4, n - i0);
            for (int j = 0; j < m; ++j) {
              int64_t v = (int64_t)((uint64_t)from + bounded32(seed, base + (uint64_t)c, j, r[j], range, thr32));
              if constexpr (std::is_same<scalar_t, bool>::value) out[i0 + j] = v != 0;
              else out[i0 + j] = (scalar_t)v;
            }
          }
        });
      });
    });
    return self;
  }
  TL_DISPATCH_ALL_TYPES(st, "random_", [&] {
    fill_logical(self, 1, generator, [&](void* p, int64_t n, uint64_t seed, uint64_t base) {
      scalar_t* out = static_cast<scalar_t*>(p);
      parallel_for(0, n, kGrainSize / 8, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          int64_t v = (int64_t)((uint64_t)from + bounded(seed, base + (uint64_t)i, range, thr));
          if constexpr (std::is_same<scalar_t, bool>::value) out[i] = v != 0;
          else out[i] = (scalar_t)v;
        }
      });
    });
  });
  return self;
}

TensorBase randperm(int64_t n, const std::optional<c10::Generator>& generator, std::optional<ScalarType> dtype,
                std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  TensorBase out = randperm_meta(n, generator, dtype, layout, device, pin_memory);
  ScalarType st = out.scalar_type();
  TL_CHECK(st != ScalarType::Bool, "randperm: not implemented for 'Bool'");
  // Every index must be exactly representable in the result dtype.
  TL_CHECK(st == ScalarType::Long || n <= random_default_to(st),
           "randperm: n is too large for result tensor type: '", st, "' (n=", n, ")");
  if (n == 0) return out;
  c10::GeneratorImpl* g = cpu_generator(generator);
  // Not a structured binding: C++17 lambdas cannot capture those (Clang refuses).
  const auto reserved = g->reserve((uint64_t)n);
  const uint64_t seed = reserved.seed, base = reserved.offset;
  // Fisher-Yates: step i (from n-1 down to 1) swaps i with j_i uniform in
  // [0, i]. The j_i are drawn in parallel (each from its own counter), only
  // the swaps are sequential.
  std::vector<int64_t> j(n), perm(n);
  parallel_for(1, n, kGrainSize / 8, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      uint64_t r = (uint64_t)i + 1;
      j[i] = (int64_t)bounded(seed, base + (uint64_t)i, r, rejection_threshold(r));
    }
  });
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  for (int64_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[j[i]]);
  TL_DISPATCH_NUMERIC_TYPES(st, "randperm", [&] {
    scalar_t* p = static_cast<scalar_t*>(out.data_ptr());
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) p[i] = (scalar_t)perm[i];
    });
  });
  return out;
}

namespace {
// Element i is 1 with probability p_i: one 53-bit uniform per element, two
// elements per counter.
template <class P>
void bernoulli_fill(const TensorBase& self, const std::optional<c10::Generator>& generator, const P& prob) {
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), "bernoulli_", [&] {
    fill_logical(self, 2, generator, [&](void* p, int64_t n, uint64_t seed, uint64_t base) {
      scalar_t* out = static_cast<scalar_t*>(p);
      int64_t nctr = (n + 1) / 2;
      parallel_for(0, nctr, kGrainSize / 8, [&](int64_t b, int64_t e) {
        for (int64_t c = b; c < e; ++c) {
          uint32_t r[4];
          Philox4x32::block(seed, 0, base + (uint64_t)c, r);
          int64_t i = 2 * c;
          out[i] = (scalar_t)(u01_double(r[0], r[1]) < prob(i) ? 1 : 0);
          if (i + 1 < n) out[i + 1] = (scalar_t)(u01_double(r[2], r[3]) < prob(i + 1) ? 1 : 0);
        }
      });
    });
  });
}
}  // namespace

TensorBase bernoulli_float_(const TensorBase& self, double p, const std::optional<c10::Generator>& generator) {
  bernoulli_float_meta_(self, p, generator);
  bernoulli_fill(self, generator, [p](int64_t) { return p; });
  return self;
}

TensorBase bernoulli_tensor_(const TensorBase& self, const TensorBase& p, const std::optional<c10::Generator>& generator) {
  bernoulli_tensor_meta_(self, p, generator);
  // Probabilities broadcast to self's shape, in double, in self's logical order.
  // p is expanded by hand (stride 0 on broadcast dims) so the copy is
  // same-shape.
  int64_t nd = self.dim(), off = nd - p.dim();
  DimVector strides(nd);
  for (int64_t d = 0; d < nd; ++d)
    strides[d] = d < off || p.sizes()[d - off] == 1 ? 0 : p.strides()[d - off];
  TensorBase pd = make_empty(self.sizes(), TensorOptions(ScalarType::Double));
  copy_into(pd, make_view(p, self.sizes(), strides, p.storage_offset()));
  const double* pp = static_cast<const double*>(pd.data_ptr());
  int64_t n = pd.numel();
  bool ok = true;
  for (int64_t i = 0; i < n && ok; ++i) ok = pp[i] >= 0.0 && pp[i] <= 1.0;
  TL_CHECK(ok, "bernoulli_: expected all elements of p to be in [0, 1]");
  bernoulli_fill(self, generator, [pp](int64_t i) { return pp[i]; });
  return self;
}

}  // namespace at::native
