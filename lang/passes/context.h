// The compilation context of one cell: its units (the cell itself and every function
// specialisation it reaches) and the side tables the passes fill. Passes communicate only
// through this context (thesis §4.1); IR nodes carry no mutable analysis fields.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lang/diag/diag.h"
#include "lang/ir/node.h"
#include "lang/ir/type.h"
#include "lang/passes/cse_plan.h"
#include "lang/passes/loop_plan.h"
#include "lang/passes/tile_plan.h"
#include "lang/resolve/resolver.h"

namespace ein {

// What the compiler may know about bindings that already hold values (earlier cells).
struct GlobalEnvView {
  virtual ~GlobalEnvView() = default;
  virtual ir::TypeRef type_of(ir::DefId d) const = 0;  // nullptr if no value
  virtual std::optional<std::vector<int64_t>> shape_of(ir::DefId d) const = 0;
  virtual std::optional<int64_t> int_value(ir::DefId d) const = 0;  // integer scalars
};

// Range of one index variable: [lo, hi) as integer IR expressions (symbolic or constant).
struct RangeFact {
  ir::NodeRef lo, hi;
  bool is_explicit = false;
  std::optional<int64_t> lo_const, hi_const;  // folded by shape analysis when known
  Span span;                                   // where the index was introduced
};

// Two plain uses of one index must see the same extent (SPEC §5.2).
struct AgreeFact {
  ir::DefId index;
  ir::NodeRef extent_a, extent_b;  // integer IR expressions
  Span span_a, span_b;
  std::string what_a, what_b;      // "A[i, k]" for the labels
};

// A run-time condition an inferred range relies on: a loop-invariant stride taken to be
// positive (`X[oh * stride + kh]`). Lowered to an LCheck before the site's loops run.
struct RangeCheck {
  ir::DefId index;
  ir::NodeRef cond;
  Span span;
  std::string code, message, help;  // help: the diagnostic's help line ("" for none)
};

// Statically known extents of a value: -1 = unknown. Rank may be unknown (nullopt).
using StaticShape = std::vector<int64_t>;

// The fused time loop of a recurrence (recurrence_order): the tensor axis it runs along and how
// many steps back its clauses read (nullopt: not a constant, e.g. a reverse or dynamic read).
struct RecurrenceFact {
  int axis = 0;
  std::optional<int64_t> lookback;
};

// How the interpreter may run a clause's loop nest (exec_facts): every point independent with
// no calls (whole-array evaluation), a matrix product up to transposition, or point by point.
enum class LoopStrategy : uint8_t { Vectorized, Gemm, Scalar };
const char* strategy_name(LoopStrategy s);

struct ContractionPlan;  // lang/passes/contraction_plan.h

// Producer/consumer fusion (fusion_plan): elementwise producers computed inside the loop nest of
// one later consumer clause, at its point, and never stored. Native code honours it when the
// consumer's kernel compiles (and, under EIN_JIT=auto, is worth compiling).
struct FusionGroup {
  uint32_t consumer = 0;               // the consumer's LTensor node id
  uint32_t clause = 0;                 // the consumer clause's node id
  std::vector<ir::DefId> producers;    // producer tensors, each after the producers it reads
};

struct Unit {
  enum class Kind { Cell, Fn, Lambda } kind = Kind::Cell;
  int id = 0;
  std::string name;  // "cell", "fib(i32)", "lambda@3:9(f32)"
  std::string key;   // specialisation key
  ir::NodeRef body;  // Cell: Program; Fn: resolved Fn node; Lambda: Lambda node
  ir::DefId fn;      // Fn units
  const Unit* parent = nullptr;  // Lambda units: where the lambda was created
  std::vector<ir::TypeRef> param_types;
  ir::TypeRef ret_type;
  bool in_progress = false;

