// Shared helpers for the pass tests: compile one source text through parse -> resolve ->
// run_pipeline with an empty global environment (no earlier cells), then let a test look at the
// side tables the passes filled (CompileCtx / Unit) and at the lowered IR.
//
// The helpers find things by the names written in the source (a tensor `d`, its index `j`), so a
// test reads like the program it checks instead of like DefId bookkeeping.
#pragma once
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/session/session.h"
#include "lang/diag/diag.h"
#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/driver.h"
#include "lang/resolve/resolver.h"
#include "lang/syntax/parser.h"
#include "lang/syntax/source.h"

namespace ein::testing {

// No earlier cells: nothing is known about globals except what this compilation finds.
struct EmptyEnv : GlobalEnvView {
  ir::TypeRef type_of(ir::DefId) const override { return nullptr; }
  std::optional<std::vector<int64_t>> shape_of(ir::DefId) const override { return std::nullopt; }
  std::optional<int64_t> int_value(ir::DefId) const override { return std::nullopt; }
};

struct CompileOpts {
  bool whole_program = false;
  std::string dump_after{};  // a pass name; the dump ends up in Compiled::dump
  int64_t ad_checkpoint = 0;  // CompileOptions::ad_checkpoint (a forced checkpoint spacing)
  int row_inline = 1;         // CompileOptions::row_inline (0: calls on rows stay calls)
  int row_fuse = 1;           // CompileOptions::row_fuse (0: row declarations stay stored)
};

// One compilation. Not movable (the context holds references into it): use compile().
class Compiled {
 public:
  Compiled(const std::string& src, const CompileOpts& o)
      : resolver(sm, ResolverOptions{default_share_dir(), "."}) {
    file = sm.add("test.ein", src);
    ParseResult pr = parse_program(sm, file);
    for (auto& d : pr.diags) diags.report(d);
    cx = std::make_unique<CompileCtx>(sm, resolver, diags, env);
    cx->opt.whole_program = o.whole_program;
    cx->opt.ad_checkpoint = o.ad_checkpoint;
    cx->opt.row_inline = o.row_inline;
    cx->opt.row_fuse = o.row_fuse;
    if (!pr.diags.empty()) return;
    ir::NodeRef resolved = resolver.resolve_cell(pr.program, diags);
    if (diags.has_errors()) return;
    PipelineOptions popt;
    popt.dump_after = o.dump_after;
    popt.dump = &dump;
    ok = run_pipeline(*cx, resolved, popt);
  }
  Compiled(const Compiled&) = delete;
  Compiled& operator=(const Compiled&) = delete;

  Unit& cell() { return cx->cell(); }

  // Codes of every reported error, in report order ("E004", ...).
  std::vector<std::string> codes() const {
    std::vector<std::string> out;
    for (auto& d : diags.all())
      if (!d.warning) out.push_back(d.code);
    return out;
  }
  bool has_code(const std::string& code) const {
    for (auto& c : codes())
      if (c == code) return true;
    return false;
  }
  // The first diagnostic with this code (nullptr if none).
  const Diagnostic* diag(const std::string& code) const {
    for (auto& d : diags.all())
      if (d.code == code) return &d;
    return nullptr;
  }
  int line_of(Span s) const { return s.valid() ? sm.start(s).line : 0; }
  std::string text_of(Span s) const { return s.valid() ? sm.snippet(s) : ""; }
  // All diagnostics rendered, for failure messages.
  std::string rendered() const {
    std::string r;
    for (auto& d : diags.all()) r += render(d, sm);
    return r;
  }

  // The n-th (0-based) top-level statement of the analysed cell body whose kind is `k` and
  // whose name (tensor name for EinGroup) or bound name (Let) is `name`.
  ir::NodeRef stmt(ir::Kind k, const std::string& name, int nth = 0) {
    for (auto& s : cell().body->kids) {
      if (!s || s->kind != k) continue;
      std::string n = s->name;
      if (k == ir::Kind::Let && ir::let_pattern(*s)->kind == ir::Kind::PBind)
        n = ir::let_pattern(*s)->name;
      if (n == name && nth-- == 0) return s;
    }
    return nullptr;
  }

