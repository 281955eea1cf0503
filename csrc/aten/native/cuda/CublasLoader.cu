// Lazy loading of cuBLAS (see CublasLoader.h) and the per-thread handles.
#include "aten/native/cuda/CublasLoader.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "aten/native/CudaLibrarySearch.h"
#include "c10/Exception.h"
#include "c10/cuda/CUDAContext.h"

namespace at::native::cublas {
namespace {

std::mutex g_mutex;
std::string g_site_dirs;  // guarded by g_mutex
char g_site_sep = ':';

// Wheel layouts: the CUDA 13 wheels put every toolkit library in
// nvidia/cu13/lib; older ones had a folder per library.
const std::vector<std::string>& wheel_subdirs() {
  static const std::vector<std::string> dirs{"nvidia/cu13/lib", "nvidia/cublas/lib"};
  return dirs;
}

// dlopens the first candidate that loads; records what was tried.
void* open_first(const std::string& soname, const std::string& override_path, const std::string& sites, char sep,
                 std::vector<std::string>* tried, std::string* last_error, std::string* loaded) {
  for (const std::string& path : nvlib::candidates(soname, wheel_subdirs(), override_path, sites, sep)) {
    tried->push_back(path);
    // RTLD_GLOBAL: libcublas's own dependency on libcublasLt is then met by
    // the copy already loaded, wherever it was found.
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (h) {
      *loaded = path;
      return h;
    }
    const char* err = dlerror();
    if (err) *last_error = err;
  }
  return nullptr;
}

template <class Fn>
void resolve(void* lib, const char* name, Fn*& slot, bool required, const std::string& path) {
  slot = reinterpret_cast<Fn*>(dlsym(lib, name));
  TL_CHECK(slot || !required, "cuBLAS at ", path, " lacks the entry point ", name,
           "; torchlike needs the CUDA 13 release (pip install nvidia-cublas)");
}

std::unique_ptr<Api> load_api() {
  const char* env = std::getenv("TORCHLIKE_CUBLAS_PATH");
  const std::string override_path = env ? env : "";
  std::string sites;
  char sep;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    sites = g_site_dirs;
    sep = g_site_sep;
  }
  std::vector<std::string> tried;
  std::string err, lt_path, path;
  // cuBLASLt first: libcublas needs it, and an override that names only
  // libcublas still finds its sibling through the same folder.
  void* lt = open_first("libcublasLt.so.13", override_path, sites, sep, &tried, &err, &lt_path);
  TL_CHECK(lt, nvlib::missing_library_message("matrix multiplication on CUDA", "libcublasLt.so.13", "nvidia-cublas",
                                              "TORCHLIKE_CUBLAS_PATH", tried, err));
  tried.clear();
  err.clear();
  void* lib = open_first("libcublas.so.13", override_path, sites, sep, &tried, &err, &path);
  TL_CHECK(lib, nvlib::missing_library_message("matrix multiplication on CUDA", "libcublas.so.13", "nvidia-cublas",
                                               "TORCHLIKE_CUBLAS_PATH", tried, err));
  auto a = std::make_unique<Api>();
  a->path = path;
  resolve(lib, "cublasCreate_v2", a->create, true, path);
  resolve(lib, "cublasDestroy_v2", a->destroy, true, path);
  resolve(lib, "cublasSetStream_v2", a->set_stream, true, path);
  resolve(lib, "cublasSetWorkspace_v2", a->set_workspace, true, path);
  resolve(lib, "cublasSetMathMode", a->set_math_mode, true, path);
  resolve(lib, "cublasGemmEx", a->gemm_ex, true, path);
  resolve(lib, "cublasGemmStridedBatchedEx", a->gemm_strided_batched_ex, true, path);
  resolve(lib, "cublasGetStatusString", a->status_string, false, path);
  // The libraries stay loaded for the life of the process: handles and
  // kernels of theirs may be in use until exit.
  return a;
}

}  // namespace

const Api& api() {
  // A failed load is retried on the next call (after a pip install, or an
  // override set later), so the table is published only once it is complete.
  static std::unique_ptr<Api> loaded;
  static std::mutex load_mutex;
  static std::atomic<const Api*> ready{nullptr};
  if (const Api* a = ready.load(std::memory_order_acquire)) return *a;
  std::lock_guard<std::mutex> lock(load_mutex);
  if (!loaded) loaded = load_api();
  ready.store(loaded.get(), std::memory_order_release);
  return *loaded;
}

void check(Status status, const char* what) {
  if (status == kSuccess) return;
  const Api& a = api();
  const char* text = a.status_string ? a.status_string(status) : nullptr;
  TL_CHECK(false, what, ": cuBLAS error ", status, " (", text ? text : "no description", ")");
}

namespace {
// Destroys a thread's handles when the thread ends. A handle is not destroyed
// at process exit after the driver has shut down (cublasDestroy would then
// touch a dead context), which the OS reclaims anyway.
struct ThreadHandles {
  std::unordered_map<int, Handle> by_device;
  ~ThreadHandles() {
    if (by_device.empty()) return;  // never load cuBLAS just to tear down
    const Api* a = nullptr;
    try {
      a = &api();
    } catch (...) {
      return;
    }
    for (auto& kv : by_device) {
      int dev = 0;
      if (cudaGetDevice(&dev) != cudaSuccess) return;
      a->destroy(kv.second);
    }
  }
};
}  // namespace

Handle current_handle() {
  thread_local ThreadHandles handles;
  const Api& a = api();
  const int dev = (int)c10::cuda::currentDevice();
  auto it = handles.by_device.find(dev);
  if (it == handles.by_device.end()) {
    Handle h = nullptr;
    check(a.create(&h), "cublasCreate");
    it = handles.by_device.emplace(dev, h).first;
  }
  check(a.set_stream(it->second, c10::cuda::getCurrentCUDAStream(dev)), "cublasSetStream");
  return it->second;
}

void set_site_dirs(const std::string& joined, char sep) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_site_dirs = joined;
  g_site_sep = sep;
}

std::string site_dirs() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_site_dirs;
}

}  // namespace at::native::cublas

// Called by torchlike/_cuda_blas.py through ctypes with os.pathsep.join(sys.path).
extern "C" void tl_cuda_set_nvidia_site_dirs(const char* joined) {
  at::native::cublas::set_site_dirs(joined ? joined : "", ':');
}
