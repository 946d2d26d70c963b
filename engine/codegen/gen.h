// Internal to engine/codegen: the generator of one kernel. Expressions (gen_expr.cpp), loops and
// stores (gen_stmt.cpp), reductions (gen_reduce.cpp), calls (gen_call.cpp), arguments and the
// function frame (gen_kernel.cpp). Anything kernels cannot express throws Unsupported, and the
// clause stays in the interpreter.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/codegen/codegen.h"
#include "engine/codegen/emitter.h"
#include "lang/ir/kid_families.h"
#include "lang/ir/reduce_op.h"
#include "lang/ir/visitor.h"

namespace ein {
struct ContractionPlan;
struct ContractionOperand;
struct PairStep;
}  // namespace ein

namespace ein::codegen {

struct Unsupported {
  std::string why;
};
[[noreturn]] void unsupported(const std::string& why);

// C spelling of a value type and of a storage type.
const char* ctype(DType dt);
const char* stype(DType dt);
bool kernel_dtype(DType dt);  // dtypes kernels handle (not f16/bf16)
// contract_tiled.cpp: a combiner's identity, and acc ⊕ v with the interpreter's rules (wrapping
// integer sums, the first NaN winning in max/min).
std::string identity(ir::ReduceOp op, DType dt);
std::string combine(ir::ReduceOp op, DType dt, const std::string& a, const std::string& v);

// A loop the generator has opened (for store range checks and strip mining).
// A factor of a factorised contraction (einsum.cpp).
struct EinsumTerm {
  std::vector<std::string> idx;  // index keys in storage order
  int buf = -1;                  // an argument buffer, or
  std::string tmp;               // a scratch array (or, for a plan's last step, its destination)
  std::vector<std::string> ext;  // a last step's destination: its storage extents (else buffer 0's)
  int axis0 = 0;                 // a buffer read with leading fixed subscripts (`h[t - 1, k]`):
  std::string off;               // its first variable axis, and the flat offset of its block
};

struct LoopInfo {
  std::string var, lo, hi;
  int level = 0;         // scope of the loop body
  int head_level = 0;    // outermost scope of the loop (the strip loop when strip-mined)
  bool strip = false;
  std::optional<int64_t> trip;  // iterations, when the bounds fold to constants
  bool simd_hint = false;       // the header at `level` starts with its `omp simd` pragma
  // Range checks of stores indexed by this loop's variable, tested once before the loop.
  std::vector<std::string> guards;   // conditions that must hold
  std::vector<std::string> on_fail;  // statements recording the failure
  // Generator state restored when the loop closes.
  std::string saved_ord, saved_stop;
  bool saved_parallel = false, saved_omp_for = false, saved_simd = false;
  // The same, inside the loop (for code hoisted into it from deeper scopes).
  std::string ord_in, stop_in;
  bool parallel_in = false;
  size_t env_mark = 0;
  // A parallel loop entered repeatedly (inside another loop) gets a serial twin for when its
  // work is below the threshold (Emitter::close_twin); empty otherwise.
  std::string twin_pragma, twin_cond;
};

std::string def_key(ir::DefId d);
// gen_check.cpp: a block's tail value; whether t compares v with b (-1: holds for v below b, +1: above).
ir::NodeRef unwrap_tail(const ir::NodeRef& n);
int bound_test(const ir::NodeRef& t, const ir::NodeRef& v, const ir::NodeRef& b);
// gen_check.cpp: the nests `__min2(__max2(a, b), c)` / `__max2(__min2(a, b), c)` (either
// argument order) in place: for each argument of e that is the other builtin's call, that call
// and e's other argument; outer_min says whether e is __min2. Empty when e is not such a nest.
std::vector<std::pair<ir::NodeRef, ir::NodeRef>> min_max_nests(const ir::NodeRef& e, bool& outer_min);
bool has_loop(const ir::NodeRef& n);
// A reduction in `body` that moves with the point variable and walks the contiguous axis of what
// it reads (a row sum): vectorised along its own loop, not across points (gen_stmt.cpp). Those
// `short_row` accepts (Gen::short_row: rows of at most 16 values) do not count.
bool has_row_reduction(const ir::NodeRef& body, ir::DefId point,
                       const std::function<bool(const ir::NodeRef&)>& short_row = {});
bool mentions_def(const ir::NodeRef& n, ir::DefId d);  // does n read the variable d?
// An index variable's key in factorised contractions (its C name is e_<key>).
std::string index_key(ir::DefId d);

class Gen {
 public:
  Gen(const CompileCtx& cx, const Unit& u, const FusionMap& fusion, Kernel& k);

