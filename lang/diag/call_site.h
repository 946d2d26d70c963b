// Moving a diagnostic found inside a called function to the caller's call (own header so that
// the two users, type inference and the interpreter, do not rebuild everything that includes
// diag.h).
#pragma once
#include <string>

#include "lang/diag/diag.h"

namespace ein {

// An error inside the standard library is the caller's to fix: the caret moves to `call`, the
// inner location stays as a label and a note naming the specialisation `callee`.
void point_at_call(Diagnostic& d, Span call, const std::string& callee, const SourceMap& sm);

}  // namespace ein
