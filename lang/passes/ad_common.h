// Internal to autodiff (lang/passes/ad_*.cpp, autodiff.cpp): shared context, the renaming copier,
// forward-mode tangents, the primal tape and the reverse sweep. See autodiff.h for the design.
#pragma once
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"
#include "lang/passes/context.h"

namespace ein::ad {

using ir::DefId;
using ir::NodeRef;
using ir::TypeRef;

// Raised to abandon one derivative request with an E013 diagnostic.
struct Unsupported {
  std::string what;
  Span span;
};
[[noreturn]] void unsupported(const std::string& what, Span span);

// `@` nodes outside derivative rules (`@fn` bodies use `@x` for the incoming tangent).
bool has_diff(const NodeRef& n);
// `@y / @x` with both sides written as differentials.
bool is_quotient(const NodeRef& n);
// Of a quotient `@y / @x`: y, the value differentiated, and x, what it is differentiated by.
inline const NodeRef& quotient_of(const NodeRef& q) { return ir::diff_expr(ir::bin_lhs(q)); }
inline const NodeRef& quotient_by(const NodeRef& q) { return ir::diff_expr(ir::bin_rhs(q)); }

// The DefIds bound anywhere inside `n` (lets, where-bindings, indices, patterns, parameters).
std::unordered_set<DefId> binders_in(const NodeRef& n);

// Type and range facts of nodes the autodiff pass reads: the first analysis of this cell, the
// units of callees, and the records of earlier cells. Copies remember their origin node.
class Facts {
 public:
  explicit Facts(CompileCtx& cx);
  TypeRef type(const NodeRef& n) const;       // t_unknown() if nothing is known
  TypeRef def_type(DefId d) const;
  const RangeFact* range(DefId index) const;  // by original or renamed DefId
  void note_origin(uint32_t copy_id, uint32_t orig_id) { origin_[copy_id] = orig_id; }
  void note_def_origin(DefId copy, DefId orig) { def_origin_[copy] = orig; }
  DefId def_origin(DefId copy) const {
    auto it = def_origin_.find(copy);
    return it == def_origin_.end() ? DefId{} : it->second;
  }
  void note_type(uint32_t id, TypeRef t) { extra_[id] = std::move(t); }
  void note_def_type(DefId d, TypeRef t) { extra_defs_[d] = std::move(t); }
  void add_unit(const Unit* u) { units_.push_back(u); }
  // Look in `u`'s tables first (function specialisations share their nodes).
  void prefer(const Unit* u);
  void unprefer();  // undoes the last prefer()
  // The specialisation a call node (or the node it was copied from) was compiled against.
  // The callee's specialisation; `within`: the unit whose body the call was copied from.
  const Unit* call_target(const NodeRef& call, const Unit* within = nullptr) const;
  // The tape resolved this call (a copy from an inlined body) in the specialisation it came
  // from: later lookups of it and of its copies find that target, not another one's.
  void pin_call_target(uint32_t call_id, const Unit* target) { pinned_calls_[call_id] = target; }
  void add_ranges(const std::unordered_map<DefId, RangeFact>* r) { range_maps_.push_back(r); }
  void add_range(DefId d, RangeFact f) { own_ranges_[d] = std::move(f); }
  // Float element type of n (nullopt: integer/bool/unknown: zero derivative).
  std::optional<DType> float_dtype(const NodeRef& n) const;
  std::optional<DType> float_dtype_of_def(DefId d) const;
  // An integer expression folded with the shape facts of the unit being differentiated (a
  // function specialisation knows its parameters' extents), else the cell's.
  std::optional<int64_t> fold(const NodeRef& e) const;

 private:
  CompileCtx& cx_;
  std::vector<const Unit*> units_;
  std::vector<const std::unordered_map<DefId, RangeFact>*> range_maps_;
  std::unordered_map<uint32_t, uint32_t> origin_;
  std::unordered_map<uint32_t, const Unit*> pinned_calls_;
  std::unordered_map<DefId, DefId> def_origin_;
  std::unordered_map<uint32_t, TypeRef> extra_;
  std::unordered_map<DefId, TypeRef> extra_defs_;
  std::unordered_map<DefId, RangeFact> own_ranges_;
};

// Deep copy with a fresh DefId for every binder occurrence inside (scoped: a binder shadows a
// substitution of the same DefId), and free Names substituted by expressions.
class Copier {
 public:
  Copier(CompileCtx& cx, Facts& facts) : cx_(cx), facts_(facts) {}
  std::unordered_map<DefId, NodeRef> subst;  // free Name def -> expression (copied at each use)
  std::vector<std::pair<DefId, DefId>> renamed;  // (original binder, its copy), in copy order
  NodeRef copy(const NodeRef& n);

