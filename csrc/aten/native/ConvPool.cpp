// Argument checks and output shapes for convolution, pooling and im2col/col2im,
// shared by the CPU and Meta kernels. Messages follow PyTorch's.
#include "ConvPool.h"

#include <sstream>
#include <string>

namespace at::native {

std::string shape_text(IntArrayRef v, const char* sep) {
  std::ostringstream os;
  for (size_t i = 0; i < v.size(); ++i) os << (i ? sep : "") << v[i];
  return os.str();
}

Window3 make_window(int64_t nd, IntArrayRef in_spatial, IntArrayRef out_spatial, IntArrayRef k, IntArrayRef s,
                    IntArrayRef p, IntArrayRef d) {
  Window3 w;
  const int64_t lead = 3 - nd;
  for (int i = 0; i < 3; ++i) {
    if (i < lead) {
      w.in[i] = w.out[i] = w.k[i] = w.s[i] = w.d[i] = 1;
      w.p[i] = 0;
    } else {
      const int64_t j = i - lead;
      w.in[i] = in_spatial[j];
      w.out[i] = out_spatial[j];
      w.k[i] = k[j];
      w.s[i] = s[j];
      w.p[i] = p[j];
      w.d[i] = d[j];
    }
  }
  return w;
}

int64_t pooling_output_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode) {
  const int64_t num = in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  // Floor division that rounds toward -inf, as PyTorch's div_rtn.
  int64_t q = num / stride;
  if ((num % stride != 0) && ((num < 0) != (stride < 0))) --q;
  int64_t out = q + 1;
  // The last window must start inside the input or the left padding.
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// ---------------------------------------------------------------- convolution

namespace {
const char* type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Float: return "torch.FloatTensor";
    case ScalarType::Double: return "torch.DoubleTensor";
    case ScalarType::Half: return "torch.HalfTensor";
    case ScalarType::BFloat16: return "torch.BFloat16Tensor";
    case ScalarType::Long: return "torch.LongTensor";
    case ScalarType::Int: return "torch.IntTensor";
    case ScalarType::Short: return "torch.ShortTensor";
    case ScalarType::Char: return "torch.CharTensor";
    case ScalarType::Byte: return "torch.ByteTensor";
    case ScalarType::Bool: return "torch.BoolTensor";
    default: return "torch.Tensor";
  }
}

void check_list(const char* what, IntArrayRef v, int64_t nd) {
  TL_CHECK((int64_t)v.size() == nd, "expected ", what, " to be a single integer value or a list of ", nd,
           " values to match the convolution dimensions, but got ", what, "=[", shape_text(v, ", "), "]");
}
}  // namespace

