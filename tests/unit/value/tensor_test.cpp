// Tensor storage: allocation checks, memory accounting, views, element access, copies, casts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "engine/value/value.h"

namespace ein {
namespace {

std::string fault_code(const std::function<void()>& fn, std::string* msg = nullptr) {
  try {
    fn();
  } catch (const Fault& f) {
    if (msg) *msg = f.what();
    return f.code;
  }
  return "none";
}

// Restores the process-wide limit even when an assertion fails mid-test.
struct LimitGuard {
  int64_t saved = memory_limit();
  ~LimitGuard() { set_memory_limit(saved); }
};

TEST(ValueTensor, AllocZeroFilledAndShape) {
  Tensor t = Tensor::alloc(DType::F32, {2, 3});
  EXPECT_EQ(t.rank(), 2);
  EXPECT_EQ(t.size(), 6);
  EXPECT_EQ(t.dim(1), 3);
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{3, 1}));
  for (int64_t k = 0; k < 6; ++k) EXPECT_EQ(t.get_f64(k), 0.0);
  Tensor s = Tensor::alloc(DType::I64, {});
  EXPECT_EQ(s.size(), 1);
  EXPECT_EQ(s.rank(), 0);
  Tensor e = Tensor::alloc(DType::F64, {0, 5});
  EXPECT_EQ(e.size(), 0);
  EXPECT_EQ(Tensor::scalar_tensor(DType::F64, 2.5).get_f64(0), 2.5);
}

TEST(ValueTensor, LargeBuffersAreZeroAlignedAndZeroAgainWhenReused) {
  // Buffers of 2 MiB and more are mapped directly (2 MiB aligned, huge-page advice); freed ones
  // are cached and must come back zeroed.
  const int64_t n = (int64_t{3} << 20) / 8 + 5;  // a little over 3 MiB of f64
  for (int round = 0; round < 3; ++round) {
    Tensor t = Tensor::alloc(DType::F64, {n});
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % (uintptr_t{2} << 20), 0u);
    double* d = t.data_as<double>();
    bool zero = true;
    for (int64_t k = 0; k < n; k += 4093) zero = zero && d[k] == 0.0;
    zero = zero && d[n - 1] == 0.0;
    EXPECT_TRUE(zero) << "round " << round;
    for (int64_t k = 0; k < n; ++k) d[k] = 1.5;  // dirty it for the next round
  }
  // A different size after the cached one: still zero, still usable to the last element.
  Tensor u = Tensor::alloc(DType::I32, {(int64_t{5} << 20) / 4});
  EXPECT_EQ(u.get_i64(u.size() - 1), 0);
}

TEST(ValueTensor, MidSizeBuffersShareChunksDoNotOverlapAndComeBackZeroed) {
  // 64 KiB to 2 MiB: slots of shared huge-page chunks (mid_arena.cpp). Blocks alive together
  // never overlap, a freed block dirtied by its owner is zero again for the next alloc, a block
  // allocated to be overwritten may hold anything but is usable to its last element.
  const std::vector<int64_t> sizes = {64 << 10, (64 << 10) + 1, 160000, 800000, (2 << 20) - 8, 100000};
  for (int round = 0; round < 3; ++round) {
    std::vector<Tensor> live;
    for (int64_t bytes : sizes) live.push_back(Tensor::alloc(DType::I8, {bytes}));
    for (size_t a = 0; a < live.size(); ++a) {
      const auto* p = static_cast<const unsigned char*>(live[a].data());
      bool zero = true;
      for (int64_t k = 0; k < live[a].size(); k += 509) zero = zero && p[k] == 0;
      zero = zero && p[live[a].size() - 1] == 0;
      EXPECT_TRUE(zero) << "round " << round << " size " << sizes[a];
      for (size_t b = 0; b < a; ++b) {
        auto lo = [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data()); };
        bool apart = lo(live[a]) + live[a].size() <= lo(live[b]) || lo(live[b]) + live[b].size() <= lo(live[a]);
        EXPECT_TRUE(apart) << sizes[a] << " overlaps " << sizes[b];
      }
    }
    for (auto& t : live) std::memset(t.data(), 0xab, static_cast<size_t>(t.size()));  // dirty for the next round
    Tensor w = Tensor::alloc_overwritten(DType::F64, {20000});
    w.data_as<double>()[19999] = 2.5;
    EXPECT_EQ(w.get_f64(19999), 2.5);
  }
  // Many blocks at once (more than one chunk), freed in an interleaved order, then again.
  for (int round = 0; round < 2; ++round) {
    std::vector<Tensor> many;
    for (int k = 0; k < 40; ++k) many.push_back(Tensor::alloc(DType::F32, {40000 + 1000 * k}));
    for (size_t k = 0; k < many.size(); k += 2) many[k] = Tensor();
    for (int k = 0; k < 20; ++k) {
      Tensor t = Tensor::alloc(DType::F32, {30000});
      EXPECT_EQ(t.get_f64(29999), 0.0);
      EXPECT_EQ(t.get_f64(0), 0.0);
      t.data_as<float>()[0] = 7.0f;
    }
  }
}

