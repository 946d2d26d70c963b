// E003's help names the module that exports a missing name (`add use std::math::sqrt`). The
// index is read from the syntax trees of share/std: the expected homes below are read off the
// library's sources (the `pub fn` / `pub const` lines and the `pub use` re-exports of its mods).
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/session/session.h"
#include "lang/resolve/resolver.h"
#include "lang/syntax/source.h"

namespace ein {
namespace {

std::vector<std::string> homes(const std::string& name) {
  SourceMap sm;
  Resolver r(sm, ResolverOptions{default_share_dir(), "."});
  std::vector<std::string> h;
  for (const ir::ModPath& p : r.std_homes(name)) h.push_back(p.text());
  std::sort(h.begin(), h.end());
  return h;
}

TEST(StdHomes, PublicItemsAreFoundAtTheShortestExportingPath) {
  // math/basic.ein defines it, math/mod.ein re-exports it.
  EXPECT_EQ(homes("sqrt"), std::vector<std::string>{"std::math"});
  // A const of a nested module (math/constants/mod.ein).
  EXPECT_EQ(homes("PI"), std::vector<std::string>{"std::math"});
  // Defined in two places: array/reduce.ein and ml/selection_ops.ein.
  EXPECT_EQ(homes("argmax"), (std::vector<std::string>{"std::array", "std::ml"}));
}

TEST(StdHomes, PrivateItemsAndUnknownNamesHaveNone) {
  EXPECT_TRUE(homes("merge_leading").empty());  // `fn merge_leading` in array/shape.ein
  EXPECT_TRUE(homes("no_such_item_anywhere").empty());
}

}  // namespace
}  // namespace ein
