// Planning, loading and calling native kernels for one cell (see native_tier.h).
#include "engine/interp/native_tier.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "engine/config/env.h"
#include "engine/interp/interp_impl.h"
#include "engine/interp/native_runtime.h"
#include "engine/jit/jit.h"
#include "engine/jit/omp_wait.h"

namespace ein {

namespace {
// Loads (compiling when not cached) kernels; the front ends show "compiling" meanwhile.
jit::BatchResult load(const std::vector<std::string>& sources, const ExecOptions& opt) {
  struct Flag {
    Progress* p;
    explicit Flag(Progress* q) : p(q) {
      if (p) p->compiling.store(true, std::memory_order_relaxed);
    }
    ~Flag() {
      if (p) p->compiling.store(false, std::memory_order_relaxed);
    }
  } flag(opt.progress);
  return jit::load_kernels(sources, opt.interrupt);
}
}  // namespace

using ir::Kind;
using ir::NodeRef;

namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

double threshold_from_env() {
  return static_cast<double>(config::count(config::Env::JitThreshold).value_or(32768));
}

}  // namespace

NativeTier::NativeTier(CompileCtx& cx, const ExecOptions& opt) : cx_(cx), opt_(opt) {
  popt_.mode = codegen::parse_mode(opt.jit);
  popt_.threshold = threshold_from_env();
  popt_.lazy_deferred = true;  // a deferred clause's source is generated when it first runs large
  if (popt_.mode == codegen::PlanOptions::Mode::Never) return;
  auto t0 = std::chrono::steady_clock::now();
  codegen::CellPlan plan = codegen::plan_cell(cx, popt_);
  auto t1 = std::chrono::steady_clock::now();
  if (opt.jit_stats) opt.jit_stats->codegen_ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
  std::vector<std::string> sources;
  for (auto& k : plan.kernels) {
    auto nk = std::make_unique<NativeKernel>();
    nk->k = std::move(k);
    sources.push_back(nk->k.source);
    kernels_.push_back(std::move(nk));
  }
  size_t compiled = kernels_.size();
  for (auto& k : plan.deferred) {
    auto nk = std::make_unique<NativeKernel>();
    nk->k = std::move(k);
    nk->deferred = true;
    kernels_.push_back(std::move(nk));
  }
  if (!sources.empty()) {
    jit::BatchResult r = load(sources, opt);
    if (opt.jit_stats) {
      opt.jit_stats->hits += r.hits;
      opt.jit_stats->misses += r.misses;
      opt.jit_stats->compile_ms += r.compile_ms;
      opt.jit_stats->load_ms += std::max(0.0, ms_since(t1) - r.compile_ms);
    }
    // Interrupted while the compiler ran: the cell stops here (nothing runs interpreted
    // instead), reported at the first statement that wanted a kernel.
    if (r.interrupted)
      throw DiagError(make_diag("E007", "interrupted while compiling native kernels", kernels_[0]->k.stmt->span));
    if (!r.error.empty()) note_error(r.error);
    for (size_t i = 0; i < compiled; ++i) {
      kernels_[i]->fn = reinterpret_cast<ein_kernel_fn>(r.fns[i]);
      if (!kernels_[i]->fn) kernels_[i]->failed = true;
    }
  }
  if (config::is_set(config::Env::JitTrace)) {
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    std::fprintf(stderr, "jit: plan %.3f ms (%zu kernels, %zu deferred, %zu interpreted), load %.3f ms\n", ms(t0, t1),
                 plan.kernels.size(), plan.deferred.size(), plan.skipped.size(), ms(t1, std::chrono::steady_clock::now()));
    // How the kernels' OpenMP workers wait (decided at the first kernel load, once).
    static std::once_flag wait_once;
    std::call_once(wait_once, [] { std::fprintf(stderr, "jit: threads: %s\n", jit::apply_omp_wait().why.c_str()); });
    // Why each interpreted clause is not a kernel: the first thing to read when a program is slow.
    for (const codegen::Skipped& sk : plan.skipped)
      std::fprintf(stderr, "jit: interpreted line %u: %s\n", cx.sm.start(sk.stmt->span).line, sk.reason.c_str());
  }
  for (auto& nk : kernels_) {
    by_stmt_[nk->k.stmt->id] = nk.get();
    if (nk->k.fused.empty() || !nk->fn) continue;
    consumer_of_[nk->k.tensor->id] = nk.get();
    for (auto& p : nk->k.fused) elided_.insert(p->id);
  }
}

