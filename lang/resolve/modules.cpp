// Module loading and imports (thesis §3.5-3.6, SPEC §6): `std::...` from share/std, other paths
// relative to the program root; `use` single/list/glob/alias/pub; cycle detection (E010).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lang/resolve/resolver_impl.h"
#include "lang/syntax/parser.h"
#include "lang/syntax/source.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;
namespace fs = std::filesystem;

namespace {

// What a module may contain: items, and top-level `let` bindings (SPEC §6).
bool is_module_stmt(Kind k) {
  return k == Kind::Fn || k == Kind::DiffFn || k == Kind::Const || k == Kind::Use ||
         k == Kind::Mod || k == Kind::StructDecl || k == Kind::EnumDecl || k == Kind::Let ||
         k == Kind::EinDecl;
}

// Rust's privacy: a private item is visible in its module and in every module below it. The
// program itself (path "") is the root of the user's modules; std never sees user items.
bool visible_from(const ModuleInfo& m, const ModuleInfo& from) {
  if (&m == &from) return true;
  if (m.is_std != from.is_std) return false;
  return m.path.empty() || from.path.below(m.path);
}

}  // namespace

std::string Resolver::Impl::module_dir(const ir::ModPath& path) const {
  std::string dir = path.is_std() ? opt.std_dir + "/std" : opt.root_dir.empty() ? "." : opt.root_dir;
  for (size_t i = path.is_std() ? 1 : 0; i < path.size(); ++i) dir += "/" + path.segs[i];
  return dir;
}

std::string Resolver::Impl::module_file(const ir::ModPath& path) const {
  std::string dir = module_dir(path);
  std::error_code ec;
  // `std` itself and the program's root are only directories with a mod.ein.
  if (path.size() > (path.is_std() ? 1u : 0u) && fs::is_regular_file(dir + ".ein", ec)) return dir + ".ein";
  if (fs::is_regular_file(dir + "/mod.ein", ec)) return dir + "/mod.ein";
  return "";
}

bool Resolver::Impl::module_exists(const ir::ModPath& path) const {
  return path.empty() || modules.count(path) || !module_file(path).empty();
}

ir::ModPath Resolver::Impl::canonical_module(const ModuleInfo& from, const ir::ModPath& written) const {
  if (written.empty()) return written;
  const std::string& first = written.front();
  ir::ModPath head;
  if (first == "self") {
    head = from.path;
  } else if (first == "super") {
    head = from.path.parent();
  } else if (first == "crate") {
    head = ir::ModPath{};
  } else if (auto it = from.modules.find(first); it != from.modules.end()) {
    head = it->second;
  } else if (first != "std" && !from.path.empty() && module_exists(from.path / first)) {
    head = from.path / first;
  } else {
    head = ir::ModPath::name(first);
  }
  return head / written.suffix(1);
}

