// `__argsort(x, axis, descending[, k])`: the stable order of the elements of x along one axis,
// as i32 indices of x's rank (the axis cut to its first k positions when k is given: top-k).
// std::array's sort/argsort/topk and std::ml's topk are written over it in Einlang (a gather
// through the permutation, so their values differentiate through the gather); before, they
// ranked every element by counting the elements that come before it, O(n^2) per row (20 000
// values: 0.20 s against NumPy's 1.7 ms).
//
// Order: ascending puts NaN last (np.argsort(kind="stable")); descending puts NaN first (NaN is
// the largest value, ONNX TopK as the library has always treated it). Equal keys keep their
// index order in both directions — descending is not the reverse of ascending — and -0.0 equals
// 0.0, as NumPy's comparison sort treats them. Integers compare as integers (an i64 above 2^53
// is not rounded through a double). A short row is one std::sort of (key, index) pairs ordered
// by key then index, which is the stable order; a row of kRadixFrom or more elements is an LSD
// radix sort of the keys mapped to unsigned integers that order the same way (stable by
// construction, O(n) per pass): 10^6 f64 in 85 ms of CPU per call, page faults of the scratch
// included, against 133 for NumPy's stable argsort (docs/performance.md). A small k is a
// partial sort of the pairs. Rows run in parallel.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <limits>
#include <memory>
#include <thread>
#include <vector>
#include <cstdlib>

#include "engine/interp/interp_impl.h"