  void clause(const ir::NodeRef& tensor, const ir::NodeRef& clause);
  // gen_jam.cpp: the time loops of two resumed tensors as one nest (engine/codegen/README.md).
  void jammed(const ir::NodeRef& ta, const ir::NodeRef& ca, const ir::NodeRef& tb, const ir::NodeRef& cb);
  // einsum.cpp: factorises a sum of a product of three or more tensor reads.
  bool einsum(const ir::NodeRef& tensor, const ir::NodeRef& clause);
  void mode_product_chain(const ContractionPlan& p, const std::vector<EinsumTerm>& terms,
                          const std::vector<std::string>& out, std::map<std::string, std::string>& n,
                          const std::string& alpha, DType dt, int st);
  bool gemm_step(const PairStep& s, const EinsumTerm& x, const EinsumTerm& y, EinsumTerm& result, bool last,
                 std::map<std::string, std::string>& n, const std::string& alpha, DType dt, bool overwrite = false);
  bool dot_step(const std::vector<std::string>& x, const std::vector<std::string>& y,
                const std::vector<std::string>& kept, const std::vector<std::string>& sum,
                std::map<std::string, std::string>& n, const std::string& dst, const std::string& rhs, DType dt);
  void expr_let(const ir::NodeRef& let);
  std::string finish();

  // ---- gen_expr.cpp ----
  // A planned common subexpression (Unit::common) is computed once where it is visible.
  Val value(const ir::NodeRef& e);
  Val index(const ir::NodeRef& e);  // int64, the interpreter's eval_int rules
  bool int_ir(const ir::NodeRef& e) const;  // integer IR made by passes (no language type)
  void emit_check(const ir::NodeRef& check);  // LCheck: the site's code when it fails
  int index_bits(const ir::NodeRef& e);        // |index(e)| < 2^result, from what is known
  std::string wide_index(const ir::NodeRef& e, int site);  // exact 128-bit form of index(e)
  Val convert(const Val& v, DType to);
  Val literal(const std::string& c, DType dt) { return Val{c, dt, 0}; }
  DType dtype_of(const ir::NodeRef& e) const;

  // ---- gen_stmt.cpp ----
  void stmt(const ir::NodeRef& s);
  void store(const ir::NodeRef& s);
  std::string flat(int buf, const std::vector<std::string>& xs, bool windowed);
  // Opens `for (var = lo; var < hi; ++var)` (strip-mined when `strip`), binds `def`.
  struct LoopSpec {
    ir::NodeRef lo, hi;
    ir::DefId def;           // bound to the variable (may be invalid)
    bool reverse = false;
    bool innermost = false;  // body holds no loop: strip-mine for interrupt polling
    bool parallel = false;   // `omp parallel for` (with a work threshold)
    bool omp_for = false;    // `omp for` inside an enclosing parallel region
    bool simd = false;
    double inner_work = 1;   // static points per iteration (for the parallel threshold)
    ir::NodeRef loop;        // the LFor or LoopVar of lo/hi (its LoopFact: trip count)
    std::string simd_clause; // e.g. "reduction(+:acc)"
    std::string lo_c, hi_c;  // bounds as C text (cache blocks) instead of lo/hi
    int bits = 64;           // magnitude of lo_c/hi_c (Val::bits)
    bool order_by_var = false;  // failures ordered by this loop's variable (blocked nests)
  };
  std::string open_loop(const LoopSpec& spec);
  LoopSpec loop_spec(const ir::NodeRef& s);  // of an LFor statement
  bool blocked_nest(const ir::NodeRef& outer);  // gen_block.cpp
  void close_loop();

