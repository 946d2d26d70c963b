// Rest patterns (SPEC §5.6): type inference decides how many axes `..b` stands for
// (Unit::rest_len), rest expansion replaces it by that many generated indices, and afterwards no
// IdxRest / RestIdx node may remain in any unit. Values are checked by running the programs.
#include <gtest/gtest.h>

#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {
namespace {

// rest_len of the rest pattern named `name` in unit `u` (-1 if none).
int rest_len_of(Compiled& c, const Unit& u, const std::string& name) {
  for (auto& [def, n] : u.rest_len)
    if (c.resolver.info(def).name == name) return n;
  return -1;
}

// Counted in the lowered code of every unit (the cell's own copy of a generic fn item is never
// expanded: it becomes an LNop, its specialisations are the units that run).
size_t rest_nodes_left(const Compiled& c) {
  size_t n = 0;
  for (auto& u : c.cx->units) {
    n += count_of(u->lowered, ir::Kind::IdxRest);
    n += count_of(u->lowered, ir::Kind::RestIdx);
  }
  return n;
}

const char* kBatched =
    "let x = [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]];\n"
    "let w = [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]];\n"
    "let y[..b, c] = sum[i](x[..b, i] * w[i, c]);\n";

TEST(Rest, LengthComesFromTheDeterminingAccess) {
  // x has rank 3 and the access x[..b, i] names one axis: ..b is 2 axes.
  auto c = compile(kBatched);
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(rest_len_of(*c, c->cell(), "b"), 2);
  EXPECT_EQ(c->type_name_of("y"), "[f32; ?, ?, ?]");
  EXPECT_EQ(c->shape_of("y"), (StaticShape{2, 2, 3}));
}

TEST(Rest, ExpansionLeavesNoRestNodes) {
  auto c = compile(kBatched);
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(rest_nodes_left(*c), 0u);
  // The declaration now has three index slots: the two generated ones and c.
  ir::NodeRef g = c->stmt(ir::Kind::EinGroup, "y");
  ASSERT_TRUE(g);
  const ir::NodeRef& clause = g->kids[0];
  ASSERT_EQ(clause->kids.size() - ir::ein_slot_begin(), 3u);
  for (size_t i = ir::ein_slot_begin(); i < clause->kids.size(); ++i)
    EXPECT_EQ(clause->kids[i]->kind, ir::Kind::IdxVar);
  // Generated indices got ranges like any plain index (2 and 2 from x, 3 from w).
  std::vector<int64_t> his;
  for (size_t i = ir::ein_slot_begin(); i < clause->kids.size(); ++i) {
    auto it = c->cell().ranges.find(clause->kids[i]->def);
    ASSERT_NE(it, c->cell().ranges.end());
    his.push_back(it->second.hi_const.value_or(-1));
  }
  EXPECT_EQ(his, (std::vector<int64_t>{2, 2, 3}));
}

TEST(Rest, BatchedProductValues) {
  // y[b0, b1, c] = x[b0, b1, 0] * w[0, c] + x[b0, b1, 1] * w[1, c]; first row: [1, 2, 3].
  auto r = run_program(std::string(kBatched) + "print(y[0, 0]);\nprint(y[1, 1]);\n");
  ASSERT_TRUE(r.cell.ok) << r.cell.rendered;
  EXPECT_EQ(r.out, "[1.0, 2.0, 3.0]\n[7.0, 8.0, 15.0]\n");
}

TEST(Rest, WholeArrayRestAndRestReduction) {
  auto c = compile("let v = [[1.0, 2.0], [3.0, 4.0]];\nlet d[..r] = v[..r] * 2.0;\n"
                   "let total = sum[..r](v[..r]);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(c->shape_of("d"), (StaticShape{2, 2}));
  EXPECT_EQ(rest_nodes_left(*c), 0u);
  auto r = run_program("let v = [[1.0, 2.0], [3.0, 4.0]];\nlet d[..r] = v[..r] * 2.0;\n"
                       "print(d, sum[..r](v[..r]));\n");
  EXPECT_EQ(r.out, "[[2.0, 4.0], [6.0, 8.0]] 10.0\n");
}

TEST(Rest, RestMayStandForZeroAxes) {
  // x is rank 1 and x[..b, c] names one axis: ..b is empty and y is rank 1.
  auto c = compile("let x = [1.0, 2.0];\nlet y[..b, c] = x[..b, c] * 2.0;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(rest_len_of(*c, c->cell(), "b"), 0);
  EXPECT_EQ(c->shape_of("y"), (StaticShape{2}));
}

TEST(Rest, EachSpecialisationHasItsOwnLength) {
  // One generic function, called with rank 1 and rank 2: two units with lengths 1 and 2.
  auto c = compile("fn dbl(x) { let y[..r] = x[..r] * 2; y }\nlet a = dbl([1, 2]);\n"
                   "let b = dbl([[1], [2]]);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  std::multiset<int> lens;
  for (auto& u : c->cx->units)
    if (u->kind == Unit::Kind::Fn) lens.insert(rest_len_of(*c, *u, "r"));
  EXPECT_EQ(lens, (std::multiset<int>{1, 2}));
  EXPECT_EQ(rest_nodes_left(*c), 0u);
  auto r = run_program("fn dbl(x) { let y[..r] = x[..r] * 2; y }\nprint(dbl([1, 2]), dbl([[1], [2]]));\n");
  EXPECT_EQ(r.out, "[2, 4] [[2], [4]]\n");
}

TEST(Rest, UndeterminedRankIsE004) {
  auto c = compile("let y[..b] = 5;\n");
  ASSERT_FALSE(c->ok);
  const Diagnostic* d = c->diag("E004");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->text_of(d->primary), "..b");
}

TEST(Rest, RestAgreesWithPlainIndicesOfOtherOperands) {
  // The generated indices of ..b are ordinary plain indices: a second operand with a different
  // leading extent is the usual E004 for disagreeing plain uses.
  auto c = compile("let x = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]];\nlet s = [1.0, 2.0];\n"
                   "let y[..b, j] = x[..b, j] + s[..b];\n");
  EXPECT_TRUE(c->has_code("E004")) << c->rendered();
}

}  // namespace
}  // namespace ein::testing
