#pragma once
#include <string>
#include <vector>

#include "lang/ir/node.h"

namespace ein {
struct CompileCtx;

// The flat pass list (thesis §4.3, ARCHITECTURE "IR conventions"). Runs every pass over the
// resolved cell, logs the time of each in CompileCtx::timings, stops after the first pass that
// reported errors, and can capture the IR after any pass.
struct PipelineOptions {
  std::string dump_after;  // pass name (see pass_names()), "" for none
  std::string* dump = nullptr;
  std::vector<std::string>* dumped_fns = nullptr;  // names of the functions the dump shows
};

// Returns true when the cell compiled without errors; the units' lowered bodies are then ready.
bool run_pipeline(CompileCtx& cx, const ir::NodeRef& resolved_program, const PipelineOptions& opt);

// The timing phase of the driver's own work between passes (dumps, the records of the cell's
// definitions for later cells); every other millisecond of run_pipeline is logged under the
// name of the pass that spent it.
inline constexpr const char* kDriverPhase = "driver";

// The pass names, in pipeline order (each is its file's stem).
const std::vector<std::string>& pass_names();

// The pass table's name for `name` or for an older alias of it ("type_inference" ->
// "type_infer"); "" when no pass has that name. dump_after accepts both.
std::string canonical_pass_name(const std::string& name);

// S-expression dump of every unit (the cell first) at its current stage; `fns`, when given,
// receives the names of the functions whose specialisations it shows.
std::string dump_units(const CompileCtx& cx, bool lowered, std::vector<std::string>* fns = nullptr);

}  // namespace ein
