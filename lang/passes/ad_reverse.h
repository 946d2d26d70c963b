// Internal to autodiff: the primal tape and the reverse sweep (VJP).
#pragma once
#include <map>
#include <set>
#include <string>

#include "lang/passes/ad_common.h"
#include "lang/passes/autodiff.h"

namespace ein::ad {

// One clause of a normalised definition: value at a point, and its slots (IdxVar/IdxIn/IdxLit;
// none for a scalar). Array-valued lets are normalised to clauses over fresh indices.
struct Clause {
  NodeRef value;
  std::vector<NodeRef> slots;
};

struct Entry {
  DefId def;
  std::string name;
  std::vector<Clause> clauses;
  int rank = 0;
  DType dt = DType::F32;
  uint32_t flags = 0;  // ir::kReverse of the primal group (the tangent runs the same way)
  NodeRef emit;  // statement to emit in the request's block (inlined function locals)
};

// Builds, from the definitions visible at the request, the active bindings between the wrt
// leaf and the target, in dependency order, inlining calls of functions over arrays.
class Tape {
 public:
  Tape(CompileCtx& cx, Facts& facts, std::unordered_map<DefId, NodeRef> visible)
      : cx_(cx), facts_(facts), visible_(std::move(visible)) {}
  // Returns whether `target` depends on `wrt`; entries() then holds the active definitions.
  bool build(DefId target, DefId wrt) { return build(target, std::vector<DefId>{wrt}); }
  // Several parameters at once (shared adjoints): whether the target depends on any of them.
  // A parameter that is itself computed from another one is also an entry.
  bool build(DefId target, const std::vector<DefId>& wrts);
  const std::vector<Entry>& entries() const { return entries_; }
  // Statements of inlined function bodies, in evaluation order (always emitted: active code may
  // read their inactive locals too).
  const std::vector<NodeRef>& emits() const { return emits_; }
  // An extra synthetic scalar definition (e.g. the point `h[3]` of `@h[3] / @x`).
  void add_visible(DefId d, NodeRef let_stmt);
  // Values bound by an enclosing construct (parameters, the declaration being defined, ...):
  // constants. Any other value whose definition is not visible is E013, never a silent zero.
  void set_leaves(const std::unordered_set<DefId>* leaves) { leaves_ = leaves; }
  // Values from outside a function body (globals it reads): constants for parameters of the
  // function, which they cannot depend on.
  void set_outer(const std::unordered_set<DefId>* outer) { outer_ = outer; }
  // Branches on values known only at run time (ad_branch.cpp): once branch_on(arms) is called,
  // an `if` the tape must follow (a let's value, an inlined body's tail) whose condition does
  // not fold takes arms[k] (true: the else arm; the then arm past the end), k counting such
  // branches in the order the tape meets them, and its condition becomes a bool let on the
  // tape, listed in decisions(). The caller runs each sweep under its conditions
  // (ad_variants.cpp); a tape built the same way with the same arms meets the same branches.
  void branch_on(std::vector<bool> arms) {
    branching_ = true;
    arms_ = std::move(arms);
  }
  const std::vector<DefId>& decisions() const { return decisions_; }

