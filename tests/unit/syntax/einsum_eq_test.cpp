// The einsum equation parser shared by the interpreter, type inference and autodiff. Every
// expected structure is written out by hand from NumPy's documented rules (np.einsum: implicit
// output = the labels that occur once, in alphabetical order, `...` axes first; `...` broadcasts
// right-aligned).
#include <gtest/gtest.h>

#include "lang/syntax/einsum_eq.h"

namespace ein::einsum_eq {
namespace {

constexpr int E = kEllipsisBase;

Equation ok(std::string_view text) {
  Parsed p = parse_einsum(text);
  EXPECT_TRUE(p.eq.has_value()) << text << ": " << p.error.why;
  return p.eq.value_or(Equation{});
}

Error err(std::string_view text) {
  Parsed p = parse_einsum(text);
  EXPECT_FALSE(p.eq.has_value()) << text;
  return p.error;
}

TEST(EinsumEq, ExplicitMatmul) {
  Equation q = ok("ij,jk->ik");
  ASSERT_EQ(q.operands.size(), 2u);
  EXPECT_EQ(q.operands[0].letters, "ij");
  EXPECT_EQ(q.operands[1].letters, "jk");
  EXPECT_FALSE(q.operands[0].ellipsis);
  ASSERT_TRUE(q.output);
  EXPECT_EQ(q.output->letters, "ik");
  EXPECT_FALSE(q.has_ellipsis());
  EXPECT_EQ(q.output_rank(0), 2);
}

TEST(EinsumEq, SpacesAreIgnored) {
  Equation q = ok(" i j , j k -> i k ");
  ASSERT_EQ(q.operands.size(), 2u);
  EXPECT_EQ(q.operands[1].letters, "jk");
  EXPECT_EQ(q.output->letters, "ik");
}

TEST(EinsumEq, ImplicitOutputIsTheLettersThatOccurOnceSorted) {
  // "ba,ac": b and c occur once; sorted -> "bc". "ii": i occurs twice -> trace, rank 0.
  Equation q = ok("ba,ac");
  EXPECT_FALSE(q.output);
  EXPECT_EQ(q.output_letters(), "bc");
  EXPECT_EQ(ok("ii").output_letters(), "");
  // Upper case sorts before lower case (character order, as NumPy).
  EXPECT_EQ(ok("aB").output_letters(), "Ba");
}

TEST(EinsumEq, EllipsisPositions) {
  Equation q = ok("...ij,j...->i...");
  EXPECT_EQ(q.operands[0].letters, "ij");
  EXPECT_EQ(q.operands[0].ellipsis, 0u);
  EXPECT_EQ(q.operands[1].letters, "j");
  EXPECT_EQ(q.operands[1].ellipsis, 1u);
  EXPECT_EQ(q.output->ellipsis, 1u);
  EXPECT_TRUE(q.has_ellipsis());
  EXPECT_EQ(q.output_rank(3), 4);
}

TEST(EinsumEq, EmptyTermsAreScalars) {
  Equation q = ok(",->");
  ASSERT_EQ(q.operands.size(), 2u);
  EXPECT_EQ(q.operands[0].letters, "");
  EXPECT_EQ(q.output->letters, "");
  EXPECT_EQ(q.output_rank(0), 0);
}

TEST(EinsumEq, MalformedEquationsAreE006) {
  EXPECT_EQ(err("ij,j$->i").code, "E006");
  EXPECT_EQ(err("ij,j$->i").why, "unexpected character `$`");
  EXPECT_EQ(err("i..j").why, "unexpected character `.`");
  EXPECT_EQ(err("...i...->i").why, "`...` twice in one operand");
  EXPECT_EQ(err("ij->ik").why, "output label `k` is not an input label");
  EXPECT_EQ(err("ij->ii").why, "an output label repeats");
  EXPECT_EQ(err("ij->i->j").why, "unexpected character `-`");
}

TEST(EinsumEq, TermFitsRank) {
  Equation q = ok("ij,...j");
  EXPECT_TRUE(q.operands[0].fits(2));
  EXPECT_FALSE(q.operands[0].fits(3));
  EXPECT_TRUE(q.operands[1].fits(1));
  EXPECT_TRUE(q.operands[1].fits(4));
  EXPECT_FALSE(q.operands[1].fits(0));
}

TEST(EinsumEq, LabelAxesRightAlignsEllipsis) {
  // Ranks 4 and 2: the first operand's `...` holds 2 axes, the second's 1, so the second's is
  // the last of the two (broadcast right-aligned), as in np.einsum("...ij,...j->...i").
  Labelled l = label_axes(ok("...ij,...j->...i"), {4, 2});
  ASSERT_TRUE(l.axes);
  EXPECT_EQ(l.axes->ellipsis_rank, 2);
  EXPECT_EQ(l.axes->operands[0], (std::vector<int>{E + 0, E + 1, 'i', 'j'}));
  EXPECT_EQ(l.axes->operands[1], (std::vector<int>{E + 1, 'j'}));
  EXPECT_EQ(l.axes->output, (std::vector<int>{E + 0, E + 1, 'i'}));
}

TEST(EinsumEq, LabelAxesImplicitPutsEllipsisFirst) {
  Labelled l = label_axes(ok("i...,ij"), {3, 2});
  ASSERT_TRUE(l.axes);
  EXPECT_EQ(l.axes->operands[0], (std::vector<int>{'i', E + 0, E + 1}));
  EXPECT_EQ(l.axes->output, (std::vector<int>{E + 0, E + 1, 'j'}));
}

TEST(EinsumEq, LabelAxesExplicitOutputWithoutEllipsisDropsThoseAxes) {
  Labelled l = label_axes(ok("...i->i"), {3});
  ASSERT_TRUE(l.axes);
  EXPECT_EQ(l.axes->ellipsis_rank, 2);
  EXPECT_EQ(l.axes->output, (std::vector<int>{'i'}));
}

TEST(EinsumEq, LabelAxesErrors) {
  Labelled n = label_axes(ok("ij,jk->ik"), {2});
  ASSERT_FALSE(n.axes);
  EXPECT_EQ(n.error.code, "E006");
  EXPECT_EQ(n.error.why, "2 operands in the equation, 1 given");
  Labelled r = label_axes(ok("ij,jk->ik"), {2, 3});
  ASSERT_FALSE(r.axes);
  EXPECT_EQ(r.error.code, "E004");
  EXPECT_EQ(r.error.why, "operand 1 has rank 3, the equation gives it 2 axes");
  Labelled e = label_axes(ok("...ij"), {1});
  ASSERT_FALSE(e.axes);
  EXPECT_EQ(e.error.code, "E004");
}

}  // namespace
}  // namespace ein::einsum_eq
