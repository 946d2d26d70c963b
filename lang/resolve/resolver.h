// Name resolution: every Name/Path of a cell gets a DefId (thesis §3.3-3.6, SPEC §6, §11).
// The Resolver outlives cells: the session scope (names -> newest DefId), loaded modules and the
// DefId table persist, so later cells see earlier bindings and functions keep what they saw.
// A cell that fails to resolve leaves the session scope exactly as it was.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "lang/diag/diag.h"
#include "lang/ir/node.h"
#include "lang/syntax/source.h"

namespace ein {

enum class DefKind : uint8_t {
  Builtin,
  Fn,
  Const,
  Module,
  Global,  // top-level let / Einstein binding of a session cell (lives in the session env)
  Local,   // block let, where-binding, comprehension variable, pattern binding
  Param,
  Index,   // Einstein / reduction index variable
  Rest,    // named rest pattern "..b"
};

struct DefInfo {
  std::string name;
  DefKind kind = DefKind::Local;
  Span span;
  ir::NodeRef node;       // Fn/Const: the resolved item node
  ir::NodeRef diff_rule;  // Fn: the resolved "@fn" rule, if any
  ir::ModPath module;     // owning module path (empty = the session)
  std::string doc;        // doc comment of an item (the // lines right above it)
};

struct ResolverOptions {
  std::string std_dir;   // directory holding std/ (share/)
  std::string root_dir;  // directory for local modules (the program's directory or the cwd)
};

struct ModuleInfo;

class Resolver {
 public:
  Resolver(SourceMap& sm, ResolverOptions opt);
  ~Resolver();

  // Resolves a parsed Program (one cell or one file). Errors go to `diags`; when any error is
  // reported the session scope is rolled back and the returned tree must not be used.
  ir::NodeRef resolve_cell(const ir::NodeRef& program, DiagSink& diags);

  const DefInfo& info(ir::DefId d) const;
  DefInfo& info_mut(ir::DefId d);
  // A fresh DefId for compiler-generated locals (rest expansion, autodiff, lowering).
  ir::DefId new_def(std::string name, DefKind kind, Span span = {});
  // Free local variables of a lambda (captured by value), by Lambda node id.
  const std::vector<ir::DefId>& captures(uint32_t lambda_id) const;

  // For completion and %who: visible session names (newest binding of each name).
  std::vector<std::pair<std::string, ir::DefId>> session_names() const;
  // Public items of a module path such as std::math (loads it if needed; empty on error).
  std::vector<std::string> module_items(const ir::ModPath& path);
  std::vector<std::string> submodules(const ir::ModPath& path) const;
  // The directory where a module's submodule files would be (share/std/a/b for std::a::b).
  std::string module_dir(const ir::ModPath& path) const;
  // Is this source file part of the standard library (errors there are the caller's to fix)?
  bool is_library_file(uint32_t file_id) const;
  // Where the standard library exports a value of this name, as the shortest module path
  // (`sqrt` -> std::math); empty if nowhere. For the help of E003.
  std::vector<ir::ModPath> std_homes(const std::string& name);

  // Looks up a name (one segment) or path in the session scope (for %doc, inspect); invalid if
  // none.
  ir::DefId lookup_session(const ir::ModPath& name_or_path);

  // Cell transactions. begin_cell() remembers the session scope; rollback_cell() restores it
  // (a cell that failed to compile); settle_cell() keeps the cell's names except globals that
  // never received a value (a cell that failed at run time keeps only completed bindings).
  void begin_cell();
  void rollback_cell();
  void settle_cell(const std::function<bool(ir::DefId)>& has_value);

  // A session global that no cell defines (the front ends' `_`, the last result); the caller
  // stores its value in the runtime environment.
  ir::DefId bind_session_global(const std::string& name);
  void reset();  // forget session names (modules stay cached)
  void set_root_dir(std::string dir);
  const std::string& root_dir() const;  // std::io::script_dir() reads it at run time

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  friend struct ResolveWalker;
};

}  // namespace ein
