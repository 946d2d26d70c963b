// Minimal interactive loop: reads cells until they are complete and runs them in one session.
// (Line editing, history, completion and commands arrive with the REPL issue.)
#include "repl/repl.h"

#include <cstdio>
#include <iostream>
#include <string>

#include "engine/session/session.h"

namespace ein {

int run_repl() {
  Session session;
  std::string buf, line;
  std::fputs("ein 0.1 — Einlang REPL. Ctrl-D exits.\n", stdout);
  while (true) {
    std::fputs(buf.empty() ? ">>> " : "... ", stdout);
    std::fflush(stdout);
    if (!std::getline(std::cin, line)) break;
    buf += line + "\n";
    if (session.is_complete(buf) == "incomplete") continue;
    CellResult r = session.run_cell(buf);
    buf.clear();
    if (r.value && r.value->tag != Value::Tag::Unit)
      std::printf("%s\n", format_value(*r.value).c_str());
    if (!r.rendered.empty()) std::fputs(r.rendered.c_str(), stderr);
  }
  std::fputs("\n", stdout);
  return 0;
}

}  // namespace ein