  // ---- gen_reduce.cpp ----
  Val reduce(const ir::NodeRef& r);
  Val reduce_parallel(const ir::NodeRef& r);
  struct RedVars {
    ir::ReduceOp op = ir::ReduceOp::Sum;
    DType dt = DType::F32;    // result
    DType vt = DType::F32;    // compared value (argmax/argmin), else dt
    std::string acc, has, arg, label;
    // Float max/min in an `omp simd` loop: a plain max plus a NaN flag (OpenMP's max
    // reduction does not propagate NaN; the interpreter's result is NaN when any element is).
    bool simd_max = false;
    std::string nan;
    bool no_exit = false;  // all/any without short circuit (parallel partials)
    // An f32 sum accumulates in double and rounds once (as the interpreter does): a single f32
    // accumulator over millions of terms loses digits NumPy's pairwise sum keeps.
    bool wide = false;
    // argmax/argmin over one variable in two vectorised passes (the extremum with a NaN flag,
    // then the first index holding it): 1 or 2 while that pass is generated, else 0.
    int arg_pass = 0;
    // A guarded sum/max/min whose guards and value cannot fail: each point adds its value or
    // the identity, chosen without a branch, so that the loop vectorises (Gen::reduce_here).
    bool select = false;
  };
  RedVars red_vars(const ir::NodeRef& r);
  LoopSpec red_loop(const ir::NodeRef& r, const std::vector<ir::NodeRef>& vars, size_t j);
  void red_init(const RedVars& R);
  void red_step(const RedVars& R, const std::string& v, const std::string& first);
  void red_point(const RedVars& R, const ir::NodeRef& body, const std::string& first);
  bool select_guards(const ir::NodeRef& r, const ir::NodeRef& body, const RedVars& R) const;
  Val red_result(const RedVars& R, const ir::NodeRef& r);
  Val reduce_here(const ir::NodeRef& r, const std::string& key);
  bool speculate(const ir::NodeRef& r, int lvl) const;
  bool memo_allowed(const ir::NodeRef& r, int memo_at, int use_at);
  Val reduce_memo(const ir::NodeRef& r, const std::string& key, int memo_at);
  Val arg_reduce_simd(const ir::NodeRef& r, const ir::NodeRef& var, const std::string& key, const ir::NodeRef& body,
                      const std::string& lo_c, const std::string& hi_c);
  // reduce_bounds.cpp: r's body without the guards that only bound its variables (`where j <= i`),
  // whose bounds go to lo_c/hi_c (C text per variable, empty when unchanged); r's body when none.
  // `fits`: a run-time condition (i32 variables over ranges not known to stay in i32) under which
  // the bounds hold; empty when they always do.
  ir::NodeRef bound_guards(const ir::NodeRef& r, const std::vector<ir::NodeRef>& vars, std::vector<std::string>& lo_c,
                           std::vector<std::string>& hi_c, std::string& fits);
  // reduce_interchange.cpp: an outer reduction over c of an inner reduction reading a tensor at
  // c, with c innermost over packed operands; an empty Val when the reduction is not of that form.
  Val reduce_interchanged(const ir::NodeRef& r, const std::string& key);
  // reduce_lanes.cpp: a point loop whose store reads one reduction with a run-time trip, in
  // blocks of points, the reduction's loop outside and the points in vector lanes; false when
  // the loop is not of that form (it is then generated as usual).
  bool reduce_lanes(const ir::NodeRef& loop);
  bool lanes_form(const ir::NodeRef& s, ir::NodeRef& r, std::vector<ir::NodeRef>& items);
  // clamp_split.cpp: a clamp in `body` whose value is v * c + r along the point loop s (c > 0
  // fixed before it, r fixed in the vector loop): the first point and one past the last at
  // which the value is inside the bounds (C text, valid inside the reduction's loops).
  struct ClampSplit {
    ir::NodeRef clamp, value;  // the clamp node and its unclamped value
    std::string first, last1;
    std::string coef, rest;  // v = j * coef + rest (int64 names declared before the loops)
  };
  bool clamp_split(const ir::NodeRef& s, const ir::NodeRef& body, int bits, ClampSplit& out);
  bool clamp_parts(const ir::NodeRef& e, ir::NodeRef& v, ir::NodeRef& lo, ir::NodeRef& hi);
  // clamp_split's middle loop: a clamp printed as its value `j * coef + rest` (exact: inside
  // the bounds), j the point loop's variable (the def).
  struct ClampAt {
    std::string coef, rest;
    ir::DefId point;
  };
  std::unordered_map<uint32_t, ClampAt> clamp_at_;
  Val clamp_value(const ClampAt& c);
  // unit_stride.cpp: a vector loop reading along a contiguous axis at `v * s` (s a run-time
  // scalar) in two versions, one for s == 1; false when it has no such read.
  bool unit_stride(const ir::NodeRef& loop);
  void stride_names(const ir::NodeRef& loop, const ir::NodeRef& e, std::vector<ir::NodeRef>& out);
  std::unordered_set<uint32_t> stride_busy_;  // LFor ids emitted as their unit-stride versions
  // team_split.cpp: a loop opening the thread team with fewer iterations than threads (a batch
  // of one) in a second version that runs it in order and opens the team on the next loop.
  bool team_inside(const ir::NodeRef& loop);
  // unswitch.cpp: a loop nest whose `if` (a branch that calls or reduces) tests only values
  // bound before it, emitted once per outcome; false when it has none.
  bool unswitch(const ir::NodeRef& loop);
  // unswitch.cpp: an innermost loop whose `if` (a branch that calls or reduces) compares its own
  // variable with a value fixed before it, as two loops over the two parts of its range.
  bool split_on_branch(const ir::NodeRef& loop);
  bool fixed_before(const ir::NodeRef& loop, const ir::NodeRef& c) const;
  bool small_vector_loop(const ir::NodeRef& loop);
  std::unordered_set<uint32_t> split_busy_;  // LFor ids emitted as their branching version
  std::unordered_map<uint32_t, bool> forced_if_;  // If/LIf id -> the branch taken in this copy
  int unswitched_ = 0;                            // conditions being decided around this point
  std::string runtime_work(const ir::NodeRef& loop, double static_work);
  std::unordered_set<uint32_t> serial_loops_, team_busy_;  // LFor ids (team_inside)
  bool twin_ok_ = true;
  // Emitting the checked copy of a clause whose entry-tested reads are all unconditional
  // (versions()): it runs only in a run about to fail, not worth team_split's second nest.
  bool checked_copy_ = false;
  bool quiet_len_ = false;  // `len(X[0])` without its row check (a work estimate: team_split.cpp)  // a team opened inside a loop gets its serial twin (Emitter::close_twin)
  // Deepest scope level any free variable of n lives at; appends their names to *key.
  int free_level(const ir::NodeRef& n, std::string* key) const;
  // Could evaluating n record an error (unproven read, integer division, empty max, ...)?
  bool may_fail(const ir::NodeRef& n, const Unit& u, int depth) const;
  // Error order and stop condition as seen from scope `level`.
  void context_at(int level);

