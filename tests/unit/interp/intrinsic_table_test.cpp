// The interpreter maps each math intrinsic of the builtin crate (`__sqrt`, ...) to the
// elementwise function by position (math_fn_of): this checks, name by name, that the position
// gives the function of the same name, so that adding an intrinsic in one enum only cannot
// silently make `sqrt` compute something else.
#include <gtest/gtest.h>

#include <string>

#include "engine/interp/interp_impl.h"

namespace ein {
namespace {

TEST(IntrinsicTable, EveryMathIntrinsicMapsToTheFunctionOfItsName) {
  int checked = 0;
  for (int i = 0; i < static_cast<int>(Builtin::Count_); ++i) {
    Builtin b = static_cast<Builtin>(i);
    if (!is_math_intrinsic(b)) continue;
    std::string name = builtin_info(b).name;
    ASSERT_EQ(name.rfind("__", 0), 0u) << name;
    auto by_name = mathfn_from_name(name.substr(2));
    ASSERT_TRUE(by_name.has_value()) << name;
    EXPECT_EQ(static_cast<int>(*by_name), static_cast<int>(math_fn_of(b))) << name;
    EXPECT_EQ(is_binary_math_intrinsic(b), *by_name >= MathFn::Atan2) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 32);
}

// Printed differentials show `tanh(x)`, not the intrinsic's source name `__tanh(x)`.
TEST(IntrinsicTable, ShownNamesDropTheIntrinsicPrefixOnly) {
  for (int i = 0; i < static_cast<int>(Builtin::Count_); ++i) {
    Builtin b = static_cast<Builtin>(i);
    std::string name = builtin_info(b).name, shown = builtin_shown_name(b);
    if (builtin_info(b).intrinsic) {
      ASSERT_EQ(name.rfind("__", 0), 0u) << name;
      EXPECT_EQ("__" + shown, name);
    } else {
      EXPECT_EQ(shown, name);
    }
  }
  EXPECT_STREQ(builtin_shown_name(Builtin::Tanh), "tanh");
  EXPECT_STREQ(builtin_shown_name(Builtin::Print), "print");
}

}  // namespace
}  // namespace ein