void NativeTier::note_error(const std::string& error) {
  // One warning per process: a missing compiler would otherwise repeat it for every cell.
  static std::once_flag once;
  std::call_once(once, [&] {
    std::fprintf(stderr, "warning: native kernels unavailable, interpreting instead: %s\n", error.c_str());
    std::fflush(stderr);
  });
}

NativeKernel* NativeTier::find(uint32_t id) {
  auto it = by_stmt_.find(id);
  return it == by_stmt_.end() ? nullptr : it->second;
}

bool NativeTier::elided(const NodeRef& t) const {
  return elided_.count(t->id) > 0 && materialized_.count(t->id) == 0;
}

const NodeRef& NativeTier::shape_of(const NodeRef& t) const {
  auto it = consumer_of_.find(t->id);
  if (it == consumer_of_.end() || it->second->failed) return ir::ltensor_shape(t);
  return it->second->k.shape;
}

const std::vector<NodeRef>* NativeTier::checks_of(const NodeRef& t) const {
  auto it = consumer_of_.find(t->id);
  if (it == consumer_of_.end() || it->second->failed) return nullptr;
  return &it->second->k.checks;
}

void NativeTier::materialize(Interpreter::Impl& in, NativeKernel& nk) {
  nk.failed = true;
  for (auto& p : nk.k.fused) {
    if (materialized_.count(p->id)) continue;
    materialized_.insert(p->id);
    in.exec_tensor(p);
  }
}

bool NativeTier::prepare(Interpreter::Impl& in, const NodeRef& t) {
  auto it = consumer_of_.find(t->id);
  if (it == consumer_of_.end()) return true;
  NativeKernel& nk = *it->second;
  if (nk.failed || !native_inputs_fit(in, nk)) {
    materialize(in, nk);
    return false;
  }
  return true;
}

bool NativeTier::ready(Interpreter::Impl& in, NativeKernel& nk) {
  if (nk.failed) return false;
  if (nk.fn) return true;
  if (!nk.deferred) return false;
  // Auto mode, size unknown before the run: measure the outer loops now. A clause that
  // guard_split cut from a larger one (its edge boxes: a padded copy's first row) counts the
  // points of all the tensor's clauses: interpreted, a few thousand edge points cost more than
  // the whole interior's kernel (a 64 x 114 x 114 padded copy: ~6 ms against 0.3 ms).
  double pts = runtime_points(in, nk.k.stmt);
  if (nk.k.tensor && nk.k.tensor->aux.rfind("split: ", 0) == 0) {
    pts = 0;
    for (const NodeRef& c : ir::ltensor_stmts(nk.k.tensor))
      if (c->kind != Kind::LCheck) pts += runtime_points(in, c);
  }
  // Each run small, but together worth a kernel: a function called again and again (a layer in
  // a loop, a std call at every step of a recurrence; its specialisation is shared, so are its
  // kernels) interpreted a few thousand points per call, ~1 ms, forever. Once its runs have
  // added up to the threshold, it is compiled like a clause that is large once.
  double work = pts * nk.k.interp_cost;
  if (work < popt_.threshold && add_seen(nk, work) < popt_.threshold) return false;
  nk.deferred = false;
  auto t0 = std::chrono::steady_clock::now();
  if (nk.k.source.empty()) {
    // Planned lazily (PlanOptions::lazy_deferred): generated now, as plan_cell would have.
    std::string why;
    std::optional<codegen::Kernel> k = codegen::generate_deferred(cx_, nk.k, &why);
    if (opt_.jit_stats) opt_.jit_stats->codegen_ms += ms_since(t0);
    if (config::is_set(config::Env::JitTrace) && !k)
      std::fprintf(stderr, "jit: interpreted line %u: %s\n", cx_.sm.start(nk.k.stmt->span).line, why.c_str());
    if (!k) {
      nk.failed = true;
      return false;
    }
    double cost = nk.k.interp_cost;
    nk.k = std::move(*k);
    nk.k.interp_cost = cost;
    t0 = std::chrono::steady_clock::now();
  }
  jit::BatchResult r = load({nk.k.source}, opt_);
  if (opt_.jit_stats) {
    opt_.jit_stats->hits += r.hits;
    opt_.jit_stats->misses += r.misses;
    opt_.jit_stats->compile_ms += r.compile_ms;
    opt_.jit_stats->load_ms += std::max(0.0, ms_since(t0) - r.compile_ms);
  }
  if (r.interrupted) fault("E007", "interrupted while compiling native kernels");
  if (!r.error.empty()) note_error(r.error);
  nk.fn = reinterpret_cast<ein_kernel_fn>(r.fns[0]);
  if (!nk.fn) nk.failed = true;
  return nk.fn != nullptr;
}

