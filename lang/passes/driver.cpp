#include "lang/passes/driver.h"

#include <chrono>
#include <functional>

#include "lang/ir/visitor.h"

#include "lang/passes/autodiff.h"
#include "lang/passes/checkpoint.h"
#include "lang/passes/check_match.h"
#include "lang/passes/classify_where.h"
#include "lang/passes/context.h"
#include "lang/passes/contraction_plan.h"
#include "lang/passes/fusion_plan.h"
#include "lang/passes/tile_plan.h"
#include "lang/passes/exec_facts.h"
#include "lang/passes/expand_rest.h"
#include "lang/passes/frame_layout.h"
#include "lang/passes/group_einstein.h"
#include "lang/passes/inline_literals.h"
#include "lang/passes/cse_plan.h"
#include "lang/passes/loop_plan.h"
#include "lang/passes/lower_einstein.h"
#include "lang/passes/range_analysis.h"
#include "lang/passes/recurrence_cover.h"
#include "lang/passes/recurrence_order.h"
#include "lang/passes/row_fuse.h"
#include "lang/passes/row_inline.h"
#include "lang/passes/base_peel.h"
#include "lang/passes/guard_split.h"
#include "lang/passes/memo_plan.h"
#include "lang/passes/scan_plan.h"
#include "lang/passes/scatter_plan.h"
#include "lang/passes/shape_analysis.h"
#include "lang/passes/storage_window.h"
#include "lang/passes/type_infer.h"

namespace ein {

namespace {

// What the driver does with a pass besides running it once, in table order. Autodiff rewrites
// derivative requests into ordinary IR, so everything that analyses the cell runs again over the
// rewritten cell; the syntactic rewrites before type inference are idempotent and do not.
enum class Rerun {
  Never,       // syntactic rewrites, and every pass after autodiff
  Reanalyse,   // analyses that run again over each autodiff rewrite
  Fixpoint,    // autodiff itself: repeated while a round rewrote something (at most 8 rounds)
  Rewrite,     // a rewrite of the analysed cell (row_inline): when it rewrote something, the
               // analyses run again and so does it (at most 4 rounds); a rewrite the analyses
               // refuse is undone (the cell runs as written)
};

// The pass table is the pipeline: one name per pass, equal to its file's stem and to its entry
// function, which is what `%ir after=NAME`, `--timings` and `--dump-stage` show. `alias` is the
// older name still accepted by `%ir after=` (docs/repl.md lists both); nothing logs or prints it.
struct Pass {
  const char* name;
  const char* alias;
  std::function<void(CompileCtx&)> run;
  bool lowered;  // does the pass work on Unit::lowered (for dumps)?
  Rerun rerun;
};

const std::vector<Pass>& passes() {
  auto body = [](ir::NodeRef (*f)(const ir::NodeRef&, CompileCtx&)) {
    return [f](CompileCtx& cx) { cx.cell().body = f(cx.cell().body, cx); };
  };
  static const std::vector<Pass> p = {
      {"group_einstein", "", body(group_einstein), false, Rerun::Never},
      {"classify_where", "", body(classify_where), false, Rerun::Never},
      {"inline_literals", "", body(inline_literals), false, Rerun::Never},
      {"type_infer", "type_inference", type_infer, false, Rerun::Reanalyse},
      {"expand_rest", "rest_expansion", expand_rest, false, Rerun::Reanalyse},
      {"range_analysis", "", range_analysis, false, Rerun::Reanalyse},
      {"shape_analysis", "", shape_analysis, false, Rerun::Reanalyse},
      {"check_match", "match_check", check_match, false, Rerun::Reanalyse},
      {"row_inline", "", row_inline, false, Rerun::Rewrite},
      {"autodiff", "", autodiff, false, Rerun::Fixpoint},
      {"lower_einstein", "einstein_lowering", lower_einstein, true, Rerun::Never},
      {"base_peel", "", base_peel, true, Rerun::Never},
      {"recurrence_cover", "", recurrence_cover, true, Rerun::Never},
      {"recurrence_order", "", recurrence_order, true, Rerun::Never},
      {"storage_window", "storage_windows", storage_window, true, Rerun::Never},
      {"checkpoint", "", checkpoint, true, Rerun::Never},
      {"scatter_plan", "", scatter_plan, true, Rerun::Never},
      {"scan_plan", "", scan_plan, true, Rerun::Never},
      {"guard_split", "", guard_split, true, Rerun::Never},
      {"row_fuse", "", row_fuse, true, Rerun::Never},
      {"memo_plan", "", memo_plan, true, Rerun::Never},
      {"exec_facts", "", exec_facts, true, Rerun::Never},
      {"frame_layout", "", frame_layout, true, Rerun::Never},
      {"contraction_plan", "", contraction_plan, true, Rerun::Never},
      {"fusion_plan", "", fusion_plan, true, Rerun::Never},
      {"tile_plan", "", tile_plan, true, Rerun::Never},
      {"loop_plan", "", loop_plan, true, Rerun::Never},
      {"cse_plan", "", cse_plan, true, Rerun::Never},
  };
  return p;
}

const Pass* find_pass(const std::string& name) {
  for (auto& p : passes())
    if (name == p.name || (*p.alias && name == p.alias)) return &p;
  return nullptr;
}

}  // namespace

std::string canonical_pass_name(const std::string& name) {
  const Pass* p = find_pass(name);
  return p ? p->name : "";
}

const std::vector<std::string>& pass_names() {
  static std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (auto& p : passes()) n.push_back(p.name);
    return n;
  }();
  return names;
}