  // ---- contract.cpp, contract_tiled.cpp: planned contractions ----
  struct Dest {
    std::string base;                // pointer expression
    std::vector<ir::DefId> axes;     // variables of its axes
    std::vector<std::string> strides;
    int same_as = -1;  // a packed copy: the earlier operand whose copy holds the same values
  };
  struct Contract {
    bool ok = true;
    bool sizes_at_entry = false;     // every extent is known at kernel entry
    DType dt = DType::F32;
    std::map<std::string, Val> ext;  // def_key -> extent
    std::map<std::string, int64_t> lo;  // def_key -> lower bound of a summed variable above 0
    std::vector<int> bufs;           // per operand
    std::vector<Dest> packs;         // per operand: its packed copy when gathered (base empty else)
    Dest dest;
    std::vector<std::string> guards; // run-time conditions of the fast version
    std::string M, N, K;
  };
  // An LFor rooting planned contractions: emits them and the nest (with its plain twin).
  bool contracted_nest(const ir::NodeRef& loop);
  std::vector<const ContractionPlan*> plans_at(const ir::NodeRef& loop);
  bool usable(const ContractionPlan& p);
  Val extent_of(const ContractionPlan& p, const ir::NodeRef& root, ir::DefId d);
  Contract prepare(const ContractionPlan& p, const ir::NodeRef& root);
  void alloc_scratch(const std::string& name, DType dt, const std::string& count, Span span);
  // Scratch allocated once at kernel entry under `key` (the same array when asked again).
  std::string scratch_once(const std::string& key, const std::string& hint, DType dt, const std::string& count,
                           Span span);
  // Opens `for (v = 0; v < extent; ++v)` and binds variable d to v; returns v.
  std::string open_bound_loop(ir::DefId d, const std::string& extent, const std::string& hint,
                              const std::string& pragma = "");
  std::string block_offset(const ContractionOperand& o, int buf, const std::vector<ir::DefId>& outer);
  std::string axis_stride(int buf, int axis);
  void emit_contraction(const ContractionPlan& p, const Contract& c, const ir::NodeRef& root);
  Val alpha_of(const ContractionPlan& p, DType dt, bool with_store_factors);
  void emit_blas(const ContractionPlan& p, const Contract& c);
  void emit_gather(const ContractionOperand& o, const Contract& c, const Dest& pack);
  void gathered_bounds(const ContractionOperand& o, Contract& c, int i);
  void emit_tiled(const ContractionPlan& p, const Contract& c);
  // The nest's store when the tiles can write its value themselves (contract_tiled.cpp).
  ir::NodeRef tile_epilogue(const ContractionPlan& p, const ir::NodeRef& loop);
  ir::NodeRef tile_epilogue_;  // set around emit_tiled: the store the tiles evaluate
  void emit_factorised(const ContractionPlan& p, const Contract& c);  // contract_steps.cpp
  void emit_partial(const ContractionPlan& p, const Contract& c);     // contract_steps.cpp
  void emit_partial_columns(const ContractionPlan& p, const Contract& c);
  Val load_precomputed(const ir::NodeRef& r, const Dest& d);
  std::unordered_map<uint32_t, Dest> precomputed_;     // LReduce id -> its values
  std::unordered_map<uint32_t, Val> read_subst_;       // Index/LReduce id -> value (tile bodies)
  std::unordered_map<std::string, std::string> scratch_;
  std::unordered_set<uint32_t> nest_busy_;             // nests being emitted
  std::string contraction_strategy_;                   // gemm, gemv, batched-gemm, tiled

