// Module loading and imports (thesis §3.5-3.6, SPEC §6): `std::...` from share/std, other paths
// relative to the program root; `use` single/list/glob/alias/pub; cycle detection (E010).
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lang/resolve/resolver_impl.h"
#include "lang/syntax/parser.h"

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

bool is_item_stmt(Kind k) {
  return k == Kind::Fn || k == Kind::DiffFn || k == Kind::Const || k == Kind::Use ||
         k == Kind::Mod || k == Kind::StructDecl || k == Kind::EnumDecl;
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
  return modules.count(path) || !module_file(path).empty();
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
  if (auto it = modules.find(path); it != modules.end()) return it->second.get();
  for (auto& l : loading) {
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
  std::ifstream in(file, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  if (!in && !in.eof()) {
    diags.report(make_diag("E009", "cannot read module file " + file, at));
    return nullptr;
  }
  uint32_t fid = sm.add(file, buf.str());
  ParseResult pr = parse_program(sm, fid);
  size_t before = diags.error_count();
  for (auto& d : pr.diags) diags.report(d);
  if (!pr.diags.empty()) {
    diags.report(make_diag("E010", "module `" + path + "` has syntax errors", at));
    return nullptr;
  }
  auto mi = std::make_unique<ModuleInfo>();
  mi->path = path;
  mi->file = file;
  mi->is_std = path == "std" || path.rfind("std::", 0) == 0;
  mi->crate = mi->is_std ? ir::kStdCrate : ir::kUserCrate;
  loading.push_back(path);
  {
    ResolveWalker w(*this, *mi, diags, false);
    for (auto& s : pr.program->kids)
      if (s && !is_item_stmt(s->kind))
        w.error("E011", "only items (fn, const, use, mod) are supported at module level", s->span,
                "not an item", "move computations into a function");
    w.resolve_program(pr.program);
  }
  loading.pop_back();
  if (diags.error_count() > before) {
    diags.report(make_diag("E010", "failed to load module `" + path + "`", at));
    return nullptr;
  }
  ModuleInfo* raw = mi.get();
  modules[path] = std::move(mi);
  return raw;
}

// ---- imports ------------------------------------------------------------------------------------

void ResolveWalker::process_use(const NodeRef& use) {
  bool pub = use->has(ir::kPub);
  auto bind_value = [&](const std::string& name, ir::DefId d) {
    if (scopes.empty())
      mod.names[name] = Entry{d, pub};
    else
      scopes.back().names[name] = d;
  };
  auto bind_module = [&](const std::string& name, const std::string& path) {
    mod.modules[name] = path;
    if (pub) mod.pub_modules.insert(name);
  };
  // Imports `item` (a value or a submodule) of the already-loaded module `m`.
  auto import_item = [&](ModuleInfo& m, const std::string& item, const std::string& alias,
                         Span at) {
    const std::string& local = alias.empty() ? item : alias;
    if (auto it = m.names.find(item); it != m.names.end()) {
      if (!it->second.pub && &m != &mod) {
        error("E010", "`" + item + "` is private to module `" + m.path + "`", at,
              "private item", "mark it `pub fn " + item + "` in " + m.file);
        return;
      }
      bind_value(local, it->second.def);
      return;
    }
    if (auto it = m.modules.find(item); it != m.modules.end()) {
      bind_module(local, it->second);
      return;
    }
    std::string sub = m.path.empty() ? item : m.path + "::" + item;
    if (R.module_exists(sub)) {
      bind_module(local, sub);
      return;
    }
    error("E010", "unresolved import: no `" + item + "` in module `" + m.path + "`", at,
          "not found in `" + m.path + "`");
  };

  if (use->ival == ir::UsePath) {
    std::string full = R.canonical_module(mod, use->name);
    auto segs = split_path(use->name);
    if (R.module_exists(full)) {
      if (!R.load_module(full, use->span, diags)) return;
      bind_module(use->aux.empty() ? segs.back() : use->aux, full);
      // Modules and values live in separate namespaces (as in Rust): `use std::math::exp;` also
      // imports the function `exp` that std::math re-exports beside its submodule `exp`.
      if (segs.size() >= 2) {
        std::string parent = R.canonical_module(mod, join_path(segs, 0, segs.size() - 1));
        if (R.module_exists(parent)) {
          DiagSink quiet;
          ModuleInfo* m = R.load_module(parent, use->span, quiet);
          if (m) {
            auto it = m->names.find(segs.back());
            if (it != m->names.end() && (it->second.pub || m == &mod))
              bind_value(use->aux.empty() ? segs.back() : use->aux, it->second.def);
          }
        }
      }
      return;
    }
    if (segs.size() < 2) {
      error("E010", "unresolved import: module `" + full + "` not found", use->span,
            "no such module");
      return;
    }
    std::string parent = R.canonical_module(mod, join_path(segs, 0, segs.size() - 1));
    ModuleInfo* m = R.load_module(parent, use->span, diags);
    if (m) import_item(*m, segs.back(), use->aux, use->span);
    return;
  }
  std::string path = R.canonical_module(mod, use->name);
  ModuleInfo* m = R.load_module(path, use->span, diags);
  if (!m) return;
  if (use->ival == ir::UseList) {
    for (auto& item : use->kids) import_item(*m, item->name, item->aux, item->span);
    return;
  }
  for (auto& [n, e] : m->names)
    if (e.pub) bind_value(n, e.def);
  for (auto& n : m->pub_modules) bind_module(n, m->modules[n]);
}

ir::DefId ResolveWalker::lookup_path(const std::string& path, Span span) {
  auto segs = split_path(path);
  std::string item = segs.back();
  std::string modpath = R.canonical_module(mod, join_path(segs, 0, segs.size() - 1));
  ModuleInfo* m = R.load_module(modpath, span, diags);
  if (!m) return {};
  auto it = m->names.find(item);
  if (it == m->names.end()) {
    error("E003", "cannot find `" + item + "` in module `" + modpath + "`", span,
          "not found in `" + modpath + "`");
    return {};
  }
  if (!it->second.pub && m != &mod) {
    error("E010", "`" + item + "` is private to module `" + modpath + "`", span, "private item");
    return {};
  }
  return it->second.def;
}

}  // namespace ein
