// cuDNN convolution, loaded lazily (see CudnnConv.h).
//
// The cuDNN headers are not needed to build (the CI image has none): the few
// handle types, enum values, the algorithm-result struct and the entry points
// below follow cuDNN 9's documented C API (cudnn_graph.h, cudnn_ops.h,
// cudnn_cnn.h). Only the legacy convolution API is used: tensor/filter/
// convolution descriptors, the _v7 heuristics or Find*Ex (benchmark mode),
// and Forward / BackwardData / BackwardFilter.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "aten/native/CudaLibrarySearch.h"
#include "aten/native/cuda/CublasLoader.h"
#include "aten/native/cuda/CudnnConv.h"
#include "c10/Exception.h"
#include "c10/GlobalContext.h"
#include "c10/cuda/CUDAContext.h"

namespace at::native::cudnn_conv {
namespace {

// ---- the cuDNN C ABI subset used here
using Handle = void*;
using TensorDesc = void*;
using FilterDesc = void*;
using ConvDesc = void*;
using Status = int;  // CUDNN_STATUS_SUCCESS == 0
enum DataType : int { kFloat = 0, kDouble = 1, kHalf = 2, kBFloat16 = 9 };
constexpr int kFormatNCHW = 0;
constexpr int kCrossCorrelation = 1;
enum MathType : int { kDefaultMath = 0, kTensorOpMath = 1, kFmaMath = 3 };
constexpr int kDeterministic = 1;
// cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t share this layout.
struct AlgoPerf {
  int algo;
  Status status;
  float time;
  size_t memory;
  int determinism;
  int math_type;
  int reserved[3];
};
constexpr int kMaxAlgos = 16;

struct Api {
  size_t (*get_version)();
  Status (*create)(Handle*);
  Status (*set_stream)(Handle, cudaStream_t);
  Status (*create_tensor)(TensorDesc*);
  Status (*destroy_tensor)(TensorDesc);
  Status (*set_tensor_nd)(TensorDesc, int, int, const int*, const int*);
  Status (*create_filter)(FilterDesc*);
  Status (*destroy_filter)(FilterDesc);
  Status (*set_filter_nd)(FilterDesc, int, int, int, const int*);
  Status (*create_conv)(ConvDesc*);
  Status (*destroy_conv)(ConvDesc);
  Status (*set_conv_nd)(ConvDesc, int, const int*, const int*, const int*, int, int);
  Status (*set_group_count)(ConvDesc, int);
  Status (*set_math_type)(ConvDesc, int);
  Status (*get_fwd_v7)(Handle, TensorDesc, FilterDesc, ConvDesc, TensorDesc, int, int*, AlgoPerf*);
  Status (*find_fwd)(Handle, TensorDesc, const void*, FilterDesc, const void*, ConvDesc, TensorDesc, void*, int, int*,
                     AlgoPerf*, void*, size_t);
  Status (*forward)(Handle, const void*, TensorDesc, const void*, FilterDesc, const void*, ConvDesc, int, void*, size_t,
                    const void*, TensorDesc, void*);
  Status (*get_bwd_data_v7)(Handle, FilterDesc, TensorDesc, ConvDesc, TensorDesc, int, int*, AlgoPerf*);
  Status (*find_bwd_data)(Handle, FilterDesc, const void*, TensorDesc, const void*, ConvDesc, TensorDesc, void*, int,
                          int*, AlgoPerf*, void*, size_t);
  Status (*backward_data)(Handle, const void*, FilterDesc, const void*, TensorDesc, const void*, ConvDesc, int, void*,
                          size_t, const void*, TensorDesc, void*);
  Status (*get_bwd_filter_v7)(Handle, TensorDesc, TensorDesc, ConvDesc, FilterDesc, int, int*, AlgoPerf*);
  Status (*find_bwd_filter)(Handle, TensorDesc, const void*, TensorDesc, const void*, ConvDesc, FilterDesc, void*, int,
                            int*, AlgoPerf*, void*, size_t);
  Status (*backward_filter)(Handle, const void*, TensorDesc, const void*, TensorDesc, const void*, ConvDesc, int, void*,
                            size_t, const void*, FilterDesc, void*);
};

template <class Fn>
bool resolve(void* lib, const char* name, Fn*& slot) {
  slot = reinterpret_cast<Fn*>(dlsym(lib, name));
  return slot != nullptr;
}

// Loads cuDNN once; null when it is not installed or lacks an entry point
// (cuDNN is optional: the caller falls back to its own kernels).
const Api* load() {
  static std::once_flag once;
  static std::unique_ptr<Api> api;
  std::call_once(once, [] {
    // cuDNN's engines call cuBLASLt; having it loaded first (RTLD_GLOBAL)
    // lets them find the same copy.
    try {
      cublas::api();
    } catch (...) {
    }
    const char* env = std::getenv("TORCHLIKE_CUDNN_PATH");
    const std::vector<std::string> subdirs{"nvidia/cudnn/lib", "nvidia/cu13/lib"};
    void* lib = nullptr;
    std::string dir;
    for (const std::string& path : nvlib::candidates("libcudnn.so.9", subdirs, env ? env : "", cublas::site_dirs())) {
      lib = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
      if (lib) {
        const size_t slash = path.find_last_of('/');
        dir = slash == std::string::npos ? "" : path.substr(0, slash);
        break;
      }
    }
    if (!lib) return;
    // cuDNN 9's libcudnn is a thin front that loads its sub-libraries by
    // name; loading them from the same folder first makes that lookup find
    // them even when the folder is not on the loader's path.
    if (!dir.empty()) {
      for (const char* sub : {"libcudnn_graph.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9",
                              "libcudnn_engines_precompiled.so.9", "libcudnn_engines_runtime_compiled.so.9",
                              "libcudnn_heuristic.so.9"})
        dlopen(nvlib::join_path(dir, sub).c_str(), RTLD_NOW | RTLD_GLOBAL);  // optional: failures are fine
    }
    auto a = std::make_unique<Api>();
    bool ok = resolve(lib, "cudnnGetVersion", a->get_version) && resolve(lib, "cudnnCreate", a->create) && resolve(lib, "cudnnSetStream", a->set_stream) &&
              resolve(lib, "cudnnCreateTensorDescriptor", a->create_tensor) &&
              resolve(lib, "cudnnDestroyTensorDescriptor", a->destroy_tensor) &&
              resolve(lib, "cudnnSetTensorNdDescriptor", a->set_tensor_nd) &&
              resolve(lib, "cudnnCreateFilterDescriptor", a->create_filter) &&
              resolve(lib, "cudnnDestroyFilterDescriptor", a->destroy_filter) &&
              resolve(lib, "cudnnSetFilterNdDescriptor", a->set_filter_nd) &&
              resolve(lib, "cudnnCreateConvolutionDescriptor", a->create_conv) &&
              resolve(lib, "cudnnDestroyConvolutionDescriptor", a->destroy_conv) &&
              resolve(lib, "cudnnSetConvolutionNdDescriptor", a->set_conv_nd) &&
              resolve(lib, "cudnnSetConvolutionGroupCount", a->set_group_count) &&
              resolve(lib, "cudnnSetConvolutionMathType", a->set_math_type) &&
              resolve(lib, "cudnnGetConvolutionForwardAlgorithm_v7", a->get_fwd_v7) &&
              resolve(lib, "cudnnFindConvolutionForwardAlgorithmEx", a->find_fwd) &&
              resolve(lib, "cudnnConvolutionForward", a->forward) &&
              resolve(lib, "cudnnGetConvolutionBackwardDataAlgorithm_v7", a->get_bwd_data_v7) &&
              resolve(lib, "cudnnFindConvolutionBackwardDataAlgorithmEx", a->find_bwd_data) &&
              resolve(lib, "cudnnConvolutionBackwardData", a->backward_data) &&
              resolve(lib, "cudnnGetConvolutionBackwardFilterAlgorithm_v7", a->get_bwd_filter_v7) &&
              resolve(lib, "cudnnFindConvolutionBackwardFilterAlgorithmEx", a->find_bwd_filter) &&
              resolve(lib, "cudnnConvolutionBackwardFilter", a->backward_filter);
    if (ok) api = std::move(a);
  });
  return api.get();
}

// The calling thread's handle for the current device, on the current stream.
Handle current_handle(const Api& a) {
  thread_local std::map<int, Handle> handles;  // never destroyed: see CublasLoader.cu's note on exit
  const int dev = (int)c10::cuda::currentDevice();
  auto it = handles.find(dev);
  if (it == handles.end()) {
    Handle h = nullptr;
    if (a.create(&h) != 0) return nullptr;
    it = handles.emplace(dev, h).first;
  }
  if (a.set_stream(it->second, c10::cuda::getCurrentCUDAStream(dev)) != 0) return nullptr;
  return it->second;
}

// ---- problem description

enum class Kind { Forward, BackwardData, BackwardFilter };

int data_type(ScalarType t) {
  switch (t) {
    case ScalarType::Float: return kFloat;
    case ScalarType::Double: return kDouble;
    case ScalarType::Half: return kHalf;
    case ScalarType::BFloat16: return kBFloat16;
    default: return -1;
  }
}

// Sizes as cuDNN wants them: a 1-d problem becomes 2-d with a unit height.
// False when a size or the element count exceeds cuDNN's int indexing.
bool dims_of(const TensorBase& t, int64_t nd, std::vector<int>* dims, std::vector<int>* strides) {
  constexpr int64_t kIntMax = 0x7fffffff;
  if (t.numel() > kIntMax) return false;
  dims->clear();
  for (int64_t i = 0; i < t.dim(); ++i) {
    dims->push_back((int)t.sizes()[i]);
    if (nd == 1 && i == 1) dims->push_back(1);
  }
  if (strides) {  // contiguous strides of the (possibly padded) shape
    strides->assign(dims->size(), 1);
    for (int i = (int)dims->size() - 2; i >= 0; --i) (*strides)[i] = (*strides)[i + 1] * std::max((*dims)[i + 1], 1);
  }
  return true;
}

// Owns the descriptors of one call.
struct Descriptors {
  const Api& a;
  TensorDesc in = nullptr, out = nullptr;  // x and y of the plain convolution x -> y
  FilterDesc w = nullptr;
  ConvDesc conv = nullptr;
  explicit Descriptors(const Api& api) : a(api) {}
  ~Descriptors() {
    if (in) a.destroy_tensor(in);
    if (out) a.destroy_tensor(out);
    if (w) a.destroy_filter(w);
    if (conv) a.destroy_conv(conv);
  }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;
};

// The math type asked for before the algorithm search: TF32 only where
// allow_tf32 says so; half types on tensor cores.
int requested_math(ScalarType t) {
  if (t == ScalarType::Half || t == ScalarType::BFloat16) return kTensorOpMath;
  if (t == ScalarType::Float)
    return c10::globalContext().cudnn_allow_tf32.load(std::memory_order_relaxed) ? kDefaultMath : kFmaMath;
  return kDefaultMath;
}

bool deterministic_required() {
  c10::GlobalContext& g = c10::globalContext();
  return g.cudnn_deterministic.load(std::memory_order_relaxed) || g.deterministic.load(std::memory_order_relaxed);
}

// Fills the descriptors for the plain convolution x (in) -> y (out) with weight w.
bool describe(const Api& a, Descriptors& d, const TensorBase& x, const TensorBase& w, const TensorBase& y,
              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  const int64_t nd = (int64_t)stride.size();
  const int dt = data_type(x.scalar_type());
  if (dt < 0 || nd < 1 || nd > 3) return false;
  std::vector<int> xd, xs, yd, ys, wd;
  if (!dims_of(x, nd, &xd, &xs) || !dims_of(y, nd, &yd, &ys) || !dims_of(w, nd, &wd, nullptr)) return false;
  std::vector<int> pad, str, dil;
  if (nd == 1) {
    pad.push_back(0);
    str.push_back(1);
    dil.push_back(1);
  }
  for (int64_t i = 0; i < nd; ++i) {
    pad.push_back((int)padding[i]);
    str.push_back((int)stride[i]);
    dil.push_back((int)dilation[i]);
  }
  const int compute = x.scalar_type() == ScalarType::Double ? kDouble : kFloat;
  if (a.create_tensor(&d.in) != 0 || a.create_tensor(&d.out) != 0 || a.create_filter(&d.w) != 0 ||
      a.create_conv(&d.conv) != 0)
    return false;
  return a.set_tensor_nd(d.in, dt, (int)xd.size(), xd.data(), xs.data()) == 0 &&
         a.set_tensor_nd(d.out, dt, (int)yd.size(), yd.data(), ys.data()) == 0 &&
         a.set_filter_nd(d.w, dt, kFormatNCHW, (int)wd.size(), wd.data()) == 0 &&
         a.set_conv_nd(d.conv, (int)pad.size(), pad.data(), str.data(), dil.data(), kCrossCorrelation, compute) == 0 &&
         a.set_group_count(d.conv, (int)groups) == 0 &&
         a.set_math_type(d.conv, requested_math(x.scalar_type())) == 0;
}

std::string cache_key(Kind kind, const TensorBase& x, const TensorBase& w, const TensorBase& y, IntArrayRef stride,
                      IntArrayRef padding, IntArrayRef dilation, int64_t groups, bool benchmark) {
  std::ostringstream k;
  k << (int)kind << '|' << (int)c10::cuda::currentDevice() << '|' << (int)x.scalar_type() << '|' << x.sizes() << '|'
    << w.sizes() << '|' << y.sizes() << '|' << stride << '|' << padding << '|' << dilation << '|' << groups << '|'
    << requested_math(x.scalar_type()) << '|' << deterministic_required() << '|' << benchmark;
  return k.str();
}

// Chosen algorithms by problem: the heuristics (or, with benchmark, the
// timed search) run once per shape.
std::mutex g_cache_mutex;
std::map<std::string, AlgoPerf> g_cache;

// The first usable result: successful, deterministic where required, with a
// workspace the caching allocator can reasonably give.
bool pick(const AlgoPerf* perf, int count, AlgoPerf* out) {
  constexpr size_t kMaxWorkspace = size_t(2) << 30;
  const bool det = deterministic_required();
  for (int i = 0; i < count; ++i) {
    if (perf[i].status != 0 || perf[i].memory > kMaxWorkspace) continue;
    if (det && perf[i].determinism != kDeterministic) continue;
    *out = perf[i];
    return true;
  }
  return false;
}

struct Scratch {
  void* ptr = nullptr;
  Scratch(size_t bytes, cudaStream_t s) {
    if (bytes) ptr = c10::cuda::cachingMalloc(bytes, s);
  }
  ~Scratch() {
    if (ptr) c10::cuda::cachingFree(ptr);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};

// Runs one of the three operations of the plain convolution x -> y:
// Forward writes y, BackwardData writes x (from y), BackwardFilter writes w.
bool run(Kind kind, const TensorBase& x, const TensorBase& w, const TensorBase& y, IntArrayRef stride,
         IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  const Api* a = available() ? load() : nullptr;
  if (!a) return false;
  Handle h = current_handle(*a);
  if (!h) return false;
  Descriptors d(*a);
  if (!describe(*a, d, x, w, y, stride, padding, dilation, groups)) return false;
  const bool benchmark = c10::globalContext().cudnn_benchmark.load(std::memory_order_relaxed);
  const std::string key = cache_key(kind, x, w, y, stride, padding, dilation, groups, benchmark);
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  AlgoPerf chosen{};
  bool have = false;
  {
    std::lock_guard<std::mutex> lock(g_cache_mutex);
    auto it = g_cache.find(key);
    if (it != g_cache.end()) {
      chosen = it->second;
      have = true;
    }
  }
  if (!have) {
    AlgoPerf perf[kMaxAlgos];
    int count = 0;
    Status st = 0;
    if (benchmark) {
      // Times every algorithm on the real buffers (their contents are
      // overwritten by the real call that follows).
      constexpr size_t kSearchWorkspace = size_t(256) << 20;
      Scratch ws(kSearchWorkspace, stream);
      if (kind == Kind::Forward)
        st = a->find_fwd(h, d.in, x.data_ptr(), d.w, w.data_ptr(), d.conv, d.out, y.data_ptr(), kMaxAlgos, &count,
                         perf, ws.ptr, kSearchWorkspace);
      else if (kind == Kind::BackwardData)
        st = a->find_bwd_data(h, d.w, w.data_ptr(), d.out, y.data_ptr(), d.conv, d.in, x.data_ptr(), kMaxAlgos,
                              &count, perf, ws.ptr, kSearchWorkspace);
      else
        st = a->find_bwd_filter(h, d.in, x.data_ptr(), d.out, y.data_ptr(), d.conv, d.w, w.data_ptr(), kMaxAlgos,
                                &count, perf, ws.ptr, kSearchWorkspace);
    } else {
      if (kind == Kind::Forward)
        st = a->get_fwd_v7(h, d.in, d.w, d.conv, d.out, kMaxAlgos, &count, perf);
      else if (kind == Kind::BackwardData)
        st = a->get_bwd_data_v7(h, d.w, d.out, d.conv, d.in, kMaxAlgos, &count, perf);
      else
        st = a->get_bwd_filter_v7(h, d.in, d.out, d.conv, d.w, kMaxAlgos, &count, perf);
    }
    if (st != 0 || !pick(perf, std::min(count, kMaxAlgos), &chosen)) return false;
    std::lock_guard<std::mutex> lock(g_cache_mutex);
    g_cache.emplace(key, chosen);
  }
  if (a->set_math_type(d.conv, chosen.math_type) != 0) return false;
  Scratch ws(chosen.memory, stream);
  const float fone = 1.f, fzero = 0.f;
  const double done = 1.0, dzero = 0.0;
  const bool dbl = x.scalar_type() == ScalarType::Double;
  const void* alpha = dbl ? (const void*)&done : (const void*)&fone;
  const void* beta = dbl ? (const void*)&dzero : (const void*)&fzero;
  Status st;
  if (kind == Kind::Forward)
    st = a->forward(h, alpha, d.in, x.data_ptr(), d.w, w.data_ptr(), d.conv, chosen.algo, ws.ptr, chosen.memory, beta,
                    d.out, y.data_ptr());
  else if (kind == Kind::BackwardData)
    st = a->backward_data(h, alpha, d.w, w.data_ptr(), d.out, y.data_ptr(), d.conv, chosen.algo, ws.ptr,
                          chosen.memory, beta, d.in, x.data_ptr());
  else
    st = a->backward_filter(h, alpha, d.in, x.data_ptr(), d.out, y.data_ptr(), d.conv, chosen.algo, ws.ptr,
                            chosen.memory, beta, d.w, w.data_ptr());
  // A launch-time refusal leaves the output unwritten: the caller falls back.
  return st == 0;
}

}  // namespace

bool available() {
  if (!c10::globalContext().cudnn_enabled.load(std::memory_order_relaxed)) return false;
  const char* env = std::getenv("TORCHLIKE_CUDNN");
  if (env && std::string(env) == "0") return false;
  return load() != nullptr;
}

bool forward(const TensorBase& x, const TensorBase& w, const TensorBase& y, IntArrayRef stride, IntArrayRef padding,
             IntArrayRef dilation, int64_t groups) {
  return run(Kind::Forward, x, w, y, stride, padding, dilation, groups);
}

bool transpose_forward(const TensorBase& x, const TensorBase& w, const TensorBase& y, IntArrayRef stride,
                       IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  // conv_transpose(x) is the data gradient of the plain convolution y -> x.
  return run(Kind::BackwardData, y, w, x, stride, padding, dilation, groups);
}

bool weight_grad(const TensorBase& dy, const TensorBase& x, const TensorBase& dw, IntArrayRef stride,
                 IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return run(Kind::BackwardFilter, x, dw, dy, stride, padding, dilation, groups);
}

}  // namespace at::native::cudnn_conv

// cuDNN's version (e.g. 92700), loading it if needed, or 0 when it cannot be
// loaded; torchlike.backends.cudnn.version() / is_available() call it.
extern "C" long long tl_cuda_cudnn_version() {
  try {
    const at::native::cudnn_conv::Api* a = at::native::cudnn_conv::load();
    return a ? (long long)a->get_version() : 0;
  } catch (...) {
    return 0;
  }
}