std::string dump_units(const CompileCtx& cx, bool lowered, std::vector<std::string>* fns) {
  std::string out, plan;
  if (lowered)
    for (auto& u : cx.units)
      if (u->lowered) plan += describe_exec_plan(*u);
  if (!plan.empty()) out = ";; execution plan\n" + plan;
  for (auto& u : cx.units) {
    const ir::NodeRef& n = lowered ? u->lowered : u->body;
    if (!n) continue;
    if (fns && u->kind == Unit::Kind::Fn) fns->push_back(u->body->name);
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
  // The record's unit points at the cell's other units (call_targets: the specialisations of
  // the functions it calls, which autodiff follows). They must live as long as the record: it
  // read them after the cell's CompileCtx had freed them (valgrind: invalid read in
  // Forward::call_rule for `@y / @xs` over an earlier cell's `sum[i](sq(xs[i]))`). One owner of
  // all of them, aliased to the cell unit.
  auto all = std::make_shared<std::vector<std::shared_ptr<Unit>>>(cx.units);
  std::shared_ptr<const Unit> kept(all, cell.get());
  for (auto& s : cell->body->kids) {
    if (!s) continue;
    ir::DefId d;
    if (s->kind == ir::Kind::EinGroup) d = s->def;
    else if (s->kind == ir::Kind::Let && ir::let_pattern(*s)->kind == ir::Kind::PBind)
      d = ir::let_pattern(*s)->def;
    if (!d.valid()) continue;
    DefRecord rec;
    rec.stmt = s;
    rec.unit = kept;
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

// Runs `f` and logs its time under `phase`: a pass name, or kDriverPhase.
template <class F>
void timed(CompileCtx& cx, const char* phase, int round, F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  cx.timings.push_back(PassTiming{
      phase, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), round});
}

// Runs `p` once and logs its time under its own name; `round` > 0 marks a run over an autodiff
// rewrite (the time still belongs to the pass that spent it).
void timed(CompileCtx& cx, const Pass& p, int round) {
  timed(cx, p.name, round, [&] { p.run(cx); });
}

// Derivative requests became ordinary IR: analyse the rewritten cell again with every pass the
// table marks Reanalyse, and differentiate again while a round rewrote something (requests
// that depended on the previous round's results).
bool autodiff_fixpoint(CompileCtx& cx, const Pass& ad, ir::NodeRef before) {
  int rewrites = 0;
  for (int round = 1; cx.cell().body != before || cx.ad_rewrites != rewrites; ++round) {
    rewrites = cx.ad_rewrites;
    cx.reset_analysis();
    for (const Pass& q : passes()) {
      if (&q == &ad) break;
      if (q.rerun != Rerun::Reanalyse) continue;
      timed(cx, q, round);
      if (cx.diags.has_errors()) return false;
    }
    before = cx.cell().body;
    if (round <= 8) timed(cx, ad, round);
    if (cx.diags.has_errors()) return false;
  }
  timed(cx, ad.name, 0, [&] { check_no_autodiff_left(cx); });
  return !cx.diags.has_errors();
}

// The analyses again, over the rewritten cell.
bool reanalyse(CompileCtx& cx, const Pass& upto, int round) {
  cx.reset_analysis();
  for (const Pass& q : passes()) {
    if (&q == &upto) break;
    if (q.rerun != Rerun::Reanalyse) continue;
    timed(cx, q, round);
    if (cx.diags.has_errors()) return false;
  }
  return true;
}

// A rewrite of the analysed cell (row_inline): analysed again after each round that changed
// something, and run again (its sites may now reach into what it inlined). A round whose result
// the analyses refuse is undone: the cell as it was before that round is analysed again and
// kept. The rewrite never turns a program that compiles into one that does not.
// Function bodies it rewrote (CompileCtx::ad_bodies, row_inline.cpp) are undone with the cell.
bool rewrite_rounds(CompileCtx& cx, const Pass& p, ir::NodeRef before,
                    std::unordered_map<std::string, ir::NodeRef> bodies_before) {
  for (int round = 1; cx.cell().body != before && round <= 4; ++round) {
    if (!reanalyse(cx, p, round)) {
      cx.diags.clear();
      cx.cell().body = before;
      cx.ad_bodies = std::move(bodies_before);
      return reanalyse(cx, p, round);
    }
    before = cx.cell().body;
    bodies_before = cx.ad_bodies;
    if (round < 4) timed(cx, p, round);
    if (cx.diags.has_errors()) return false;
  }
  return true;
}

void dump(CompileCtx& cx, const Pass& p, const PipelineOptions& opt) {
  timed(cx, kDriverPhase, 0, [&] {
    if (opt.dumped_fns) opt.dumped_fns->clear();
    *opt.dump = dump_units(cx, p.lowered, opt.dumped_fns);
  });
}

bool run_passes(CompileCtx& cx, const ir::NodeRef& program, const PipelineOptions& opt) {
  if (cx.units.empty()) cx.new_unit(Unit::Kind::Cell, "cell");
  cx.cell().body = program;
  const std::string dump_after = canonical_pass_name(opt.dump_after);
  std::vector<Span> requests;
  for (const Pass& p : passes()) {
    ir::NodeRef before = cx.cell().body;
    std::unordered_map<std::string, ir::NodeRef> bodies_before;
    if (p.rerun == Rerun::Rewrite) bodies_before = cx.ad_bodies;
    if (p.rerun == Rerun::Fixpoint) requests = request_spans(cx);
    timed(cx, p, 0);
    if (cx.diags.has_errors()) {
      blame_requests(cx, requests);
      if (opt.dump && dump_after == p.name) dump(cx, p, opt);
      return false;
    }
    if (p.rerun == Rerun::Rewrite && !rewrite_rounds(cx, p, before, std::move(bodies_before))) return false;
    if (p.rerun == Rerun::Fixpoint && !autodiff_fixpoint(cx, p, before)) {
      blame_requests(cx, requests);
      return false;
    }
    if (opt.dump && dump_after == p.name) dump(cx, p, opt);  // after every round
  }
  return true;
}

}  // namespace

bool run_pipeline(CompileCtx& cx, const ir::NodeRef& program, const PipelineOptions& opt) {
  // The join candidates are group_einstein's (SPEC §11): its time is that pass's.
  timed(cx, "group_einstein", 0, [&] { find_join_candidates(program, cx); });
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
  if (ok) timed(cx, kDriverPhase, 0, [&] { remember_definitions(cx); });
  return ok;
}

}  // namespace ein
