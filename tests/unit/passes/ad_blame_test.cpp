// Errors that passes after autodiff report inside a derivative request's span come from the
// code generated for the request: they become the request's E013 (SPEC §7: a request that
// cannot be lowered is E013 naming it), the original code kept in a note. Errors elsewhere
// (the primal's own) keep their code.
#include <gtest/gtest.h>

#include "lang/passes/autodiff.h"
#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {
namespace {

TEST(AdBlame, ErrorsInsideARequestBecomeItsE013) {
  const std::string src = "let x = 2.0;\nlet y = x * x;\nlet g = @y / @x;\nlet z = y + 1.0;\n";
  auto c = compile(src);
  ASSERT_TRUE(c->ok) << c->rendered();
  const uint32_t at = static_cast<uint32_t>(src.find("@y / @x"));
  const Span request{c->file, at, at + 7};
  const uint32_t z = static_cast<uint32_t>(src.find("y + 1.0"));
  c->diags.report(make_diag("E012", "`d_y[t]` reads a point that is not computed yet", Span{c->file, at + 1, at + 2}));
  c->diags.report(make_diag("E004", "index `i` has two different extents", Span{c->file, z, z + 7}));
  c->diags.report(make_diag("E013", "cannot differentiate through a comprehension", request));
  blame_requests(*c->cx, {request});
  auto& ds = c->diags.all();
  ASSERT_EQ(ds.size(), 3u);
  EXPECT_EQ(ds[0].code, "E013");
  EXPECT_NE(ds[0].message.find("cannot differentiate this"), std::string::npos) << ds[0].message;
  ASSERT_FALSE(ds[0].notes.empty());
  EXPECT_NE(ds[0].notes[0].find("E012"), std::string::npos) << ds[0].notes[0];
  EXPECT_EQ(ds[1].code, "E004");  // outside the request: the primal's own error
  EXPECT_EQ(ds[2].code, "E013");
  EXPECT_EQ(ds[2].message, "cannot differentiate through a comprehension");  // not wrapped twice
}

}  // namespace
}  // namespace ein::testing
