// A batch too small for the thread team. The first parallel loop of a kernel opens the team
// (gen_stmt.cpp open_loop), and the std library's kernels over [N, C, ..] all start with the
// batch axis `n in 0..len(X)` (conv's im2col copy with the group axis, of extent 1 for an
// ordinary convolution): inference on one image ran every such kernel on one thread.
//
// Rule: a loop that would open the team, whose body is its lets followed by one more parallel
// loop, gets a second version in which it runs in order and that next loop opens the team. The
// choice is made at run time, once per kernel call, from the outer loop's iterations n and the
// team's size T: the second version when n does not divide evenly among the threads and is
// below 4 T (n < T leaves threads idle; n = 3 on two threads is 2 : 1). A trip known to be 1
// before the run keeps the second version only.
//
// Order of failures (prelude.h ein_fail: the smallest `order` wins, and a parallel kernel must
// report the interpreter's error): in the second version the outer loop is sequential and stops
// at its next iteration once anything failed (stop order INT64_MAX); inside one of its
// iterations, the lets run before the team (order 0, smaller than any inner order) and the team
// orders its failures by the inner variable. So the failure recorded is the first in row-major
// order, as in the interpreter and in the first version.
#include <algorithm>
#include <functional>

#include "engine/codegen/gen.h"
#include "engine/codegen/static_facts.h"
#include "lang/passes/contraction.h"