TEST(ValueTensor, StoreConvertsToDtype) {
  Tensor h = Tensor::alloc(DType::F16, {2});
  h.set_f64(0, 1.0 / 3.0);
  EXPECT_EQ(h.get_f64(0), round_to_float_dtype(1.0 / 3.0, DType::F16));
  h.set_f64(1, 1e6);
  EXPECT_TRUE(std::isinf(h.get_f64(1)));
  Tensor b = Tensor::alloc(DType::BF16, {1});
  b.set_f64(0, 1.0 / 3.0);
  EXPECT_EQ(b.get_f64(0), round_to_float_dtype(1.0 / 3.0, DType::BF16));
  Tensor i = Tensor::alloc(DType::I8, {3});
  i.set_i64(0, 300);   // wraps like `as`
  i.set_f64(1, 1e9);   // saturates like `as`
  i.set_f64(2, NAN);   // NaN -> 0
  EXPECT_EQ(i.get_i64(0), 44);
  EXPECT_EQ(i.get_i64(1), 127);
  EXPECT_EQ(i.get_i64(2), 0);
  Tensor bo = Tensor::alloc(DType::Bool, {2});
  bo.set_f64(0, 0.5);
  EXPECT_TRUE(bo.get_bool(0));
  EXPECT_FALSE(bo.get_bool(1));
  Tensor f = Tensor::alloc(DType::F32, {1});
  f.set_f64(0, NAN);
  EXPECT_EQ(f.get_i64(0), 0);
}

TEST(ValueTensor, RowViewsShareStorage) {
  Tensor m = Tensor::alloc(DType::I32, {3, 2});
  for (int64_t k = 0; k < 6; ++k) m.set_i64(k, k * 10);
  Tensor r = m.row(1);
  EXPECT_EQ(r.shape(), (std::vector<int64_t>{2}));
  EXPECT_EQ(r.get_i64(0), 20);
  EXPECT_EQ(r.get_i64(1), 30);
  r.set_i64(0, 99);  // shared storage: visible through the parent
  EXPECT_EQ(m.get_i64(2), 99);
  Tensor e = m.row(2).row(1);
  EXPECT_EQ(e.rank(), 0);
  EXPECT_EQ(e.get_i64(0), 50);
  std::string msg;
  EXPECT_EQ(fault_code([&] { m.row(3); }, &msg), "E005");
  EXPECT_NE(msg.find("3"), std::string::npos);
  EXPECT_EQ(fault_code([&] { m.row(-1); }), "E005");
  EXPECT_EQ(fault_code([&] { e.row(0); }), "E005");
  // A view keeps its storage alive after the parent is gone.
  Tensor keep;
  {
    Tensor tmp = Tensor::alloc(DType::F64, {2, 2});
    tmp.set_f64(3, 7.5);
    keep = tmp.row(1);
  }
  EXPECT_EQ(keep.get_f64(1), 7.5);
  Tensor z = Tensor::alloc(DType::F32, {4, 0});
  EXPECT_EQ(z.row(3).size(), 0);
}

TEST(ValueTensor, ReshapeCopyCast) {
  Tensor v = Tensor::alloc(DType::F64, {6});
  for (int64_t k = 0; k < 6; ++k) v.set_f64(k, k + 0.5);
  Tensor m = v.reshaped({2, 3});
  EXPECT_EQ(m.row(1).get_f64(0), 3.5);
  EXPECT_EQ(m.data(), v.data());
  EXPECT_EQ(fault_code([&] { v.reshaped({4, 2}); }), "E004");
  EXPECT_EQ(fault_code([&] { v.reshaped({-2, -3}); }), "E006");
  Tensor c = m.row(1).copy();
  EXPECT_NE(c.data(), m.row(1).data());
  c.set_f64(0, -1);
  EXPECT_EQ(m.get_f64(3), 3.5);
  EXPECT_EQ(c.get_f64(2), 5.5);
  Tensor ci = m.cast(DType::I32);
  EXPECT_EQ(ci.dtype(), DType::I32);
  EXPECT_EQ(ci.shape(), m.shape());
  EXPECT_EQ(ci.get_i64(5), 5);
  Tensor neg = Tensor::alloc(DType::F32, {1});
  neg.set_f64(0, -2.9);
  EXPECT_EQ(neg.cast(DType::I64).get_i64(0), -2);
}