// The interpreted work of a deferred kernel's runs so far. A clause of a function (a std
// layer, a helper of an earlier cell) is planned again in every cell that calls it, with new
// node ids; its runs in earlier cells count too, keyed by what names the clause across cells:
// the specialisation's signature (its key without the per-call owner `#N`), the clause's span
// and its tensor. A redefined function is another DefId, so another key. The count only decides
// when to compile (never what runs), so two clauses sharing a key cost nothing but an early
// compile.
double NativeTier::add_seen(NativeKernel& nk, double work) {
  const Unit* u = nk.k.unit;
  if (!u || u->kind != Unit::Kind::Fn || !nk.k.stmt->span.valid()) return nk.seen += work;
  static std::mutex mu;
  static std::unordered_map<std::string, double> seen;
  const Span& sp = nk.k.stmt->span;
  std::string key = u->key.substr(0, u->key.find('#')) + "@" + std::to_string(sp.file) + ":" + std::to_string(sp.lo) +
                    ":" + std::to_string(sp.hi) + ":" + (nk.k.tensor ? nk.k.tensor->name : std::string("="));
  std::lock_guard<std::mutex> lock(mu);
  if (seen.size() > 100000) seen.clear();  // bounded; forgetting only delays a compile
  return nk.seen = (seen[key] += work);
}

bool NativeTier::bounds_past_i64(Interpreter::Impl& in, NativeKernel& nk) {
  bool past = false;
  runtime_points(in, nk.k.stmt, &past);
  return past;
}

bool NativeTier::run_clause(Interpreter::Impl& in, const NodeRef& tensor, const NodeRef& clause) {
  NativeKernel* nk = find(clause->id);
  if (!nk || !ready(in, *nk)) return false;
  if (bounds_past_i64(in, *nk)) {
    materialize(in, *nk);
    return false;
  }
  int rc = call(in, *nk, nullptr);
  if (rc == EIN_MISMATCH) {
    materialize(in, *nk);
    return false;
  }
  (void)tensor;
  return true;
}

bool NativeTier::run_loop(Interpreter::Impl& in, const NodeRef& loop) {
  NativeKernel* nk = find(loop->id);
  if (!nk || nk->k.kind != codegen::KernelKind::Loop || !ready(in, *nk) || !native_loop_args_fit(in, *nk)) return false;
  // Only the driver's own argument count can refuse now, before any iteration ran.
  if (call(in, *nk, nullptr) == EIN_MISMATCH) {
    nk->failed = true;
    return false;
  }
  return true;
}

std::optional<Value> NativeTier::run_let(Interpreter::Impl& in, const NodeRef& let) {
  NativeKernel* nk = find(let->id);
  if (!nk || !ready(in, *nk) || bounds_past_i64(in, *nk)) return std::nullopt;
  Value v;
  if (call(in, *nk, &v) == EIN_MISMATCH) {
    nk->failed = true;
    return std::nullopt;
  }
  return v;
}

int NativeTier::call(Interpreter::Impl& in, NativeKernel& nk, Value* result) {
  return call_native_kernel(in, nk, result, opt_.interrupt);
}

}  // namespace ein
