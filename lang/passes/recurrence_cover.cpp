#include "lang/passes/recurrence_cover.h"

#include <unordered_set>

#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"
#include "lang/passes/box_cover.h"
#include "lang/passes/context.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/loop_nest.h"
#include "lang/passes/shape_analysis.h"

namespace ein {
namespace {

using cover::Box;
using cover::Interval;
using cover::Lin;
using ir::DefId;
using ir::Kind;
using ir::NodeRef;

std::string var_key(DefId d) { return "v" + std::to_string(d.crate) + ":" + std::to_string(d.index); }

using irb::wide;

struct Loop {
  NodeRef lo, hi;
};

struct Clause : LoopNest {  // write: per axis, the Name of a loop variable or a literal
  std::vector<std::pair<NodeRef, NodeRef>> bounds;  // per axis [lo, hi) as IR
  Box box;
  bool dependent = false;  // a bound mentions another loop variable of the clause
  bool analysable = true;
};

struct Read {
  NodeRef node;
  bool conditional;
};

class Cover : public ir::Mutator {
 public:
  Cover(CompileCtx& cx, Unit& u, std::unordered_set<uint32_t> top) : cx_(cx), u_(u), top_(std::move(top)) {}

 protected:
  NodeRef post(const NodeRef& n) override {
    if (n->kind != Kind::LTensor) return n;
    // An adjoint recurrence made by autodiff (flag kAdjoint, whichever way it runs: the
    // adjoint of a reverse recurrence runs forward) has clauses only for points whose adjoint
    // can be non-zero; the points it reads but no clause covers are zero by construction
    // (SPEC §5.4), not a missing base case.
    if (n->has(ir::kReverse) || n->has(ir::kAdjoint)) return n;
    return check_tensor(n);
  }

 private:
  // ---- affine forms over the clause's loop variables and invariant symbols -------------------
  std::optional<Lin> lin(const NodeRef& e, int depth = 0) {
    auto r = lin_form(e, depth);
    if (r && !r->exact) return std::nullopt;  // past i64: not a form this check can trust
    return r;
  }

  std::optional<Lin> lin_form(const NodeRef& e, int depth) {
    if (!e || depth > 32) return std::nullopt;
    if (auto k = irb::as_lit(e)) return cover::constant(*k);
    switch (e->kind) {
      case Kind::Unary:
        if (static_cast<ir::UnOp>(e->ival) == ir::UnOp::Neg) {
          auto a = lin(ir::unary_operand(e), depth + 1);
          if (a) return cover::scaled(*a, -1);
          return std::nullopt;
        }
        break;
      case Kind::Binary: {
        auto op = static_cast<ir::BinOp>(e->ival);
        if (op == ir::BinOp::Add || op == ir::BinOp::Sub) {
          auto a = lin(ir::bin_lhs(e), depth + 1), b = lin(ir::bin_rhs(e), depth + 1);
          if (!a || !b) return std::nullopt;
          return op == ir::BinOp::Add ? cover::add(*a, *b) : cover::sub(*a, *b);
        }
        if (op == ir::BinOp::Mul) {
          auto a = lin(ir::bin_lhs(e), depth + 1), b = lin(ir::bin_rhs(e), depth + 1);
          if (a && b && a->constant()) return cover::scaled(*b, a->k);
          if (a && b && b->constant()) return cover::scaled(*a, b->k);
        }
        break;
      }
      case Kind::Name:
        if (auto it = alias_.find(e->def); it != alias_.end()) return lin(it->second, depth + 1);
        if (loops_.count(e->def)) return cover::symbol(var_key(e->def), e);
        break;
      default: break;
    }
    if (varying(e)) return std::nullopt;
    if (auto v = fold_int(cx_, u_, e)) return cover::constant(*v);
    return cover::symbol(ir::to_sexpr(e, ir::PrintOptions{true, false, 0}), e);
  }