std::vector<int64_t> convolution_output_sizes(const TensorBase& input, const TensorBase& weight,
                                              const std::optional<TensorBase>& bias, IntArrayRef stride,
                                              IntArrayRef padding, IntArrayRef dilation, bool transposed,
                                              IntArrayRef output_padding, int64_t groups) {
  const int64_t wd = weight.dim();
  TL_CHECK(wd >= 3 && wd <= 5, "convolution: expected a 3-, 4- or 5-dimensional weight, but got weight of size [",
           shape_text(weight.sizes(), ", "), "]");
  const int64_t nd = wd - 2;
  TL_CHECK(input.dim() == wd, "Expected ", wd, "-dimensional input for ", wd, "-dimensional weight [",
           shape_text(weight.sizes(), ", "), "], but got ", input.dim(), "-dimensional input of size [",
           shape_text(input.sizes(), ", "), "] instead");
  check_list("stride", stride, nd);
  check_list("padding", padding, nd);
  check_list("dilation", dilation, nd);
  if (transposed) check_list("output_padding", output_padding, nd);
  for (int64_t v : stride) TL_CHECK(v > 0, "non-positive stride is not supported");
  for (int64_t v : padding) TL_CHECK(v >= 0, "negative padding is not supported");
  for (int64_t v : dilation) TL_CHECK(v > 0, "non-positive dilation is not supported");
  TL_CHECK(groups > 0, "non-positive groups is not supported");
  TL_CHECK(input.scalar_type() == weight.scalar_type(), "Input type (", type_name(input.scalar_type()),
           ") and weight type (", type_name(weight.scalar_type()), ") should be the same");
  if (bias && bias->defined())
    TL_CHECK(bias->scalar_type() == input.scalar_type(), "Input type (", type_name(input.scalar_type()),
             ") and bias type (", type_name(bias->scalar_type()), ") should be the same");
  TL_CHECK(weight.sizes()[0] % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ", groups,
           " at dimension 0, but got weight of size [[", shape_text(weight.sizes(), ", "), "]] instead");
  int64_t out_channels;
  if (!transposed) {
    TL_CHECK(input.sizes()[1] == weight.sizes()[1] * groups, "Given groups=", groups, ", weight of size [",
             shape_text(weight.sizes(), ", "), "], expected input[", shape_text(input.sizes(), ", "), "] to have ",
             weight.sizes()[1] * groups, " channels, but got ", input.sizes()[1], " channels instead");
    out_channels = weight.sizes()[0];
  } else {
    TL_CHECK(input.sizes()[1] == weight.sizes()[0], "Given transposed=1, weight of size [",
             shape_text(weight.sizes(), ", "), "], expected input[", shape_text(input.sizes(), ", "), "] to have ",
             weight.sizes()[0], " channels, but got ", input.sizes()[1], " channels instead");
    out_channels = weight.sizes()[1] * groups;
    for (int64_t i = 0; i < nd; ++i) {
      if (!(output_padding[i] < stride[i] || output_padding[i] < dilation[i])) {
        std::ostringstream os;
        os << "output padding must be smaller than either stride or dilation, but got";
        static const char* names[3][3] = {{"", "", "width"}, {"", "height", "width"}, {"depth", "height", "width"}};
        auto put = [&](const char* what, IntArrayRef v) {
          for (int64_t j = 0; j < nd; ++j) os << " " << what << "_" << names[nd - 1][3 - nd + j] << ": " << v[j];
        };
        put("output_padding", output_padding);
        put("stride", stride);
        put("dilation", dilation);
        TL_CHECK(false, os.str());
      }
      TL_CHECK(output_padding[i] >= 0, "negative output_padding is not supported");
    }
  }
  if (bias && bias->defined())
    TL_CHECK(bias->dim() == 1 && bias->sizes()[0] == out_channels, "Given weight of size [",
             shape_text(weight.sizes(), ", "), "], expected bias to be 1-dimensional with ", out_channels,
             " elements, but got bias of size [", shape_text(bias->sizes(), ", "), "] instead");
  std::vector<int64_t> out{input.sizes()[0], out_channels};
  if (!transposed) {
    std::vector<int64_t> padded(nd), kernel(nd);
    bool fits = true;
    for (int64_t i = 0; i < nd; ++i) {
      padded[i] = input.sizes()[2 + i] + 2 * padding[i];
      kernel[i] = dilation[i] * (weight.sizes()[2 + i] - 1) + 1;
      fits = fits && padded[i] >= kernel[i];
    }
    TL_CHECK(fits, "Calculated padded input size per channel: (", shape_text(padded), "). Kernel size: (",
             shape_text(kernel), "). Kernel size can't be greater than actual input size");
    for (int64_t i = 0; i < nd; ++i) out.push_back((padded[i] - kernel[i]) / stride[i] + 1);
  } else {
    for (int64_t i = 0; i < nd; ++i) {
      const int64_t o = (input.sizes()[2 + i] - 1) * stride[i] - 2 * padding[i] +
                        dilation[i] * (weight.sizes()[2 + i] - 1) + output_padding[i] + 1;
      TL_CHECK(o >= 0, "Given input size per channel: (", shape_text(input.sizes().slice(2)),
               "). Calculated output size per channel is negative: ", o, ". Output size is too small");
      out.push_back(o);
    }
  }
  return out;
}

