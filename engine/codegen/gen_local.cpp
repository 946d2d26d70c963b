// Block-local arrays in a kernel: `{ let r[k] = ..; .. r[k] .. }` inside a store's value (what
// lang/passes/row_fuse makes of a call on a row, and what users write). The array lives in
// scratch allocated once per kernel call, one slice per thread (padded to a cache line apart:
// no false sharing), and is filled in the outermost scope where everything it reads exists,
// like any other value (Gen::reduce's rule): a row's scratch is filled once per row, before the
// row's loop, not at every point of it. Reads of it are plain loads at or below that scope, so
// nothing reading it moves above its fill. A fill that may fail is not moved (failures keep their
// order); its loops are never parallel (the slice belongs to the thread running it).
#include <algorithm>
#include <functional>
#include <unordered_set>

#include "engine/codegen/gen.h"
#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"

namespace ein::codegen {

using ir::Kind;
using ir::NodeRef;

const Gen::Local* Gen::local_of(ir::DefId d) const {
  if (locals_.empty()) return nullptr;
  auto it = locals_.find(def_key(d));
  return it == locals_.end() ? nullptr : &it->second;
}

void Gen::note_locals(const NodeRef& stmt) {
  ir::for_each_node(stmt, [&](const NodeRef& x) {
    if (x->kind == Kind::LTensor && x != stmt) local_defs_.insert(def_key(x->def));
  });
}

void Gen::local_tensor(const NodeRef& t) {
  if (t->has(ir::kHasElem) || t->has(ir::kWindowed) || t->has(ir::kResume))
    unsupported("a block-local array with elements, a window or resumed statements");
  const auto dt = static_cast<DType>(t->ival);
  if (!kernel_dtype(dt)) unsupported("an f16/bf16 block-local array");
  // A fill that reduces (`let w[k] = sum[j](A[k, j] * v[t - 1, j])`, power iteration's step)
  // runs as a scalar loop nest here, per thread: 20 -> 760 ms against the interpreter's
  // statement (a GEMV). Such locals stay interpreted until the fill can be planned like a
  // statement (contraction_plan).
  // (A reduction the same for every element, a softmax row's sum, is hoisted: fine.)
  std::unordered_set<ir::DefId> fill_vars;
  ir::for_each_node(t, [&](const NodeRef& x) {
    if (x->kind == Kind::LFor) fill_vars.insert(x->def);
  });
  bool reduces = false;
  ir::for_each_node(t, [&](const NodeRef& x) {
    if (x->kind != Kind::LReduce || reduces) return;
    ir::for_each_node(x, [&](const NodeRef& y) { reduces = reduces || (y->kind == Kind::Name && fill_vars.count(y->def)); });
  });
  if (reduces) unsupported("a block-local array filled by a reduction per element");
  const std::string key = def_key(t->def);
  if (locals_.count(key)) unsupported("a block-local array filled twice");
  // Extents: known at kernel entry (the scratch is allocated there once).
  Local L;
  L.dt = dt;
  for (const NodeRef& e : ir::lshape_extents(ir::ltensor_shape(t))) {
    Val v = index(e);
    if (v.level > 0) unsupported("a block-local array whose extent moves with the loops");
    L.ext.push_back(em.define(DType::I64, "int64_t", "ein_imax(" + v.c + ", 0LL)", 0, Motion::Cheap).c);
  }
  if (L.ext.empty()) unsupported("a rank-0 block-local array");
  std::string count = "1LL";
  L.stride.resize(L.ext.size());
  for (size_t a = L.ext.size(); a-- > 0;) {
    L.stride[a] = count;
    count = em.define(DType::I64, "int64_t", "ein_smul(" + count + ", " + L.ext[a] + ")", 0, Motion::Cheap).c;
  }
  // One slice per thread, 16 elements (a cache line of f32) apart.
  const std::string slice =
      em.define(DType::I64, "int64_t", "(" + count + " >= INT64_MAX - 15 ? INT64_MAX : (" + count + " + 15LL) / 16LL * 16LL)", 0, Motion::Cheap).c;
  const std::string base = scratch_once("local|" + key, "lt", dt, "ein_smul(" + slice + ", (int64_t)omp_get_max_threads())",
                                        t->span);
  // Where it is filled: as deep as what it reads, not across a branch, not when it may fail.
  int target = em.depth();
  const int lvl = free_level(t, nullptr);
  if (lvl < target && !may_fail(t, *unit, 0)) target = std::max(lvl, em.innermost_cond());
  if (assume_) target = std::max(target, assume_level_);
  for (const LoopInfo& li : loops)
    if (li.level <= em.depth() && li.trip && *li.trip <= 0) target = std::max(target, li.level);
  const std::string saved_ord = ord_, saved_stop = stop_ord_;
  const bool saved_par = in_parallel, saved_simd = in_simd, saved_allow = allow_parallel;
  Carry saved_carry = std::move(carry_);
  carry_ = Carry{};
  {
    Emitter::Detour d(em, target);
    context_at(target);
    for (const LoopInfo& li : loops)
      if (li.head_level > target) {
        in_simd = li.saved_simd;
        break;
      }
    allow_parallel = false;
    L.ptr = em.fresh("lp");
    L.level = em.depth();
    em.line(std::string(stype(dt)) + "* __restrict " + L.ptr + " = " + base + " + (int64_t)omp_get_thread_num() * " +
            slice + ";");
    L.filling = true;
    locals_[key] = L;
    for (const NodeRef& s : ir::ltensor_stmts(t)) stmt(s);
    locals_[key].filling = false;
  }
  carry_ = std::move(saved_carry);
  ord_ = saved_ord;
  stop_ord_ = saved_stop;
  in_parallel = saved_par;
  in_simd = saved_simd;
  allow_parallel = saved_allow;
  // Bound so that free_level sees the scope of the fill in everything reading it.
  bind(t->def, Val{locals_[key].ptr, dt, locals_[key].level});
  const std::string note = "block-local array `" + t->name + "` in per-thread scratch (filled once per run of its scope)";
  if (std::find(k.plan.begin(), k.plan.end(), note) == k.plan.end()) k.plan.push_back(note);
}

std::string Gen::local_flat(const Local& L, const std::vector<std::string>& xs) const {
  std::string f;
  for (size_t a = 0; a < xs.size(); ++a)
    f += (f.empty() ? "" : " + ") + (a + 1 == xs.size() ? xs[a] : xs[a] + " * " + L.stride[a]);
  return f.empty() ? "0" : f;
}

Val Gen::load_local(const NodeRef& e, const Local& L) {
  const size_t n = ir::index_args_count(e);
  if (n != L.ext.size()) unsupported("a partial index of a block-local array");
  if (counting_) ++k.accesses;
  std::vector<std::string> xc;
  int level = L.level;
  for (size_t a = 0; a < n; ++a) {
    Val x = index(ir::index_args(e)[a]);
    xc.push_back(x.c);
    level = std::max(level, x.level);
  }
  std::string raw = L.ptr + "[" + local_flat(L, xc) + "]";
  if (L.dt == DType::Bool) raw = "(bool)" + raw;
  const std::string T = ctype(L.dt);
  if (is_proven(*unit, e) && !L.filling) return em.define(L.dt, T, raw, level, Motion::Cheap);
  // Unproven (or the array reading its own earlier points while it is filled): here, checked.
  std::string t = em.fresh("x");
  if (is_proven(*unit, e)) {
    em.line("const " + T + " " + t + " = " + raw + ";");
    return Val{t, L.dt, em.depth()};
  }
  if (counting_) ++k.checked;
  const int st = site(e->span);
  std::string ok, chain;
  for (size_t a = 0; a < n; ++a) {
    std::string c = "(uint64_t)" + xc[a] + " < (uint64_t)" + L.ext[a];
    ok += (ok.empty() ? "" : " && ") + c;
    chain += std::string(a ? " else if (!(" : "if (!(") + c + ")) ein_fail(A, " + std::to_string(st) +
             ", EIN_E_BOUNDS, " + ord_ + ", " + xc[a] + ", " + std::to_string(a) + ", " + L.ext[a] + ");";
  }
  em.line(T + " " + t + " = 0;");
  em.line("if (EIN_LIKELY(" + ok + ")) " + t + " = " + raw + "; else { " + chain + " }");
  return Val{t, L.dt, em.depth()};
}

}  // namespace ein::codegen