  bool varying(const NodeRef& e) {
    bool v = false;
    ir::for_each_node(e, [&](const NodeRef& n) {
      if (n->kind == Kind::Name && (inner_.count(n->def) || loops_.count(n->def) || alias_.count(n->def)))
        v = true;
      if (n->kind == Kind::Index && ir::index_base(n)->kind == Kind::Name && ir::index_base(n)->def == self_) v = true;
    });
    return v;
  }

  // Smallest (sign = -1) or largest (sign = +1) value of `l` over the loops' ranges.
  std::optional<Lin> extreme(Lin l, int sign) {
    for (int step = 0; step < 64; ++step) {
      std::string key;
      DefId var;
      for (auto& [k, c] : l.coef)
        if (auto it = var_of_key_.find(k); it != var_of_key_.end()) {
          key = k;
          var = it->second;
          break;
        }
      if (key.empty()) return l;
      int64_t c = l.coef[key];
      const Loop& lp = loops_.at(var);
      bool upper = (c > 0) == (sign > 0);
      auto b = lin(upper ? lp.hi : lp.lo);
      if (!b) return std::nullopt;
      if (upper) *b = cover::sub(*b, cover::constant(1));
      Lin without = l;
      without.coef.erase(key);
      without.node.erase(key);
      l = cover::add(without, cover::scaled(*b, c));
    }
    return std::nullopt;
  }

  // ---- collecting the tensor's clauses and reads ---------------------------------------------
  void note_defs(const NodeRef& body) {
    ir::for_each_node(body, [&](const NodeRef& n) {
      switch (n->kind) {
        case Kind::LoopVar:
        case Kind::LFor:
          loops_[n->def] = Loop{ir::loop_lo(n), ir::loop_hi(n)};
          var_of_key_[var_key(n->def)] = n->def;
          break;
        case Kind::LLet:
        case Kind::LLetIn: alias_[n->def] = ir::lowered_let_value(n); break;
        case Kind::PBind:
        case Kind::CompGen:
        case Kind::CompLet:
        case Kind::Param: inner_.insert(n->def); break;
        default: break;
      }
    });
  }

  void find_reads(const NodeRef& n, bool cond, std::vector<Read>& out) {
    if (!n || n->kind == Kind::Lambda) return;
    if (n->kind == Kind::Index && ir::index_base(n)->kind == Kind::Name && ir::index_base(n)->def == self_)
      out.push_back(Read{n, cond});
    size_t first_conditional = n->kids.size();  // kids from here on run only sometimes
    switch (n->kind) {
      case Kind::If:
      case Kind::LIf:
      case Kind::Match: first_conditional = 1; break;
      case Kind::Binary: {
        auto op = static_cast<ir::BinOp>(n->ival);
        if (op == ir::BinOp::And || op == ir::BinOp::Or) first_conditional = 1;
        break;
      }
      case Kind::LReduce:
      case Kind::LGuard:
      case Kind::Comp:
      case Kind::LFor: first_conditional = 0; break;
      default: break;
    }
    size_t i = 0;
    for (const NodeRef& k : n->kids) find_reads(k, cond || i++ >= first_conditional, out);
  }

  Clause clause_of(const NodeRef& nest, DefId self) {
    Clause c;
    static_cast<LoopNest&>(c) = peel_nest(nest, self);
    std::unordered_set<DefId> own;
    for (auto& l : c.loops) own.insert(l->def);
    for (auto& w : c.write) {
      NodeRef lo, hi;
      if (auto v = irb::as_lit(w)) {
        lo = irb::lit(*v);
        hi = irb::lit(*v + 1);
      } else if (w->kind == Kind::Name) {
        for (auto& l : c.loops)
          if (l->def == w->def) {
            lo = ir::lfor_lo(*l);
            hi = ir::lfor_hi(*l);
          }
      }
      if (!lo) {
        c.analysable = false;
        lo = hi = irb::lit(0);
      }
      ir::for_each_node(lo, [&](const NodeRef& n) { c.dependent |= n->kind == Kind::Name && own.count(n->def) > 0; });
      ir::for_each_node(hi, [&](const NodeRef& n) { c.dependent |= n->kind == Kind::Name && own.count(n->def) > 0; });
      c.bounds.emplace_back(lo, hi);
      auto l = lin(lo), h = lin(hi);
      if (!l || !h) c.analysable = false;
      c.box.push_back(Interval{l ? *l : cover::constant(0), h ? std::optional<Lin>(*h) : cover::constant(0)});
    }
    return c;
  }

