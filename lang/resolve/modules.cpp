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

std::vector<std::string> split_path(const std::string& p) {
  std::vector<std::string> out;
  size_t b = 0;
  while (true) {
    size_t e = p.find("::", b);
    out.push_back(p.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 2;
  }
  return out;
}

std::string join_path(const std::vector<std::string>& segs, size_t from, size_t to) {
  std::string s;
  for (size_t i = from; i < to; ++i) s += (i > from ? "::" : "") + segs[i];
  return s;
}

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
  return m.path.empty() || from.path.rfind(m.path + "::", 0) == 0;
}

}  // namespace

std::string Resolver::Impl::module_file(const std::string& path) const {
  auto segs = split_path(path);
  std::string base;
  size_t first = 0;
  if (segs[0] == "std") {
    base = opt.std_dir + "/std";
    first = 1;
  } else {
    base = opt.root_dir.empty() ? "." : opt.root_dir;
  }
  std::string rel;
  for (size_t i = first; i < segs.size(); ++i) rel += "/" + segs[i];
  std::error_code ec;
  if (!rel.empty() && fs::is_regular_file(base + rel + ".ein", ec)) return base + rel + ".ein";
  if (fs::is_regular_file(base + rel + "/mod.ein", ec)) return base + rel + "/mod.ein";
  return "";
}

bool Resolver::Impl::module_exists(const std::string& path) const {
  return path.empty() || modules.count(path) || !module_file(path).empty();
}

std::string Resolver::Impl::canonical_module(const ModuleInfo& from,
                                             const std::string& written) const {
  auto segs = split_path(written);
  std::string head;
  size_t rest = 1;
  if (segs[0] == "self") {
    head = from.path;
  } else if (segs[0] == "super") {
    size_t p = from.path.rfind("::");
    head = p == std::string::npos ? "" : from.path.substr(0, p);
  } else if (segs[0] == "crate") {
    head = "";
  } else if (auto it = from.modules.find(segs[0]); it != from.modules.end()) {
    head = it->second;
  } else if (segs[0] != "std" && !from.path.empty() &&
             module_exists(from.path + "::" + segs[0])) {
    head = from.path + "::" + segs[0];
  } else {
    head = segs[0];
  }
  std::string tail = join_path(segs, rest, segs.size());
  if (head.empty()) return tail;
  return tail.empty() ? head : head + "::" + tail;
}

