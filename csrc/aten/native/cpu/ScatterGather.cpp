// gather / scatter / index_* on CPU: one loop driver over a DimIndexPlan
// (../ScatterGather.h), with the element work as a lambda.
//
// Parallel over the positions off `dim`: the writes of a scatter land on
// distinct elements for distinct such positions (self has no internal
// overlap), so threads never write the same element and duplicate indices
// along `dim` are applied in order, deterministically. Ops that only read
// through the index (gather, index_select) may also split along `dim` when
// the rest is too small to share out.
//
// Plain copies and fills move bytes (dispatched on element size); reductions
// run in scatter_acc_t (float for half types) on a contiguous scratch copy
// when that type differs from self's, or when mean needs its counts laid out
// like its sums.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "../Copy.h"
#include "../ScatterGather.h"
#include "aten/Parallel.h"
#include "ops/gather.h"
#include "ops/index_add.h"
#include "ops/index_copy.h"
#include "ops/index_fill.h"
#include "ops/index_reduce.h"
#include "ops/index_select.h"
#include "ops/scatter.h"
#include "ops/scatter_add.h"
#include "ops/scatter_reduce.h"

namespace at::native {
namespace {

struct LoopOptions {
  bool may_split_dim = false;   // reads only: chunks may cut across `dim`
  bool wrap_negative = false;   // index_fill: -1 is the last element
  IndexErrorStyle style = IndexErrorStyle::Bounds;
  int64_t error_dim = 0;        // the dim an error message names (before merging)
};

// body(indexed offset, plain offset), in elements, for every walked position.
template <class index_t, class Body>
void dim_index_loop(const DimIndexPlan& p, const index_t* index, const LoopOptions& opt, const Body& body) {
  const int nd = p.ndim, dim = p.dim;
  const int64_t K = p.sizes[dim];
  int od[kScatterMaxDims];  // the dims other than `dim`, outermost first
  int m = 0;
  for (int d = 0; d < nd; ++d)
    if (d != dim) od[m++] = d;
  int64_t N = 1;
  for (int i = 0; i < m; ++i) N *= p.sizes[od[i]];
  if (N == 0 || K == 0) return;
  const int last = m ? od[m - 1] : -1;
  const bool dim_inner = dim == nd - 1;  // index values run contiguously along dim
  const int64_t isd = p.indexed_strides[dim], psd = p.plain_strides[dim], xsd = p.index_strides[dim];
  const int64_t isl = last >= 0 ? p.indexed_strides[last] : 0, psl = last >= 0 ? p.plain_strides[last] : 0,
                xsl = last >= 0 ? p.index_strides[last] : 0;
  const int64_t bound = p.indexed_dim_size;

  const bool wrap = opt.wrap_negative;
  const IndexErrorStyle style = opt.style;
  const int64_t error_dim = opt.error_dim;

  // Positions [b, e) off dim, and [kb, ke) along it. Everything the inner
  // loops read is copied into locals first: through the references of a
  // [&] capture, every store of the body forced the pointers and strides to
  // be reloaded (the compiler cannot rule out aliasing), which halved speed.
  auto run = [=, &p, &od](int64_t b, int64_t e, int64_t kb, int64_t ke) {
    const Body bd = body;
    auto load = [=](int64_t off) -> int64_t {
      const int64_t raw = static_cast<int64_t>(index[off]);
      const int64_t i = checked_index(raw, bound, wrap);
      if (i < 0) raise_index_out_of_range(style, raw, error_dim, bound);
      return i;
    };
    if (m == 0) {  // one line along dim (1-D tensors): no coordinates to carry
      for (int64_t k = kb; k < ke; ++k) bd(load(k * xsd) * isd, k * psd);
      return;
    }
    int64_t coord[kScatterMaxDims] = {};
    int64_t rem = b;
    for (int i = m - 1; i >= 0; --i) {
      coord[od[i]] = rem % p.sizes[od[i]];
      rem /= p.sizes[od[i]];
    }
    for (int64_t pos = b; pos < e;) {
      const int64_t seg = last >= 0 ? std::min(e - pos, p.sizes[last] - coord[last]) : e - pos;
      int64_t io = 0, po = 0, xo = 0;
      for (int i = 0; i < m; ++i) {
        io += coord[od[i]] * p.indexed_strides[od[i]];
        po += coord[od[i]] * p.plain_strides[od[i]];
        xo += coord[od[i]] * p.index_strides[od[i]];
      }
      if (dim_inner) {
        for (int64_t j = 0; j < seg; ++j)
          for (int64_t k = kb; k < ke; ++k)
            bd(io + j * isl + load(xo + j * xsl + k * xsd) * isd, po + j * psl + k * psd);
      } else if (xsl == 0) {  // one index value per row (index_* ops, broadcast index)
        for (int64_t k = kb; k < ke; ++k) {
          const int64_t ib = io + load(xo + k * xsd) * isd, pb = po + k * psd;
          if (isl == 1 && psl == 1)
            for (int64_t j = 0; j < seg; ++j) bd(ib + j, pb + j);
          else
            for (int64_t j = 0; j < seg; ++j) bd(ib + j * isl, pb + j * psl);
        }
      } else {
        for (int64_t k = kb; k < ke; ++k)
          for (int64_t j = 0; j < seg; ++j)
            bd(io + j * isl + load(xo + j * xsl + k * xsd) * isd, po + j * psl + k * psd);
      }
      pos += seg;
      if (last >= 0) {
        coord[last] += seg;
        for (int i = m - 1; i > 0 && coord[od[i]] == p.sizes[od[i]]; --i) {
          coord[od[i]] = 0;
          ++coord[od[i - 1]];
        }
      }
    }
  };

  if (opt.may_split_dim && N < 4 * (int64_t)get_num_threads()) {
    parallel_for(0, K, std::max<int64_t>(1, kGrainSize / N), [&](int64_t kb, int64_t ke) { run(0, N, kb, ke); });
  } else {
    parallel_for(0, N, std::max<int64_t>(1, kGrainSize / K), [&](int64_t b, int64_t e) { run(b, e, 0, K); });
  }
}

template <class F>
void dispatch_index(const TensorBase& index, const F& f) {
  if (index.scalar_type() == ScalarType::Int) f(static_cast<const int32_t*>(index.data_ptr()));
  else f(static_cast<const int64_t*>(index.data_ptr()));
}

// The unsigned type of an element's size: plain copies move bits.
template <class F>
void dispatch_bytes(size_t size, const F& f) {
  switch (size) {
    case 1: f(uint8_t()); break;
    case 2: f(uint16_t()); break;
    case 4: f(uint32_t()); break;
    default: f(uint64_t()); break;
  }
}

// indexed = plain (copy_into_indexed) or plain = indexed (gather).
void copy_loop(const DimIndexPlan& p, const TensorBase& indexed, const TensorBase& plain, const TensorBase& index,
               bool gather, const LoopOptions& opt) {
  dispatch_bytes(indexed.itemsize(), [&](auto tag) {
    using bits = decltype(tag);
    bits* ip = static_cast<bits*>(indexed.data_ptr());
    bits* pp = static_cast<bits*>(plain.data_ptr());
    dispatch_index(index, [&](auto* idx) {
      if (gather) dim_index_loop(p, idx, opt, [=](int64_t i, int64_t j) { pp[j] = ip[i]; });
      else dim_index_loop(p, idx, opt, [=](int64_t i, int64_t j) { ip[i] = pp[j]; });
    });
  });
}

// indexed[...] = value, the value converted (range-checked) to self's dtype.
void fill_loop(const DimIndexPlan& p, const TensorBase& self, const TensorBase& index, const Scalar& value,
               const LoopOptions& opt) {
  uint64_t raw = 0;
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), "scatter", [&] {
    scalar_t v = value.to<scalar_t>();
    std::memcpy(&raw, &v, sizeof(scalar_t));
  });
  dispatch_bytes(self.itemsize(), [&](auto tag) {
    using bits = decltype(tag);
    bits v;
    std::memcpy(&v, &raw, sizeof(bits));
    bits* ip = static_cast<bits*>(self.data_ptr());
    dispatch_index(index, [&](auto* idx) { dim_index_loop(p, idx, opt, [=](int64_t i, int64_t) { ip[i] = v; }); });
  });
}

