// Tensor storage and memory accounting. Every tensor's elements live in an xt::xarray owned by a
// Storage holder; Tensor keeps a shared_ptr to the holder plus a pointer to its first element so
// that views (row(), reshaped()) are O(1) and keep the storage alive.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>
#include <xtensor/xarray.hpp>

#include "engine/value/value.h"
#include "engine/config/env.h"
#include "engine/value/value_detail.h"
#include "engine/value/mid_arena.h"

namespace ein {

using vdetail::Tag;
using vdetail::visit_storage;

void fault(std::string code, const std::string& msg) { throw Fault(std::move(code), msg); }

// ---- memory accounting ----------------------------------------------------------------------
namespace {

std::atomic<int64_t> g_in_use{0};

int64_t default_limit() {
  if (auto v = config::bytes(config::Env::MaxMemory)) return *v;
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return int64_t{1} << 32;  // unknown machine: 4 GiB
  return static_cast<int64_t>(pages) * static_cast<int64_t>(page) / 2;
}

std::atomic<int64_t>& limit_ref() {
  static std::atomic<int64_t> lim{default_limit()};
  return lim;
}

// Owns the elements of one allocation. The accounting lives in the base so that it is undone
// exactly once, after the xarray has released its buffer.
struct StorageBase {
  int64_t bytes = 0;
  virtual ~StorageBase() { g_in_use.fetch_sub(bytes, std::memory_order_relaxed); }
};

// Fresh memory costs a page fault per 4 KiB on first touch; for a 10^6-element f64 array that is
// ~4.5 ms on the CI machine against ~1 ms with 2 MiB pages (measured with a memset of 8 MiB).
// Large buffers are therefore mapped directly, 2 MiB aligned and advised as transparent huge
// pages before anything touches them. Fresh mappings are zero, so there is no zero-fill pass:
// a kernel's first write is the first touch. Freed large buffers are kept in a small cache
// (a loop in a notebook allocates the same sizes again) and zeroed when reused.
// Buffers from 64 KiB share 2 MiB huge-page chunks (mid_arena.cpp); small ones come zeroed
// from calloc.
constexpr size_t kHuge = size_t{2} << 20;

// Set while Tensor::alloc_overwritten allocates: the caller writes every element before any is
// read, so a reused block is not zeroed (64 MiB: 3-6 ms, as much as the kernel filling it) and
// a small one comes from malloc.
thread_local bool t_overwritten = false;

class BigBlockCache {
 public:
  // Never destroyed: buffers are freed by destructors of other static objects (the kernel
  // scratch pool, sessions held by globals) that may run after a function-local static cache
  // would already be gone, and keep() on a destroyed cache corrupts the heap at exit.
  static BigBlockCache& get() {
    static BigBlockCache* c = new BigBlockCache;
    return *c;
  }
  void* take(size_t len) {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < blocks_.size(); ++i)
      if (blocks_[i].second == len) {
        void* p = blocks_[i].first;
        blocks_.erase(blocks_.begin() + static_cast<long>(i));
        held_ -= len;
        return p;
      }
    return nullptr;
  }
  bool keep(void* p, size_t len) {
    std::lock_guard<std::mutex> lock(mu_);
    // At most 256 MiB, and at most a quarter of the memory limit: a user who lowers the limit
    // to protect the machine does not get a large cache beside it.
    const int64_t lim = limit_ref().load(std::memory_order_relaxed) / 4;
    const size_t cap = std::min(kMaxHeld, lim > 0 ? static_cast<size_t>(lim) : size_t{0});
    if (len > cap || blocks_.size() >= kMaxBlocks) return false;
    while (held_ + len > cap && !blocks_.empty()) {  // oldest out
      munmap(blocks_.front().first, blocks_.front().second);
      held_ -= blocks_.front().second;
      blocks_.erase(blocks_.begin());
    }
    blocks_.emplace_back(p, len);
    held_ += len;
    return true;
  }

 private:
  static constexpr size_t kMaxHeld = size_t{256} << 20, kMaxBlocks = 16;
  std::mutex mu_;
  std::vector<std::pair<void*, size_t>> blocks_;
  size_t held_ = 0;
};

template <class T> struct BigPageAllocator {
  using value_type = T;
  BigPageAllocator() = default;
  template <class U> BigPageAllocator(const BigPageAllocator<U>&) noexcept {}
  static size_t mapped_size(size_t n) { return (n * sizeof(T) + kHuge - 1) / kHuge * kHuge; }
  T* allocate(size_t n) {
    if (n > (std::numeric_limits<size_t>::max() - 2 * kHuge) / sizeof(T)) throw std::bad_alloc();
    if (n * sizeof(T) < kHuge) {
      if (void* p = vdetail::mid_alloc(n * sizeof(T), !t_overwritten)) return static_cast<T*>(p);
      void* p = t_overwritten ? std::malloc((n ? n : 1) * sizeof(T)) : std::calloc(n ? n : 1, sizeof(T));
      if (!p) throw std::bad_alloc();
      return static_cast<T*>(p);
    }
    size_t len = mapped_size(n);
    if (void* p = BigBlockCache::get().take(len)) {
      if (!t_overwritten) std::memset(p, 0, len);
      return static_cast<T*>(p);
    }
    void* p = vdetail::map_huge(len);
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n * sizeof(T) < kHuge) {
      if (!vdetail::mid_free(p, n * sizeof(T))) std::free(p);
      return;
    }
    size_t len = mapped_size(n);
    if (!BigBlockCache::get().keep(p, len)) munmap(p, len);
  }
  template <class U> bool operator==(const BigPageAllocator<U>&) const noexcept { return true; }
};

