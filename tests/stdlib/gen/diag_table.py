"""The diagnostics survey's table (session 23, tests/stdlib/survey_diag.py): the misuses programs
make of std functions with a shape, rank, axis, length, dtype or attribute constraint. Each case
is (name, call, codes, words):

- `call` is the misusing expression; arrays are named by kind and shape and declared by the
  survey: `f_2_3` is an f32 [2, 3], `d_` f64, `i_` i32, `l_` i64, `q_` i8, `b_` bool
  (values are small and deterministic; `l_` and `i_` hold valid indices 0, 1, 0, 1, ...
  unless the case writes its own literal).
- `codes`: the error codes accepted ("E004 E006"). The error must be reported at the line of
  the user's call (the ` --> ` location of the first error), the run must print nothing and
  exit with a status other than 0 — never a crash, never E007 "division by zero" or "index
  out of range" from inside the library, whose cause is the arguments.
- `words`: the first error's message must contain one of them (case-insensitive) — the
  parameter or attribute it is about, as the signature names it or as the operator's text does.

A case marked `fn:` in its name calls the function inside a user function, as layers do.
"""
import re

CASES = [
    # ---- products ------------------------------------------------------------------------------
    ("matmul_inner", "matmul(f_2_3, f_2_3)", "E004", ["inner", "B", "matmul"]),
    ("matmul_batch", "matmul(f_2_2_3, f_3_3_4)", "E004", ["batch", "broadcast", "matmul"]),
    ("batch_matmul_inner", "batch_matmul(f_2_2_3, f_2_2_3)", "E004", ["inner", "batch_matmul"]),
    ("gemm_inner", "gemm(f_2_3, f_2_3, f_2, 1.0, 1.0, 0, 0)", "E004", ["inner", "gemm"]),
    ("gemm_transA_inner", "gemm(f_3_2, f_2_4, f_4, 1.0, 1.0, 1, 0)", "E004", ["inner", "gemm"]),
    ("gemm_C", "gemm(f_2_3, f_3_4, f_3, 1.0, 1.0, 0, 0)", "E004", ["C"]),
    ("gemm_rank", "gemm(f_3, f_3_4, f_4, 1.0, 1.0, 0, 0)", "E004", ["A", "rank", "matri"]),
    ("linear_weights", "linear(f_2_3, f_4_5, f_5)", "E004", ["weights"]),
    ("linear_bias", "linear(f_2_3, f_3_4, f_5)", "E004", ["bias"]),
    ("dot_lengths", "dot(f_3, f_4)", "E004", ["dot", "length"]),
    ("cosine_lengths", "cosine_similarity(f_3, f_4)", "E004", ["cosine", "shape"]),
    ("qmatmul_inner", "qmatmul(q_2_3, 0.1, q_2_3, 0.1)", "E004", ["inner", "qmatmul"]),
    ("qlinear_inner", "qlinear(q_2_3, 0.1, q_4_5, 0.1, f_5)", "E004", ["W_q", "weights", "qlinear"]),
    ("fn:matmul_inner", "matmul(f_2_3, f_2_3)", "E004", ["inner", "B", "matmul"]),
    # ---- elementwise broadcasting and losses -------------------------------------------------
    ("add_broadcast", "add(f_2_3, f_3_2)", "E004", ["broadcast"]),
    ("where_broadcast", "where(b_2_3, f_2_3, f_3_2)", "E004", ["broadcast"]),
    ("prelu_alpha", "prelu(f_2_3, f_2)", "E004", ["broadcast", "alpha", "slope"]),
    ("mse_shapes", "mse_loss(f_3, f_4)", "E004", ["broadcast", "targets", "shape"]),
    ("mae_shapes", "mae_loss(f_3, f_4)", "E004", ["broadcast", "targets", "shape"]),
    ("huber_shapes", "huber_loss(f_3, f_4, 1.0)", "E004", ["broadcast", "targets", "shape"]),
    ("bce_shapes", "binary_cross_entropy(f_3, f_4)", "E004", ["broadcast", "targets", "shape"]),
    ("xent_shapes", "cross_entropy_loss(f_2_3, f_2_4)", "E004", ["targets", "shape"]),
    ("sxent_classes", "softmax_cross_entropy_loss(f_2_3, [0, 5])", "E005", ["targets", "class", "out of range"]),
    ("image_scaler_bias", "image_scaler(f_1_3_2_2, 1.0, f_2)", "E004", ["bias", "channels"]),
    # ---- joining and shaping -----------------------------------------------------------------
    ("concat_rank", "concat(f_2_3, f_3)", "E004", ["rank", "concat"]),
    ("concat_extent", "concat(f_2_3, f_2_2)", "E004", ["extent", "shape"]),
    ("concatenate_extent", "std::array::concatenate(f_2_3, f_2_2)", "E004", ["extent", "shape"]),
    ("concatenate_axis_extent", "std::array::concatenate_axis(f_2_3, f_3_3, 1)", "E004", ["extent", "shape"]),
    ("concatenate_axis_range", "std::array::concatenate_axis(f_2_3, f_2_3, 2)", "E004", ["axis"]),
    ("fn:concat_extent", "concat(f_2_3, f_2_2)", "E004", ["extent", "shape"]),
    ("reshape_count", "reshape(f_2_3, [4, 2])", "E004", ["reshape", "element", "shape"]),
    ("reshape_two_minus1", "reshape(f_2_3, [-1, -1])", "E004", ["-1", "reshape"]),
    ("reshape_minus1_divide", "reshape(f_2_3, [4, -1])", "E004", ["reshape", "element", "divid"]),
    ("squeeze_extent", "squeeze(f_2_3, [0])", "E004", ["squeeze", "extent"]),
    ("squeeze_axis_range", "squeeze(f_1_3, [2])", "E004", ["axis", "range"]),
    ("unsqueeze_axis_range", "unsqueeze(f_2_3, [4])", "E004", ["axis", "range"]),
    ("expand_shape", "expand(f_2_3, [4, 3])", "E004", ["expand", "broadcast", "shape"]),
    ("split_sizes", "split(f_2_3, [1, 1], 1)", "E004", ["split", "sizes"]),
    ("split_axis_range", "split(f_2_3, [1, 1], 2)", "E004", ["axis"]),
    ("tile_reps", "tile(f_2_3, [2])", "E004", ["reps"]),
    ("pad_pads_length", "pad(f_2_3, [1, 1, 1], 0.0)", "E004", ["pads"]),
    ("pad_crop", "pad(f_2_3, [0, -2, 0, -2], 0.0)", "E004", ["pads", "crop"]),
    ("depth_to_space_blocks", "depth_to_space(f_1_3_2_2, 2)", "E004", ["blocksize", "channels"]),
    ("space_to_depth_blocks", "space_to_depth(f_1_3_3_3, 2)", "E004", ["blocksize"]),
    ("constant_of_shape_negative", "constant_of_shape([-1, 2], 0.0)", "E004 E006", ["shape", "input", "negative"]),
    ("eye_negative", "eye(-1)", "E004 E006", ["n", "negative"]),
    ("range_delta", "range(0, 5, 0)", "E006", ["delta"]),
    ("repeat_interleave_counts", "repeat_interleave(f_3, [1, 2])", "E004", ["repeats"]),
    # ---- axes --------------------------------------------------------------------------------
    ("topk_k", "topk(f_2_3, 4, 1)", "E004", ["k"]),
    ("topk_k_negative", "topk(f_2_3, -1, 1)", "E004 E006", ["k"]),
    ("topk_axis", "topk(f_2_3, 1, 2)", "E004", ["axis"]),
    ("fn:topk_k", "topk(f_2_3, 4, 1)", "E004", ["k"]),
    ("softmax_axis", "softmax_axis(f_2_3, 2)", "E004", ["axis"]),
    ("argmax_axis", "std::array::argmax_axis(f_2_3, 2)", "E004", ["axis"]),
    ("sum_axis", "std::array::sum_axis(f_2_3, 2)", "E004", ["axis"]),
    ("gather_axis", "gather(f_2_3, [0], 2)", "E004", ["axis"]),
    ("gather_index_runtime", "gather(f_5, [0, 7], 0)", "E005", ["indices", "index", "range"]),
    ("gather_elements_rank", "gather_elements(f_2_3, [0, 1], 0)", "E004", ["rank", "indices"]),
    ("scatter_elements_shapes", "scatter_elements(f_2_3, l_2_2, f_2_3, 0)", "E004", ["updates", "indices"]),
    ("gather_nd_tuple", "gather_nd(f_2_3, [[0, 1, 0]])", "E004", ["indices", "index tuples", "rank"]),
    ("layer_norm_axis", "layer_normalization(f_2_3, f_3, f_3, 0.00001, 2)", "E004", ["axis"]),
    ("lp_norm_axis", "lp_normalization(f_2_3, 2, 2)", "E004", ["axis"]),
    ("lp_norm_p", "lp_normalization(f_2_3, 1, 3)", "E006", ["p"]),
    ("mvn_axes", "mean_variance_normalization(f_2_3, [5])", "E004", ["axis", "axes"]),
    ("slice_axes", "slice(f_2_3, [0], [1], [2], [1])", "E004", ["axis", "axes"]),
    ("slice_lengths", "slice(f_2_3, [0], [1, 2], [], [])", "E004", ["ends", "starts"]),
    ("slice_step0", "slice(f_2_3, [0], [2], [0], [0])", "E006", ["step"]),
    ("partition_2d_axis", "std::array::partition_2d(f_2_3, 0.0, 2)", "E004", ["axis"]),
    # ---- normalisation ---------------------------------------------------------------------------
    ("batch_norm_scale", "batch_normalization(f_1_2_3_3, f_3, f_2, f_2, f_2, 0.00001)", "E004", ["scale"]),
    ("batch_norm_B", "batch_normalization(f_1_2_3_3, f_2, f_3, f_2, f_2, 0.00001)", "E004", ["B", "bias"]),
    ("batch_norm_var", "batch_normalization(f_1_2_3_3, f_2, f_2, f_2, f_3, 0.00001)", "E004", ["input_var", "var"]),
    ("fn:batch_norm_scale", "batch_normalization(f_1_2_3_3, f_3, f_2, f_2, f_2, 0.00001)", "E004", ["scale"]),
    ("instance_norm_scale", "instance_normalization(f_1_2_3_3, f_3, f_2, 0.00001)", "E004", ["scale"]),
    ("layer_norm_scale", "layer_normalization(f_2_3, f_4, f_4, 0.00001, -1)", "E004", ["scale"]),
    ("lrn_size", "lrn(f_1_2_3_3, 0, 0.0001, 0.75, 1.0)", "E006", ["size"]),
    # ---- conv and pooling --------------------------------------------------------------------------
    ("conv_channels", "conv(f_1_2_5_5, f_3_3_3_3, [], [], [], [], 1)", "E004", ["channels", "W"]),
    ("conv_group", "conv(f_1_4_5_5, f_4_2_3_3, [], [], [], [], 3)", "E004", ["group"]),
    ("conv_group_zero", "conv(f_1_2_5_5, f_3_2_3_3, [], [], [], [], 0)", "E004 E006", ["group"]),
    ("conv_rank", "conv(f_1_2_5, f_3_2_3_3, [], [], [], [], 1)", "E004", ["rank"]),
    ("conv_rank2", "conv(f_5_5, f_5_5, [], [], [], [], 1)", "E004", ["rank", "X"]),
    ("conv_pads_length", "conv(f_1_2_5_5, f_3_2_3_3, [], [1, 1], [1, 1, 1], [1, 1], 1)", "E004", ["pads"]),
    ("conv_strides_length", "conv(f_1_2_5_5, f_3_2_3_3, [], [1, 1, 1], [], [], 1)", "E004", ["strides"]),
    ("conv_dilations_length", "conv(f_1_2_5_5, f_3_2_3_3, [], [], [], [1], 1)", "E004", ["dilations"]),
    ("conv_bias", "conv(f_1_2_5_5, f_3_2_3_3, f_2, [], [], [], 1)", "E004", ["B", "bias"]),
    ("conv_kernel_too_big", "conv(f_1_2_2_2, f_3_2_3_3, [], [], [], [], 1)", "E004", ["kernel", "input", "output"]),
    ("conv_pads_negative", "conv(f_1_2_5_5, f_3_2_3_3, [], [], [-1, -1, -1, -1], [], 1)", "E004 E006", ["pads"]),
    ("fn:conv_channels", "conv(f_1_2_5_5, f_3_3_3_3, [], [], [], [], 1)", "E004", ["channels", "W"]),
    ("conv1d_channels", "conv(f_1_2_5, f_3_3_3, [], [], [], [], 1)", "E004", ["channels", "W"]),
    ("conv3d_pads_length", "conv(f_1_1_3_3_3, f_1_1_2_2_2, [], [], [1, 1], [], 1)", "E004", ["pads"]),
    ("depthwise_channels", "depthwise_conv(f_1_2_5_5, f_3_1_3_3, [], [], [], [])", "E004", ["channels", "W", "group"]),
    ("conv_transpose_channels", "conv_transpose(f_1_2_3_3, f_3_2_3_3, [], [1, 1], [0, 0, 0, 0], [0, 0])", "E004", ["channels", "W"]),
    ("conv_transpose_pads_length", "conv_transpose(f_1_2_3_3, f_2_2_3_3, [], [1, 1], [0, 0, 0], [0, 0])", "E004", ["pads"]),
    ("conv_transpose_output_padding_length", "conv_transpose(f_1_2_3_3, f_2_2_3_3, [], [2, 2], [], [1])", "E004", ["output_padding"]),
    ("conv_transpose_bias", "conv_transpose(f_1_2_3_3, f_2_2_3_3, f_3, [1, 1], [], [])", "E004", ["B", "bias"]),
    ("qconv_channels", "qconv(q_1_2_5_5, 0.1, q_3_3_3_3, 0.1, [], [], [], [], 1)", "E004", ["channels", "W"]),
    ("conv2d_channels", "conv2d(f_1_2_5_5, f_3_3_3_3, f_3, 1, 1, 0, 0, 1, 1)", "E004", ["channels", "kernel"]),
    ("max_pool_kernel_length", "max_pool(f_1_2_5_5, [3], [], [])", "E004", ["kernel_shape"]),
    ("max_pool_rank", "max_pool(f_5_5, [3, 3], [], [])", "E004", ["X", "rank", "kernel_shape"]),
    ("max_pool_window_too_big", "max_pool(f_1_1_2_2, [3, 3], [], [])", "E004", ["kernel", "window", "input"]),
    ("max_pool_pads_length", "max_pool(f_1_2_5_5, [3, 3], [], [1, 1, 1])", "E004", ["pads"]),
    ("average_pool_strides_length", "average_pool(f_1_2_5_5, [3, 3], [1], [])", "E004", ["strides"]),
    ("average_pool_window_too_big", "average_pool(f_1_1_2_2, [3, 3], [], [])", "E004", ["kernel", "window", "input"]),
    ("lp_pool_kernel_length", "lp_pool(f_1_2_5_5, [3, 3, 3], [], 2)", "E004", ["kernel_shape"]),
    ("global_pool_rank", "global_average_pool(f_5)", "E004", ["X", "rank"]),
    ("roi_pool_rois", "max_roi_pool(f_1_1_4_4, f_2_3, [2, 2], 1.0)", "E004", ["rois"]),
    ("resize_mode", "resize(f_1_1_2_2, [1.0, 1.0, 2.0, 2.0], \"area\")", "E006", ["mode"]),
    ("resize_scales_length", "resize(f_1_1_2_2, [2.0], \"nearest\")", "E004", ["scales"]),
    ("upsample_scales_zero", "upsample(f_1_1_2_2, [1.0, 1.0, 0.0, 2.0], \"nearest\")", "E006", ["scales"]),
    # ---- linear algebra ------------------------------------------------------------------------
    ("solve_b", "solve(f_3_3, f_4)", "E004", ["b"]),
    ("solve_square", "solve(f_2_3, f_2)", "E004", ["A", "square"]),
    ("cholesky_square", "cholesky(f_2_3)", "E004", ["A", "square"]),
    ("det_square", "det(f_2_3)", "E004", ["A", "square"]),
    ("inv_square", "inv(f_2_3)", "E004", ["A", "square"]),
    ("lu_square", "lu(f_2_3)", "E004", ["A", "square"]),
    ("solve_lower_b", "solve_triangular_lower(f_3_3, f_4)", "E004", ["b"]),
    ("solve_upper_b", "solve_triangular_upper(f_3_3, f_4)", "E004", ["b", "y"]),
    ("solve_cholesky_b", "solve_cholesky(f_3_3, f_4)", "E004", ["b"]),
    ("einsum_operand_count", "einsum(\"ij,jk->ik\", (f_2_3,))", "E001 E004", ["operand", "einsum", "tuple"]),
    ("einsum_list_literal", "einsum(\"ij,jk->ik\", [f_2_3, f_3_4])", "E004", ["operand", "tuple", "einsum", "literal"]),
    ("einsum_rank", "einsum(\"ijk->i\", f_2_3)", "E004 E006", ["operand", "rank", "ijk", "labels"]),
    ("einsum_extent", "einsum(\"ij,jk->ik\", (f_2_3, f_2_3))", "E004", ["j", "extent", "operand"]),
    ("einsum_output_label", "einsum(\"ij->k\", f_2_3)", "E004 E006", ["k", "output", "label"]),
    # ---- quantization, recurrent, attention ---------------------------------------------------
    ("quantize_scale_length", "quantize_linear(f_2_3, f_2, 0)", "E004", ["scale"]),
    ("dequantize_scale_length", "dequantize_linear(q_2_3, f_2, 0)", "E004", ["scale"]),
    ("rnn_X_rank", "rnn(f_3_2, f_1_4_2, f_1_4_4, [], [], 4, \"forward\", \"Tanh\")", "E004", ["X"]),
    ("rnn_W_inputs", "rnn(f_3_1_2, f_1_4_3, f_1_4_4, [], [], 4, \"forward\", \"Tanh\")", "E004", ["W"]),
    ("rnn_B_length", "rnn(f_3_1_2, f_1_4_2, f_1_4_4, f_1_3, [], 4, \"forward\", \"Tanh\")", "E004", ["B"]),
    ("rnn_initial_h", "rnn(f_3_1_2, f_1_4_2, f_1_4_4, [], f_1_1_3, 4, \"forward\", \"Tanh\")", "E004", ["initial_h"]),
    ("lstm_R_shape", "lstm(f_3_1_2, f_1_16_2, f_1_16_3, [], [], [], 4, \"forward\", 0.0)", "E004", ["R"]),
    ("gru_direction", "gru(f_3_1_2, f_1_12_2, f_1_12_4, [], [], 4, \"sideways\", 0)", "E006", ["direction"]),
    ("gru_initial_h", "gru(f_3_1_2, f_1_12_2, f_1_12_4, [], f_1_2_4, 4, \"forward\", 0)", "E004", ["initial_h"]),
    ("mha_heads", "multi_head_attention_simple(f_2_6, f_2_6, f_2_6, 4, 1.0)", "E004", ["num_heads"]),
    ("attention_dims", "attention_dummy(f_2_3, f_2_4, f_2_4, 1.0)", "E004", ["key", "query"]),
    ("onehot_values", "onehot(l_3, 4, f_3)", "E004", ["values"]),
    ("cast_type", "cast(f_2_3, \"float7\")", "E006", ["to", "type"]),
    ("dropout_ratio", "dropout(f_2_3, 1.5, true)", "E006", ["ratio"]),
    # ---- numerics (sizes passed beside arrays) ---------------------------------------------------
    ("discounted_return_periods", "discounted_return(d_3, 0.9, 5)", "E004 E005", ["n_periods", "rewards"]),
    ("expected_value_state", "expected_value_at_state(d_3, d_3_3, 5, 3)", "E004 E005", ["s", "state"]),
    ("expected_value_n_states", "expected_value_at_state(d_3, d_3_3, 0, 4)", "E004 E005", ["n_states"]),
    ("value_iteration_P", "value_iteration(d_3, d_2_2, 0.9, 3, 5)", "E004 E005", ["P", "n_states"]),
    ("bellman_step_r", "bellman_step(d_3, d_2, d_3_3, 0.9, 3)", "E004 E005", ["r", "n_states"]),
    ("euler_linear_A", "euler_linear_step(d_3, d_2_2, 0.1, 3)", "E004 E005", ["A", "n"]),
    ("euler_linear_n", "euler_linear(d_3, d_3_3, 0.1, 4, 5)", "E004 E005", ["n", "u0"]),
    ("least_squares_n", "least_squares_slope_intercept(d_3, d_4, 4)", "E004 E005", ["n", "x"]),
    # ---- second pass (session 23): more attributes and operand shapes --------------------------
    ("mha_mask_shape", "multi_head_attention(f_2_4, f_3_4, f_3_4, 2, 1.0, f_2_2)", "E004", ["mask"]),
    ("scatter_nd_updates", "scatter_nd(f_3_2, [[0], [2]], f_3_2)", "E004", ["updates"]),
    ("scatter_nd_index_runtime", "scatter_nd(f_3_2, [[0], [5]], f_2_2)", "E005", ["indices", "index", "range"]),
    ("gather_elements_index_runtime", "gather_elements(f_2_3, [[0, 4, 1], [1, 0, 2]], 1)", "E005", ["indices", "index", "range"]),
    ("split_negative", "split(f_2_3, [4, -1], 1)", "E004 E006", ["split", "sizes"]),
    ("tile_negative", "tile(f_2_3, [1, -1])", "E004 E006", ["reps"]),
    ("slice_starts_length", "slice(f_2_3, [0, 0], [1], [], [])", "E004", ["starts", "ends"]),
    ("resize_scale_negative", "resize(f_1_1_2_2, [1.0, 1.0, -2.0, 2.0], \"nearest\")", "E006", ["scales"]),
    ("pad_value_array", "pad(f_2_3, [1, 1, 1, 1], f_2)", "E002 E004", ["constant_value", "value", "scalar"]),
    ("reshape_negative", "reshape(f_2_3, [-2, 3])", "E004 E006", ["reshape", "-2", "shape"]),
    ("unsqueeze_repeat", "unsqueeze(f_2_3, [0, 0])", "E004", ["repeat", "axes"]),
    ("depth_to_space_zero", "depth_to_space(f_1_4_2_2, 0)", "E006", ["blocksize"]),
    ("space_to_depth_rank", "space_to_depth(f_4_4, 2)", "E004", ["input", "rank", "space_to_depth"]),
    ("lp_pool_p", "lp_pool(f_1_1_4_4, [2, 2], [], 0)", "E006", ["p"]),
    ("average_pool_pads_negative", "average_pool(f_1_1_4_4, [2, 2], [], [-1, 0, 0, 0])", "E006", ["pads"]),
    ("max_pool_strides_zero", "max_pool(f_1_1_4_4, [2, 2], [0, 1], [])", "E006", ["strides"]),
    ("conv_dilations_zero", "conv(f_1_2_5_5, f_3_2_3_3, [], [], [], [0, 1], 1)", "E006", ["dilations"]),
    ("conv_transpose_strides_zero", "conv_transpose(f_1_2_3_3, f_2_2_3_3, [], [0, 1], [], [])", "E006", ["strides"]),
    ("conv_transpose_output_padding_negative", "conv_transpose(f_1_2_3_3, f_2_2_3_3, [], [2, 2], [], [-1, 0])", "E006", ["output_padding"]),
    ("l2_normalize_rank", "lp_normalization(f_2_3, -3, 2)", "E004", ["axis"]),
    ("onehot_depth", "onehot(l_3, 0, [0.0, 1.0])", "E006", ["depth"]),
    ("trace_rank", "trace(f_3)", "E004", ["x", "matri", "rank"]),
    ("tril_rank", "tril(f_3, 0)", "E004", ["x", "matri", "rank"]),
    ("repeat_interleave_negative", "repeat_interleave(f_3, [1, -1, 2])", "E006", ["repeats"]),
    ("cross_entropy_labels_length", "cross_entropy_loss(f_2_3, [0, 1, 2])", "E004", ["targets"]),
    ("qlinear_bias", "qlinear(q_2_3, 0.1, q_4_3, 0.1, f_5)", "E004", ["bias", "W_q"]),
    ("gemm_B_rank", "gemm(f_2_3, f_3, f_2, 1.0, 1.0, 0, 0)", "E004", ["B", "rank", "matri", "gemm"]),
    ("batch_matmul_batch", "batch_matmul(f_2_2_3, f_3_3_4)", "E004", ["batch", "broadcast"]),
    ("linear_rank0", "linear(1.0, f_3_4, f_4)", "E002 E004", ["x", "linear", "array"]),
    ("value_iteration_negative", "value_iteration(d_3, d_3_3, 0.9, -1, 5)", "E004", ["n_states"]),
    ("returns_to_go_rank", "returns_to_go(d_2_3, 0.9)", "E004", ["rewards", "vector", "rank"]),
    ("eye_float", "eye(2.5)", "E002 E006", ["n", "integer"]),
    # ---- io --------------------------------------------------------------------------------------
    ("read_file_missing", "std::io::read_file(\"/nonexistent_ein_dir/x.txt\")", "E009 E008 E006 E005", ["nonexistent_ein_dir"]),
    ("load_npy_missing", "std::io::load_npy(\"/nonexistent_ein_dir/x.npy\")", "E009 E008 E006 E005", ["nonexistent_ein_dir"]),
]