ModuleInfo* Resolver::Impl::load_module(const ir::ModPath& path, Span at, DiagSink& diags) {
  if (path.empty()) return &session;  // `super::f` / `crate::f` reaching the program itself
  touched.insert(path);
  if (!loader.empty() && loader.back()->path != path) loader.back()->deps.push_back(path);
  if (auto it = modules.find(path); it != modules.end()) return it->second.get();
  if (failed.count(path)) return nullptr;  // reported where it failed; no cascade of E010s
  for (size_t i = 0; i < loading.size(); ++i) {
    const ir::ModPath& l = loading[i];
    // A child reaching its parent (`use super::f`) is not a cycle: the parent's items already
    // have DefIds (hoist_items loads submodules last), as in Rust. Its module-level `let`s are
    // not bound yet, so importing one of those is an "unresolved import", never a stale value.
    if (l == path && !loader.empty() && loader.back()->path.below(path) &&
        i < loader.size())
      return loader[i];
    if (l == path) {
      std::string chain;
      for (auto& x : loading) chain += x.text() + " -> ";
      diags.report(make_diag("E010", "circular import: " + chain + path.text(), at, "cycle closes here"));
      return nullptr;
    }
  }
  std::string file = module_file(path);
  if (file.empty()) {
    Diagnostic d = make_diag("E010", "unresolved import: module `" + path.text() + "` not found", at,
                             "no such module");
    d.help = "looked for " + module_dir(path) + ".ein and .../mod.ein";
    diags.report(std::move(d));
    return nullptr;
  }
  std::string text;
  if (std::string why = read_user_file(file, kMaxSourceBytes, text); !why.empty()) {
    diags.report(make_diag("E009", "cannot read module file " + file + ": " + why, at));
    return nullptr;
  }
  uint32_t fid = sm.add(file, std::move(text));
  if (path.is_std()) std_files.insert(fid);
  ParseResult pr = parse_program(sm, fid);
  size_t before = diags.error_count();
  for (auto& d : pr.diags) diags.report(d);
  if (!pr.diags.empty()) {
    failed.insert(path);
    diags.report(make_diag("E010", "module `" + path.text() + "` has syntax errors", at));
    return nullptr;
  }
  auto mi = std::make_unique<ModuleInfo>();
  mi->path = path;
  mi->file = file;
  mi->is_std = path.is_std();
  mi->crate = mi->is_std ? ir::kStdCrate : ir::kUserCrate;
  loading.push_back(path);
  loader.push_back(mi.get());
  {
    // Module-level lets are globals: they live in the session's environment once they ran.
    ResolveWalker w(*this, *mi, diags, true);
    for (auto& s : pr.program->kids)
      if (s && !is_module_stmt(s->kind))
        w.error("E011", "only items (fn, const, use, mod) and `let` bindings are supported at module level",
                s->span, "not an item", "move computations into a function or a `let`");
    NodeRef resolved = w.resolve_program(pr.program);
    if (diags.error_count() == before) collect_inits(*mi, resolved);
  }
  loader.pop_back();
  loading.pop_back();
  if (diags.error_count() > before) {
    failed.insert(path);
    diags.report(make_diag("E010", "failed to load module `" + path.text() + "`", at));
    return nullptr;
  }
  ModuleInfo* raw = mi.get();
  modules[path] = std::move(mi);
  return raw;
}

void Resolver::Impl::collect_inits(const ModuleInfo& m, const NodeRef& prog) {
  for (auto& s : prog->kids) {
    if (!s || (s->kind != Kind::Let && s->kind != Kind::EinDecl)) continue;
    PendingInit p{m.path, s, {}};
    if (s->kind == Kind::EinDecl) {
      p.defs.push_back(s->def);
    } else {
      std::vector<NodeRef> todo{ir::let_pattern(*s)};
      while (!todo.empty()) {
        NodeRef q = todo.back();
        todo.pop_back();
        if (q->kind == Kind::PBind) p.defs.push_back(q->def);
        for (auto& k : q->kids) todo.push_back(k);
      }
    }
    pending_inits.push_back(std::move(p));
  }
}

std::vector<NodeRef> Resolver::Impl::inits_for_cell() const {
  std::set<ir::ModPath> need;
  std::vector<ir::ModPath> todo(touched.begin(), touched.end());
  while (!todo.empty()) {
    ir::ModPath m = todo.back();
    todo.pop_back();
    if (!need.insert(m).second) continue;
    if (auto it = modules.find(m); it != modules.end())
      for (auto& d : it->second->deps) todo.push_back(d);
  }
  std::vector<NodeRef> out;
  for (auto& p : pending_inits)
    if (need.count(p.module)) out.push_back(p.stmt);
  return out;
}

std::vector<std::string> Resolver::module_items(const ir::ModPath& path) {
  DiagSink sink;
  ModuleInfo* m = impl_->load_module(path, Span{}, sink);
  std::vector<std::string> out;
  if (!m) return out;
  for (auto& [n, e] : m->names)
    if (e.pub) out.push_back(n);
  for (auto& n : m->pub_modules) out.push_back(n);
  return out;
}

std::vector<std::string> Resolver::submodules(const ir::ModPath& path) const {
  std::vector<std::string> out;
  auto it = impl_->modules.find(path);
  if (it != impl_->modules.end())
    for (auto& [n, p] : it->second->modules) out.push_back(n);
  return out;
}

std::string Resolver::module_dir(const ir::ModPath& path) const { return impl_->module_dir(path); }

bool Resolver::is_library_file(uint32_t file_id) const { return impl_->std_files.count(file_id) > 0; }

std::vector<ir::ModPath> Resolver::std_homes(const std::string& name) { return impl_->std_homes(name); }