// The reductions. src (or value) into self along the plan, `alpha` scaling src
// (index_add), include_self=False starting scattered elements from the op's
// identity, mean dividing by the number of contributions.
struct ReduceArgs {
  ScatterOp op;
  bool include_self = true;
  const TensorBase* src = nullptr;  // else value
  const Scalar* value = nullptr;
  const Scalar* alpha = nullptr;
  const char* name;
};

template <class scalar_t>
void reduce_typed(const TensorBase& self, IntArrayRef walk, int64_t d, IntArrayRef index_strides,
                  const TensorBase& index, const ReduceArgs& a, const LoopOptions& opt) {
  using acc_t = scatter_acc_t<scalar_t>;
  const ScalarType acc_type = c10::CppTypeToScalarType<acc_t>::value;
  const bool mean = a.op == ScatterOp::Mean;
  const bool scratch = acc_type != self.scalar_type() || (mean && !self.is_contiguous());
  TensorBase work = scratch ? contiguous(cast_to(self, acc_type, self.device())) : self;
  const int64_t self_dim_size = self.dim() == 0 ? 1 : self.sizes()[d];
  const DimVector plain_strides = a.src ? (a.src->dim() == std::max<int64_t>(self.dim(), 1) || self.dim() == 0
                                               ? strides_1d(*a.src) : DimVector(walk.size(), 0))
                                        : DimVector(walk.size(), 0);
  DimIndexPlan p = make_dim_index_plan(walk, d, strides_1d(work), plain_strides, index_strides, self_dim_size);
  acc_t* w = work.data_ptr<acc_t>();
  const scalar_t* s = a.src ? static_cast<const scalar_t*>(a.src->data_ptr()) : nullptr;
  const acc_t v0 = a.value ? static_cast<acc_t>(a.value->to<scalar_t>()) : acc_t(0);
  const bool scaled = a.alpha && !(a.alpha->toDouble() == 1.0);
  acc_t alpha = acc_t(1);
  if (scaled) {
    if constexpr (std::is_floating_point_v<acc_t>) alpha = static_cast<acc_t>(a.alpha->toDouble());
    else alpha = static_cast<acc_t>(a.alpha->to<scalar_t>());
  }
  const ScatterOp op = a.op;
  std::vector<int64_t> counts;
  if (mean) counts.assign((size_t)work.numel(), a.include_self ? 1 : 0);
  int64_t* cnt = mean ? counts.data() : nullptr;

  dispatch_index(index, [&](auto* idx) {
    if (!a.include_self) {
      const acc_t ident = scatter_identity<acc_t>(op);
      dim_index_loop(p, idx, opt, [=](int64_t i, int64_t) { w[i] = ident; });
    }
    auto value_at = [=](int64_t j) -> acc_t {
      acc_t v = s ? static_cast<acc_t>(s[j]) : v0;
      if constexpr (std::is_same_v<acc_t, bool>) return scaled ? (v && alpha) : v;
      else return scaled ? static_cast<acc_t>(v * alpha) : v;
    };
    if (mean) {
      dim_index_loop(p, idx, opt, [=](int64_t i, int64_t j) {
        scatter_combine(ScatterOp::Sum, w[i], value_at(j));
        ++cnt[i];
      });
    } else {
      // The reduction as a compile-time constant, so the inner loop has no switch.
      auto with_op = [&](auto op_const) {
        constexpr ScatterOp OP = decltype(op_const)::value;
        dim_index_loop(p, idx, opt, [=](int64_t i, int64_t j) { scatter_combine(OP, w[i], value_at(j)); });
      };
      switch (op) {
        case ScatterOp::Sum: with_op(std::integral_constant<ScatterOp, ScatterOp::Sum>()); break;
        case ScatterOp::Prod: with_op(std::integral_constant<ScatterOp, ScatterOp::Prod>()); break;
        case ScatterOp::Max: with_op(std::integral_constant<ScatterOp, ScatterOp::Max>()); break;
        case ScatterOp::Min: with_op(std::integral_constant<ScatterOp, ScatterOp::Min>()); break;
        default: with_op(std::integral_constant<ScatterOp, ScatterOp::Assign>()); break;
      }
    }
  });
  if (mean) {
    if constexpr (std::is_same_v<acc_t, bool>) {
      TL_CHECK_NOT_IMPLEMENTED(false, a.name, "(): reduce='mean' not implemented for 'Bool'");
    } else {
      parallel_for(0, work.numel(), kGrainSize, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) w[i] = scatter_mean_finish(w[i], cnt[i]);
      });
    }
  }
  if (!work.is_same(self)) copy_into(self, work);
}

