// Jupyter requests on top of the Session (see xinterpreter.h).
#ifdef EIN_HAVE_XEUS
#include "kernel/xinterpreter.h"

#include <unistd.h>

#include <exception>

#include <xeus/xhelper.hpp>

#include "engine/session/commands.h"
#include "kernel/xcomplete.h"
#include "kernel/xdisplay.h"
#include "kernel/xtext.h"

namespace ein::kernel {

namespace {

constexpr const char* kVersion = EIN_VERSION;  // from project() in CMakeLists.txt

// Indentation for the next line of an incomplete cell: the current line's, one level deeper
// after an opening bracket.
std::string next_indent(const std::string& code) {
  size_t end = code.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  size_t line = code.rfind('\n', end);
  line = line == std::string::npos ? 0 : line + 1;
  size_t text = code.find_first_not_of(" \t", line);
  std::string indent = code.substr(line, text - line);
  char last = code[end];
  if (last == '{' || last == '(' || last == '[' || last == '|') indent += "    ";
  return indent;
}

}  // namespace

Interpreter::Interpreter()
    : sink_([this](const std::string& name, const std::string& text) {
        publish_stream(name, text);
      }) {
  SessionOptions opt;
  opt.out = [this](const std::string& text) { sink_.write("stdout", text); };
  session_ = std::make_unique<Session>(std::move(opt));
  progress_ = std::make_unique<ProgressMonitor>(
      *session_,
      ProgressMonitor::View{[this](const ProgressSnapshot& p, double s) { show_progress(p, s); },
                            [this] { hide_progress(); }},
      std::chrono::milliseconds(1000), std::chrono::milliseconds(500));
  // The request handlers need the publisher that xkernel registers after construction.
  xeus::register_interpreter(this);
}

Interpreter::~Interpreter() = default;

// Notebook and Lab pages with a widget manager open a widget comm on every page load. Einlang has
// no widgets; an unregistered target gets its comm_close from xeus, but with an error logged on
// every load. These targets are known and close the comm at once, as the protocol asks.
void Interpreter::configure_impl() {
  auto close_at_once = [](xeus::xcomm&& comm, xeus::xmessage) {
    comm.close(nl::json::object(), nl::json{{"reason", "the Einlang kernel has no widgets"}},
               xeus::buffer_sequence());
  };
  for (const char* target : {"jupyter.widget", "jupyter.widget.control", "jupyter.widget.version"})
    comm_manager().register_comm_target(target, close_at_once);
}

nl::json Interpreter::execute_request_impl(int counter, const std::string& code, bool silent,
                                           bool store_history, nl::json /*user_expressions*/,
                                           bool /*allow_stdin*/) {
  sink_.set_enabled(!silent);
  last_counter_.store(counter);
  nl::json reply;
  // Nothing thrown by a cell may reach xeus: an exception there ends the kernel.
  try {
    int detail = 0;
    std::string name = cmd::help_query(code, &detail);
    reply = name.empty() ? execute_code(counter, code, silent, store_history)
                         : execute_help(code, name, detail);
  } catch (const std::exception& e) {
    sink_.flush();
    reply = report_error("InternalError", e.what(), {std::string("internal error: ") + e.what()},
                         silent);
  } catch (...) {
    sink_.flush();
    reply = report_error("InternalError", "unknown exception", {"internal error"}, silent);
  }
  sink_.set_enabled(true);
  return reply;
}

nl::json Interpreter::report_error(const std::string& ename, const std::string& evalue,
                                   const std::vector<std::string>& traceback, bool silent) {
  if (!silent) publish_execution_error(ename, evalue, traceback);
  // Built by hand: xeus 2.4.1's create_error_reply swaps ename and evalue.
  return nl::json{{"status", "error"}, {"ename", ename}, {"evalue", evalue}, {"traceback", traceback}};
}

nl::json Interpreter::execute_code(int counter, const std::string& code, bool silent,
                                   bool store_history) {
  ExecuteOptions opt;
  opt.color = true;
  opt.number = store_history && !silent ? counter : 0;  // %history lists it as In [counter]
  // Diagnostics name the cell by its In[N] number, so `cell[3]:1:21` points at In [3].
  opt.cell.source_name = "cell[" + std::to_string(counter) + "]";
  if (!silent) {
    static uint64_t cells = 0;
    progress_id_ = "ein-progress-" + std::to_string(getpid()) + "-" + std::to_string(++cells);
    progress_->begin();
  }
  ExecuteResult r = session_->execute(code, opt);
  if (!silent) progress_->end();

  // Order on the wire: program output, command text, warnings, rich displays, then the result
  // or the error — the order in which things happened.
  // A command's text is usually the text/plain of its display too; publish it once.
  bool text_in_display = false;
  for (auto& d : r.displays) {
    auto it = d.mime.find("text/plain");
    text_in_display |= it != d.mime.end() && it->second == r.text;
  }
  if (!r.text.empty() && !text_in_display) sink_.write("stdout", r.text);
  if (r.ok) {
    std::vector<Diagnostic> warnings;
    for (auto& d : r.cell.diags)
      if (d.warning) warnings.push_back(d);
    if (!warnings.empty()) sink_.write("stderr", session_->render(warnings, true));
  }
  sink_.flush();
  if (!silent)
    for (auto& d : r.displays) display_data(display_bundle(d), nl::json::object(), nl::json::object());

  if (!r.ok) {
    ErrorReport e = !r.error.empty() ? command_error(r.error) : cell_error(*session_, r.cell);
    return report_error(e.ename, e.evalue, e.traceback, silent);
  }
  if (!silent && r.cell.value && r.cell.value->tag != Value::Tag::Unit)
    publish_execution_result(counter, value_bundle(*r.cell.value), nl::json::object());
  return xeus::create_successful_reply();
}

void Interpreter::show_progress(const ProgressSnapshot& p, double seconds) {
  std::string text = progress_text(p, seconds, 100);
  if (progress_shown_ && text == progress_last_) return;
  nl::json data = {{"text/plain", text}, {"text/html", progress_html(p, seconds)}};
  nl::json transient = {{"display_id", progress_id_}};
  bool first = !progress_shown_;
  sink_.publish_after_streams([&] {
    if (first) display_data(data, nl::json::object(), transient);
    else update_display_data(data, nl::json::object(), transient);
  });
  progress_shown_ = true;
  progress_last_ = text;
}

// The display stays in the output area (a display cannot be removed without clearing the
// cell's other outputs), emptied.
void Interpreter::hide_progress() {
  if (!progress_shown_) return;
  nl::json data = {{"text/plain", ""}, {"text/html", ""}};
  nl::json transient = {{"display_id", progress_id_}};
  sink_.publish_after_streams([&] { update_display_data(data, nl::json::object(), transient); });
  progress_shown_ = false;
  progress_last_.clear();
}

// `name?` opens the pager, as in IPython: the text goes in a payload, not on the output stream.
nl::json Interpreter::execute_help(const std::string& code, const std::string& name, int detail) {
  std::string text = describe(*session_, name, detail);
  if (text.empty()) {
    // Let the command layer word the failure (unknown name, bad path).
    ExecuteResult r = session_->execute(code, ExecuteOptions{});
    text = !r.error.empty() ? r.error : r.text.empty() ? "`" + name + "` is not defined\n" : r.text;
  }
  sink_.flush();
  nl::json page = {{"source", "page"}, {"data", {{"text/plain", text}}}, {"start", 0}};
  return xeus::create_successful_reply(nl::json::array({page}));
}

nl::json Interpreter::complete_request_impl(const std::string& code, int cursor_pos) {
  try {
    size_t cursor = byte_offset(code, cursor_pos);
    Completion c = complete(*session_, code, cursor);
    long start = code_points(code, c.start), end = code_points(code, c.end);
    nl::json types = nl::json::array();
    for (size_t i = 0; i < c.matches.size(); ++i)
      types.push_back({{"start", start}, {"end", end}, {"text", c.matches[i]}, {"type", c.kinds[i]}});
    return xeus::create_complete_reply(c.matches, int(start), int(end),
                                       {{"_jupyter_types_experimental", types}});
  } catch (const std::exception& e) {
    return nl::json{{"status", "error"}, {"ename", "InternalError"}, {"evalue", e.what()},
                    {"traceback", nl::json::array()}};
  }
}

nl::json Interpreter::inspect_request_impl(const std::string& code, int cursor_pos,
                                           int detail_level) {
  try {
    std::string text = inspect(*session_, code, byte_offset(code, cursor_pos), detail_level);
    if (text.empty()) return xeus::create_inspect_reply(false);
    return xeus::create_inspect_reply(true, {{"text/plain", text}});
  } catch (const std::exception& e) {
    return nl::json{{"status", "error"}, {"ename", "InternalError"}, {"evalue", e.what()},
                    {"traceback", nl::json::array()}};
  }
}

nl::json Interpreter::is_complete_request_impl(const std::string& code) {
  try {
    std::string status = session_->is_complete_input(code);
    if (status == "incomplete") return xeus::create_is_complete_reply(status, next_indent(code));
    return xeus::create_is_complete_reply(status);
  } catch (const std::exception&) {
    return xeus::create_is_complete_reply("unknown");
  }
}

nl::json Interpreter::kernel_info_request_impl() {
  // There is no Pygments or CodeMirror mode for Einlang; Rust's is the closest (let, fn, ::,
  // // comments, |x| lambdas, `as` casts), see docs/jupyter.md.
  return xeus::create_info_reply(XEUS_KERNEL_PROTOCOL_VERSION, "xein", kVersion, "einlang", kVersion,
                                 "text/x-einlang", ".ein", "rust", "rust", "",
                                 std::string("Einlang ") + kVersion +
                                     " — tensor language kernel (xeus). %help lists commands.",
                                 false, nl::json::array());
}

}  // namespace ein::kernel
#endif
