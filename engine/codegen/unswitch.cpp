// Loop unswitching: an `if` whose condition does not change inside a loop nest is decided once,
// before the nest, and each outcome gets its own copy of the nest without the branch.
//
// Why: a library function taking a flag computes both of its forms in one clause,
//
//   let y[o, j, i] = if take_log { (v[o, j, i] - m[o, i]) - log(s[o, i]) }
//                    else { exp(v[o, j, i] - m[o, i]) / s[o, i] };
//
// (std::ml::softmax_axis / log_softmax_axis share along_axis). In the kernel the branch sits in
// the innermost loop; GCC does not vectorise a loop whose branch calls libm (`logf` "clobbers
// memory"), so the exp of the other branch, the one that runs, went scalar too: softmax_axis
// over axis 0 of a 2048² f32 ran its quotient at about a third of the speed of the same softmax
// written out. Unswitched, each version's innermost loop is straight-line code.
//
// A condition qualifies when it reads only names already bound where the nest starts (kernel
// scalars, outer loop variables), literals and arithmetic on them (no array read, no call),
// cannot fail, and one of its branches calls something or reduces (a plain select GCC converts
// itself; copying the nest for it would only add compile time). Conditions that are the same
// expression are decided together; at most two per loop (four copies), and only around an
// innermost vector loop of at most 400 IR nodes (small_vector_loop). The values are the same
// bits: each version evaluates exactly the branch the original evaluated at every point.
#include "engine/codegen/gen.h"

#include <functional>
#include <unordered_set>

