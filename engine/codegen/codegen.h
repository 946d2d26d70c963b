// Native kernel generation: lowered IR (LTensor clauses, reductions) -> plain C++ over raw
// pointers, extents and strides, with OpenMP pragmas (ARCHITECTURE "Native kernels").
//
// Enters: a compiled cell (CompileCtx with its units' lowered IR and facts).
// Leaves: a CellPlan — one Kernel per compilable clause or reduction-valued `let`, with the
// function text (named EIN_KERNEL until the JIT names it by its hash), the arguments it reads,
// its error sites and a human-readable plan (strategy, BLAS, fusion, windows, checks).
// Nothing here compiles or runs code; engine/jit compiles, engine/interp/native_* dispatches.
#pragma once
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lang/ir/dtype.h"
#include "lang/ir/node.h"
#include "lang/passes/context.h"

namespace ein::codegen {

// A tensor argument, in argument order. Buffer 0 of a clause kernel is the tensor it fills.
struct BufArg {
  ir::DefId def;
  int32_t slot = -1;       // frame slot, or -1 for a global
  std::string name;
  DType dt = DType::F32;
  int rank = 0;
  bool output = false;
  bool windowed = false;   // the kernel indexes axis 0 modulo the window
  int64_t window = 0;      // rows kept on axis 0 (storage-window plan); -1: read from the value
  int reads = 0;           // generated reads (a buffer cannot be read both windowed and not)
  std::vector<int64_t> fixed;  // extents the code was specialised for (-1 = any)
};

// A scalar argument (int, float or bool binding read by the kernel).
struct ScalarArg {
  ir::DefId def;
  int32_t slot = -1;
  std::string name;
  DType dt = DType::I32;
};

// Where a kernel can fail: the runtime turns (site, code, values) into a diagnostic.
struct Site {
  Span span;
  std::string code;     // for LCheck sites: "E004"
  std::string message;  // for LCheck sites: the message; for empty reductions: the op name
  std::string help;     // for LCheck sites: the help line, or ""
};

// Loop: a sequential loop of resumed tensors (checkpoint segments) run by one function that
// calls its clauses' kernels (`parts`) at every iteration (loop_kernel.cpp).
enum class KernelKind { Clause, Expr, Loop };

struct Kernel {
  KernelKind kind = KernelKind::Clause;
  const Unit* unit = nullptr;
  ir::NodeRef tensor;  // Clause: the LTensor the clause belongs to
  ir::NodeRef stmt;    // Clause: the clause statement; Expr: the Let
  DType result_dt = DType::F32;  // Expr kernels
  std::string source;  // `extern "C" int EIN_KERNEL(ein_args* A) {...}`
  // The source after its entry's name (`(ein_args* A) {...}`): a loop kernel declares each of
  // its clause kernels as a static function with this body.
  std::string entry_body;
  std::vector<BufArg> bufs;
  std::vector<ScalarArg> scalars;
  std::vector<Site> sites;
  std::vector<std::string> plan;  // facts for `%ir kernel`
  std::string strategy;           // vectorized | scalar | recurrence | gemm | gemv | einsum
  double work = -1;               // static estimate of points executed (-1: unknown)
  // What one point costs the interpreter, in units of a whole-array (vectorised) point: the
  // tier compares work × interp_cost with the threshold (interpreted_work below).
  double interp_cost = 1;
  std::vector<ir::NodeRef> fused; // producer LTensors computed inside this kernel (not stored)
  // Allocation shape and checks of `tensor` with fused producers' extents substituted
  // (the interpreter evaluates them before calling the kernel).
  ir::NodeRef shape;
  std::vector<ir::NodeRef> checks;
  int accesses = 0, checked = 0;  // tensor reads, and how many of them carry a bounds check
  std::vector<Kernel> parts;      // Loop: the clause kernels, in order (their text is in source)
  int accesses_of(int buf) const { return bufs[static_cast<size_t>(buf)].reads; }
};

// A clause kernel of `tensor` for statement `stmt`, before code generation: its unit and the
// tensor's allocation shape (the fields every clause kernel starts from).
inline Kernel clause_kernel(const Unit& u, const ir::NodeRef& tensor, const ir::NodeRef& stmt) {
  Kernel k;
  k.kind = KernelKind::Clause;
  k.unit = &u;
  k.tensor = tensor;
  k.stmt = stmt;
  k.shape = ir::ltensor_shape(tensor);
  return k;
}

struct Skipped {
  const Unit* unit = nullptr;
  ir::NodeRef stmt;
  std::string reason;
};

struct PlanOptions {
  enum class Mode { Never, Auto, Always } mode = Mode::Auto;
  double threshold = 32768;  // auto: points below which a clause stays interpreted
  bool fusion = true;
  // Auto mode: a clause or statement whose size is unknown before the run (inside a function)
  // is deferred with no source (`Kernel::source` empty, `work` -1) instead of generated now;
  // `generate_deferred` makes it when a run first makes it large. Most never grow that large
  // (a std layer on a small input), and generating every one took about a third of a cell of
  // repeated std calls. The native tier sets it; `%ir kernel` plans eagerly.
  bool lazy_deferred = false;
};

struct CellPlan {
  std::vector<Kernel> kernels;        // to compile before the cell runs
  std::vector<Kernel> deferred;       // auto mode, size unknown until run time
  std::vector<Skipped> skipped;       // not compilable (interpreted), with the reason
  std::unordered_set<uint32_t> elided;  // LTensor node ids computed inside a consumer kernel
};

PlanOptions::Mode parse_mode(const std::string& s);

// Tiering by estimated interpreted time, not by points: a clause the interpreter runs point by
// point (a recurrence, a self-read, a call per point) costs it several times what a whole-array
// point costs, a scatter pass far more (docs/performance.md "Tiering" has the measurements).
double interp_point_cost(const Unit& u, const Kernel& k);
// work × interp_cost: what auto mode compares with PlanOptions::threshold (-1 when unknown).
inline double interpreted_work(const Kernel& k) { return k.work < 0 ? -1 : k.work * k.interp_cost; }

// Plans every unit of a compiled cell.
CellPlan plan_cell(const CompileCtx& cx, const PlanOptions& opt);

// Single kernels (exposed for tests). `fused` maps producer tensor DefIds to their LTensors.
struct FusionMap {
  std::unordered_map<ir::DefId, ir::NodeRef> producers;
};
std::optional<Kernel> gen_clause(const CompileCtx& cx, const Unit& u, const ir::NodeRef& tensor,
                                 const ir::NodeRef& clause, const FusionMap& fusion,
                                 std::string* why);
// A scalar statement's kernel: a `let` bound to a reduction, an expression statement, or the
// trailing expression of a cell (echoed as Out[n]) — tiered alike.
std::optional<Kernel> gen_expr(const CompileCtx& cx, const Unit& u, const ir::NodeRef& stmt,
                               std::string* why);
// The kernel of a deferred skeleton from plan_cell under `lazy_deferred` (its unit, tensor and
// statement set, no source): the same kernel plan_cell would have generated, or nullopt with
// the reason when codegen cannot take the statement.
std::optional<Kernel> generate_deferred(const CompileCtx& cx, const Kernel& skeleton, std::string* why);
// A sequential `LFor` whose body only resumes earlier tensors, and its loop kernel.
bool is_resume_loop(const ir::NodeRef& loop);
std::optional<Kernel> gen_loop(const CompileCtx& cx, const Unit& u, const ir::NodeRef& loop, std::string* why);
// Two consecutive resumed tensors of such a loop whose time loops can run as one (gen_jam.cpp):
// one kernel storing both, or nullopt.
std::optional<Kernel> gen_jammed(const CompileCtx& cx, const Unit& u, const ir::NodeRef& ta, const ir::NodeRef& tb);
// The value such a statement computes (the let's value, the statement's expression, or itself).
const ir::NodeRef& expr_kernel_value(const ir::NodeRef& stmt);

// `%ir kernel`: the plan of every kernel and, with sources, the generated C++.
std::string describe(const CompileCtx& cx, const CellPlan& plan, bool with_source);

// The prelude text (engine/codegen/prelude.h as embedded at build time) and its ABI version.
const char* prelude_text();
int prelude_abi();

}  // namespace ein::codegen
