// Session::execute routing and the small commands: %help %who %reset %load %jit %cache, code
// pass-through, `%time on`, and errors that keep the session intact.
#include <gtest/gtest.h>

#include "engine/session/commands.h"
#include "tests/unit/commands/command_helpers.h"
#include "tests/unit/jit/jit_fixture.h"

namespace ein::testing_commands {
namespace {

TEST(CommandDispatch, CodeIsRunCell) {
  TestSession t;
  ExecuteResult r = t.term("let a = 2; print(a * 21); a + 1");
  EXPECT_FALSE(r.is_command);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(t.printed, "42\n");
  ASSERT_TRUE(r.cell.value.has_value());
  EXPECT_EQ(format_value(*r.cell.value), "3");
  EXPECT_TRUE(r.text.empty());
  EXPECT_TRUE(t.has("a"));
}

TEST(CommandDispatch, CodeErrorsAreCellErrors) {
  TestSession t;
  ExecuteResult r = t.term("let b = nope + 1;");
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.error.empty());
  EXPECT_TRUE(r.cell.compile_error);
  EXPECT_NE(r.cell.rendered.find("E003"), std::string::npos);
}

TEST(CommandDispatch, HelpListsEveryCommand) {
  TestSession t;
  ExecuteResult r = t.term("%help");
  EXPECT_TRUE(r.is_command);
  EXPECT_TRUE(r.ok);
  for (const char* name : {"%help", "%who", "%reset", "%load", "%ir", "%time", "%timeit", "%plot", "%doc",
                           "%cache", "%jit", "?NAME"})
    EXPECT_NE(r.text.find(name), std::string::npos) << name;
}

TEST(CommandDispatch, HelpForOneCommand) {
  TestSession t;
  ExecuteResult r = t.term("%help timeit");
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.text.rfind("%timeit CODE", 0), 0u) << r.text;
  EXPECT_FALSE(t.term("%help nosuch").ok);
}

TEST(CommandDispatch, UnknownCommandIsAnErrorNotACrash) {
  TestSession t;
  t.term("let keep = 7;");
  for (const char* bad : {"%frobnicate", "%", "%%", "%who2", "%who!", "%jit sometimes", "%cache purge",
                          "%reset now", "%who x", "%load", "%doc", "%doc 1 + 2", "?", "%time",
                          "%timeit", "%ir", "%plot"}) {
    ExecuteResult r = t.term(bad);
    EXPECT_FALSE(r.ok) << bad;
    EXPECT_TRUE(r.is_command) << bad;
    EXPECT_FALSE(r.error.empty()) << bad;
  }
  EXPECT_NE(t.term("%frobnicate").error.find("unknown command `%frobnicate`"), std::string::npos);
  // The session is intact.
  ExecuteResult r = t.term("keep");
  ASSERT_TRUE(r.cell.value.has_value());
  EXPECT_EQ(format_value(*r.cell.value), "7");
}