ModuleInfo* Resolver::Impl::load_module(const std::string& path, Span at, DiagSink& diags) {
  if (path.empty()) return &session;  // `super::f` / `crate::f` reaching the program itself
  touched.insert(path);
  if (!loader.empty() && loader.back()->path != path) loader.back()->deps.push_back(path);
  if (auto it = modules.find(path); it != modules.end()) return it->second.get();
  if (failed.count(path)) return nullptr;  // reported where it failed; no cascade of E010s
  for (size_t i = 0; i < loading.size(); ++i) {
    const std::string& l = loading[i];
    // A child reaching its parent (`use super::f`) is not a cycle: the parent's items already
    // have DefIds (hoist_items loads submodules last), as in Rust. Its module-level `let`s are
    // not bound yet, so importing one of those is an "unresolved import", never a stale value.
    if (l == path && !loader.empty() && loader.back()->path.rfind(path + "::", 0) == 0 &&
        i < loader.size())
      return loader[i];
    if (l == path) {
      std::string chain;
      for (auto& x : loading) chain += x + " -> ";
      diags.report(make_diag("E010", "circular import: " + chain + path, at, "cycle closes here"));
      return nullptr;
    }
  }
  std::string file = module_file(path);
  if (file.empty()) {
    Diagnostic d = make_diag("E010", "unresolved import: module `" + path + "` not found", at,
                             "no such module");
    auto segs = split_path(path);
    std::string where = segs[0] == "std" ? opt.std_dir + "/std" : (opt.root_dir.empty() ? "." : opt.root_dir);
    d.help = "looked for " + where + "/" + join_path(segs, segs[0] == "std" ? 1 : 0, segs.size()) +
             ".ein and .../mod.ein";
    for (auto& c : d.help)
      if (c == ':') c = '/';
    diags.report(std::move(d));
    return nullptr;
  }
  std::string text;
  if (std::string why = read_user_file(file, kMaxSourceBytes, text); !why.empty()) {
    diags.report(make_diag("E009", "cannot read module file " + file + ": " + why, at));
    return nullptr;
  }
  uint32_t fid = sm.add(file, std::move(text));
  if (path == "std" || path.rfind("std::", 0) == 0) std_files.insert(fid);
  ParseResult pr = parse_program(sm, fid);
  size_t before = diags.error_count();
  for (auto& d : pr.diags) diags.report(d);
  if (!pr.diags.empty()) {
    failed.insert(path);
    diags.report(make_diag("E010", "module `" + path + "` has syntax errors", at));
    return nullptr;
  }
  auto mi = std::make_unique<ModuleInfo>();
  mi->path = path;
  mi->file = file;
  mi->is_std = path == "std" || path.rfind("std::", 0) == 0;
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
    diags.report(make_diag("E010", "failed to load module `" + path + "`", at));
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
  std::set<std::string> need;
  std::vector<std::string> todo(touched.begin(), touched.end());
  while (!todo.empty()) {
    std::string m = todo.back();
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

bool Resolver::is_library_file(uint32_t file_id) const { return impl_->std_files.count(file_id) > 0; }

std::vector<std::string> Resolver::std_homes(const std::string& name) { return impl_->std_homes(name); }

std::vector<std::string> Resolver::Impl::std_homes(const std::string& name) {
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
      std::string mod = "std";
      fs::path rel = fs::relative(it->path(), root, ec).replace_extension("");
      for (const fs::path& seg : rel)
        if (seg != "mod") mod += "::" + seg.string();
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
  std::vector<std::string> homes;
  for (const std::string& def : it->second) {
    std::string best = def;
    for (std::string up = def; up.rfind("::") != std::string::npos && up != "std";) {
      up = up.substr(0, up.rfind("::"));
      if (up == "std") break;
      DiagSink quiet;
      ModuleInfo* m = R.load_module(up, Span{}, quiet);
      if (!m) continue;
      auto e = m->names.find(name);
      if (e != m->names.end() && e->second.pub) best = up;
    }
    if (std::find(homes.begin(), homes.end(), best) == homes.end()) homes.push_back(best);
  }
  std::sort(homes.begin(), homes.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
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
  auto bind_module = [&](const std::string& name, const std::string& path, Span at) {
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
        error("E010", "`" + item + "` is private to module `" + m.path + "`", at,
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
    std::string sub = m.path.empty() ? item : m.path + "::" + item;
    if (R.module_exists(sub)) {
      bind_module(local, sub, at);
      return;
    }
    error("E010", "unresolved import: no `" + item + "` in module `" + m.path + "`", at,
          "not found in `" + m.path + "`");
  };

  // `use a::b::c [as d]`: a module, a value, or both (separate namespaces).
  auto import_path = [&](const std::string& written, const std::string& alias, Span at) {
    std::string full = canonical(written);
    auto segs = split_path(written);
    std::string local = alias.empty() ? segs.back() : alias;
    if (R.module_exists(full)) {
      if (!R.load_module(full, at, diags)) return;
      bind_module(local, full, at);
      // Modules and values live in separate namespaces (as in Rust): `use std::math::exp;` also
      // imports the function `exp` that std::math re-exports beside its submodule `exp`.
      if (segs.size() >= 2) {
        std::string parent = canonical(join_path(segs, 0, segs.size() - 1));
        if (R.module_exists(parent)) {
          DiagSink quiet;
          ModuleInfo* m = R.load_module(parent, at, quiet);
          if (m) {
            auto it = m->names.find(segs.back());
            if (it != m->names.end() && (it->second.pub || m == &mod))
              bind_value(local, it->second.def, at);
          }
        }
      }
      return;
    }
    if (segs.size() < 2) {
      error("E010", "unresolved import: module `" + full + "` not found", at, "no such module");
      return;
    }
    std::string parent = canonical(join_path(segs, 0, segs.size() - 1));
    ModuleInfo* m = R.load_module(parent, at, diags);
    if (m) import_item(*m, segs.back(), alias, at);
  };

  if (use->ival == ir::UsePath) {
    import_path(use->name, use->aux, use->span);
    return;
  }
  std::string path = canonical(use->name);
  ModuleInfo* m = R.load_module(path, use->span, diags);
  if (!m) return;
  if (use->ival == ir::UseList) {
    // Items of nested groups are paths below the `use` path (`{activations::relu}`); `self`
    // is the path itself (`use std::ml::{self, relu}` binds `ml` and `relu`).
    for (const ir::NodeRef& item : ir::use_items(use)) {
      switch (item->ival) {
        case UseItemSelf:
          import_path(item->name.empty() ? use->name : use->name + "::" + item->name, item->aux, item->span);
          break;
        case UseItemPath: import_path(use->name + "::" + item->name, item->aux, item->span); break;
        default: import_item(*m, item->name, item->aux, item->span); break;
      }
    }
    return;
  }
  for (auto& [n, e] : m->names)
    if (e.pub || visible_from(*m, mod)) bind_value(n, e.def, use->span);
  for (auto& n : m->pub_modules) bind_module(n, m->modules[n], use->span);
}

std::string ResolveWalker::canonical(const std::string& written) const {
  size_t e = written.find("::");
  std::string head = written.substr(0, e);
  for (size_t i = scopes.size(); i-- > 0;) {
    auto it = scopes[i].modules.find(head);
    if (it != scopes[i].modules.end())
      return e == std::string::npos ? it->second : it->second + written.substr(e);
  }
  return R.canonical_module(mod, written);
}

ir::DefId ResolveWalker::lookup_path(const std::string& path, Span span) {
  auto segs = split_path(path);
  std::string item = segs.back();
  std::string modpath = canonical(join_path(segs, 0, segs.size() - 1));
  if (!R.module_exists(modpath)) {
    // A path whose module is neither imported here nor a file is an undefined name (a `use`
    // inside another function does not reach this one).
    error("E003", "cannot find module `" + join_path(segs, 0, segs.size() - 1) + "` in this scope",
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
    error("E003", "`" + path + "` is a module, not a value", span, "a module",
          "name one of its items (`" + path + "::NAME`) or import some with `use " + path +
              "::{...};`; `?" + path + "` lists them");
    return {};
  }
  if (it == m->names.end()) {
    error("E003", "cannot find `" + item + "` in module `" + modpath + "`", span,
          "not found in `" + modpath + "`");
    return {};
  }
  if (!it->second.pub && !visible_from(*m, mod)) {
    error("E010", "`" + item + "` is private to module `" + modpath + "`", span, "private item");
    return {};
  }
  return it->second.def;
}

}  // namespace ein
