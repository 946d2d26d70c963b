// Expression forms and precedence, checked as one-line S-expressions.
#include <gtest/gtest.h>

#include "lang/syntax/parser.h"

namespace ein {
namespace {

std::string sx(const ir::NodeRef& n) { return ir::to_sexpr(n, {.defids = false, .indent = 0}); }

// Parses `src` as a program whose only item is a trailing expression and returns that expression.
std::string ex(const std::string& src) {
  SourceMap sm;
  ParseResult r = parse_program(sm, sm.add("t", src));
  for (const auto& d : r.diags) ADD_FAILURE() << src << ": " << d.message;
  if (!r.program->has(ir::kHasTail) || r.program->size() != 1) {
    ADD_FAILURE() << src << ": not a single trailing expression: " << sx(r.program);
    return "";
  }
  return sx(r.program->kids.back());
}

TEST(ParseExpr, Literals) {
  EXPECT_EQ(ex("42"), "(IntLit 42)");
  EXPECT_EQ(ex("3.14"), "(FloatLit 3.14)");
  EXPECT_EQ(ex("1e-3"), "(FloatLit 1e-3)");
  EXPECT_EQ(ex(".5"), "(FloatLit .5)");
  EXPECT_EQ(ex("1.5e+10"), "(FloatLit 1.5e+10)");
  EXPECT_EQ(ex("true"), "(BoolLit true)");
  EXPECT_EQ(ex("false"), "(BoolLit false)");
  EXPECT_EQ(ex(R"("a\tb\n\"\\\{\}")"), R"((StrLit "a	b\n\"\\{}"))");
  EXPECT_EQ(ex("9223372036854775807"), "(IntLit 9223372036854775807)");
}

TEST(ParseExpr, FloatValue) {
  SourceMap sm;
  ParseResult r = parse_program(sm, sm.add("t", "1.5e+10"));
  ASSERT_TRUE(r.diags.empty());
  EXPECT_DOUBLE_EQ(r.program->kids[0]->fval, 1.5e10);
  EXPECT_EQ(r.program->kids[0]->name, "1.5e+10");
}

TEST(ParseExpr, Precedence) {
  EXPECT_EQ(ex("1 + 2 * 3"), "(Binary + (IntLit 1) (Binary * (IntLit 2) (IntLit 3)))");
  EXPECT_EQ(ex("10 - 2 - 3"), "(Binary - (Binary - (IntLit 10) (IntLit 2)) (IntLit 3))");
  EXPECT_EQ(ex("2 ** 3 ** 2"), "(Binary ** (IntLit 2) (Binary ** (IntLit 3) (IntLit 2)))");
  EXPECT_EQ(ex("-3.7 as i32"), "(Cast (Unary - (FloatLit 3.7)) (TyPrim i32))");
  EXPECT_EQ(ex("5 as f32 / 2.0"), "(Binary / (Cast (IntLit 5) (TyPrim f32)) (FloatLit 2.0))");
  EXPECT_EQ(ex("-(2 + 3) * 2"),
            "(Binary * (Unary - (Binary + (IntLit 2) (IntLit 3))) (IntLit 2))");
  EXPECT_EQ(ex("a ** b as f32"), "(Binary ** (Name a) (Cast (Name b) (TyPrim f32)))");
  EXPECT_EQ(ex("-x ** 2"), "(Binary ** (Unary - (Name x)) (IntLit 2))");
  EXPECT_EQ(ex("a * b % c / d"),
            "(Binary / (Binary % (Binary * (Name a) (Name b)) (Name c)) (Name d))");
  EXPECT_EQ(ex("1 < 2 && 2 < 3"),
            "(Binary && (Binary < (IntLit 1) (IntLit 2)) (Binary < (IntLit 2) (IntLit 3)))");
  EXPECT_EQ(ex("a || b && c"), "(Binary || (Name a) (Binary && (Name b) (Name c)))");
  EXPECT_EQ(ex("!(3 == 4)"), "(Unary ! (Binary == (IntLit 3) (IntLit 4)))");
  EXPECT_EQ(ex("a == b < c"), "(Binary == (Name a) (Binary < (Name b) (Name c)))");
  EXPECT_EQ(ex("x in 0..n + 1"),
            "(Binary in (Name x) (RangeLit (IntLit 0) (Binary + (Name n) (IntLit 1))))");
  EXPECT_EQ(ex("3 in 0..=3"), "(Binary in (IntLit 3) (RangeLit [incl] (IntLit 0) (IntLit 3)))");
  EXPECT_EQ(ex("a >= b != c <= d"),
            "(Binary != (Binary >= (Name a) (Name b)) (Binary <= (Name c) (Name d)))");
  EXPECT_EQ(ex("x as f32 as f64"), "(Cast (Cast (Name x) (TyPrim f32)) (TyPrim f64))");
}

TEST(ParseExpr, PipeAndDiff) {
  EXPECT_EQ(ex("x |> f"), "(Call (Name f) (Name x))");
  EXPECT_EQ(ex("4 |> double |> square"),
            "(Call (Name square) (Call (Name double) (IntLit 4)))");
  EXPECT_EQ(ex("a + 1 |> f"), "(Call (Name f) (Binary + (Name a) (IntLit 1)))");
  EXPECT_EQ(ex("@y / @x"), "(Binary / (Diff (Name y)) (Diff (Name x)))");
  EXPECT_EQ(ex("@x[T - 1]"), "(Diff (Index (Name x) (Binary - (Name T) (IntLit 1))))");
  EXPECT_EQ(ex("@(x * x) / @x"),
            "(Binary / (Diff (Binary * (Name x) (Name x))) (Diff (Name x)))");
}

TEST(ParseExpr, Postfix) {
  EXPECT_EQ(ex("f(a, b)"), "(Call (Name f) (Name a) (Name b))");
  EXPECT_EQ(ex("f()"), "(Call (Name f))");
  EXPECT_EQ(ex("f(a,)"), "(Call (Name f) (Name a))");
  EXPECT_EQ(ex("f(x)(y)"), "(Call (Call (Name f) (Name x)) (Name y))");
  EXPECT_EQ(ex("a[i, j]"), "(Index (Name a) (Name i) (Name j))");
  EXPECT_EQ(ex("a[..b, i]"), "(Index (Name a) (RestIdx b) (Name i))");
  EXPECT_EQ(ex("a[i][j]"), "(Index (Index (Name a) (Name i)) (Name j))");
  EXPECT_EQ(ex("M.shape"), "(Member shape (Name M))");
  EXPECT_EQ(ex("t.0"), "(Member 0 [field] (Name t))");
  EXPECT_EQ(ex("t.0.1"), "(Member 1 [field] (Member 0 [field] (Name t)))");
  EXPECT_EQ(ex("(1, 2).1"), "(Member 1 [field] (TupleLit (IntLit 1) (IntLit 2)))");
  EXPECT_EQ(ex("f(x).0"), "(Member 0 [field] (Call (Name f) (Name x)))");
  EXPECT_EQ(ex("std::math::exp(x)"), "(Call (Path std::math::exp) (Name x))");
  EXPECT_EQ(ex("m::sqrt(81.0)"), "(Call (Path m::sqrt) (FloatLit 81.0))");
  EXPECT_EQ(ex("std::ml::where(c)"), "(Call (Path std::ml::where) (Name c))");
  EXPECT_EQ(ex("-a.b[0]"), "(Unary - (Index (Member b (Name a)) (IntLit 0)))");
}

TEST(ParseExpr, TuplesArraysRanges) {
  EXPECT_EQ(ex("(1, 2.5)"), "(TupleLit (IntLit 1) (FloatLit 2.5))");
  EXPECT_EQ(ex("(1, \"a\", true,)"), "(TupleLit (IntLit 1) (StrLit \"a\") (BoolLit true))");
  EXPECT_EQ(ex("()"), "(TupleLit)");
  EXPECT_EQ(ex("((1))"), "(IntLit 1)");
  EXPECT_EQ(ex("[1, 2, 3]"), "(ArrayLit (IntLit 1) (IntLit 2) (IntLit 3))");
  EXPECT_EQ(ex("[[1, 2], [3, 4],]"),
            "(ArrayLit (ArrayLit (IntLit 1) (IntLit 2)) (ArrayLit (IntLit 3) (IntLit 4)))");
  EXPECT_EQ(ex("[]"), "(ArrayLit)");
  EXPECT_EQ(ex("1..5"), "(RangeLit (IntLit 1) (IntLit 5))");
  EXPECT_EQ(ex("0..=n"), "(RangeLit [incl] (IntLit 0) (Name n))");
}

TEST(ParseExpr, Comprehensions) {
  EXPECT_EQ(ex("[x * x | x in xs]"),
            "(Comp (Binary * (Name x) (Name x)) (CompGen x (Name xs)))");
  EXPECT_EQ(ex("[y | x in data, y = x * x, y > 10]"),
            "(Comp (Name y) (CompGen x (Name data)) (CompLet y (Binary * (Name x) (Name x))) "
            "(CompGuard (Binary > (Name y) (IntLit 10))))");
  EXPECT_EQ(ex("[i + j | i in 0..3, j in 0..2,]"),
            "(Comp (Binary + (Name i) (Name j)) (CompGen i (RangeLit (IntLit 0) (IntLit 3))) "
            "(CompGen j (RangeLit (IntLit 0) (IntLit 2))))");
  EXPECT_EQ(ex("[a || b | a in xs]"),
            "(Comp (Binary || (Name a) (Name b)) (CompGen a (Name xs)))");
}

TEST(ParseExpr, Lambdas) {
  EXPECT_EQ(ex("|x, y| x + y"), "(Lambda (Binary + (Name x) (Name y)) (Param x _) (Param y _))");
  EXPECT_EQ(ex("|v: f32| v * 2.0"),
            "(Lambda (Binary * (Name v) (FloatLit 2.0)) (Param v (TyPrim f32)))");
  EXPECT_EQ(ex("|| 42"), "(Lambda (IntLit 42))");
  EXPECT_EQ(ex("apply(|z| z + 100, 1)"),
            "(Call (Name apply) (Lambda (Binary + (Name z) (IntLit 100)) (Param z _)) (IntLit 1))");
}

TEST(ParseExpr, Reductions) {
  EXPECT_EQ(ex("sum[k](A[i, k])"), "(Reduce sum (Index (Name A) (Name i) (Name k)) (IdxVar k))");
  EXPECT_EQ(ex("prod[i in 1..6](i)"),
            "(Reduce prod (Name i) (IdxIn i (RangeLit (IntLit 1) (IntLit 6))))");
  EXPECT_EQ(ex("sum[..r](v[..r])"), "(Reduce sum (Index (Name v) (RestIdx r)) (IdxRest r))");
  EXPECT_EQ(ex("argmax[i, j](M[i, j])"),
            "(Reduce argmax (Index (Name M) (Name i) (Name j)) (IdxVar i) (IdxVar j))");
  EXPECT_EQ(ex("sum[k in 0..i + 1](k)"),
            "(Reduce sum (Name k) (IdxIn k (RangeLit (IntLit 0) (Binary + (Name i) (IntLit 1)))))");
  EXPECT_EQ(ex("sum[k](x[k] where x[k] > 0.0)"),
            "(Reduce sum (Where (Index (Name x) (Name k)) (WGuard (Binary > (Index (Name x) "
            "(Name k)) (FloatLit 0.0)))) (IdxVar k))");
  // Not followed by `[...](`: ordinary names.
  EXPECT_EQ(ex("sum(a)"), "(Call (Name sum) (Name a))");
  EXPECT_EQ(ex("max"), "(Name max)");
  EXPECT_EQ(ex("max[0]"), "(Index (Name max) (IntLit 0))");
  EXPECT_EQ(ex("sum[i](max[j](M[i, j]))"),
            "(Reduce sum (Reduce max (Index (Name M) (Name i) (Name j)) (IdxVar j)) (IdxVar i))");
}

TEST(ParseExpr, Interpolation) {
  EXPECT_EQ(ex(R"("hello {name}, {a + b}, {pi:.4f}")"),
            "(Interp (StrLit \"hello \") (InterpHole (Name name)) (StrLit \", \") "
            "(InterpHole (Binary + (Name a) (Name b))) (StrLit \", \") "
            "(InterpHole aux=.4f (Name pi)))");
  EXPECT_EQ(ex(R"("braces {{ok}}")"), "(StrLit \"braces {ok}\")");
  EXPECT_EQ(ex(R"("{m::f(x)}")"), "(Interp (InterpHole (Call (Path m::f) (Name x))))");
  EXPECT_EQ(ex(R"("{t.0:8.2f}!")"),
            "(Interp (InterpHole aux=8.2f (Member 0 [field] (Name t))) (StrLit \"!\"))");
  EXPECT_EQ(ex(R"("{ {1} }")"), "(Interp (InterpHole (Block [tail] (IntLit 1))))");
}

TEST(ParseExpr, ControlFlow) {
  EXPECT_EQ(ex("if c { a } else if d { b } else { c }"),
            "(If (Name c) (Block [tail] (Name a)) (If (Name d) (Block [tail] (Name b)) "
            "(Block [tail] (Name c))))");
  EXPECT_EQ(ex("if c { a }"), "(If (Name c) (Block [tail] (Name a)) _)");
  EXPECT_EQ(ex("{ let a = 2; a }"), "(Block [tail] (Let (PBind a) _ (IntLit 2)) (Name a))");
  EXPECT_EQ(ex("{ f(); }"), "(Block (ExprStmt (Call (Name f))))");
  EXPECT_EQ(ex("{ if a { f(); } g() }"),
            "(Block [tail] (ExprStmt (If (Name a) (Block (ExprStmt (Call (Name f)))) _)) "
            "(Call (Name g)))");
  EXPECT_EQ(ex("{ if a { 1 } else { 2 } }"),
            "(Block [tail] (If (Name a) (Block [tail] (IntLit 1)) (Block [tail] (IntLit 2))))");
  EXPECT_EQ(ex("{ {1} - 1 }"),
            "(Block [tail] (ExprStmt (Block [tail] (IntLit 1))) (Unary - (IntLit 1)))");
  EXPECT_EQ(ex("match x { _ => 1 } * 2"),
            "(Binary * (Match (Name x) (Arm (PWild) _ (IntLit 1))) (IntLit 2))");
  EXPECT_EQ(ex("if a { 1 } else { 2 } |> f"),
            "(Call (Name f) (If (Name a) (Block [tail] (IntLit 1)) (Block [tail] (IntLit 2))))");
  EXPECT_EQ(ex("{ {(1, 2)}.0 }"),
            "(Block [tail] (Member 0 [field] (Block [tail] (TupleLit (IntLit 1) (IntLit 2)))))");
}

TEST(ParseExpr, Match) {
  EXPECT_EQ(ex("match v { 0 => a, 1 | 2 => b, 3..=9 => c, n where n > 9 => d, "
               "(true, false) => e, _ => f, }"),
            "(Match (Name v) (Arm (PLit (IntLit 0)) _ (Name a)) "
            "(Arm (POr (PLit (IntLit 1)) (PLit (IntLit 2))) _ (Name b)) "
            "(Arm (PRange [incl] (IntLit 3) (IntLit 9)) _ (Name c)) "
            "(Arm (PBind n) (Binary > (Name n) (IntLit 9)) (Name d)) "
            "(Arm (PTuple (PLit (BoolLit true)) (PLit (BoolLit false))) _ (Name e)) "
            "(Arm (PWild) _ (Name f)))");
  EXPECT_EQ(ex("match x { n if n < 0 => { 1 } -1 => 2.5, \"s\" => 3, 0..5 => 4 }"),
            "(Match (Name x) (Arm (PBind n) (Binary < (Name n) (IntLit 0)) (Block [tail] "
            "(IntLit 1))) (Arm (PLit (Unary - (IntLit 1))) _ (FloatLit 2.5)) "
            "(Arm (PLit (StrLit \"s\")) _ (IntLit 3)) (Arm (PRange (IntLit 0) (IntLit 5)) _ "
            "(IntLit 4)))");
  EXPECT_EQ(ex("match t { (a, _) => a }"),
            "(Match (Name t) (Arm (PTuple (PBind a) (PWild)) _ (Name a)))");
}

}  // namespace
}  // namespace ein
