// Statement-level resolution: item hoisting, lets, Einstein clauses (grouping identity), fns.
#include "lang/resolve/resolver.h"

#include <algorithm>

#include "lang/resolve/release.h"
#include "lang/resolve/resolver_impl.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;

// ---- Impl basics ------------------------------------------------------------------------------

Resolver::Impl::Impl(SourceMap& s, ResolverOptions o) : sm(s), opt(std::move(o)) {
  for (size_t i = 0; i < static_cast<size_t>(Builtin::Count_); ++i) {
    DefInfo d;
    d.name = builtin_info(static_cast<Builtin>(i)).name;
    d.kind = DefKind::Builtin;
    builtin_infos.push_back(d);
  }
}

ir::DefId Resolver::Impl::alloc(uint32_t crate, DefInfo info) {
  auto& v = defs[crate];
  v.push_back(std::make_unique<DefInfo>(std::move(info)));
  return ir::DefId{crate, static_cast<uint32_t>(v.size())};
}

DefInfo& Resolver::Impl::info(ir::DefId d) {
  static DefInfo none;
  if (d.crate == ir::kBuiltinCrate) {
    if (d.index >= 1 && d.index <= builtin_infos.size()) return builtin_infos[d.index - 1];
    return none;
  }
  if (d.crate > 2 || d.index == 0 || d.index > defs[d.crate].size() || !defs[d.crate][d.index - 1]) {
    none = DefInfo{};  // handed out mutable: what a caller wrote to it is not seen by the next
    return none;
  }
  return *defs[d.crate][d.index - 1];
}

// ---- Resolver API -------------------------------------------------------------------------------

Resolver::Resolver(SourceMap& sm, ResolverOptions opt)
    : impl_(std::make_unique<Impl>(sm, std::move(opt))) {}
Resolver::~Resolver() = default;

const DefInfo& Resolver::info(ir::DefId d) const { return impl_->info(d); }
DefInfo& Resolver::info_mut(ir::DefId d) { return impl_->info(d); }

ir::DefId Resolver::new_def(std::string name, DefKind kind, Span span) {
  DefInfo d;
  d.name = std::move(name);
  d.kind = kind;
  d.span = span;
  return impl_->alloc(ir::kUserCrate, std::move(d));
}

// ---- long sessions (lang/resolve/release.h) -------------------------------------------------

void ResolveWalker::release_def(Resolver& r, ir::DefId d) {
  auto& v = r.impl_->defs[ir::kUserCrate];
  if (d.crate == ir::kUserCrate && d.index >= 1 && d.index <= v.size()) v[d.index - 1].reset();
}

void ResolveWalker::forget_captures(Resolver& r, uint32_t lambda_id) { r.impl_->captures.erase(lambda_id); }

uint32_t ResolveWalker::user_def_count(const Resolver& r) {
  return static_cast<uint32_t>(r.impl_->defs[ir::kUserCrate].size());
}

void release_def(Resolver& r, ir::DefId d) { ResolveWalker::release_def(r, d); }
void forget_lambda_captures(Resolver& r, uint32_t lambda_id) { ResolveWalker::forget_captures(r, lambda_id); }
uint32_t user_def_count(const Resolver& r) { return ResolveWalker::user_def_count(r); }

const std::vector<ir::DefId>& Resolver::captures(uint32_t lambda_id) const {
  static const std::vector<ir::DefId> none;
  auto it = impl_->captures.find(lambda_id);
  return it == impl_->captures.end() ? none : it->second;
}

std::vector<std::pair<std::string, ir::DefId>> Resolver::session_names() const {
  std::vector<std::pair<std::string, ir::DefId>> out;
  for (auto& [n, e] : impl_->session.names) out.emplace_back(n, e.def);
  return out;
}

ir::DefId Resolver::lookup_session(const ir::ModPath& name) {
  DiagSink sink;
  ResolveWalker w(*impl_, impl_->session, sink, true);
  if (name.empty()) return {};
  if (name.size() > 1) return w.lookup_path(name, Span{});
  return w.lookup(name.front(), Span{}, false);
}

ir::DefId Resolver::bind_session_global(const std::string& name) {
  ir::DefId d = new_def(name, DefKind::Global);
  impl_->session.names[name] = Entry{d};
  return d;
}

