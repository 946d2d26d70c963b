#include "lang/passes/range_analysis.h"

#include <functional>
#include <map>

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/ir_build.h"

namespace ein {
namespace {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

// Affine index expression: sum(coef * var) + k + sum(sign * sym).
struct Affine {
  std::vector<std::pair<DefId, int64_t>> vars;
  int64_t k = 0;
  std::vector<std::pair<NodeRef, int>> syms;
  bool ok = true;

  void add_var(DefId d, int64_t c) {
    for (auto& [v, cc] : vars)
      if (v == d) {
        cc += c;
        return;
      }
    vars.emplace_back(d, c);
  }
  void scale(int64_t s) {
    for (auto& [v, c] : vars) c *= s;
    k *= s;
    if (s == -1)
      for (auto& [n, sg] : syms) sg = -sg;
    else if (s != 1 && !syms.empty())
      ok = false;
  }
  void absorb(const Affine& o, int sign) {
    for (auto& [v, c] : o.vars) add_var(v, c * sign);
    k += o.k * sign;
    for (auto& [n, sg] : o.syms) syms.emplace_back(n, sg * sign);
    ok = ok && o.ok;
  }
  // The constant part as IR.
  NodeRef offset() const {
    NodeRef r = irb::lit(k);
    for (auto& [n, sg] : syms) r = sg > 0 ? irb::add(r, n) : irb::sub(r, n);
    return r;
  }
};

struct Candidate {
  NodeRef lo, hi;  // either may be null (no constraint on that side)
  bool plain = false;
  NodeRef extent;  // plain: the axis extent
  Span span;
  std::string what;
};

struct Access {
  NodeRef node;
  NodeRef base;  // Name
  int axis;
  Affine aff;
  bool self;
  bool point_local;  // the base is computed inside the site (a where/let local)
};

class SiteSolver {
 public:
  SiteSolver(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

  void solve(const NodeRef& root, DefId self) {
    self_ = self;
    collect_vars(root, true);
    collect_accesses(root);
    // Step 1: single-variable candidates.
    for (auto& a : accesses_) {
      if (!a.aff.ok || a.aff.vars.size() != 1) continue;
      auto [v, c] = a.aff.vars[0];
      if (!is_var(v) || (c != 1 && c != -1)) continue;
      if (a.point_local && !reduce_vars_.count(v)) continue;
      if (a.self) {
        if (c == 1 && a.aff.syms.empty() && a.aff.k < 0)
          cands_[v].push_back(Candidate{irb::lit(-a.aff.k), nullptr, false, nullptr, a.node->span, ""});
        continue;
      }
      NodeRef dim = irb::dim_of(a.base, a.axis);
      Candidate cand;
      cand.span = a.node->span;
      cand.what = cx_.sm.snippet(a.node->span);
      // Only the written form `X[i]` is a plain use; `X[i + 0]` is an offset use (SPEC §5.2).
      if (c == 1 && a.aff.k == 0 && a.aff.syms.empty() && a.node->kids[a.axis + 1]->kind == Kind::Name) {
        cand.plain = true;
        cand.extent = dim;
        cand.lo = irb::lit(0);
        cand.hi = dim;
      } else {
        NodeRef off = a.aff.offset();
        if (c == 1) {
          cand.lo = irb::neg(off);
          cand.hi = irb::sub(dim, off);
        } else {
          cand.lo = irb::add(irb::sub(off, dim), irb::lit(1));
          cand.hi = irb::add(off, irb::lit(1));
        }
      }
      cands_[v].push_back(cand);
      contributed_[a.node->id].insert(a.axis);
    }
    // Step 2: multi-variable accesses anchor a variable once the others have ranges.
    for (bool changed = true; changed;) {
      changed = false;
      for (auto& a : accesses_) {
        if (a.self || !a.aff.ok || a.aff.vars.size() < 2) continue;
        DefId target;
        int missing = 0;
        bool unit_coefs = true;
        for (auto& [v, c] : a.aff.vars) {
          if (!is_var(v)) {
            unit_coefs = false;
            break;
          }
          if (c != 1 && c != -1) unit_coefs = false;
          if (!anchored(v)) {
            ++missing;
            target = v;
          }
        }
        if (!unit_coefs || missing != 1) continue;
        if (a.point_local && !reduce_vars_.count(target)) continue;
        NodeRef rmin = a.aff.offset(), rmax = a.aff.offset();
        int64_t ct = 0;
        for (auto& [v, c] : a.aff.vars) {
          if (v == target) {
            ct = c;
            continue;
          }
          auto [lo, hi] = range_of(v);
          NodeRef last = irb::sub(hi, irb::lit(1));
          if (c == 1) {
            rmin = irb::add(rmin, lo);
            rmax = irb::add(rmax, last);
          } else {
            rmin = irb::sub(rmin, last);
            rmax = irb::sub(rmax, lo);
          }
        }
        NodeRef dim = irb::dim_of(a.base, a.axis);
        Candidate cand;
        cand.span = a.node->span;
        if (ct == 1) {
          cand.lo = irb::neg(rmin);
          cand.hi = irb::sub(dim, rmax);
        } else {
          cand.lo = irb::add(irb::sub(rmax, dim), irb::lit(1));
          cand.hi = irb::add(rmin, irb::lit(1));
        }
        cands_[target].push_back(cand);
        contributed_[a.node->id].insert(a.axis);
        finalize(target);
        changed = true;
      }
    }
    for (auto& v : order_) finalize(v);
    // Accesses proven in bounds: every axis contributed to the ranges of non-explicit indices.
    std::map<uint32_t, std::pair<int, bool>> per_node;  // id -> (axes, all ok)
    for (auto& a : accesses_) {
      if (a.self) continue;
      auto& e = per_node[a.node->id];
      bool ok = contributed_[a.node->id].count(a.axis) > 0;
      for (auto& [v, c] : a.aff.vars)
        if (explicit_.count(v)) ok = false;
      if (e.first == 0) e.second = true;
      e.first++;
      e.second = e.second && ok;
    }
    for (auto& [id, e] : per_node)
      if (e.second && e.first == static_cast<int>(rank_of_access(id))) u_.proven.insert(id);
  }

 private:
  bool is_var(DefId d) const { return var_set_.count(d) > 0; }
  bool anchored(DefId d) const {
    return explicit_.count(d) || u_.ranges.count(d) || (cands_.count(d) && !cands_.at(d).empty());
  }
  size_t rank_of_access(uint32_t id) const {
    auto it = access_arity_.find(id);
    return it == access_arity_.end() ? 0 : it->second;
  }

  std::pair<NodeRef, NodeRef> range_of(DefId v) {
    finalize(v);
    auto& r = u_.ranges[v];
    return {r.lo, r.hi};
  }

  void finalize(DefId v) {
    if (u_.ranges.count(v)) return;
    auto it = cands_.find(v);
    if (it == cands_.end() || it->second.empty()) return;
    RangeFact f;
    f.span = spans_[v];
    std::vector<Candidate*> plains;
    for (auto& c : it->second) {
      f.lo = f.lo ? irb::imax(f.lo, c.lo) : c.lo;
      if (c.hi) f.hi = f.hi ? irb::imin(f.hi, c.hi) : c.hi;
      if (c.plain) plains.push_back(&c);
    }
    f.lo = irb::imax(irb::lit(0), f.lo);
    if (!f.hi) return;  // only self-read lower bounds: not a range source
    for (size_t i = 1; i < plains.size(); ++i) {
      if (ir::structurally_equal(plains[0]->extent, plains[i]->extent)) continue;
      u_.agrees.push_back(AgreeFact{v, plains[0]->extent, plains[i]->extent, plains[0]->span,
                                    plains[i]->span, plains[0]->what, plains[i]->what});
    }
    u_.ranges[v] = f;
  }

  // Index variables introduced at this site (slots of the root and of nested reductions).
  void collect_vars(const NodeRef& n, bool is_root) {
    if (!n) return;
    if (n->kind == Kind::Lambda) return;
    if (!is_root && n->kind == Kind::EinGroup) return;  // a nested definition is its own site
    if (n->kind == Kind::EinDecl || n->kind == Kind::Reduce) {
      size_t begin = n->kind == Kind::EinDecl ? ir::ein_slot_begin() : ir::reduce_slot_begin();
      for (size_t i = begin; i < n->kids.size(); ++i) {
        const NodeRef& s = n->kids[i];
        if (s->kind != Kind::IdxVar && s->kind != Kind::IdxIn) continue;
        var_set_.insert(s->def);
        if (n->kind == Kind::Reduce) reduce_vars_.insert(s->def);
        order_.push_back(s->def);
        spans_[s->def] = s->span;
        if (s->kind == Kind::IdxIn) add_explicit(s);
      }
    }
    if (n->kind == Kind::Where)
      for (size_t i = 1; i < n->kids.size(); ++i)
        if (n->kids[i]->kind == Kind::WDerived) derived_[n->kids[i]->def] = n->kids[i]->kids[0];
    for (auto& k : n->kids) collect_vars(k, false);
  }

  void add_explicit(const NodeRef& slot) {
    const NodeRef& r = slot->kids[0];
    RangeFact f;
    f.is_explicit = true;
    f.span = slot->span;
    if (r->kind == Kind::RangeLit) {
      f.lo = r->kids[0];
      f.hi = r->has(ir::kInclusive) ? irb::add(r->kids[1], irb::lit(1)) : r->kids[1];
    } else {
      cx_.error("E011", "an index range must be written as `a..b` or `a..=b`", r->span,
                "not a range literal");
      f.lo = irb::lit(0);
      f.hi = irb::lit(0);
    }
    explicit_.insert(slot->def);
    u_.ranges[slot->def] = f;
  }

  Affine affine(const NodeRef& e, int depth = 0) {
    Affine a;
    if (!e || depth > 64) {
      a.ok = false;
      return a;
    }
    switch (e->kind) {
      case Kind::IntLit: a.k = e->ival; return a;
      case Kind::Name: {
        if (is_var(e->def)) {
          a.add_var(e->def, 1);
          return a;
        }
        if (auto it = derived_.find(e->def); it != derived_.end()) return affine(it->second, depth + 1);
        if (auto it = cx_.const_ints.find(e->def); it != cx_.const_ints.end()) {
          a.k = it->second;
          return a;
        }
        break;
      }
      case Kind::Binary: {
        auto op = static_cast<ir::BinOp>(e->ival);
        if (op == ir::BinOp::Add || op == ir::BinOp::Sub) {
          a = affine(e->kids[0], depth + 1);
          a.absorb(affine(e->kids[1], depth + 1), op == ir::BinOp::Add ? 1 : -1);
          return a;
        }
        if (op == ir::BinOp::Mul) {
          Affine x = affine(e->kids[0], depth + 1), y = affine(e->kids[1], depth + 1);
          bool xc = x.ok && x.vars.empty() && x.syms.empty();
          bool yc = y.ok && y.vars.empty() && y.syms.empty();
          if (xc) {
            y.scale(x.k);
            return y;
          }
          if (yc) {
            x.scale(y.k);
            return x;
          }
          a.ok = false;
          return a;
        }
        break;
      }
      case Kind::Unary:
        if (static_cast<ir::UnOp>(e->ival) == ir::UnOp::Neg) {
          a = affine(e->kids[0], depth + 1);
          a.scale(-1);
          return a;
        }
        break;
      default: break;
    }
    // Anything else is a symbol if it cannot depend on this site's loops.
    if (site_independent(e)) {
      a.syms.emplace_back(e, 1);
      return a;
    }
    a.ok = false;
    return a;
  }

  bool site_independent(const NodeRef& e) {
    bool ok = true;
    ir::for_each_node(e, [&](const NodeRef& n) {
      if (n->kind == Kind::Name && n->def.valid()) {
        if (is_var(n->def) || derived_.count(n->def)) ok = false;
        DefKind k = cx_.resolver.info(n->def).kind;
        if (k == DefKind::Local || k == DefKind::Index) ok = false;  // where-locals, outer loops
      }
      if (n->kind == Kind::Reduce || n->kind == Kind::Lambda) ok = false;
    });
    return ok;
  }

  void collect_accesses(const NodeRef& n) {
    if (!n || n->kind == Kind::Lambda) return;
    if (n->kind == Kind::Index && n->kids[0]->kind == Kind::Name && n->kids[0]->def.valid()) {
      const NodeRef& base = n->kids[0];
      DefKind k = cx_.resolver.info(base->def).kind;
      bool usable = k == DefKind::Global || k == DefKind::Param || k == DefKind::Const ||
                    (k == DefKind::Local && !derived_.count(base->def));
      // A local computed inside the site is recomputed per point: its extent cannot bound the
      // declaration's own loops, but it can bound a reduction evaluated after it.
      bool point_local = k == DefKind::Local && !local_outside_site(base->def);
      if (usable || base->def == self_) {
        access_arity_[n->id] = n->kids.size() - 1;
        for (size_t i = 1; i < n->kids.size(); ++i)
          accesses_.push_back(Access{n, base, static_cast<int>(i - 1), affine(n->kids[i]),
                                     base->def == self_, point_local});
      }
    }
    for (auto& k : n->kids) collect_accesses(k);
  }

  bool local_outside_site(DefId d) const { return !site_locals_.count(d) && !is_var(d); }

 public:
  void note_site_local(DefId d) { site_locals_.insert(d); }

 private:
  CompileCtx& cx_;
  Unit& u_;
  DefId self_;
  std::unordered_set<DefId> var_set_, explicit_, site_locals_, reduce_vars_;
  std::vector<DefId> order_;
  std::unordered_map<DefId, Span> spans_;
  std::unordered_map<DefId, NodeRef> derived_;
  std::vector<Access> accesses_;
  std::unordered_map<DefId, std::vector<Candidate>> cands_;
  std::unordered_map<uint32_t, std::unordered_set<int>> contributed_;
  std::unordered_map<uint32_t, size_t> access_arity_;
};

class SiteFinder : public ir::RecursiveVisitor {
 public:
  SiteFinder(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

 protected:
  bool pre(const NodeRef& n) override {
    if (n->kind == Kind::EinGroup) {
      for (auto& clause : n->kids) solve(clause, n->def);
      // Nested sites inside clause bodies (blocks with their own definitions) are still visited.
      return true;
    }
    if (n->kind == Kind::Reduce && !covered_.count(n->id)) {
      solve(n, DefId{});
      return true;
    }
    return true;
  }

  void solve(const NodeRef& root, DefId self) {
    SiteSolver s(cx_, u_);
    // Where-bound locals inside the site are per-point values, never range sources.
    ir::for_each_node(root, [&](const NodeRef& n) {
      if (n->kind == Kind::WBind || n->kind == Kind::WDerived || n->kind == Kind::CompGen ||
          n->kind == Kind::CompLet)
        s.note_site_local(n->def);
      if (n->kind == Kind::Let && ir::let_pattern(*n)->kind == Kind::PBind)
        s.note_site_local(ir::let_pattern(*n)->def);
      if (n->kind == Kind::Reduce) covered_.insert(n->id);
    });
    s.solve(root, self);
    // Every index of the site must have a range now (nested definitions are their own sites,
    // solved when the walk reaches them).
    std::function<void(const NodeRef&, bool)> check = [&](const NodeRef& n, bool is_root) {
      if (!n || n->kind == Kind::Lambda || (!is_root && n->kind == Kind::EinGroup)) return;
      if (n->kind == Kind::EinDecl || n->kind == Kind::Reduce) {
        size_t begin = n->kind == Kind::EinDecl ? ir::ein_slot_begin() : ir::reduce_slot_begin();
        for (size_t i = begin; i < n->kids.size(); ++i) {
          const NodeRef& sl = n->kids[i];
          if (sl->kind == Kind::IdxVar && !u_.ranges.count(sl->def) && !reported_.count(sl->def)) {
            reported_.insert(sl->def);
            cx_.error("E004", "cannot infer the range of index `" + sl->name + "`", sl->span,
                      "no array access determines its extent",
                      "give it an explicit range, e.g. `" + sl->name + " in 0..n`, or use it as a "
                      "plain index of an array");
          }
        }
      }
      for (auto& k : n->kids) check(k, false);
    };
    check(root, true);
  }

 private:
  CompileCtx& cx_;
  Unit& u_;
  std::unordered_set<uint32_t> covered_;
  std::unordered_set<DefId> reported_;
};

}  // namespace

void analyze_ranges(CompileCtx& cx) {
  for (auto& u : cx.units) {
    SiteFinder f(cx, *u);
    f.walk(u->body);
  }
}

}  // namespace ein
