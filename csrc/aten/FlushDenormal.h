// torch.set_flush_denormal: denormal floats read and produced as zero (the
// x86 FTZ and DAZ bits). The bits are per thread, so the setting is applied to
// every intra-op worker too, and again when set_num_threads grows the pool;
// otherwise a tensor split across threads would be flushed in some chunks only.
#pragma once

namespace at {

// Returns false (and changes nothing) where the CPU has no such mode.
bool set_flush_denormal(bool on);

}  // namespace at