  NodeRef check_tensor(const NodeRef& t) {
    self_ = t->def;
    loops_.clear();
    alias_.clear();
    inner_.clear();
    var_of_key_.clear();
    std::vector<NodeRef> clause_nests;
    for (const NodeRef& k : ir::ltensor_stmts(t))
      if (k->kind != Kind::LShape && k->kind != Kind::LCheck) {
        clause_nests.push_back(k);
        note_defs(k);
      }
    std::vector<Clause> clauses;
    for (const NodeRef& k : clause_nests) clauses.push_back(clause_of(k, t->def));
    std::vector<std::vector<Read>> reads(clauses.size());
    bool any = false;
    for (size_t c = 0; c < clauses.size(); ++c) {
      find_reads(clauses[c].body, false, reads[c]);
      any = any || !reads[c].empty();
    }
    if (!any) return t;
    all_ = clauses;
    std::vector<Box> boxes;  // of the clauses usable in a proof
    bool all_usable = true;
    for (auto& c : clauses) {
      if (c.analysable && !c.dependent) boxes.push_back(c.box);
      else all_usable = false;
    }
    size_t nslots = ir::lshape_extents_count(ir::ltensor_shape(t));
    bool joining = top_.count(t->id) && cx_.join_candidates.count(t->name) &&
                   !cx_.joined.count(t->name);
    std::vector<NodeRef> head_checks;
    std::unordered_map<uint32_t, NodeRef> inline_checks;  // read node id -> replacement
    for (size_t ci = 0; ci < clauses.size(); ++ci) {
      const Clause& c = clauses[ci];
      for (const Read& r : reads[ci]) {
        size_t nidx = std::min(ir::index_args_count(r.node), nslots);
        Box b;
        bool exact = !r.conditional && !c.dependent && c.analysable && all_usable;
        std::unordered_set<std::string> used;
        bool hull = true;
        for (size_t a = 0; a < nidx && hull; ++a) {
          auto l = lin(ir::index_args(r.node)[a]);
          if (!l) {
            hull = false;
            break;
          }
          int vars = 0;
          for (auto& [k, coef] : l->coef) {
            auto it = var_of_key_.find(k);
            if (it == var_of_key_.end()) continue;
            ++vars;
            bool own = false;
            for (auto& lp : c.loops) own |= lp->def == it->second;
            if (!own || (coef != 1 && coef != -1) || !used.insert(k).second) exact = false;
          }
          if (vars > 1) exact = false;
          auto lo = extreme(*l, -1), hi = extreme(*l, +1);
          if (!lo || !hi) {
            hull = false;
            break;
          }
          b.push_back(Interval{*lo, cover::add(*hi, cover::constant(1))});
        }
        for (size_t a = nidx; a < nslots; ++a) {
          b.push_back(Interval{cover::constant(0), std::nullopt});
          exact = false;
        }
        std::vector<cover::Leaf> leaves;
        if (hull) {
          leaves = cover::uncovered(cover::clip_to_allocation(b, boxes), boxes);
          if (leaves.empty()) continue;  // proven
        } else {
          exact = false;
        }
        if (joining) {
          cx_.join_requests.insert(t->name);
          continue;
        }
        bool certain = exact && hull;
        for (auto& lp : c.loops) {
          auto lo = lin(ir::loop_lo(lp)), hi = lin(ir::loop_hi(lp));
          certain = certain && lo && hi && cover::lt(*lo, *hi);
        }
        std::vector<Box> missing;
        for (auto& l : leaves)
          if (l.definite) missing.push_back(l.box);
        std::string read = cx_.sm.snippet(r.node->span);
        if (certain && !missing.empty()) {
          report(t, c, r.node, read, missing);
        } else if (exact && hull && boxes.size() <= 6) {
          head_checks.push_back(count_check(t, c, r.node, nidx, read, leaves));
        } else {
          inline_checks[r.node->id] = inline_check(t, clauses, c, r.node, nidx, read, leaves);
        }
      }
    }
    if (head_checks.empty() && inline_checks.empty()) return t;
    std::vector<NodeRef> kids;
    kids.push_back(ir::ltensor_shape(t));
    for (const NodeRef& k : ir::ltensor_stmts(t)) {
      if (k->kind != Kind::LCheck) break;
      kids.push_back(k);
    }
    for (auto& h : head_checks) kids.push_back(h);
    for (const NodeRef& k : ir::ltensor_stmts(t)) {
      if (k->kind == Kind::LCheck) continue;
      kids.push_back(inline_checks.empty() ? k : irb::replace_by_id(k, inline_checks));
    }
    return ir::with_kids(t, std::move(kids));
  }

