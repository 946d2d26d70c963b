// Small constructors for compiler-generated integer IR (range bounds, extents), folding
// constants as they are built so dumps stay readable and codegen sees literals.
#pragma once
#include <optional>
#include <unordered_map>

#include "lang/ir/node.h"

namespace ein::irb {

// Exact i64 arithmetic for folding: nullopt when the true result does not fit.
std::optional<int64_t> add_exact(int64_t a, int64_t b);
std::optional<int64_t> sub_exact(int64_t a, int64_t b);
std::optional<int64_t> mul_exact(int64_t a, int64_t b);

ir::NodeRef lit(int64_t v);
std::optional<int64_t> as_lit(const ir::NodeRef& n);
ir::NodeRef add(const ir::NodeRef& a, const ir::NodeRef& b);
ir::NodeRef sub(const ir::NodeRef& a, const ir::NodeRef& b);
ir::NodeRef mul(const ir::NodeRef& a, int64_t k);
ir::NodeRef neg(const ir::NodeRef& a);
ir::NodeRef imax(const ir::NodeRef& a, const ir::NodeRef& b);
ir::NodeRef imin(const ir::NodeRef& a, const ir::NodeRef& b);
// Extent of axis `axis` of the value named by `name_node` (a resolved Name or Path).
ir::NodeRef dim_of(const ir::NodeRef& name_node, int axis);
// A fresh reference to a definition (same spelling, given DefId).
ir::NodeRef ref(const std::string& name, ir::DefId def, Span span = {});
// A run-time check failing with `code` and `message` (and a help line, when not empty) where
// `cond` is false.
ir::NodeRef check(const std::string& code, const std::string& message, const std::string& help,
                  const ir::NodeRef& cond, Span span);
// The value of an integer expression as an i64 at run time, whatever the width of its parts
// (index variables are i32, extents i64): IMax(e, e) evaluates e as i64 in every tier.
ir::NodeRef wide(const ir::NodeRef& e);

// `root` with every node whose id is a key of `with` replaced by its value (a read wrapped in
// a check, say), the rest shared.
ir::NodeRef replace_by_id(const ir::NodeRef& root, const std::unordered_map<uint32_t, ir::NodeRef>& with);

// A statement that declares an item (fn, module, import, struct/enum): it has no value and
// nothing to run; each statement walker skips it (a Const is typed, shaped and evaluated apart).
inline bool is_item_decl(ir::Kind k) {
  using ir::Kind;
  return k == Kind::Fn || k == Kind::DiffFn || k == Kind::Use || k == Kind::Mod || k == Kind::StructDecl ||
         k == Kind::EnumDecl;
}

}  // namespace ein::irb
