// SIGINT while `ein FILE`, `ein -c` or `ein --cells` runs (reliability, issue 19): the first
// Ctrl-C interrupts the session (the running statement stops with E007, its diagnostic is
// printed), and the runner then exits with status 130; a second Ctrl-C ends the process at once
// (for work that does not poll the interrupt flag, such as a long compilation pass).
#pragma once
#include "engine/session/session.h"

namespace ein {

// Routes SIGINT to `session` until the object is destroyed.
class FileInterrupt {
 public:
  explicit FileInterrupt(Session& session);
  ~FileInterrupt();
  FileInterrupt(const FileInterrupt&) = delete;
  FileInterrupt& operator=(const FileInterrupt&) = delete;

  // Was SIGINT received? If so and `r` carries no E007 diagnostic (the interrupt came too late
  // or too early to be seen by a statement), one is printed to stderr.
  bool finish(const CellResult& r) const;
  // Before the next cell of --cells: was SIGINT received between cells? (Prints E007.)
  bool pending() const;
};

}  // namespace ein
