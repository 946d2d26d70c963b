// The common-subexpression plan (lang/passes/cse_plan.h): which expressions of a statement are
// the same computation, read off the source by hand, and that the kernel computes each once.
#include <gtest/gtest.h>

#include <sstream>

#include "engine/codegen/codegen.h"
#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {
namespace {

// The shown groups of the statement that stores `name`, as "<sexpr> x<uses>".
std::vector<std::string> groups(Compiled& c, const std::string& name) {
  std::vector<std::string> out;
  ir::NodeRef t = c.ltensor(name);
  EXPECT_TRUE(t) << "no LTensor " << name;
  if (!t) return out;
  for (const CseGroup& g : c.cell().common_groups)
    if (g.statement == t->id && g.shown)
      out.push_back(ir::to_sexpr(g.first, ir::PrintOptions{false, false, 0}) + " x" + std::to_string(g.uses));
  return out;
}

TEST(CsePlan, ARepeatedProductIsOneGroupAndOneMultiplication) {
  auto c = compile(
      "use std::math::exp;\n"
      "let a[i in 0..300] = i as f64 * 0.01;\n"
      "let b[j in 0..200] = j as f64 * 0.02;\n"
      "let c[i, j] = a[i] * b[j] + exp(a[i] * b[j]) / (a[i] * b[j] + 1.0);\n"
      "print(c[3, 4]);\n",
      {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  // Its reads are inside it: only the product is shown.
  EXPECT_EQ(groups(*c, "c"), std::vector<std::string>{"(Binary * (Index (Name a) (Name i)) (Index (Name b) (Name j))) x3"});
  codegen::PlanOptions o;
  o.mode = codegen::PlanOptions::Mode::Always;
  codegen::CellPlan p = codegen::plan_cell(*c->cx, o);
  bool found = false;
  for (auto& k : p.kernels) {
    if (k.kind != codegen::KernelKind::Clause || k.tensor->name != "c") continue;
    found = true;
    // a[i] * b[j] once; the other multiplication is none (a division and additions remain).
    size_t products = 0;
    std::istringstream lines(k.source);
    for (std::string l; std::getline(lines, l);) products += l.find("const double") != std::string::npos && occurrences(l, " * ");
    EXPECT_EQ(products, 1u) << k.source;
  }
  EXPECT_TRUE(found);
}

TEST(CsePlan, ReadsOfTheTensorBeingWrittenAreNotShared) {
  // x[t - 1] twice: a store between two evaluations may change it, so it stays out of the plan.
  auto c = compile(
      "let w[t in 0..50] = t as f64;\n"
      "let x[t in 0..50] = if t == 0 { 1.0 } else { x[t - 1] * 0.5 + x[t - 1] * (w[t] * 2.0) + w[t] * 2.0 };\n"
      "print(x[49]);\n",
      {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  // The index t - 1 is shared, the read x[t - 1] is not.
  EXPECT_EQ(groups(*c, "x"), (std::vector<std::string>{"(Binary - (Name t) (IntLit 1)) x2",
                                                        "(Binary * (Index (Name w) (Name t)) (FloatLit 2.0)) x2"}));
}

TEST(CsePlan, ReductionsOverDifferentIndicesAreDifferent) {
  // a[k] and a[l] read the same tensor with different loop variables: not the same value.
  auto c = compile(
      "let a[k in 0..40] = k as f64;\n"
      "let s[i in 0..10] = sum[k](a[k] * 2.0) + sum[l](a[l] * 2.0) + i as f64;\n"
      "print(s[2]);\n",
      {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_TRUE(groups(*c, "s").empty());
}

TEST(CsePlan, ALetBoundToAReductionIsPlannedAsItsOwnStatement) {
  // The expression kernel of `let s = ...` (not a tensor): (x[i] - m) twice per term, by hand.
  auto c = compile(
      "let x[i in 0..1000] = i as f64 * 0.5;\n"
      "let m = 3.0;\n"
      "let s = sum[i]((x[i] - m) * (x[i] - m));\n"
      "print(s);\n",
      {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  std::vector<std::string> shown;
  uint32_t statement = 0;
  for (const CseGroup& g : c->cell().common_groups) {
    if (!g.shown) continue;
    shown.push_back(ir::to_sexpr(g.first, ir::PrintOptions{false, false, 0}) + " x" + std::to_string(g.uses));
    statement = g.statement;
  }
  EXPECT_EQ(shown, std::vector<std::string>{"(Binary - (Index (Name x) (Name i)) (Name m)) x2"});
  // The group belongs to the let (its statement is no tensor) and %ir's plan names it.
  ir::NodeRef let;
  ir::for_each_node(c->cell().lowered, [&](const ir::NodeRef& n) {
    if (n->id == statement) let = n;
  });
  ASSERT_TRUE(let);
  EXPECT_EQ(let->kind, ir::Kind::Let);
  EXPECT_NE(describe_common_scalar(c->cell()).find(";;   let s:\n;;     common: (Binary - "), std::string::npos)
      << describe_common_scalar(c->cell());
  // The kernel subtracts once per term.
  codegen::PlanOptions o;
  o.mode = codegen::PlanOptions::Mode::Always;
  codegen::CellPlan p = codegen::plan_cell(*c->cx, o);
  bool found = false;
  for (auto& k : p.kernels) {
    if (k.kind != codegen::KernelKind::Expr) continue;
    found = true;
    size_t differences = 0;
    std::istringstream lines(k.source);
    for (std::string l; std::getline(lines, l);) differences += l.find("const double") != std::string::npos && occurrences(l, " - ");
    EXPECT_EQ(differences, 1u) << k.source;
  }
  EXPECT_TRUE(found);
}

TEST(CsePlan, ReductionsInCallArgumentsArePlannedOnTheirOwn) {
  // `print(sum(..))`: the call stays in the interpreter, its argument's reduction is an
  // expression kernel of its own (engine/codegen/plan.cpp), so its repeated term is one group
  // whose statement is the reduction itself.
  auto c = compile(
      "let x[i in 0..100] = i as f64;\n"
      "print(sum[i](x[i] * 2.0 + x[i] * 2.0));\n",
      {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  int groups = 0;
  for (const CseGroup& g : c->cell().common_groups) {
    if (!g.shown) continue;
    ++groups;
    EXPECT_EQ(g.uses, 2);
    ir::NodeRef stmt;
    ir::for_each_node(c->cell().lowered, [&](const ir::NodeRef& n) {
      if (n->id == g.statement) stmt = n;
    });
    ASSERT_TRUE(stmt);
    EXPECT_EQ(stmt->kind, ir::Kind::LReduce);
  }
  EXPECT_EQ(groups, 1);
  codegen::PlanOptions o;
  o.mode = codegen::PlanOptions::Mode::Always;
  codegen::CellPlan p = codegen::plan_cell(*c->cx, o);
  int reductions = 0;
  for (auto& k : p.kernels) reductions += k.kind == codegen::KernelKind::Expr && k.stmt->kind == ir::Kind::LReduce;
  EXPECT_EQ(reductions, 1);
}

}  // namespace
}  // namespace ein::testing