void Resolver::reset() {
  impl_->session.names.clear();
  impl_->session.modules.clear();
  impl_->captures.clear();
}

void Resolver::set_root_dir(std::string dir) { impl_->opt.root_dir = std::move(dir); }
const std::string& Resolver::root_dir() const { return impl_->opt.root_dir; }

void Resolver::begin_cell() {
  impl_->cell_defs.clear();
  impl_->touched.clear();
  impl_->failed.clear();  // the user may have fixed the file since
  impl_->saved_names = impl_->session.names;
  impl_->saved_modules = impl_->session.modules;
}

void Resolver::rollback_cell() {
  impl_->session.names = impl_->saved_names;
  impl_->session.modules = impl_->saved_modules;
}

void Resolver::settle_cell(const std::function<bool(ir::DefId)>& has_value) {
  // Module lets that ran are done; the others run again in the next cell that imports them.
  auto& inits = impl_->pending_inits;
  inits.erase(std::remove_if(inits.begin(), inits.end(),
                             [&](const PendingInit& p) {
                               return std::all_of(p.defs.begin(), p.defs.end(), has_value);
                             }),
              inits.end());
  auto& names = impl_->session.names;
  for (auto it = names.begin(); it != names.end();) {
    auto old = impl_->saved_names.find(it->first);
    bool is_new = old == impl_->saved_names.end() || old->second.def != it->second.def;
    if (is_new && impl_->info(it->second.def).kind == DefKind::Global && !has_value(it->second.def)) {
      // The newest binding of this name that completed wins (`let x = 2;` before a failing
      // `let x = 10 / z;`), else the binding from before the cell.
      ir::DefId keep;
      auto defs = impl_->cell_defs.find(it->first);
      if (defs != impl_->cell_defs.end())
        for (auto d = defs->second.rbegin(); d != defs->second.rend(); ++d)
          if (has_value(*d)) {
            keep = *d;
            break;
          }
      if (keep.valid()) {
        it->second.def = keep;
      } else if (old == impl_->saved_names.end()) {
        it = names.erase(it);
        continue;
      } else {
        it->second = old->second;
      }
    }
    ++it;
  }
}

NodeRef Resolver::resolve_cell(const NodeRef& program, DiagSink& diags) {
  // A cell that fails to compile changes nothing (SPEC §11): the caller rolls back.
  begin_cell();
  size_t before = diags.error_count();
  ResolveWalker w(*impl_, impl_->session, diags, true);
  NodeRef out = w.resolve_program(program);
  if (diags.error_count() > before) {
    rollback_cell();
    return out;
  }
  // Module-level lets of the modules this cell imports run first, once (SPEC §6).
  std::vector<NodeRef> inits = impl_->inits_for_cell();
  if (!inits.empty()) {
    inits.insert(inits.end(), out->kids.begin(), out->kids.end());
    out = ir::with_kids(out, std::move(inits));
  }
  return out;
}

// ---- walker: scopes -----------------------------------------------------------------------------

void ResolveWalker::error(const std::string& code, const std::string& msg, Span span,
                          const std::string& label, const std::string& help) {
  Diagnostic d = make_diag(code, msg, span, label);
  d.help = help;
  diags.report(std::move(d));
}

ir::DefId ResolveWalker::define(const std::string& name, DefKind kind, Span span) {
  DefInfo info;
  info.name = name;
  info.kind = kind;
  info.span = span;
  info.module = mod.path;
  ir::DefId d = R.alloc(crate(), std::move(info));
  if (scopes.empty()) {
    // A module-level `let` is importable with or without `pub` (docs/language.md): module files
    // that load weights are written both ways.
    mod.names[name] = Entry{d, kind == DefKind::Global && &mod != &R.session};
    if (&mod == &R.session) R.cell_defs[name].push_back(d);
  } else {
    scopes.back().names[name] = d;
  }
  return d;
}