  // ---- diagnostics and checks -------------------------------------------------------------------
  std::string help_for(const NodeRef& t, const Clause& c, const std::vector<Box>& points) {
    // No box when the read's index has no affine form this check follows (33 nested `-`:
    // the fuzzer's crash): a general help instead of reading points[0] of nothing.
    if (points.empty())
      return "define every point the clause reads with another clause of `" + t->name + "`";
    const Box& first = points[0];
    std::string slots;
    for (size_t a = 0; a < first.size(); ++a) {
      if (a) slots += ", ";
      const Interval& iv = first[a];
      std::string var = a < c.write.size() && c.write[a]->kind == Kind::Name ? c.write[a]->name
                                                                             : "i" + std::to_string(a);
      if (iv.hi && cover::diff(iv.lo, *iv.hi) == 1) slots += cover::spell(iv.lo);
      else slots += var + " in " + cover::spell(iv.lo) + ".." + (iv.hi ? cover::spell(*iv.hi) : "");
    }
    bool one = points.size() == 1 && [&] {
      for (auto& iv : first)
        if (!iv.hi || cover::diff(iv.lo, *iv.hi) != 1) return false;
      return true;
    }();
    return std::string(one ? "define it" : "define them") + " with another clause of `" + t->name +
           "`, e.g. `let " + t->name + "[" + slots + "] = ...;`, in the same cell or, in a session, " +
           "in the cell right before this one (clauses typed in consecutive cells join into one " +
           "definition)";
  }

  std::string points_text(const NodeRef& t, const std::vector<Box>& boxes) {
    std::string s;
    for (size_t i = 0; i < boxes.size() && i < 4; ++i)
      s += (i ? (i + 1 == boxes.size() ? " and " : ", ") : "") + cover::spell_points(t->name, boxes[i]);
    if (boxes.size() > 4) s += " and more";
    return s;
  }

  void report(const NodeRef& t, const Clause& c, const NodeRef& read, const std::string& text,
              const std::vector<Box>& missing) {
    cx_.error("E012", "`" + text + "` reads " + points_text(t, missing) + ", which no clause of `" +
                          t->name + "` defines",
              read->span, "missing base case", help_for(t, c, missing));
  }

  // The run-time check of a read that may reach an undefined point: message and help line.
  NodeRef runtime_check(const NodeRef& t, const Clause& c, const std::string& read,
                        const std::vector<cover::Leaf>& leaves, const NodeRef& ok, Span at) {
    std::vector<Box> b;
    for (auto& l : leaves) b.push_back(l.box);
    return irb::check("E012",
                      "`" + read + "` reads a point of `" + t->name + "` that no clause defines (a missing base case)",
                      "the points not proven defined are " + points_text(t, b) + "; " + help_for(t, c, b), ok, at);
  }