std::vector<ir::ModPath> Resolver::Impl::std_homes(const std::string& name) {
  Impl& R = *this;
  if (!R.std_indexed) {
    // Every `pub fn` / `pub const` of share/std, read from each file's syntax tree (only on the
    // error path; parsed into a SourceMap of its own, so nothing is loaded or resolved).
    R.std_indexed = true;
    std::error_code ec;
    std::string root = R.opt.std_dir + "/std";
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->path().extension() != ".ein") continue;
      ir::ModPath mod = ir::ModPath::name("std");
      fs::path rel = fs::relative(it->path(), root, ec).replace_extension("");
      for (const fs::path& seg : rel)
        if (seg != "mod") mod = mod / seg.string();
      std::string text;
      if (!read_user_file(it->path().string(), kMaxSourceBytes, text).empty()) continue;
      SourceMap own;
      ParseResult pr = parse_program(own, own.add(it->path().string(), std::move(text)));
      for (const NodeRef& item : ir::program_stmts(*pr.program))
        if ((item->kind == Kind::Fn || item->kind == Kind::Const) && item->has(ir::kPub))
          R.std_index[item->name].push_back(mod);
    }
  }
  auto it = R.std_index.find(name);
  if (it == R.std_index.end()) return {};
  // The shortest path that exports it: `std::math` re-exports `std::math::basic::sqrt`.
  std::vector<ir::ModPath> homes;
  for (const ir::ModPath& def : it->second) {
    ir::ModPath best = def;
    for (ir::ModPath up = def.parent(); up.size() > 1; up = up.parent()) {
      DiagSink quiet;
      ModuleInfo* m = R.load_module(up, Span{}, quiet);
      if (!m) continue;
      auto e = m->names.find(name);
      if (e != m->names.end() && e->second.pub) best = up;
    }
    if (std::find(homes.begin(), homes.end(), best) == homes.end()) homes.push_back(best);
  }
  std::sort(homes.begin(), homes.end(), [](const ir::ModPath& a, const ir::ModPath& b) {
    const std::string x = a.text(), y = b.text();
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  });
  return homes;
}

// ---- imports ------------------------------------------------------------------------------------

