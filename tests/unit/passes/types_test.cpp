// Type inference (SPEC §3, §6): context-typed literals, the i32 / f32 defaults, E002 for every
// implicit conversion, rank checks, and monomorphisation (one specialisation per distinct
// argument type signature — element types and ranks, not extents — reused for equal ones).
#include <gtest/gtest.h>

#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {
namespace {

// Type of every FloatLit / IntLit in the statement `let name = ...`, as type names.
std::vector<std::string> literal_types(Compiled& c, const std::string& name) {
  std::vector<std::string> out;
  ir::NodeRef s = c.stmt(ir::Kind::Let, name);
  if (!s) return out;
  ir::for_each_node(ir::let_value(*s), [&](const ir::NodeRef& n) {
    if (n->kind == ir::Kind::FloatLit || n->kind == ir::Kind::IntLit)
      out.push_back(ir::type_name(c.cell().type(n)));
  });
  return out;
}

TEST(Types, UnconstrainedLiteralsDefaultToI32AndF32) {
  auto c = compile("let a = 1;\nlet b = 1.5;\nlet v = [1, 2];\nlet w = [0.5, 2.5];\nlet t = true;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(c->type_name_of("a"), "i32");
  EXPECT_EQ(c->type_name_of("b"), "f32");
  EXPECT_EQ(c->type_name_of("v"), "[i32]");
  EXPECT_EQ(c->type_name_of("w"), "[f32]");
  EXPECT_EQ(c->type_name_of("t"), "bool");
}

TEST(Types, AnnotationTypesTheLiteralsOfTheValue) {
  // SPEC §3: `let y: f64 = 1.0 / 3.0;` makes both literals f64 (not an f32 division widened).
  auto c = compile("let y: f64 = 1.0 / 3.0;\nlet big: i64 = 3000000000;\nlet s: i8 = 100;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(c->type_name_of("y"), "f64");
  EXPECT_EQ(literal_types(*c, "y"), (std::vector<std::string>{"f64", "f64"}));
  EXPECT_EQ(c->type_name_of("big"), "i64");
  EXPECT_EQ(c->type_name_of("s"), "i8");
}

TEST(Types, OperandTypesTheLiteral) {
  // `x_f64 * 3.0` makes 3.0 an f64; the product is f64.
  auto c = compile("let x: f64 = 2.0;\nlet z = x * 3.0;\nlet h: f16 = 1.0;\nlet k = 2.0 + h;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(c->type_name_of("z"), "f64");
  EXPECT_EQ(literal_types(*c, "z"), (std::vector<std::string>{"f64"}));
  EXPECT_EQ(c->type_name_of("k"), "f16");
}

TEST(Types, ArrayContextTypesEveryElement) {
  auto c = compile("let m: [f64; 2, 2] = [[1.0, 2.0], [3.0, 4.0]];\nlet n: [i64] = [1, 2, 3];\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(c->type_name_of("m"), "[f64; ?, ?]");
  EXPECT_EQ(literal_types(*c, "m"), std::vector<std::string>(4, "f64"));
  EXPECT_EQ(literal_types(*c, "n"), std::vector<std::string>(3, "i64"));
}

TEST(Types, LiteralThatDoesNotFitIsE002) {
  auto c = compile("let a: i32 = 3000000000;\n");
  ASSERT_FALSE(c->ok);
  EXPECT_TRUE(c->has_code("E002")) << c->rendered();
}

TEST(Types, MixedIntAndFloatIsE002) {
  // The conformance program's exact case: no implicit i32 -> f32.
  auto c = compile("let a = 1;\nlet b = 2.0;\nlet c = a + b;\n");
  ASSERT_FALSE(c->ok);
  const Diagnostic* d = c->diag("E002");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 3);
}

TEST(Types, F32PlusF64IsE002) {
  auto c = compile("let a: f32 = 1.0;\nlet b: f64 = 2.0;\nlet s = a + b;\n");
  const Diagnostic* d = c->diag("E002");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 3);
}

TEST(Types, NoWideningOnAnnotation) {
  auto c = compile("let a: i32 = 1;\nlet b: i64 = a;\n");
  const Diagnostic* d = c->diag("E002");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 2);
}

TEST(Types, CastsAreTheWayToConvert) {
  auto c = compile("let a: i32 = 7;\nlet b = a as f64 / 2.0;\nlet t = 3.7 as i32;\n"
                   "let w: i64 = a as i64;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(c->type_name_of("b"), "f64");
  EXPECT_EQ(c->type_name_of("t"), "i32");
  EXPECT_EQ(c->type_name_of("w"), "i64");
}

TEST(Types, PowerIsTheOneMixedOperator) {
  // f ** i (powi) keeps the float type; i ** i is an integer; f32 ** f64 is still E002.
  auto c = compile("let f: f32 = 2.0;\nlet n: i32 = 3;\nlet a = f ** n;\nlet b = n ** n;\n"
                   "let e = f ** 0.5;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(c->type_name_of("a"), "f32");
  EXPECT_EQ(c->type_name_of("b"), "i32");
  EXPECT_EQ(c->type_name_of("e"), "f32");
  auto bad = compile("let f: f32 = 2.0;\nlet g: f64 = 0.5;\nlet p = f ** g;\n");
  EXPECT_TRUE(bad->has_code("E002")) << bad->rendered();
}

TEST(Types, StringArithmeticOtherThanConcatIsE002) {
  auto ok = compile("let s = \"ab\" + \"cd\";\n");
  EXPECT_TRUE(ok->ok) << ok->rendered();
  EXPECT_EQ(ok->type_name_of("s"), "str");
  auto bad = compile("let s = \"abc\";\nlet t = s * 2;\n");
  const Diagnostic* d = bad->diag("E002");
  ASSERT_NE(d, nullptr) << bad->rendered();
  EXPECT_EQ(bad->line_of(d->primary), 2);
}

TEST(Types, IfBranchesMustAgree) {
  auto c = compile("let b = true;\nlet v = if b { \"yes\" } else { 2 };\n");
  EXPECT_TRUE(c->has_code("E002")) << c->rendered();
}

TEST(Types, ComparisonsAndLogicAreBool) {
  auto c = compile("let a = 1 < 2;\nlet b = a && !a;\nlet e = [1, 2] == [1, 2];\nlet m = 3 in 0..5;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  for (const char* n : {"a", "b", "e", "m"}) EXPECT_EQ(c->type_name_of(n), "bool") << n;
}

TEST(Types, ConditionMustBeBool) {
  auto c = compile("let x = 1;\nlet y = if x { 1 } else { 2 };\n");
  EXPECT_TRUE(c->has_code("E002")) << c->rendered();
}

TEST(Types, EinsteinElementTypeFollowsTheBody) {
  auto c = compile("let A = [[1.0, 2.0], [3.0, 4.0]];\nlet C[i, j] = sum[k](A[i, k] * A[k, j]);\n"
                   "let idx[i in 0..4] = i * i;\nlet m[i] = A[i, 0] > 1.0;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(c->type_name_of("C"), "[f32; ?, ?]");
  EXPECT_EQ(c->type_name_of("idx"), "[i32]");
  EXPECT_EQ(c->type_name_of("m"), "[bool]");
}

TEST(Types, TooManyIndicesIsARankError) {
  auto c = compile("let M = [[1, 2], [3, 4]];\nprint(M[1, 1, 1]);\n");
  const Diagnostic* d = c->diag("E004");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 2);
}

TEST(Types, AnnotationRankMismatchIsE004) {
  auto c = compile("let v: [i32; 2, 2] = [1, 2];\n");
  EXPECT_TRUE(c->has_code("E004")) << c->rendered();
}

TEST(Types, AnnotationOfTheRightRankIsAccepted) {
  // The counterpart of the test above: same literal, rank-1 annotation with any extent.
  auto c = compile("let v: [i32; 2] = [1, 2];\nlet w: [i32] = [1, 2, 3];\n");
  EXPECT_TRUE(c->ok) << c->rendered();
}

TEST(Types, PartialIndexDropsAxes) {
  auto c = compile("let T = [[[1, 2], [3, 4]], [[5, 6], [7, 8]]];\nlet r = T[1];\nlet s = T[1, 0];\n"
                   "let e = T[1, 0, 1];\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(c->type_name_of("r"), "[i32; ?, ?]");
  EXPECT_EQ(c->type_name_of("s"), "[i32]");
  EXPECT_EQ(c->type_name_of("e"), "i32");
}

TEST(Types, PiecewiseClausesMustHaveOneRank) {
  auto c = compile("let h[0] = 1;\nlet h[i in 1..3, j in 0..2] = 2;\n");
  EXPECT_TRUE(c->has_code("E004")) << c->rendered();
}

TEST(Types, PiecewiseClausesMustHaveOneElementType) {
  // Not literals: an integer literal would adopt the float context (docs/language.md).
  auto c = compile("let n = 1;\nlet h[0] = n;\nlet h[i in 1..3] = 2.5;\n");
  EXPECT_TRUE(c->has_code("E002")) << c->rendered();
}

TEST(Types, OneSpecialisationPerSignature) {
  // dbl is called with i32 twice, f32 once and [i32] (two different lengths) twice: three
  // specialisations, since extents are not part of the key (SPEC §6). The arguments are typed
  // bindings: a literal argument is typed by its own call's uses, so it gets its own unit.
  auto c = compile("fn dbl(x) { x * 2 }\nlet i: i32 = 3;\nlet x: f32 = 2.5;\nlet p: [i32; 2] = [1, 2];\n"
                   "let q: [i32; 3] = [1, 2, 3];\nlet a = dbl(i);\nlet b = dbl(i + 1);\nlet c = dbl(x);\n"
                   "let v = dbl(p);\nlet w = dbl(q);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  std::vector<const Unit*> fns;
  for (auto& u : c->cx->units)
    if (u->kind == Unit::Kind::Fn) fns.push_back(u.get());
  ASSERT_EQ(fns.size(), 3u);
  std::set<std::string> keys;
  for (auto* u : fns) keys.insert(u->key);
  EXPECT_EQ(keys.size(), 3u) << "keys must be distinct";
  // The calls of one signature point at one unit, the others at different ones.
  std::map<std::string, const Unit*> target;
  for (const char* n : {"a", "b", "c", "v", "w"}) {
    auto calls = nodes_of(c->stmt(ir::Kind::Let, n), ir::Kind::Call);
    ASSERT_EQ(calls.size(), 1u) << n;
    auto it = c->cell().call_targets.find(calls[0]->id);
    ASSERT_NE(it, c->cell().call_targets.end()) << n;
    target[n] = it->second;
  }
  EXPECT_EQ(target["a"], target["b"]);
  EXPECT_EQ(target["v"], target["w"]);
  EXPECT_NE(target["a"], target["c"]);
  EXPECT_NE(target["a"], target["v"]);
  EXPECT_NE(target["c"], target["v"]);
  EXPECT_EQ(ir::type_name(target["c"]->ret_type), "f32");
  EXPECT_EQ(ir::type_name(target["v"]->ret_type), "[i32]");
  EXPECT_EQ(c->type_name_of("c"), "f32");
}

TEST(Types, RankIsPartOfTheSpecialisationKey) {
  auto c = compile("fn id(x) { x }\nlet a = id([1, 2]);\nlet b = id([[1], [2]]);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  int fns = 0;
  for (auto& u : c->cx->units) fns += u->kind == Unit::Kind::Fn;
  EXPECT_EQ(fns, 2);
  EXPECT_EQ(c->type_name_of("b"), "[i32; ?, ?]");
}

TEST(Types, LambdasAreSpecialisedToo) {
  auto c = compile("let add = |a, b| a + b;\nlet one: i32 = 1;\nlet h: f32 = 1.5;\n"
                   "let i = add(one, 2);\nlet f = add(h, 2.5);\nlet j = add(one, 4);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  int lambdas = 0;
  for (auto& u : c->cx->units) lambdas += u->kind == Unit::Kind::Lambda;
  EXPECT_EQ(lambdas, 2);
  EXPECT_EQ(c->type_name_of("i"), "i32");
  EXPECT_EQ(c->type_name_of("f"), "f32");
}

TEST(Types, AnnotatedParameterIsCheckedAtTheCall) {
  auto c = compile("fn f(a: i32) -> i32 { a + 1 }\nlet x = f(2.0);\n");
  const Diagnostic* d = c->diag("E002");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 2);
}

TEST(Types, DeclaredReturnTypeIsChecked) {
  auto c = compile("fn f(a: i32) -> f32 { a }\nlet x = f(1);\n");
  const Diagnostic* d = c->diag("E002");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 1);
}

TEST(Types, WrongArgumentCountIsE002) {
  auto c = compile("fn f(a, b) { a + b }\nlet x = f(1);\n");
  EXPECT_TRUE(c->has_code("E002")) << c->rendered();
}

TEST(Types, TuplesAndDestructuring) {
  auto c = compile("let p = (3, 4.5);\nlet (a, b) = p;\nlet q = p.1;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(c->type_name_of("p"), "(i32, f32)");
  EXPECT_EQ(c->type_name_of("q"), "f32");
  auto bad = compile("let (a, b, c) = (1, 2);\n");
  EXPECT_TRUE(bad->has_code("E002")) << bad->rendered();
}

TEST(Types, IndexMustBeAnInteger) {
  auto c = compile("let v = [1, 2];\nlet f = 1.0;\nprint(v[f]);\n");
  EXPECT_TRUE(c->has_code("E002")) << c->rendered();
}

TEST(Types, FloatLiteralIndexIsACompileError) {
  auto c = compile("let v = [1, 2];\nprint(v[1.0]);\n");
  EXPECT_TRUE(c->has_code("E002")) << c->rendered();
}

TEST(Types, UnknownTypeNameIsE002) {
  auto c = compile("let x: float128 = 1.0;\n");
  EXPECT_TRUE(c->has_code("E002")) << c->rendered();
}

TEST(Types, SeveralIndependentErrorsAreAllReported) {
  // SPEC §9: report every independent compile error.
  auto c = compile("let i = 1;\nlet a = i + 2.0;\nlet b = \"x\" * 3;\n");
  int e002 = 0;
  for (auto& code : c->codes()) e002 += code == "E002";
  EXPECT_GE(e002, 2) << c->rendered();
}

}  // namespace
}  // namespace ein::testing