void reduce_loop(const TensorBase& self, IntArrayRef walk, int64_t d, IntArrayRef index_strides,
                 const TensorBase& index, const ReduceArgs& a, const LoopOptions& opt) {
  int64_t n = 1;
  for (int64_t s : walk) n *= s;
  if (a.op == ScatterOp::Mean && self.scalar_type() == ScalarType::Bool)
    TL_CHECK_NOT_IMPLEMENTED(false, a.name, "(): reduce='mean' not implemented for 'Bool'");
  if (n == 0 || self.numel() == 0) return;
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), a.name,
                        [&] { reduce_typed<scalar_t>(self, walk, d, index_strides, index, a, opt); });
}

int64_t dim_size_1d(const TensorBase& t, int64_t d) { return t.dim() == 0 ? 1 : t.sizes()[d]; }

// The walked space of an index_* op: self's shape with `dim` holding the index's length.
DimVector index_walk(const TensorBase& self, int64_t d, const TensorBase& index) {
  DimVector w = sizes_1d(self);
  w[d] = index.numel();
  return w;
}

// scatter family: walk the index's shape.
TensorBase scatter_reduce_common(const TensorBase& self, int64_t d, const TensorBase& index, const ReduceArgs& a) {
  if (index.numel() == 0) return self;
  LoopOptions opt{false, false, IndexErrorStyle::Bounds, d};
  reduce_loop(self, sizes_1d(index), d, strides_1d(index), index, a, opt);
  return self;
}

}  // namespace

