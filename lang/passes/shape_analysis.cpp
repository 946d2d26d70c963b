#include "lang/passes/shape_analysis.h"

#include <algorithm>

#include "lang/ir/kid_families.h"
#include "lang/ir/member_field.h"
#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/int_fold.h"
#include "lang/passes/ir_build.h"
#include "lang/resolve/builtins.h"

namespace ein {
namespace {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;
using Shape = std::optional<StaticShape>;

std::string show_shape(const StaticShape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + (s[i] < 0 ? std::string("?") : std::to_string(s[i]));
  return r + "]";
}

class ShapeWalker {
 public:
  ShapeWalker(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

  void run() {
    const NodeRef& b = u_.body;
    if (b->kind == Kind::Program) {
      stmts(b);
    } else if (b->kind == Kind::Fn || b->kind == Kind::DiffFn || b->kind == Kind::Lambda) {
      // Parameters keep extents a call-site check put there; otherwise only their rank is known.
      for (size_t i = 0; i < u_.params.size(); ++i)
        if (!u_.def_shapes.count(u_.params[i])) set_def(u_.params[i], by_type(u_.param_types[i]));
      shape(b->kind == Kind::Lambda ? ir::lambda_body(*b) : ir::fn_body(*b));
    }
  }

  std::optional<int64_t> fold(const NodeRef& e) const { return fold_int(cx_, u_, e); }

 private:
  Shape by_type(const ir::TypeRef& t) const { return shape_of_type(t); }
  Shape def_shape(DefId d) const { return known_def_shape(cx_, u_, d); }

  void set_def(DefId d, const Shape& s) {
    if (!s) return;
    u_.def_shapes[d] = *s;
    if (cx_.resolver.info(d).kind == DefKind::Global) cx_.global_shapes[d] = *s;
  }

  Shape static_shape(const NodeRef& e) const { return known_shape(cx_, u_, e); }

  Shape record(const NodeRef& e, Shape s) {
    if (s) u_.shapes[e->id] = *s;
    return s;
  }

  void stmts(const NodeRef& b) {
    for (auto& s : b->kids)
      if (s) stmt(s);
  }

  void stmt(const NodeRef& s) {
    if (irb::is_item_decl(s->kind)) return;
    switch (s->kind) {
      case Kind::Let: let(s); break;
      case Kind::EinGroup: ein_group(s); break;
      case Kind::ExprStmt: shape(ir::stmt_expr(*s)); break;
      case Kind::Const:
      case Kind::Error: break;
      default: shape(s); break;
    }
  }

  void let(const NodeRef& s) {
    const NodeRef& v = ir::let_value(*s);
    Shape vs = shape(v);
    const NodeRef& pat = ir::let_pattern(*s);
    if (const NodeRef& ann = ir::let_type(*s); ann && ann->kind == Kind::TyArray && vs &&
                                               !ann->has(ir::kAnyRank)) {
      for (size_t i = 1; i < ann->kids.size() && i - 1 < vs->size(); ++i) {
        int64_t want = ir::tyarray_dims(ann)[i - 1]->ival, got = (*vs)[i - 1];
        if (want >= 0 && got >= 0 && want != got)
          cx_.error("E004", "shape mismatch: the annotation says " + std::to_string(want) +
                                " on axis " + std::to_string(i - 1) + ", the value has " +
                                std::to_string(got),
                    v->span, "this value is " + show_shape(*vs));
      }
    }
    if (pat->kind == Kind::PBind) {
      set_def(pat->def, vs);
      if (auto k = fold(v); k && ir::is_scalar(u_.type(v)) && is_int(u_.type(v)->dtype))
        u_.int_values[pat->def] = *k;
    } else if (pat->kind == Kind::PTuple) {
      for (auto& k : pat->kids)
        if (k->kind == Kind::PBind) set_def(k->def, by_type(u_.def_types[k->def]));
    }
  }

  void fold_range(DefId d) {
    auto it = u_.ranges.find(d);
    if (it == u_.ranges.end()) return;
    it->second.lo_const = fold(it->second.lo);
    it->second.hi_const = fold(it->second.hi);
    // A bound over outer indices that takes one value on all of their ranges (a window's
    // `max(0, -t)` and `min(K, n - t)` when every t keeps the window inside): that constant, so
    // the range is rectangular for the kernels (a contraction, a packed convolution).
    auto one = [&](const NodeRef& b) -> std::optional<int64_t> {
      auto h = int_hull(cx_, u_, b);
      if (h && h->first == h->second) return h->first;
      return std::nullopt;
    };
    if (!it->second.lo_const) it->second.lo_const = one(it->second.lo);
    if (!it->second.hi_const) it->second.hi_const = one(it->second.hi);
  }

  void fold_site(const NodeRef& root) {
    // Fold the ranges of every index introduced here, and settle plain-use agreements.
    for_each_slot(root, [&](const NodeRef& slot) { fold_range(slot->def); });
    std::vector<AgreeFact> keep;
    for (auto& a : u_.agrees) {
      if (!site_vars_.count(a.index)) {
        keep.push_back(a);
        continue;
      }
      auto x = fold(a.extent_a), y = fold(a.extent_b);
      // Under an `if` or a where-guard the site may never run (a library's equal-shape branch
      // next to its broadcasting one): a mismatch there stays a run-time check, as accesses do.
      if (x && y && *x != *y && guarded_ > 0) {
        keep.push_back(a);
        continue;
      }
      if (x && y) {
        if (*x != *y) {
          Diagnostic d = make_diag("E004", "index `" + cx_.resolver.info(a.index).name +
                                               "` has two different extents",
                                   a.span_b, std::to_string(*y) + " here");
          d.secondary.push_back(Label{a.span_a, std::to_string(*x) + " here"});
          d.help = "`" + a.what_a + "` gives " + std::to_string(*x) + ", `" + a.what_b +
                   "` gives " + std::to_string(*y);
          cx_.diags.report(std::move(d));
        }
        continue;  // decided
      }
      keep.push_back(a);
    }
    u_.agrees = std::move(keep);
  }

  template <class F>
  void for_each_slot(const NodeRef& root, F&& f) {
    if (!root || root->kind == Kind::Lambda) return;
    if (root->kind == Kind::EinDecl || root->kind == Kind::Reduce) {
      for (const NodeRef& s : ir::index_slots_of(root))
        if (s->kind == Kind::IdxVar || s->kind == Kind::IdxIn) {
          site_vars_.insert(s->def);
          f(s);
        }
    }
    for (auto& k : root->kids) for_each_slot(k, f);
  }

  void ein_group(const NodeRef& g) {
    StaticShape alloc;
    StaticShape elem;
    bool first = true;
    for (auto& c : g->kids) {
      fold_site(c);
      StaticShape ext;
      for (const NodeRef& s : ir::ein_slots(c)) {
        if (s->kind == Kind::IdxLit) {
          ext.push_back(irb::add_exact(s->ival, 1).value_or(-1));  // past i64: unknown here, E008 at run time
        } else {
          auto it = u_.ranges.find(s->def);
          std::optional<int64_t> hi = it == u_.ranges.end() ? std::nullopt : it->second.hi_const;
          ext.push_back(hi ? std::max<int64_t>(*hi, 0) : -1);
        }
      }
      bool saved = in_site_;
      DefId saved_group = group_;
      in_site_ = true;
      group_ = g->def;
      Shape bs = shape(ir::ein_value(*c));
      in_site_ = saved;
      group_ = saved_group;
      if (first) {
        alloc = ext;
        if (bs) elem = *bs;
        first = false;
      } else {
        for (size_t i = 0; i < alloc.size() && i < ext.size(); ++i)
          alloc[i] = (alloc[i] < 0 || ext[i] < 0) ? -1 : std::max(alloc[i], ext[i]);
      }
    }
    StaticShape full = alloc;
    full.insert(full.end(), elem.begin(), elem.end());
    int r = ir::rank_of(u_.def_types.count(g->def) ? u_.def_types[g->def] : cx_.global_types[g->def]);
    if (r >= 0 && static_cast<int>(full.size()) != r) full.assign(static_cast<size_t>(r), -1);
    set_def(g->def, full);
    record(g, full);
  }

  void check_access(const NodeRef& e, const Shape& base) {
    // Self-reads of a recurrence are judged by recurrence ordering (E012), not here; an access
    // under a guard (`where m + 1 < n`, an `if` branch) may only run where it is in bounds, so
    // it is not an error there, though it may still be proven in bounds.
    if (!base || (group_.valid() && ir::index_base(e)->def == group_)) return;
    bool report = guarded_ == 0;
    // Proven when every index's folded value range lies inside its axis (explicit ranges of
    // known extent too, which range analysis cannot prove): codegen drops the checks.
    bool proven = e->kids.size() - 1 == base->size();
    for (size_t i = 1; i < e->kids.size() && i - 1 < base->size(); ++i) {
      int64_t extent = (*base)[i - 1];
      if (extent < 0) {
        proven = false;
        continue;
      }
      const NodeRef& ix = ir::index_args(e)[i - 1];
      std::optional<int64_t> lo, hi;  // inclusive value range of the index expression
      if (auto c = fold(ix)) {
        lo = hi = *c;
      } else {
        // v, v + c, v - c with v an explicit index of known range
        const NodeRef* var = nullptr;
        int64_t off = 0;
        if (ix->kind == Kind::Name) {
          var = &ix;
        } else if (ix->kind == Kind::Binary && ir::bin_lhs(ix)->kind == Kind::Name) {
          auto op = static_cast<ir::BinOp>(ix->ival);
          auto k = fold(ir::bin_rhs(ix));
          auto koff = k && op == ir::BinOp::Sub ? irb::sub_exact(0, *k) : k;
          if (koff && (op == ir::BinOp::Add || op == ir::BinOp::Sub)) {
            var = &ir::bin_lhs(ix);
            off = *koff;
          }
        }
        if (var) {
          auto it = u_.ranges.find((*var)->def);
          if (it != u_.ranges.end() && it->second.lo_const && it->second.hi_const &&
              *it->second.hi_const > *it->second.lo_const) {
            // Exact: a wrapped end would "prove" an access far out of bounds.
            auto l = irb::add_exact(*it->second.lo_const, off), h = irb::add_exact(*it->second.hi_const - 1, off);
            if (l && h) lo = *l, hi = *h;
          }
          // Only explicit ranges are reported: inferred ones were built to fit.
          if (it != u_.ranges.end() && !it->second.is_explicit) report = false;
        }
      }
      if (!lo) {
        proven = false;
        continue;
      }
      if (*lo < 0 || *hi >= extent) proven = false;
      if (report && (*lo < 0 || *hi >= extent)) {
        int64_t bad = *lo < 0 ? *lo : *hi;
        std::string what = cx_.sm.snippet(ir::index_base(e)->span);
        cx_.error("E005", "index out of bounds: `" + cx_.sm.snippet(ix->span) + "` reaches " +
                              std::to_string(bad) + " but `" + what + "` has extent " +
                              std::to_string(extent) + " on axis " + std::to_string(i - 1),
                  ix->span, "reaches " + std::to_string(bad),
                  lo == hi ? "" : "an explicit range is never narrowed; shrink it or drop it to let "
                                  "the compiler infer it");
      }
    }
    if (proven) u_.proven.insert(e->id);
  }

  // `a as [T; 8, ?]` asserts extents (SPEC §3): known ones must agree now (E004), and they are
  // the value's static shape from here on (the interpreter checks values known only at run time).
  Shape cast_shape(const NodeRef& e) {
    Shape src = shape(ir::cast_expr(e));
    const NodeRef& ty = ir::cast_type(e);
    if (ty->kind != Kind::TyArray || ty->has(ir::kAnyRank) || ty->kids.size() == 1) return src;
    StaticShape want;
    for (const NodeRef& d : ir::tyarray_dims(ty)) want.push_back(d->ival);
    if (!src || src->size() != want.size()) return want;
    for (size_t i = 0; i < want.size(); ++i) {
      int64_t got = (*src)[i];
      if (want[i] >= 0 && got >= 0 && want[i] != got) {
        cx_.error("E004", "shape mismatch: `as` says " + std::to_string(want[i]) + " on axis " +
                              std::to_string(i) + ", the value has " + std::to_string(got),
                  e->span, "this value is " + show_shape(*src));
        return want;
      }
      if (want[i] < 0) want[i] = got;
    }
    return want;
  }

  Shape shape(const NodeRef& e) {
    if (!e) return StaticShape{};
    switch (e->kind) {
      case Kind::IntLit:
      case Kind::FloatLit:
      case Kind::BoolLit:
      case Kind::StrLit: return record(e, StaticShape{});
      case Kind::Name:
      case Kind::Path: {
        Shape s = def_shape(e->def);
        if (!s) s = by_type(u_.type(e));
        return record(e, s);
      }
      case Kind::ArrayLit: {
        std::vector<Shape> ks;
        for (auto& k : e->kids) ks.push_back(shape(k));
        if (u_.type(e)->k == ir::Type::K::List) return record(e, StaticShape{static_cast<int64_t>(e->kids.size())});
        Shape inner = ks.empty() ? Shape(StaticShape{}) : ks[0];
        for (size_t i = 1; i < ks.size() && inner; ++i) {
          if (!ks[i] || ks[i]->size() != inner->size()) {
            inner = std::nullopt;
            break;
          }
          for (size_t a = 0; a < inner->size(); ++a) {
            int64_t x = (*inner)[a], y = (*ks[i])[a];
            if (x >= 0 && y >= 0 && x != y) {
              Diagnostic d = make_diag("E004", "array literal is not rectangular", ir::array_elems(e)[i]->span,
                                       "this row has " + std::to_string(y) + " element" + (y == 1 ? "" : "s"));
              d.secondary.push_back(Label{ir::array_elems(e)[0]->span, "this row has " + std::to_string(x)});
              d.help = "every row of an array must have the same length; annotate `jagged[...]` "
                       "for rows of different lengths";
              cx_.diags.report(std::move(d));
              return record(e, std::nullopt);
            }
            if (x < 0) (*inner)[a] = y;
          }
        }
        if (!ir::is_array(u_.type(e))) return record(e, StaticShape{static_cast<int64_t>(e->kids.size())});
        if (!inner) return record(e, by_type(u_.type(e)));
        StaticShape s{static_cast<int64_t>(e->kids.size())};
        s.insert(s.end(), inner->begin(), inner->end());
        return record(e, s);
      }
      case Kind::Index: {
        Shape b = shape(ir::index_base(e));
        for (const NodeRef& k : ir::index_args(e)) shape(k);
        check_access(e, b);
        if (!b) return record(e, by_type(u_.type(e)));
        size_t n = e->kids.size() - 1;
        if (n > b->size()) return record(e, by_type(u_.type(e)));
        return record(e, StaticShape(b->begin() + static_cast<long>(n), b->end()));
      }
      case Kind::Binary: {
        Shape a = shape(ir::bin_lhs(e)), b = shape(ir::bin_rhs(e));
        auto op = static_cast<ir::BinOp>(e->ival);
        bool arith = op == ir::BinOp::Add || op == ir::BinOp::Sub || op == ir::BinOp::Mul ||
                     op == ir::BinOp::Div || op == ir::BinOp::Mod || op == ir::BinOp::Pow;
        if (!arith) return record(e, StaticShape{});
        if (a && b && !a->empty() && !b->empty() && a->size() == b->size()) {
          StaticShape r = *a;
          for (size_t i = 0; i < r.size(); ++i) {
            int64_t x = (*a)[i], y = (*b)[i];
            // Under an `if` or a where-guard the operation may never run (a library's
            // equal-shape arm, an arm a gradient assumes for other shapes): run time checks it.
            if (x >= 0 && y >= 0 && x != y && guarded_ > 0) return record(e, std::nullopt);
            if (x >= 0 && y >= 0 && x != y) {
              cx_.error("E004", "shape mismatch: " + show_shape(*a) + " " +
                                    ir::binop_spelling(op) + " " + show_shape(*b),
                        e->span, "shapes differ on axis " + std::to_string(i),
                        "elementwise operators need arrays of identical shape; write indices to "
                        "combine different shapes");
              return record(e, std::nullopt);
            }
            if (x < 0) r[i] = y;
          }
          return record(e, r);
        }
        if (a && !a->empty()) return record(e, a);
        if (b && !b->empty()) return record(e, b);
        return record(e, by_type(u_.type(e)));
      }
      case Kind::Unary: return record(e, shape(ir::unary_operand(e)));
      case Kind::Cast: return record(e, cast_shape(e));
      case Kind::Member:
        shape(ir::member_base(e));
        if (ir::member_field(e) == ir::MemberField::Shape) {
          Shape b = static_shape(ir::member_base(e));
          return record(e, b ? StaticShape{static_cast<int64_t>(b->size())} : StaticShape{-1});
        }
        return record(e, by_type(u_.type(e)));
      case Kind::Block: {
        Shape t = StaticShape{};
        bool tail = e->has(ir::kHasTail);
        for (const NodeRef& k : e->kids) {
          if (!k) continue;
          if (tail && &k == &e->kids.back()) t = shape(k);
          else stmt(k);
        }
        return record(e, t);
      }
      case Kind::If: {
        shape(ir::if_cond(e));
        ++guarded_;
        Shape a = shape(ir::if_then(e));
        Shape b = ir::if_else(e) ? shape(ir::if_else(e)) : Shape(StaticShape{});
        --guarded_;
        if (a && b && *a == *b) return record(e, a);
        return record(e, by_type(u_.type(e)));
      }
      case Kind::Where: {
        bool guards = false;
        for (const NodeRef& c : ir::where_clauses(e)) guards = guards || c->kind == Kind::WGuard;
        if (guards) ++guarded_;
        for (const NodeRef& c : ir::where_clauses(e)) {
          Shape s = shape(ir::where_clause_expr(c));
          if (c->kind == Kind::WBind || c->kind == Kind::WDerived) set_def(c->def, s);
        }
        Shape r = shape(ir::where_expr(e));
        if (guards) --guarded_;
        return record(e, r);
      }
      case Kind::Reduce: {
        if (!in_site_) fold_site(e);
        bool saved = in_site_;
        in_site_ = true;
        Shape s = shape(ir::reduce_body(*e));
        in_site_ = saved;
        return record(e, s);
      }
      case Kind::Comp: {
        for (const NodeRef& c : ir::comp_clauses(e)) {
          Shape s = shape(ir::comp_clause_expr(c));
          if (c->kind == Kind::CompLet) set_def(c->def, s);
          if (c->kind == Kind::CompGen) set_def(c->def, by_type(u_.def_types[c->def]));
        }
        Shape el = shape(ir::comp_elem(e));
        StaticShape r{-1};
        if (el) r.insert(r.end(), el->begin(), el->end());
        return record(e, r);
      }
      case Kind::Match: {
        shape(ir::match_scrutinee(e));
        for (const NodeRef& arm : ir::match_arms(e)) {
          ir::for_each_node(ir::arm_pattern(arm), [&](const NodeRef& p) {
            if (p->kind == Kind::PBind) set_def(p->def, by_type(u_.type(p)));
          });
          // An arm runs only where its pattern matches (`n @ 1..=1 => x[n - 1]`): its reads are
          // checked when they run, like a branch's.
          ++guarded_;
          if (ir::arm_guard(arm)) shape(ir::arm_guard(arm));
          shape(ir::arm_body(arm));
          --guarded_;
        }
        return record(e, by_type(u_.type(e)));
      }
      case Kind::Call: return record(e, call(e));
      default:
        for (auto& k : e->kids)
          if (k && k->kind != Kind::Lambda && k->kind != Kind::Param) shape(k);
        return record(e, by_type(u_.type(e)));
    }
  }

  // A call whose arguments' extents are all known: the callee is checked with those extents
  // (a specialisation is shared by all extents, so its own analysis cannot decide), which
  // turns shape errors inside generic functions into compile-time errors at the call site,
  // and gives the call's result its static shape.
  Shape call(const NodeRef& e) {
    std::vector<Shape> args;
    for (const NodeRef& a : ir::call_args(e)) args.push_back(shape(a));
    Shape ret = by_type(u_.type(e));
    auto it = u_.call_targets.find(e->id);
    if (it == u_.call_targets.end() || depth_ >= 3) return ret;
    Unit* callee = it->second;
    if (callee->in_progress || !callee->body ||
        (callee->body->kind != Kind::Fn && callee->body->kind != Kind::Lambda) ||
        callee->params.size() != args.size())
      return ret;
    std::string desc;
    for (size_t i = 0; i < args.size(); ++i) {
      if (!args[i]) return ret;
      for (auto x : *args[i])
        if (x < 0) return ret;
      if (!args[i]->empty()) desc += (desc.empty() ? "" : ", ") + show_shape(*args[i]);
    }
    if (desc.empty()) return ret;  // scalars only: nothing to learn
    const bool into_library = callee->fn.crate == ir::kStdCrate && u_.fn.crate != ir::kStdCrate;
    DiagSink sink;
    CompileCtx view(cx_.sm, cx_.resolver, sink, cx_.env);
    view.opt = cx_.opt;
    view.global_types = cx_.global_types;
    view.global_shapes = cx_.global_shapes;
    view.const_ints = cx_.const_ints;
    Unit tmp = *callee;  // a scratch copy: the shared specialisation keeps its own facts
    for (size_t i = 0; i < args.size(); ++i) tmp.def_shapes[callee->params[i]] = *args[i];
    ShapeWalker w(view, tmp);
    w.depth_ = depth_ + 1;
    w.run();
    for (auto d : sink.take()) {
      if (d.code != "E004" && d.code != "E005") continue;
      if (into_library && d.primary.valid() && d.primary.file != e->span.file) {
        // The caller is the one who can act (as for run-time library errors, interp/call.cpp):
        // the call becomes the primary location, the library's own finding a label and a note.
        auto lc = cx_.sm.start(d.primary);
        d.notes.push_back("inside `" + callee->name + "` at " + cx_.sm.file(d.primary.file).name + ":" +
                          std::to_string(lc.line) + ":" + std::to_string(lc.col));
        d.secondary.push_back(Label{d.primary, d.primary_label});
        d.primary = e->span;
        d.primary_label = "called here with " + desc;
      } else {
        d.secondary.push_back(Label{e->span, "called here with " + desc});
      }
      cx_.diags.report(std::move(d));
    }
    const NodeRef& body = tmp.body->kind == Kind::Fn ? ir::fn_body(*tmp.body) : ir::lambda_body(*tmp.body);
    if (body && body->kind == Kind::Block && body->has(ir::kHasTail)) {
      auto st = tmp.shapes.find(body->kids.back()->id);
      if (st != tmp.shapes.end()) ret = st->second;
    }
    return ret;
  }

  CompileCtx& cx_;
  Unit& u_;
  std::unordered_set<DefId> site_vars_;
  bool in_site_ = false;
  int guarded_ = 0;
  int depth_ = 0;  // nesting of call checks
  DefId group_;
};

}  // namespace

void shape_analysis(CompileCtx& cx) {
  for (size_t i = 0; i < cx.units.size(); ++i) {
    ShapeWalker w(cx, *cx.units[i]);
    w.run();
  }
}

}  // namespace ein