namespace ein::codegen {

using ir::Kind;
using ir::NodeRef;

namespace {

bool costly(const NodeRef& n) {
  bool found = false;
  ir::for_each_node(n, [&](const NodeRef& x) { found = found || x->kind == Kind::Call || x->kind == Kind::LReduce; });
  return found;
}

// An If (kids cond, then, else) or LIf one of whose branches calls something or reduces: a
// plain select GCC converts itself, and copying loops for it would only add compile time.
bool costly_branch(const NodeRef& x) { return costly(x->kids[1]) || (x->kids.size() > 2 && costly(x->kids[2])); }

// The branches (If with an else, LIf) of loop's body not yet decided whose condition is the
// first one `pick` accepts (it sees the branch node), each once; `cond` is set to it.
std::vector<uint32_t> branches_on(const NodeRef& loop, const std::unordered_map<uint32_t, bool>& forced,
                                  const std::function<bool(const NodeRef&)>& pick, NodeRef& cond) {
  std::vector<uint32_t> ifs;
  ir::for_each_node(ir::lfor_body(loop), [&](const NodeRef& x) {
    const bool expr = x->kind == Kind::If && x->kids.size() > 2;
    if ((!expr && x->kind != Kind::LIf) || forced.count(x->id)) return;
    const NodeRef& c = x->kids[0];
    if (cond ? ir::structurally_equal(c, cond) : pick(x)) {
      if (!cond) cond = c;
      ifs.push_back(x->id);
    }
  });
  return ifs;
}

}  // namespace

// Whether c reads only literals, arithmetic, and names bound before `loop` (outer loop
// variables, the kernel's scalars): not the nest's own loop variables, lets or reduction
// variables, no array read, no call.
bool Gen::fixed_before(const NodeRef& loop, const NodeRef& c) const {
  std::unordered_set<ir::DefId> inside;
  ir::for_each_node(loop, [&](const NodeRef& x) {
    if (x->kind == Kind::LFor || x->kind == Kind::LLet || x->kind == Kind::LoopVar || x->kind == Kind::LLetIn ||
        x->kind == Kind::PBind || x->kind == Kind::Param)
      inside.insert(x->def);
  });
  std::function<bool(const NodeRef&)> invariant = [&](const NodeRef& e) -> bool {
    if (!e) return false;
    switch (e->kind) {
      case Kind::IntLit:
      case Kind::FloatLit:
      case Kind::BoolLit: return true;
      case Kind::Name: {
        if (inside.count(e->def)) return false;
        if (lookup(e->def)) return true;
        auto t = unit->def_types.find(e->def);
        return t != unit->def_types.end() && ir::is_scalar(t->second);
      }
      case Kind::Unary:
      case Kind::Binary:
        for (const NodeRef& k2 : e->kids)
          if (!invariant(k2)) return false;
        return true;
      default: return false;
    }
  };
  return invariant(c);
}

// Only an innermost vector loop with a small body is copied: that is where the branch costs the
// vectorisation, and the copies stay small (a recurrence's or an adjoint's whole nest copied per
// outcome doubled compile times that were already a minute under load).
bool Gen::small_vector_loop(const NodeRef& loop) {
  if (!innermost(loop) || !loop_spec(loop).simd) return false;
  size_t nodes = 0;
  ir::for_each_node(ir::lfor_body(loop), [&](const NodeRef&) { ++nodes; });
  return nodes <= 400;
}

bool Gen::unswitch(const NodeRef& loop) {
  if (unswitched_ >= 2 || !small_vector_loop(loop)) return false;
  NodeRef cond;
  const std::vector<uint32_t> ifs = branches_on(loop, forced_if_, [&](const NodeRef& x) {
    return fixed_before(loop, x->kids[0]) && !may_fail(x->kids[0], *unit, 0) && costly_branch(x);
  }, cond);
  if (!cond) return false;
  const std::string note = "unswitched: an `if` on values fixed before the loops is decided once, one copy of the "
                           "loops per outcome (no branch inside them)";
  if (std::find(k.plan.begin(), k.plan.end(), note) == k.plan.end()) k.plan.push_back(note);
  Val c = value(cond);
  const std::string u = em.fresh("us");
  em.line("const bool " + u + " = (bool)(" + c.c + ");");
  ++unswitched_;
  const bool saved = counting_;
  for (int outcome = 1; outcome >= 0; --outcome) {
    for (uint32_t id : ifs) forced_if_[id] = outcome == 1;
    em.open(std::string(outcome ? "if (" : "if (!") + u + ") {", true);
    stmt(loop);
    em.close();
    counting_ = false;  // accesses are counted once, not per version
  }
  counting_ = saved;
  for (uint32_t id : ifs) forced_if_.erase(id);
  --unswitched_;
  return true;
}

}  // namespace ein::codegen

