#pragma once

namespace ein {
struct CompileCtx;

// Match exhaustiveness (SPEC §4, thesis §4.6.1): bool scrutinees must cover true and false,
// tuples are checked component-wise over bool and wildcard patterns, every other type needs a
// catch-all arm (wildcard or binding without guard). Reports E002 "non-exhaustive match" naming a
// missing case.
void check_match(CompileCtx& cx);
}  // namespace ein
