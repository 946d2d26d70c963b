// Internal to lang/resolve: the resolver's persistent state and the per-body walker.
#pragma once
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "lang/ir/kid_families.h"
#include "lang/resolve/builtins.h"
#include "lang/resolve/resolver.h"

namespace ein {

struct Entry {
  ir::DefId def;
  bool pub = false;
};

struct ModuleInfo {
  ir::ModPath path;  // empty = the session; {"std", "math"}, {"geometry"}, {"util", "stats"}
  std::string file;  // source file ("" for the session and inline modules)
  uint32_t crate = ir::kUserCrate;
  bool is_std = false;
  std::map<std::string, Entry> names;                // items, imports, session globals
  std::map<std::string, ir::ModPath> modules;        // local module name -> module path
  std::set<std::string> pub_modules;                 // which of `modules` are re-exported
  std::vector<ir::ModPath> deps;                     // modules it imports (their lets run first)
};

// A module-level `let` that has not run yet (SPEC §6: module lets run once, in order, when the
// module is first imported). It is prepended to the first cell that imports the module and
// stays pending until the bindings it makes have values.
struct PendingInit {
  ir::ModPath module;
  ir::NodeRef stmt;               // resolved Let or EinDecl
  std::vector<ir::DefId> defs;    // what it binds
};

struct Resolver::Impl {
  SourceMap& sm;
  ResolverOptions opt;
  // Per crate; index = DefId.index - 1. By pointer: a long session releases the DefInfo of
  // definitions nothing reaches any more (Resolver::release), leaving a null pointer.
  std::vector<std::unique_ptr<DefInfo>> defs[3];
  std::map<ir::ModPath, std::unique_ptr<ModuleInfo>> modules;
  ModuleInfo session;
  std::vector<ir::ModPath> loading;  // import stack, for cycle detection (E010)
  std::unordered_map<uint32_t, std::vector<ir::DefId>> captures;
  std::vector<DefInfo> builtin_infos;
  std::map<std::string, Entry> saved_names;  // session scope at begin_cell()
  std::map<std::string, std::vector<ir::DefId>> cell_defs;  // top-level defs of the cell, in order
  std::map<std::string, ir::ModPath> saved_modules;
  std::vector<PendingInit> pending_inits;     // in load order (a module's imports first)
  std::set<uint32_t> std_files;               // SourceMap ids of loaded std modules
  std::map<std::string, std::vector<ir::ModPath>> std_index;  // pub fn name -> defining modules
  bool std_indexed = false;
  std::set<ir::ModPath> touched;              // modules this cell imports or names
  std::vector<ModuleInfo*> loader;            // modules being loaded (for ModuleInfo::deps)
  std::set<ir::ModPath> failed;               // modules that failed this cell (reported once)

  Impl(SourceMap& s, ResolverOptions o);
  ir::DefId alloc(uint32_t crate, DefInfo info);
  DefInfo& info(ir::DefId d);

  // Module loading (modules.cpp). Returns nullptr after reporting E010 at `at`.
  ModuleInfo* load_module(const ir::ModPath& path, Span at, DiagSink& diags);
  // Where a module's file and submodules live: std::a::b under share/std/a/b, other paths
  // under the program's directory.
  std::string module_dir(const ir::ModPath& path) const;
  std::string module_file(const ir::ModPath& path) const;  // "" if no file
  bool module_exists(const ir::ModPath& path) const;
  // Resolve a module path as written inside `from` (aliases, submodules, relative, absolute).
  ir::ModPath canonical_module(const ModuleInfo& from, const ir::ModPath& written) const;
  // Records the module-level lets of a freshly resolved module body as pending inits.
  void collect_inits(const ModuleInfo& m, const ir::NodeRef& resolved_program);
  std::vector<ir::ModPath> std_homes(const std::string& name);  // see Resolver::std_homes
  // Pending inits of the modules this cell touched (and what they import), in load order.
  std::vector<ir::NodeRef> inits_for_cell() const;
};

// Walks one body (a cell, or a module's items) producing the resolved tree.
struct ResolveWalker {
  enum class ScopeKind { Block, Fn, Lambda, Index };
  struct Scope {
    ScopeKind kind;
    std::unordered_map<std::string, ir::DefId> names{};
    uint32_t lambda_id = 0;
    std::map<std::string, ir::ModPath> modules{};  // `use m as q;` inside a body
  };

  // The Resolver's friend, so these reach its state for lang/resolve/release.h.
  static void release_def(Resolver& r, ir::DefId d);
  static void forget_captures(Resolver& r, uint32_t lambda_id);
  static uint32_t user_def_count(const Resolver& r);

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
  ir::DefId lookup_path(const ir::ModPath& path, Span span);
  // A module path as written here: aliases of enclosing blocks first, then the module's.
  ir::ModPath canonical(const ir::ModPath& written) const;
  void error(const std::string& code, const std::string& msg, Span span,
             const std::string& label = "", const std::string& help = "");
  std::string suggest(const std::string& name) const;

  // Statements (resolver.cpp)
  ir::NodeRef resolve_program(const ir::NodeRef& prog);
  std::vector<ir::NodeRef> resolve_stmts(const std::vector<ir::NodeRef>& stmts, bool has_tail,
                                         bool module_level);
  void hoist_items(const std::vector<ir::NodeRef>& stmts, bool module_level);
  // `defined`/`mods`: value and module names made by the block/module being hoisted (with the
  // span that made them), for "defined twice" and glob shadowing.
  void process_use(const ir::NodeRef& use, std::unordered_map<std::string, Span>& defined,
                   std::unordered_map<std::string, Span>& mods);
  void report_twice(const std::string& name, Span first, Span again, bool module);
  void define_inline_module(const ir::NodeRef& m, const ir::ModPath& path);
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
  // Defines the indices of a declaration's or reduction's slots (a literal is an error in a
  // reduction only) and returns the slots carrying their DefIds.
  std::vector<ir::NodeRef> resolve_slots(ir::Kids slots, bool reduction = false);
  // A one-kid clause (where, comprehension) with its resolved value; a binding clause also
  // defines its name as a local.
  ir::NodeRef resolved_clause(const ir::NodeRef& c, const ir::NodeRef& value, bool binds);
  ir::NodeRef resolve_lambda(const ir::NodeRef& l);
  ir::NodeRef resolve_comp(const ir::NodeRef& c);
  ir::NodeRef resolve_match(const ir::NodeRef& m);
};

// Moves where-clauses that mention a reduction's indices inside that reduction (where.cpp).
ir::NodeRef place_where_clauses(const ir::NodeRef& where);

// Leading "//" comment block right above `span` (doc comments for %doc / inspect).
std::string doc_comment_above(const SourceMap& sm, Span span);

}  // namespace ein