ir::DefId ResolveWalker::lookup(const std::string& name, Span span, bool report) {
  bool items_only = false;  // past a fn boundary only items (fns, consts) are visible
  std::vector<uint32_t> crossed_lambdas;
  for (size_t i = scopes.size(); i-- > 0;) {
    auto& s = scopes[i];
    auto it = s.names.find(name);
    if (it != s.names.end()) {
      DefKind k = R.info(it->second).kind;
      bool is_item = k == DefKind::Fn || k == DefKind::Const;
      if (!items_only || is_item) {
        if (!is_item)
          for (uint32_t l : crossed_lambdas) {
            auto& caps = R.captures[l];
            if (std::find(caps.begin(), caps.end(), it->second) == caps.end())
              caps.push_back(it->second);
          }
        return it->second;
      }
    }
    if (s.kind == ScopeKind::Fn) items_only = true;
    if (s.kind == ScopeKind::Lambda) crossed_lambdas.push_back(s.lambda_id);
  }
  auto it = mod.names.find(name);
  if (it != mod.names.end()) return it->second.def;
  if (auto b = builtin_by_name(name, mod.is_std)) return builtin_def(*b);
  if (report) {
    std::string help;
    std::string s = suggest(name);
    if (!s.empty()) help = "a binding with a similar name exists: `" + s + "`";
    bool is_module = mod.modules.count(name) > 0;
    for (auto& sc : scopes) is_module = is_module || sc.modules.count(name) > 0;
    if (is_module) {
      error("E003", "expected a value, found module `" + name + "`", span, "not a value",
            "use a path: `" + name + "::item`");
    } else {
      // A standard-library function used without its `use` (SPEC §9, issue 12 row 20).
      // The exact name in std outranks a near-miss local: `ln` beside an index `n` is
      // almost always the missing import, not a typo.
      if (!mod.is_std) {
        auto homes = R.std_homes(name);
        if (!homes.empty()) {
          const std::string item = (homes[0] / name).text();
          help = "`" + name + "` is in `" + homes[0].text() + "`: add `use " + item + ";`";
          if (homes.size() > 1) help += " (also in `" + homes[1].text() + "`)";
        }
      }
      error("E003", "cannot find value `" + name + "` in this scope", span,
            "not found in this scope", help);
    }
  }
  return {};
}

std::string ResolveWalker::suggest(const std::string& name) const {
  auto dist = [](const std::string& a, const std::string& b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      cur[0] = i;
      for (size_t j = 1; j <= b.size(); ++j)
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
      std::swap(prev, cur);
    }
    return prev[b.size()];
  };
  std::string best;
  size_t best_d = name.size() <= 3 ? 1 : 2;
  auto consider = [&](const std::string& cand) {
    size_t d = dist(name, cand);
    if (d <= best_d && cand != name && (best.empty() || d < dist(name, best))) best = cand;
  };
  for (auto& s : scopes)
    for (auto& [n, _] : s.names) consider(n);
  for (auto& [n, _] : mod.names) consider(n);
  for (size_t i = 0; i < static_cast<size_t>(Builtin::Count_); ++i)
    if (!builtin_info(static_cast<Builtin>(i)).intrinsic)
      consider(builtin_info(static_cast<Builtin>(i)).name);
  return best;
}

// ---- walker: statements -------------------------------------------------------------------------

NodeRef ResolveWalker::resolve_program(const NodeRef& prog) {
  auto kids = resolve_stmts(prog->kids, prog->has(ir::kHasTail), true);
  return ir::with_kids(prog, std::move(kids));
}

static bool is_item(Kind k) {
  return k == Kind::Fn || k == Kind::DiffFn || k == Kind::Const || k == Kind::Use ||
         k == Kind::Mod || k == Kind::StructDecl || k == Kind::EnumDecl;
}

void ResolveWalker::report_twice(const std::string& name, Span first, Span again, bool module) {
  // Hoisting handles items before imports; the caret goes to the later one in the source.
  if (first.file == again.file && first.lo > again.lo) std::swap(first, again);
  Diagnostic d = make_diag("E002", std::string("the ") + (module ? "module" : "name") + " `" + name +
                                       "` is defined twice in this " + (scopes.empty() ? "module" : "block"),
                           again, "`" + name + "` redefined here");
  d.secondary.push_back(Label{first, "first defined here"});
  d.help = module ? "give one of the modules another name"
                  : "rename one of them (functions are not overloaded by parameter types); a `let` "
                    "may shadow a name, an item may not";
  diags.report(std::move(d));
}

