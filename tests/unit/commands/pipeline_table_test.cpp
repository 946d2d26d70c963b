// The pass table is the pipeline (issue 17): every pass it names can be dumped by that name, and
// `--timings` / %time put every logged phase in a group (none lands in "unattributed"). No
// assertion depends on how long anything took.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "engine/session/commands.h"
#include "lang/passes/driver.h"
#include "tests/unit/commands/command_helpers.h"

namespace ein::testing_commands {
namespace {

// A cell that exercises every pass: a function specialisation, a recurrence (cover, order,
// window), a contraction, and a derivative request (autodiff's rounds re-run the analyses).
constexpr const char* kCell =
    "fn sq(a) { a * a }\n"
    "let x = [1.0, 2.0, 3.0];\n"
    "let h[0] = 0.0;\n"
    "let h[t in 1..3] = h[t - 1] + sq(x[t]);\n"
    "let M[i, j] = sum[k](x[i] * x[k] * x[j]);\n"
    "let y = sum[i](x[i] * x[i]);\n"
    "let g = @y / @x;\n"
    "g[0] + h[2] + M[0, 0]\n";

bool lowered_pass(const std::string& name) {
  const auto& names = pass_names();
  auto it = std::find(names.begin(), names.end(), name);
  return it >= std::find(names.begin(), names.end(), "lower_einstein");
}

TEST(PipelineTable, EveryPassCanBeDumpedByItsName) {
  ASSERT_GE(pass_names().size(), 16u);
  for (const std::string& name : pass_names()) {
    for (const std::string& stage : {"after=" + name, name}) {
      TestSession t;
      ExecuteResult r = t.term("%ir " + stage + " " + kCell);
      ASSERT_TRUE(r.ok) << stage << ": " << r.error << r.cell.rendered;
      EXPECT_EQ(r.text.find("(no IR"), std::string::npos) << stage << ": " << r.text;
      EXPECT_NE(r.text.find("(Program"), std::string::npos) << stage << ": " << r.text;
      if (lowered_pass(name)) {
        EXPECT_NE(r.text.find("(LTensor h"), std::string::npos) << stage << ": " << r.text;
        EXPECT_NE(r.text.find(";; sq("), std::string::npos) << stage << ": the specialisation is shown";
      } else {
        EXPECT_EQ(r.text.find("(LTensor"), std::string::npos) << stage << ": " << r.text;
        EXPECT_NE(r.text.find("(EinGroup h"), std::string::npos) << stage << ": " << r.text;
      }
    }
  }
}

// `ein --dump-ir NAME FILE` is a whole-program cell compiled without running, dumped after the
// pass NAME: every pass of the table answers to its own name there too.
TEST(PipelineTable, EveryPassCanBeDumpedFromTheCommandLine) {
  for (const std::string& name : pass_names()) {
    SessionOptions so;
    so.whole_program = true;
    TestSession t(so);
    CellOptions co;
    co.source_name = "prog.ein";
    co.dump_stage = name;
    co.execute = false;
    CellResult r = t.s.run_cell(kCell, co);
    ASSERT_TRUE(r.ok) << name << ": " << r.rendered;
    EXPECT_NE(r.dump.find("(Program"), std::string::npos) << name << ": " << r.dump;
    EXPECT_EQ(r.dump.find("(LTensor") != std::string::npos, lowered_pass(name)) << name << ": " << r.dump;

  }
}

TEST(PipelineTable, AutodiffDumpHasNoRequestLeft) {

  TestSession t;
  ExecuteResult before = t.term(std::string("%ir check_match ") + kCell);
  ASSERT_TRUE(before.ok) << before.error;
  EXPECT_NE(before.text.find("(Diff"), std::string::npos) << before.text;
  ExecuteResult after = t.term(std::string("%ir autodiff ") + kCell);
  ASSERT_TRUE(after.ok) << after.error;
  EXPECT_EQ(after.text.find("(Diff"), std::string::npos) << after.text;
  // The adjoint declarations carry their flag (recurrence_cover asks them for no base case).
  EXPECT_NE(after.text.find("adjoint]"), std::string::npos) << after.text;
}

TEST(PipelineTable, EveryLoggedPhaseHasAGroup) {
  for (const char* jit : {"never", "always"}) {
    SessionOptions o;
    o.jit = jit;
    TestSession t(o);
    CellResult r = t.s.run_cell(kCell);
    ASSERT_TRUE(r.ok) << jit << ": " << r.rendered;
    cmd::Phases p = cmd::group_phases(r);
    EXPECT_EQ(p.unattributed, 0.0) << jit;
    std::string report = cmd::timings_report(r);
    EXPECT_EQ(report.find("unattributed"), std::string::npos) << report;
    std::set<std::string> logged;
    int type_infer_runs = 0;
    for (auto& tm : r.timings) {
      logged.insert(tm.phase);
      type_infer_runs += tm.phase == "type_infer";
    }
    for (const std::string& name : pass_names()) EXPECT_TRUE(logged.count(name)) << jit << ": " << name;
    for (const char* phase : {"parse", "resolve", "codegen", "load", "run", "session", kDriverPhase})
      EXPECT_TRUE(logged.count(phase)) << jit << ": " << phase;
    // The analyses ran again over autodiff's rewrite, under their own names.
    EXPECT_GE(type_infer_runs, 2) << jit;
    // The groups add up to the phases logged (nothing dropped, nothing counted twice).
    double sum = 0;
    for (auto& tm : r.timings) sum += tm.ms;
    EXPECT_NEAR(p.total(), sum, 1e-6 * std::max(1.0, sum)) << jit;
  }
}

TEST(PipelineTable, AnUnknownPhaseIsShownAsUnattributed) {
  CellResult r;
  r.timings = {{"parse", 1}, {"no_such_phase", 2}, {"run", 4}};
  cmd::Phases p = cmd::group_phases(r);
  EXPECT_DOUBLE_EQ(p.unattributed, 2);
  EXPECT_DOUBLE_EQ(p.total(), 7);
  EXPECT_NE(cmd::timings_report(r).find("timing: unattributed 2.000 ms\n"), std::string::npos);
}

}  // namespace
}  // namespace ein::testing_commands
