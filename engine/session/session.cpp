#include "engine/session/session.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <mutex>
#include <set>

#include "engine/codegen/codegen.h"
#include "engine/config/env.h"
#include "engine/interp/interp.h"
#include "engine/session/env_view.h"
#include "engine/session/release.h"
#include "engine/session/staging.h"
#include "engine/value/value.h"
#include "lang/ir/type.h"
#include "lang/passes/context.h"
#include "lang/passes/driver.h"
#include "lang/resolve/release.h"
#include "lang/resolve/resolver.h"
#include "lang/syntax/parser.h"

namespace ein {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Runs fn on a thread with a large stack: deep user recursion is stopped by the depth limit
// (E007), never by a native stack overflow.
void run_on_big_stack(const std::function<void()>& fn) {
  struct Ctx {
    const std::function<void()>* fn;
    std::exception_ptr err;
  } ctx{&fn, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, size_t(1) << 30);  // reserved, not committed
  pthread_t th;
  auto body = [](void* p) -> void* {
    auto* c = static_cast<Ctx*>(p);
    try {
      (*c->fn)();
    } catch (...) {
      c->err = std::current_exception();
    }
    return nullptr;
  };
  if (pthread_create(&th, &attr, body, &ctx) != 0) {
    pthread_attr_destroy(&attr);
    fn();  // fall back to the current thread
    return;
  }
  pthread_join(th, nullptr);
  pthread_attr_destroy(&attr);
  if (ctx.err) std::rethrow_exception(ctx.err);
}

// Identical diagnostics (one function body analysed for several specialisations) are shown once.
std::vector<Diagnostic> dedupe(std::vector<Diagnostic> ds) {
  std::vector<Diagnostic> out;
  std::set<std::tuple<std::string, std::string, uint32_t, uint32_t, uint32_t>> seen;
  for (auto& d : ds)
    if (seen.insert({d.code, d.message, d.primary.file, d.primary.lo, d.primary.hi}).second)
      out.push_back(std::move(d));
  return out;
}

// Does `_` stand alone as a name in text (not inside `x_1` or `_tmp`)? Strings and comments
// are not skipped: a false positive only costs one DefId.
bool mentions_underscore(const std::string& text) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t i = text.find('_'); i != std::string::npos; i = text.find('_', i + 1))
    if ((i == 0 || !word(text[i - 1])) && (i + 1 == text.size() || !word(text[i + 1]))) return true;
  return false;
}

}  // namespace

std::string default_share_dir() {
  if (auto e = config::value(config::Env::ShareDir)) return *e;
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (auto dir : {exe.parent_path().parent_path() / "share", exe.parent_path() / "share",
                     exe.parent_path().parent_path() / "share" / "ein"}) {
      if (std::filesystem::is_directory(dir / "std", ec)) return dir.string();
    }
  }
  return EIN_SHARE_DIR;
}

struct Session::Impl {
  SessionOptions opt;
  SourceMap sm;
  Resolver resolver;
  RuntimeEnv env;
  EnvView view;
  PersistentFacts facts;
  Releaser releaser;
  int count = 0;
  std::atomic<bool> interrupt_flag{false};
  std::atomic<uint64_t> interrupt_calls{0};
  // Progress of the running cell (Session::progress): counters written by the cell's thread,
  // the cell's text and a command's label behind a mutex (the timer thread reads them).
  Progress progress;
  mutable std::mutex progress_mu;
  std::string running_text;  // the executing cell's text ("" when none runs)
  int running_offset = 0;    // its CellOptions::line_offset
  bool running = false;
  std::string progress_label;
  ir::DefId last_result;          // the DefId `_` names (Session::set_last_result)
  bool last_result_read = false;  // a cell mentioned `_` since it was bound
  // Set by run() when its cell failed to compile after a binding typed only at run time
  // (staging.h); run_in_stages() then runs the two parts.
  std::optional<StagePlan> stages;
  bool may_stage = true;  // false while the first part of a staged cell runs

  explicit Impl(SessionOptions o)
      : opt(std::move(o)),
        resolver(sm, ResolverOptions{opt.share_dir.empty() ? default_share_dir() : opt.share_dir,
                                     opt.root_dir}),
        view(env) {
    if (!opt.out) opt.out = [](const std::string& s) {
        std::fwrite(s.data(), 1, s.size(), stdout);
        std::fflush(stdout);
      };
  }

  CellResult run(const std::string& text, const CellOptions& copt);
  CellResult run_in_stages(const std::string& text, const CellOptions& copt);
};

