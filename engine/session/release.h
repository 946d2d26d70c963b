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
// The same marks free the bookkeeping of old cells: a cell none of whose definitions (bindings,
// functions, their parameters, locals and index variables, compiler-made temporaries) is
// reachable any more gets its definitions' DefInfo, its lambdas' capture lists and its source
// text released when the next cell starts -- not at once, since the front end still renders the
// cell's diagnostics from that text. A cell that loaded a module keeps everything: module items
// live in the same DefId range. Without this every cell kept ~1 KB (its text, the DefInfo of
// every name it made, a dead function's whole resolved body) for the life of the session.
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

  // Brackets one run_cell: the cell owns the user-crate definitions allocated since the previous
  // cell ended (so ones a front end made between cells are not lost) up to end_cell(); its text
  // is file_id; its lambdas are found in its resolved tree.
  void begin_cell(uint32_t file_id, uint32_t first_def);
  void note_tree(const ir::NodeRef& resolved);
  void end_cell(uint32_t end_def);
  // Releases the cells in which nothing was reachable at the last sweep. Call before a new cell
  // starts. Returns how many cells were released.
  size_t release_cells(Resolver& resolver, SourceMap& sm);

 private:
  struct CellRecord {
    uint32_t file_id = 0;
    uint32_t first_def = 0, end_def = 0;  // 1-based user-crate indices, end exclusive
    std::vector<uint32_t> lambdas;
    bool open = true;
    bool pinned = false;   // loaded a module: kept for good
    uint32_t witness = 0;  // a definition found reachable last time (checked first)
  };
  std::vector<CellRecord> cells_;
  uint32_t next_def_ = 1;  // where the next cell's definitions start
  std::unordered_set<ir::DefId> live_;  // reachable at the last sweep

  // DefIds a definition mentions (its value's closures, its recorded statement, its item
  // node), memoised within one sweep.
  const std::vector<ir::DefId>& refs_of(ir::DefId d, Resolver& resolver, const RuntimeEnv& env,
                                        const PersistentFacts& facts);
  std::unordered_map<ir::DefId, std::vector<ir::DefId>> refs_;
};

}  // namespace ein