namespace ein::codegen {

// A loop whose body's inner loops all sit in values that do not move with it (a row's lets and
// block-local arrays, which Gen::reduce and Gen::local_tensor fill before the loop) and cannot
// fail (so they are moved): once they are out, the loop is innermost and vectorises. The loop
// plan counts every loop below (lang/passes/loop_plan.cpp `small`): a softmax's quotient loop
// `e'[j] / s'` ran scalar with a stop test per point.
bool Gen::innermost_after_hoisting(const NodeRef& loop) const {
  const NodeRef& body = ir::lfor_body(loop);
  if (body->kind != Kind::LStore) return false;
  // Defs bound in the body whose values move with the loop (directly or through such defs).
  std::unordered_set<ir::DefId> moving{loop->def};
  bool grew = true;
  while (grew) {
    grew = false;
    ir::for_each_node(body, [&](const NodeRef& x) {
      ir::DefId d;
      NodeRef v;
      if (x->kind == Kind::Let && ir::let_pattern(*x)->kind == Kind::PBind) d = ir::let_pattern(*x)->def, v = ir::let_value(*x);
      else if (x->kind == Kind::LTensor || x->kind == Kind::LLetIn) d = x->def, v = x;
      else return;
      if (moving.count(d)) return;
      for (ir::DefId m : moving)
        if (ir::mentions(v, m)) {
          moving.insert(d);
          grew = true;
          return;
        }
    });
  }
  bool ok = true;
  std::function<void(const NodeRef&)> walk = [&](const NodeRef& x) {
    if (!x || !ok) return;
    if (x->kind == Kind::LReduce || x->kind == Kind::LTensor) {
      bool moves = false;
      for (ir::DefId m : moving) moves = moves || ir::mentions(x, m);
      if (!moves && !may_fail(x, *unit, 0)) return;  // filled or computed before the loop
      if (x->kind == Kind::LTensor || has_loop(x)) ok = false;
      return;
    }
    if (x->kind == Kind::LFor) ok = false;
    for (const NodeRef& k : x->kids) walk(k);
  };
  walk(ir::lstore_value(body));
  return ok;
}

}  // namespace ein::codegen
