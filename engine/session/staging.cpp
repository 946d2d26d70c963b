#include "engine/session/staging.h"

#include <algorithm>
#include <unordered_set>
#include <cctype>

#include "lang/ir/type.h"
#include "lang/passes/context.h"

namespace ein {

namespace {

bool is_item(ir::Kind k) {
  switch (k) {
    case ir::Kind::Fn:
    case ir::Kind::DiffFn:
    case ir::Kind::Use:
    case ir::Kind::Mod:
    case ir::Kind::Const:
      return true;
    default:
      return false;
  }
}

// A type that stands for "known when it runs": no rank, or no type at all.
bool dynamic(const ir::TypeRef& t) {
  return !t || t->k == ir::Type::K::Unknown || (t->k == ir::Type::K::Array && t->rank < 0);
}

// `let NAME = value;` without an annotation, whose binding the failed compile typed dynamic.
bool dynamic_binding(const ir::NodeRef& st, const CompileCtx& cx) {
  if (!st || st->kind != ir::Kind::Let || ir::let_type(*st)) return false;
  const ir::NodeRef& pat = ir::let_pattern(*st);
  if (!pat || pat->kind != ir::Kind::PBind || !pat->def.valid()) return false;
  // A bound differential (`let df = @f;`) is symbolic, not a value typed when it runs.
  if (ir::let_value(*st) && ir::let_value(*st)->kind == ir::Kind::Diff) return false;
  auto it = cx.global_types.find(pat->def);
  return it != cx.global_types.end() && dynamic(it->second);
}

// Statement spans do not always include their `;`: the end of a statement is after it.
size_t end_of(const std::string& text, size_t hi) {
  size_t i = hi;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  return i < text.size() && text[i] == ';' ? i + 1 : hi;
}

void blank(std::string& text, size_t lo, size_t hi) {
  for (size_t i = lo; i < std::min(hi, text.size()); ++i)
    if (text[i] != '\n') text[i] = ' ';
}

// Does the statement call a function with an argument typed dynamic? The function's body is
// then typed without knowing what it gets (rest patterns, literal types). Items and lambdas
// are typed in their own units and are not looked into.
bool calls_with_dynamic(const ir::NodeRef& n, const Unit& cell) {
  if (!n || n->kind == ir::Kind::Lambda || is_item(n->kind)) return false;
  if (n->kind == ir::Kind::Call && !n->kids.empty()) {
    auto callee = cell.types.find(n->kid(0)->id);
    if (callee != cell.types.end() && callee->second &&
        (callee->second->k == ir::Type::K::FnItem || callee->second->k == ir::Type::K::Lambda)) {
      for (size_t i = 1; i < n->kids.size(); ++i) {
        auto at = cell.types.find(n->kid(i)->id);
        if (at != cell.types.end() && dynamic(at->second)) return true;
      }
    }
  }
  for (auto& k : n->kids)
    if (calls_with_dynamic(k, cell)) return true;
  return false;
}

bool reads(const ir::NodeRef& n, const std::unordered_set<ir::DefId>& defs) {
  if (!n) return false;
  if ((n->kind == ir::Kind::Name || n->kind == ir::Kind::Path) && defs.count(n->def)) return true;
  for (auto& k : n->kids)
    if (reads(k, defs)) return true;
  return false;
}

}  // namespace

std::optional<StagePlan> plan_stages(const std::string& text, uint32_t base, uint32_t file,
                                     const ir::NodeRef& parsed, const ir::NodeRef& resolved,
                                     const CompileCtx& cx, const std::vector<Diagnostic>& errors) {
  if (!parsed || !resolved || cx.units.empty()) return std::nullopt;
  // Where the cell first needs a type it does not have: its first error (errors only inside
  // library code count as the end), or, when it compiled, its first call of a function with
  // a dynamic argument.
  // Only type and shape errors (E002, E004) can go away with exact types; an autodiff error
  // (E013) must not: a gradient never reads through a staged binding it could not read before.
  size_t first_error = text.size();
  for (auto& d : errors) {
    if (d.warning) continue;
    if (d.code != "E002" && d.code != "E004") return std::nullopt;
    if (d.primary.file == file && d.primary.lo >= base)
      first_error = std::min<size_t>(first_error, d.primary.lo - base);
  }
  // The first part ends after the last dynamic binding before that point and before the first
  // statement that reads one: what reads them is typed with what they hold.
  size_t split = 0;
  bool needed = !errors.empty(), read = false;
  std::unordered_set<ir::DefId> dyn;
  for (auto& st : resolved->kids) {
    if (!st || st->span.file != file || st->span.lo < base) continue;
    size_t hi = end_of(text, st->span.hi - base);
    if (hi > first_error) break;
    if (!dyn.empty() && !needed && calls_with_dynamic(st, *cx.units[0])) needed = true;
    read = read || reads(st, dyn);
    if (!dynamic_binding(st, cx)) continue;
    if (!read) split = hi;
    dyn.insert(ir::let_pattern(*st)->def);
  }
  if (split == 0 || !needed) return std::nullopt;
  StagePlan p{text, text};
  // The first part keeps every item (a function defined below the binding may be called above
  // it); the rest defines them again, as a later cell may.
  size_t from = split;
  for (auto& st : parsed->kids) {
    if (!st || st->span.file != file || st->span.lo < base || st->span.lo - base < split) continue;
    if (!is_item(st->kind)) continue;
    blank(p.first, from, st->span.lo - base);
    from = end_of(text, st->span.hi - base);
  }
  blank(p.first, from, text.size());
  // Items above the binding are defined by the first part; a second definition in the same
  // module would be E002, so the rest starts after the binding.
  blank(p.rest, 0, split);
  return p;
}

}  // namespace ein