void ResolveWalker::process_use(const NodeRef& use, std::unordered_map<std::string, Span>& defined,
                                std::unordered_map<std::string, Span>& mods) {
  bool pub = use->has(ir::kPub);
  bool glob = use->ival == ir::UseGlob;
  // A `use` inside a function or block binds only there (SPEC §6): values go to the innermost
  // scope, module aliases to that scope's module table.
  auto bind_value = [&](const std::string& name, ir::DefId d, Span at) {
    ir::DefId current;
    if (scopes.empty()) {
      if (auto it = mod.names.find(name); it != mod.names.end()) current = it->second.def;
    } else if (auto it = scopes.back().names.find(name); it != scopes.back().names.end()) {
      current = it->second;
    }
    if (auto it = defined.find(name); it != defined.end()) {
      if (glob || current == d) return;  // items and named imports win over globs
      report_twice(name, it->second, at, false);
      return;
    }
    if (!glob) defined[name] = at;
    if (scopes.empty())
      mod.names[name] = Entry{d, pub};
    else
      scopes.back().names[name] = d;
  };
  auto bind_module = [&](const std::string& name, const ir::ModPath& path, Span at) {
    auto& table = scopes.empty() ? mod.modules : scopes.back().modules;
    if (auto it = mods.find(name); it != mods.end()) {
      auto cur = table.find(name);
      if (glob || (cur != table.end() && cur->second == path)) return;
      report_twice(name, it->second, at, true);
      return;
    }
    if (!glob) mods[name] = at;
    table[name] = path;
    if (pub && scopes.empty()) mod.pub_modules.insert(name);
  };
  // Imports `item` (a value or a submodule) of the already-loaded module `m`.
  auto import_item = [&](ModuleInfo& m, const std::string& item, const std::string& alias,
                         Span at) {
    const std::string& local = alias.empty() ? item : alias;
    if (auto it = m.names.find(item); it != m.names.end()) {
      if (!it->second.pub && !visible_from(m, mod)) {
        error("E010", "`" + item + "` is private to module `" + m.path.text() + "`", at,
              "private item", "mark it `pub fn " + item + "` in " + m.file);
        return;
      }
      bind_value(local, it->second.def, at);
      return;
    }
    if (auto it = m.modules.find(item); it != m.modules.end()) {
      bind_module(local, it->second, at);
      return;
    }
    ir::ModPath sub = m.path / item;
    if (R.module_exists(sub)) {
      bind_module(local, sub, at);
      return;
    }
    error("E010", "unresolved import: no `" + item + "` in module `" + m.path.text() + "`", at,
          "not found in `" + m.path.text() + "`");
  };

  // `use a::b::c [as d]`: a module, a value, or both (separate namespaces).
  auto import_path = [&](const ir::ModPath& written, const std::string& alias, Span at) {
    ir::ModPath full = canonical(written);
    std::string local = alias.empty() ? written.back() : alias;
    if (R.module_exists(full)) {
      if (!R.load_module(full, at, diags)) return;
      bind_module(local, full, at);
      // Modules and values live in separate namespaces (as in Rust): `use std::math::exp;` also
      // imports the function `exp` that std::math re-exports beside its submodule `exp`.
      if (written.size() >= 2) {
        ir::ModPath parent = canonical(written.parent());
        if (R.module_exists(parent)) {
          DiagSink quiet;
          ModuleInfo* m = R.load_module(parent, at, quiet);
          if (m) {
            auto it = m->names.find(written.back());
            if (it != m->names.end() && (it->second.pub || m == &mod))
              bind_value(local, it->second.def, at);
          }
        }
      }
      return;
    }
    if (written.size() < 2) {
      error("E010", "unresolved import: module `" + full.text() + "` not found", at, "no such module");
      return;
    }
    ModuleInfo* m = R.load_module(canonical(written.parent()), at, diags);
    if (m) import_item(*m, written.back(), alias, at);
  };

  if (use->ival == ir::UsePath) {
    import_path(use->path, use->aux, use->span);
    return;
  }
  ir::ModPath path = canonical(use->path);
  ModuleInfo* m = R.load_module(path, use->span, diags);
  if (!m) return;
  if (use->ival == ir::UseList) {
    // Items of nested groups are paths below the `use` path (`{activations::relu}`); `self`
    // is the path itself (`use std::ml::{self, relu}` binds `ml` and `relu`).
    for (const ir::NodeRef& item : ir::use_items(use)) {
      switch (item->ival) {
        case UseItemSelf:
        case UseItemPath: import_path(use->path / item->path, item->aux, item->span); break;
        default: import_item(*m, item->path.back(), item->aux, item->span); break;
      }
    }
    return;
  }
  for (auto& [n, e] : m->names)
    if (e.pub || visible_from(*m, mod)) bind_value(n, e.def, use->span);
  for (auto& n : m->pub_modules) bind_module(n, m->modules[n], use->span);
}

ir::ModPath ResolveWalker::canonical(const ir::ModPath& written) const {
  for (size_t i = scopes.size(); i-- > 0 && !written.empty();) {
    auto it = scopes[i].modules.find(written.front());
    if (it != scopes[i].modules.end()) return it->second / written.suffix(1);
  }
  return R.canonical_module(mod, written);
}

ir::DefId ResolveWalker::lookup_path(const ir::ModPath& path, Span span) {
  if (path.size() < 2) return {};
  const std::string& item = path.back();
  const ir::ModPath written = path.parent();
  ir::ModPath modpath = canonical(written);
  if (!R.module_exists(modpath)) {
    // A path whose module is neither imported here nor a file is an undefined name (a `use`
    // inside another function does not reach this one).
    error("E003", "cannot find module `" + written.text() + "` in this scope",
          span, "not found in this scope",
          "import it with `use` in this scope, or write the full path (`std::...`, or a module "
          "file beside the program)");
    return {};
  }
  ModuleInfo* m = R.load_module(modpath, span, diags);
  if (!m) return {};
  auto it = m->names.find(item);
  if (it == m->names.end() && R.module_exists(canonical(path))) {
    // `std::math` typed where a value goes: the path exists, it is just not a value.
    const std::string p = path.text();
    error("E003", "`" + p + "` is a module, not a value", span, "a module",
          "name one of its items (`" + p + "::NAME`) or import some with `use " + p +
              "::{...};`; `?" + p + "` lists them");
    return {};
  }
  if (it == m->names.end()) {
    error("E003", "cannot find `" + item + "` in module `" + modpath.text() + "`", span,
          "not found in `" + modpath.text() + "`");
    return {};
  }
  if (!it->second.pub && !visible_from(*m, mod)) {
    error("E010", "`" + item + "` is private to module `" + modpath.text() + "`", span, "private item");
    return {};
  }
  return it->second.def;
}

}  // namespace ein