  // Points of the box [lo, hi) per axis, as IR: prod(max(0, hi - lo)).
  static NodeRef count(const std::vector<std::pair<NodeRef, NodeRef>>& box) {
    NodeRef n;
    for (auto& [lo, hi] : box) {
      NodeRef len = ir::make({.kind = Kind::IMax, .kids = {irb::lit(0), ir::make_binary(ir::BinOp::Sub, hi, lo)}});
      n = n ? ir::make_binary(ir::BinOp::Mul, n, len) : len;
    }
    return n ? n : irb::lit(1);
  }

  // One test before the clauses run: the read's points inside the allocation are all covered,
  // counted by inclusion-exclusion over the clauses' boxes (or the clause runs zero times).
  NodeRef count_check(const NodeRef& t, const Clause& c, const NodeRef& read, size_t nidx,
                      const std::string& text, const std::vector<cover::Leaf>& leaves) {
    std::vector<std::pair<NodeRef, NodeRef>> b;
    for (size_t a = 0; a < nidx; ++a) {
      auto l = lin(ir::index_args(read)[a]);
      Lin lo = *extreme(*l, -1), hi = cover::add(*extreme(*l, +1), cover::constant(1));
      NodeRef ext = wide(ir::lshape_extents(ir::ltensor_shape(t))[a]);
      b.emplace_back(ir::make({.kind = Kind::IMax, .kids = {irb::lit(0), wide(cover::to_ir(lo))}}),
                     ir::make({.kind = Kind::IMin, .kids = {ext, wide(cover::to_ir(hi))}}));
    }
    std::vector<const Clause*> cl;
    for (auto& k : all_) cl.push_back(&k);
    NodeRef covered;
    for (uint32_t mask = 1; mask < (1u << cl.size()); ++mask) {
      std::vector<std::pair<NodeRef, NodeRef>> s = b;
      int bits = 0;
      for (size_t i = 0; i < cl.size(); ++i) {
        if (!(mask & (1u << i))) continue;
        ++bits;
        for (size_t a = 0; a < nidx; ++a) {
          s[a].first = ir::make({.kind = Kind::IMax, .kids = {s[a].first, wide(cl[i]->bounds[a].first)}});
          s[a].second = ir::make({.kind = Kind::IMin, .kids = {s[a].second, wide(cl[i]->bounds[a].second)}});
        }
      }
      NodeRef term = count(s);
      if (!covered) covered = term;
      else covered = ir::make_binary(bits % 2 ? ir::BinOp::Add : ir::BinOp::Sub, covered, term);
    }
    NodeRef ok = ir::make_binary(ir::BinOp::Eq, count(b), covered);
    for (auto& lp : c.loops)
      ok = ir::make_binary(ir::BinOp::Or, ir::make_binary(ir::BinOp::Ge, wide(ir::loop_lo(lp)), wide(ir::loop_hi(lp))), ok);
    type_bools(ok);
    return runtime_check(t, c, text, leaves, ok, read->span);
  }