Session::Session(SessionOptions opt) : impl_(std::make_unique<Impl>(std::move(opt))) {}
Session::~Session() = default;

CellResult Session::run_cell(const std::string& text, const CellOptions& opt) {
  CellResult r;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    run_on_big_stack([&] { r = impl_->run_in_stages(text, opt); });
  } catch (const std::exception& e) {
    // An internal error (a broken IR invariant: std::logic_error from lang/ir) ends the cell
    // with a diagnostic, never the process (SPEC §9). The session keeps its earlier state.
    r = CellResult{};
    r.ok = false;
    r.compile_error = true;
    Diagnostic d;
    d.code = "E011";
    d.message = std::string("this cell hit an internal error of the compiler: ") + e.what();
    d.help = "nothing of this cell was kept; please report the cell that caused it";
    r.diags.push_back(d);
    r.rendered = ein::render(d, impl_->sm, RenderOptions{false}) + ein::render_abort_line(1, RenderOptions{false});
  }
  // The cell's time outside its phases is the session's own: starting the cell's thread,
  // recording the text, releasing earlier cells and, once the cell is done, freeing its compile
  // context and interpreter (their IR, frames and kernels' handles).
  double logged = 0;
  for (auto& t : r.timings) logged += t.ms;
  r.timings.push_back({"session", std::max(0.0, ms_since(t0) - logged)});
  return r;
}

