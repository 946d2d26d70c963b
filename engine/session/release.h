// Releasing what a session can no longer reach (issue 20).
//
// Every top-level `let` of a cell gets a new DefId, and its value lives in RuntimeEnv::globals
// under that DefId; the compiler also keeps the analysed statement (PersistentFacts) so that a
// later cell can differentiate through it. Rebinding a name hides the old DefId but, without
// this, kept its value and its analysis forever: re-running a cell that binds a 400 MB tensor
// eight times held 3.2 GB.
//
// Values are reference counted (shared storage, engine/value); what the session must do is drop
// its own reference once nothing can observe the binding any more. A binding is reachable when
// a session name refers to it, or a reachable function, closure or recorded definition (the
// "lazy" statement autodiff re-reads) mentions its DefId. After each cell the session marks
// from the visible names and drops the rest of the cell-level bindings.
//
// Still kept per cell (a few hundred bytes): the cell's text and its definitions' DefInfo, which
// diagnostics and the resolver may still name.
#pragma once
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/interp/interp.h"
#include "lang/passes/context.h"
#include "lang/resolve/resolver.h"

namespace ein {

class Releaser {
 public:
  // Drops globals and recorded definitions of cell-level bindings that no session name reaches.
  // Returns how many bindings were dropped.
  size_t sweep(Resolver& resolver, RuntimeEnv& env, PersistentFacts& facts);

 private:
  // DefIds a definition mentions (its value's closures, its recorded statement, its item
  // node), memoised within one sweep.
  const std::vector<ir::DefId>& refs_of(ir::DefId d, Resolver& resolver, const RuntimeEnv& env,
                                        const PersistentFacts& facts);
  std::unordered_map<ir::DefId, std::vector<ir::DefId>> refs_;
};

}  // namespace ein
