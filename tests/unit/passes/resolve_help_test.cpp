// Name resolution's E003 help lines (SPEC §9): what a user who forgot an import, mistyped a
// name or used a module as a value is told. Each expectation is the fix a reader would apply.
#include <gtest/gtest.h>

#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {
namespace {

const Diagnostic* only_e003(Compiled& c) {
  EXPECT_FALSE(c.ok);
  const Diagnostic* d = c.diag("E003");
  EXPECT_NE(d, nullptr) << c.rendered();
  return d;
}

TEST(ResolveHelp, StdFunctionWithoutUseNamesItsModule) {
  auto c = compile("let x = 2.0;\nlet y = exp(x);\n");
  const Diagnostic* d = only_e003(*c);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(c->text_of(d->primary), "exp");
  EXPECT_NE(d->help.find("use std::math"), std::string::npos) << d->help;
}

TEST(ResolveHelp, StdNameOutranksANearMissLocal) {
  // `ln` is one edit away from the index `n`; the missing import is the likelier fix.
  auto c = compile("let p = [0.5, 0.25];\nlet s = sum[n](ln(p[n]));\n");
  const Diagnostic* d = only_e003(*c);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(c->text_of(d->primary), "ln");
  EXPECT_NE(d->help.find("use std::math"), std::string::npos) << d->help;
  EXPECT_EQ(d->help.find("similar name"), std::string::npos) << d->help;
}

TEST(ResolveHelp, TypoOfALocalSuggestsTheLocal) {
  auto c = compile("let weights = [1.0, 2.0];\nlet s = sum(weigths);\n");
  const Diagnostic* d = only_e003(*c);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->help.find("`weights`"), std::string::npos) << d->help;
}

TEST(ResolveHelp, UnknownNameWithoutCandidatesHasNoMisleadingHelp) {
  auto c = compile("let s = zzqqxx + 1;\n");
  const Diagnostic* d = only_e003(*c);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->help.find("use std"), std::string::npos) << d->help;
  EXPECT_EQ(d->help.find("similar name"), std::string::npos) << d->help;
}

}  // namespace
}  // namespace ein::testing
