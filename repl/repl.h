// The interactive terminal front end (line editing, history, completion, commands).
#pragma once

namespace ein {
// Runs the REPL on the terminal until Ctrl-D; returns the process exit status.
int run_repl();
}  // namespace ein