template <class S> using Array = xt::xarray<S, XTENSOR_DEFAULT_LAYOUT, BigPageAllocator<S>>;

template <class S> struct Storage final : StorageBase {
  Array<S> arr;
};

}  // namespace

int64_t memory_limit() { return limit_ref().load(std::memory_order_relaxed); }
void set_memory_limit(int64_t bytes) { limit_ref().store(bytes, std::memory_order_relaxed); }
int64_t memory_in_use() { return g_in_use.load(std::memory_order_relaxed); }

void reserve_memory(int64_t bytes, const std::string& what) {
  if (bytes <= 0) return;
  const int64_t lim = memory_limit();
  // Reserve first, then check, so that concurrent reservations cannot both squeeze under.
  const int64_t before = g_in_use.fetch_add(bytes, std::memory_order_relaxed);
  int64_t after = 0;
  if (__builtin_add_overflow(before, bytes, &after) || after > lim) {
    g_in_use.fetch_sub(bytes, std::memory_order_relaxed);
    fault("E008", what + " needs " + std::to_string(bytes) + " bytes; with " + std::to_string(before) +
                      " in use that exceeds the memory limit of " + std::to_string(lim) +
                      " bytes (EIN_MAX_MEMORY)");
  }
}

void release_memory(int64_t bytes) {
  if (bytes > 0) g_in_use.fetch_sub(bytes, std::memory_order_relaxed);
}

namespace vdetail {
void count_memory(int64_t bytes) { g_in_use.fetch_add(bytes, std::memory_order_relaxed); }
}  // namespace vdetail

// ---- tensors --------------------------------------------------------------------------------
struct TensorAccess {
  static Tensor make(DType dt, std::vector<int64_t> shape, std::shared_ptr<void> storage,
                     void* data) {
    Tensor t;
    t.dtype_ = dt;
    t.shape_ = std::move(shape);
    t.storage_ = std::move(storage);
    t.data_ = data;
    return t;
  }
};

namespace vdetail {
std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

void require_storage(const Tensor& t) {
  if (t.data() == nullptr && t.size() > 0) fault("E006", "use of an uninitialised array");
}
}  // namespace vdetail

Tensor Tensor::alloc(DType dt, std::vector<int64_t> shape) {
  int64_t n = 1;
  bool overflow = false;
  for (int64_t d : shape) {
    if (d < 0) {
      fault("E006", "negative extent " + std::to_string(d) + " in shape " +
                        vdetail::shape_str(shape));
    }
  }
  for (int64_t d : shape) {
    if (d == 0) { n = 0; overflow = false; break; }
    if (!overflow && __builtin_mul_overflow(n, d, &n)) overflow = true;
  }
  const int64_t esize = dtype_storage_bytes(dt);
  int64_t bytes = 0;
  if (overflow || __builtin_mul_overflow(n, esize, &bytes)) {
    fault("E008", "allocation of shape " + vdetail::shape_str(shape) +
                      " overflows the addressable size (EIN_MAX_MEMORY)");
  }
  const int64_t lim = memory_limit();
  // Reserve first, then check, so that concurrent allocations cannot both squeeze under.
  const int64_t before = g_in_use.fetch_add(bytes, std::memory_order_relaxed);
  int64_t after = 0;
  if (__builtin_add_overflow(before, bytes, &after) || after > lim) {
    g_in_use.fetch_sub(bytes, std::memory_order_relaxed);
    fault("E008", "allocation of " + std::to_string(bytes) + " bytes (shape " +
                      vdetail::shape_str(shape) + ") exceeds the memory limit of " +
                      std::to_string(lim) + " bytes (EIN_MAX_MEMORY)");
  }
  return visit_storage(dt, [&](auto tag) -> Tensor {
    using S = typename decltype(tag)::type;
    std::shared_ptr<Storage<S>> st;
    try {
      st = std::make_shared<Storage<S>>();
      st->bytes = bytes;  // from here on the holder's destructor gives the bytes back
    } catch (...) {
      g_in_use.fetch_sub(bytes, std::memory_order_relaxed);
      fault("E008", "allocation of " + std::to_string(bytes) + " bytes failed");
    }
    try {
      // Flat 1-D container; the logical shape lives in the Tensor so views can differ from it.
      using shape_t = typename Array<S>::shape_type;
      st->arr = Array<S>(shape_t{static_cast<size_t>(n)});  // zeroed by the allocator (calloc)
    } catch (const std::bad_alloc&) {
      fault("E008", "allocation of " + std::to_string(bytes) + " bytes (shape " +
                        vdetail::shape_str(shape) + ") failed: out of memory");
    } catch (const std::length_error&) {
      fault("E008", "allocation of " + std::to_string(bytes) + " bytes (shape " +
                        vdetail::shape_str(shape) + ") failed: too large");
    }
    void* data = st->arr.data();
    return TensorAccess::make(dt, std::move(shape), std::static_pointer_cast<void>(st), data);
  });
}