void check_convolution_weight_grad(const TensorBase& grad_output, const TensorBase& input, IntArrayRef weight_size,
                                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  const int64_t nd = (int64_t)weight_size.size() - 2;
  TL_CHECK(nd >= 1 && nd <= 3 && input.dim() == nd + 2 && grad_output.dim() == nd + 2,
           "_convolution_weight_grad: expected input and grad_output with ", nd + 2, " dims for weight_size [",
           shape_text(weight_size, ", "), "]");
  check_list("stride", stride, nd);
  check_list("padding", padding, nd);
  check_list("dilation", dilation, nd);
  TL_CHECK(groups > 0 && weight_size[0] % groups == 0 && input.sizes()[1] == weight_size[1] * groups &&
               grad_output.sizes()[1] == weight_size[0] && grad_output.sizes()[0] == input.sizes()[0],
           "_convolution_weight_grad: grad_output [", shape_text(grad_output.sizes(), ", "), "] and input [",
           shape_text(input.sizes(), ", "), "] do not match weight_size [", shape_text(weight_size, ", "),
           "] with groups=", groups);
  TL_CHECK(grad_output.scalar_type() == input.scalar_type(), "_convolution_weight_grad: grad_output (",
           toString(grad_output.scalar_type()), ") and input (", toString(input.scalar_type()),
           ") must have the same dtype");
  for (int64_t i = 0; i < nd; ++i)
    TL_CHECK(stride[i] > 0 && padding[i] >= 0 && dilation[i] > 0 && weight_size[2 + i] > 0,
             "_convolution_weight_grad: invalid window arguments");
}

// ---------------------------------------------------------------- pooling

void check_pool_input(const char* op, const TensorBase& self, int64_t nd) {
  bool ok = self.dim() == nd + 2;
  for (int64_t i = 1; ok && i < self.dim(); ++i) ok = self.sizes()[i] > 0;
  TL_CHECK(ok, op, ": expected a non-empty ", nd + 2, "D (N, C, ", (nd == 1 ? "L" : nd == 2 ? "H, W" : "D, H, W"),
           ") input, but got input of size [", shape_text(self.sizes(), ", "), "]");
}

namespace {
// Lists of length 1 broadcast to nd; empty stride means stride = kernel_size.
std::vector<int64_t> expand_list(const char* op, const char* what, IntArrayRef v, int64_t nd) {
  TL_CHECK(v.size() == 1 || (int64_t)v.size() == nd, op, ": ", what, " must either be a single int, or a tuple of ",
           nd, " ints");
  std::vector<int64_t> r(nd);
  for (int64_t i = 0; i < nd; ++i) r[i] = v.size() == 1 ? v[0] : v[i];
  return r;
}

std::vector<int64_t> pool_common(const char* op, const TensorBase& self, IntArrayRef kernel_size, IntArrayRef stride,
                                 IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, bool is_max,
                                 PoolArgs* a) {
  const int64_t nd = (int64_t)kernel_size.size();
  TL_CHECK(nd >= 1 && nd <= 3, op, ": kernel_size must have 1 to 3 elements");
  check_pool_input(op, self, nd);
  a->nd = nd;
  a->k = expand_list(op, "kernel_size", kernel_size, nd);
  a->s = stride.empty() ? a->k : expand_list(op, "stride", stride, nd);
  a->p = expand_list(op, "padding", padding, nd);
  a->d = expand_list(op, "dilation", dilation, nd);
  for (int64_t i = 0; i < nd; ++i) {
    TL_CHECK(a->k[i] > 0, op, ": kernel_size should be greater than zero, but got ", shape_text(a->k, ", "));
    TL_CHECK(a->s[i] > 0, op, ": stride should not be zero");
    TL_CHECK(a->d[i] > 0, op, ": dilation should be greater than zero, but got ", shape_text(a->d, ", "));
    TL_CHECK(a->p[i] >= 0, op, ": pad must be non-negative, but got pad=", a->p[i]);
    if (is_max)
      TL_CHECK(a->p[i] <= ((a->k[i] - 1) * a->d[i] + 1) / 2,
               "pad should be at most half of effective kernel size, but got pad=", a->p[i], ", kernel_size=",
               a->k[i], " and dilation=", a->d[i]);
    else
      TL_CHECK(a->p[i] <= a->k[i] / 2, "pad should be at most half of kernel size, but got pad=", a->p[i],
               ", kernel_size=", a->k[i]);
  }
  std::vector<int64_t> out{self.sizes()[0], self.sizes()[1]};
  bool positive = true;
  for (int64_t i = 0; i < nd; ++i) {
    out.push_back(pooling_output_size(self.sizes()[2 + i], a->k[i], a->p[i], a->s[i], a->d[i], ceil_mode));
    positive = positive && out.back() >= 1;
  }
  TL_CHECK(positive, "Given input size: (", shape_text(self.sizes().slice(1), "x"), "). Calculated output size: (",
           self.sizes()[1], "x", shape_text(IntArrayRef(out).slice(2), "x"), "). Output size is too small");
  return out;
}
}  // namespace