  // The DefId of an index variable named `idx` introduced (as a slot) inside `root`; the n-th
  // such slot in pre-order when the name repeats (several clauses).
  static ir::DefId index_in(const ir::NodeRef& root, const std::string& idx, int nth = 0) {
    ir::DefId found;
    ir::for_each_node(root, [&](const ir::NodeRef& n) {
      if (found.valid()) return;
      if ((n->kind == ir::Kind::IdxVar || n->kind == ir::Kind::IdxIn) && n->name == idx &&
          nth-- == 0)
        found = n->def;
    });
    return found;
  }

  // Range of index `idx` of the Einstein declaration `tensor` (top level), clause `clause`.
  const RangeFact* range(const std::string& tensor, const std::string& idx, int clause = 0) {
    ir::NodeRef g = stmt(ir::Kind::EinGroup, tensor);
    if (!g || clause >= static_cast<int>(g->kids.size())) return nullptr;
    ir::DefId d = index_in(g->kids[static_cast<size_t>(clause)], idx);
    auto it = cell().ranges.find(d);
    return it == cell().ranges.end() ? nullptr : &it->second;
  }
  // Range of a reduction index `idx` inside the Let `binding`.
  const RangeFact* let_range(const std::string& binding, const std::string& idx) {
    ir::NodeRef s = stmt(ir::Kind::Let, binding);
    if (!s) return nullptr;
    auto it = cell().ranges.find(index_in(s, idx));
    return it == cell().ranges.end() ? nullptr : &it->second;
  }

  // DefId of a top-level binding (Let with a plain pattern, or an Einstein declaration).
  ir::DefId global(const std::string& name) {
    if (auto g = stmt(ir::Kind::EinGroup, name)) return g->def;
    if (auto l = stmt(ir::Kind::Let, name)) return ir::let_pattern(*l)->def;
    return {};
  }
  std::optional<StaticShape> shape_of(const std::string& name) {
    ir::DefId d = global(name);
    if (auto it = cell().def_shapes.find(d); it != cell().def_shapes.end()) return it->second;
    if (auto it = cx->global_shapes.find(d); it != cx->global_shapes.end()) return it->second;
    return std::nullopt;
  }
  ir::TypeRef type_of(const std::string& name) {
    ir::DefId d = global(name);
    if (auto it = cell().def_types.find(d); it != cell().def_types.end()) return it->second;
    if (auto it = cx->global_types.find(d); it != cx->global_types.end()) return it->second;
    return nullptr;
  }
  std::string type_name_of(const std::string& name) {
    ir::TypeRef t = type_of(name);
    return t ? ir::type_name(t) : "<none>";
  }

  // The lowered LTensor of top-level tensor `name` in the cell.
  ir::NodeRef ltensor(const std::string& name) {
    ir::NodeRef found;
    ir::for_each_node(cell().lowered, [&](const ir::NodeRef& n) {
      if (!found && n->kind == ir::Kind::LTensor && n->name == name) found = n;
    });
    return found;
  }

  SourceMap sm;
  Resolver resolver;
  DiagSink diags;
  EmptyEnv env;
  std::unique_ptr<CompileCtx> cx;
  uint32_t file = 0;
  bool ok = false;
  std::string dump;
};

inline std::unique_ptr<Compiled> compile(const std::string& src, const CompileOpts& o = {}) {
  return std::make_unique<Compiled>(src, o);
}

// Nodes of kind `k` under `root` (pre-order).
inline std::vector<ir::NodeRef> nodes_of(const ir::NodeRef& root, ir::Kind k) {
  std::vector<ir::NodeRef> out;
  ir::for_each_node(root, [&](const ir::NodeRef& n) {
    if (n->kind == k) out.push_back(n);
  });
  return out;
}
inline size_t count_of(const ir::NodeRef& root, ir::Kind k) { return nodes_of(root, k).size(); }

// How many times `what` occurs in `text` (a dump, generated C++).
inline size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Runs a program in a fresh session and returns its print() output; failures are reported as
// "ERROR <codes>" lines appended after whatever was printed, so a test can compare both.
struct RunResult {
  std::string out;
  CellResult cell;
};
inline RunResult run_program(const std::string& src, bool whole_program = false, const std::string& jit = "never") {
  RunResult r;
  SessionOptions so;
  so.whole_program = whole_program;
  so.out = [&r](const std::string& s) { r.out += s; };
  so.jit = jit;
  Session s(so);
  r.cell = s.run_cell(src);
  return r;
}

}  // namespace ein::testing