Tensor Tensor::alloc_overwritten(DType dt, std::vector<int64_t> shape) {
  struct Flag {
    Flag() { t_overwritten = true; }
    ~Flag() { t_overwritten = false; }
  } flag;
  return alloc(dt, std::move(shape));
}

Tensor Tensor::scalar_tensor(DType dt, double v) {
  Tensor t = alloc(dt, {});
  t.set_f64(0, v);
  return t;
}

int64_t Tensor::size() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;  // validated at alloc/reshape: cannot overflow
  return n;
}

std::vector<int64_t> Tensor::strides() const {
  std::vector<int64_t> s(shape_.size(), 1);
  for (int i = rank() - 2; i >= 0; --i) s[size_t(i)] = s[size_t(i) + 1] * shape_[size_t(i) + 1];
  return s;
}

double Tensor::get_f64(int64_t flat) const {
  return visit_storage(dtype_, [&](auto tag) -> double {
    using S = typename decltype(tag)::type;
    return static_cast<double>(data_as<S>()[flat]);
  });
}

int64_t Tensor::get_i64(int64_t flat) const {
  return visit_storage(dtype_, [&](auto tag) -> int64_t {
    using S = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<S>) {
      return vdetail::saturate_to<int64_t>(static_cast<double>(data_as<S>()[flat]));
    } else {
      return static_cast<int64_t>(data_as<S>()[flat]);
    }
  });
}

bool Tensor::get_bool(int64_t flat) const {
  return visit_storage(dtype_, [&](auto tag) -> bool {
    using S = typename decltype(tag)::type;
    return data_as<S>()[flat] != S(0);
  });
}

void Tensor::set_f64(int64_t flat, double v) {
  visit_storage(dtype_, [&](auto tag) {
    using S = typename decltype(tag)::type;
    data_as<S>()[flat] = vdetail::store_from_f64<S>(v, dtype_);
  });
}

void Tensor::set_i64(int64_t flat, int64_t v) {
  visit_storage(dtype_, [&](auto tag) {
    using S = typename decltype(tag)::type;
    data_as<S>()[flat] = vdetail::store_from_i64<S>(v, dtype_);
  });
}

Tensor Tensor::row(int64_t i) const {
  if (shape_.empty()) fault("E005", "cannot index into a scalar (rank-0 array)");
  if (i < 0 || i >= shape_[0]) {
    fault("E005", "index " + std::to_string(i) + " is out of bounds for axis 0 with extent " +
                      std::to_string(shape_[0]));
  }
  std::vector<int64_t> sub(shape_.begin() + 1, shape_.end());
  int64_t inner = 1;
  for (int64_t d : sub) inner *= d;
  char* base = static_cast<char*>(data_);
  void* p = base ? base + i * inner * dtype_storage_bytes(dtype_) : nullptr;
  return TensorAccess::make(dtype_, std::move(sub), storage_, p);
}

Tensor Tensor::reshaped(std::vector<int64_t> shape) const {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) fault("E006", "negative extent in reshape to " + vdetail::shape_str(shape));
    if (__builtin_mul_overflow(n, d, &n)) {
      fault("E004", "cannot reshape " + vdetail::shape_str(shape_) + " to " +
                        vdetail::shape_str(shape));
    }
  }
  if (n != size()) {
    fault("E004", "cannot reshape " + vdetail::shape_str(shape_) + " (" +
                      std::to_string(size()) + " elements) to " + vdetail::shape_str(shape) +
                      " (" + std::to_string(n) + " elements)");
  }
  return TensorAccess::make(dtype_, std::move(shape), storage_, data_);
}

Tensor Tensor::copy() const {
  vdetail::require_storage(*this);
  Tensor t = alloc(dtype_, shape_);
  const int64_t bytes = size() * dtype_storage_bytes(dtype_);
  if (bytes > 0) std::memcpy(t.data_, data_, static_cast<size_t>(bytes));
  return t;
}

Tensor Tensor::cast(DType to) const {
  // Same storage and same rounding: a plain copy is exact.
  if (to == dtype_) return copy();
  vdetail::require_storage(*this);
  Tensor out = alloc(to, shape_);
  const int64_t n = size();
  visit_storage(dtype_, [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    visit_storage(to, [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      const From* src = data_as<From>();
      To* dst = out.data_as<To>();
      for (int64_t k = 0; k < n; ++k) {
        if constexpr (std::is_floating_point_v<From>) {
          dst[k] = vdetail::store_from_f64<To>(static_cast<double>(src[k]), to);
        } else {
          dst[k] = vdetail::store_from_i64<To>(static_cast<int64_t>(src[k]), to);
        }
      }
    });
  });
  return out;
}

}  // namespace ein