 private:
  bool visit(DefId d);
  bool reads_active(const NodeRef& stmt, DefId d);
  Entry normalise(DefId d, const NodeRef& stmt);
  NodeRef extract_calls(const NodeRef& e);
  bool reads_active_global(const NodeRef& callee);
  NodeRef closure_made_by_call(const NodeRef& callee);
  std::unordered_map<DefId, NodeRef> made_closures_;  // closure_made_by_call, once per name
  std::unordered_map<DefId, NodeRef> closure_lets_;   // block lets binding a call's closure
  NodeRef named_statement(const std::string& what, const NodeRef& value, const TypeRef& t, Span at);
  NodeRef index_elementwise(const NodeRef& e, ir::Kids idx, int depth);
  // site: the point the call's value is read at, if an Index stands around it; using it sets
  // site_taken_ (the returned value is then the element).
  NodeRef inline_call(const NodeRef& call, const std::vector<NodeRef>& site = {});
  NodeRef inline_point_arrays(const NodeRef& e, DefId self = {});
  bool inline_slice_let(std::vector<NodeRef>& stmts, size_t i);
  // Block-local arrays of a clause body (ad_lift.cpp): their extents, those extents written out
  // where later statements inferred ranges from them, and arrays used whole lifted to tape
  // entries over the clause's indices.
  std::vector<NodeRef> extents_of(const std::vector<DefId>& slots) const;
  NodeRef explicit_ranges(const NodeRef& n, DefId v, const std::vector<NodeRef>& extents);
  NodeRef lift_local_arrays(const NodeRef& value, const std::vector<NodeRef>& slots, DefId self);
  // Statements emits_[from..] of a call inlined at a point (`softmax(X[q])[n]`) that read the
  // indices around the call, lifted to tape entries over those indices; the call's value reading
  // them at the point is returned (ad_lift.cpp).
  NodeRef lift_call_locals(const NodeRef& call, size_t from, const NodeRef& value, const std::vector<NodeRef>& site);
  bool elementwise_value(const NodeRef& e);
  NodeRef inlined_call_locals(const NodeRef& call, const std::vector<NodeRef>& stmts,
                              const std::vector<bool>& moving, const NodeRef& value, const std::vector<NodeRef>& site);
  NodeRef rebuilt_block(const NodeRef& block, const std::vector<NodeRef>& stmts);  // null stmts dropped
  NodeRef hoist_block(const NodeRef& body);
  bool split_tuple_let(const NodeRef& let);
  void pin_def_type(DefId copy, DefId orig, const Unit* spec);
  void pin_node_types(const NodeRef& orig, const NodeRef& copy, const Unit* spec);
  NodeRef pointwise(const NodeRef& e, const std::vector<NodeRef>& idx);
  NodeRef reshaped_read(const NodeRef& v, const NodeRef& y, const std::vector<NodeRef>& idx);
  NodeRef einsum_point(const NodeRef& e, const std::vector<NodeRef>& idx);
  NodeRef split_part(const NodeRef& e, const std::vector<NodeRef>& idx);
  std::optional<std::pair<std::vector<int64_t>, int>> split_layout(const NodeRef& call) const;
  ir::Kids tuple_elements(const NodeRef& e, bool or_array = false) const;
  NodeRef destructured_part(const NodeRef& let, DefId d);
  NodeRef tuple_field_reads(const NodeRef& stmt);
  std::map<std::pair<DefId, int64_t>, DefId> tuple_fields_;  // (tuple name, field) -> its name
  NodeRef whole_reductions(const NodeRef& e);
  NodeRef name_reductions(const NodeRef& v, const std::string& stem);
  // Comprehensions (ad_comp.cpp): an entry linear in per-input Jacobians, and comprehensions
  // nested in expressions hoisted to definitions of their own.
  Entry comp_entry(DefId d, const std::string& name, const NodeRef& comp);
  NodeRef hoist_comps(const NodeRef& e, const std::unordered_set<DefId>& around);
  NodeRef extent_of(const NodeRef& e, int axis);
  // Compile-time branches (ad_branch.cpp): an integer or boolean folded through the inlined
  // parameters' lets and the shape facts, and the branch of an `if` whose condition folds.
  struct FoldEnv {  // parameters and locals of a function being folded
    std::unordered_map<DefId, int64_t> ints;
    std::unordered_map<DefId, std::string> strs;  // mode names (`dir_code("forward")`)
  };
  std::optional<int64_t> fold_scalar(const NodeRef& e, int depth, const FoldEnv* env) const;
  std::optional<std::string> fold_str(const NodeRef& e, int depth, const FoldEnv* env) const;
  std::optional<int64_t> whole(const NodeRef& e, int depth, const FoldEnv* env) const;
  NodeRef element_expr(const NodeRef& e, int depth) const;
  std::optional<double> fold_real(const NodeRef& e, int depth) const;
  NodeRef taken_branch(const NodeRef& e) const;
  NodeRef branch_taken(const NodeRef& e);  // taken_branch, else a run-time decision
  bool branching_ = false;
  std::vector<bool> arms_;
  std::vector<DefId> decisions_;
  NodeRef through_renames(const NodeRef& e) const;
  std::optional<bool> same_shape(const NodeRef& l, const NodeRef& r) const;
  // A comprehension over rows as the array literal of its elements (ad_comp.cpp), nullptr when it
  // is not of that form; the extent of an array expression's axis, folded.
  // nested: a comprehension of scalars inside another expression (no entry of its own, so not
  // comp_entry's linear form): unrolled too when its range is short and known.
  NodeRef unroll_rows(const NodeRef& comp, bool nested = false);
  NodeRef unrolled_let(const NodeRef& iter);
  std::unordered_map<DefId, NodeRef> unrolled_lets_;  // lists of tuples, unrolled once
  NodeRef flat_index(const NodeRef& e);
  std::optional<int64_t> fold_extent(const NodeRef& a, int axis) const;
  // The extent of a call's result when the function returns an elementwise expression of its
  // parameters (ad_comp.cpp).
  struct ExtentEnv;
  NodeRef inlined_for_extents(DefId d, const NodeRef& let);
  std::optional<int64_t> call_extent(const NodeRef& call, int axis, const ExtentEnv* env, int depth) const;
  std::optional<int64_t> body_extent(const NodeRef& e, int axis, const ExtentEnv* env, int depth) const;
  int64_t unrolled_ = 0;

