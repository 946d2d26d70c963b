#pragma once

namespace ein {
struct CompileCtx;

// Frame layout: every local of a unit (parameters, captures, lets, loop and reduction indices,
// where-lets, comprehension and pattern variables, local tensors) gets a frame slot; defining
// nodes and Name references carry it in Node::slot, so execution never looks locals up by DefId.
// Globals (top-level bindings of cells, consts) keep slot -1 and live in the session env.
void frame_layout(CompileCtx& cx);
}  // namespace ein
