// The cell plan: which clauses become kernels (tiering), which stay interpreted (and why), and
// the human-readable account `%ir kernel` prints.
#include <functional>

#include "engine/codegen/fusion.h"
#include "engine/codegen/gen.h"
#include "engine/codegen/static_facts.h"

namespace ein::codegen {

using ir::Kind;
using ir::NodeRef;

PlanOptions::Mode parse_mode(const std::string& s) {
  if (s == "never" || s == "off" || s == "0") return PlanOptions::Mode::Never;
  if (s == "always" || s == "on" || s == "1") return PlanOptions::Mode::Always;
  return PlanOptions::Mode::Auto;
}

namespace {

std::string strategy_of(const Kernel& k, const NodeRef& stmt) {
  bool seq = false;
  ir::for_each_node(stmt, [&](const NodeRef& x) {
    if (x->kind == Kind::LFor && x->has(ir::kSequential)) seq = true;
  });
  if (k.kind == KernelKind::Expr) return "reduction";
  return seq ? "recurrence" : "parallel";
}

}  // namespace

// Calibrated on this machine (docs/performance.md "Tiering"): a whole-array point costs the
// interpreter 50-200 ns, a point of a clause it steps through one by one (strategy=scalar: a
// recurrence, a self-read, a user call) 400-900 ns, a scatter's accumulation ~6 us. Loading a
// cell's cached kernels costs ~1-2 ms, which 32768 whole-array points (the default threshold)
// roughly match; the factors keep that break-even for the slower strategies.
constexpr double kScalarPointCost = 8;
constexpr double kScatterPointCost = 64;

double interp_point_cost(const Unit& u, const Kernel& k) {
  bool accum = false, calls = false;
  ir::for_each_node(k.stmt, [&](const NodeRef& x) {
    accum = accum || x->kind == Kind::LAccum;
    calls = calls || (x->kind == Kind::Call && u.call_targets.count(x->id));
  });
  if (accum) return kScatterPointCost;
  if (k.kind == KernelKind::Clause) {
    auto s = u.strategies.find(k.stmt->id);
    if (s != u.strategies.end()) return s->second == LoopStrategy::Scalar ? kScalarPointCost : 1;
  }
  return calls ? kScalarPointCost : 1;
}

std::optional<Kernel> gen_clause(const CompileCtx& cx, const Unit& u, const NodeRef& tensor,
                                 const NodeRef& clause, const FusionMap& fusion, std::string* why) {
  Kernel k = clause_kernel(u, tensor, clause);
  for (auto& c : tensor->kids)
    if (c->kind == Kind::LCheck) k.checks.push_back(c);
  try {
    bool done = false;
    if (fusion.producers.empty()) {
      Kernel b = k;
      Gen g(cx, u, fusion, b);
      if (g.einsum(tensor, clause)) {
        b.source = g.finish();
        k = std::move(b);
        done = true;
      }
    }
    if (!done) {
      Gen g(cx, u, fusion, k);
      g.clause(tensor, clause);
      k.source = g.finish();
      k.strategy = g.contraction_strategy_.empty() ? strategy_of(k, clause) : g.contraction_strategy_;
    }
  } catch (const Unsupported& e) {
    if (why) *why = e.why;
    return std::nullopt;
  }
  auto pts = static_points(cx, u, clause, std::nullopt);
  k.work = pts ? *pts : -1;
  k.interp_cost = interp_point_cost(u, k);
  return k;
}

const NodeRef& expr_kernel_value(const NodeRef& stmt) { return statement_value(stmt); }

namespace {

// A deferred kernel before generation (lazy_deferred): what the tier needs to decide when to
// generate it — its statement, unit and tensor, the interpreter's cost of a point, no work.
Kernel skeleton(const Unit& u, KernelKind kind, const NodeRef& tensor, const NodeRef& stmt) {
  Kernel k;
  if (kind == KernelKind::Clause) k = clause_kernel(u, tensor, stmt);
  k.kind = kind;
  k.unit = &u;
  k.stmt = stmt;
  k.work = -1;
  k.interp_cost = interp_point_cost(u, k);
  return k;
}

}  // namespace

std::optional<Kernel> generate_deferred(const CompileCtx& cx, const Kernel& sk, std::string* why) {
  if (sk.kind == KernelKind::Clause) return gen_clause(cx, *sk.unit, sk.tensor, sk.stmt, FusionMap{}, why);
  return gen_expr(cx, *sk.unit, sk.stmt, why);
}

std::optional<Kernel> gen_expr(const CompileCtx& cx, const Unit& u, const NodeRef& let, std::string* why) {
  Kernel k;
  k.kind = KernelKind::Expr;
  k.unit = &u;
  k.stmt = let;
  FusionMap none;
  try {
    if (let->kind == Kind::Let && ir::let_pattern(*let)->kind != Kind::PBind) unsupported("a destructuring `let`");
    Gen g(cx, u, none, k);
    g.expr_let(let);
    k.source = g.finish();
    k.strategy = "reduction";
  } catch (const Unsupported& e) {
    if (why) *why = e.why;
    return std::nullopt;
  }
  auto pts = static_points(cx, u, expr_kernel_value(let), std::nullopt);
  k.work = pts ? *pts : -1;
  k.interp_cost = interp_point_cost(u, k);
  return k;
}

CellPlan plan_cell(const CompileCtx& cx, const PlanOptions& opt) {
  CellPlan plan;
  if (opt.mode == PlanOptions::Mode::Never) return plan;
  // Clauses worth an eighth of the threshold: compiled when the cell loads kernels anyway, or
  // when together they reach the threshold. A cell's kernels share one object (one compiler
  // run, one load), so a further kernel costs a cache-key lookup (~0.1 ms) where interpreting it
  // costs 0.3 ms or more; the load itself (~1-2 ms) is what the threshold pays for. A cold
  // compile grows by those functions, not by another compiler run.
  std::vector<Kernel> medium;
  const bool lazy = opt.lazy_deferred && opt.mode == PlanOptions::Mode::Auto;
  for (auto& up : cx.units) {
    const Unit& u = *up;
    if (!u.lowered) continue;
    FusionPlan fp = opt.fusion ? fused_kernels(cx, u, opt) : FusionPlan{};
    auto big = [&](const Kernel& k) {
      return opt.mode == PlanOptions::Mode::Always || !k.fused.empty() || interpreted_work(k) >= opt.threshold;
    };
    auto admit = [&](std::optional<Kernel> k, const NodeRef& stmt, const std::string& why, bool with_group = false) {
      if (!k) {
        plan.skipped.push_back(Skipped{&u, stmt, why});
        return;
      }
      if (with_group || big(*k)) {
        plan.kernels.push_back(std::move(*k));
      } else if (k->work < 0) {
        plan.deferred.push_back(std::move(*k));
      } else if (interpreted_work(*k) >= opt.threshold / 8) {
        medium.push_back(std::move(*k));
      }
    };
    NodeRef tail;
    // `open`: not inside a tensor declaration or a statement planned whole, so a reduction met
    // here is compiled on its own (a call's argument, a function's result, a tuple element:
    // `print(sum[i, j](X[i, j]))` ran in the interpreter at 50 ns a point before 2026-11-29).
    std::function<void(const NodeRef&, bool)> walk = [&](const NodeRef& n, bool open) {
      if (!n || n->kind == Kind::Lambda) return;
      if (n->kind == Kind::LTensor) {
        if (fp.elided.count(n->id)) {
          plan.elided.insert(n->id);
          return;
        }
        // The clauses of one tensor are tiered together: when one of them is worth a kernel, the
        // small ones (a recurrence's first row, its boundary columns) join it in the same
        // translation unit instead of running in the interpreter between kernel calls
        // (measured on the heat benchmark: the 10^4-point first row cost 0.8 ms interpreted).
        struct Candidate {
          std::optional<Kernel> k;
          NodeRef stmt;
          std::string why;
        };
        std::vector<Candidate> cands;
        for (auto& c : n->kids) {
          // A tensor among the statements (a scatter's scratch) is planned on its own by the walk.
          if (c->kind == Kind::LShape || c->kind == Kind::LCheck || c->kind == Kind::LTensor) continue;
          auto fused = fp.consumers.find(c->id);
          if (fused != fp.consumers.end()) {
            cands.push_back({std::move(fused->second), c, ""});
            continue;
          }
          if (lazy && !static_points(cx, u, c, std::nullopt)) {
            plan.deferred.push_back(skeleton(u, KernelKind::Clause, n, c));
            continue;
          }
          std::string why;
          auto k = gen_clause(cx, u, n, c, FusionMap{}, &why);
          cands.push_back({std::move(k), c, why});
        }
        bool group = false;
        for (auto& cd : cands) group = group || (cd.k && big(*cd.k));
        for (auto& cd : cands) admit(std::move(cd.k), cd.stmt, cd.why, group && cd.k && cd.k->work >= 0);
        open = false;
      } else if (kernel_statement(n, tail)) {
        // (Generated now even when deferred: when codegen cannot take the statement whole, the
        // reductions inside it are planned on their own below.)
        std::string why;
        auto k = gen_expr(cx, u, n, &why);
        // A statement codegen cannot take whole (`let t = (sum(..), 1);`) leaves its reductions open.
        open = open && !k;
        admit(std::move(k), n, why);
      } else if (open && expression_reduction(n)) {
        // Opportunistic: a reduction codegen cannot take stays interpreted as it always was, and
        // is not listed among the interpreted clauses (tests/stdlib check_kernels counts those).
        std::string why;
        if (auto k = gen_expr(cx, u, n, &why)) admit(std::move(k), n, why);
        open = false;
      } else if (is_resume_loop(n)) {
        // One kernel for the whole loop; its clauses are planned below as well, for the
        // interpreter to call when the loop kernel does not take the arguments.
        std::string why;
        auto k = gen_loop(cx, u, n, &why);
        if (k && big(*k)) plan.kernels.push_back(std::move(*k));
        else if (!k) plan.skipped.push_back(Skipped{&u, n, why});
      }
      for (auto& k : n->kids) walk(k, open);
    };
    // A cell's trailing expression (typed as a REPL line or a notebook cell's last line).
    if (u.kind == Unit::Kind::Cell && u.lowered && u.lowered->has(ir::kHasTail) && !u.lowered->kids.empty())
      tail = u.lowered->kids.back();
    walk(u.lowered, true);
  }
  double together = 0;
  for (auto& k : medium) together += interpreted_work(k);
  if (!plan.kernels.empty() || together >= opt.threshold)
    for (auto& k : medium) plan.kernels.push_back(std::move(k));
  return plan;
}

std::string describe(const CompileCtx& cx, const CellPlan& plan, bool with_source) {
  std::string out;
  auto where = [&](const Unit* u, const NodeRef& n) {
    std::string s = u && u->kind != Unit::Kind::Cell ? u->name + " " : "";
    if (n && n->span.valid()) s += "line " + std::to_string(cx.sm.start(n->span).line);
    return s;
  };
  auto one = [&](const Kernel& k, const char* state) {
    std::string name = k.kind == KernelKind::Clause ? k.tensor->name
                       : k.kind == KernelKind::Loop ? "loop " + k.stmt->name
                       : k.stmt->kind == Kind::Let  ? ir::let_pattern(*k.stmt)->name
                                                    : std::string("(expression)");
    out += "kernel `" + name + "` (" + where(k.unit, k.stmt) + ") " + state + ": strategy=" + k.strategy;
    out += "\n";
    for (auto& p : k.plan) out += "  " + p + "\n";
    out += "  reads: " + std::to_string(k.accesses) + ", bounds-checked: " + std::to_string(k.checked) + "\n";
    if (k.work >= 0)
      out += "  points: " + std::to_string(static_cast<int64_t>(k.work)) +
             (k.interp_cost != 1 ? " (interpreted, each costs ~" + std::to_string(static_cast<int>(k.interp_cost)) +
                                       " whole-array points)"
                                 : "") +
             "\n";
    if (!k.fused.empty()) {
      std::string f;
      for (auto& t : k.fused) f += (f.empty() ? "" : ", ") + t->name;
      out += "  fused (not stored): " + f + "\n";
    }
    for (auto& b : k.bufs)
      if (b.windowed)
        out += "  window: `" + b.name + "` keeps " + (b.window > 0 ? std::to_string(b.window) : std::string("its")) +
               " rows of axis 0 (circular)" + (b.output ? "" : ", read") + "\n";
    if (with_source) out += k.source;
  };
  for (auto& k : plan.kernels) one(k, "compiled");
  for (auto& k : plan.deferred) one(k, "compiled when large");
  for (auto& s : plan.skipped) out += "interpreted (" + where(s.unit, s.stmt) + "): " + s.reason + "\n";
  if (out.empty()) out = "no kernels\n";
  return out;
}

}  // namespace ein::codegen