void ResolveWalker::hoist_items(const std::vector<NodeRef>& stmts, bool module_level) {
  // Items are visible in the whole block/module, before their textual position (SPEC §6).
  // Two items of one name in one block/module are an error (SPEC §6), never a silent
  // replacement; `defined` holds the value names made here, `mods` the module names.
  std::unordered_map<std::string, Span> defined, mods;
  std::vector<std::pair<NodeRef, ir::ModPath>> submodules;
  for (auto& s : stmts) {
    if (!s) continue;
    if (s->kind == Kind::Fn || s->kind == Kind::Const) {
      if (auto it = defined.find(s->name); it != defined.end()) {
        report_twice(s->name, it->second, s->span, false);
        continue;
      }
      defined[s->name] = s->span;
      ir::DefId d = define(s->name, s->kind == Kind::Fn ? DefKind::Fn : DefKind::Const, s->span);
      hoisted[s->id] = d;
      auto& info = R.info(d);
      info.node = s;  // replaced by the resolved node when the body is resolved
      info.doc = doc_comment_above(R.sm, s->span);
      if (scopes.empty() && s->has(ir::kPub)) mod.names[s->name].pub = true;
    } else if (s->kind == Kind::Mod) {
      if (auto it = mods.find(s->name); it != mods.end()) {
        report_twice(s->name, it->second, s->span, true);
        continue;
      }
      mods[s->name] = s->span;
      ir::ModPath path = mod.path / s->name;
      mod.modules[s->name] = path;
      if (s->has(ir::kPub)) mod.pub_modules.insert(s->name);
      submodules.push_back({s, path});
    } else if (s->kind == Kind::StructDecl || s->kind == Kind::EnumDecl) {
      error("E011", std::string(s->kind == Kind::StructDecl ? "struct" : "enum") +
                        " declarations are parsed but not supported",
            s->span, "not supported", "use tuples and functions instead");
    }
  }
  // Submodules load once every item of this module has its DefId, so a child's `use super::f`
  // finds `f` whatever the textual order (load_module hands a loading ancestor to its
  // descendants instead of reporting a cycle).
  for (auto& [s, path] : submodules) {
    if (s->ival == 1) define_inline_module(s, path);
    else R.load_module(path, s->span, diags);  // `mod missing;` is E010 here, not at a use
  }
  // Explicit imports first, then globs: a glob never replaces a name this block/module
  // defines or imports by name (as in Rust), only names of earlier cells.
  for (auto& s : stmts)
    if (s && s->kind == Kind::Use && s->ival != ir::UseGlob) process_use(s, defined, mods);
  for (auto& s : stmts)
    if (s && s->kind == Kind::Use && s->ival == ir::UseGlob) process_use(s, defined, mods);
  (void)module_level;
}

std::vector<NodeRef> ResolveWalker::resolve_stmts(const std::vector<NodeRef>& stmts,
                                                  bool has_tail, bool module_level) {
  hoist_items(stmts, module_level);
  // Consts are evaluated before other statements, so resolve their values first, seeing items only.
  std::vector<NodeRef> out(stmts.size());
  for (size_t i = 0; i < stmts.size(); ++i) {
    auto& s = stmts[i];
    if (s && s->kind == Kind::Const) {
      NodeRef v = expr(ir::const_value(s));
      ir::DefId d = hoisted[s->id];
      NodeRef c = ir::edited(s, [&](ir::Node& n) {
        n.kids = {ir::const_type(s), v};
        n.def = d;
      });
      if (d.valid()) R.info(d).node = c;
      out[i] = c;
    }
  }
  ir::DefId group_def;
  std::string group_name;
  for (size_t i = 0; i < stmts.size(); ++i) {
    const NodeRef& s = stmts[i];
    if (!s) continue;
    bool last = has_tail && i + 1 == stmts.size();
    // Items are hoisted (SPEC §6), so an `fn` written between two clauses does not separate them.
    if (s->kind != Kind::EinDecl && !is_item(s->kind)) group_name.clear();
    switch (s->kind) {
      case Kind::Const:
      case Kind::Use:
      case Kind::StructDecl:
      case Kind::EnumDecl: if (!out[i]) out[i] = s; break;
      case Kind::Mod: out[i] = s; break;
      case Kind::Fn: out[i] = resolve_fn(s); break;
      case Kind::DiffFn: {
        ir::DefId target = lookup(s->name, s->span, false);
        if (!target.valid() || R.info(target).kind != DefKind::Fn) {
          error("E003", "`@fn " + s->name + "` has no function `" + s->name + "` to attach to",
                s->span, "no such function");
          out[i] = s;
          break;
        }
        NodeRef r = resolve_fn(s);
        r = ir::with_def(r, target);
        R.info(target).diff_rule = r;
        out[i] = r;
        break;
      }
      case Kind::Let: out[i] = resolve_let(s); break;
      case Kind::EinDecl: {
        // Consecutive clauses for one name are one definition: they share the DefId (§5.4).
        ir::DefId d;
        if (group_name == s->name && group_def.valid()) {
          d = group_def;
        } else {
          bool global = scopes.empty() && top_level_is_global;
          d = define(s->name, global ? DefKind::Global : DefKind::Local, s->span);
          group_def = d;
          group_name = s->name;
        }
        out[i] = resolve_ein_decl(s, d);
        break;
      }
      case Kind::ExprStmt: out[i] = ir::with_kids(s, {expr(ir::stmt_expr(s))}); break;
      case Kind::Error: out[i] = s; break;
      default:
        if (last) {
          out[i] = expr(s);
        } else if (is_item(s->kind)) {
          out[i] = s;
        } else {
          out[i] = expr(s);  // block-like expression statements (if/match/blocks)
        }
        break;
    }
  }
  return out;
}

