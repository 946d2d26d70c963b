// Native kernel tier: lowered LTensor code -> C++/OpenMP -> compiled, cached, dlopen'ed
// (ARCHITECTURE "Native kernels"). This header is the contract the session and the command
// layer use; engine/jit/*.cpp implement it.
#pragma once
#include <cstdint>
#include <string>

namespace ein::jit {

struct CacheInfo {
  std::string dir;        // "" when the cache is memory-only
  int64_t entries = 0;    // kernels on disk
  int64_t bytes = 0;      // their total size
  int64_t cap_bytes = 0;  // LRU cap
  int64_t hits = 0;       // process lifetime counters
  int64_t misses = 0;
  double compile_ms = 0;
};

CacheInfo cache_info();
void cache_clear();  // removes every cached kernel (memory and disk)

}  // namespace ein::jit