TEST(CommandDispatch, WhoListsBindingsWithTypesAndShapes) {
  TestSession t;
  EXPECT_EQ(t.term("%who").text, "no bindings\n");
  t.term("let M = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];");
  t.term("let n = 3;");
  t.term("fn scale(v, k: f32) -> f32 { v * k }");
  ExecuteResult r = t.term("%who");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_NE(r.text.find("M      let   [f32; 2, 3]"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("n      let   i32"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("scale  fn    fn scale(v, k: f32) -> f32"), std::string::npos) << r.text;
  // A notebook gets the same as an HTML table.
  ExecuteResult rich = t.rich("%who");
  EXPECT_TRUE(rich.text.empty());
  const std::string* html = mime(rich, "text/html");
  ASSERT_NE(html, nullptr);
  EXPECT_NE(html->find("<td>[f32; 2, 3]</td>"), std::string::npos);
}

TEST(CommandDispatch, ResetForgetsBindings) {
  TestSession t;
  t.term("let gone = 1;");
  EXPECT_TRUE(t.has("gone"));
  ExecuteResult r = t.term("%reset");
  EXPECT_TRUE(r.ok);
  EXPECT_FALSE(t.has("gone"));
  EXPECT_FALSE(t.term("gone").ok);
}

TEST(CommandDispatch, LoadRunsAFileInTheSession) {
  TempDir d;
  std::string f = d.write("prog.ein", "let loaded = [1, 2, 3];\nprint(len(loaded));\nloaded\n");
  TestSession t;
  ExecuteResult r = t.term("%load " + f);
  EXPECT_TRUE(r.ok) << r.error << r.cell.rendered;
  EXPECT_EQ(t.printed, "3\n");
  ASSERT_TRUE(r.cell.value.has_value());
  EXPECT_EQ(format_value(*r.cell.value), "[1, 2, 3]");
  EXPECT_TRUE(t.has("loaded"));

  ExecuteResult missing = t.term("%load " + d.path.string() + "/nope.ein");
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.error.find("cannot read"), std::string::npos);

  // Diagnostics of a loaded file name the file.
  std::string bad = d.write("bad.ein", "let z = 1;\nlet w = z + q;\n");
  ExecuteResult br = t.term("%load " + bad);
  EXPECT_FALSE(br.ok);
  EXPECT_NE(br.cell.rendered.find("bad.ein:2:13"), std::string::npos) << br.cell.rendered;
}

TEST(CommandDispatch, JitModeShowAndSet) {
  TestSession t;
  EXPECT_EQ(t.term("%jit").text, "jit mode: never\n");
  EXPECT_TRUE(t.term("%jit always").ok);
  EXPECT_EQ(t.s.jit_mode(), "always");
  EXPECT_EQ(t.term("%jit").text, "jit mode: always\n");
  ExecuteResult bad = t.term("%jit fast");
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(t.s.jit_mode(), "always");
}

TEST(CommandDispatch, CacheInfoAndClear) {
  // A private cache: `%cache clear` on the user's cache emptied it under every other ein
  // running on the machine, and their writes made the two `%cache info` reads differ.
  testing::TempDir dir;
  testing::ScopedEnv env;
  env.set("EIN_CACHE_DIR", dir.path());
  TestSession t;
  ExecuteResult info = t.term("%cache");
  EXPECT_TRUE(info.ok);
  EXPECT_NE(info.text.find(dir.path()), std::string::npos) << info.text;
  for (const char* row : {"directory", "kernels on disk", "size", "hits", "misses", "compile time"})
    EXPECT_NE(info.text.find(row), std::string::npos) << row;
  EXPECT_EQ(t.term("%cache info").text, info.text);
  ExecuteResult clear = t.term("%cache clear");
  EXPECT_TRUE(clear.ok);
  EXPECT_EQ(clear.text, "kernel cache cleared\n");
}

TEST(CommandDispatch, TimeOnReportsAfterEveryCell) {
  TestSession t;
  EXPECT_EQ(t.term("%time on").text, "timings after every cell: on\n");
  ExecuteResult r = t.term("1 + 1");
  EXPECT_NE(r.text.find("parse"), std::string::npos);
  EXPECT_NE(r.text.find("total"), std::string::npos);
  ExecuteResult rich = t.rich("2 + 2");
  EXPECT_NE(mime(rich, "text/html"), nullptr);
  t.term("%time off");
  EXPECT_TRUE(t.term("1 + 1").text.empty());
}

TEST(CommandDispatch, IsCompleteInput) {
  TestSession t;
  EXPECT_EQ(t.s.is_complete_input("let x = [1,"), "incomplete");
  EXPECT_EQ(t.s.is_complete_input("%who"), "complete");
  EXPECT_EQ(t.s.is_complete_input("%time fn f(x) {"), "incomplete");
  EXPECT_EQ(t.s.is_complete_input("%ir lowered fn f(x) {"), "incomplete");
  EXPECT_EQ(t.s.is_complete_input("%ir lowered fn f(x) { x }"), "complete");
  EXPECT_EQ(t.s.is_complete_input("%help ("), "complete");  // no code argument
  EXPECT_EQ(t.s.is_complete_input("?print"), "complete");
  EXPECT_EQ(t.s.is_complete_input("1 + 2"), "complete");
}

TEST(CommandHelpers, Durations) {
  EXPECT_EQ(cmd::format_duration(0), "0 ms");
  EXPECT_EQ(cmd::format_duration(0.0000123), "12.3 ns");
  EXPECT_EQ(cmd::format_duration(0.5), "500 µs");
  EXPECT_EQ(cmd::format_duration(1.5), "1.50 ms");
  EXPECT_EQ(cmd::format_duration(2500), "2.50 s");
  EXPECT_TRUE(cmd::is_identifier_path("std::math::sin"));
  EXPECT_FALSE(cmd::is_identifier_path("std::"));
  EXPECT_FALSE(cmd::is_identifier_path("a b"));
  EXPECT_EQ(cmd::html_escape("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
}

}  // namespace
}  // namespace ein::testing_commands

namespace ein::testing_commands {
namespace {

// %history keeps what the kernel's history keeps: the newest 1000 inputs (issue 20: a long
// session's memory stays flat), in order, by their In [N] numbers.
TEST(CommandHistory, KeepsTheNewestThousandInputs) {
  TestSession t;
  for (int n = 1; n <= 1205; ++n) {
    ExecuteOptions o;
    o.number = n;
    t.s.execute("1 + " + std::to_string(n), o);
  }
  auto& inputs = t.s.command_state().inputs;
  ASSERT_EQ(inputs.size(), 1000u);
  EXPECT_EQ(inputs.front().first, 206);
  EXPECT_EQ(inputs.back().first, 1205);
  EXPECT_EQ(inputs.back().second, "1 + 1205");
  ExecuteResult r = t.term("%history -n 1204-1205");
  EXPECT_NE(r.text.find("1 + 1204"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("1 + 20\n"), std::string::npos) << r.text;
}

}  // namespace
}  // namespace ein::testing_commands
