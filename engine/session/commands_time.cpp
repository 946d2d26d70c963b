// %time, %timeit and the phase grouping shared with `ein --timings`.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "engine/session/commands.h"
#include "lang/passes/driver.h"

namespace ein::cmd {

Phases group_phases(const CellResult& r) {
  Phases p;
  const auto& passes = pass_names();
  auto lowering_begin = std::find(passes.begin(), passes.end(), "lower_einstein");
  for (auto& t : r.timings) {
    if (t.phase == "parse") {
      p.parse += t.ms;
    } else if (t.phase == "run") {
      p.run += t.ms;
    } else if (t.phase == "resolve" || t.phase == kDriverPhase) {
      p.analysis += t.ms;
    } else if (t.phase == "codegen") {
      p.codegen += t.ms;
    } else if (t.phase == "load") {
      p.load += t.ms;
    } else if (t.phase == "session") {
      p.session += t.ms;
    } else if (auto it = std::find(passes.begin(), passes.end(), t.phase); it != passes.end()) {
      // Passes are ordered: everything before Einstein lowering analyses, the rest lowers.
      (it < lowering_begin ? p.analysis : p.lowering) += t.ms;
    } else {
      p.unattributed += t.ms;
    }
  }
  // The native tier compiles while the cell runs (kernels are loaded when the interpreter
  // starts, deferred ones on first use), so the "run" phase contains the compiler's time;
  // it is shown once, as compile.
  p.compile = r.compile_ms;
  p.run = std::max(0.0, p.run - r.compile_ms);
  return p;
}

std::vector<std::pair<std::string, double>> pass_times(const CellResult& r) {
  std::vector<std::pair<std::string, double>> out;
  for (auto& t : r.timings) {
    if (t.phase == "parse" || t.phase == "run" || t.phase == "load" || t.phase == "session") continue;
    auto it = std::find_if(out.begin(), out.end(), [&](auto& p) { return p.first == t.phase; });
    if (it == out.end()) out.emplace_back(t.phase, t.ms);
    else it->second += t.ms;
  }
  return out;
}

std::string timings_report(const CellResult& r) {
  Phases p = group_phases(r);
  std::string out;
  char buf[128];
  const std::pair<const char*, double> rows[] = {{"parse", p.parse},     {"analysis", p.analysis},
                                                 {"lowering", p.lowering}, {"codegen", p.codegen},
                                                 {"compile", p.compile}, {"load", p.load},
                                                 {"run", p.run},         {"session", p.session}};
  for (auto& [name, ms] : rows) {
    std::snprintf(buf, sizeof buf, "timing: %s %.3f ms\n", name, ms);
    out += buf;
  }
  if (p.unattributed > 0) {
    std::snprintf(buf, sizeof buf, "timing: unattributed %.3f ms\n", p.unattributed);
    out += buf;
  }
  for (auto& [name, ms] : pass_times(r)) {
    std::snprintf(buf, sizeof buf, "timing: pass %s %.3f ms\n", name.c_str(), ms);
    out += buf;
  }
  for (auto& [line, ms] : r.stmt_ms) {
    std::snprintf(buf, sizeof buf, "timing: stmt line=%d %.3f ms\n", line, ms);
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "kernels: %d hits, %d misses, compile %.3f ms\n", r.kernel_hits,
                r.kernel_misses, r.compile_ms);
  return out + buf;
}

namespace {

std::vector<std::vector<std::string>> phase_rows(const CellResult& r) {
  Phases p = group_phases(r);
  auto ms = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f ms", v);
    return std::string(buf);
  };
  return {{"phase", "time"},
          {"parse", ms(p.parse)},
          {"analysis", ms(p.analysis)},
          {"lowering", ms(p.lowering)},
          {"codegen", ms(p.codegen)},
          {"compile", ms(p.compile)},
          {"load", ms(p.load)},
          {"run", ms(p.run)},
          {"session", ms(p.session)},
          {"total", ms(p.total())},
          {"kernels", std::to_string(r.kernel_hits) + " hits, " + std::to_string(r.kernel_misses) + " misses"}};
}

}  // namespace

std::string phases_text(const CellResult& r) { return text_table(phase_rows(r)); }
std::string phases_html(const CellResult& r) { return html_table(phase_rows(r)); }

