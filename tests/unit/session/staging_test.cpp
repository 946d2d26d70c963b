// Cells staged around values typed only at run time (engine/session/staging.h). A reshape to a
// shape held in a binding is such a value, like an unannotated load_npy result, without a file.
// Expected values by hand: softmax of [0, 0] is [0.5, 0.5].
#include <gtest/gtest.h>

#include "tests/unit/interp/interp_fixture.h"

namespace ein::testing {
namespace {

const char* kDynamic = "use std::ml::*;\nlet s = [1, 2];\nlet v: [f64; 2] = [0.0, 0.0];\nlet y = reshape(v, s);\n";

TEST(Staging, LibraryCallOnARunTimeTypedValueInTheSameCell) {
  Sess s;
  // softmax's rest pattern needs y's rank: the cell runs in two parts.
  EXPECT_EQ(s.run(std::string(kDynamic) + "print(softmax(y));\nprint(softmax(y)[0, 1]);"),
            "[[0.5, 0.5]]\n0.5\n");
  ASSERT_TRUE(s.last.ok) << s.last.rendered;
  EXPECT_EQ(s.last.number, 1);
  EXPECT_EQ(s.s->execution_count(), 1);
  EXPECT_EQ(s.run("print(typeof(y));"), "[f64; 1, 2]\n");
}

TEST(Staging, TheCellKeepsItsLinesColumnsAndName) {
  Sess s;
  s.run(std::string(kDynamic) + "print(softmax(y));\nlet bad = softmax(y)[0, 0] + \"text\";");
  EXPECT_EQ(s.code(), "E002");
  EXPECT_EQ(s.line(), 6);
  EXPECT_NE(s.last.rendered.find("--> cell[1]:6:11"), std::string::npos) << s.last.rendered;
}

TEST(Staging, FunctionsBelowTheBindingAreCallableAboveIt) {
  Sess s;
  EXPECT_EQ(s.run(std::string(kDynamic) + "print(first(y));\nfn first(a) { softmax(a)[0, 0] }"), "0.5\n");
  ASSERT_TRUE(s.last.ok) << s.last.rendered;
}

TEST(Staging, AnErrorAboveTheBindingStopsTheWholeCell) {
  Sess s;
  // Exact types of y cannot help an error above it: one compile, nothing runs (SPEC §11).
  EXPECT_EQ(s.run("use std::ml::*;\nprint(1);\nlet z = [1.0][0, 0];\nlet s = [1, 2];\n"
                  "let y = reshape([0.0, 1.0], s);\nprint(softmax(y));"),
            "");
  EXPECT_TRUE(s.last.compile_error);
  EXPECT_EQ(s.code(), "E004");
  EXPECT_EQ(s.line(), 3);
  EXPECT_EQ(s.value_text("y"), "<unbound>");
}

TEST(Staging, GradientsThroughTheStagedBindingAreTaken) {
  Sess s;
  // d/dy sum(softmax(y) * [1, 0]) = p0 * (e0 - p) = [0.5 * 0.5, -0.5 * 0.5].
  EXPECT_EQ(s.run(std::string(kDynamic) +
                  "let p = softmax(y);\nlet L = sum[j](p[0, j] * [1.0, 0.0][j]);\nprint(@L / @y);"),
            "[[0.25, -0.25]]\n");
  ASSERT_TRUE(s.last.ok) << s.last.rendered;
}

}  // namespace
}  // namespace ein::testing
