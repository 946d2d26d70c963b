// Internal to lang/resolve: the resolver's persistent state and the per-body walker.
#pragma once
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "lang/resolve/builtins.h"
#include "lang/resolve/resolver.h"

namespace ein {

struct Entry {
  ir::DefId def;
  bool pub = false;
};

struct ModuleInfo {
  std::string path;  // "" = the session, "std::math", "geometry", "util::stats"
  std::string file;  // source file ("" for the session and inline modules)
  uint32_t crate = ir::kUserCrate;
  bool is_std = false;
  std::map<std::string, Entry> names;                // items, imports, session globals
  std::map<std::string, std::string> modules;        // local module name -> module path
  std::set<std::string> pub_modules;                 // which of `modules` are re-exported
};

struct Resolver::Impl {
  SourceMap& sm;
  ResolverOptions opt;
  std::vector<DefInfo> defs[3];  // per crate; index = DefId.index - 1
  std::map<std::string, std::unique_ptr<ModuleInfo>> modules;
  ModuleInfo session;
  std::vector<std::string> loading;  // import stack, for cycle detection (E010)
  std::unordered_map<uint32_t, std::vector<ir::DefId>> captures;
  std::vector<DefInfo> builtin_infos;
  std::map<std::string, Entry> saved_names;  // session scope at begin_cell()
  std::map<std::string, std::vector<ir::DefId>> cell_defs;  // top-level defs of the cell, in order
  std::map<std::string, std::string> saved_modules;

  Impl(SourceMap& s, ResolverOptions o);
  ir::DefId alloc(uint32_t crate, DefInfo info);
  DefInfo& info(ir::DefId d);

  // Module loading (modules.cpp). Returns nullptr after reporting E010 at `at`.
  ModuleInfo* load_module(const std::string& path, Span at, DiagSink& diags);
  std::string module_file(const std::string& path) const;  // "" if no file
  bool module_exists(const std::string& path) const;
  // Resolve a module path as written inside `from` (aliases, submodules, relative, absolute).
  std::string canonical_module(const ModuleInfo& from, const std::string& written) const;
};

// Walks one body (a cell, or a module's items) producing the resolved tree.
struct ResolveWalker {
  enum class ScopeKind { Block, Fn, Lambda, Index };
  struct Scope {
    ScopeKind kind;
    std::unordered_map<std::string, ir::DefId> names;
    uint32_t lambda_id = 0;
  };

  Resolver::Impl& R;
  ModuleInfo& mod;
  DiagSink& diags;
  bool top_level_is_global;  // true for session cells: top-level lets are Globals
  std::vector<Scope> scopes;
  std::unordered_map<uint32_t, ir::DefId> hoisted;  // item node id -> its DefId

  ResolveWalker(Resolver::Impl& r, ModuleInfo& m, DiagSink& d, bool globals)
      : R(r), mod(m), diags(d), top_level_is_global(globals) {}

  uint32_t crate() const { return mod.crate; }
  ir::DefId define(const std::string& name, DefKind kind, Span span);
  ir::DefId lookup(const std::string& name, Span span, bool report = true);
  ir::DefId lookup_path(const std::string& path, Span span);
  void error(const std::string& code, const std::string& msg, Span span,
             const std::string& label = "", const std::string& help = "");
  std::string suggest(const std::string& name) const;

  // Statements (resolver.cpp)
  ir::NodeRef resolve_program(const ir::NodeRef& prog);
  std::vector<ir::NodeRef> resolve_stmts(const std::vector<ir::NodeRef>& stmts, bool has_tail,
                                         bool module_level);
  void hoist_items(const std::vector<ir::NodeRef>& stmts, bool module_level);
  void process_use(const ir::NodeRef& use);
  void define_inline_module(const ir::NodeRef& m, const std::string& path);
  ir::NodeRef resolve_fn(const ir::NodeRef& fn);
  ir::NodeRef resolve_let(const ir::NodeRef& let);
  ir::NodeRef resolve_ein_decl(const ir::NodeRef& decl, ir::DefId group_def);
  ir::NodeRef resolve_where_value(const ir::NodeRef& value);
  ir::NodeRef bind_pattern(const ir::NodeRef& pat, DefKind kind);

  // Expressions (resolve_expr.cpp)
  ir::NodeRef expr(const ir::NodeRef& e);
  ir::NodeRef opt_expr(const ir::NodeRef& e) { return e ? expr(e) : e; }
  ir::NodeRef type_ann(const ir::NodeRef& t) { return t; }
  ir::NodeRef resolve_block(const ir::NodeRef& b);
  ir::NodeRef resolve_reduce(const ir::NodeRef& r);
  ir::NodeRef resolve_slots_and(const ir::NodeRef& n, size_t slot_begin, size_t body_index);
  ir::NodeRef resolve_lambda(const ir::NodeRef& l);
  ir::NodeRef resolve_comp(const ir::NodeRef& c);
  ir::NodeRef resolve_match(const ir::NodeRef& m);
};

// Moves where-clauses that mention a reduction's indices inside that reduction (where.cpp).
ir::NodeRef place_where_clauses(const ir::NodeRef& where);

// Leading "//" comment block right above `span` (doc comments for %doc / inspect).
std::string doc_comment_above(const SourceMap& sm, Span span);

}  // namespace ein
