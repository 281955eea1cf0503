// Core-library initialisation: registers the built-in allocators, the default
// dispatcher fallbacks and every generated operator and kernel.
#pragma once

namespace at {

// Idempotent and thread-safe. libtorchlike.so runs it from a static
// initialiser when it is loaded, so a plain C++ program gets working ops;
// torchlike._C calls it again (a no-op) from its module init.
void init();

}  // namespace at
