// Where NVIDIA's runtime libraries (cuBLAS, cuBLASLt, cuDNN) are looked for
// when torchlike's CUDA backend first needs one. They are never linked: the
// CUDA library dlopens them lazily, so a build or an import never requires
// them and only the first matmul or convolution does. Pure string logic,
// shared by the loader (cuda/CublasLoader.cu) and the CPU test hooks.
//
// Order, first hit wins:
//   1. an explicit override (TORCHLIKE_CUBLAS_PATH / TORCHLIKE_CUDNN_PATH):
//      a library file (its directory then serves the library's siblings,
//      e.g. libcublasLt next to libcublas) or a directory;
//   2. NVIDIA's pip wheels under each Python path entry (site-packages), in
//      the layouts the CUDA 13 wheels use (nvidia/cu13/lib) and the older
//      per-library one (nvidia/cublas/lib, nvidia/cudnn/lib);
//   3. the system: the bare soname (LD_LIBRARY_PATH and the ld.so cache),
//      then the toolkit's lib64.
#pragma once
#include <string>
#include <vector>

namespace at::native::nvlib {

// The CUDA toolkit's library folder, the last place looked in.
inline const char* toolkit_lib_dir() { return "/usr/local/cuda/lib64"; }

// True when `path` names a shared-library file rather than a directory
// ("…/libcublas.so.13", "libfoo.so"), judged by its last component.
inline bool names_library_file(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.rfind("lib", 0) != 0) return false;
  const size_t so = base.find(".so");
  return so != std::string::npos && (so + 3 == base.size() || base[so + 3] == '.');
}

inline std::string join_path(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

// Splits `list` at `sep`, dropping empty entries.
inline std::vector<std::string> split_paths(const std::string& list, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(sep, start);
    if (end == std::string::npos) end = list.size();
    if (end > start) out.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// Every path to try for `soname`, in order, duplicates removed.
//   wheel_subdirs: folders inside a site-packages entry ("nvidia/cu13/lib")
//   override_path: the override variable's value ("" when unset)
//   site_dirs: Python's path entries joined with `sep`
inline std::vector<std::string> candidates(const std::string& soname, const std::vector<std::string>& wheel_subdirs,
                                           const std::string& override_path, const std::string& site_dirs,
                                           char sep = ':') {
  std::vector<std::string> out;
  auto add = [&](const std::string& p) {
    for (const auto& q : out)
      if (q == p) return;
    out.push_back(p);
  };
  if (!override_path.empty()) {
    if (names_library_file(override_path)) {
      const size_t slash = override_path.find_last_of('/');
      const std::string base = slash == std::string::npos ? override_path : override_path.substr(slash + 1);
      if (base == soname)
        add(override_path);
      else
        add(join_path(slash == std::string::npos ? std::string() : override_path.substr(0, slash), soname));
    } else {
      add(join_path(override_path, soname));
    }
  }
  for (const auto& site : split_paths(site_dirs, sep))
    for (const auto& sub : wheel_subdirs) add(join_path(join_path(site, sub), soname));
  add(soname);
  add(join_path(toolkit_lib_dir(), soname));
  return out;
}

// The message raised when none of the candidates loads.
inline std::string missing_library_message(const std::string& what, const std::string& soname,
                                           const std::string& pip_name, const std::string& override_var,
                                           const std::vector<std::string>& tried, const std::string& last_error) {
  std::string msg = what + " needs " + soname + ", which could not be loaded. Install NVIDIA's wheel with `pip install " +
                    pip_name + "` (or `pip install torchlike[cuda]`), or point " + override_var +
                    " at the library or its folder. Tried: ";
  for (size_t i = 0; i < tried.size(); ++i) msg += (i ? ", " : "") + tried[i];
  if (!last_error.empty()) msg += ". Last error: " + last_error;
  return msg;
}

}  // namespace at::native::nvlib
