// Native kernel tier: lowered LTensor code -> C++/OpenMP -> compiled, cached, dlopen'ed
// (ARCHITECTURE "Native kernels"). This header is the contract the session and the command
// layer use; engine/jit/*.cpp implement it.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace ein::jit {

struct CacheInfo {
  std::string dir;        // "" when the cache is memory-only
  int64_t entries = 0;    // kernels on disk
  int64_t bytes = 0;      // their total size
  int64_t cap_bytes = 0;  // LRU cap
  int64_t hits = 0;       // process lifetime counters
  int64_t misses = 0;
  double compile_ms = 0;
  int64_t key_memo_hits = 0;  // kernel keys found by their source text, without hashing it
};

CacheInfo cache_info();
void cache_clear();  // removes every cached kernel (memory and disk)

// ---- loading kernels (engine/interp/native_* and the tests) --------------------------------

// One kernel: C++ text defining `EIN_KERNEL` (engine/codegen output, without the prelude).
struct BatchResult {
  std::vector<void*> fns;   // per source: its `int (ein_args*)` entry, or nullptr
  int hits = 0;             // found in memory or on disk
  int misses = 0;           // compiled now
  double compile_ms = 0;    // time in the compiler
  std::string error;        // compiler missing or failing: its diagnostic ("" when fine)
  bool interrupted = false; // the interrupt flag stopped the compiler
};

// Looks every source up in the cache and compiles all misses in one translation unit with one
// compiler process. Thread safe.
BatchResult load_kernels(const std::vector<std::string>& sources, const std::atomic<bool>* interrupt);

// Cache key of a kernel: SHA-256 of the prelude, the source, the compiler identity (path,
// version, resolved -march, flags) and the prelude ABI version. Probes the compiler.
std::string kernel_key(const std::string& source);
// Symbol a kernel with this key gets.
std::string kernel_symbol(const std::string& key);

// The cache directory in use ("" = memory only), after reading the environment once.
std::string cache_dir();
// Re-reads $EIN_CACHE_DIR etc. and forgets the in-memory cache (tests).
void reset_for_tests();

}  // namespace ein::jit