std::vector<int64_t> max_pool_output_sizes(const char* op, const TensorBase& self, IntArrayRef kernel_size,
                                           IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                           bool ceil_mode, PoolArgs* args) {
  return pool_common(op, self, kernel_size, stride, padding, dilation, ceil_mode, true, args);
}

std::vector<int64_t> avg_pool_output_sizes(const char* op, const TensorBase& self, IntArrayRef kernel_size,
                                           IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                                           std::optional<int64_t> divisor_override, PoolArgs* args) {
  TL_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  const int64_t one = 1;
  return pool_common(op, self, kernel_size, stride, padding, IntArrayRef(&one, 1), ceil_mode, false, args);
}

std::vector<int64_t> adaptive_pool_output_sizes(const char* op, const TensorBase& self, IntArrayRef output_size) {
  const int64_t nd = (int64_t)output_size.size();
  TL_CHECK(nd >= 1 && nd <= 3, op, ": output_size must have 1 to 3 elements");
  check_pool_input(op, self, nd);
  std::vector<int64_t> out{self.sizes()[0], self.sizes()[1]};
  for (int64_t v : output_size) {
    TL_CHECK(v >= 0, op, ": elements of output_size must be greater than or equal to 0 but received {",
             shape_text(output_size, ", "), "}");
    out.push_back(v);
  }
  return out;
}

void check_pool_indices(const char* op, const TensorBase& values, const TensorBase& indices) {
  TL_CHECK(indices.scalar_type() == ScalarType::Long, op, ": expected indices to have dtype int64, but got ",
           toString(indices.scalar_type()));
  TL_CHECK(values.sizes() == indices.sizes(), op, ": expected indices of the same shape as the values [",
           shape_text(values.sizes(), ", "), "], but got [", shape_text(indices.sizes(), ", "), "]");
  TL_CHECK(values.dim() >= 3 && values.dim() <= 5, op, ": expected a 3D to 5D (N, C, spatial...) input, but got ",
           values.dim(), "D");
}

// ---------------------------------------------------------------- im2col / col2im

namespace {
void check_fold_args(IntArrayRef k, IntArrayRef d, IntArrayRef p, IntArrayRef s) {
  TL_CHECK(k.size() == 2 && d.size() == 2 && p.size() == 2 && s.size() == 2,
           "im2col/col2im: kernel_size, dilation, padding and stride must have 2 elements");
  TL_CHECK(k[0] > 0 && k[1] > 0, "kernel size should be greater than zero, but got kernel_height: ", k[0],
           " kernel_width: ", k[1]);
  TL_CHECK(d[0] > 0 && d[1] > 0, "dilation should be greater than zero, but got dilation_height: ", d[0],
           " dilation_width: ", d[1]);
  TL_CHECK(p[0] >= 0 && p[1] >= 0, "padding should be non-negative, but got pad_height: ", p[0],
           " pad_width: ", p[1]);
  TL_CHECK(s[0] > 0 && s[1] > 0, "stride should be greater than zero, but got stride_height: ", s[0],
           " stride_width: ", s[1]);
}

void blocks(IntArrayRef spatial, IntArrayRef k, IntArrayRef d, IntArrayRef p, IntArrayRef s, int64_t* bh,
            int64_t* bw) {
  *bh = (spatial[0] + 2 * p[0] - (d[0] * (k[0] - 1) + 1)) / s[0] + 1;
  *bw = (spatial[1] + 2 * p[1] - (d[1] * (k[1] - 1) + 1)) / s[1] + 1;
  // Truncating division, as PyTorch's im2col_shape_check (the kernels bound-check every read).
  if (*bh < 1 || *bw < 1) {
    TL_CHECK(false, "Given input with spatial size (", spatial[0], ", ", spatial[1], "), kernel_size=(", k[0], ", ",
             k[1], "), dilation=(", d[0], ", ", d[1], "), padding=(", p[0], ", ", p[1],
             "), calculated shape of the array of sliding blocks as (", *bh, ", ", *bw,
             "), but its components must be at least one.");
  }
}
}  // namespace