 private:
  struct Binding {
    bool renamed = false;
    DefId to;        // renamed binder
    NodeRef expr;    // substituted expression
  };
  using Env = std::unordered_map<DefId, Binding>;
  NodeRef rec(const NodeRef& n, Env& env);
  NodeRef node(const NodeRef& n, std::vector<NodeRef> kids, const Env& env);
  NodeRef beta(const NodeRef& call, const std::vector<NodeRef>& kids);
  DefId fresh(const NodeRef& binder, Env& env);
  CompileCtx& cx_;
  Facts& facts_;
};

// The indices `cp` renamed get their own ranges, with the names inside copied alike: a copy
// falls back to its original's range otherwise, which reads the original's names (`k in 0..j`
// copied with j renamed read the old j: a wrong adjoint). `first` may give a range that wins
// over the original's (a specialisation's own).
void copy_index_ranges(CompileCtx& cx, Facts& facts, const Copier& cp,
                       const std::function<const RangeFact*(DefId)>& first = nullptr);

// Symbolic forward-mode differentiation of per-point expressions (thesis Listing 6.2).
// tangent() returns nullptr for a zero tangent. The tangent of `marker` (a node, by id) is one;
// defs in `tangents` have the given tangent expressions; everything else is constant.
// Reductions whose ids are in `opened` are treated as their body at the current point (their
// indices become free), as the reverse sweep needs for the occurrence inside them.
class Forward {
 public:
  Forward(CompileCtx& cx, Facts& facts) : cx_(cx), facts_(facts) {}
  uint32_t marker = 0;
  // The marker's tangent when it is not one everywhere (nullptr: one): a read inside a nested
  // declaration whose subscript names that declaration's own indices is the adjoint's point at
  // some of its points only, so the seed carries the test.
  NodeRef marker_seed;
  std::unordered_set<uint32_t> opened;
  std::unordered_map<DefId, NodeRef> tangents;
  const Unit* unit = nullptr;  // unit for call targets (nullptr: the cell)
  // Calls whose result is already stored (the reverse sweep's clause value: the primal tensor at
  // the point). A `@fn` rule that recomputes the function's own result (`1 - tanh(x)^2`,
  // `sigmoid(x) * (1 - sigmoid(x))`) reads it instead, and its argument is then often not
  // needed at all: an RNN step's pre-activation sum is not recomputed once per partial.
  std::unordered_map<const ir::Node*, NodeRef> stored;
  // The value of an argument of the clause's call as a read of a primal intermediate the sweep
  // stores on demand (nullptr: evaluate the argument): a rule that needs its argument (gelu's
  // `x`) then does not recompute a contraction at every partial.
  std::function<NodeRef(const NodeRef&)> stored_arg;
  NodeRef tangent(const NodeRef& e);

