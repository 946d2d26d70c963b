// Cells compiled in stages around values typed only at run time.
//
// An unannotated binding of a value whose type the compiler cannot know (`let x = load_npy(p);`,
// a reshape to a shape held in a binding) is dynamic: generic code over it that needs its rank
// or element type (rest patterns, rank dispatch, indexing a library function's result) does not
// compile. A session already types later cells with the exact types of earlier cells' values
// (env_view.h), so a cell whose compile fails after such a binding is run as two cells: the
// statements up to and including the binding (with every item of the cell, so that functions
// defined further down can be called), then the rest, typed with the value it now holds. The
// rest is staged again if it fails after another such binding.
//
// Only cells that fail to compile are staged: a cell that compiles runs as one, as before.
// What a staged cell gives up is atomicity: the first part has run (and printed) when the rest
// reports a compile error, as with two cells typed one after the other.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lang/diag/diag.h"
#include "lang/ir/node.h"

namespace ein {
struct CompileCtx;

struct StagePlan {
  std::string first;  // the cell with the statements after the binding blanked (items kept)
  std::string rest;   // the cell with everything up to the binding blanked
};

// The split of a cell whose compile failed with `errors`, or nothing when no unannotated
// top-level binding of a dynamic value ends before the first error in the cell's own text.
// `parsed` and `resolved` are the cell's program before and after name resolution, `cx` the
// failed compile (its top-level binding types), `base` the offset of `text` in its source
// file (the line offset's newlines). Blanked text keeps its newlines, so both parts report
// the lines and columns of the original cell.
std::optional<StagePlan> plan_stages(const std::string& text, uint32_t base, uint32_t file,
                                     const ir::NodeRef& parsed, const ir::NodeRef& resolved,
                                     const CompileCtx& cx, const std::vector<Diagnostic>& errors);

}  // namespace ein