// `mod name { items }`: a module whose items are resolved in their own scope, reachable by path
// and `use` like a file module.
void ResolveWalker::define_inline_module(const NodeRef& m, const ir::ModPath& path) {
  auto mi = std::make_unique<ModuleInfo>();
  mi->path = path;
  mi->file = R.sm.file(m->span.file).name;
  mi->crate = mod.crate;
  mi->is_std = mod.is_std;
  ModuleInfo* raw = mi.get();
  R.modules[path] = std::move(mi);
  ResolveWalker w(R, *raw, diags, true);
  for (auto& item : m->kids)
    if (item && !is_item(item->kind) && item->kind != Kind::Let && item->kind != Kind::EinDecl)
      w.error("E011", "only items (fn, const, use, mod) and `let` bindings are supported in a module",
              item->span, "not an item", "move computations into a function or a `let`");
  NodeRef prog = ir::make({.kind = Kind::Program, .span = m->span, .kids = m->kids});
  size_t before = diags.error_count();
  R.loader.push_back(raw);
  NodeRef resolved = w.resolve_program(prog);
  R.loader.pop_back();
  if (diags.error_count() == before) R.collect_inits(*raw, resolved);
}

NodeRef ResolveWalker::resolve_fn(const NodeRef& fn) {
  scopes.push_back(Scope{ScopeKind::Fn, {}, 0});
  std::vector<NodeRef> params;
  for (const NodeRef& p : ir::fn_params(fn))
    params.push_back(ir::with_def(p, define(p->name, DefKind::Param, p->span)));
  std::vector<NodeRef> kids{ir::fn_ret_type(fn), resolve_block(ir::fn_body(fn))};
  kids.insert(kids.end(), params.begin(), params.end());
  scopes.pop_back();
  NodeRef r = ir::with_kids(fn, std::move(kids));
  if (fn->kind == Kind::Fn) {
    auto it = hoisted.find(fn->id);
    ir::DefId d = it == hoisted.end() ? ir::DefId{} : it->second;
    if (d.valid()) {
      r = ir::with_def(r, d);
      R.info(d).node = r;
    }
  }
  return r;
}

NodeRef ResolveWalker::bind_pattern(const NodeRef& pat, DefKind kind) {
  if (!pat) return pat;
  switch (pat->kind) {
    case Kind::PBind: return ir::with_def(pat, define(pat->name, kind, pat->span));
    case Kind::PRest:
      if (pat->name.empty()) return pat;
      return ir::with_def(pat, define(pat->name, kind, pat->span));
    case Kind::PAt: {
      NodeRef sub = bind_pattern(ir::pat_inner(pat), kind);
      ir::DefId d = define(pat->name, kind, pat->span);
      return ir::edited(pat, [&](ir::Node& n) {
        n.kids = {sub};
        n.def = d;
      });
    }
    case Kind::PArray:
    case Kind::PTuple:
    case Kind::POr: {
      std::vector<NodeRef> kids;
      for (auto& k : pat->kids) kids.push_back(bind_pattern(k, kind));
      return ir::with_kids(pat, std::move(kids));
    }
    case Kind::PLit:
    case Kind::PRange: {
      std::vector<NodeRef> kids;
      for (auto& k : pat->kids) kids.push_back(opt_expr(k));
      return ir::with_kids(pat, std::move(kids));
    }
    default: return pat;
  }
}