  // Checked where the read happens: outside the allocation (left to E005) or inside a clause.
  NodeRef inline_check(const NodeRef& t, const std::vector<Clause>& clauses, const Clause& reader,
                       const NodeRef& read,
                       size_t nidx, const std::string& text, const std::vector<cover::Leaf>& leaves) {
    std::vector<NodeRef> idx;
    for (size_t a = 0; a < nidx; ++a) idx.push_back(wide(ir::index_args(read)[a]));
    size_t nslots = ir::lshape_extents_count(ir::ltensor_shape(t));
    NodeRef ok;
    auto any = [&](NodeRef& acc, NodeRef x) { acc = acc ? ir::make_binary(ir::BinOp::Or, acc, x) : x; };
    auto all = [&](NodeRef& acc, NodeRef x) { acc = acc ? ir::make_binary(ir::BinOp::And, acc, x) : x; };
    for (size_t a = 0; a < nidx; ++a) {
      any(ok, ir::make_binary(ir::BinOp::Lt, idx[a], irb::lit(0)));
      any(ok, ir::make_binary(ir::BinOp::Ge, idx[a], wide(ir::lshape_extents(ir::ltensor_shape(t))[a])));
    }
    for (auto& c : clauses) {
      if (!c.analysable) continue;
      std::unordered_map<DefId, NodeRef> at;  // the clause's loop variables at the read point
      for (size_t a = 0; a < c.write.size() && a < nidx; ++a)
        if (c.write[a]->kind == Kind::Name) at[c.write[a]->def] = idx[a];
      NodeRef in;
      bool usable = true;
      for (size_t a = 0; a < nslots && a < c.bounds.size(); ++a) {
        NodeRef lo = substitute(c.bounds[a].first, at, usable), hi = substitute(c.bounds[a].second, at, usable);
        if (a < nidx) {
          all(in, ir::make_binary(ir::BinOp::Le, wide(lo), idx[a]));
          all(in, ir::make_binary(ir::BinOp::Lt, idx[a], wide(hi)));
        } else {  // a whole row is read: this clause must span the axis
          all(in, ir::make_binary(ir::BinOp::Le, wide(lo), irb::lit(0)));
          all(in, ir::make_binary(ir::BinOp::Ge, wide(hi), wide(ir::lshape_extents(ir::ltensor_shape(t))[a])));
        }
      }
      if (usable && in) any(ok, in);
    }
    if (!ok) ok = ir::make_bool(false);
    type_bools(ok);
    NodeRef check = runtime_check(t, reader, text, leaves, ok, read->span);
    NodeRef block = ir::make({.kind = Kind::Block, .span = read->span, .kids = {check, read},
                              .flags = ir::kHasTail});
    u_.types[block->id] = u_.type(read);
    return block;
  }

  NodeRef substitute(const NodeRef& e, const std::unordered_map<DefId, NodeRef>& at, bool& usable) {
    struct Sub : ir::Mutator {
      const std::unordered_map<DefId, NodeRef>& at;
      const std::unordered_map<DefId, Loop>& loops;
      bool& usable;
      Sub(const std::unordered_map<DefId, NodeRef>& a, const std::unordered_map<DefId, Loop>& l, bool& u)
          : at(a), loops(l), usable(u) {}
      NodeRef pre(const NodeRef& n) override {
        if (n->kind != Kind::Name) return nullptr;
        if (auto it = at.find(n->def); it != at.end()) return it->second;
        if (loops.count(n->def)) usable = false;  // another clause's variable, not known here
        return nullptr;
      }
    } s(at, loops_, usable);
    return s.mutate(e);
  }

  void type_bools(const NodeRef& e) {
    ir::for_each_node(e, [&](const NodeRef& n) {
      if (n->kind != Kind::Binary) return;
      auto op = static_cast<ir::BinOp>(n->ival);
      if (op >= ir::BinOp::Eq && op <= ir::BinOp::Or) u_.types[n->id] = ir::t_bool();
    });
  }

  CompileCtx& cx_;
  Unit& u_;
  std::unordered_set<uint32_t> top_;  // LTensors that are top-level statements of the cell
  DefId self_;
  std::unordered_map<DefId, Loop> loops_;
  std::unordered_map<std::string, DefId> var_of_key_;
  std::unordered_map<DefId, NodeRef> alias_;
  std::unordered_set<DefId> inner_;
  std::vector<Clause> all_;
};

}  // namespace

void recurrence_cover(CompileCtx& cx) {
  for (auto& u : cx.units) {
    if (!u->lowered) continue;
    std::unordered_set<uint32_t> top;
    if (u.get() == &cx.cell() && u->lowered->kind == Kind::Program)
      for (auto& s : u->lowered->kids)
        if (s && s->kind == Kind::LTensor) top.insert(s->id);
    Cover c(cx, *u, std::move(top));
    u->lowered = c.mutate(u->lowered);
  }
}

}  // namespace ein
