// Tensor storage of 64 KiB up to 2 MiB, carved from 2 MiB chunks backed by transparent huge pages
// (tensor.cpp's allocator asks here first for that range). Internal to engine/value.
#ifndef EIN_ENGINE_VALUE_MID_ARENA_H
#define EIN_ENGINE_VALUE_MID_ARENA_H
#include <cstddef>

namespace ein::vdetail {

constexpr size_t kMidMin = size_t{64} << 10;   // smaller blocks come from malloc
constexpr size_t kMidChunk = size_t{2} << 20;  // larger ones are mapped by themselves

// `bytes` in [kMidMin, kMidChunk): a block, zero-filled when `zeroed`; nullptr when no chunk
// can be mapped (the caller falls back to malloc).
void* mid_alloc(size_t bytes, bool zeroed);
// False when `p` is not a block of the arena (the caller frees it itself).
bool mid_free(void* p, size_t bytes);
// `len` bytes (a multiple of 2 MiB) mapped 2 MiB aligned and advised as huge pages, zero;
// nullptr when the mapping fails. Released with munmap.
void* map_huge(size_t len);

}  // namespace ein::vdetail
#endif  // EIN_ENGINE_VALUE_MID_ARENA_H