TensorBase gather_cpu(const TensorBase& self, int64_t dim, const TensorBase& index, bool /*sparse_grad*/) {
  const int64_t d = gather_check(self, dim, index);
  TensorBase out = make_empty(index.sizes(), self.options());
  if (index.numel() == 0) return out;
  DimIndexPlan p = make_dim_index_plan(sizes_1d(index), d, strides_1d(self), strides_1d(out), strides_1d(index),
                                       dim_size_1d(self, d));
  copy_loop(p, self, out, index, true, LoopOptions{true, false, IndexErrorStyle::Bounds, d});
  return out;
}

TensorBase index_select_cpu(const TensorBase& self, int64_t dim, const TensorBase& index) {
  const int64_t d = index_select_check(self, dim, index);
  TensorBase out = make_empty(index_select_shape(self, d, index), self.options());
  if (out.numel() == 0) return out;
  DimVector walk = sizes_1d(out);
  DimIndexPlan p = make_dim_index_plan(walk, d, strides_1d(self), strides_1d(out),
                                       index_as_dim_strides(index, (int64_t)walk.size(), d), dim_size_1d(self, d));
  copy_loop(p, self, out, index, true, LoopOptions{true, false, IndexErrorStyle::RangeInSelf, d});
  return out;
}

TensorBase scatter_value_cpu_(const TensorBase& self, int64_t dim, const TensorBase& index, const Scalar& value);
TensorBase scatter_value_reduce_cpu_(const TensorBase& self, int64_t dim, const TensorBase& index,
                                     const Scalar& value, std::string_view reduce);

TensorBase scatter_src_cpu_(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& src) {
  if (src.unsafeGetTensorImpl()->is_wrapped_number()) return scatter_value_cpu_(self, dim, index, c10::item(src));
  const int64_t d = scatter_check(self, dim, index, &src);
  self.bump_version();
  if (index.numel() == 0) return self;
  DimIndexPlan p = make_dim_index_plan(sizes_1d(index), d, strides_1d(self), strides_1d(src), strides_1d(index),
                                       dim_size_1d(self, d));
  copy_loop(p, self, src, index, false, LoopOptions{false, false, IndexErrorStyle::Bounds, d});
  return self;
}

TensorBase scatter_value_cpu_(const TensorBase& self, int64_t dim, const TensorBase& index, const Scalar& value) {
  const int64_t d = scatter_check(self, dim, index, nullptr);
  self.bump_version();
  if (index.numel() == 0) return self;
  DimVector walk = sizes_1d(index);
  DimIndexPlan p = make_dim_index_plan(walk, d, strides_1d(self), DimVector(walk.size(), 0), strides_1d(index),
                                       dim_size_1d(self, d));
  fill_loop(p, self, index, value, LoopOptions{false, false, IndexErrorStyle::Bounds, d});
  return self;
}

