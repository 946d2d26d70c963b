// %time, %timeit and the phase grouping behind `ein --timings`. No assertion depends on how long
// anything took: only on which rows exist and how they add up.
#include <gtest/gtest.h>

#include <regex>

#include "engine/session/commands.h"
#include "tests/unit/commands/command_helpers.h"

namespace ein::testing_commands {
namespace {

CellResult synthetic() {
  CellResult r;
  r.timings = {{"parse", 1},           {"resolve", 2},        {"group_einstein", 4},
               {"check_match", 8},     {"lower_einstein", 16}, {"frame_layout", 32},
               {"codegen", 64},        {"check_match", 0.5},  {"load", 1024},
               {"run", 384}};  // 256 of it in the compiler
  r.compile_ms = 256;
  r.kernel_hits = 3;
  r.kernel_misses = 2;
  r.stmt_ms = {{1, 0.5}, {4, 0.25}};
  return r;
}

TEST(CommandTime, PhasesAreGroupedByPipelinePosition) {
  cmd::Phases p = cmd::group_phases(synthetic());
  EXPECT_DOUBLE_EQ(p.parse, 1);
  EXPECT_DOUBLE_EQ(p.analysis, 2 + 4 + 8 + 0.5);
  EXPECT_DOUBLE_EQ(p.lowering, 16 + 32);
  EXPECT_DOUBLE_EQ(p.codegen, 64);
  EXPECT_DOUBLE_EQ(p.compile, 256);
  EXPECT_DOUBLE_EQ(p.load, 1024);
  EXPECT_DOUBLE_EQ(p.run, 384 - 256);
  EXPECT_DOUBLE_EQ(p.total(), 1535.5);
}

TEST(CommandTime, TimingsReportFormat) {
  std::string rep = cmd::timings_report(synthetic());
  EXPECT_EQ(rep,
            "timing: parse 1.000 ms\n"
            "timing: analysis 14.500 ms\n"
            "timing: lowering 48.000 ms\n"
            "timing: codegen 64.000 ms\n"
            "timing: compile 256.000 ms\n"
            "timing: load 1024.000 ms\n"
            "timing: run 128.000 ms\n"
            "timing: session 0.000 ms\n"
            "timing: pass resolve 2.000 ms\n"
            "timing: pass group_einstein 4.000 ms\n"
            "timing: pass check_match 8.500 ms\n"
            "timing: pass lower_einstein 16.000 ms\n"
            "timing: pass frame_layout 32.000 ms\n"
            "timing: pass codegen 64.000 ms\n"
            "timing: stmt line=1 0.500 ms\n"
            "timing: stmt line=4 0.250 ms\n"
            "kernels: 3 hits, 2 misses, compile 256.000 ms\n");
}

TEST(CommandTime, TimeRunsOnceAndKeepsBindings) {
  TestSession t;
  ExecuteResult r = t.term("%time let w = [1.0, 2.0]; print(\"ran\"); w[1]");
  ASSERT_TRUE(r.ok) << r.error << r.cell.rendered;
  EXPECT_EQ(t.printed, "ran\n");
  ASSERT_TRUE(r.cell.value.has_value());
  EXPECT_EQ(format_value(*r.cell.value), "2.0");
  EXPECT_TRUE(t.has("w"));
  for (const char* row : {"parse", "analysis", "lowering", "codegen", "compile", "load", "run", "total", "kernels"})
    EXPECT_NE(r.text.find(row), std::string::npos) << row;
  std::regex line(R"(\nrun +[0-9]+\.[0-9]{3} ms\n)");
  EXPECT_TRUE(std::regex_search(r.text, line)) << r.text;
  EXPECT_NE(r.text.find("0 hits, 0 misses"), std::string::npos);
}

TEST(CommandTime, TimeGivesAnHtmlTableToNotebooks) {
  TestSession t;
  ExecuteResult r = t.rich("%time 1 + 2");
  ASSERT_TRUE(r.ok);
  EXPECT_TRUE(r.text.empty());
  const std::string* html = mime(r, "text/html");
  ASSERT_NE(html, nullptr);
  EXPECT_NE(html->find("<th>phase</th>"), std::string::npos);
  EXPECT_NE(html->find("<td>lowering</td>"), std::string::npos);
  const std::string* plain = mime(r, "text/plain");
  ASSERT_NE(plain, nullptr);
  EXPECT_NE(plain->find("lowering"), std::string::npos);
}

TEST(CommandTime, TimeOfBrokenCodeShowsTheDiagnostic) {
  TestSession t;
  ExecuteResult r = t.term("%time 1 + undefined_thing");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.cell.rendered.find("E003"), std::string::npos);
}

TEST(CommandTime, TimeitReportsMeanStdAndBestWithoutBindings) {
  TestSession t;
  t.term("let base = [1.0, 2.0, 3.0];");
  // One notebook-style run (each %timeit takes a few seconds): the text/plain of its display is
  // what a terminal would print.
  ExecuteResult r = t.rich("%timeit let tmp = base[2] * 2.0; tmp");
  ASSERT_TRUE(r.ok) << r.error << r.cell.rendered;
  const std::string* text = mime(r, "text/plain");
  ASSERT_NE(text, nullptr);
  std::regex summary(
      R"(^[0-9.]+ (ns|µs|ms|s) ± [0-9.]+ (ns|µs|ms|s) per loop \(mean ± std\. dev\. of 7 runs, [0-9]+ loops? each\); best [0-9.]+ (ns|µs|ms|s)\n)");
  EXPECT_TRUE(std::regex_search(*text, summary)) << *text;
  const std::string* html = mime(r, "text/html");
  ASSERT_NE(html, nullptr);
  EXPECT_NE(html->find("<th>best</th>"), std::string::npos);
  EXPECT_FALSE(t.has("tmp")) << "%timeit must not leave bindings";
}

TEST(CommandTime, TimeitStopsAtTheFirstError) {
  TestSession t;
  ExecuteResult compile = t.term("%timeit 1 + nowhere");
  EXPECT_FALSE(compile.ok);
  EXPECT_NE(compile.cell.rendered.find("E003"), std::string::npos);
  EXPECT_NE(compile.cell.rendered.find("1 + nowhere"), std::string::npos);
  ExecuteResult run = t.term("%timeit assert(false, \"boom\")");
  EXPECT_FALSE(run.ok);
  EXPECT_NE(run.cell.rendered.find("boom"), std::string::npos);
}

}  // namespace
}  // namespace ein::testing_commands
