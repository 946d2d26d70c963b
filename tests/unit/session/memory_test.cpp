// A long session holds what its bindings hold and nothing more (issue 20, engine/session/
// release.h): heap in use after many small cells stays where it was after the first few hundred,
// rebinding a large tensor keeps one copy of it, and what a later binding, function or closure
// still reads survives the release. Heap is measured with mallinfo2 (bytes the allocator has
// handed out), which, unlike RSS, does not depend on what the allocator keeps cached.
#include <gtest/gtest.h>
#include <malloc.h>

#include <string>

#include "engine/session/session.h"
#include "engine/value/value.h"

namespace ein {
namespace {

size_t heap_in_use() { return mallinfo2().uordblks; }

struct Quiet {
  Quiet() {
    SessionOptions o;
    o.out = [this](const std::string& t) { out += t; };
    o.jit = "never";
    s = std::make_unique<Session>(o);
  }
  std::string run(const std::string& code) {
    out.clear();
    ExecuteResult r = s->execute(code);
    EXPECT_TRUE(r.ok) << code << "\n" << r.cell.rendered << r.error;
    return r.cell.value ? format_value(*r.cell.value) : out;
  }
  std::string out;
  std::unique_ptr<Session> s;
};

TEST(SessionMemory, SmallCellsDoNotGrowTheHeap) {
  Quiet q;
  const char* kinds[] = {"1 + 1", "let a = 3;", "a * 2", "nope + 1", "let v = [1.0, 2.0, 3.0]; let w[i] = v[i] * 2.0; w",
                         "fn f(x) { x + a } f(2)", "let g = |x| x * a; g(3)",
                         "let x[0] = 1.0; let x[t in 1..50] = x[t - 1] * 0.5; x[49]", "let s = \"text {a}\"; s"};
  for (int i = 0; i < 300; ++i) q.s->execute(kinds[i % std::size(kinds)]);
  size_t h0 = heap_in_use();
  const int n = 3000;
  for (int i = 0; i < n; ++i) q.s->execute(kinds[i % std::size(kinds)]);
  double per_cell = (double(heap_in_use()) - double(h0)) / n;
  RecordProperty("bytes_per_cell", std::to_string(per_cell));
  // Before the release, every cell kept ~6 KB (shadowed values and their recorded analyses).
  // Issue 20 asks for 2 MB over 9500 cells (~220 bytes a cell); each cell still keeps its text
  // and its definitions' bookkeeping (release.h).
  EXPECT_LT(per_cell, 200.0);
}

TEST(SessionMemory, RebindingALargeTensorHoldsOneCopy) {
  Quiet q;
  const std::string cell = "let big[i in 0..1000000] = (i % 7) as f64;\nbig[999998]";  // 8 MB
  EXPECT_EQ(q.run(cell), "6.0");
  size_t h1 = heap_in_use();
  for (int i = 0; i < 19; ++i) EXPECT_EQ(q.run(cell), "6.0");
  double grown_mb = (double(heap_in_use()) - double(h1)) / (1 << 20);
  RecordProperty("grown_mb", std::to_string(grown_mb));
  EXPECT_LT(grown_mb, 4.0);  // one more copy would be 8 MB
}

TEST(SessionMemory, WhatIsStillReadSurvivesTheRelease) {
  Quiet q;
  q.run("let kept = [1.5, 2.5];");
  q.run("fn reads_kept() { kept[1] }");
  q.run("let scale = 3.0;");
  q.run("let times = |x| x * scale;");
  q.run("let later = kept;");
  q.run("let base = 10; let shifted[i in 0..3] = i + base;");
  // Shadow every name, several times, so that a sweep has run over each old cell.
  for (int i = 0; i < 3; ++i) {
    q.run("let kept = 0;");
    q.run("let scale = 0.0;");
    q.run("let base = 0;");
  }
  EXPECT_EQ(q.run("reads_kept()"), "2.5");
  EXPECT_EQ(q.run("times(2.0)"), "6.0");
  EXPECT_EQ(q.run("later[0]"), "1.5");
  EXPECT_EQ(q.run("shifted[2]"), "12");
  EXPECT_EQ(q.run("kept + base"), "0");
  // A derivative request reads the recorded definition of an earlier cell's binding.
  q.run("let xs = [1.0, 2.0, 3.0];");
  q.run("let y = sum[i](xs[i] * xs[i]);");
  q.run("let unrelated = 1;");
  q.run("let unrelated = 2;");
  EXPECT_EQ(q.run("@y / @xs"), "[2.0, 4.0, 6.0]");
}

}  // namespace
}  // namespace ein
