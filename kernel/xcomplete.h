// complete_request and inspect_request: what names exist at a cursor, and what one of them is.
// Language facts come from the Session (bindings, module items, docs); the kernel only finds
// the word under the cursor and shapes the reply.
#pragma once
#include <string>
#include <vector>

#include "engine/session/session.h"

namespace ein::kernel {

struct Completion {
  std::vector<std::string> matches;
  std::vector<std::string> kinds;  // per match: "keyword" "function" "variable" "module" "magic"
  size_t start = 0, end = 0;      // byte range of `code` the matches replace
};

Completion complete(Session& s, const std::string& code, size_t cursor);

// Plain-text description of the name at byte `cursor` ("" when there is nothing to say).
// detail > 0 adds the defining source where the session knows it.
std::string inspect(Session& s, const std::string& code, size_t cursor, int detail);

// Description of one name or path, as `name?` shows it in the pager.
std::string describe(Session& s, const std::string& name, int detail);

}  // namespace ein::kernel