namespace ein::codegen {

// Index-set splitting: an innermost loop whose `if` compares the loop's own variable with a value
// fixed before the loop (`if j <= i { exp(S[i, j] - m[i]) / z[i] } else { 0.0 }`, a causal mask)
// runs as two loops over the two parts of its range, each with the one branch that holds there.
// The masked half of a causal softmax computed its exp and quotient at every point and then
// stored 0 (the select form vectorises, so both branches run). The points, their order within
// each part, and every value are those of the branching loop; the split point is clamped to the
// loop's range (an empty part runs no iteration). Only a comparison of the plain variable (an
// i64, or an i32 over a range within i32) against an integer that cannot fail, in a loop that is
// not the one opening the thread team, and when a branch calls something or reduces.
bool Gen::split_on_branch(const NodeRef& loop) {
  if (loops.empty() || loop->has(ir::kSequential) || loop->has(ir::kReverse) || split_busy_.count(loop->id))
    return false;
  if (!small_vector_loop(loop)) return false;
  LoopSpec sp = loop_spec(loop);
  if ((sp.parallel && !in_parallel) || sp.omp_for) return false;
  Val lo = index(ir::lfor_lo(loop)), hi = index(ir::lfor_hi(loop));
  const int bits = std::max(lo.bits, hi.bits);
  // The variable's value as the comparison sees it is the loop index: an i64, or an i32 over a
  // range within i32 (known before the run, or tested here with the branching loop as the
  // other version: run-time extents).
  bool wide = false;
  auto plain_var = [&](const NodeRef& x) {
    if (x->kind != Kind::Name || x->def != loop->def) return false;
    const DType dt = x->dt >= 0 ? static_cast<DType>(x->dt) : DType::I32;
    wide = dt == DType::I32 && bits > 31;
    return dt == DType::I64 || dt == DType::I32;
  };
  NodeRef cond, bound;
  ir::BinOp op = ir::BinOp::Lt;
  const std::vector<uint32_t> ifs = branches_on(loop, forced_if_, [&](const NodeRef& x) {
    const NodeRef& c = x->kids[0];
    if (c->kind != Kind::Binary || !costly_branch(x)) return false;
    auto o = static_cast<ir::BinOp>(c->ival);
    if (o != ir::BinOp::Lt && o != ir::BinOp::Le && o != ir::BinOp::Gt && o != ir::BinOp::Ge) return false;
    NodeRef a = ir::bin_lhs(c), b = ir::bin_rhs(c);
    if (!plain_var(a)) {
      std::swap(a, b);
      o = o == ir::BinOp::Lt ? ir::BinOp::Gt : o == ir::BinOp::Le ? ir::BinOp::Ge : o == ir::BinOp::Gt ? ir::BinOp::Lt : ir::BinOp::Le;
    }
    if (!plain_var(a) || b->dt < 0 || b->dt != a->dt || !is_int(static_cast<DType>(b->dt)) || !fixed_before(loop, b) ||
        may_fail(b, *unit, 0))
      return false;
    bound = b;
    op = o;
    return true;
  }, cond);
  if (!cond) return false;
  const bool saved = counting_;
  std::string fits;
  if (wide) {
    fits = em.fresh("sf");
    em.line("const bool " + fits + " = " + lo.c + " >= -2147483648LL && " + hi.c + " <= 2147483648LL;");
    em.open("if (!" + fits + ") {", true);
    split_busy_.insert(loop->id);
    stmt(loop);
    split_busy_.erase(loop->id);
    em.close();
    counting_ = false;
    em.open("if (" + fits + ") {", true);
  }
  const std::string note = "split: the loop over `" + loop->name +
                           "` runs as two loops at the point where its `if` on it changes (no branch inside them)";
  if (std::find(k.plan.begin(), k.plan.end(), note) == k.plan.end()) k.plan.push_back(note);
  // The first index of the second part: v < e and v >= e change at e, v <= e and v > e at
  // e + 1 (written so that it cannot overflow), clamped to [lo, hi].
  const std::string e = "(int64_t)" + value(bound).c;
  const bool after = op == ir::BinOp::Le || op == ir::BinOp::Gt;
  const std::string at = after ? "(" + e + " < " + hi.c + " ? " + e + " + 1 : " + hi.c + ")" : "ein_imin(" + e + ", " + hi.c + ")";
  const std::string m = em.fresh("sp");
  em.line("const int64_t " + m + " = ein_imax(" + lo.c + ", " + at + ");");
  // v < e and v <= e hold in the first part, v > e and v >= e in the second.
  const bool first_holds = op == ir::BinOp::Lt || op == ir::BinOp::Le;
  for (int part = 0; part < 2; ++part) {
    for (uint32_t id : ifs) forced_if_[id] = (part == 0) == first_holds;
    LoopSpec fs = sp;
    fs.lo_c = part == 0 ? lo.c : m;
    fs.hi_c = part == 0 ? m : hi.c;
    fs.bits = bits;
    fs.loop = nullptr;
    fs.parallel = false;
    open_loop(fs);
    stmt(ir::lfor_body(loop));
    close_loop();
    counting_ = false;
  }
  if (wide) em.close();
  counting_ = saved;
  for (uint32_t id : ifs) forced_if_.erase(id);
  return true;
}

}  // namespace ein::codegen
