#include "lang/passes/contraction_plan.h"

#include <algorithm>
#include <functional>

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/contraction_path.h"
#include "lang/passes/int_fold.h"

namespace ein {

using ir::BinOp;
using ir::DefId;
using ir::Kind;
using ir::NodeRef;

namespace {

bool contains(const std::vector<DefId>& v, DefId d) { return std::find(v.begin(), v.end(), d) != v.end(); }

bool parallel_loop(const NodeRef& n) {
  return n && n->kind == Kind::LFor && n->has(ir::kParallel) && !n->has(ir::kSequential) && !n->has(ir::kReverse);
}

// A value with no reads, reductions or calls, using no variable of `inner` (`len(X)` and
// `len(X[0])` of outer names count as extents).
bool invariant_value(const NodeRef& e, const std::vector<DefId>& inner) {
  if (!e) return true;
  if (is_len_call(e)) {
    const NodeRef& a = ir::call_args(*e)[0];
    return !contains(inner, (a->kind == Kind::Name ? a : ir::index_base(a))->def);
  }
  if (e->kind == Kind::Index || e->kind == Kind::LReduce || e->kind == Kind::Call || e->kind == Kind::Block ||
      e->kind == Kind::If || e->kind == Kind::LLetIn)
    return false;
  if ((e->kind == Kind::Name || e->kind == Kind::Path) && contains(inner, e->def)) return false;
  for (const NodeRef& k : e->kids)
    if (!invariant_value(k, inner)) return false;
  return true;
}

class Planner {
 public:
  Planner(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

  void run() { visit(u_.lowered, nullptr); }

 private:
  void visit(const NodeRef& n, const NodeRef& tensor) {
    if (!n || n->kind == Kind::Lambda) return;
    if (n->kind == Kind::LTensor) {
      for (auto& k : n->kids) visit(k, n);
      return;
    }
    if (parallel_loop(n)) {
      std::vector<NodeRef> loops;
      NodeRef cur = n;
      while (parallel_loop(cur)) {
        loops.push_back(cur);
        cur = ir::lfor_body(cur);
      }
      if (tensor) nest(tensor, loops, cur);
      visit(cur, tensor);
      return;
    }
    for (auto& k : n->kids) visit(k, tensor);
  }

  // Reductions evaluated at every point of the nest (not under a branch or inside another
  // reduction): those can be computed for all points first.
  // Reductions under an `if` expression's branches go to `branch` (when given): like a
  // piecewise clause's, they are computed for every point and read where their branch runs.
  void unconditional(const NodeRef& e, std::vector<NodeRef>& out, std::vector<NodeRef>* branch = nullptr) {
    if (!e) return;
    switch (e->kind) {
      case Kind::LReduce: out.push_back(e); return;
      case Kind::If:
        if (!branch) return;
        unconditional(ir::if_cond(e), out, branch);
        unconditional(ir::if_then(e), *branch, branch);
        if (ir::if_else(e)) unconditional(ir::if_else(e), *branch, branch);
        return;
      case Kind::Binary: {
        auto b = static_cast<BinOp>(e->ival);
        if (b == BinOp::And || b == BinOp::Or) return;
        break;
      }
      case Kind::Unary:
      case Kind::Cast:
      case Kind::Call:
      case Kind::LLetIn:
      case Kind::Block:  // its statements and tail run at every point, in order
      case Kind::Let: break;
      default: return;
    }
    for (auto& k : e->kids) unconditional(k, out, branch);
  }

  void nest(const NodeRef& tensor, const std::vector<NodeRef>& loops, const NodeRef& body) {
    std::vector<DefId> vars;
    for (auto& l : loops) {
      if (ir::lfor_lo(l)->kind != Kind::IntLit || ir::lfor_lo(l)->ival != 0) return;
      vars.push_back(l->def);
    }
    for (auto& l : loops)
      if (!invariant_value(ir::lfor_hi(l), vars)) return;  // a triangular nest
    // The body: where-lets, then one store into the tensor.
    std::vector<NodeRef> parts;
    if (body->kind == Kind::LSeq) parts.assign(body->kids.begin(), body->kids.end());
    else parts.push_back(body);
    if (parts.empty()) return;
    for (size_t i = 0; i + 1 < parts.size(); ++i)
      if (parts[i]->kind != Kind::LLet) return;
    // One store into the tensor, or a piecewise clause (`where cond else v`, if/else chains):
    // branches that each store into it. A contraction under a branch is computed for every
    // point, the branch then reads it where it runs: float and wrapping-integer products cannot
    // fail, and codegen checks the operands' extents at run time (ContractionPlan::guarded).
    // A path that stores nothing leaves its point as it was (0): then the contraction must not
    // be computed into the tensor itself.
    std::vector<NodeRef> stores;
    bool guarded = false, ok = true, every_path = true;
    std::function<void(const NodeRef&)> branches = [&](const NodeRef& s) {
      if (s->kind == Kind::LStore && s->def == tensor->def) {
        stores.push_back(s);
      } else if (s->kind == Kind::LIf) {
        guarded = true;
        branches(ir::lif_then(s));
        if (ir::lif_else(s)) branches(ir::lif_else(s));
        else every_path = false;
      } else {
        ok = false;
      }
    };
    branches(parts.back());
    if (!ok || stores.empty()) return;
    in_place_ok_ = every_path;
    dest_taken_ = false;
    for (size_t s = 0; s < stores.size(); ++s) {
      std::vector<NodeRef> reds, in_branches;
      if (s == 0)
        for (size_t i = 0; i + 1 < parts.size(); ++i) unconditional(ir::llet_value(parts[i]), reds, &in_branches);
      unconditional(ir::lstore_value(stores[s]), reds, &in_branches);
      for (auto& r : reds) plan(tensor, loops, vars, parts, stores[s], r, guarded);
      for (auto& r : in_branches) plan(tensor, loops, vars, parts, stores[s], r, true);
    }
  }

  void plan(const NodeRef& tensor, const std::vector<NodeRef>& loops, const std::vector<DefId>& vars,
            const std::vector<NodeRef>& parts, const NodeRef& store, const NodeRef& r, bool guarded) {
    // Where-lets of the nest change at every point, like its variables.
    std::vector<DefId> locals;
    for (auto& q : parts) {
      if (q->kind == Kind::LLet) locals.push_back(q->def);
      // block-local lets and arrays: `{ let s = X[i]; .. }`, `{ let r[k] = ..; sum[k](r[k] * W[k, j]) }`
      ir::for_each_node(q, [&](const NodeRef& x) {
        if (x->kind == Kind::PBind || x->kind == Kind::LLetIn || x->kind == Kind::LTensor) locals.push_back(x->def);
      });
    }
    bool local = false;
    ir::for_each_node(r, [&](const NodeRef& x) {
      if ((x->kind == Kind::Name || x->kind == Kind::Path) && contains(locals, x->def)) local = true;
    });
    if (local) return;
    auto m = match_contraction(r, vars, &u_, /*gather=*/true);
    if (!m) return;
    // Computed operands first, kept only when they make a BLAS call (plan_one leaves no plan
    // otherwise: they are packed copies, for nothing else).
    if (m->grouped) {
      Contraction g = std::move(*m->grouped);
      m->grouped.reset();
      plan_one(std::move(g), tensor, loops, vars, parts, store, r, guarded);
      if (u_.contractions.count(r->id)) return;
    }
    plan_one(std::move(*m), tensor, loops, vars, parts, store, r, guarded);
  }

  void plan_one(Contraction cm, const NodeRef& tensor, const std::vector<NodeRef>& loops,
                const std::vector<DefId>& vars, const std::vector<NodeRef>& parts, const NodeRef& store,
                const NodeRef& r, bool guarded) {
    Contraction* c = &cm;
    // (A reduction using every variable of the nest gains nothing from being computed first;
    // one using none is hoisted by codegen's loop-invariant code motion.)
    const bool partial_ok = !c->free.empty() && (c->free.size() < vars.size() || columns(*c));
    if (c->operands.size() < 2) {
      if (partial_ok) partial(std::move(*c), loops, vars, guarded);
      return;
    }
    // A sum starting above 0 (over t in 1..T) is read through packed copies only: every read
    // that uses such a variable becomes one, and only a BLAS plan over them is kept.
    if (c->offset()) {
      if (c->operands.size() != 2 || !c->product) return;
      for (auto& o : c->operands) {
        bool uses_offset = false;
        for (size_t i = 0; i < c->summed.size(); ++i) uses_offset = uses_offset || (c->summed_lo[i] != 0 && o.uses(c->summed[i]));
        if (!uses_offset || o.gathered) continue;
        std::vector<DefId> vs;
        for (DefId d : o.axes)
          if (d.valid()) vs.push_back(d);
        o.axes = vs;
        o.gathered = true;
      }
    }
    const bool many = c->operands.size() > 2;
    bool gathered = false;
    for (auto& o : c->operands) gathered = gathered || o.gathered;
    if (gathered && (guarded || !c->product)) return;
    auto p = std::make_shared<ContractionPlan>();
    p->c = std::move(*c);
    p->nest_root = loops.front()->id;
    p->nest = vars;
    p->dest = p->c.free;
    p->guarded = guarded;
    DType rdt = r->dt >= 0 ? static_cast<DType>(r->dt) : DType::Bool;
    if (rdt == DType::Bool || rdt == DType::F16 || rdt == DType::BF16) return;
    // In place: the store writes exactly the contraction's points, in some axis order.
    bool self_read = false;
    for (auto& q : parts)
      ir::for_each_node(q, [&](const NodeRef& x) {
        if (x->kind == Kind::Index && ir::index_base(x)->kind == Kind::Name && ir::index_base(x)->def == tensor->def) self_read = true;
      });
    std::vector<DefId> at;
    for (const NodeRef& ix : ir::lstore_index(store))
      if (ix->kind == Kind::Name && contains(vars, ix->def) && !contains(at, ix->def)) at.push_back(ix->def);
    if (at.size() == ir::lstore_index_count(store) && at.size() == vars.size() && p->c.free.size() == vars.size() &&
        !self_read && in_place_ok_ && !dest_taken_ && !tensor->has(ir::kWindowed) && !tensor->has(ir::kHasElem) &&
        static_cast<DType>(tensor->ival) == rdt) {
      p->in_place = true;
      p->dest = at;
    }
    if (p->in_place && parts.size() == 1 && !guarded) whole(*p, ir::lstore_value(store));
    // Result layouts to try: the tensor's (in place), then scratch laid out for the kernel —
    // batch variables first, then each operand's own variables in its axis order.
    const auto& ops = p->c.operands;
    std::vector<std::vector<DefId>> layouts;
    if (p->in_place) layouts.push_back(p->dest);
    layouts.push_back(p->c.free);
    for (int first = 0; first < 2; ++first) {
      std::vector<DefId> l;
      for (DefId d : p->c.free)
        if (ops[0].uses(d) && ops[1].uses(d)) l.push_back(d);
      for (int o : {first, 1 - first})
        for (DefId d : ops[static_cast<size_t>(o)].axes)
          if (d.valid() && contains(p->c.free, d) && !contains(l, d)) l.push_back(d);
      layouts.push_back(l);
    }
    auto choose = [&](const std::vector<DefId>& l) {
      if (p->in_place && l != layouts[0]) {
        p->in_place = false;
        p->whole = false;
        p->alpha.clear();
        p->divisor = nullptr;
      }
      p->dest = l;
      u_.contractions[r->id] = p;
      dest_taken_ = dest_taken_ || p->in_place;
    };
    // BLAS: a float product of two operands of the result's type with a GEMM layout.
    bool float_operands = rdt == DType::F32 || rdt == DType::F64;
    for (auto& o : ops) float_operands = float_operands && (o.value ? o.value : o.read)->dt == static_cast<int8_t>(rdt);
    for (auto& s : p->c.scalars) float_operands = float_operands && s->dt == static_cast<int8_t>(rdt);
    if (many) {
      if (gathered || !float_operands || !p->c.product) return;
      // Fixed subscripts only before the variables (`h[t - 1, k]`): the rest is a block.
      for (auto& o : ops)
        for (size_t a = 1; a < o.axes.size(); ++a)
          if (!o.axes[a].valid() && o.axes[a - 1].valid()) return;
      // Extents not known before the run count as 16.
      std::unordered_map<DefId, double> extents;
      auto known = [&](DefId d, const NodeRef& hi) {
        auto v = fold_int(cx_, u_, hi);
        extents[d] = v && *v > 0 ? static_cast<double>(*v) : 16.0;
      };
      for (auto& l : loops) known(l->def, ir::lfor_hi(l));
      for (const NodeRef& v : ir::lreduce_items(p->c.reduce)) known(v->def, ir::loopvar_hi(v));
      if (!factor_path(*p, std::move(extents))) return;
      p->kernel = ContractionKernel::Factorised;
      if (p->in_place && p->whole) mode_chain(*p);
      // The last step writes the tensor in its own order, or scratch in the step's order.
      return choose(p->in_place ? layouts[0] : p->path.back().keep);
    }
    // A window against a filter that uses no free variable (a correlation `w[k] * x[i + k]`,
    // per batch row): a gathered copy would feed a GEMV that reads each copied value once, so
    // the column blocks read the window in place instead. Only where that copy would be made:
    // a window the plan leaves to the loops (a 3 x 3 stencil-like filter, whose short constant
    // loops the compiler unrolls along the row) stays there — column blocks measured 2-3x slower.
    bool filter = gathered && float_operands && p->c.product;
    for (auto& o : ops)
      for (DefId d : p->c.free)
        if (!o.gathered && o.uses(d)) filter = false;
    if (filter && !guarded && columns(p->c)) {
      bool copy = false;
      for (auto& l : layouts) copy = copy || gemm_shape(p->c, l).has_value();
      if (copy) return partial(std::move(p->c), loops, vars, guarded, /*windows=*/true);
    }
    if (float_operands && p->c.product)
      for (auto& l : layouts)
        if (auto g = gemm_shape(p->c, l)) {
          p->kernel = ContractionKernel::Blas;
          p->gemm = *g;
          return choose(l);
        }
    // A float product of plain reads whose layouts make no GEMM (`att[h, t, e] · Wo[h, e, d]`
    // summed over h and e: t sits between them) packs one operand, then both, into a layout
    // that does — a copy of the operand against a GEMM over it.
    if (!gathered && !guarded && float_operands && p->c.product) {
      for (int mask : {1, 2, 3}) {
        auto saved = p->c.operands;
        for (size_t i = 0; i < 2; ++i)
          if (mask & (1 << i)) {
            auto& o = p->c.operands[i];
            std::vector<DefId> vars;
            for (DefId d : o.axes)
              if (d.valid()) vars.push_back(d);
            o.axes = vars;
            o.gathered = true;
          }
        if (try_gathered(*p, layouts, choose)) return;
        p->c.operands = saved;
      }
    }
    if (gathered) {
      if (float_operands) try_gathered(*p, layouts, choose);
      return;
    }
    // Tiled: the operand that has the result's innermost variable gives the columns.
    for (DefId s : p->c.summed)
      if (!ops[0].uses(s) || !ops[1].uses(s)) {
        if (partial_ok) partial(std::move(p->c), loops, vars, guarded);
        return;
      }
    for (auto& l : layouts) {
      if (l.empty()) return;
      DefId inner = l.back();
      if (ops[0].uses(inner) == ops[1].uses(inner)) continue;
      p->y = ops[0].uses(inner) ? 0 : 1;
      p->x = 1 - p->y;
      p->kernel = ContractionKernel::Tiled;
      return choose(l);
    }
    if (partial_ok) partial(std::move(p->c), loops, vars, guarded);
  }

  // `windows`: gathered reads are allowed, evaluated in place by the column blocks.
  void partial(Contraction c, const std::vector<NodeRef>& loops, const std::vector<DefId>& vars, bool guarded,
               bool windows = false) {
    for (auto& o : c.operands)
      if ((o.gathered && !windows) || o.value) return;
    if (c.offset()) return;
    DType rdt = c.reduce->dt >= 0 ? static_cast<DType>(c.reduce->dt) : DType::Bool;
    if (rdt == DType::Bool || rdt == DType::F16 || rdt == DType::BF16) return;
    auto p = std::make_shared<ContractionPlan>();
    p->c = std::move(c);
    p->kernel = ContractionKernel::Partial;
    p->nest_root = loops.front()->id;
    p->nest = vars;
    p->dest = p->c.free;
    p->guarded = guarded;
    p->columns = columns(p->c);
    u_.contractions[p->c.reduce->id] = p;
  }

  // Every read has a variable on its last (unit-stride) axis, none of them summed, and one of
  // them is the innermost free variable: per point, the reduction would walk a column.
  //
  // Also a window read (a correlation's `x[i + k]`, `x[c, t + k]`) whose last subscript moves
  // one element per step of the innermost free variable and whose other subscripts do not
  // use it, next to reads that do not use that variable at all (the filter `w[k]`): the blocks
  // then read the window contiguously and the filter as a broadcast, so a short reduction no
  // longer is the only vectorised loop.
  static bool mentions(const NodeRef& e, DefId d) { return ir::mentions(e, d); }
  static bool unit_in(const NodeRef& e, DefId d) {
    if (e->kind == Kind::Name) return e->def == d;
    if (e->kind != Kind::Binary) return false;
    auto b = static_cast<BinOp>(e->ival);
    const NodeRef& l = ir::bin_lhs(e);
    const NodeRef& r = ir::bin_rhs(e);
    if (b == BinOp::Add) return (unit_in(l, d) && !mentions(r, d)) || (unit_in(r, d) && !mentions(l, d));
    if (b == BinOp::Sub) return unit_in(l, d) && !mentions(r, d);
    return false;
  }
  static bool columns(const Contraction& c) {
    if (c.free.empty()) return false;
    const DefId j = c.free.back();
    bool hit = false, window = false, flat = true;  // flat: every read keeps a free variable last
    for (auto& o : c.operands) {
      if (o.value) return false;
      if (o.gathered) {
        const auto args = ir::index_args(o.read);
        if (args.empty() || !unit_in(args.back(), j)) return false;
        for (size_t a = 0; a + 1 < args.size(); ++a)
          if (mentions(args[a], j)) return false;
        hit = window = true;
        continue;
      }
      if (!o.axes.empty() && o.axes.back().valid() && !contains(c.summed, o.axes.back())) {
        hit = hit || o.axes.back() == j;
        continue;
      }
      if (o.uses(j)) return false;
      flat = false;
    }
    return hit && (flat || window);
  }


  // Gathered operands: a packed copy can take any axis order — the first (in the
  // permutations' order) that makes a GEMM. Only a GEMM is worth the copy (a GEMV reads each
  // packed value once: a stencil with a small filter stays a loop nest); codegen also wants
  // M·N·K ≥ 16 × the copy.
  bool try_gathered(ContractionPlan& p, const std::vector<std::vector<DefId>>& layouts,
                    const std::function<void(const std::vector<DefId>&)>& choose) {
    std::vector<size_t> gs;
    for (size_t i = 0; i < p.c.operands.size(); ++i)
      if (p.c.operands[i].gathered && p.c.operands[i].axes.size() > 5) return grouped_gather(p, layouts, choose);
    for (size_t i = 0; i < p.c.operands.size(); ++i)
      if (p.c.operands[i].gathered) {
        gs.push_back(i);
        std::sort(p.c.operands[i].axes.begin(), p.c.operands[i].axes.end());
      }
    // Of the orders that make a GEMM, the one whose copy reads the source along its contiguous
    // axis: the packed copy's last axis a variable of the read's last subscript, best a free one
    // (`I[c, y + a, x + b]` packed [c, a, b, y, x]: runs of x, not of the 3 taps b; the copy
    // of a 3 x 3 convolution's 16 x 64 x 64 input was a strided read per value). Ties keep the
    // first order found (permutation order), as before; the search stops at the best score.
    auto score = [&]() {
      int sc = 0;
      for (size_t i : gs) {
        const ContractionOperand& o = p.c.operands[i];
        const auto& subs = ir::index_args(o.read);
        if (o.value || o.axes.empty() || subs.empty() || !mentions(subs.back(), o.axes.back())) continue;
        sc += contains(p.c.summed, o.axes.back()) ? 1 : 2;
      }
      return sc;
    };
    const int best_possible = 2 * static_cast<int>(gs.size());
    int best = -1, tried = 0;
    std::vector<std::vector<DefId>> best_axes;
    std::optional<GemmShape> best_gemm;
    std::vector<DefId> best_layout;
    std::function<bool(size_t)> perms = [&](size_t at) {
      if (at == gs.size()) {
        ++tried;
        for (auto& l : layouts)
          if (auto g = gemm_shape(p.c, l); g && !g->m.empty() && !g->n.empty()) {
            int sc = score();
            if (sc > best) {
              best = sc;
              best_gemm = *g;
              best_layout = l;
              best_axes.clear();
              for (size_t i : gs) best_axes.push_back(p.c.operands[i].axes);
            }
            return best >= best_possible || tried > 5000;
          }
        return tried > 5000;
      }
      auto& axes = p.c.operands[gs[at]].axes;
      do {
        if (perms(at + 1)) return true;
      } while (std::next_permutation(axes.begin(), axes.end()));
      return false;
    };
    perms(0);
    if (best < 0) return false;
    for (size_t j = 0; j < gs.size(); ++j) p.c.operands[gs[j]].axes = best_axes[j];
    p.kernel = ContractionKernel::Blas;
    p.gemm = *best_gemm;
    choose(best_layout);
    return true;
  }

  // A gathered read of six or more variables (a batched multi-channel 2-D convolution
  // `x[n, c, h + i, w + j]` against `W[k, c, i, j]`) has too many orders to try them all; the
  // ones a GEMM can use are built instead: per result layout, the batch variables (shared with
  // the other operand) in the layout's order, then the summed ones in the other operand's order
  // and the other free ones in the layout's order, or those two groups swapped. Only with one
  // gathered operand (the other's order is the reference).
  bool grouped_gather(ContractionPlan& p, const std::vector<std::vector<DefId>>& layouts,
                      const std::function<void(const std::vector<DefId>&)>& choose) {
    if (p.c.operands.size() != 2 || p.c.operands[0].gathered == p.c.operands[1].gathered) return false;
    size_t gi = p.c.operands[0].gathered ? 0 : 1;
    const ContractionOperand& other = p.c.operands[1 - gi];
    const std::vector<DefId> vars = p.c.operands[gi].axes;
    std::vector<DefId> ks;
    for (DefId d : other.axes)
      if (d.valid() && contains(p.c.summed, d) && contains(vars, d)) ks.push_back(d);
    for (DefId d : vars)
      if (contains(p.c.summed, d) && !contains(ks, d)) return false;  // summed in this read only
    for (auto& l : layouts) {
      std::vector<DefId> batch, ms;
      for (DefId d : l)
        if (contains(vars, d)) (other.uses(d) ? batch : ms).push_back(d);
      if (batch.size() + ms.size() + ks.size() != vars.size()) continue;
      for (int kfirst = 0; kfirst < 2; ++kfirst) {
        std::vector<DefId> order = batch;
        const auto& g1 = kfirst ? ks : ms;
        const auto& g2 = kfirst ? ms : ks;
        order.insert(order.end(), g1.begin(), g1.end());
        order.insert(order.end(), g2.begin(), g2.end());
        p.c.operands[gi].axes = order;
        if (auto g = gemm_shape(p.c, l); g && !g->m.empty() && !g->n.empty()) {
          p.kernel = ContractionKernel::Blas;
          p.gemm = *g;
          choose(l);
          return true;
        }
      }
    }
    p.c.operands[gi].axes = vars;
    return false;
  }

  // The store value is R times invariant factors, or R divided by one.
  void whole(ContractionPlan& p, const NodeRef& v) {
    const NodeRef& r = p.c.reduce;
    std::vector<DefId> inner = p.nest;
    if (v == r) {
      p.whole = true;
      return;
    }
    if (v->kind == Kind::Binary && static_cast<BinOp>(v->ival) == BinOp::Div && ir::bin_lhs(v) == r &&
        invariant_value(ir::bin_rhs(v), inner) && ir::bin_rhs(v)->dt == r->dt) {
      p.whole = true;
      p.divisor = ir::bin_rhs(v);
      return;
    }
    std::vector<NodeRef> fs;
    mul_factors(v, fs);
    bool seen = false;
    std::vector<NodeRef> alpha;
    for (auto& f : fs) {
      if (f == r && !seen) seen = true;
      else if (invariant_value(f, inner) && f->dt == r->dt) alpha.push_back(f);
      else return;
    }
    if (!seen) return;
    p.whole = true;
    p.alpha = std::move(alpha);
  }

  CompileCtx& cx_;
  Unit& u_;
  bool in_place_ok_ = true;  // of the nest being planned
  // The tensor holds one contraction's results at a time: a second one in the same nest
  // (`sum(..) + sum(..)`, one per branch) would overwrite the first before the loops read it.
  bool dest_taken_ = false;
};

}  // namespace

void contraction_plan(CompileCtx& cx) {
  for (auto& u : cx.units) {
    u->contractions.clear();
    if (!u->lowered) continue;
    Planner p(cx, *u);
    p.run();
    // After the planner: a plan's dest may change until it is done.
    for (auto& [id, plan] : u->contractions) {
      if (plan->kernel != ContractionKernel::Factorised) continue;
      auto done = std::make_shared<ContractionPlan>(*plan);
      plan_step_gemms(*done);
      plan = done;
    }
  }
}

std::string describe_contractions(const Unit& u) {
  std::string out;
  std::vector<std::pair<uint32_t, const ContractionPlan*>> all;
  for (auto& [id, p] : u.contractions) all.emplace_back(id, p.get());
  std::sort(all.begin(), all.end());
  for (auto& [id, p] : all) {
    const auto nm = variable_names(p->c);
    std::string s = std::string(ir::reduce_op_name(p->c.op)) + "[" + names(p->c.summed, nm) + "](" +
                    contraction_text(p->c) + ")";
    std::string how;
    if (p->kernel == ContractionKernel::Blas) {
      const GemmShape& g = p->gemm;
      bool gemv = g.m.empty() || g.n.empty();
      how = std::string(gemv ? "BLAS gemv" : "BLAS gemm") + " m=[" + names(g.m, nm) + "] n=[" + names(g.n, nm) +
            "] k=[" + names(g.k, nm) + "]" + (g.batch.empty() ? "" : " batch=[" + names(g.batch, nm) + "]") +
            (g.ta ? " Aᵀ" : "") + (g.tb ? " Bᵀ" : "");
    } else if (p->kernel == ContractionKernel::Partial) {
      how = "computed once per point of [" + names(p->c.free, nm) + "]" +
            (p->columns ? " with the summed variables outside and " + names({p->c.free.back()}, nm) +
                              " innermost (contiguous reads, the interpreter's order per point)"
                        : " (not of the whole nest)");
    } else if (p->kernel == ContractionKernel::Factorised) {
      how = describe_path(*p) + " (a GEMM/GEMV step when the extents are the arrays' own, else loops), cost " +
            std::to_string(static_cast<long long>(p->path_cost)) + " instead of " +
            std::to_string(static_cast<long long>(p->naive_cost));
      if (p->chain_core >= 0)
        how += ", first tried as " + std::to_string(p->chain.size()) + " mode products of " +
               ir::index_base(p->c.operands[static_cast<size_t>(p->chain_core)].read)->name +
               " (one GEMM each, when the extents are the arrays' own)";
    } else {
      how = "register-tiled, columns from " + ir::index_base(p->c.operands[static_cast<size_t>(p->y)].read)->name;
    }
    for (auto& o : p->c.operands)
      if (o.value) how += ", the factors over [" + names(o.axes, nm) + "] multiplied into a packed copy first";
      else if (o.gathered) how += ", " + ir::index_base(o.read)->name + " gathered into [" + names(o.axes, nm) + "] first";
    out += ";;   contraction " + s + ": " + how + ", into " +
           (p->in_place ? std::string("the tensor") : "scratch [" + names(p->dest, nm) + "]") +
           (p->whole ? " (whole store value)" : ", then the loops") +
           (p->guarded ? " (piecewise: computed at every point, read where its branch runs)" : "") + "\n";
  }
  return out;
}

}  // namespace ein
