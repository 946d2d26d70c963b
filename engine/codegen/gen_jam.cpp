// Jammed time loops: inside a loop kernel (loop_kernel.cpp), two resumed tensors whose clauses
// are time loops over the same steps run as one nest when the second reads the first only at
// earlier rows (`t_u[t] = f(t_u[t - 1], u[t - 1])` after `u[t] = g(u[t - 1])`: the forward
// tangent of a scalar parameter beside its primal, lang/passes/checkpoint_fuse.cpp). Step t of
// the second then needs nothing the first writes at step t, and the first reads nothing of the
// second, so any merge of the two steps that keeps each one's own order computes the same
// values: the loops of equal bounds are fused level by level (one walk over the row both read,
// one loop for both stores), the rest runs one after the other inside the step. Measured on
// the heat stencil gradient (engine/codegen/README.md, docs/performance.md).
#include "engine/codegen/gen.h"
#include "engine/codegen/static_facts.h"
#include "lang/ir/visitor.h"
#include "lang/passes/int_fold.h"

namespace ein::codegen {

using ir::Kind;
using ir::NodeRef;

namespace {

// The one clause of a resumed tensor when it is a loop, else null.
NodeRef only_loop(const NodeRef& t) {
  NodeRef c;
  for (auto& k : ir::ltensor_stmts(*t)) {
    if (!k) continue;
    if (c || k->kind != Kind::LFor) return nullptr;
    c = k;
  }
  return c;
}

bool same_bound(const CompileCtx& cx, const Unit& u, const NodeRef& a, const NodeRef& b) {
  if (ir::structurally_equal(a, b)) return true;
  auto x = fold_int(cx, u, a), y = fold_int(cx, u, b);
  return x && y && *x == *y;
}

// Statements the jam can take apart: stores and loops, no reduction (a planned contraction or
// a tile has its own nest), no scatter, no user call (its body could read anything).
bool plain(const Unit& u, const NodeRef& n) {
  bool ok = true;
  ir::for_each_node(n, [&](const NodeRef& x) {
    if (x->kind == Kind::LReduce || x->kind == Kind::LAccum || x->kind == Kind::LTensor ||
        (x->kind == Kind::Call && u.call_targets.count(x->id)) || u.tiles.count(x->id))
      ok = false;
  });
  return ok;
}

size_t count_reads(const NodeRef& n, ir::DefId d) {
  size_t m = 0;
  ir::for_each_node(n, [&](const NodeRef& x) { m += (x->kind == Kind::Name || x->kind == Kind::Path) && x->def == d; });
  return m;
}

// Every mention of tensor `a` in clause `cb` (a time loop) is a read at row t + c of its time
// variable t (or a name bound to it), with c < 0 (c > 0 for a reversed loop): a row the other
// clause wrote at an earlier step. Returns the farthest |c| (0 when `a` is not read).
std::optional<int64_t> earlier_rows(const CompileCtx& cx, const Unit& u, const NodeRef& cb, ir::DefId a) {
  std::unordered_set<ir::DefId> time{cb->def};
  for (size_t n = 0; n != time.size();) {
    n = time.size();
    ir::for_each_node(cb, [&](const NodeRef& x) {
      if (x->kind == Kind::LLet && ir::llet_value(x)->kind == Kind::Name && time.count(ir::llet_value(x)->def))
        time.insert(x->def);
    });
  }
  const bool rev = cb->has(ir::kReverse);
  size_t reads = 0;
  int64_t far = 0;
  bool ok = true;
  ir::for_each_node(cb, [&](const NodeRef& x) {
    if (x->kind != Kind::Index || ir::index_base(x)->kind != Kind::Name || ir::index_base(x)->def != a) return;
    ++reads;
    auto args = ir::index_args(x);
    auto row = args.empty() ? std::nullopt : linear_form(cx, u, args[0]);
    if (!row || !row->has_v || !time.count(row->v) || row->k != 1 || (rev ? row->c < 1 : row->c > -1)) {
      ok = false;
      return;
    }
    far = std::max(far, rev ? row->c : -row->c);
  });
  if (!ok || reads != count_reads(cb, a)) return std::nullopt;
  return far;
}

}  // namespace

void Gen::as_second(const std::function<void()>& emit) {
  std::swap(out_buf, jam_buf_);
  std::swap(out_def, jam_def_);
  emit();
  std::swap(out_buf, jam_buf_);
  std::swap(out_def, jam_def_);
}

void Gen::jam(const NodeRef& a, const NodeRef& b) {
  if (a && b && a->kind == Kind::LSeq && b->kind == Kind::LSeq && a->kids.size() == b->kids.size()) {
    size_t m = mark();
    for (size_t i = 0; i < a->kids.size(); ++i) jam(a->kids[i], b->kids[i]);
    unbind_to(m);
    return;
  }
  if (a && b && a->kind == Kind::LFor && b->kind == Kind::LFor && a->flags == b->flags &&
      same_bound(cx, *unit, ir::lfor_lo(a), ir::lfor_lo(b)) && same_bound(cx, *unit, ir::lfor_hi(a), ir::lfor_hi(b)) &&
      plans_at(a).empty() && plans_at(b).empty()) {
    LoopSpec sp = loop_spec(a), sb = loop_spec(b);
    sp.innermost = sp.innermost && sb.innermost;
    sp.simd = sp.simd && sb.simd;
    sp.inner_work += sb.inner_work;
    open_loop(sp);
    bind(b->def, *lookup(a->def));
    jam(ir::lfor_body(a), ir::lfor_body(b));
    close_loop();
    return;
  }
  stmt(a);
  as_second([&] { stmt(b); });
}

void Gen::jammed(const NodeRef& ta, const NodeRef& ca, const NodeRef& tb, const NodeRef& cb) {
  out_buf = add_output(ta);
  out_def = ta->def;
  jam_buf_ = add_output(tb);
  jam_def_ = tb->def;
  // No register carry: it assumes one store per step.
  versions(ir::make({.kind = Kind::LSeq, .kids = {ca, cb}}), [&] { jam(ca, cb); });
}

std::optional<Kernel> gen_jammed(const CompileCtx& cx, const Unit& u, const NodeRef& ta, const NodeRef& tb) {
  NodeRef ca = only_loop(ta), cb = only_loop(tb);
  if (!ca || !cb || ta->def == tb->def || !ca->has(ir::kSequential) || ca->flags != cb->flags ||
      !same_bound(cx, u, ir::lfor_lo(ca), ir::lfor_lo(cb)) || !same_bound(cx, u, ir::lfor_hi(ca), ir::lfor_hi(cb)) ||
      !plain(u, ca) || !plain(u, cb) || count_reads(ca, tb->def) > 0)
    return std::nullopt;
  auto far = earlier_rows(cx, u, cb, ta->def);
  if (!far) return std::nullopt;
  // Row t of `ta` is written in the slot of t mod window: the rows read must be other slots.
  if (ta->has(ir::kWindowed) && ir::ltensor_window(ta) <= *far) return std::nullopt;
  Kernel k = clause_kernel(u, ta, ca);
  try {
    FusionMap none;
    Gen g(cx, u, none, k);
    g.jammed(ta, ca, tb, cb);
    k.source = g.finish();
  } catch (const Unsupported&) {
    return std::nullopt;
  }
  k.strategy = "recurrence";
  k.plan.push_back("jammed: the steps of `" + ta->name + "` and `" + tb->name + "` in one loop nest");
  auto pa = static_points(cx, u, ca, std::nullopt), pb = static_points(cx, u, cb, std::nullopt);
  k.work = pa && pb ? *pa + *pb : -1;
  k.interp_cost = interp_point_cost(u, k);
  return k;
}

}  // namespace ein::codegen
