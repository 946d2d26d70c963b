// Why: a fresh 4 KiB page costs a fault on first touch (~1.5 us on the CI machine, clearing the
// page included), so a tensor of 160 KiB written once costs ~60 us before any arithmetic — more
// than the kernel filling it (a 20000-point f64 statement: 62 us, ~5 us of it arithmetic). glibc
// maps such blocks by themselves (or from its heap, 4 KiB pages again). Here they share 2 MiB
// chunks advised as huge pages: one fault clears 2 MiB (~0.25 ms against ~0.8 ms for 512 small
// faults) and a chunk serves many tensors, freed slots are reused while still mapped. Slots of
// 32 KiB, 64 per chunk (a bit mask); first fit; empty chunks beyond kKeepEmpty are unmapped.
#include "engine/value/mid_arena.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

namespace ein::vdetail {
namespace {

constexpr size_t kSlot = kMidChunk / 64;
constexpr size_t kKeepEmpty = 4;

struct Chunk {
  char* base = nullptr;
  uint64_t used = 0;   // slots handed out
  uint64_t dirty = 0;  // slots written since the chunk was mapped (zeroed again when reused)
};

uint64_t run_mask(size_t at, size_t k) { return (k == 64 ? ~uint64_t{0} : ((uint64_t{1} << k) - 1)) << at; }

class Arena {
 public:
  // Never destroyed: tensors held by other static objects are freed after any destructor order.
  static Arena& get() {
    static Arena* a = new Arena;
    return *a;
  }

  void* take(size_t bytes, bool zeroed) {
    const size_t k = (bytes + kSlot - 1) / kSlot;
    char* p = nullptr;
    bool clear = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (size_t c = 0; c <= chunks_.size() && !p; ++c) {
        if (c == chunks_.size()) {
          char* base = static_cast<char*>(map_huge(kMidChunk));
          if (!base) return nullptr;
          chunks_.push_back(Chunk{base});
        }
        Chunk& ch = chunks_[c];
        for (size_t at = 0; at + k <= 64; ++at) {
          const uint64_t m = run_mask(at, k);
          if (ch.used & m) continue;
          ch.used |= m;
          clear = zeroed && (ch.dirty & m);
          ch.dirty |= m;
          p = ch.base + at * kSlot;
          break;
        }
      }
    }
    if (clear) std::memset(p, 0, bytes);
    return p;
  }

  bool give(void* ptr, size_t bytes) {
    char* p = static_cast<char*>(ptr);
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t c = 0; c < chunks_.size(); ++c) {
      Chunk& ch = chunks_[c];
      if (p < ch.base || p >= ch.base + kMidChunk) continue;
      ch.used &= ~run_mask(static_cast<size_t>(p - ch.base) / kSlot, (bytes + kSlot - 1) / kSlot);
      if (ch.used == 0) {
        size_t empty = 0;
        for (const Chunk& o : chunks_) empty += o.used == 0;
        if (empty > kKeepEmpty) {
          munmap(ch.base, kMidChunk);
          chunks_.erase(chunks_.begin() + static_cast<long>(c));
        }
      }
      return true;
    }
    return false;
  }

 private:
  std::mutex mu_;
  std::vector<Chunk> chunks_;
};

}  // namespace

void* map_huge(size_t len) {
  // Map 2 MiB more than needed, keep the aligned middle, give the ends back.
  void* raw = mmap(nullptr, len + kMidChunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  uintptr_t r = reinterpret_cast<uintptr_t>(raw), at = (r + kMidChunk - 1) / kMidChunk * kMidChunk;
  if (at > r) munmap(raw, at - r);
  munmap(reinterpret_cast<void*>(at + len), r + kMidChunk - at);
#ifdef MADV_HUGEPAGE
  madvise(reinterpret_cast<void*>(at), len, MADV_HUGEPAGE);  // advice only
#endif
  return reinterpret_cast<void*>(at);
}

void* mid_alloc(size_t bytes, bool zeroed) {
  if (bytes < kMidMin || bytes >= kMidChunk) return nullptr;
  return Arena::get().take(bytes, zeroed);
}

bool mid_free(void* p, size_t bytes) {
  if (bytes < kMidMin || bytes >= kMidChunk) return false;
  return Arena::get().give(p, bytes);
}

}  // namespace ein::vdetail
