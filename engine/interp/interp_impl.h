// Internal to engine/interp.
#pragma once
#include "engine/interp/interp.h"
#include "lang/resolve/builtins.h"
#include <unordered_set>

namespace ein {

class NativeTier;

using Wide = __int128;
std::string wide_str(Wide v);

// The elementwise function of a math intrinsic (is_math_intrinsic(b)): the two enums list the
// intrinsics in the same order, which the assertions keep true when either grows.
inline MathFn math_fn_of(Builtin b) {
  static_assert(static_cast<int>(Builtin::Max2) - static_cast<int>(Builtin::Abs) ==
                static_cast<int>(MathFn::Max2) - static_cast<int>(MathFn::Abs));
  static_assert(static_cast<int>(Builtin::Atan2) - static_cast<int>(Builtin::Abs) ==
                static_cast<int>(MathFn::Atan2) - static_cast<int>(MathFn::Abs));
  static_assert(static_cast<int>(Builtin::Rsqrt) - static_cast<int>(Builtin::Abs) ==
                static_cast<int>(MathFn::Rsqrt) - static_cast<int>(MathFn::Abs));
  return static_cast<MathFn>(static_cast<int>(MathFn::Abs) + static_cast<int>(b) - static_cast<int>(Builtin::Abs));
}

struct LoopSpan {
  int64_t lo = 0;
  uint64_t n = 0;  // number of points
  int64_t at(uint64_t k) const { return static_cast<int64_t>(static_cast<uint64_t>(lo) + k); }
};

struct Interpreter::Impl {
  CompileCtx& cx;
  RuntimeEnv& env;
  ExecOptions opt;
  Unit* unit = nullptr;          // unit whose lowered code is executing
  std::vector<Value>* frame = nullptr;
  int depth = 0;
  bool depth_exceeded = false;  // the error in flight is the recursion limit (call.cpp)
  uint32_t poll = 0;
  // Loops, reductions and comprehensions being executed around the current point. Only the
  // outermost loop of a statement (loop_depth 0) reports progress; a function called inside a
  // loop must not reset the statement's count.
  int loop_depth = 0;
  std::vector<StmtTiming> timings;
  std::unordered_map<ir::DefId, Value> fn_values;  // cached function values
  std::unordered_map<ir::DefId, std::vector<int64_t>> pending_shapes;  // kHasElem tensors
  std::unordered_set<ir::DefId> runtime_typed_tensors;  // element type from the stored values
  std::shared_ptr<NativeTier> native;  // native kernels of this cell (native_tier.h)
  // Nodes marked ir::kInvariantCall (lang/passes/memo_plan.h), by (node, frame): the value
  // computed last and the frame slots it read then (memo.cpp). frame_gen numbers frames
  // (call.cpp); invariant_log lets each tensor statement, call frame and top-level statement
  // drop exactly the entries made during it.
  struct PairHash {
    size_t operator()(const std::pair<uint32_t, uint64_t>& k) const {
      return std::hash<uint64_t>()(k.second * 0x9E3779B97F4A7C15ull ^ k.first);
    }
  };
  struct MemoEntry {
    std::vector<Value> key;
    Value value;
  };
  std::unordered_map<std::pair<uint32_t, uint64_t>, MemoEntry, PairHash> invariant_values;
  std::vector<std::pair<uint32_t, uint64_t>> invariant_log;
  // By (node id, unit): specialisations of one function share its nodes, not its frame layout.
  std::unordered_map<std::pair<uint32_t, uint64_t>, std::vector<int32_t>, PairHash> memo_slot_lists;
  uint64_t frame_gen = 0, frames_made = 0;
  void drop_invariants(size_t mark) {
    while (invariant_log.size() > mark) {
      invariant_values.erase(invariant_log.back());
      invariant_log.pop_back();
    }
  }
  // memo.cpp: the key of a marked node here (the values of the frame slots it reads), its kept
  // value for that key if any, and keeping a new one.
  std::vector<Value> memo_key(const ir::NodeRef& n);
  const Value* memo_find(const ir::NodeRef& n, const std::vector<Value>& key);
  void memo_keep(const ir::NodeRef& n, std::vector<Value> key, const Value& v);

  Impl(CompileCtx& c, RuntimeEnv& e, ExecOptions o) : cx(c), env(e), opt(std::move(o)) {}

  // exec.cpp: statements and lowered tensor code
  std::optional<Value> run_cell();
  void exec(const ir::NodeRef& s);
  void exec_tensor(const ir::NodeRef& t);
  void exec_store(const ir::NodeRef& s);
  void exec_for(const ir::NodeRef& f);
  void drop_scratch(const ir::NodeRef& t);
  Value eval_statement_value(const ir::NodeRef& stmt, const ir::NodeRef& value);
  void bind(const ir::NodeRef& pattern, const Value& v);
  void set_def(const ir::NodeRef& n, Value v);  // slot or global
  struct InLoop {
    int& d;
    explicit InLoop(int& x) : d(++x) {}
    ~InLoop() { --d; }
  };
  // The line a progress display names for a loop statement: a recurrence's time loop carries
  // the span of the whole tensor (its first clause), its body the span of the clause it runs.
  int32_t progress_line(const ir::NodeRef& n) const {
    const ir::NodeRef& at = n->kind == ir::Kind::LFor && ir::lfor_body(n) ? ir::lfor_body(n) : n;
    return static_cast<int32_t>(cx.sm.start(at->span).line);
  }
  void check_interrupt() {
    if (opt.interrupt && opt.interrupt->load(std::memory_order_relaxed))
      fault("E007", "interrupted");
  }