CellResult Session::Impl::run(const std::string& code, const CellOptions& copt) {
  const std::string text = copt.as_block ? "{ " + code + "\n}" : code;
  CellResult res;
  res.number = ++count;
  interrupt_flag.store(false);
  // Old cells nothing reaches any more are released before this one starts (release.h).
  if (!opt.whole_program) releaser.release_cells(resolver, sm);
  std::string name = copt.source_name.empty() ? "cell[" + std::to_string(res.number) + "]" : copt.source_name;
  last_result_read = last_result_read || mentions_underscore(text);
  uint32_t fid = sm.add(name, std::string(static_cast<size_t>(std::max(0, copt.line_offset)), '\n') + text);
  res.file_id = fid;
  // Every way out of this function (compile errors, run-time errors, exceptions) closes the
  // cell's record, so that a failed cell's definitions can be released too.
  releaser.begin_cell(fid, user_def_count(resolver) + 1);
  struct CloseCell {
    Impl& m;
    ~CloseCell() { m.releaser.end_cell(user_def_count(m.resolver)); }
  } close_cell{*this};
  DiagSink diags;
  auto finish_compile_error = [&] {
    res.ok = false;
    res.compile_error = true;
    res.diags = dedupe(diags.take());
    size_t n = 0;
    for (auto& d : res.diags) {
      res.rendered += ein::render(d, sm, RenderOptions{false});
      if (!d.warning) ++n;
    }
    res.rendered += render_abort_line(n, RenderOptions{false});
    return res;
  };

  auto t0 = std::chrono::steady_clock::now();
  ParseResult pr = parse_program(sm, fid);
  res.timings.push_back({"parse", ms_since(t0)});
  if (copt.dump_stage == "ast") res.dump = ir::to_sexpr(pr.program) + "\n";
  if (!pr.diags.empty()) {
    for (auto& d : pr.diags) diags.report(d);
    return finish_compile_error();
  }

  t0 = std::chrono::steady_clock::now();
  ir::NodeRef resolved = resolver.resolve_cell(pr.program, diags);
  res.timings.push_back({"resolve", ms_since(t0)});
  releaser.note_tree(resolved);
  if (copt.dump_stage == "resolved") res.dump = ir::to_sexpr(resolved) + "\n";
  if (diags.has_errors()) return finish_compile_error();

  CompileCtx cx(sm, resolver, diags, view);
  cx.opt.whole_program = opt.whole_program;
  cx.opt.records_cell = copt.execute;  // only a cell that runs is "the previous cell" (SPEC §11)
  // Checkpointed gradients (lang/passes/checkpoint.h): EIN_AD_MEMORY, else 64 MiB but at most a
  // quarter of the process's memory limit; EIN_AD_CHECKPOINT forces a spacing.
  cx.opt.ad_memory = config::bytes(config::Env::AdMemory).value_or(std::min<int64_t>(int64_t{64} << 20, memory_limit() / 4));
  cx.opt.ad_checkpoint = config::count(config::Env::AdCheckpoint).value_or(0);
  cx.opt.npy_probe = npy_file_type;
  // Calls on rows (lang/passes/row_inline.h): EIN_ROW_INLINE=never keeps every call, trace
  // prints what happened to each.
  if (auto v = config::value(config::Env::RowInline)) cx.opt.row_inline = *v == "never" ? 0 : *v == "trace" ? 2 : 1;
  if (auto v = config::value(config::Env::RowFuse)) cx.opt.row_fuse = *v == "never" ? 0 : 1;
  cx.persist = &facts;
  PipelineOptions popt;
  std::string stage = copt.dump_stage;
  if (stage.rfind("after=", 0) == 0) stage = stage.substr(6);
  if (stage == "lowered") stage = pass_names().back();
  popt.dump_after = stage;
  popt.dump = &res.dump;
  popt.dumped_fns = &res.dumped_fns;
  bool ok = run_pipeline(cx, resolved, popt);
  for (auto& t : cx.timings) res.timings.push_back({t.pass, t.ms});
  if (may_stage && copt.execute && copt.dump_stage.empty() && !copt.as_block)
    stages = plan_stages(text, static_cast<uint32_t>(std::max(0, copt.line_offset)), fid, pr.program,
                         resolved, cx, diags.all());
  if (!ok) {
    // A compile error changes nothing: forget the names this cell introduced.
    resolver.rollback_cell();
    return finish_compile_error();
  }
  if (stages) {
    // Compiled, but with generic code typed over values it will know once they exist: the
    // cell runs in parts instead (run_in_stages); this compile is dropped.
    resolver.rollback_cell();
    return res;
  }
  std::string jit_mode = opt.jit;
  if (jit_mode.empty()) {
    jit_mode = config::value(config::Env::Jit).value_or("auto");
  }
  if (copt.dump_stage == "kernel") {
    // `%ir kernel`: the native-kernel plan and generated C++ (as if `always` when kernels are off).
    codegen::PlanOptions kopt;
    kopt.mode = codegen::parse_mode(jit_mode);
    std::string head = "// EIN_JIT=" + jit_mode + "\n";
    if (kopt.mode == codegen::PlanOptions::Mode::Never) kopt.mode = codegen::PlanOptions::Mode::Always;
    auto tk = std::chrono::steady_clock::now();
    res.dump = head + codegen::describe(cx, codegen::plan_cell(cx, kopt), true);
    res.timings.push_back({"codegen", ms_since(tk)});
  }
  if (!copt.execute) {
    resolver.rollback_cell();
    return res;
  }

  t0 = std::chrono::steady_clock::now();
  ExecOptions eopt;
  eopt.max_depth = opt.max_depth;
  eopt.interrupt = &interrupt_flag;
  eopt.out = opt.out;
  eopt.jit = jit_mode;
  JitStats jit_stats;
  eopt.jit_stats = &jit_stats;
  eopt.progress = &progress;
  progress.start_statement(0);
  {
    std::lock_guard<std::mutex> lk(progress_mu);
    running_text = code;  // what the user wrote (progress shows its lines, not a wrapper's)
    running_offset = copt.line_offset;
    running = true;
  }
  struct Stopped {
    Impl& m;
    ~Stopped() {
      std::lock_guard<std::mutex> lk(m.progress_mu);
      m.running = false;
      std::string().swap(m.running_text);  // a large cell's copy is not kept
    }
  };
  Interpreter interp(cx, env, eopt);
  try {
    Stopped stopped{*this};
    res.value = interp.run_cell();
  } catch (const DiagError& e) {
    res.ok = false;
    res.diags = e.diags;
    for (auto& d : res.diags) res.rendered += ein::render(d, sm, RenderOptions{false});
  }
  // Kernels are planned and written when the interpreter starts: that part of the run is codegen;
  // looking them up in the cache and loading them (the compiler's time aside) is load.
  res.timings.push_back({"codegen", jit_stats.codegen_ms});
  res.timings.push_back({"load", jit_stats.load_ms});
  res.timings.push_back({"run", ms_since(t0) - jit_stats.codegen_ms - jit_stats.load_ms});
  res.kernel_hits = jit_stats.hits;
  res.kernel_misses = jit_stats.misses;
  res.compile_ms = jit_stats.compile_ms;
  resolver.settle_cell([&](ir::DefId d) { return env.globals.count(d) > 0; });
  // Bindings this cell shadowed are released now, unless something still reaches them.
  if (!opt.whole_program) releaser.sweep(resolver, env, facts);
  for (auto& s : interp.stmt_timings()) res.stmt_ms.emplace_back(s.line - copt.line_offset, s.ms);
  return res;
}