namespace ein {

namespace {

// The engine's own code uses no OpenMP: libgomp must not be loaded before the first kernel
// sets OMP_WAIT_POLICY (engine/jit/jit.cpp load_object, docs/jit.md "Threads"), so the rows
// of a large sort go to plain threads, as many as OMP_NUM_THREADS (its first number) or the
// CPUs allow.
template <class F>
void run_on_threads(bool par, F& work) {
  int n = par ? static_cast<int>(std::thread::hardware_concurrency()) : 1;
  if (const char* e = std::getenv("OMP_NUM_THREADS")) {
    const int want = std::atoi(e);
    if (want > 0) n = std::min(n, want);
  }
  std::vector<std::thread> team;
  for (int i = 1; i < n; ++i) team.emplace_back([&work] { work(); });
  work();
  for (std::thread& t : team) t.join();
}

template <class K>
struct Keyed {
  K key;
  int32_t at;
};

// Reads element `flat` of t as a key of type K: straight from memory when t stores K (`direct`),
// else through the dtype-erased accessors (f16, bf16, i8, bool).
template <class K>
K key_of(const Tensor& t, int64_t flat, bool direct) {
  if (direct) return t.data_as<K>()[flat];
  if constexpr (std::is_floating_point_v<K>) return static_cast<K>(t.get_f64(flat));
  else return static_cast<K>(t.get_i64(flat));
}

constexpr int64_t kRadixFrom = 256;

// The unsigned integer that orders as k does (floats: -0.0 mapped to 0.0 first; NaN never
// reaches here), complemented for a descending order.
template <class K>
auto radix_key(K k, bool descending) {
  using U = std::conditional_t<sizeof(K) == 8, uint64_t, uint32_t>;
  constexpr U top = U(1) << (sizeof(U) * 8 - 1);
  U u;
  if constexpr (std::is_floating_point_v<K>) {
    K z = k + K(0);  // -0.0 + 0.0 is 0.0
    std::memcpy(&u, &z, sizeof u);
    u = (u & top) ? ~u : (u | top);
  } else {
    u = static_cast<U>(k) ^ top;
  }
  return descending ? U(~u) : u;
}

// Stable LSD radix sort of n keys with their indices, 11 bits per pass (3 passes for 32-bit
// keys, 6 for 64-bit), the histograms of every pass counted in one read of the keys first; a pass
// whose digit is the same in every key is skipped. The result ends in (keys, at).
template <class U>
void radix_sort(U*& keys, int32_t*& at, U*& k2, int32_t*& a2, size_t n) {
  constexpr int kBits = 11, kPasses = (sizeof(U) * 8 + kBits - 1) / kBits;
  constexpr U kMask = (U(1) << kBits) - 1;
  std::vector<uint32_t> count(size_t(kPasses) << kBits, 0);
  for (size_t i = 0; i < n; ++i)
    for (int p = 0; p < kPasses; ++p) ++count[(size_t(p) << kBits) + ((keys[i] >> (p * kBits)) & kMask)];
  for (int p = 0; p < kPasses; ++p) {
    uint32_t* c = &count[size_t(p) << kBits];
    if (c[(keys[0] >> (p * kBits)) & kMask] == n) continue;
    uint32_t sum = 0;
    for (size_t d = 0; d <= kMask; ++d) {
      uint32_t here = c[d];
      c[d] = sum;
      sum += here;
    }
    for (size_t i = 0; i < n; ++i) {
      uint32_t d = c[(keys[i] >> (p * kBits)) & kMask]++;
      k2[d] = keys[i];
      a2[d] = at[i];
    }
    std::swap(keys, k2);
    std::swap(at, a2);
  }
}

template <class K>
bool key_before(const Keyed<K>& a, const Keyed<K>& b, bool descending) {
  return descending ? a.key > b.key || (a.key == b.key && a.at < b.at) : a.key < b.key || (a.key == b.key && a.at < b.at);
}

// The first kk positions of the order of each row (kk = n: the whole order). When kk is small
// against n (top-k), a partial sort of the (key, index) pairs: O(n log kk).
template <class K>
void order_rows(const Tensor& x, Tensor& out, int64_t outer, int64_t n, int64_t inner, int64_t kk, bool descending,
                const std::atomic<bool>* interrupt) {
  int32_t* dst = out.data_as<int32_t>();
  const DType dt = x.dtype();
  const bool direct = std::is_same_v<K, float> ? dt == DType::F32
                      : std::is_same_v<K, double> ? dt == DType::F64
                      : std::is_same_v<K, int64_t> ? dt == DType::I64
                                                   : dt == DType::I32;
  const int64_t rows = outer * inner;
  std::atomic<bool> stopped{false};
  // A thread team only pays off with several rows of some length; a single long row is one sort.
  const bool par = rows > 1 && rows * n >= (1 << 15);
  const bool partial = kk < n && kk * 16 <= n;
  std::atomic<int64_t> next_row{0};
  // One worker's share: rows handed out one at a time (rows differ in NaN count and k).
  auto worker = [&] {
    using U = decltype(radix_key(K(0), false));
    const bool radix = n >= kRadixFrom && !partial;
    std::vector<Keyed<K>> buf(radix ? 0 : static_cast<size_t>(n));
    // Scratch without a zero fill (every slot is written before it is read).
    const size_t rn = radix ? static_cast<size_t>(n) : 0;
    std::unique_ptr<U[]> kbuf(new U[2 * rn]);
    std::unique_ptr<int32_t[]> abuf(new int32_t[2 * rn]);
    std::vector<int32_t> nans;
    for (int64_t r; (r = next_row.fetch_add(1, std::memory_order_relaxed)) < rows;) {
      if (stopped.load(std::memory_order_relaxed)) continue;
      if (interrupt && interrupt->load(std::memory_order_relaxed)) {
        stopped = true;
        continue;
      }
      const int64_t o = r / inner, q = r % inner;
      const int64_t base = o * n * inner + q;
      size_t m = 0;
      nans.clear();
      U* keys = kbuf.get();
      int32_t* at = abuf.get();
      for (int64_t i = 0; i < n; ++i) {
        K k = key_of<K>(x, base + i * inner, direct);
        if constexpr (std::is_floating_point_v<K>) {
          if (std::isnan(k)) {
            nans.push_back(static_cast<int32_t>(i));
            continue;
          }
        }
        if (radix) {
          keys[m] = radix_key(k, descending);
          at[m++] = static_cast<int32_t>(i);
        } else {
          buf[m++] = Keyed<K>{k, static_cast<int32_t>(i)};
        }
      }
      // How many of the row's numbers the result takes: descending puts the NaNs first.
      const size_t lead = descending ? nans.size() : 0;
      const size_t want = static_cast<size_t>(kk) > lead ? std::min(m, static_cast<size_t>(kk) - lead) : 0;
      auto cmp = [descending](const Keyed<K>& a, const Keyed<K>& b) { return key_before(a, b, descending); };
      if (radix) {
        U* k2 = kbuf.get() + rn;
        int32_t* a2 = abuf.get() + rn;
        if (m) radix_sort(keys, at, k2, a2, m);  // leaves keys, at on the sorted buffers
      } else if (want < m) {
        std::partial_sort(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(want),
                          buf.begin() + static_cast<std::ptrdiff_t>(m), cmp);
      } else {
        std::sort(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(m), cmp);
      }
      int64_t w = 0;
      const int64_t obase = o * kk * inner + q;
      auto put = [&](int32_t i) {
        if (w < kk) dst[obase + (w++) * inner] = i;
      };
      if (descending)
        for (int32_t i : nans) put(i);
      for (size_t j = 0; j < want; ++j) put(radix ? at[j] : buf[j].at);
      if (!descending)
        for (int32_t i : nans) put(i);
    }
  };
  run_on_threads(par, worker);
  if (stopped) fault("E007", "interrupted");
}

}  // namespace

Value argsort_value(const Value& x, const Value& axis_v, const Value& desc_v, const Value* k_v,
                    const std::atomic<bool>* interrupt) {
  if (!x.is_tensor() || x.tensor_ref().rank() == 0)
    fault("E002", "argsort needs an array of numbers, found " + type_string(x));
  if (x.window.rows > 0 && x.window.rows != x.window.logical0)
    fault("E007", "argsort: a storage-windowed array reached the intrinsic (internal error)");
  if (desc_v.tag != Value::Tag::Bool) fault("E002", "argsort: the direction must be a bool");
  const Tensor& t = x.tensor_ref();
  int64_t axis = axis_v.as_i64();
  if (axis < 0) axis += t.rank();
  if (axis < 0 || axis >= t.rank())
    fault("E004", "argsort: axis " + std::to_string(axis_v.as_i64()) + " is out of range for rank " +
                      std::to_string(t.rank()));
  const int64_t n = t.dim(static_cast<int>(axis));
  if (n > std::numeric_limits<int32_t>::max())
    fault("E004", "argsort: an axis of " + std::to_string(n) + " elements does not fit i32 indices");
  int64_t outer = 1, inner = 1;
  for (int a = 0; a < t.rank(); ++a) {
    if (a < axis) outer *= t.dim(a);
    if (a > axis) inner *= t.dim(a);
  }
  // The first k positions of the order only (top-k), clamped to [0, n].
  int64_t kk = n;
  if (k_v) {
    if (!k_v->is_scalar() || k_v->tag == Value::Tag::Float || k_v->tag == Value::Tag::Bool)
      fault("E002", "argsort: k must be an integer");
    kk = std::clamp<int64_t>(k_v->as_i64(), 0, n);
  }
  std::vector<int64_t> shp = t.shape();
  shp[static_cast<size_t>(axis)] = kk;
  Tensor out = Tensor::alloc_overwritten(DType::I32, shp);
  if (out.size() > 0) {
    const bool d = desc_v.b;
    switch (t.dtype()) {
      case DType::F32: order_rows<float>(t, out, outer, n, inner, kk, d, interrupt); break;
      case DType::F64:
      case DType::F16:
      case DType::BF16: order_rows<double>(t, out, outer, n, inner, kk, d, interrupt); break;
      case DType::I64: order_rows<int64_t>(t, out, outer, n, inner, kk, d, interrupt); break;
      case DType::I8:
      case DType::I32:
      case DType::Bool: order_rows<int32_t>(t, out, outer, n, inner, kk, d, interrupt); break;
    }
  }
  return Value::tensor(out);
}

}  // namespace ein