namespace ein::codegen {

using ir::Kind;
using ir::NodeRef;

namespace {

// The loop that follows a parallel loop's lets: the only other statement of its body.
NodeRef next_loop(const NodeRef& body) {
  if (body->kind == Kind::LFor) return body;
  if (body->kind != Kind::LSeq || body->kids.empty()) return nullptr;
  for (size_t i = 0; i + 1 < body->kids.size(); ++i)
    if (body->kids[i]->kind != Kind::LLet) return nullptr;
  return body->kids.back()->kind == Kind::LFor ? body->kids.back() : nullptr;
}

}  // namespace

// Work of one iteration of `loop` for its team's `if()`: the loop plan's estimate counts each
// trip it does not know before the run as 16 (a library kernel over [N, C, H, W] of unknown
// extents: 4096 points per n, so `n * 4096 >= 2^20` kept std batch_normalization of a
// 8 x 64 x 112 x 112 input on one thread). The loops nested in `loop` whose bounds can be
// evaluated before it (extents, scalar arguments: every rectangular nest) count by their
// run-time trips instead. A C expression of type double.
std::string Gen::runtime_work(const NodeRef& loop, double static_work) {
  std::vector<std::string> trips;
  double w = static_work;
  // Variables defined by `loop` or inside it: a bound naming one is not known before it.
  std::vector<ir::DefId> inside;
  if (loop && loop->kind == Kind::LFor) {
    inside.push_back(loop->def);
    ir::for_each_node(ir::lfor_body(loop), [&](const NodeRef& x) {
      if (x->kind == Kind::LFor || x->kind == Kind::LLet || x->kind == Kind::LoopVar) inside.push_back(x->def);
    });
  }
  // A bound computed from names, literals, + - * and extents (`len(X[0])`: its row need not
  // exist yet, so gen_call's check is left to where the interpreter evaluates it: quiet_len_).
  std::function<bool(const NodeRef&)> before = [&](const NodeRef& x) -> bool {
    if (is_len_call(x)) return true;
    switch (x->kind) {
      case Kind::Index:
      case Kind::LReduce:
      case Kind::Lambda:
      case Kind::Block:
      case Kind::LLetIn:
      case Kind::Call: return false;
      case Kind::Binary: {
        auto op = static_cast<ir::BinOp>(x->ival);
        if (op == ir::BinOp::Div || op == ir::BinOp::Mod || op == ir::BinOp::Pow) return false;
        break;
      }
      case Kind::Name:
        if (std::find(inside.begin(), inside.end(), x->def) != inside.end()) return false;
        break;
      default: break;
    }
    for (const NodeRef& kid : x->kids)
      if (kid && !before(kid)) return false;
    return true;
  };
  if (loop && loop->kind == Kind::LFor)
    for (NodeRef cur = next_loop(ir::lfor_body(loop)); cur; cur = next_loop(ir::lfor_body(cur))) {
      if (loop_fact(cur).trip || !before(ir::lfor_lo(cur)) || !before(ir::lfor_hi(cur))) continue;
      struct Quiet {  // reset on every exit (an Unsupported thrown by index())
        bool& q;
        explicit Quiet(bool& f) : q(f) { q = true; }
        ~Quiet() { q = false; }
      } quiet(quiet_len_);
      Val lo = index(ir::lfor_lo(cur)), hi = index(ir::lfor_hi(cur));
      trips.push_back("(double)ein_imax(0, ein_isub(" + hi.c + ", " + lo.c + "))");
      w /= 16;
    }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f.0", std::max(1.0, std::min(w, 1e12)));
  std::string out = buf;
  for (auto& t : trips) out += " * " + t;
  return out;
}

bool Gen::team_inside(const NodeRef& s) {
  if (!loops.empty() || in_parallel || in_simd || !allow_parallel || team_busy_.count(s->id)) return false;
  // Not in the checked copy of a kernel whose entry-tested reads are all unconditional: that
  // copy runs only in a run about to report E005, and a second nest there doubled its compile
  // time for no run that matters (session 17; gen_kernel.cpp versions()).
  if (checked_copy_) return false;
  LoopSpec sp = loop_spec(s);
  if (!sp.parallel || sp.omp_for || sp.innermost) return false;
  const NodeRef inner = next_loop(ir::lfor_body(s));
  if (!inner || !inner->has(ir::kParallel) || inner->has(ir::kSequential)) return false;
  // The next loop's team must be able to open at all: work per outer iteration known before
  // the run to be below the parallel threshold leaves nothing to gain. Unknown, it is worth
  // the second copy of the nest (compile time) when two more loops nest below (an image, a
  // sequence of vectors: [N, C, H, W], [N, S, D]); a [batch, features] nest has work for a
  // team on its second loop only at a million features, known before the run or not at all.
  const auto known = static_points(cx, *unit, ir::lfor_body(s), std::nullopt);
  if (known && *known < static_cast<double>(parallel_threshold)) return false;
  if (!known && !next_loop(ir::lfor_body(inner))) return false;
  const auto trip = loop_fact(s).trip;
  if (trip && *trip >= 64) return false;

  const std::string note = "team: fewer outer iterations than threads (or uneven, below 4 per thread): "
                           "the outer loop runs in order, the next loop opens the thread team";
  if (std::find(k.plan.begin(), k.plan.end(), note) == k.plan.end()) k.plan.push_back(note);
  // Second version: `s` in order (loop_spec sees it in serial_loops_), the inner loop's team
  // without a serial twin (it is entered at most 4 T times per call).
  auto serial = [&] {
    serial_loops_.insert(s->id);
    const bool saved_twin = twin_ok_;
    twin_ok_ = false;
    stmt(s);
    twin_ok_ = saved_twin;
    serial_loops_.erase(s->id);
  };
  if (trip && *trip <= 1) {
    serial();
    return true;
  }
  Val lo = index(ir::lfor_lo(s)), hi = index(ir::lfor_hi(s));
  const std::string n = em.fresh("tn"), t = em.fresh("tt"), q = em.fresh("tq");
  em.line("const int64_t " + n + " = ein_isub(" + hi.c + ", " + lo.c + ");");
  em.line("const int64_t " + t + " = (int64_t)omp_get_max_threads();");
  em.line("const bool " + q + " = " + n + " > 0 && " + t + " > 1 && " + n + " % " + t + " != 0 && " + n + " < 4 * " + t +
          ";");
  team_busy_.insert(s->id);
  em.open("if (!" + q + ") {", true);
  stmt(s);
  em.close();
  const bool saved = counting_;
  counting_ = false;
  em.open("if (" + q + ") {", true);
  serial();
  em.close();
  counting_ = saved;
  team_busy_.erase(s->id);
  return true;
}

}  // namespace ein::codegen