// The first part runs as an ordinary cell (not a whole program: the rest still reads its
// bindings); the rest is staged again if it fails after another dynamic binding. Both parts
// keep the cell's name, lines and execution number.
CellResult Session::Impl::run_in_stages(const std::string& code, const CellOptions& copt) {
  stages.reset();
  CellResult res = run(code, copt);
  if (!stages) return res;
  StagePlan plan = std::move(*stages);
  stages.reset();
  const int number = res.number;
  CellOptions part = copt;
  if (part.source_name.empty()) part.source_name = "cell[" + std::to_string(number) + "]";
  CellResult first;
  {
    // The first part ends where the cell first needed a run-time type: it is not staged.
    struct Restore {
      Impl& m;
      bool whole;
      ~Restore() { m.opt.whole_program = whole, m.may_stage = true; }
    } restore{*this, opt.whole_program};
    opt.whole_program = false;
    may_stage = false;
    first = run(plan.first, part);
  }
  first.number = number;
  if (!first.ok) return first;
  CellResult rest = run_in_stages(plan.rest, part);
  rest.number = count = number;
  rest.timings.insert(rest.timings.begin(), first.timings.begin(), first.timings.end());
  rest.stmt_ms.insert(rest.stmt_ms.begin(), first.stmt_ms.begin(), first.stmt_ms.end());
  rest.kernel_hits += first.kernel_hits;
  rest.kernel_misses += first.kernel_misses;
  rest.compile_ms += first.compile_ms;
  return rest;
}

std::string Session::is_complete(const std::string& text) const { return completeness(text); }

std::string Session::render(const std::vector<Diagnostic>& diags, bool color) const {
  std::string out;
  for (auto& d : diags) out += ein::render(d, impl_->sm, RenderOptions{color});
  return out;
}

void Session::reset() {
  impl_->resolver.reset();
  impl_->env.globals.clear();
  impl_->facts.defs.clear();
  impl_->facts.differentials.clear();
}

void Session::interrupt() {
  impl_->interrupt_flag.store(true);
  impl_->interrupt_calls.fetch_add(1);
}

// `_` changes after most cells. A new DefId each time would keep a DefInfo per cell (issue 20's
// memory budget); the binding is replaced in place instead while no cell has read `_` since it
// was made — nothing compiled can then refer to it. Once a cell reads it, the next value gets a
// new DefId, so what that cell saw stays as it was (SPEC §11).
void Session::set_last_result(const Value& v) {
  Impl& m = *impl_;
  if (m.last_result.valid() && !m.last_result_read && m.resolver.lookup_session(ir::ModPath::name("_")) == m.last_result) {
    m.env.globals[m.last_result] = v;
    return;
  }
  m.last_result = m.resolver.bind_session_global("_");
  m.last_result_read = false;
  m.env.globals[m.last_result] = v;
}

int Session::execution_count() const { return impl_->count; }

void Session::set_jit_mode(const std::string& mode) { impl_->opt.jit = mode; }

std::string Session::jit_mode() const {
  if (!impl_->opt.jit.empty()) return impl_->opt.jit;
  return config::value(config::Env::Jit).value_or("auto");
}

std::vector<std::pair<std::string, std::string>> Session::bindings() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& [name, def] : impl_->resolver.session_names()) {
    auto it = impl_->env.globals.find(def);
    if (it != impl_->env.globals.end()) out.emplace_back(name, type_string(it->second));
  }
  return out;
}

std::optional<Value> Session::value_of(const std::string& name) const {
  for (auto& [n, def] : impl_->resolver.session_names()) {
    if (n != name) continue;
    auto it = impl_->env.globals.find(def);
    if (it != impl_->env.globals.end()) return it->second;
  }
  return std::nullopt;
}

std::vector<std::string> Session::module_items(const ir::ModPath& path) {
  return impl_->resolver.module_items(path);
}

std::string Session::doc_of(const std::string& name) {
  auto path = ir::ModPath::parse(name);
  ir::DefId d = path ? impl_->resolver.lookup_session(*path) : ir::DefId{};
  if (!d.valid()) return "";
  return impl_->resolver.info(d).doc;
}

// ---- for the command layer ---------------------------------------------------------------------

uint64_t Session::interrupt_count() const { return impl_->interrupt_calls.load(); }

void Session::set_progress_label(const std::string& label) {
  std::lock_guard<std::mutex> lk(impl_->progress_mu);
  impl_->progress_label = label;
}

