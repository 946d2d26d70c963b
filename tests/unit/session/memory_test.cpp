// A long session holds what its bindings hold and nothing more (issue 20, engine/session/
// release.h): heap in use after many small cells stays where it was after the first few hundred,
// rebinding a large tensor keeps one copy of it, and what a later binding, function or closure
// still reads survives the release.
//
// What is counted: bytes in live objects made by `new` that are smaller than 64 KiB (this test
// binary replaces the global operator new/delete to count them), i.e. everything a cell makes
// on its own -- its text, DefInfos, trees, analyses, map nodes. Left out are the few tables that
// grow by one slot a cell (the source map's file entries, the resolver's pointer per
// definition; ~100 bytes a cell, measured as RSS by the kernel's long-session test), which
// double in steps, and malloc's own bookkeeping, which depends on what earlier tests of the
// process freed (mallinfo gave 20 bytes a cell alone and 200 after other tests).
#include <gtest/gtest.h>
#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include "engine/session/session.h"
#include "engine/value/value.h"

namespace {
std::atomic<long long> g_small_bytes{0};
constexpr size_t kSmall = size_t(64) << 10;
void* counted_new(size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  if (size_t u = malloc_usable_size(p); u < kSmall) g_small_bytes += static_cast<long long>(u);
  return p;
}
void counted_delete(void* p) noexcept {
  if (!p) return;
  if (size_t u = malloc_usable_size(p); u < kSmall) g_small_bytes -= static_cast<long long>(u);
  std::free(p);
}
}  // namespace

void* operator new(size_t n) { return counted_new(n); }
void* operator new[](size_t n) { return counted_new(n); }
void operator delete(void* p) noexcept { counted_delete(p); }
void operator delete[](void* p) noexcept { counted_delete(p); }
void operator delete(void* p, size_t) noexcept { counted_delete(p); }
void operator delete[](void* p, size_t) noexcept { counted_delete(p); }

namespace ein {
namespace {

long long heap_in_use() { return g_small_bytes.load(); }
// Everything malloc has handed out, big blocks included: for the large tensor below.
long long heap_total() {
  struct mallinfo2 m = mallinfo2();
  return static_cast<long long>(m.uordblks + m.hblkhd);
}

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
  long long h0 = heap_in_use();
  const int n = 3000;
  for (int i = 0; i < n; ++i) q.s->execute(kinds[i % std::size(kinds)]);
  double per_cell = (double(heap_in_use()) - double(h0)) / n;
  RecordProperty("bytes_per_cell", std::to_string(per_cell));
  // Before the release of shadowed bindings, every cell kept ~6 KB (their values and recorded
  // analyses); before the release of old cells, ~500 bytes (the cell's text, the DefInfo of
  // every name it made, a dead function's resolved body). Issue 20 allows 2 MB over 9500 cells
  // (~220 bytes a cell) for the whole kernel.
  EXPECT_LT(per_cell, 100.0);
}

// Each kind of cell alone: what one cell leaves once the next ones shadow it. A redefined
// function kept its whole resolved body (1.3 KB a cell), a recurrence ~300 bytes.
TEST(SessionMemory, EachKindOfCellIsReleased) {
  const char* kinds[] = {"let a = 1;", "1 + 1", "nope + 1", "fn f(x) { x + 1 } f(2)", "let g = |x| x * 2; g(3)",
                         "let r[0] = 1.0; let r[t in 1..20] = r[t - 1] * 0.5; r[19]",
                         "let v = [1.0, 2.0]; let w[i] = v[i] * 2.0; sum[i](w[i])", "fn h(x) { x + 1 } h(\"s\")"};
  for (const char* kind : kinds) {
    Quiet q;
    for (int i = 0; i < 200; ++i) q.s->execute(kind);
    long long h0 = heap_in_use();
    const int n = 1000;
    for (int i = 0; i < n; ++i) q.s->execute(kind);
    double per_cell = (double(heap_in_use()) - double(h0)) / n;
    EXPECT_LT(per_cell, 100.0) << kind;
  }
}

// A binding that is still reachable keeps its cell: its text (for ?name and %who), its
// definitions, and what its functions read, however many cells come after it.
TEST(SessionMemory, LiveCellsKeepTheirTextAndDefinitions) {
  Quiet q;
  q.run("let kept = [1.5, 2.5];\nfn twice(x) { let y = x * 2.0; y }");
  for (int i = 0; i < 300; ++i) q.s->execute("let other = " + std::to_string(i) + ";\nfn f(x) { x }");
  auto ni = q.s->name_info("kept");
  ASSERT_TRUE(ni.has_value());
  EXPECT_NE(ni->source.find("let kept = [1.5, 2.5];"), std::string::npos) << ni->source;
  auto fi = q.s->name_info("twice");
  ASSERT_TRUE(fi.has_value());
  EXPECT_NE(fi->source.find("fn twice(x)"), std::string::npos) << fi->source;
  EXPECT_EQ(q.run("twice(kept[1])"), "5.0");
  // A diagnostic about the old function still points into its (kept) text.
  ExecuteResult bad = q.s->execute("twice(1.0, 2.0)");
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.cell.rendered.find("E002"), std::string::npos) << bad.cell.rendered;
  EXPECT_EQ(q.run("other"), "299");
}

TEST(SessionMemory, RebindingALargeTensorHoldsOneCopy) {
  Quiet q;
  const std::string cell = "let big[i in 0..1000000] = (i % 7) as f64;\nbig[999998]";  // 8 MB
  EXPECT_EQ(q.run(cell), "6.0");
  long long h1 = heap_total();
  for (int i = 0; i < 19; ++i) EXPECT_EQ(q.run(cell), "6.0");
  double grown_mb = (double(heap_total()) - double(h1)) / (1 << 20);
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
