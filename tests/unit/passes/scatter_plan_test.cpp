// The scatter plan (lang/passes/scatter_plan.h) recognises a key test however it is written: a
// guard `v where k == b`, the same sum written with `else 0` (adding 0 changes no sum), and the
// index widened to compare with an i64 key (`k == b as i64`). A term reading the keyed index, or
// an `else` that is not 0, keeps the per-point sum.
#include <gtest/gtest.h>

#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {
namespace {

bool scattered(Compiled& c, const std::string& name) {
  ir::NodeRef t = c.ltensor(name);
  EXPECT_TRUE(t) << "no LTensor " << name;
  return t && t->aux.rfind("scatter:", 0) == 0;
}

TEST(ScatterPlan, ElseZeroAndWidenedIndexAreKeyTests) {
  auto c = compile(
      "let label[n in 0..50] = (n * 7) % 9;\n"
      "let key[n in 0..50] = ((n * 5) % 9) as i64;\n"
      "let w[n in 0..50] = n as f64;\n"
      "let g[c in 0..9] = sum[n](w[n] where label[n] == c);\n"
      "let e[c in 0..9] = sum[n](w[n] where label[n] == c else 0.0);\n"
      "let k[c in 0..9] = sum[n](1 where key[n] == c as i64 else 0);\n"
      "let u[c in 0..9] = sum[n](w[n] * c as f64 where label[n] == c else 0.0);\n"
      "let o[c in 0..9] = sum[n](w[n] where label[n] == c else 1.0);\n",
      {});
  ASSERT_TRUE(c->ok);
  EXPECT_TRUE(scattered(*c, "g"));
  EXPECT_TRUE(scattered(*c, "e"));
  EXPECT_TRUE(scattered(*c, "k"));
  EXPECT_FALSE(scattered(*c, "u"));
  EXPECT_FALSE(scattered(*c, "o"));
}

}  // namespace
}  // namespace ein::testing