TensorBase scatter_reduce_legacy_cpu_(const TensorBase& self, int64_t dim, const TensorBase& index,
                                      const TensorBase& src, std::string_view reduce) {
  if (src.unsafeGetTensorImpl()->is_wrapped_number())
    return scatter_value_reduce_cpu_(self, dim, index, c10::item(src), reduce);
  const int64_t d = scatter_check(self, dim, index, &src);
  self.bump_version();
  ReduceArgs a{parse_scatter_legacy_reduce(reduce), true, &src, nullptr, nullptr, "scatter"};
  return scatter_reduce_common(self, d, index, a);
}

TensorBase scatter_value_reduce_cpu_(const TensorBase& self, int64_t dim, const TensorBase& index,
                                     const Scalar& value, std::string_view reduce) {
  const int64_t d = scatter_check(self, dim, index, nullptr);
  self.bump_version();
  ReduceArgs a{parse_scatter_legacy_reduce(reduce), true, nullptr, &value, nullptr, "scatter"};
  return scatter_reduce_common(self, d, index, a);
}

TensorBase scatter_add_cpu_(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& src) {
  const int64_t d = scatter_check(self, dim, index, &src);
  self.bump_version();
  ReduceArgs a{ScatterOp::Sum, true, &src, nullptr, nullptr, "scatter_add"};
  return scatter_reduce_common(self, d, index, a);
}

TensorBase scatter_reduce_two_cpu_(const TensorBase& self, int64_t dim, const TensorBase& index,
                                   const TensorBase& src, std::string_view reduce, bool include_self) {
  const int64_t d = scatter_check(self, dim, index, &src);
  self.bump_version();
  ReduceArgs a{parse_scatter_reduce(reduce), include_self, &src, nullptr, nullptr, "scatter_reduce"};
  return scatter_reduce_common(self, d, index, a);
}

TensorBase index_add_cpu_(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source,
                          const Scalar& alpha) {
  const int64_t d = index_add_check("index_add", self, dim, index, source);
  self.bump_version();
  DimVector walk = index_walk(self, d, index);
  ReduceArgs a{ScatterOp::Sum, true, &source, nullptr, &alpha, "index_add"};
  reduce_loop(self, walk, d, index_as_dim_strides(index, (int64_t)walk.size(), d), index, a,
              LoopOptions{false, false, IndexErrorStyle::Bounds, d});
  return self;
}

TensorBase index_reduce_cpu_(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source,
                             std::string_view reduce, bool include_self) {
  const int64_t d = index_add_check("index_reduce", self, dim, index, source);
  self.bump_version();
  ScatterOp op = parse_index_reduce(reduce);
  DimVector walk = index_walk(self, d, index);
  ReduceArgs a{op, include_self, &source, nullptr, nullptr, "index_reduce"};
  reduce_loop(self, walk, d, index_as_dim_strides(index, (int64_t)walk.size(), d), index, a,
              LoopOptions{false, false, IndexErrorStyle::RangeInSelf, d});
  return self;
}

TensorBase index_copy_cpu_(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source) {
  const int64_t d = index_copy_check(self, dim, index, source);
  self.bump_version();
  if (index.numel() == 0 || self.numel() == 0) return self;
  DimVector walk = index_walk(self, d, index);
  const DimVector src_strides = source.dim() == 0 && self.dim() != 0 ? DimVector(walk.size(), 0) : strides_1d(source);
  DimIndexPlan p = make_dim_index_plan(walk, d, strides_1d(self), src_strides,
                                       index_as_dim_strides(index, (int64_t)walk.size(), d), dim_size_1d(self, d));
  copy_loop(p, self, source, index, false, LoopOptions{false, false, IndexErrorStyle::Copy, d});
  return self;
}

TensorBase index_fill_cpu_(const TensorBase& self, int64_t dim, const TensorBase& index, const Scalar& value) {
  const int64_t d = index_fill_check(self, dim, index);
  self.bump_version();
  if (index.numel() == 0 || self.numel() == 0) return self;
  DimVector walk = index_walk(self, d, index);
  DimIndexPlan p = make_dim_index_plan(walk, d, strides_1d(self), DimVector(walk.size(), 0),
                                       index_as_dim_strides(index, (int64_t)walk.size(), d), dim_size_1d(self, d));
  fill_loop(p, self, index, value, LoopOptions{false, true, IndexErrorStyle::Fill, d});
  return self;
}

}  // namespace at::native