  // eval.cpp: expressions
  Value eval(const ir::NodeRef& e);
  Value eval_inner(const ir::NodeRef& e);
  int64_t eval_int(const ir::NodeRef& e);  // eval_wide, E006 outside i64
  Wide eval_wide(const ir::NodeRef& e);     // exact: indices, bounds, extents never wrap
  // The points of a loop `lo..hi` (exclusive hi may be 2^63) whose variable has type `var`:
  // E006 when a point does not fit the variable's type.
  LoopSpan loop_span(const ir::NodeRef& lo, const ir::NodeRef& hi, DType var);
  const Value& lookup(const ir::NodeRef& name);  // Name/Path value (slot, global, fn)
  Value binary(const ir::NodeRef& e);
  Value index(const ir::NodeRef& e);
  Value member(const ir::NodeRef& e);
  Value block(const ir::NodeRef& b);
  Value literal_dtype_fix(const ir::NodeRef& e, Value v);
  Value cast_array(const Value& v, const ir::NodeRef& ty);  // `a as [T; ...]`, shape checked
  DType dtype_of(const ir::NodeRef& e, DType fallback);
  ir::TypeRef static_elem(const ir::NodeRef& e);
  // The compiler typed `e` from a value known only at run time (an unannotated load_npy):
  // what it computes is stored at its values' own element type (value_dtype), never narrowed.
  bool runtime_typed(const ir::NodeRef& e);

  // call.cpp: calls, closures, builtins
  Value call(const ir::NodeRef& e);
  Value call_uncached(const ir::NodeRef& e);
  Value call_unit(Unit* spec, std::vector<Value>& args, const Value* callee);
  Value make_lambda(const ir::NodeRef& l);
  Value fn_value(ir::DefId d);
  Value builtin(Builtin b, const ir::NodeRef& e, std::vector<Value>& args);
  void check_loaded_type(const ir::NodeRef& e, const Value& v, const std::string& path);

  // control.cpp: reductions, comprehensions, match
  Value reduce(const ir::NodeRef& r);
  Value comp(const ir::NodeRef& c);
  Value match(const ir::NodeRef& m);
  bool match_pattern(const ir::NodeRef& p, const Value& v);
  bool match_array(const ir::NodeRef& p, const Value& v);
  bool eval_point(const ir::NodeRef& body, Value& out);  // false: guard skipped the point

  // empty_domain.cpp: does a nest have no points because an inner range is empty?
  bool probe_empty(const ir::NodeRef& lo, const ir::NodeRef& hi, bool inclusive);
  bool nest_empty(const ir::NodeRef& lfor);  // an LFor chain
  bool reduce_empty(const ir::NodeRef& r);   // an LReduce
  bool comp_empty(const ir::NodeRef& c);     // a comprehension's range generators
  bool has_empty_reduction(const ir::NodeRef& e);  // any LReduce in e with reduce_empty
};

// A literal argument of a two-argument math intrinsic beside a value typed only at run time
// takes that value's element type (call.cpp).
void adapt_literal_args(const ir::NodeRef& call, std::vector<Value>& args);

// NumPy .npy I/O intrinsics (builtins_io.cpp).
Value io_builtin(Builtin b, std::vector<Value>& args);
// The other std intrinsics (builtins_std.cpp): checks, files, reshape, cast, einsum.
// `root_dir` is the program's directory (std::io::script_dir). `interrupt` (may be null) is
// polled by the ones whose work is not bounded by the memory they allocate (einsum).
Value std_builtin(Builtin b, std::vector<Value>& args, const std::string& root_dir,
                  const std::atomic<bool>* interrupt);
// listed: the operands were written as an array literal (`[a]`), so a stacked array is always
// unstacked (type_infer decides it; else one operand whose term fits is taken directly).
Value einsum(const std::string& equation, const Value& inputs,
             const std::atomic<bool>* interrupt, bool listed = false);  // builtins_einsum.cpp
// The stable order along an axis, i32 indices of x's shape (builtins_sort.cpp).
// A k (args[3]) keeps the first k positions of the order along the axis.
Value argsort_value(const Value& x, const Value& axis, const Value& descending, const Value* k,
                    const std::atomic<bool>* interrupt);

// Flat offset of a full index into t (bounds-checked, E005), honouring a circular window on
// axis 0 when `window` > 0 with logical extent `logical0`.
int64_t flat_index(const Tensor& t, const int64_t* idx, size_t n, int64_t window, int64_t logical0);

}  // namespace ein
