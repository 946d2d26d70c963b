// The layout table is the contract between node builders and readers: these tests check that a
// node breaking it is refused where it is built, and that an accessor refuses a node of another
// kind instead of reading whatever sits at that position.
#include <gtest/gtest.h>

#include <stdexcept>

#include "lang/ir/node.h"

namespace ir = ein::ir;
using ir::Kind;

TEST(Layout, WellFormedNodesPassAndAccessorsNameTheirKids) {
  auto a = ir::make_int(1), b = ir::make_int(2);
  auto sum = ir::make_binary(ir::BinOp::Add, a, b);
  EXPECT_EQ(ir::bin_lhs(sum), a);
  EXPECT_EQ(ir::bin_rhs(*sum), b);
  auto call = ir::make_call(ir::make_name("f"), {a, b});
  ASSERT_EQ(ir::call_args_count(call), 2u);
  EXPECT_EQ(ir::call_args(call)[1], b);
  EXPECT_EQ(ir::call_args_begin(), 1u);
}

TEST(Layout, WrongArityIsRefusedAtConstruction) {
  auto a = ir::make_int(1);
  EXPECT_THROW(ir::make({.kind = Kind::Binary, .kids = {a}}), std::logic_error);
  EXPECT_THROW(ir::make({.kind = Kind::Binary, .kids = {a, a, a}}), std::logic_error);
  EXPECT_THROW(ir::make({.kind = Kind::IntLit, .kids = {a}}), std::logic_error);
  // A variadic tail needs its fixed head.
  EXPECT_THROW(ir::make({.kind = Kind::Call}), std::logic_error);
}

TEST(Layout, NullOnlyWhereTheLayoutAllowsIt) {
  auto a = ir::make_int(1);
  auto blk = ir::make({.kind = Kind::Block});
  // If: cond, then, else? — else may be absent or null, cond may not be null.
  EXPECT_NO_THROW(ir::make({.kind = Kind::If, .kids = {a, blk}}));
  EXPECT_NO_THROW(ir::make({.kind = Kind::If, .kids = {a, blk, nullptr}}));
  EXPECT_THROW(ir::make({.kind = Kind::If, .kids = {nullptr, blk}}), std::logic_error);
  // Let: pattern, type (may be null), value.
  auto pat = ir::make({.kind = Kind::PBind, .name = "x"});
  auto let = ir::make({.kind = Kind::Let, .kids = {pat, nullptr, a}});
  EXPECT_EQ(ir::let_type(let), nullptr);
  EXPECT_EQ(ir::let_value(let), a);
  EXPECT_THROW(ir::make({.kind = Kind::Let, .kids = {pat, nullptr}}), std::logic_error);
  EXPECT_THROW(ir::make({.kind = Kind::ArrayLit, .kids = {a, nullptr}}), std::logic_error);
}

TEST(Layout, EditsAreCheckedToo) {
  auto sum = ir::make_binary(ir::BinOp::Add, ir::make_int(1), ir::make_int(2));
  EXPECT_THROW(ir::with_kids(sum, {ir::make_int(1)}), std::logic_error);
  EXPECT_THROW(ir::edited(sum, [](ir::Node& n) { n.kids.pop_back(); }), std::logic_error);
}

TEST(Layout, AccessorOfAnotherKindIsRefused) {
  auto sum = ir::make_binary(ir::BinOp::Add, ir::make_int(1), ir::make_int(2));
  EXPECT_THROW(ir::call_callee(sum), std::logic_error);
  EXPECT_THROW(ir::let_value(*sum), std::logic_error);
}

TEST(Layout, DiffFnSharesTheLayoutOfFn) {
  auto body = ir::make({.kind = Kind::Block});
  auto f = ir::make({.kind = Kind::DiffFn, .kids = {nullptr, body}, .name = "f"});
  EXPECT_EQ(ir::fn_body(f), body);
  EXPECT_EQ(ir::fn_params_count(f), 0u);
}