  // ---- gen_rowbuf.cpp: a fused row reduction's terms kept in the output row ----
  void plan_row_buffers(const ir::NodeRef& tensor, const ir::NodeRef& clause);
  ir::NodeRef filled_row_clause(const ir::NodeRef& tensor, const ir::NodeRef& clause) const;
  Val row_read(const ir::NodeRef& e, uint32_t reduction);  // the kept term of this point
  void keep_row_term(const Val& v, const std::string& var);  // red_point: store the term
  std::unordered_map<uint32_t, uint32_t> row_terms_;     // consumer's term node id -> LReduce id
  std::unordered_map<uint32_t, ir::NodeRef> row_reads_;  // LReduce id -> the consumer's read of it
  // LReduce id -> the row loop's end, for a reduction over a prefix of the row whose range may
  // end past it (its terms are stored only below this end).
  std::unordered_map<uint32_t, ir::NodeRef> row_store_end_;
  std::vector<ir::DefId> row_outer_;                      // the output row's outer indices
  ir::DefId row_var_;                                     // the consumer's loop over the row
  uint32_t keeping_ = 0;  // the LReduce whose terms red_point stores, while it is generated
  int kept_ = 0;          // stores red_point emitted for it
  // LReduce ids of fused row reductions (load_fused): computed once per row or refused.
  std::unordered_set<uint32_t> fused_rows_;

