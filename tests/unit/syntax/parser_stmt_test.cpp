// Statements, items, types and spans.
#include <gtest/gtest.h>

#include "lang/syntax/parser.h"

namespace ein {
namespace {

std::string sx(const ir::NodeRef& n) { return ir::to_sexpr(n, {.defids = false, .indent = 0}); }

// The program's S-expression without the surrounding "(Program ...)".
std::string st(const std::string& src) {
  SourceMap sm;
  ParseResult r = parse_program(sm, sm.add("t", src));
  for (const auto& d : r.diags) ADD_FAILURE() << src << ": " << d.message;
  std::string out;
  for (const auto& k : r.program->kids) out += (out.empty() ? "" : " ") + sx(k);
  return out;
}

TEST(ParseStmt, Lets) {
  EXPECT_EQ(st("let x = 1;"), "(Let (PBind x) _ (IntLit 1))");
  EXPECT_EQ(st("let x: i64 = 1;"), "(Let (PBind x) (TyPrim i64) (IntLit 1))");
  EXPECT_EQ(st("let (a, b) = p;"), "(Let (PTuple (PBind a) (PBind b)) _ (Name p))");
  EXPECT_EQ(st("let (a, (b, _)) = p;"),
            "(Let (PTuple (PBind a) (PTuple (PBind b) (PWild))) _ (Name p))");
  EXPECT_EQ(st("let _ = f();"), "(Let (PBind _) _ (Call (Name f)))");
  EXPECT_EQ(st("const N = 16;"), "(Const N _ (IntLit 16))");
  EXPECT_EQ(st("pub const N: i32 = 16;"), "(Const N [pub] (TyPrim i32) (IntLit 16))");
}

TEST(ParseStmt, EinsteinDeclarations) {
  EXPECT_EQ(st("let X[i, j] = A[j, i];"),
            "(EinDecl X (Index (Name A) (Name j) (Name i)) (IdxVar i) (IdxVar j))");
  EXPECT_EQ(st("let X[i in 0..N, 0] = 1;"),
            "(EinDecl X (IntLit 1) (IdxIn i (RangeLit (IntLit 0) (Name N))) (IdxLit 0))");
  EXPECT_EQ(st("let y[..b, c] = e;"), "(EinDecl y (Name e) (IdxRest b) (IdxVar c))");
  EXPECT_EQ(st("let C[i, j] = sum[k](A[i, k] * B[k, j]);"),
            "(EinDecl C (Reduce sum (Binary * (Index (Name A) (Name i) (Name k)) (Index (Name B) "
            "(Name k) (Name j))) (IdxVar k)) (IdxVar i) (IdxVar j))");
}

TEST(ParseStmt, WhereClauses) {
  EXPECT_EQ(st("let c[o] = sum[k](s[p] * w[k]) where p = o + k;"),
            "(EinDecl c (Where (Reduce sum (Binary * (Index (Name s) (Name p)) (Index (Name w) "
            "(Name k))) (IdxVar k)) (WBind p (Binary + (Name o) (Name k)))) (IdxVar o))");
  EXPECT_EQ(st("let u[i, j] = M[i, j] where i <= j;"),
            "(EinDecl u (Where (Index (Name M) (Name i) (Name j)) (WGuard (Binary <= (Name i) "
            "(Name j)))) (IdxVar i) (IdxVar j))");
  EXPECT_EQ(st("let c[i] = d[i] where d[i] > 0.0 else -1.0;"),
            "(EinDecl c (Where (Index (Name d) (Name i)) (WGuard (Binary > (Index (Name d) "
            "(Name i)) (FloatLit 0.0))) (WElse (Unary - (FloatLit 1.0)))) (IdxVar i))");
  EXPECT_EQ(st("let s = sum[k](d[k]) where k in 0..3;"),
            "(Let (PBind s) _ (Where (Reduce sum (Index (Name d) (Name k)) (IdxVar k)) "
            "(WGuard (Binary in (Name k) (RangeLit (IntLit 0) (IntLit 3))))))");
  EXPECT_EQ(st("let a = z where z = 1, y = z + 1, y > 0;"),
            "(Let (PBind a) _ (Where (Name z) (WBind z (IntLit 1)) (WBind y (Binary + (Name z) "
            "(IntLit 1))) (WGuard (Binary > (Name y) (IntLit 0)))))");
  EXPECT_EQ(st("const K = a where a = 2;"), "(Const K _ (Where (Name a) (WBind a (IntLit 2))))");
}

TEST(ParseStmt, Functions) {
  EXPECT_EQ(st("fn f(a, b: f32) -> f32 { a + b }"),
            "(Fn f (TyPrim f32) (Block [tail] (Binary + (Name a) (Name b))) (Param a _) "
            "(Param b (TyPrim f32)))");
  EXPECT_EQ(st("pub fn g() {}"), "(Fn g [pub] _ (Block))");
  EXPECT_EQ(st("@fn softclip(x) { 0.5 * @x }"),
            "(DiffFn softclip _ (Block [tail] (Binary * (FloatLit 0.5) (Diff (Name x)))) "
            "(Param x _))");
  EXPECT_EQ(st("fn d(n: i32, m: i32,) -> (i32, i32) { (n / m, n % m) }"),
            "(Fn d (TyTuple (TyPrim i32) (TyPrim i32)) (Block [tail] (TupleLit (Binary / (Name n) "
            "(Name m)) (Binary % (Name n) (Name m)))) (Param n (TyPrim i32)) "
            "(Param m (TyPrim i32)))");
  // Items need no `;`; an extra one is harmless.
  EXPECT_EQ(st("fn a() { 1 }; fn b() { 2 }"),
            "(Fn a _ (Block [tail] (IntLit 1))) (Fn b _ (Block [tail] (IntLit 2)))");
}

TEST(ParseStmt, UseAndMod) {
  EXPECT_EQ(st("use std::math::sqrt;"), "(Use std::math::sqrt kind=0)");
  EXPECT_EQ(st("use std::math as m;"), "(Use std::math kind=0 aux=m)");
  EXPECT_EQ(st("use std::math::{sin, cos as c,};"),
            "(Use std::math kind=1 (UseItem sin) (UseItem cos aux=c))");
  EXPECT_EQ(st("use std::array::*;"), "(Use std::array kind=2)");
  EXPECT_EQ(st("pub use a::b;"), "(Use a::b kind=0 [pub])");
  EXPECT_EQ(st("use geometry;"), "(Use geometry kind=0)");
  // SPEC §1: after `::` any word is a name, keywords included.
  EXPECT_EQ(st("use std::ml::where;"), "(Use std::ml::where kind=0)");
  EXPECT_EQ(st("use std::ml::{relu, where as w};"),
            "(Use std::ml kind=1 (UseItem relu) (UseItem where aux=w))");
  EXPECT_EQ(st("mod util;"), "(Mod util)");
  EXPECT_EQ(st("pub mod m { pub fn f() { 1 } const K = 2; }"),
            "(Mod m [pub] (Fn f [pub] _ (Block [tail] (IntLit 1))) (Const K _ (IntLit 2)))");
  SourceMap sm;
  ParseResult r = parse_program(sm, sm.add("t", "mod m { fn f() {} } mod n;"));
  ASSERT_TRUE(r.diags.empty());
  EXPECT_EQ(r.program->kids[0]->ival, 1);
  EXPECT_EQ(r.program->kids[1]->ival, 0);
}

TEST(ParseStmt, StructAndEnumAreSkipped) {
  EXPECT_EQ(st("struct S { a: i32, b: [f32; 2] } enum E { A, B(i32) } let x = 1;"),
            "(StructDecl S) (EnumDecl E) (Let (PBind x) _ (IntLit 1))");
  EXPECT_EQ(st("pub struct P(i32, f32); struct U;"), "(StructDecl P [pub]) (StructDecl U)");
}

TEST(ParseStmt, Types) {
  auto ty = [](const std::string& t) {
    std::string s = st("let v: " + t + " = 0;");
    return s.substr(15, s.size() - 15 - 12);  // strip "(Let (PBind v) " and " (IntLit 0))"
  };
  EXPECT_EQ(ty("f32"), "(TyPrim f32)");
  EXPECT_EQ(ty("[i32]"), "(TyArray (TyPrim i32))");
  EXPECT_EQ(ty("[f32; 2, 3]"), "(TyArray (TyPrim f32) (TyDim 2) (TyDim 3))");
  EXPECT_EQ(ty("[f32; ?, ?]"), "(TyArray (TyPrim f32) (TyDim -1) (TyDim -1))");
  EXPECT_EQ(ty("[f32; *]"), "(TyArray [anyrank] (TyPrim f32))");
  EXPECT_EQ(ty("jagged[i32]"), "(TyJagged (TyPrim i32))");
  EXPECT_EQ(ty("(i32, str)"), "(TyTuple (TyPrim i32) (TyPrim str))");
  EXPECT_EQ(ty("()"), "(TyTuple)");
  EXPECT_EQ(ty("(f32, f32) -> f32"), "(TyFn (TyPrim f32) (TyPrim f32) (TyPrim f32))");
  EXPECT_EQ(ty("() -> i32"), "(TyFn (TyPrim i32))");
  EXPECT_EQ(ty("Matrix"), "(TyPrim Matrix)");
  EXPECT_EQ(ty("[[bf16; 4]]"), "(TyArray (TyArray (TyPrim bf16) (TyDim 4)))");
}

TEST(ParseStmt, TailsAndBlockLikeStatements) {
  SourceMap sm;
  auto prog = [&](const std::string& src) {
    ParseResult r = parse_program(sm, sm.add("t", src));
    EXPECT_TRUE(r.diags.empty()) << src;
    return r.program;
  };
  EXPECT_TRUE(prog("let v = 1;\nv")->has(ir::kHasTail));
  EXPECT_FALSE(prog("let v = 1;\nv;")->has(ir::kHasTail));
  EXPECT_FALSE(prog("fn f() { 1 }")->has(ir::kHasTail));
  EXPECT_TRUE(prog("if a { 1 } else { 2 }")->has(ir::kHasTail));
  auto p = prog("if a { f(); }\nmatch x { _ => 1 }\nprint(2);");
  EXPECT_FALSE(p->has(ir::kHasTail));
  ASSERT_EQ(p->size(), 3u);
  EXPECT_EQ(p->kids[0]->kind, ir::Kind::ExprStmt);
  EXPECT_EQ(p->kids[1]->kind, ir::Kind::ExprStmt);
  EXPECT_EQ(st(";; let a = 1;;"), "(Let (PBind a) _ (IntLit 1))");
}

TEST(ParseSpans, NodesPointAtTheirSource) {
  SourceMap sm;
  std::string src = "let x = 1;\nlet C[i, j] = sum[k](A[i, k] * B[k, j]);\nprint(\"v={x + 1}\");";
  uint32_t id = sm.add("t", src);
  ParseResult r = parse_program(sm, id);
  ASSERT_TRUE(r.diags.empty());
  const auto& prog = *r.program;
  EXPECT_EQ(prog.span.lo, 0u);
  EXPECT_EQ(prog.span.hi, src.size());
  EXPECT_EQ(sm.snippet(prog.kids[0]->span), "let x = 1;");
  const auto& ein = *prog.kids[1];
  EXPECT_EQ(sm.start(ein.span).line, 2);
  EXPECT_EQ(sm.start(ein.span).col, 1);
  const auto& red = *ein.kids[0];
  EXPECT_EQ(sm.snippet(red.span), "sum[k](A[i, k] * B[k, j])");
  EXPECT_EQ(sm.start(red.span).col, 15);
  const auto& mul = *red.kids[0];
  EXPECT_EQ(sm.snippet(mul.span), "A[i, k] * B[k, j]");
  EXPECT_EQ(sm.snippet(mul.kids[1]->span), "B[k, j]");
  EXPECT_EQ(sm.snippet(ein.kids[2]->span), "j");
  // Interpolation holes are parsed in place: spans land inside the string.
  const auto& call = *prog.kids[2]->kids[0];
  const auto& interp = *call.kids[1];
  ASSERT_EQ(interp.kind, ir::Kind::Interp);
  EXPECT_EQ(sm.snippet(interp.span), "\"v={x + 1}\"");
  const auto& hole = *interp.kids[1];
  EXPECT_EQ(sm.snippet(hole.span), "{x + 1}");
  EXPECT_EQ(sm.snippet(hole.kids[0]->span), "x + 1");
  EXPECT_EQ(sm.snippet(hole.kids[0]->kids[1]->span), "1");
  EXPECT_EQ(sm.start(hole.kids[0]->span).line, 3);
  EXPECT_EQ(sm.start(hole.kids[0]->span).col, 11);
  for (const auto& k : prog.kids) EXPECT_EQ(k->span.file, id);
}

TEST(ParseSpans, ParenthesesAreInsideParentSpans) {
  SourceMap sm;
  ParseResult r = parse_program(sm, sm.add("t", "(a + b) * c"));
  ASSERT_TRUE(r.diags.empty());
  EXPECT_EQ(sm.snippet(r.program->kids[0]->span), "(a + b) * c");
  EXPECT_EQ(sm.snippet(r.program->kids[0]->kids[0]->span), "a + b");
}

}  // namespace
}  // namespace ein