 private:
  NodeRef call(const NodeRef& e);
  NodeRef arg_value(const NodeRef& arg);
  NodeRef call_rule(const NodeRef& e, std::vector<NodeRef> t);
  // A call of a function with an `@fn` rule (ad_rules.cpp).
  NodeRef custom_rule(const NodeRef& e, const std::vector<NodeRef>& t, const NodeRef& rule, const NodeRef& fn);
  NodeRef builtin_rule(int builtin, const NodeRef& e, const std::vector<NodeRef>& t);
  NodeRef block(const NodeRef& b);
  NodeRef where(const NodeRef& w);
  NodeRef reduce(const NodeRef& r);
  NodeRef domain_nonempty(const NodeRef& r);
  NodeRef pow(const NodeRef& e, const NodeRef& ta, const NodeRef& tb);
  // Whether a tangent may be infinite: its expression may (ad_finite), or it reads a tangent local
  // bound to one that may (`let q = ln(p); max(q, -100.0)`: dq is 1 / p * dp).
  bool unbounded(const NodeRef& t) const;
  CompileCtx& cx_;
  Facts& facts_;
  std::unordered_set<DefId> unbounded_;  // tangent locals whose value may be infinite
};

// `@y = 2 * x * @x`: y's differential in terms of the differentials of its direct inputs.
std::string symbolic_differential(CompileCtx& cx, Facts& facts, const std::string& y,
                                  const NodeRef& stmt);

// ---- small IR builders for generated float code ----------------------------------------------
NodeRef flit(double v);                                   // float literal (context-typed)
NodeRef zero_of(DType dt);                                 // `0.0 as dt`
NodeRef add(const NodeRef& a, const NodeRef& b);           // nullptr is zero
NodeRef sub(const NodeRef& a, const NodeRef& b);
NodeRef mul(const NodeRef& a, const NodeRef& b);
NodeRef div(const NodeRef& a, const NodeRef& b);
NodeRef neg(const NodeRef& a);
NodeRef call_builtin(int builtin, std::vector<NodeRef> args, Span s = {});
NodeRef name(const std::string& n, DefId d);
NodeRef eq(const NodeRef& a, const NodeRef& b);
NodeRef ty_prim(DType d);                                  // the type `d` (a cast's target)
// `key == m` for an integer subscript `key` (typed `key_type`) met by an adjoint's point `m`
// (`t[n] == m1`, the adjoint of a label read `lp[n, t[n]]`). The point is an i32 (its range is
// a DimOf); an i64 or i8 key compared with it is E002, so both are compared as i64 (exact).
NodeRef index_eq(const NodeRef& key, const TypeRef& key_type, const NodeRef& m);
// Can a local partial be infinite or NaN at finite primal values (a division, a power, a function
// that grows)? Intervals prove `exp(-x * x)` and `1 / (1 + exp(-x))` finite (ad_finite.cpp); with `cx`,
// also through the bodies of the functions a rule calls.
bool may_be_infinite(const NodeRef& P, const CompileCtx* cx = nullptr);
NodeRef land(const NodeRef& a, const NodeRef& b);
NodeRef ifz(const NodeRef& cond, const NodeRef& then, const NodeRef& zero);
// `if cond { then } else { zero }` that only keeps 0 * inf from being nan (a zero adjoint or
// tangent times an infinite partial): the value is the non-literal arm's wherever that is
// finite, so a derivative of it (a second order) is the derivative of that arm (Forward::tangent).
// Named kZeroGuard; differentiated as an ordinary branch, the taken literal 0 lost the second
// order terms (the Hessian of exp(prod(a)) at a zero factor).
inline constexpr const char* kZeroGuard = "zero_guard";
NodeRef zero_guard(const NodeRef& cond, const NodeRef& then, const NodeRef& zero);
NodeRef where(NodeRef value, std::vector<NodeRef> items);
NodeRef wbind(const std::string& n, DefId d, NodeRef v);
NodeRef wguard(NodeRef cond);
NodeRef idx_in(const std::string& n, DefId d, NodeRef lo, NodeRef hi);
NodeRef reduce(const std::string& op, NodeRef body, std::vector<NodeRef> slots);
NodeRef let_stmt(const std::string& n, DefId d, NodeRef v, std::optional<DType> ty = std::nullopt);
// `let n: T = v;` with T written from the analysed type `t` of the value (a scalar or an array of
// known rank and element type; no annotation otherwise). Binding a call's literal argument to its
// parameter this way keeps the type the call gave it (`f(k_f64, 0.1)`: 0.1 is f64).
NodeRef let_typed(const std::string& n, DefId d, NodeRef v, const TypeRef& t);
// `n` with every node that has no source position given `s` (generated code reports errors at
// the request it came from).
NodeRef spanned(const NodeRef& n, Span s);
NodeRef block(std::vector<NodeRef> stmts, NodeRef tail);
// block() of lets local to a generated partial: those that only rename a name or a read are
// substituted into the rest (nothing outside the partial may name them).
NodeRef alias_block(std::vector<NodeRef> stmts, NodeRef tail);
// Match arms whose pattern binds the whole scrutinee (`v where v > 0.0 => v * v`, `n @ 1..=9 =>`)
// with the scrutinee itself in place of the name (`_`, or the inner pattern, is then tested):
// the derivative of the arm then runs through the scrutinee, and a read indexed by the binding
// (`n => x[n - 1]` on `match k`) is a read indexed by the scrutinee.
NodeRef match_bindings(const NodeRef& e, Facts& facts);
// The partial with the lets of inlined calls substituted where that repeats no work (ad_build.cpp).
NodeRef flatten_partial(const NodeRef& n);

}  // namespace ein::ad
