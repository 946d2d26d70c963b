// Internal to engine/interp: the native tier as the interpreter sees it. Before a cell runs it
// plans kernels (engine/codegen) and loads them (engine/jit, one compiler run for all misses);
// while it runs, exec_tensor offers each clause here first and interprets it when no kernel
// takes it. Results are identical either way (ARCHITECTURE "Tiering").
#pragma once
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "engine/codegen/codegen.h"
#include "engine/codegen/prelude.h"
#include "engine/interp/interp.h"

namespace ein {

struct NativeKernel {
  codegen::Kernel k;
  ein_kernel_fn fn = nullptr;
  bool deferred = false;   // auto mode: compile when the run-time size is large
  bool failed = false;     // compilation failed or arguments never fit: interpret
  double seen = 0;         // deferred: interpreted work of its runs so far (NativeTier::add_seen)
};

class NativeTier {
 public:
  NativeTier(CompileCtx& cx, const ExecOptions& opt);

  // Is this LTensor computed inside its consumer's kernel (so its own statement does nothing)?
  bool elided(const ir::NodeRef& tensor) const;
  // Shape and checks to evaluate for this LTensor (substituted when it fuses producers).
  const ir::NodeRef& shape_of(const ir::NodeRef& tensor) const;
  const std::vector<ir::NodeRef>* checks_of(const ir::NodeRef& tensor) const;
  // Before a fused consumer allocates: when its kernel cannot run, computes its producers the
  // ordinary way first. Returns false when the consumer will be interpreted.
  bool prepare(Interpreter::Impl& in, const ir::NodeRef& tensor);
  // Runs one clause natively; false = not handled (interpret it).
  bool run_clause(Interpreter::Impl& in, const ir::NodeRef& tensor, const ir::NodeRef& clause);
  // Runs a whole loop of resumed tensors natively (codegen::gen_loop); false = interpret it.
  bool run_loop(Interpreter::Impl& in, const ir::NodeRef& loop);
  // A `let` whose value is a reduction, or a reduction standing in an expression (a call's
  // argument, a function's result, a tuple element): its value; nullopt = interpret it.
  std::optional<Value> run_let(Interpreter::Impl& in, const ir::NodeRef& let);
  // Whether the plan has a kernel for this statement or expression node (cheap: a lookup).
  bool has_kernel(uint32_t id) const { return by_stmt_.count(id) > 0; }

 private:
  NativeKernel* find(uint32_t stmt_id);
  bool ready(Interpreter::Impl& in, NativeKernel& nk);
  bool bounds_past_i64(Interpreter::Impl& in, NativeKernel& nk);
  // Adds one run's interpreted work to the kernel's count (kept across cells for a function's
  // clause) and returns the total.
  double add_seen(NativeKernel& nk, double work);
  // 0 = ran; EIN_MISMATCH = arguments do not fit; otherwise throws the kernel's error.
  int call(Interpreter::Impl& in, NativeKernel& nk, Value* result);
  void materialize(Interpreter::Impl& in, NativeKernel& nk);
  void note_error(const std::string& error);

  CompileCtx& cx_;
  const ExecOptions& opt_;
  codegen::PlanOptions popt_;
  std::vector<std::unique_ptr<NativeKernel>> kernels_;
  std::unordered_map<uint32_t, NativeKernel*> by_stmt_;     // clause / let node id
  std::unordered_map<uint32_t, NativeKernel*> consumer_of_; // fused consumer LTensor id -> kernel
  std::unordered_set<uint32_t> elided_;                     // producer LTensor ids (kernels loaded)
  std::unordered_set<uint32_t> materialized_;
};

}  // namespace ein