  // ---- gen_local.cpp: block-local arrays in per-thread scratch ----
  struct Local {
    std::string ptr;                      // this thread's slice
    DType dt = DType::F32;
    std::vector<std::string> ext, stride;  // C names, fixed at kernel entry
    int level = 0;                        // the scope that fills it
    bool filling = false;                 // its own statements are being generated
  };
  void local_tensor(const ir::NodeRef& t);
  const Local* local_of(ir::DefId d) const;
  Val load_local(const ir::NodeRef& e, const Local& L);
  std::string local_flat(const Local& L, const std::vector<std::string>& xs) const;
  // Defs of LTensors nested in the statement being generated (not kernel arguments).
  void note_locals(const ir::NodeRef& stmt);
  bool is_local_def(ir::DefId d) const { return local_defs_.count(def_key(d)) > 0; }
  bool innermost_after_hoisting(const ir::NodeRef& loop) const;
  std::unordered_map<std::string, Local> locals_;
  std::unordered_set<std::string> local_defs_;

  // ---- gen_call.cpp ----
  Val call(const ir::NodeRef& e);
  bool cheap_calls(const ir::NodeRef& n, const Unit& u, int depth) const;

  // ---- gen_kernel.cpp: arguments ----
  int buffer_of(const ir::NodeRef& name);  // buffer index of a tensor Name (registers it)
  // Records a read of buffer `b` (a windowed tensor of an earlier statement binds its window at
  // run time); every kind of read goes through it, so the window is declared when used.
  void note_read(int b, const ir::NodeRef& read);
  ir::TypeRef type_of_def(const ir::NodeRef& name) const;
  Val scalar_of(const ir::NodeRef& name);
  std::string extent(int buf, int axis);   // logical extent
  std::string stride(int buf, int axis);
  int site(Span span, const std::string& code = "", const std::string& message = "", const std::string& help = "");
  const std::string& ord() const { return ord_; }
  std::string stop_check() const;  // "if (ein_stop(...)) break;" for the current loop
  // Progress for the front ends (prelude.h ein_progress): only the kernel's outermost loop
  // reports, once per iteration or strip, so the cost is one store per outer iteration.
  bool reports_progress() const { return loops.empty() && !in_parallel; }
  void emit_progress(const std::string& done, bool parallel);

  // ---- bindings (stack discipline, for inlining and loops) ----
  void bind(ir::DefId d, Val v) { env_.emplace_back(d, std::move(v)); }
  size_t mark() const { return env_.size(); }
  void unbind_to(size_t m) { env_.resize(m); }
  const Val* lookup(ir::DefId d) const;

  const CompileCtx& cx;
  const Unit* unit;
  Emitter em;
  Kernel& k;
  const FusionMap& fusion;

