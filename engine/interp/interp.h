// The interpreter tier: executes the lowered IR of a compiled cell (and the specialisations it
// calls) against the session's DefId-keyed environment. Runtime errors become DiagErrors with the
// span of the node that failed (E005 bounds, E006 domain, E007 division/assert/recursion/
// interrupt, E008 memory); bindings of completed top-level statements stay in the environment.
#pragma once
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/interp/progress.h"
#include "engine/value/value.h"
#include "lang/passes/context.h"

namespace ein {

// Function values: named functions, closures (lambda + captured values) and builtins.
struct Closure : FuncObj {
  enum class Kind { Fn, Lambda, Builtin } kind = Kind::Fn;
  ir::DefId def;                    // Fn / Builtin
  ir::NodeRef lambda;               // Lambda node
  std::vector<ir::DefId> capture_defs;
  std::vector<Value> captures;      // by value, in the order of capture_defs
  std::string name;
  std::string display_name() const override { return name; }
};

// Values of global bindings (top-level bindings of cells, evaluated consts), shared by cells.
struct RuntimeEnv {
  std::unordered_map<ir::DefId, Value> globals;
};

// Native-kernel counters of one cell (CellResult::kernel_hits/misses/compile_ms).
struct JitStats {
  int hits = 0;
  int misses = 0;
  double compile_ms = 0;
  double codegen_ms = 0;  // planning kernels and writing their C++ (codegen::plan_cell)
  double load_ms = 0;     // finding kernels in the cache and loading them (compile_ms excluded)
};

struct ExecOptions {
  int max_depth = 5000;                        // nested calls before E007
  std::string jit = "never";                   // "auto" | "always" | "never" (native kernels)
  JitStats* jit_stats = nullptr;               // filled when kernels are looked up or compiled
  const std::atomic<bool>* interrupt = nullptr;  // set asynchronously (SIGINT) to stop the cell
  Progress* progress = nullptr;                  // where the cell reports how far it got (progress.h)
  std::function<void(const std::string&)> out;   // where print() writes
};

struct StmtTiming {
  int line = 0;
  double ms = 0;
};

class Interpreter {
 public:
  Interpreter(CompileCtx& cx, RuntimeEnv& env, ExecOptions opt);
  ~Interpreter();
  // Runs the cell's consts and statements. Returns the trailing expression's value, if any.
  // Throws DiagError for a runtime error (after keeping completed top-level bindings).
  std::optional<Value> run_cell();
  const std::vector<StmtTiming>& stmt_timings() const;
  struct Impl;  // engine/interp/interp_impl.h (public for the native tier's helpers)

 private:
  Impl* impl_;
};

// The type of the array in an .npy file, from its header (nullptr when the file cannot be
// read or is not an .npy file): the compiler's CompileOptions::npy_probe (builtins_io.cpp).
ir::TypeRef npy_file_type(const std::string& path);

}  // namespace ein