NodeRef ResolveWalker::resolve_let(const NodeRef& let) {
  NodeRef value = resolve_where_value(ir::let_value(*let));
  bool global = scopes.empty() && top_level_is_global;
  NodeRef pat = bind_pattern(ir::let_pattern(*let), global ? DefKind::Global : DefKind::Local);
  return ir::with_kids(let, {pat, ir::let_type(*let), value});
}

// Where-bindings are visible in the main expression, which precedes them textually; an Index
// scope holds them so they never leak out of the declaration.
NodeRef ResolveWalker::resolve_where_value(const NodeRef& value) {
  if (!value || value->kind != Kind::Where) return opt_expr(value);
  NodeRef placed = place_where_clauses(value);
  if (placed->kind != Kind::Where) return expr(placed);
  scopes.push_back(Scope{ScopeKind::Index, {}, 0});
  std::vector<NodeRef> clauses;
  for (const NodeRef& c : ir::where_clauses(placed)) {
    // `where k in 0..3` introducing a new index: the rule broken is "ranges go in brackets"
    // (E012), not an undefined name.
    const NodeRef& g = ir::where_clause_expr(c);
    if (c->kind == Kind::WGuard && g && g->kind == Kind::Binary &&
        static_cast<ir::BinOp>(g->ival) == ir::BinOp::In && ir::bin_lhs(g)->kind == Kind::Name &&
        ir::bin_rhs(g)->kind == Kind::RangeLit && !lookup(ir::bin_lhs(g)->name, g->span, false).valid()) {
      const std::string& k = ir::bin_lhs(g)->name;
      error("E012", "index ranges are declared in brackets, not in `where`", g->span,
            "range in a where clause",
            "introduce the index with its range: `[" + k + " in " + R.sm.snippet(ir::bin_rhs(g)->span) +
                "]` (or `sum[" + k + " in ...](...)`)");
      define(k, DefKind::Index, ir::bin_lhs(g)->span);
      clauses.push_back(c);
      continue;
    }
    clauses.push_back(resolved_clause(c, expr(g), c->kind == Kind::WBind));
  }
  std::vector<NodeRef> kids{expr(ir::where_expr(placed))};
  kids.insert(kids.end(), clauses.begin(), clauses.end());
  scopes.pop_back();
  return ir::with_kids(placed, std::move(kids));
}

NodeRef ResolveWalker::resolve_ein_decl(const NodeRef& decl, ir::DefId def) {
  scopes.push_back(Scope{ScopeKind::Index, {}, 0});
  std::vector<NodeRef> slots = resolve_slots(ir::ein_slots(decl));
  std::vector<NodeRef> kids{resolve_where_value(ir::ein_value(decl))};
  kids.insert(kids.end(), slots.begin(), slots.end());
  scopes.pop_back();
  return ir::edited(decl, [&](ir::Node& n) {
    n.kids = std::move(kids);
    n.def = def;
  });
}

std::string doc_comment_above(const SourceMap& sm, Span span) {
  if (!span.valid()) return "";
  int line = sm.start(span).line;
  std::vector<std::string> lines;
  for (int l = line - 1; l >= 1; --l) {
    std::string t = sm.line_text(span.file, l);
    size_t b = t.find_first_not_of(" \t");
    if (b == std::string::npos || t.compare(b, 2, "//") != 0) break;
    size_t c = b + 2;
    while (c < t.size() && (t[c] == '/' || t[c] == '!')) ++c;
    if (c < t.size() && t[c] == ' ') ++c;
    lines.push_back(t.substr(c));
  }
  std::reverse(lines.begin(), lines.end());
  std::string out;
  for (auto& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

}  // namespace ein
