#pragma once

namespace ein {
struct CompileCtx;

// Checkpointed reverse sweeps (issue 18), on lowered IR after storage_window. A gradient through
// a recurrence P (fused over axis 0, lookback L) stores every step of P, because its adjoint A
// (a recurrence swept from the last row down) and the parameter reductions (`@loss / @k`:
// sum over t of A[t, ..] * f(P[t - 1, ..])) read P at every step. When storing P and A whole
// would take more than the budget (CompileOptions::ad_memory: EIN_AD_MEMORY, else a quarter of
// EIN_MAX_MEMORY, at most 64 MiB) or the spacing is forced (EIN_AD_CHECKPOINT=k), the cell is
// rewritten so that
//   - the forward sweep runs in segments of k steps; before each, the L (at least) rows it
//     starts from are copied into a checkpoint tensor `P.ckpt[s, j, ..]`, and P keeps a window;
//   - the reverse sweep runs over the segments from the last to the first: it recomputes the
//     segment's rows of P from its checkpoint into a windowed buffer `P.seg`, runs A's steps of
//     the segment (A windowed when its other readers only read its first rows; its reads of P
//     at constant rows, such as a seed `u[T - 1, ..]` inside A's loop, stay reads of P's window)
//     and adds each reduction's terms of the segment into a partial sum `x.part[s]`; the
//     reduction becomes the sum of its partials. A tensor of such sums (`d_W[j, k] = sum[t](..)`,
//     a vector parameter's gradient) is allocated before the sweep and each segment adds its
//     terms into it.
// Each segment loop is one native loop kernel (engine/codegen/loop_kernel.cpp).
// k is sqrt(T * L) (checkpoints and buffer about equal) shortened so that one segment's rows of
// the buffer and the adjoint fit 1.5 MiB of cache, unless the checkpoints would then take more
// than a quarter of the budget (Checkpoint::spacing). Anything not matching the
// pattern exactly keeps today's store-everything form. When checkpoints would save little (the
// adjoint read whole) or the primal is a session cell's global (a later cell may read every
// row), but the rows outgrow the cache and there are reductions, the stored form sweeps back in
// blocks of kBlockCache bytes of rows instead: each block's adjoint steps, then its terms of the
// reductions (the same partial sums), nothing recomputed; the plan is the aux of the adjoint. Resumed tensors (a later statement that
// writes into a tensor allocated earlier) are LTensors with the kResume flag; the plan is the aux
// text of the checkpoint tensor, only printed by %ir.
// Time loops run together (checkpoint_fuse.cpp): a later forward recurrence Q over the same steps
// that reads P only at its current and earlier rows (the forward tangent autodiff writes for a
// scalar parameter through a wide recurrence, ad_request.cpp `tangent_first`) moves into P's time
// loop, in blocks of steps whose rows of P fit kBlockCache, when every other reader of P reads
// its last rows only: P then keeps a window (a power of two, at least a block and Q's lookback)
// instead of every row, and the plan is the aux of P.
void checkpoint(CompileCtx& cx);
}  // namespace ein
