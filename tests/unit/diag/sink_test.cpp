// DiagSink, DiagError and make_diag: the plumbing every pass uses to report problems.
#include <gtest/gtest.h>

#include "lang/diag/diag.h"

namespace ein {
namespace {

Diagnostic warning(std::string msg) {
  Diagnostic d = make_diag("", std::move(msg), Span{});
  d.warning = true;
  return d;
}

TEST(DiagSink, CountsOnlyErrors) {
  DiagSink sink;
  EXPECT_FALSE(sink.has_errors());
  EXPECT_EQ(sink.error_count(), 0u);
  sink.report(warning("no compiler found; interpreting"));
  EXPECT_FALSE(sink.has_errors());
  EXPECT_EQ(sink.error_count(), 0u);
  EXPECT_EQ(sink.all().size(), 1u);
  sink.report(make_diag("E003", "undefined name `x`", Span{1, 0, 1}));
  sink.report(make_diag("E002", "type mismatch", Span{}));
  EXPECT_TRUE(sink.has_errors());
  EXPECT_EQ(sink.error_count(), 2u);
  EXPECT_EQ(sink.all().size(), 3u);
}

TEST(DiagSink, TakeEmptiesTheSinkInOrder) {
  DiagSink sink;
  sink.report(make_diag("E001", "first", Span{}));
  sink.report(make_diag("E002", "second", Span{}));
  std::vector<Diagnostic> got = sink.take();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].message, "first");
  EXPECT_EQ(got[1].code, "E002");
  EXPECT_TRUE(sink.all().empty());
  EXPECT_FALSE(sink.has_errors());
  sink.report(make_diag("E001", "again", Span{}));
  sink.clear();
  EXPECT_TRUE(sink.all().empty());
}

TEST(DiagError, MessageIsTheFirstDiagnostics) {
  try {
    throw DiagError(make_diag("E007", "division by zero", Span{1, 2, 3}));
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "division by zero");
    const auto& de = dynamic_cast<const DiagError&>(e);
    ASSERT_EQ(de.diags.size(), 1u);
    EXPECT_EQ(de.diags[0].code, "E007");
  }
  DiagError many({make_diag("E003", "a", Span{}), make_diag("E004", "b", Span{})});
  EXPECT_STREQ(many.what(), "a");
  EXPECT_EQ(many.diags.size(), 2u);
  DiagError none(std::vector<Diagnostic>{});
  EXPECT_TRUE(none.diags.empty());
}

TEST(MakeDiag, FillsFields) {
  Diagnostic d = make_diag("E005", "index 3 out of bounds", Span{2, 4, 5}, "extent is 3");
  EXPECT_EQ(d.code, "E005");
  EXPECT_EQ(d.message, "index 3 out of bounds");
  EXPECT_EQ(d.primary.file, 2u);
  EXPECT_EQ(d.primary.lo, 4u);
  EXPECT_EQ(d.primary.hi, 5u);
  EXPECT_EQ(d.primary_label, "extent is 3");
  EXPECT_TRUE(d.secondary.empty());
  EXPECT_TRUE(d.notes.empty());
  EXPECT_TRUE(d.help.empty());
  EXPECT_FALSE(d.warning);
}

}  // namespace
}  // namespace ein