  // type inference
  std::unordered_map<uint32_t, ir::TypeRef> types;        // node id -> type
  std::unordered_map<ir::DefId, ir::TypeRef> def_types;   // locals, params, indices
  std::unordered_map<uint32_t, Unit*> call_targets;       // Call node id -> callee unit
  std::unordered_map<ir::DefId, int> rest_len;            // rest def -> number of axes
  std::unordered_map<uint32_t, bool> static_ifs;          // If node id -> branch taken (rank tests)
  // `__promote(x, mode)` call node id -> the element type x is converted to (null: x as it is);
  // decided per specialisation like static_ifs, and rewritten away at the end of type_infer.
  std::unordered_map<uint32_t, ir::TypeRef> promotes;
  // `__einsum(eq, ops)` call node ids whose operands are an array literal, a list (rewritten at
  // the end of type_infer into `__einsum(eq, ops, true)`, which the run unstacks).
  std::unordered_set<uint32_t> einsum_lists;
  // Parameters whose argument at the one call of this specialisation is a literal shape or
  // equation (`[2, 3]`, `"ij,jk->ik"`): builtins read it to type their result statically.
  std::unordered_map<ir::DefId, ir::NodeRef> literal_args;
  // Every argument of that call whose type is still open is a literal written at the call
  // (`[3, 3]`, `0.5`), so nothing but this body constrains it: a later call with structurally
  // equal literals and extents may share this specialisation (type_infer_call.cpp).
  bool shares_literals = false;
  // Unannotated bindings of this unit whose value is such a literal (`let axes = [0, 2];`):
  // bindings never change, so a call reading one sees the literal as if written there.
  std::unordered_map<ir::DefId, ir::NodeRef> literal_lets;
  // Extents known where they are written (-1: not known), of bindings of this unit (a nested
  // integer literal, an annotation `[i32; 3, 2]`) and of parameters whose argument had them at
  // the one call of this specialisation and whose shape a `__reshape` promise reads.
  std::unordered_map<ir::DefId, std::vector<int64_t>> let_extents;
  std::unordered_map<ir::DefId, std::vector<int64_t>> arg_extents;
  // rest expansion
  std::unordered_map<ir::DefId, std::vector<ir::DefId>> rest_defs;
  // range and shape analysis
  std::unordered_map<ir::DefId, RangeFact> ranges;
  std::vector<AgreeFact> agrees;
  std::vector<RangeCheck> range_checks;
  std::unordered_set<uint32_t> proven;                    // Index node ids in bounds by construction
  std::unordered_map<ir::DefId, StaticShape> def_shapes;
  std::unordered_map<uint32_t, StaticShape> shapes;       // node id -> static shape
  std::unordered_map<ir::DefId, int64_t> int_values;      // integer lets with a known value
  // lowering, and facts about the lowered code (keyed by node id; printed by %ir)
  std::unordered_map<uint32_t, RecurrenceFact> recurrences;  // time LFor -> its recurrence
  std::unordered_map<uint32_t, LoopStrategy> strategies;     // outermost LFor of a clause
  std::unordered_map<uint32_t, std::shared_ptr<const ContractionPlan>> contractions;  // LReduce
  std::vector<FusionGroup> fusions;
  std::unordered_map<uint32_t, TileFact> tiles;  // outer LFor of a nest walked in cache blocks
  std::unordered_map<uint32_t, LoopFact> loops;  // LFor, LoopVar, LReduce: how native code runs it
  std::unordered_map<uint32_t, int> common;      // expression node -> index in common_groups
  std::vector<CseGroup> common_groups;           // computed once where codegen can (cse_plan)
  ir::NodeRef lowered;        // lowered body: Program (cell) or Block (fn/lambda)
  std::vector<ir::DefId> params;
  std::vector<ir::DefId> captures;
  int frame_size = 0;         // local slots
  std::unordered_map<ir::DefId, int> slot_of;

