#include "lang/passes/driver.h"

#include <chrono>
#include <functional>

#include "lang/ir/visitor.h"

#include "lang/passes/autodiff.h"
#include "lang/passes/check_match.h"
#include "lang/passes/classify_where.h"
#include "lang/passes/context.h"
#include "lang/passes/contraction_plan.h"
#include "lang/passes/exec_facts.h"
#include "lang/passes/expand_rest.h"
#include "lang/passes/frame_layout.h"
#include "lang/passes/group_einstein.h"
#include "lang/passes/inline_literals.h"
#include "lang/passes/lower_einstein.h"
#include "lang/passes/range_analysis.h"
#include "lang/passes/recurrence_cover.h"
#include "lang/passes/recurrence_order.h"
#include "lang/passes/shape_analysis.h"
#include "lang/passes/storage_window.h"
#include "lang/passes/type_infer.h"

namespace ein {

namespace {

struct Pass {
  const char* name;
  std::function<void(CompileCtx&)> run;
  bool lowered;  // does the pass work on Unit::lowered (for dumps)?
};

const std::vector<Pass>& passes() {
  static const std::vector<Pass> p = {
      {"group_einstein", [](CompileCtx& cx) { cx.cell().body = group_einstein(cx.cell().body, cx); }, false},
      {"classify_where", [](CompileCtx& cx) { cx.cell().body = classify_where(cx.cell().body, cx); }, false},
      {"inline_literals", [](CompileCtx& cx) { cx.cell().body = inline_literals(cx.cell().body, cx); }, false},
      {"type_inference", infer_types, false},
      {"rest_expansion", expand_rest, false},
      {"range_analysis", analyze_ranges, false},
      {"shape_analysis", analyze_shapes, false},
      {"match_check", check_matches, false},
      {"autodiff", differentiate, false},
      {"einstein_lowering", lower_einstein, true},
      {"recurrence_cover", check_recurrence_cover, true},
      {"recurrence_order", order_recurrences, true},
      {"storage_windows", infer_storage_windows, true},
      {"exec_facts", compute_exec_facts, true},
      {"frame_layout", layout_frames, true},
      {"contraction_plan", plan_contractions, true},
  };
  return p;
}

}  // namespace

const std::vector<std::string>& pass_names() {
  static std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (auto& p : passes()) n.push_back(p.name);
    return n;
  }();
  return names;
}

std::string dump_units(const CompileCtx& cx, bool lowered) {
  std::string out, plan;
  if (lowered)
    for (auto& u : cx.units)
      if (u->lowered) plan += describe_exec_plan(*u);
  if (!plan.empty()) out = ";; execution plan\n" + plan;
  for (auto& u : cx.units) {
    const ir::NodeRef& n = lowered ? u->lowered : u->body;
    if (!n) continue;
    if (u->kind != Unit::Kind::Cell) out += ";; " + u->name + " -> " + ir::type_name(u->ret_type) + "\n";
    out += ir::to_sexpr(n) + "\n";
  }
  return out;
}

namespace {

// Records the cell's top-level definitions for later cells (autodiff through earlier bindings).
void remember_definitions(CompileCtx& cx) {
  if (!cx.persist) return;
  const auto& cell = cx.units[0];
  for (auto& s : cell->body->kids) {
    if (!s) continue;
    ir::DefId d;
    if (s->kind == ir::Kind::EinGroup) d = s->def;
    else if (s->kind == ir::Kind::Let && ir::let_pattern(*s)->kind == ir::Kind::PBind)
      d = ir::let_pattern(*s)->def;
    if (!d.valid()) continue;
    DefRecord rec;
    rec.stmt = s;
    rec.unit = cell;
    ir::for_each_node(s, [&](const ir::NodeRef& n) {
      if (n->kind == ir::Kind::IdxVar || n->kind == ir::Kind::IdxIn) {
        auto it = cell->ranges.find(n->def);
        if (it != cell->ranges.end()) rec.ranges[n->def] = it->second;
      }
    });
    cx.persist->defs[d] = std::move(rec);
  }
  if (!cx.opt.records_cell) return;
  cx.persist->last_cell.clear();
  for (auto& s : cell->body->kids) {
    if (!s) continue;
    if (s->kind == ir::Kind::EinGroup) cx.persist->last_cell[s->name] = s->def;
    if (s->kind == ir::Kind::Let)
      ir::for_each_node(ir::let_pattern(*s), [&](const ir::NodeRef& p) {
        if (p->kind == ir::Kind::PBind) cx.persist->last_cell[p->name] = ir::DefId{};
      });
  }
}

}  // namespace

namespace {

bool run_passes(CompileCtx& cx, const ir::NodeRef& program, const PipelineOptions& opt) {
  if (cx.units.empty()) cx.new_unit(Unit::Kind::Cell, "cell");
  cx.cell().body = program;
  const auto& list = passes();
  for (size_t i = 0; i < list.size(); ++i) {
    const Pass& p = list[i];
    auto t0 = std::chrono::steady_clock::now();
    ir::NodeRef before = cx.cell().body;
    p.run(cx);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    cx.timings.push_back(PassTiming{p.name, ms});
    if (opt.dump && opt.dump_after == p.name) *opt.dump = dump_units(cx, p.lowered);
    if (cx.diags.has_errors()) return false;
    // Derivative requests became ordinary IR: analyse the rewritten cell from the start, and
    // differentiate again while requests that depended on this round's results remain.
    int rewrites = 0;
    for (int round = 0; std::string(p.name) == "autodiff" && (cx.cell().body != before || cx.ad_rewrites != rewrites);
         ++round) {
      rewrites = cx.ad_rewrites;
      cx.reset_analysis();
      for (size_t j = 0; j < i; ++j) {
        std::string nm = list[j].name;
        if (nm == "group_einstein" || nm == "classify_where" || nm == "inline_literals") continue;
        auto t1 = std::chrono::steady_clock::now();
        list[j].run(cx);
        cx.timings.push_back(PassTiming{std::string(list[j].name) + "'",
                                        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count()});
        if (cx.diags.has_errors()) return false;
      }
      before = cx.cell().body;
      if (round < 8) p.run(cx);
      if (cx.diags.has_errors()) return false;
    }
    if (std::string(p.name) == "autodiff") {
      if (opt.dump && opt.dump_after == p.name) *opt.dump = dump_units(cx, p.lowered);  // every round's rewrites
      check_no_autodiff_left(cx);
      if (cx.diags.has_errors()) return false;
    }
  }
  return true;
}

}  // namespace

bool run_pipeline(CompileCtx& cx, const ir::NodeRef& program, const PipelineOptions& opt) {
  find_join_candidates(program, cx);
  bool ok = run_passes(cx, program, opt);
  // SPEC §11: a definition that needs the previous cell's clauses is compiled again with them.
  // When the cell failed before coverage was checked, joining is tried too; if that fails as
  // well, the errors of the cell as written stand.
  if (!cx.join_candidates.empty() && (!ok || !cx.join_requests.empty())) {
    std::vector<Diagnostic> first = cx.diags.take();
    if (ok) {
      for (auto& n : cx.join_requests) cx.joined[n] = cx.join_candidates.at(n);
    } else {
      cx.joined = cx.join_candidates;
    }
    cx.join_requests.clear();
    cx.reset_analysis();
    bool again = run_passes(cx, program, opt);
    if (!again && !ok) {
      cx.diags.clear();
      for (auto& d : first) cx.diags.report(std::move(d));
    }
    ok = again;
  }
  if (ok) remember_definitions(cx);
  return ok;
}

}  // namespace ein
