// Progress of long cells (engine/session/progress_monitor.h, engine/interp/progress.h): what the
// running cell reports, how a front end's line is worded and fitted, the monitor's show/hide
// protocol, and that generated kernels carry the progress stores. Nothing here measures time:
// the long cell is interrupted as soon as its progress has been seen.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "engine/session/progress_monitor.h"
#include "tests/unit/commands/command_helpers.h"

namespace ein::testing_commands {
namespace {

using namespace std::chrono_literals;

size_t columns(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Runs `code` on another thread, waits (up to a minute) until `seen` holds for a snapshot,
// interrupts the cell and returns that snapshot and the cell's result.
std::pair<ProgressSnapshot, CellResult> watch(Session& s, const std::string& code,
                                              const std::function<bool(const ProgressSnapshot&)>& seen) {
  CellResult r;
  std::thread cell([&] { r = s.run_cell(code); });
  ProgressSnapshot p;
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    p = s.progress();
    if (seen(p)) break;
    std::this_thread::sleep_for(5ms);
  }
  s.interrupt();
  cell.join();
  return {p, r};
}

const char* kLong =
    "let kept = 1;\n"
    "let y = {\n"
    "  let x[0] = 0.0;\n"
    "  let x[t in 1..2000000000] = x[t - 1] + 1.0 / (1.0 + x[t - 1] * x[t - 1]);\n"
    "  x[1999999999]\n"
    "};";

TEST(Progress, TheInterpreterReportsTheRecurrenceItIsIn) {
  TestSession t;
  auto [p, r] = watch(t.s, kLong, [](const ProgressSnapshot& p) { return p.running && p.done > 1000; });
  ASSERT_TRUE(p.running);
  EXPECT_EQ(p.line, 4);  // the recurrence's clause, not the block's first line
  EXPECT_EQ(p.statement, "  let x[t in 1..2000000000] = x[t - 1] + 1.0 / (1.0 + x[t - 1] * x[t - 1]);");
  EXPECT_EQ(p.total, 1999999999);
  EXPECT_GT(p.done, 1000);
  EXPECT_LT(p.done, p.total);
  EXPECT_FALSE(p.compiling);
  EXPECT_FALSE(r.ok);
  ASSERT_FALSE(r.diags.empty());
  EXPECT_EQ(r.diags[0].code, "E007");
  // Idle again, and the next cell starts from nothing.
  EXPECT_FALSE(t.s.progress().running);
  EXPECT_TRUE(t.s.run_cell("kept + 1").ok);
  EXPECT_FALSE(t.s.progress().running);
}

// %timeit and %plot run code inside a block (CellOptions::as_block): the progress shows the code
// as written, on its own line numbers, never the wrapper.
TEST(Progress, CodeRunAsABlockShowsItselfNotTheWrapper) {
  TestSession t;
  ein::CellOptions co;
  co.as_block = true;
  const std::string code = "let x[0] = 0.0; let x[t in 1..2000000000] = x[t - 1] * 0.5 + 1.0; x[9]";
  ein::CellResult r;
  std::thread cell([&] { r = t.s.run_cell(code, co); });
  ProgressSnapshot p;
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline && !(p.running && p.done > 1000)) {
    p = t.s.progress();
    std::this_thread::sleep_for(5ms);
  }
  t.s.interrupt();
  cell.join();
  EXPECT_EQ(p.line, 1);
  EXPECT_EQ(p.statement, code);
  EXPECT_FALSE(r.ok);
  // Its lets stayed local.
  EXPECT_FALSE(t.s.run_cell("x").ok);
}

// A function called inside a loop must not reset the statement's count: the outer loop's
// iterations are what is reported, not the callee's.
TEST(Progress, OnlyTheOutermostLoopCounts) {
  TestSession t;
  const char* code =
      "fn inner(n) { let v[i in 0..10] = (i + n) as f32; sum[i](v[i]) }\n"
      "let w[j in 0..10000000] = inner(j);";
  auto [p, r] = watch(t.s, code, [](const ProgressSnapshot& p) { return p.running && p.done > 50; });
  EXPECT_EQ(p.line, 2);
  EXPECT_EQ(p.total, 10000000);
  EXPECT_GT(p.done, 50);
  EXPECT_FALSE(r.ok);
}

TEST(Progress, TheLineShowsStatementBarCountsAndTime) {
  ProgressSnapshot p;
  p.running = true;
  p.line = 3;
  p.statement = "  let x[t in 1..2000000000] = x[t - 1] * 0.5;";
  p.done = 500000000;
  p.total = 2000000000;
  std::string text = progress_text(p, 4.25, 120);
  EXPECT_NE(text.find("line 3: let x[t in 1..2000000000] = x[t - 1] * 0.5;"), std::string::npos) << text;
  EXPECT_NE(text.find("[\u2588\u2588\u2588\u2588\u2588\u2591"), std::string::npos) << text;  // 5 of 20
  EXPECT_NE(text.find(" 25%  500M/2.00G \u00b7 4.2 s"), std::string::npos) << text;
  EXPECT_EQ(text.find('\n'), std::string::npos);
  // A narrow terminal cuts the statement, never the numbers, and the line fits.
  std::string narrow = progress_text(p, 4.25, 70);
  EXPECT_LE(columns(narrow), 69u) << narrow;
  EXPECT_NE(narrow.find("\u2026"), std::string::npos) << narrow;
  EXPECT_NE(narrow.find(" 25%  500M/2.00G"), std::string::npos) << narrow;
  // No loop: no bar. The C++ compiler running: said so. A command's label comes first.
  p.total = 0;
  EXPECT_EQ(progress_text(p, 1.5, 120).find("\u2591"), std::string::npos);
  EXPECT_EQ(progress_text(p, 1.5, 120).find('%'), std::string::npos);
  p.compiling = true;
  EXPECT_EQ(progress_text(p, 1.5, 120), "compiling native kernels \u00b7 1.5 s");
  p.compiling = false;
  p.label = "%timeit: run 3 of 7 \u00b7 loop 2 of 5";
  p.statement = "x * 2";
  p.line = 1;
  EXPECT_EQ(progress_text(p, 75, 120), "%timeit: run 3 of 7 \u00b7 loop 2 of 5 \u00b7 line 1: x * 2 \u00b7 1 min 15 s");
  // HTML: a <progress> element and escaped text.
  p.total = 10;
  p.done = 4;
  p.statement = "a < b";
  std::string html = progress_html(p, 2.0);
  EXPECT_NE(html.find("<progress max=\"10\" value=\"4\"></progress> 40%"), std::string::npos) << html;
  EXPECT_NE(html.find("a &lt; b"), std::string::npos) << html;
}

// The monitor shows nothing for an input shorter than its delay, shows and then hides a longer
// one, and hides before end() returns.
TEST(Progress, MonitorShowsOnlyLongInputsAndHidesBeforeEndReturns) {
  TestSession t;
  std::atomic<int> shows{0}, hides{0};
  std::atomic<bool> visible{false};
  ProgressMonitor m(t.s,
                    ProgressMonitor::View{[&](const ProgressSnapshot&, double) {
                                            ++shows;
                                            visible = true;
                                          },
                                          [&] {
                                            ++hides;
                                            visible = false;
                                          }},
                    200ms, 10ms);
  for (int i = 0; i < 100; ++i) {  // short inputs, many of them
    m.begin();
    m.end();
  }
  EXPECT_EQ(shows.load(), 0);
  EXPECT_EQ(hides.load(), 0);
  m.begin();
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (shows.load() < 3 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
  EXPECT_GE(shows.load(), 3);
  m.end();
  EXPECT_FALSE(visible.load());
  EXPECT_EQ(hides.load(), 1);
}

TEST(Progress, KernelsStoreTheirOutermostLoopsProgress) {
  TestSession t;
  ExecuteResult r = t.term(
      "%ir kernel { let x[0] = 0.0; let x[t in 1..100000] = x[t - 1] * 0.5 + 1.0; "
      "let u[t in 0..1000, i in 0..1000] = (t + i) as f32; x[99999] + u[3, 4] }");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_NE(r.text.find("ein_progress_total(A, "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("ein_progress(A, "), std::string::npos) << r.text;
}

}  // namespace
}  // namespace ein::testing_commands
