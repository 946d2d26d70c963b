// What a long session may free of the resolver's state (engine/session/release.h decides what
// is unreachable). Declared apart from resolver.h, which nearly every file includes.
#pragma once
#include <cstdint>

#include "lang/resolve/resolver.h"

namespace ein {

// Frees the DefInfo of a user-crate definition nothing can reach any more; info() of it then
// gives an empty Local.
void release_def(Resolver& r, ir::DefId d);
// Forgets the capture list of a lambda (by Lambda node id) of a released cell.
void forget_lambda_captures(Resolver& r, uint32_t lambda_id);
// The highest user-crate DefId index allocated so far.
uint32_t user_def_count(const Resolver& r);

}  // namespace ein
