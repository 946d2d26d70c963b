// Internal to autodiff: the rewriter that finds derivative requests in every scope (ad_scope.cpp)
// and lowers each one (ad_request.cpp, ad_indexed.cpp). See autodiff.h for the design.
#pragma once
#include "lang/passes/ad_reverse.h"

namespace ein::ad {

class Rewriter {
 public:
  Rewriter(CompileCtx& cx, Facts& facts) : cx_(cx), facts_(facts) {}

  // Rewrites every request in a statement list (the cell's Program or a function's body Block)
  // and in every scope nested in it. `top`: the cell's own statement list (lazy Jacobians).
  NodeRef statements(const NodeRef& list, bool top = false);
  // Values the enclosing construct binds (function parameters): constants for derivatives.
  void add_leaf(DefId d) { leaves_.insert(d); }
  // Values read from outside the function body being rewritten (see Tape::set_outer).
  void add_outer(DefId d) { outer_.insert(d); }
  // Did this round rewrite anything (the caller analyses again)?
  bool changed = false;
  // Jacobian bindings never observed whole (`let J = @y / @x;` read only at constant rows or
  // columns): the cell decides them before walking.
  std::unordered_map<DefId, NodeRef> lazy;

 private:
  // ---- scopes (ad_scope.cpp) ------------------------------------------------------------------
  // A statement list being walked. Code that does not depend on anything bound inside its
  // current statement may be placed in `prelude` (before that statement): computed once
  // instead of per point.
  struct Level {
    std::vector<NodeRef> prelude;
    size_t mark = 0;                 // bound_.size() when the current statement began
    std::vector<NodeRef> remaining;  // the current statement and the ones after it
    // Adjoints of one shared reverse sweep placed in `prelude`: target -> parameter -> adjoint.
    std::unordered_map<DefId, std::unordered_map<DefId, NodeRef>> shared;
  };
  NodeRef stmt(const NodeRef& s);
  NodeRef expr(const NodeRef& n);
  NodeRef einstein(const NodeRef& group);
  NodeRef where(const NodeRef& w);
  NodeRef comp(const NodeRef& c);
  NodeRef match(const NodeRef& m);
  NodeRef reduce(const NodeRef& r);
  void bind(DefId d);
  void bind_pattern(const NodeRef& p, bool leaf);
  void unbind_to(size_t n);
  // A request (or a use of a bound differential) at this point of the walk.
  NodeRef request(const NodeRef& q);
  NodeRef differential_use(const NodeRef& n);
  bool is_differential(const NodeRef& n) const;
  NodeRef as_diff(const NodeRef& n) const;  // `df` of `let df = @f;` -> `@f`
  bool waits(const NodeRef& q);             // must wait for the next round (pending types)
  bool reaches_pending(DefId d, std::unordered_set<DefId>& seen) const;
  bool node_waits(const NodeRef& root, std::unordered_set<DefId>& seen) const;
  bool unit_waits(const Unit* u, std::unordered_set<const Unit*>& seen) const;
  // Places `value` as `let <nm> = value;` at the outermost statement list where everything it
  // reads is visible, when that is outside a construct evaluated per point; returns the Name
  // (or `value` itself when it stays in place).
  NodeRef place(const NodeRef& value, const std::string& nm, Span span);
  size_t hoist_level(const NodeRef& value) const;
  // The outermost level where d is visible before that level's current statement
  // (levels_.size(): bound inside the innermost current statement).
  size_t level_of_def(DefId d) const;

