// One site of range analysis (an Einstein clause or a reduction outside one): its index
// variables, the accesses that mention them as affine forms, and the solver that gives every
// index its range from those accesses (SPEC §5.2). range_analysis.cpp walks the units and hands
// each site to a SiteSolver; range_site.cpp collects the site's accesses and solves them.
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lang/passes/context.h"
#include "lang/passes/range_affine.h"

namespace ein::ranges {

using ir::DefId;
using ir::NodeRef;

struct Candidate {
  NodeRef lo, hi;  // either may be null (no constraint on that side)
  bool plain = false;
  NodeRef extent;  // plain: the axis extent
  Span span;
  std::string what;
};

struct Access {
  NodeRef node;
  int axis;
  Affine aff;
  NodeRef extent;    // of the indexed axis, as integer IR
  bool self;
  bool point_local;  // the base is computed inside the site (a where/let local)
  bool written_plain;  // the index is written as a bare name: `X[i]`
  bool self_bounded = false;  // a self-read whose axis extent the clauses' explicit ranges fix
  bool nested_ext = false;  // the extent of a definition nested in the site, written out (local_bounds)
  bool reduce_only = false;  // ... reading other nested definitions (ext_deps): bounds reductions only
  std::vector<DefId> ext_deps;
  int guarded_side = 0;  // -1: its start is not a start of v (see SiteSolver::mark_guarded_reads); +1: its end
};

// The exclusive end of a range literal `a..b` / `a..=b`.
NodeRef range_end(const NodeRef& r);

class SiteSolver {
 public:
  SiteSolver(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

  void solve(const NodeRef& root, DefId self, std::vector<NodeRef> self_extents = {}, bool single_clause = false);

 private:
  bool is_var(DefId d) const { return var_set_.count(d) > 0; }
  bool solved(DefId d) const { return u_.ranges.count(d) > 0; }
  size_t rank_of_access(uint32_t id) const;

  bool bounds(const Access& a, DefId v) const;
  bool through_inner_range(const Access& a, DefId v) const;
  bool other_source(DefId v) const;
  bool others_solved(const Access& a, DefId v) const;
  bool complete(DefId v) const;
  bool has_usable(DefId v) const;

  void settle(DefId v);

  std::optional<Affine> extreme(Affine e, DefId v, bool max);

  Affine bound_affine(const NodeRef& n, bool upper);

  void require_positive(DefId v, const NodeRef& s, const Access& a);

  bool finalize(DefId v, const std::vector<Candidate>& cands);

  void collect_vars(const NodeRef& n, bool is_root);

  bool outer_to(DefId u, DefId v) const;

  ir::TypeRef index_type(DefId u) const;

  void add_explicit(const NodeRef& slot);

  Affine affine(const NodeRef& e, int depth = 0);

  // `nested_deps`: names of definitions nested in the site are allowed, and collected there.
  bool site_independent(const NodeRef& e, std::vector<DefId>* nested_deps = nullptr);
  bool call_site_independent(const NodeRef& call, bool* point_local);
  bool captured(DefId d) const {
    return std::find(u_.captures.begin(), u_.captures.end(), d) != u_.captures.end();
  }
  bool local_bounds(const Access& a, DefId v) const;
  void adopt_explicit_slots(const NodeRef& group);
  bool runs_after(const Access& a, DefId v) const;
  bool exists_when_starts(DefId nested, DefId v) const;

  void collect_accesses(const NodeRef& n, bool cond = false);

  void add_access(const NodeRef& n);

  bool mentions_guarded_derived(const NodeRef& ix) const;

  void mark_guarded_reads();

  bool local_outside_site(DefId d) const { return !site_locals_.count(d) && !is_var(d); }

 public:
  void note_site_local(DefId d) { site_locals_.insert(d); }
  // A `where p = v` of the site: p's value, for its extents when v reads nothing of the site.
  void note_where_value(DefId d, NodeRef v) { where_values_[d] = std::move(v); }
  // A definition nested in the site, solved before it: its extent per axis (null: unknown) and
  // the ids of the site's reductions it is computed inside.
  // Per axis of the definition, the extent its clauses solved before this one give (null: none).
  void note_prior_extents(std::vector<NodeRef> e) { prior_extents_ = std::move(e); }
  void note_nested(DefId d, std::vector<NodeRef> extents, std::vector<uint32_t> inside) {
    site_locals_.insert(d);
    nested_[d] = Nested{std::move(extents), std::move(inside)};
  }

 private:
  NodeRef call_extent_known(const NodeRef& e);
  NodeRef prior_self_extent(int axis);
  bool prior_extent_of(const NodeRef& ext, int axis) const;
  // Per result axis of a call: its extent where the site fixes it (null: unknown).
  std::vector<NodeRef> call_extents(const NodeRef& call, size_t axes);
  CompileCtx& cx_;
  Unit& u_;
  DefId self_;
  std::unordered_set<DefId> var_set_, explicit_, site_locals_, reduce_vars_;
  std::vector<DefId> order_;
  std::unordered_map<DefId, Span> spans_;
  std::unordered_map<DefId, NodeRef> derived_;
  std::unordered_set<DefId> guarded_derived_;  // derived indices a guard of their where tests
  std::vector<NodeRef> self_extents_;  // per axis of the definition: its allocation, if explicit
  std::vector<uint32_t> binders_;                            // enclosing EinDecl/Reduce ids
  std::unordered_map<DefId, std::vector<uint32_t>> chain_;   // index -> binders down to its own
  std::vector<Access> accesses_;
  std::unordered_map<DefId, std::vector<NodeRef>> self_lo_;
  std::unordered_set<uint32_t> conditional_;  // accesses under an if/match branch or && / ||
  bool single_clause_ = false;                // the site is the only clause of its definition
  std::unordered_set<size_t> contributed_;
  std::unordered_map<uint32_t, size_t> access_arity_;
  struct Nested {
    std::vector<NodeRef> extents;
    std::vector<uint32_t> inside;
  };
  std::unordered_map<DefId, Nested> nested_;
  std::vector<NodeRef> prior_extents_;
  NodeRef root_;                  // the clause (or reduction) being solved
  std::vector<int> prior_used_;   // axes whose self-reads took prior_extents_ (prior_self_extent)
  std::unordered_map<DefId, NodeRef> where_values_;
  // While a reduction index's range is written (extreme): definitions nested in the site that
  // exist before its loop starts count as symbols (their extents are known by then).
  DefId starting_{};
};

}  // namespace ein::ranges