void cmd_time(Call& c) {
  std::string a = trim(c.args);
  if (a == "on" || a == "off") {
    c.session.command_state().time_every_cell = a == "on";
    c.out.text = std::string("timings after every cell: ") + a + "\n";
    return;
  }
  if (a.empty()) throw Error("usage: %time CODE | on | off");
  c.out.cell = c.session.run_cell(a, c.opt.cell);
  c.out.ok = c.out.cell.ok;
  emit(c, phases_text(c.out.cell), phases_html(c.out.cell));
}

// IPython's %timeit: find a loop count whose batch takes at least 0.2 s, then time 7 batches.
// Every run compiles the cell again (a session cell cannot be re-run without recompiling), so
// the batch size is chosen on wall time (compile included, which bounds the total), while the
// statistics are of the "run" phase only: what the code costs, not the compiler.
void cmd_timeit(Call& c) {
  std::string code = trim(c.args);
  if (code.empty()) throw Error("usage: %timeit CODE");
  Session& s = c.session;
  // Code run for measurement only must not leave bindings behind: inside a block its `let`s
  // are locals.
  CellOptions run = c.opt.cell;
  run.as_block = !binds_nothing(code);
  CellOptions check = run;
  check.execute = false;
  CellResult probe = s.run_cell(code, check);
  if (!probe.ok) {
    // Items such as `use` may not be allowed in a block: time the code as written; then its
    // bindings stay, as IPython's do.
    check.as_block = false;
    CellResult plain = s.run_cell(code, check);
    if (!plain.ok) {
      c.out.cell = plain;
      c.out.ok = false;
      return;
    }
    run.as_block = false;
  }
  uint64_t interrupts = s.interrupt_count();
  // The front ends' progress display says where the measurement is (it can take minutes when
  // one loop takes seconds); the label goes away however this command ends.
  struct Label {
    Session& s;
    ~Label() { s.set_progress_label(""); }
  } label{s};
  std::string stage = "%timeit: choosing the loop count";
  auto batch = [&](long number, double& run_ms, double& wall_ms, double& compile_ms) -> bool {
    run_ms = compile_ms = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < number; ++i) {
      s.set_progress_label(stage + " · loop " + std::to_string(i + 1) + " of " + std::to_string(number));
      CellResult r = s.run_cell(code, run);
      if (!r.ok || s.interrupt_count() != interrupts) {
        c.out.ok = false;
        if (r.ok) c.out.error = "%timeit: interrupted";
        else c.out.cell = r;
        return false;
      }
      cmd::Phases p = group_phases(r);
      run_ms += p.run;
      compile_ms += p.total() - p.run;
    }
    wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return true;
  };
  long number = 1;
  double run_ms = 0, wall_ms = 0, compile_ms = 0;
  for (int step = 0;; ++step) {
    if (!batch(number, run_ms, wall_ms, compile_ms)) return;
    if (wall_ms >= 200 || number >= 10000000) break;
    number = step % 3 == 1 ? number * 5 / 2 : number * 2;  // 1 2 5 10 20 50 100 ...
  }
  std::vector<double> per_loop;
  double compile_total = 0;
  for (int rep = 0; rep < 7; ++rep) {
    stage = "%timeit: run " + std::to_string(rep + 1) + " of 7";
    if (!batch(number, run_ms, wall_ms, compile_ms)) return;
    per_loop.push_back(run_ms / static_cast<double>(number));
    compile_total += compile_ms;
  }
  double mean = 0;
  for (double v : per_loop) mean += v;
  mean /= static_cast<double>(per_loop.size());
  double var = 0;
  for (double v : per_loop) var += (v - mean) * (v - mean);
  double sd = std::sqrt(var / static_cast<double>(per_loop.size()));
  double best = *std::min_element(per_loop.begin(), per_loop.end());
  double compile_each = compile_total / (7.0 * static_cast<double>(number));
  std::string text = format_duration(mean) + " ± " + format_duration(sd) + " per loop (mean ± std. dev. of 7 runs, " +
               std::to_string(number) + (number == 1 ? " loop" : " loops") + " each); best " +
               format_duration(best) + "\n" + "(run phase only; compiling the cell took " +
               format_duration(compile_each) + " per loop)\n";
  std::vector<std::vector<std::string>> rows = {{"mean", "std. dev.", "best", "runs", "loops", "compile"},
                                                {format_duration(mean), format_duration(sd),
                                                 format_duration(best), "7", std::to_string(number),
                                                 format_duration(compile_each)}};
  emit(c, text, html_table(rows));
}

}  // namespace ein::cmd
