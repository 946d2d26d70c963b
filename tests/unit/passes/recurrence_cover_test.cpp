// Coverage of recurrences (SPEC §5.5): a self-read of a point no clause defines is E012 at
// compile time when the extents are known, checked at run time otherwise, and a recurrence
// whose reads are all defined carries no check at all. Also the box algebra underneath
// (box_cover.h): symbolic containment proofs and the exact set of missing points.
#include <gtest/gtest.h>

#include "lang/passes/box_cover.h"
#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {
namespace {

size_t e012_checks(Compiled& c) {
  size_t n = 0;
  for (auto& u : c.cx->units)
    ir::for_each_node(u->lowered, [&](const ir::NodeRef& x) { n += x->kind == ir::Kind::LCheck && x->name == "E012"; });
  return n;
}

TEST(RecurrenceCover, MissingBaseCaseIsACompileErrorNamingThePoint) {
  auto c = compile("let x[t in 1..8] = x[t - 1] * 0.5;\n");
  ASSERT_FALSE(c->ok);
  const Diagnostic* d = c->diag("E012");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->text_of(d->primary), "x[t - 1]");
  EXPECT_NE(d->message.find("x[0]"), std::string::npos) << d->message;
  EXPECT_NE(d->help.find("let x[0] = ...;"), std::string::npos) << d->help;
  EXPECT_NE(d->help.find("cell right before"), std::string::npos) << "says how to join: " << d->help;
}

TEST(RecurrenceCover, MissingRowOfATableIsNamedAsARange) {
  auto c = compile("let H[i in 1..3, j in 0..4] = H[i - 1, j] + 1.0;\n");
  const Diagnostic* d = c->diag("E012");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_NE(d->message.find("H[0, 0..4]"), std::string::npos) << d->message;
  EXPECT_NE(d->help.find("let H[0, j in 0..4] = ...;"), std::string::npos) << d->help;
}

TEST(RecurrenceCover, EveryMissingPointOfAStrideTwoRecurrence) {
  // x[t - 2] for t in 2..9 reads 0..7; only x[0] is given, so 1 is missing, and nothing else.
  auto c = compile("let x[0] = 1.0;\nlet x[t in 2..9] = x[t - 2] + 1.0;\n");
  const Diagnostic* d = c->diag("E012");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_NE(d->message.find("reads x[1], which"), std::string::npos) << d->message;
}

TEST(RecurrenceCover, DefinedReadsNeedNoCheck) {
  const char* progs[] = {
      "let x[0] = 1.0;\nlet x[t in 1..6] = x[t - 1] * 0.5;\n",
      "let f[0] = 0;\nlet f[1] = 1;\nlet f[n in 2..10] = f[n - 1] + f[n - 2];\n",
      "let H[0, j in 0..4] = 1;\nlet H[i in 1..3, 0] = 1;\n"
      "let H[i in 1..3, j in 1..4] = H[i - 1, j] + H[i, j - 1] + H[i - 1, j - 1];\n",
      "let s[0] = 1;\nlet s[t in 1..6] = sum[k in 0..t](s[k]);\n",
      "let q[t in 0..5] = if t == 0 { 1 } else { q[t - 1] * 2 };\n",
      "fn g(n) { let z[0] = 1.0; let z[t in 1..n] = z[t - 1] * 0.5; z }\nlet r = g(5);\n",
      "fn g(v) { let c[0] = v[0]; let c[i in 1..len(v)] = c[i - 1] + v[i]; c }\nlet r = g([1, 2]);\n",
  };
  for (const char* p : progs) {
    auto c = compile(p);
    ASSERT_TRUE(c->ok) << p << c->rendered();
    EXPECT_EQ(e012_checks(*c), 0u) << "proven at compile time, no run-time check: " << p;
  }
}

