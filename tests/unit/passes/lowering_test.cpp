// Einstein lowering (lang/passes/lower_einstein.h): the structure of the lowered IR of small
// programs — how many LTensor / LFor / LStore / LReduce / LoopVar / LGuard / LIf nodes there are,
// where they sit, the `else` fallback of a guarded declaration, literal slots as constant store
// indices, where-bindings as LLet / LLetIn, and that nothing high-level survives lowering.
#include <gtest/gtest.h>

#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {
namespace {

using ir::Kind;

// High-level Einstein kinds must not appear in any lowered unit.
void expect_fully_lowered(const Compiled& c) {
  for (auto& u : c.cx->units) {
    for (Kind k : {Kind::EinGroup, Kind::EinDecl, Kind::Reduce, Kind::Where, Kind::WBind,
                   Kind::WGuard, Kind::WDerived, Kind::WElse, Kind::Fn})
      EXPECT_EQ(count_of(u->lowered, k), 0u) << u->name << " still has " << ir::kind_name(k);
  }
}

// Follows the single-child LFor chain from `n` and returns the loops outer to inner.
std::vector<ir::NodeRef> loop_chain(ir::NodeRef n) {
  std::vector<ir::NodeRef> out;
  while (n && n->kind == Kind::LFor) {
    out.push_back(n);
    n = n->kids[2];
  }
  return out;
}

TEST(Lowering, MatmulIsOneTensorTwoLoopsOneReduction) {
  auto c = compile("let A = [[1.0, 2.0], [3.0, 4.0]];\nlet B = [[0.0, 1.0], [1.0, 0.0]];\n"
                   "let C[i, j] = sum[k](A[i, k] * B[k, j]);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  expect_fully_lowered(*c);
  ir::NodeRef t = c->ltensor("C");
  ASSERT_TRUE(t);
  ASSERT_EQ(t->kids[0]->kind, Kind::LShape);
  EXPECT_EQ(t->kids[0]->kids.size(), 2u);  // rank 2 allocation
  EXPECT_EQ(t->ival, static_cast<int64_t>(DType::F32));
  EXPECT_EQ(count_of(t, Kind::LFor), 2u);
  EXPECT_EQ(count_of(t, Kind::LStore), 1u);
  EXPECT_EQ(count_of(t, Kind::LReduce), 1u);
  EXPECT_EQ(count_of(t, Kind::LoopVar), 1u);
  EXPECT_EQ(count_of(t, Kind::LCheck), 0u) << "extents are known: no runtime agreement check";
  // Loops in slot order (i outer, j inner) around the store, which stores at (i, j).
  auto loops = loop_chain(t->kids[1]);
  ASSERT_EQ(loops.size(), 2u);
  EXPECT_EQ(loops[0]->name, "i");
  EXPECT_EQ(loops[1]->name, "j");
  ir::NodeRef store = loops[1]->kids[2];
  ASSERT_EQ(store->kind, Kind::LStore);
  ASSERT_EQ(store->kids.size(), 3u);
  EXPECT_EQ(store->kids[0]->kind, Kind::LReduce);
  EXPECT_EQ(store->kids[1]->def, loops[0]->def);
  EXPECT_EQ(store->kids[2]->def, loops[1]->def);
  EXPECT_EQ(store->kids[0]->name, "sum");
}

TEST(Lowering, GuardWithElseStoresTheFallback) {
  // `where cond else e`: an LIf with a then-store and an else-store of -1.0.
  auto c = compile("let data = [3.0, -1.0, 2.0];\n"
                   "let clipped[i] = data[i] where data[i] > 0.0 else -1.0;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  ir::NodeRef t = c->ltensor("clipped");
  ASSERT_TRUE(t);
  auto ifs = nodes_of(t, Kind::LIf);
  ASSERT_EQ(ifs.size(), 1u);
  ASSERT_EQ(ifs[0]->kids.size(), 3u) << "the else branch must be lowered";
  EXPECT_EQ(ifs[0]->kids[1]->kind, Kind::LStore);
  ASSERT_EQ(ifs[0]->kids[2]->kind, Kind::LStore);
  EXPECT_EQ(count_of(ifs[0]->kids[2]->kids[0], Kind::FloatLit), 1u);
  EXPECT_EQ(count_of(t, Kind::LStore), 2u);
  auto r = run_program("let data = [3.0, -1.0, 2.0];\n"
                       "let clipped[i] = data[i] where data[i] > 0.0 else -1.0;\nprint(clipped);\n");
  EXPECT_EQ(r.out, "[3.0, -1.0, 2.0]\n");
}

TEST(Lowering, GuardWithoutElseLeavesTheZero) {
  // No else-store: skipped points keep the zero of the fresh allocation.
  auto c = compile("let M = [[1, 2, 3], [4, 5, 6], [7, 8, 9]];\n"
                   "let upper[i, j] = M[i, j] where i <= j;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  ir::NodeRef t = c->ltensor("upper");
  auto ifs = nodes_of(t, Kind::LIf);
  ASSERT_EQ(ifs.size(), 1u);
  EXPECT_EQ(ifs[0]->kids.size(), 2u);
  EXPECT_EQ(count_of(t, Kind::LStore), 1u);
  auto r = run_program("let M = [[1, 2, 3], [4, 5, 6], [7, 8, 9]];\n"
                       "let upper[i, j] = M[i, j] where i <= j;\nprint(upper);\n");
  EXPECT_EQ(r.out, "[[1, 2, 3], [0, 5, 6], [0, 0, 9]]\n");
}

TEST(Lowering, ReductionGuardIsAnLGuard) {
  auto c = compile("let data = [3.0, -1.0, 2.0, -7.0];\nlet pos = sum[i](data[i]) where data[i] > 0.0;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  ir::NodeRef s = c->cell().lowered->kids[1];
  ASSERT_EQ(s->kind, Kind::Let);
  ir::NodeRef red = ir::let_value(*s);
  ASSERT_EQ(red->kind, Kind::LReduce);
  ASSERT_EQ(ir::lreduce_body(*red)->kind, Kind::LGuard);
  EXPECT_EQ(count_of(red, Kind::LoopVar), 1u);
  EXPECT_EQ(count_of(red, Kind::LIf), 0u);
}

TEST(Lowering, SeveralReductionIndicesAreSeveralLoopVars) {
  auto c = compile("let A = [[1, 2], [3, 4], [5, 6]];\nlet t = sum[i, j](A[i, j]);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  auto reds = nodes_of(c->cell().lowered, Kind::LReduce);
  ASSERT_EQ(reds.size(), 1u);
  auto vars = nodes_of(reds[0], Kind::LoopVar);
  ASSERT_EQ(vars.size(), 2u);
  EXPECT_EQ(vars[0]->name, "i");
  EXPECT_EQ(vars[1]->name, "j");
  EXPECT_EQ(count_of(c->cell().lowered, Kind::LTensor), 0u);
}

TEST(Lowering, LiteralSlotsBecomeConstantStoreIndices) {
  // frame: three clauses, the first two with a literal slot on different axes.
  auto c = compile("let frame[0, j in 0..4] = 1;\nlet frame[i in 1..3, 0] = 2;\n"
                   "let frame[i in 1..3, j in 1..4] = 3;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  ir::NodeRef t = c->ltensor("frame");
  ASSERT_TRUE(t);
  // One LShape (folded to constants 3 and 4), then one nest per clause.
  ASSERT_EQ(t->kids.size(), 4u);
  const ir::NodeRef& shape = t->kids[0];
  ASSERT_EQ(shape->kids.size(), 2u);
  EXPECT_EQ(shape->kids[0]->kind, Kind::IntLit);
  EXPECT_EQ(shape->kids[0]->ival, 3);
  EXPECT_EQ(shape->kids[1]->ival, 4);
  auto stores = nodes_of(t, Kind::LStore);
  ASSERT_EQ(stores.size(), 3u);
  // Clause 1 stores at (0, j), clause 2 at (i, 0), clause 3 at (i, j).
  EXPECT_EQ(stores[0]->kids[1]->kind, Kind::IntLit);
  EXPECT_EQ(stores[0]->kids[1]->ival, 0);
  EXPECT_EQ(stores[0]->kids[2]->kind, Kind::Name);
  EXPECT_EQ(stores[1]->kids[1]->kind, Kind::Name);
  EXPECT_EQ(stores[1]->kids[2]->kind, Kind::IntLit);
  EXPECT_EQ(stores[2]->kids[1]->kind, Kind::Name);
  EXPECT_EQ(stores[2]->kids[2]->kind, Kind::Name);
  // A literal slot has no loop: 1 + 1 + 2 loops.
  EXPECT_EQ(count_of(t, Kind::LFor), 4u);
}

TEST(Lowering, AllLiteralClausesHaveNoLoops) {
  auto c = compile("let sparse[2] = 7;\nlet sparse[4] = 9;\nprint(sparse);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  ir::NodeRef t = c->ltensor("sparse");
  EXPECT_EQ(count_of(t, Kind::LFor), 0u);
  auto stores = nodes_of(t, Kind::LStore);
  ASSERT_EQ(stores.size(), 2u);
  EXPECT_EQ(stores[0]->kids[1]->ival, 2);
  EXPECT_EQ(stores[1]->kids[1]->ival, 4);
  auto r = run_program("let sparse[2] = 7;\nlet sparse[4] = 9;\nprint(sparse);\n");
  EXPECT_EQ(r.out, "[0, 0, 7, 0, 9]\n");
}

TEST(Lowering, DeclarationWhereBindingIsAnLLet) {
  auto c = compile("let data = [1.0, 2.0];\nlet d[i] = v + w where v = data[i] * 2.0, w = v + 1.0;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  ir::NodeRef t = c->ltensor("d");
  auto lets = nodes_of(t, Kind::LLet);
  ASSERT_EQ(lets.size(), 2u);
  EXPECT_EQ(lets[0]->name, "v");  // in order: later bindings see earlier ones
  EXPECT_EQ(lets[1]->name, "w");
  auto r = run_program("let data = [1.0, 2.0];\nlet d[i] = v + w where v = data[i] * 2.0, w = v + 1.0;\n"
                       "print(d);\n");
  EXPECT_EQ(r.out, "[5.0, 9.0]\n");
}

TEST(Lowering, DerivedIndexInsideAReductionIsAnLLetIn) {
  auto c = compile("let s = [1.0, 2.0, 3.0, 4.0, 5.0];\nlet w = [1.0, 0.0, -1.0];\n"
                   "let conv[o] = sum[k](s[p] * w[k]) where p = o + k;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  ir::NodeRef t = c->ltensor("conv");
  auto reds = nodes_of(t, Kind::LReduce);
  ASSERT_EQ(reds.size(), 1u);
  ASSERT_EQ(ir::lreduce_body(*reds[0])->kind, Kind::LLetIn);
  EXPECT_EQ(ir::lreduce_body(*reds[0])->name, "p");
  EXPECT_EQ(count_of(t, Kind::LFor), 1u);
}

TEST(Lowering, ItemsBecomeNops) {
  auto c = compile("fn f(x) { x + 1 }\nconst N = 3;\nlet y = f(N);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  const ir::NodeRef& prog = c->cell().lowered;
  ASSERT_EQ(prog->kids.size(), 3u);
  EXPECT_EQ(prog->kids[0]->kind, Kind::LNop);
  EXPECT_EQ(prog->kids[1]->kind, Kind::LNop);
  EXPECT_EQ(prog->kids[2]->kind, Kind::Let);
  expect_fully_lowered(*c);
}

TEST(Lowering, ArrayValuedBodyMarksTheTensor) {
  auto c = compile("let rows[i in 0..3] = [i, i * 2];\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  ir::NodeRef t = c->ltensor("rows");
  ASSERT_TRUE(t);
  EXPECT_TRUE(t->has(ir::kHasElem));
  EXPECT_EQ(t->kids[0]->kids.size(), 1u) << "LShape lists the declared axes";
  auto plain = compile("let sq[i in 0..3] = i * i;\n");
  EXPECT_FALSE(plain->ltensor("sq")->has(ir::kHasElem));
}

TEST(Lowering, FunctionBodiesAreLoweredPerSpecialisation) {
  auto c = compile("fn rowsum(M) { let r[i] = sum[j](M[i, j]); r }\nlet a = rowsum([[1, 2], [3, 4]]);\n"
                   "let b = rowsum([[1.0, 2.0]]);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  int fns = 0;
  for (auto& u : c->cx->units) {
    if (u->kind != Unit::Kind::Fn) continue;
    ++fns;
    ASSERT_TRUE(u->lowered) << u->name;
    EXPECT_EQ(count_of(u->lowered, Kind::LTensor), 1u) << u->name;
    EXPECT_EQ(count_of(u->lowered, Kind::LReduce), 1u) << u->name;
  }
  EXPECT_EQ(fns, 2);
  expect_fully_lowered(*c);
}

TEST(Lowering, ExecutionStrategyIsRecorded) {
  // exec_facts: a matrix product is "gemm", an elementwise clause "vectorized".
  auto c = compile("let A = [[1.0, 2.0], [3.0, 4.0]];\nlet C[i, j] = sum[k](A[i, k] * A[k, j]);\n"
                   "let E[i, j] = A[i, j] * 2.0;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  auto strategy = [&](const char* t) {
    auto it = c->cell().strategies.find(c->ltensor(t)->kids[1]->id);
    return it == c->cell().strategies.end() ? std::string("none") : strategy_name(it->second);
  };
  EXPECT_EQ(strategy("C"), "gemm");
  EXPECT_EQ(strategy("E"), "vectorized");
}

TEST(Lowering, EveryLocalGetsAFrameSlot) {
  // frame_layout: loop variables and where-locals carry a slot; globals keep -1.
  auto c = compile("let data = [1.0, 2.0];\nlet d[i] = v where v = data[i] * 2.0;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  ir::NodeRef t = c->ltensor("d");
  for (auto& f : nodes_of(t, Kind::LFor)) EXPECT_GE(f->slot, 0);
  for (auto& l : nodes_of(t, Kind::LLet)) EXPECT_GE(l->slot, 0);
  std::set<int> slots;
  for (auto& n : nodes_of(t, Kind::Name)) {
    if (n->name == "data") {
      EXPECT_EQ(n->slot, -1);
    }
    else slots.insert(n->slot);
  }
  EXPECT_EQ(slots.size(), 2u) << "i and v in two different slots";
  EXPECT_GE(c->cell().frame_size, 2);
}

}  // namespace
}  // namespace ein::testing
