// Session commands (%ir, %time, %who, %plot, ...). Placeholder dispatch: code goes to run_cell;
// the command layer replaces this file.
#include "engine/session/session.h"

namespace ein {

ExecuteResult Session::execute(const std::string& input, const ExecuteOptions& opt) {
  ExecuteResult r;
  r.cell = run_cell(input, opt.cell);
  r.ok = r.cell.ok;
  return r;
}

}  // namespace ein