  CompileCtx& cx_;
  Facts& facts_;
  std::unordered_map<DefId, NodeRef> visible_;  // def -> Let/EinGroup statement
  // A let of a call (`let h = linear(x, W, b);`) -> its inlined value (`y'`, the body's
  // declaration): the analysis has no extents for a call's result, the inlined value has them,
  // so a later call dispatching on h's extents (`linear(h, W2, b2)`) folds.
  std::unordered_map<DefId, NodeRef> inlined_value_;
  std::unordered_map<DefId, bool> memo_;
  std::unordered_set<DefId> visiting_;
  std::vector<Entry> entries_;
  std::vector<NodeRef> emits_;
  std::unordered_set<DefId> wrts_;
  const std::unordered_set<DefId>* leaves_ = nullptr;
  const std::unordered_set<DefId>* outer_ = nullptr;
  int inline_depth_ = 0;
  const Unit* within_ = nullptr;     // the specialisation whose body is being inlined
  std::unordered_map<uint32_t, const Unit*> stmt_within_;  // hoisted statement -> its body's unit
  std::unordered_set<DefId> bound_;  // indices bound around the value being normalised
  DefId self_{};                     // the definition being normalised
  std::vector<NodeRef> site_;        // extract_calls: subscripts of the Index around a call
  bool site_taken_ = false;          // inline_call returned the element at site_
  bool constant_leaf(DefId d) const;
};

// The adjoint b̄ of one binding: a fresh tensor (or scalar) over the primal's extents.
struct Adjoint {
  DefId def;
  std::string name;
  std::vector<NodeRef> m;     // its index variables (Names)
  std::vector<NodeRef> slots; // IdxIn over the primal's extents
};

// Index-set splitting (ad_split.cpp): b̄'s sum of guarded contributions as one clause per box
// of the index space on which the applicable terms are constant, when every guard bounds one
// axis by constants. `primal` (nullptr for a parameter) gives the points whose adjoint nobody
// reads (covered by no clause reading an `active` binding): they hold 0.
struct AdjSegment {
  int64_t lo = 0, hi = 0;  // on axis 0
  NodeRef body;            // nullptr: 0
};
struct AdjSplit {
  int64_t extent = 0;            // of axis 0
  std::vector<AdjSegment> segs;  // one per box (for a 1-D adjoint: ascending, covering it)
  std::vector<NodeRef> decls;    // EinDecls in execution order
};
std::optional<AdjSplit> split_adjoint(CompileCtx& cx, Facts& facts, const Adjoint& b, const NodeRef& sum,
                                      DType dt, const Entry* primal, const std::unordered_set<DefId>& active,
                                      bool reverse);
// A 1-D adjoint that equals another one at every point (`ū[m] = h̄[m]` where h̄ is not 0):
// the other's DefId, so the sweep binds it instead of copying.
std::optional<DefId> alias_of(const Adjoint& b, const AdjSplit& sb,
                              const std::unordered_map<DefId, AdjSplit>& splits);

// Reverse sweep: adjoint statements for every entry and the wrt leaf, seeded at the target.
// `seed` is the target's cotangent: nullptr for 1 (scalar target), or for a tensor target a
// function giving the seed value at the adjoint's index variables (a basis row).
struct Leaf {
  DefId def;
  std::string name;
  int rank = 0;
  DType dt = DType::F32;
};
struct Sweep {
  std::vector<NodeRef> stmts;    // primal emits, then adjoints (reverse order)
  NodeRef result;                // Name of the (first) parameter's adjoint
  std::vector<NodeRef> results;  // one per parameter, in the order given
};
Sweep reverse_sweep(CompileCtx& cx, Facts& facts, const Tape& tape, DefId target,
                    const std::vector<Leaf>& leaves,
                    const std::function<NodeRef(const std::vector<NodeRef>&)>& seed);
inline Sweep reverse_sweep(CompileCtx& cx, Facts& facts, const Tape& tape, DefId target, DefId wrt,
                           const std::string& wrt_name, int wrt_rank, DType dt,
                           const std::function<NodeRef(const std::vector<NodeRef>&)>& seed) {
  return reverse_sweep(cx, facts, tape, target, {Leaf{wrt, wrt_name, wrt_rank, dt}}, seed);
}

// Forward sweep (JVP, ad_jvp.cpp): one tangent declaration per entry, in definition order,
// t_d[idx] = Σ over reads r of ∂value/∂r * t_src[r's index] (the local partials of Forward; a
// recurrence gets a tangent recurrence running the same way). `seed` is the tangent of the leaf
// (an expression, e.g. `1.0` for a scalar or the Name of a basis tensor). Returns the statements
// (primal emits, then tangents) and the target's tangent; Unsupported when a construct has no
// forward rule (the caller falls back to the reverse sweep).
struct Tangents {
  std::vector<NodeRef> stmts;
  NodeRef result;
};
Tangents forward_sweep(CompileCtx& cx, Facts& facts, const Tape& tape, DefId target, DefId wrt,
                       const NodeRef& seed);

}  // namespace ein::ad