  ir::TypeRef type(const ir::NodeRef& n) const {
    auto it = types.find(n->id);
    return it == types.end() ? ir::t_unknown() : it->second;
  }
};

// Definitions of top-level bindings of earlier cells, kept so that autodiff can differentiate
// through them (SPEC §7: "bindings in earlier cells of the same session"). Owned by the session.
struct DefRecord {
  ir::NodeRef stmt;                                   // analysed Let or EinGroup
  std::unordered_map<ir::DefId, RangeFact> ranges;    // of the index variables inside it
  std::shared_ptr<const Unit> unit;                   // the cell unit it was analysed in (types)
};
struct PersistentFacts {
  std::unordered_map<ir::DefId, DefRecord> defs;
  std::unordered_map<ir::DefId, ir::NodeRef> differentials;  // `let df = @f;`: df -> the `@f` node
  // Names the most recent cell bound at its top level -> the indexed definition it made of that
  // name (invalid when its last binding of the name was not an indexed one). SPEC §11 joins
  // clause-by-clause recurrences only with the immediately preceding cell.
  std::unordered_map<std::string, ir::DefId> last_cell;
};

struct PassTiming {
  std::string pass;  // a name of the pass table (driver.cpp), or a phase of the native tier
  double ms = 0;
  int round = 0;     // > 0: a run of an analysis over autodiff's rewrite of that round
};

struct CompileOptions {
  bool whole_program = false;  // a file run: later uses are all known (storage windows)
  bool records_cell = true;    // the cell will run: it becomes the "previous cell" (SPEC §11)
  int max_specialisations = 2000;
  // Checkpointed reverse sweeps (checkpoint.h): the bytes a gradient may store before its
  // recurrences are checkpointed, and a forced spacing (0: chosen from the extents).
  int64_t ad_memory = int64_t{64} << 20;
  int64_t ad_checkpoint = 0;
  // The type of the array an .npy file holds now, from its header (nullptr when it cannot be
  // read): `load_npy("data.npy")` is typed from it at compile time (type_infer_npy.cpp).
  std::function<ir::TypeRef(const std::string&)> npy_probe;
  // Calls on rows inlined as declarations over the rows (row_inline.h): 0 never, 1 on, 2 on and
  // each site's outcome printed to stderr (EIN_ROW_INLINE).
  int row_inline = 1;
  // Row declarations fused into their consumer's block (row_fuse.h): 0 never, 1 on (EIN_ROW_FUSE).
  int row_fuse = 1;
};

struct CompileCtx {
  SourceMap& sm;
  Resolver& resolver;
  DiagSink& diags;
  const GlobalEnvView& env;
  CompileOptions opt;
  PersistentFacts* persist = nullptr;
  std::vector<std::shared_ptr<Unit>> units;  // units[0] = the cell
  // Specialisations by (signature, owner): owner "" is the one every call of the signature may
  // share, "#N" one that belongs to a single call (N: its unit number). Unit::key joins the two.
  std::map<std::pair<std::string, std::string>, Unit*> specs;
  std::unordered_map<ir::DefId, ir::TypeRef> global_types;  // this cell's top-level bindings
  std::unordered_map<ir::DefId, StaticShape> global_shapes;
  std::unordered_map<ir::DefId, int64_t> const_ints;       // known integer constants
  std::vector<ir::NodeRef> consts;  // Const items to evaluate before the cell runs (dep order)
  std::vector<PassTiming> timings;
  // .npy files this cell writes with a literal path (type_infer_npy.cpp): the type written at
  // the latest save typed so far, and whether the cell may write files it does not name.
  std::unordered_map<std::string, ir::TypeRef> npy_saved;
  std::optional<std::unordered_set<std::string>> npy_written;
  bool npy_unnamed_writes = false;
  // Autodiff: function bodies rewritten per specialisation (by Unit::key; type inference uses
  // them when it specialises again), and the number of rewrites (the driver analyses again).
  std::unordered_map<std::string, ir::NodeRef> ad_bodies;
  int ad_rewrites = 0;
  // Lowered requests `@y / @x` (node id of what replaced them, rank(y) + rank(x), the request's
  // span): checked against the analysed type after the last round, so a derivative whose shape
  // is not shape(y) ++ shape(x) is an error, never a printed value.
  struct AdShapeCheck {
    uint32_t id;
    int rank;
    Span span;
  };
  std::vector<AdShapeCheck> ad_shape_checks;
  // Recurrences typed clause by clause across cells (SPEC §11). Candidates: top-level indexed
  // definitions of this cell that read their own name, whose name the previous cell bound to an
  // indexed definition (name -> that definition). Requests: candidates whose own clauses do not
  // provably define every point they read (recurrence_cover). Joined: candidates compiled with
  // the previous definition's clauses in front (group_einstein).
  std::unordered_map<std::string, ir::DefId> join_candidates;
  std::unordered_set<std::string> join_requests;
  std::unordered_map<std::string, ir::DefId> joined;

  CompileCtx(SourceMap& s, Resolver& r, DiagSink& d, const GlobalEnvView& e)
      : sm(s), resolver(r), diags(d), env(e) {}
  Unit& cell() { return *units[0]; }
  Unit* new_unit(Unit::Kind k, std::string name) {
    units.push_back(std::make_shared<Unit>());
    units.back()->kind = k;
    units.back()->id = static_cast<int>(units.size()) - 1;
    units.back()->name = std::move(name);
    return units.back().get();
  }
  // Forget every analysis fact of this cell (autodiff rewrites the cell and analyses it again).
  void reset_analysis() {
    units.resize(1);
    Unit fresh;
    fresh.kind = Unit::Kind::Cell;
    fresh.name = "cell";
    fresh.body = units[0]->body;
    *units[0] = std::move(fresh);
    specs.clear();
    global_types.clear();
    global_shapes.clear();
    const_ints.clear();
    consts.clear();
  }
  void error(const std::string& code, const std::string& msg, Span span,
             const std::string& label = "", const std::string& help = "") {
    Diagnostic d = make_diag(code, msg, span, label);
    d.help = help;
    diags.report(std::move(d));
  }
};

}  // namespace ein
