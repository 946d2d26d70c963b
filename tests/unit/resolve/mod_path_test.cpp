// Module paths are segment lists from the parser to the resolver (issue 17: no fact parsed out
// of a string): the parser records the segments it read, the resolver reads only those, and
// text is only parsed where a user typed it outside the language (%doc, completion).
#include <gtest/gtest.h>

#include "engine/session/session.h"
#include "lang/resolve/resolver.h"
#include "lang/syntax/parser.h"

namespace ein {
namespace {

using Segs = std::vector<std::string>;

TEST(ModPath, SegmentOperations) {
  ir::ModPath p({"std", "math", "exp"});
  EXPECT_EQ(p.text(), "std::math::exp");
  EXPECT_EQ(p.parent().segs, (Segs{"std", "math"}));
  EXPECT_EQ(p.suffix(1).segs, (Segs{"math", "exp"}));
  EXPECT_EQ((p.parent() / "log").segs, (Segs{"std", "math", "log"}));
  EXPECT_TRUE(p.is_std());
  EXPECT_FALSE(ir::ModPath::name("standard").is_std());  // a segment, not a text prefix
  EXPECT_TRUE(p.below(ir::ModPath::name("std")));
  EXPECT_TRUE(p.below(ir::ModPath{}));  // the program root is above every module
  EXPECT_FALSE(p.below(p));
  EXPECT_FALSE(ir::ModPath({"std", "mathx"}).below(ir::ModPath({"std", "math"})));
  EXPECT_TRUE(ir::ModPath{}.parent().empty());
  EXPECT_EQ(ir::ModPath{}.text(), "");
}

TEST(ModPath, ParseTypedText) {
  EXPECT_EQ(ir::ModPath::parse("std::math::sin")->segs, (Segs{"std", "math", "sin"}));
  EXPECT_EQ(ir::ModPath::parse("_x1")->segs, Segs{"_x1"});
  for (const char* bad : {"", "std::", "::x", "a b", "a:b", "1x", "a::::b", "a::1"})
    EXPECT_FALSE(ir::ModPath::parse(bad).has_value()) << bad;
}

ir::NodeRef parse_one(const std::string& src) {
  SourceMap sm;
  ParseResult r = parse_program(sm, sm.add("t", src));
  EXPECT_TRUE(r.diags.empty()) << src;
  return r.program->kids.at(0);
}

TEST(ModPath, ParserRecordsSegments) {
  ir::NodeRef call = parse_one("std::ml::where(c, a, b)");
  EXPECT_EQ(ir::call_callee(call)->path.segs, (Segs{"std", "ml", "where"}));  // a keyword segment

  ir::NodeRef use = parse_one("use std::ml::{activations::{relu, gelu as g}, self, where};");
  EXPECT_EQ(use->path.segs, (Segs{"std", "ml"}));
  std::vector<Segs> items;
  for (const ir::NodeRef& item : ir::use_items(use)) items.push_back(item->path.segs);
  EXPECT_EQ(items, (std::vector<Segs>{{"activations", "relu"}, {"activations", "gelu"}, {}, {"where"}}));
}

TEST(ModPath, ResolverReadsSegmentsNotSpelling) {
  // A Path whose spelling says nothing: resolution must come from its segments alone.
  ir::NodeRef path = ir::make({.kind = ir::Kind::Path, .name = "?", .path = ir::ModPath({"std", "math", "sqrt"})});
  ir::NodeRef prog = ir::make({.kind = ir::Kind::Program,
                               .kids = {ir::make_call(path, {ir::make_float(2.0)})},
                               .flags = ir::kHasTail});
  SourceMap sm;
  Resolver r(sm, ResolverOptions{default_share_dir(), "."});
  DiagSink diags;
  ir::NodeRef resolved = r.resolve_cell(prog, diags);
  ASSERT_EQ(diags.error_count(), 0u);
  ir::DefId d = ir::call_callee(resolved->kids.at(0))->def;
  ASSERT_TRUE(d.valid());
  EXPECT_EQ(r.info(d).name, "sqrt");
  EXPECT_EQ(r.info(d).module.segs, (Segs{"std", "math", "basic"}));
  EXPECT_EQ(r.lookup_session(ir::ModPath({"std", "math", "sqrt"})), d);
}

}  // namespace
}  // namespace ein