ProgressSnapshot Session::progress() const {
  const Impl& m = *impl_;
  ProgressSnapshot p;
  std::lock_guard<std::mutex> lk(m.progress_mu);
  p.label = m.progress_label;
  p.running = m.running;
  if (!p.running) return p;
  p.compiling = m.progress.compiling.load(std::memory_order_relaxed);
  p.line = m.progress.line.load(std::memory_order_relaxed) - m.running_offset;
  p.total = m.progress.steps[1].load(std::memory_order_relaxed);
  p.done = std::clamp<int64_t>(m.progress.steps[0].load(std::memory_order_relaxed), 0, std::max<int64_t>(p.total, 0));
  if (p.line > 0) {
    size_t at = 0;
    for (int l = 1; l < p.line && at != std::string::npos; ++l) {
      at = m.running_text.find('\n', at);
      if (at != std::string::npos) ++at;
    }
    if (at != std::string::npos) p.statement = m.running_text.substr(at, m.running_text.find('\n', at) - at);
  }
  return p;
}

const char* Session::name_kind_word(NameKind k) {
  switch (k) {
    case NameKind::Fn: return "fn";
    case NameKind::Const: return "const";
    case NameKind::Let: return "let";
    case NameKind::Builtin: return "builtin";
    case NameKind::Module: return "module";
    case NameKind::Local: return "local";
  }
  return "local";
}

std::optional<Session::NameInfo> Session::name_info(const std::string& typed) {
  auto path = ir::ModPath::parse(typed);
  return path ? name_info(*path) : std::nullopt;
}

std::optional<Session::NameInfo> Session::name_info(const ir::ModPath& name) {
  ir::DefId d = impl_->resolver.lookup_session(name);
  if (!d.valid()) return std::nullopt;
  const DefInfo& di = impl_->resolver.info(d);
  NameInfo ni;
  ni.name = name.text();
  ni.doc = di.doc;
  ni.node = di.node;
  ni.in_session = d.crate == ir::kUserCrate && di.module.empty();
  switch (di.kind) {
    case DefKind::Builtin: ni.kind = NameKind::Builtin; break;
    case DefKind::Fn: ni.kind = NameKind::Fn; break;
    case DefKind::Const: ni.kind = NameKind::Const; break;
    case DefKind::Module: ni.kind = NameKind::Module; break;
    case DefKind::Global: ni.kind = NameKind::Let; break;
    default: ni.kind = NameKind::Local; break;
  }
  const SourceMap& sm = impl_->sm;
  if (!di.span.valid() || !sm.has(di.span.file)) return ni;
  // The definition's span is its name or pattern; the statement around it is found by parsing
  // that text again (parsing has no side effects). Piecewise clauses of one tensor are kept
  // together, since they are one definition.
  ParseResult pr = parse_program(sm, di.span.file);
  const auto& stmts = pr.program->kids;
  for (size_t i = 0; i < stmts.size(); ++i) {
    const ir::NodeRef& st = stmts[i];
    if (!st || st->span.lo > di.span.lo || st->span.hi < di.span.hi) continue;
    Span whole = st->span;
    for (size_t j = i + 1; st->kind == ir::Kind::EinDecl && j < stmts.size(); ++j) {
      if (!stmts[j] || stmts[j]->kind != ir::Kind::EinDecl || stmts[j]->name != st->name) break;
      whole = Span::join(whole, stmts[j]->span);
    }
    ni.source = sm.snippet(whole);
    ni.source_name = sm.file(whole.file).name;
    ni.line = sm.start(whole).line;
    break;
  }
  return ni;
}

std::vector<std::string> Session::session_names() const {
  std::vector<std::string> out;
  for (auto& [n, d] : impl_->resolver.session_names()) out.push_back(n);
  return out;
}

std::vector<ir::ModPath> Session::std_homes(const std::string& name) { return impl_->resolver.std_homes(name); }

std::vector<std::string> Session::module_children(const ir::ModPath& path) {
  std::set<std::string> out;
  for (auto& n : impl_->resolver.module_items(path)) out.insert(n);
  for (auto& n : impl_->resolver.submodules(path)) out.insert(n);
  // Modules not loaded yet exist only as files, where the resolver would look for them.
  std::filesystem::path dir(impl_->resolver.module_dir(path));
  std::error_code ec;
  if (!path.empty() && std::filesystem::is_directory(dir, ec)) {
    for (auto& ent : std::filesystem::directory_iterator(dir, ec)) {
      std::string n = ent.path().filename().string();
      if (ent.is_directory(ec)) {
        out.insert(n);
      } else if (ent.path().extension() == ".ein" && n != "mod.ein") {
        out.insert(ent.path().stem().string());
      }
    }
  }
  return {out.begin(), out.end()};
}

}  // namespace ein