TEST(ValueTensor, ExtentChecks) {
  std::string msg;
  EXPECT_EQ(fault_code([] { Tensor::alloc(DType::F32, {2, -1}); }), "E006");
  EXPECT_EQ(fault_code([] { Tensor::alloc(DType::F32, {int64_t(1) << 40, int64_t(1) << 40}); }, &msg),
            "E008");
  EXPECT_EQ(fault_code([] { Tensor::alloc(DType::F64, {INT64_MAX / 4}); }), "E008");
  // A zero extent makes the product 0 even if other extents are huge.
  EXPECT_EQ(Tensor::alloc(DType::F32, {0, INT64_MAX, INT64_MAX}).size(), 0);
}

TEST(ValueTensor, MemoryLimitAndAccounting) {
  LimitGuard guard;
  const int64_t base = memory_in_use();
  {
    Tensor t = Tensor::alloc(DType::F64, {100});
    EXPECT_EQ(memory_in_use(), base + 800);
    Tensor view = t.row(5);
    EXPECT_EQ(memory_in_use(), base + 800);  // views do not allocate
  }
  EXPECT_EQ(memory_in_use(), base);
  set_memory_limit(base + 1000);
  EXPECT_EQ(memory_limit(), base + 1000);
  Tensor ok = Tensor::alloc(DType::F32, {250});  // exactly at the limit
  std::string msg;
  EXPECT_EQ(fault_code([] { Tensor::alloc(DType::I8, {1}); }, &msg), "E008");
  EXPECT_EQ(msg, "allocation of 1 bytes (shape [1]) exceeds the memory limit of " +
                     std::to_string(base + 1000) + " bytes (EIN_MAX_MEMORY)");
  EXPECT_EQ(memory_in_use(), base + 1000);  // the failed request left no trace
  EXPECT_EQ(fault_code([] { Tensor::alloc(DType::F64, {100000, 100000, 100000}); }), "E008");
  EXPECT_EQ(fault_code([&] { (void)ok.copy(); }), "E008");
}

TEST(ValueTensor, DefaultConstructedFaultsInsteadOfCrashing) {
  Value v = Value::tensor(Tensor());
  EXPECT_EQ(fault_code([&] { format_value(v); }), "E006");
  EXPECT_EQ(fault_code([&] { reduce_all(ir::ReduceOp::Sum, v); }), "E006");
  EXPECT_EQ(fault_code([&] { binary_op(ir::BinOp::Add, v, v); }), "E006");
  EXPECT_EQ(fault_code([&] { math1(MathFn::Sqrt, v); }), "E006");
  EXPECT_EQ(fault_code([&] { Tensor().copy(); }), "E006");
  EXPECT_EQ(fault_code([&] { Tensor().cast(DType::I32); }), "E006");
  EXPECT_EQ(fault_code([&] { make_array({v}, DType::F32); }), "E006");
  EXPECT_EQ(fault_code([&] { Tensor().row(0); }), "E005");
}

TEST(ValueTensor, ElementAccessThroughValues) {
  Tensor t = Tensor::alloc(DType::I8, {2});
  tensor_set(t, 0, Value::integer(-5, DType::I8));
  tensor_set(t, 1, Value::floating(3.9, DType::F32));
  Value a = tensor_get(t, 0);
  EXPECT_EQ(a.tag, Value::Tag::Int);
  EXPECT_EQ(a.dt, DType::I8);
  EXPECT_EQ(a.i, -5);
  EXPECT_EQ(tensor_get(t, 1).i, 3);
  EXPECT_EQ(fault_code([&] { tensor_get(t, 2); }), "E005");
  EXPECT_EQ(fault_code([&] { tensor_set(t, -1, Value::integer(1)); }), "E005");
  EXPECT_EQ(fault_code([&] { tensor_set(t, 0, Value::string("x")); }), "E002");
  Tensor b = Tensor::alloc(DType::Bool, {1});
  tensor_set(b, 0, Value::boolean(true));
  EXPECT_EQ(tensor_get(b, 0).tag, Value::Tag::Bool);
  EXPECT_TRUE(tensor_get(b, 0).b);
  Tensor f = Tensor::alloc(DType::F16, {1});
  tensor_set(f, 0, Value::floating(0.1, DType::F64));
  EXPECT_EQ(tensor_get(f, 0).dt, DType::F16);
  EXPECT_EQ(format_value(tensor_get(f, 0)), "0.1");
}

}  // namespace
}  // namespace ein