  // ---- lowering (ad_request.cpp) --------------------------------------------------------------
  NodeRef quotient(const NodeRef& q);
  NodeRef build(const NodeRef& q, const NodeRef& T, DefId target, const std::string& tname,
                const NodeRef& X, const NodeRef& synthetic);
  NodeRef jvp(const NodeRef& q, DefId target, const std::string& tname, const NodeRef& X, int ry,
              int rx, const Tape& tape, std::vector<NodeRef> pre);
  NodeRef rows_jacobian(const NodeRef& q, DefId target, const std::string& tname, const NodeRef& X, int ry,
                        int rx, DType dt, const Tape& tp, std::vector<NodeRef> pre);
  // A request whose tape branches on values known only at run time (ad_variants.cpp): `lower`
  // lowers it on a tape assuming the arms `arms` (Tape::branch_on) and the then arm of every
  // later branch; the other arms are lowered in turn, all under `if` on the conditions. At most
  // `budget` tapes (combinations of arms) in all.
  static constexpr int kMaxVariants = 16;
  NodeRef variants(const std::function<NodeRef(Tape&)>& lower, const std::vector<bool>& arms, int& budget,
                   Span span);
  NodeRef shared(DefId target, const NodeRef& X);
  // The shared sweep of `wrts` through run-time branches (ad_variants.cpp): one tuple of
  // adjoints placed in the prelude; nullptr when that fails too (each request reports alone).
  NodeRef shared_variants(DefId target, const std::vector<NodeRef>& wrts, const std::vector<DefId>& defs,
                          const std::vector<Leaf>& leaves);
  // A binding whose definition reads its own points (a recurrence).
  bool recurrent(DefId d) const;
  bool tangent_first(DefId target, const NodeRef& X, const Tape& tp) const;
  NodeRef zeros(const NodeRef& q, const std::string& tname, DefId target, int ry, const NodeRef& X,
                int rx, DType dt, std::vector<NodeRef> pre);
  NodeRef differential(const NodeRef& n);
  NodeRef lazy_use(const NodeRef& n);
  NodeRef column_use(const NodeRef& q, const NodeRef& use, const std::vector<NodeRef>& rows,
                     const std::vector<NodeRef>& cols);
  NodeRef basis_tangent(const NodeRef& q, const NodeRef& X, DType dtx, const std::vector<NodeRef>& at);
  Tape tape() const;
  bool checked_param(const NodeRef& q, const NodeRef& X);
  // Reports an abandoned request as E013 (pointing into the request when the cause is in
  // another file) and returns the request unchanged.
  NodeRef not_differentiable(const NodeRef& q, const Unsupported& u);


  // ---- indexed requests (ad_indexed.cpp) -------------------------------------------------------
  NodeRef indexed(const NodeRef& q);
  NodeRef entry_in_place(const NodeRef& q, const NodeRef& T, const NodeRef& X);
  NodeRef structural(const NodeRef& q, const NodeRef& T, const NodeRef& X, size_t level);
  NodeRef column(const NodeRef& q, const NodeRef& T, const NodeRef& X, size_t level,
                 const std::string& mode, bool ones);
  NodeRef per_parameter_point(const NodeRef& q, const NodeRef& T, const NodeRef& X, size_t level);
  bool varies(const NodeRef& e, size_t level) const;

  NodeRef with_span(const NodeRef& n, Span s) const;

  CompileCtx& cx_;
  Facts& facts_;
  std::vector<Level> levels_;
  std::vector<DefId> bound_;                       // binders in scope, innermost last
  std::unordered_map<DefId, size_t> bound_at_;     // binder -> its position in bound_
  std::unordered_map<DefId, NodeRef> visible_;     // definitions in scope: def -> Let/EinGroup
  std::unordered_set<DefId> leaves_;               // values without a definition to follow
  std::unordered_set<DefId> outer_;                // globals read by a function body
  std::unordered_map<DefId, NodeRef> differentials_;  // `let df = @f;`: df -> `@f`
  std::unordered_set<DefId> pending_;              // rewritten this round: facts not known yet
  int deferred_ = 0;                               // requests left for the next round
  std::vector<NodeRef> fixed_rows_;
};

// Every call in `body` of a function specialisation whose key is in `keys` (its requests were
// refused there) replaced by the function's body inlined, its parameters block-local lets bound
// to the arguments (ad_callsite.cpp); `used` gets the keys of the calls replaced.
// `within`: the specialisation whose body `body` is (nullptr: the cell).
NodeRef inline_refused_calls(CompileCtx& cx, const NodeRef& body, const std::unordered_set<std::string>& keys,
                             std::unordered_set<std::string>& used, const Unit* within);

}  // namespace ein::ad