TEST(RecurrenceCover, RunTimeExtentGetsOneCheckBeforeTheLoops) {
  auto c = compile("fn g(n) { let z[t in 1..n] = z[t - 1] * 0.5; z }\nlet r = g(5);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(e012_checks(*c), 1u);
  // The check is a statement of the LTensor head, not inside the loop.
  for (auto& u : c->cx->units)
    ir::for_each_node(u->lowered, [&](const ir::NodeRef& t) {
      if (t->kind != ir::Kind::LTensor) return;
      for (auto& k : t->kids)
        if (k->kind == ir::Kind::LFor) {
          EXPECT_EQ(count_of(k, ir::Kind::LCheck), 0u);
        }
    });
}

TEST(RecurrenceCover, RunsAndFailsOrSucceedsByTheRunTimeExtent) {
  auto ok = run_program("fn g(n) { let z[t in 1..n] = z[t - 1] * 0.5; z }\nprint(g(1));\n");
  EXPECT_EQ(ok.out, "[0.0]\n") << ok.cell.rendered;
  // The help line travels beside the message (the LCheck's help kid; a native kernel's site),
  // in both tiers alike.
  for (const char* jit : {"never", "always"}) {
    auto bad = run_program("fn g(n) { let z[t in 1..n] = z[t - 1] * 0.5; z }\nprint(g(3));\n", false, jit);
    ASSERT_FALSE(bad.cell.ok) << jit;
    EXPECT_EQ(bad.cell.diags[0].code, "E012") << jit << bad.cell.rendered;
    EXPECT_NE(bad.cell.diags[0].help.find("z[0]"), std::string::npos) << jit << bad.cell.rendered;
    EXPECT_EQ(bad.cell.diags[0].message.find("help"), std::string::npos) << jit << bad.cell.rendered;
    EXPECT_EQ(bad.cell.diags[0].message.find("z[0]"), std::string::npos) << jit << bad.cell.rendered;
  }
}

TEST(RecurrenceCover, ConditionalReadIsCheckedWhereItHappens) {
  // y[0] is never read (t == 1 takes the other branch): no error.
  auto ok = run_program("let y[t in 1..5] = if t == 1 { 1.0 } else { y[t - 1] * 3.0 };\nprint(y);\n");
  EXPECT_EQ(ok.out, "[0.0, 1.0, 3.0, 9.0, 27.0]\n") << ok.cell.rendered;
  auto bad = run_program("let y[t in 1..5] = if t == 2 { 1.0 } else { y[t - 1] * 3.0 };\nprint(y);\n");
  ASSERT_FALSE(bad.cell.ok);
  EXPECT_EQ(bad.cell.diags[0].code, "E012") << bad.cell.rendered;
  EXPECT_EQ(bad.out, "");
}

// ---- the box algebra ----------------------------------------------------------------------------

cover::Lin n_plus(int64_t k) {
  cover::Lin n = cover::symbol("n", ir::make_name("n"));
  return cover::add(n, cover::constant(k));
}
cover::Interval iv(cover::Lin lo, cover::Lin hi) { return cover::Interval{lo, hi}; }
cover::Interval iv(int64_t lo, int64_t hi) { return iv(cover::constant(lo), cover::constant(hi)); }

TEST(BoxCover, SymbolicChainIsProven) {
  // [0, n - 1) inside [0, 1) ∪ [1, n) for every n.
  cover::Box read{iv(cover::constant(0), n_plus(-1))};
  std::vector<cover::Box> clauses{{iv(0, 1)}, {iv(cover::constant(1), n_plus(0))}};
  EXPECT_TRUE(cover::uncovered(read, clauses).empty());
}

TEST(BoxCover, SymbolicGapIsReportedButNotCertain) {
  // [0, n - 1) against [1, n) alone: 0 is missing whenever n >= 2, unknown at compile time.
  cover::Box read{iv(cover::constant(0), n_plus(-1))};
  std::vector<cover::Box> clauses{{iv(cover::constant(1), n_plus(0))}};
  auto leaves = cover::uncovered(read, clauses);
  ASSERT_FALSE(leaves.empty());
  for (auto& l : leaves) EXPECT_FALSE(l.definite);
}

TEST(BoxCover, ClipKeepsReadsOutsideTheAllocationOut) {
  // q[t - 1] for t in 0..5 reads -1..4; the allocation is 0..5, so only 0..4 must be covered.
  cover::Box read{iv(-1, 4)};
  std::vector<cover::Box> clauses{{iv(0, 5)}};
  EXPECT_TRUE(cover::uncovered(cover::clip_to_allocation(read, clauses), clauses).empty());
  EXPECT_FALSE(cover::uncovered(read, clauses).empty()) << "without the clip -1 is uncovered";
}

TEST(BoxCover, ConstantLeavesAreExactlyTheMissingPoints) {
  // Brute force over small random constant boxes: a point is in some definite leaf iff it is in
  // the read box and in no clause; no leaf is merely "unknown" when everything is constant.
  uint64_t seed = 12345;
  auto rnd = [&](int m) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((seed >> 33) % static_cast<uint64_t>(m));
  };
  for (int trial = 0; trial < 300; ++trial) {
    int rank = 1 + rnd(2);
    auto rand_box = [&] {
      cover::Box b;
      for (int a = 0; a < rank; ++a) {
        int lo = rnd(6), hi = lo + rnd(5);
        b.push_back(iv(lo, hi));
      }
      return b;
    };
    cover::Box read = rand_box();
    std::vector<cover::Box> clauses;
    for (int c = rnd(4); c >= 0; --c) clauses.push_back(rand_box());
    auto leaves = cover::uncovered(read, clauses);
    auto in = [](const cover::Box& b, int p0, int p1) {
      int p[2] = {p0, p1};
      for (size_t a = 0; a < b.size(); ++a)
        if (p[a] < b[a].lo.k || p[a] >= b[a].hi->k) return false;
      return true;
    };
    for (int p0 = 0; p0 < 12; ++p0)
      for (int p1 = 0; p1 < (rank == 2 ? 12 : 1); ++p1) {
        bool want = in(read, p0, p1);
        for (auto& c : clauses) want = want && !in(c, p0, p1);
        int hits = 0;
        for (auto& l : leaves) hits += in(l.box, p0, p1);
        EXPECT_EQ(hits, want ? 1 : 0) << "trial " << trial << " point " << p0 << "," << p1;
      }
    // Certain exactly when the leaf lies inside the allocation (below some clause's end).
    for (auto& l : leaves) {
      bool inside = true;
      for (size_t a = 0; a < l.box.size(); ++a) {
        bool below = false;
        for (auto& c : clauses) below = below || l.box[a].hi->k <= c[a].hi->k;
        inside = inside && below;
      }
      EXPECT_EQ(l.definite, inside) << "trial " << trial;
    }
  }
}

}  // namespace
}  // namespace ein::testing