std::vector<int64_t> im2col_output_sizes(const TensorBase& self, IntArrayRef kernel_size, IntArrayRef dilation,
                                         IntArrayRef padding, IntArrayRef stride, int64_t* blocks_h,
                                         int64_t* blocks_w) {
  check_fold_args(kernel_size, dilation, padding, stride);
  bool ok = self.dim() == 3 || self.dim() == 4;
  for (int64_t i = self.dim() - 3; ok && i < self.dim(); ++i) ok = self.sizes()[i] > 0;
  TL_CHECK(ok, "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions "
               "for input, but got: [", shape_text(self.sizes(), ", "), "]");
  const int64_t b = self.dim() - 3;
  blocks(self.sizes().slice(b + 1), kernel_size, dilation, padding, stride, blocks_h, blocks_w);
  std::vector<int64_t> out;
  if (b) out.push_back(self.sizes()[0]);
  out.push_back(self.sizes()[b] * kernel_size[0] * kernel_size[1]);
  out.push_back(*blocks_h * *blocks_w);
  return out;
}

std::vector<int64_t> col2im_output_sizes(const TensorBase& self, IntArrayRef output_size, IntArrayRef kernel_size,
                                         IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride,
                                         int64_t* blocks_h, int64_t* blocks_w) {
  check_fold_args(kernel_size, dilation, padding, stride);
  TL_CHECK(output_size.size() == 2, "It is expected output_size equals to 2, but got size ", output_size.size());
  TL_CHECK(output_size[0] > 0 && output_size[1] > 0, "output_size should be greater than zero, but got output_height: ",
           output_size[0], " output_width: ", output_size[1]);
  bool ok = self.dim() == 2 || self.dim() == 3;
  for (int64_t i = self.dim() - 2; ok && i < self.dim(); ++i) ok = self.sizes()[i] > 0;
  TL_CHECK(ok, "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions "
               "for input, but got: [", shape_text(self.sizes(), ", "), "]");
  const int64_t b = self.dim() - 2;
  const int64_t kk = kernel_size[0] * kernel_size[1];
  TL_CHECK(self.sizes()[b] % kk == 0, "Expected size of input's dimension ", b, " to be divisible by the product of "
           "kernel_size, but got input.size(", b, ")=", self.sizes()[b], " and kernel_size=(", kernel_size[0], ", ",
           kernel_size[1], ")");
  blocks(output_size, kernel_size, dilation, padding, stride, blocks_h, blocks_w);
  TL_CHECK(self.sizes()[b + 1] == *blocks_h * *blocks_w, "Given output_size=(", output_size[0], ", ", output_size[1],
           "), kernel_size=(", kernel_size[0], ", ", kernel_size[1], "), dilation=(", dilation[0], ", ", dilation[1],
           "), padding=(", padding[0], ", ", padding[1], "), stride=(", stride[0], ", ", stride[1],
           "), expected size of input's dimension ", b + 1, " to match the calculated number of sliding blocks ",
           *blocks_h, " * ", *blocks_w, " = ", *blocks_h * *blocks_w, ", but got input.size(", b + 1,
           ")=", self.sizes()[b + 1], ".");
  std::vector<int64_t> out;
  if (b) out.push_back(self.sizes()[0]);
  out.push_back(self.sizes()[b] / kk);
  out.push_back(output_size[0]);
  out.push_back(output_size[1]);
  return out;
}

}  // namespace at::native