KIND = {"f": "f32", "d": "f64", "i": "i32", "l": "i64", "q": "i8", "b": "bool"}
NAME = re.compile(r"\b([fdilqb])((?:_\d+)+)\b")


def value(kind, k):
    """The k-th element of a declared array: small distinct decimals, 0/1 indices, alternating bools."""
    if kind == "bool":
        return "true" if k % 2 == 0 else "false"
    if kind in ("i32", "i64"):
        return str(k % 2)
    if kind == "i8":
        return str((k * 7) % 11 - 5)
    return f"{((k * 37) % 19 - 9) / 4.0}"


def literal(kind, dims, start=0):
    if not dims:
        return value(kind, start), start + 1
    parts = []
    for _ in range(dims[0]):
        s, start = literal(kind, dims[1:], start)
        parts.append(s)
    return "[" + ", ".join(parts) + "]", start


def program(name, call, header=None):
    """The case's program and the (1-based) line of the misusing call; `header` replaces the
    first comment line (a golden's purpose, generator note and `//$` line)."""
    lines = list(header or [f"// survey_diag {name}"]) + ["use std::ml::*;", "use std::numerics::*;"]
    for m in sorted(set(NAME.findall(call)), key=lambda m: m[0] + m[1]):
        kind = KIND[m[0]]
        dims = [int(d) for d in m[1].strip("_").split("_")]
        lines.append(f"let {m[0]}{m[1]}: [{kind}; {', '.join(map(str, dims))}] = {literal(kind, dims)[0]};")
    if name.startswith("fn:"):
        lines.append("fn layer(u) {")
        lines.append(f"  let r = {call};")
        at = len(lines)
        lines.append("  r")
        lines.append("}")
        lines.append("let y = layer(0);")
    else:
        lines.append(f"let y = {call};")
        at = len(lines)
    lines.append("print(y);")
    return "\n".join(lines) + "\n", at