  // Loads of the buffer being written are never moved or shared (a recurrence reads what an
  // earlier statement of the same step just stored).
  int out_buf = -1;
  ir::DefId out_def;
  // The clause being generated (Gen::clause; null in jammed and loop kernels): a read of
  // out_def at an earlier row of its time loop is fixed while the step runs (earlier_row_read).
  ir::NodeRef clause_root_;
  bool earlier_row_read(const ir::NodeRef& index_node) const;
  // The second tensor of a jammed nest (gen_jam.cpp): swapped with out_buf/out_def while its
  // statements are generated.
  int jam_buf_ = -1;
  ir::DefId jam_def_;
  int add_output(const ir::NodeRef& tensor);  // registers a written tensor's buffer
  // `emit` under the bounds test of `checked`'s reads: a fast and a checked version (gen_check.cpp).
  void versions(const ir::NodeRef& checked, const std::function<void()>& emit);
  void jam(const ir::NodeRef& a, const ir::NodeRef& b);
  void as_second(const std::function<void()>& emit);
  // Scalar replacement in a sequential 1-D recurrence `X[t] = f(X[t - 1], ...)` as the loop plan
  // decided (LoopFact::carry): gen_stmt.cpp declares the variable around the loop.
  struct Carry {
    std::unordered_set<uint32_t> reads;  // ids of the Index nodes it replaces
    std::string name;
    std::string fixed;  // set when the step is a function of the carried value alone (see store)
    size_t axis = 0;    // the output's axis the loop walks
  };
  Carry carry_;
  bool setup_carry(const ir::NodeRef& loop, const std::string& lo, const std::string& hi, bool reverse);
  // Sequential order of the current point for error reporting, and the stop condition.
  std::string ord_ = "0";
  std::string stop_ord_ = "INT64_MAX";
  bool in_parallel = false;
  bool allow_parallel = true;
  // Bounds-check versioning (gen_check.cpp): accesses the entry test covers, and whether the
  // fast version is being generated (its unchecked reads never move above `assume_level`).
  std::unordered_set<uint32_t> assumed_;
  // precheck: an entry-tested read is under a condition (its test may fail in a run that
  // fails nowhere: the checked copy is then a normal path, compiled like the fast one).
  bool entry_guarded_ = false;
  bool assume_ = false;
  // Def keys of integer divisors the entry test found to be neither 0 nor -1 (gen_check.cpp):
  // in the fast version a quotient by one is plain C (arith, may_fail).
  std::unordered_set<std::string> safe_divisors_;
  bool safe_divisor(const ir::NodeRef& rhs) const {
    return assume_ && rhs->kind == ir::Kind::Name && safe_divisors_.count(def_key(rhs->def)) > 0;
  }
  int assume_level_ = 0;
  bool counting_ = true;  // count accesses once, not per version
  std::string precheck(const ir::NodeRef& stmt);
  bool assumed(const ir::NodeRef& index_node) const { return assume_ && assumed_.count(index_node->id) > 0; }
  // Points of work from which a parallel loop opens a thread team (lang/passes/loop_plan.h).
  int64_t parallel_threshold = kParallelPoints;
  bool in_simd = false;  // inside an `omp simd` loop (OpenMP forbids nesting another)
  // The loop plan's fact of an LFor, LoopVar or LReduce (lang/passes/loop_plan.h), and its
  // innermost/work for the version being printed: the contracted values when every planned
  // contraction inside it was computed before the nest.
  const LoopFact& loop_fact(const ir::NodeRef& n) const;
  bool short_row(const ir::NodeRef& loop, const ir::NodeRef& r) const;
  bool contracted(const LoopFact& f) const;
  bool innermost(const ir::NodeRef& n) const;
  double loop_work(const ir::NodeRef& n) const;
  bool loop_is_omp_for = false;  // the innermost open loop is an `omp for` (no break allowed)
  int inline_depth = 0;
  std::vector<const Unit*> inlining;
  std::vector<LoopInfo> loops;
  std::unordered_map<std::string, int> buf_alias;  // "crate:index" of a param -> buffer

 private:
  Val load(const ir::NodeRef& e);
  Val compute(const ir::NodeRef& e);  // value() without the plan's sharing
  Val load_fused(const ir::NodeRef& e, const ir::NodeRef& producer);
  Val binary(const ir::NodeRef& e);
  Val arith(ir::BinOp op, const Val& a, const Val& b, DType dt, const ir::NodeRef& e);
  Val logic(const ir::NodeRef& e, bool is_and);
  Val unary(const ir::NodeRef& e);
  Val cast(const ir::NodeRef& e);
  Val if_expr(const ir::NodeRef& e);
  Val block(const ir::NodeRef& e);
  Val member(const ir::NodeRef& e);
  Val dim_of(const ir::NodeRef& base, int axis);

  std::vector<std::pair<ir::DefId, Val>> env_;
  std::unordered_map<std::string, int> bufs_by_def_;
  std::unordered_map<std::string, int> scalars_by_def_;
};

std::string def_key(ir::DefId d);
bool is_proven(const Unit& u, const ir::NodeRef& index_node);

}  // namespace ein::codegen
