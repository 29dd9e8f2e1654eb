"""The functional ``mindspore.ops`` API of MindSpore 2.x (lower-case ``ops.xxx(...)``), by section, so
docs/mindspore-compat.md can show which functions exist here (``runtime.compat_table``).

Two sources, both from the ``mindspore-ai/mindspore`` repository:

* :data:`SECTIONS`: the function reference page, ``docs/api/api_python_en/mindspore.ops.rst`` of the
  2.0/2.1 line (commit ae59820e), section by section as the page lists them;
* :data:`MORE_EXPORTS`: the names ``mindspore.ops`` also exports through the ``__all__`` lists at the end of
  ``mindspore/python/mindspore/ops/function/math_func.py``, ``array_func.py`` and ``random_func.py`` (2.2/2.3
  versions) that the page above does not show (later additions such as ``nansum``, ``var``, ``histc``,
  and the ``tensor_*`` spellings the functional module keeps).

Example:
    >>> from runtime.compat_functions import documented, missing
    >>> "roll" in documented() and "abs" not in missing()
    True
"""
from __future__ import annotations

#: section title -> function names, as mindspore.ops.rst (2.0) lists them
SECTIONS = {
    "neural network": """adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d
        adaptive_max_pool2d adaptive_max_pool3d avg_pool1d avg_pool2d avg_pool3d batch_norm bias_add
        ctc_greedy_decoder conv2d conv3d deformable_conv2d dropout dropout1d dropout2d dropout3d flatten unfold
        fold fractional_max_pool2d fractional_max_pool3d lp_pool1d lp_pool2d lrn max_pool3d max_unpool1d
        max_unpool2d max_unpool3d""",
    "loss": """binary_cross_entropy binary_cross_entropy_with_logits cosine_embedding_loss cross_entropy
        gaussian_nll_loss hinge_embedding_loss huber_loss kl_div l1_loss margin_ranking_loss mse_loss
        multi_margin_loss multi_label_margin_loss multilabel_soft_margin_loss nll_loss smooth_l1_loss
        triplet_margin_loss""",
    "activation": """celu elu fast_gelu gelu glu gumbel_softmax hardshrink hardswish hardtanh leaky_relu
        log_softmax logsigmoid mish prelu relu relu6 rrelu selu sigmoid silu soft_shrink softmax softmin
        softsign tanh threshold""",
    "distance": "cdist dist pdist",
    "sampling": "choice_with_mask random_categorical log_uniform_candidate_sampler uniform_candidate_sampler",
    "image": """affine_grid bounding_box_decode bounding_box_encode col2im check_valid crop_and_resize
        grid_sample interpolate iou pad padding pixel_shuffle pixel_unshuffle""",
    "element-wise": """abs absolute accumulate_n acos arccos acosh add addcdiv addcmul addmv addn angle arccosh
        arcsin arcsinh arctan arctanh arctan2 asin asinh atan atan2 atanh bessel_i0 bessel_i0e bessel_i1
        bessel_i1e bessel_j0 bessel_j1 bessel_k0 bessel_k0e bessel_k1 bessel_k1e bessel_y0 bessel_y1
        bitwise_and bitwise_left_shift bitwise_or bitwise_right_shift bitwise_xor ceil clamp clip copysign cos
        cosh cosine_similarity cov diff deg2rad digamma div divide erf erfc erfinv exp exp2 expm1 floor
        floor_div floor_mod float_power fmod frac hypot igamma igammac i0 inv invert lcm ldexp lerp lgamma log
        log2 log10 log1p logaddexp logaddexp2 logical_and logical_not logical_or logical_xor logit mul
        multiply mvlgamma neg negative positive pow rad2deg ravel real reciprocal remainder roll rot90 round
        rsqrt sgn sign signbit sin sinc sinh sqrt square sub subtract t tan tanhshrink trapz true_divide trunc
        truncate_div truncate_mod xdivy xlogy""",
    "reduction": """all amax amin any argmax argmin cummax cummin cumsum logsumexp max mean median min norm prod
        std""",
    "comparison": """argsort approximate_equal equal ge greater greater_equal gt intopk isclose isfinite isinf
        isnan isneginf isposinf isreal is_complex is_floating_point le less less_equal lt maximum minimum ne
        not_equal msort topk""",
    "linear algebra": """bmm addbmm addmm baddbmm addr adjoint cholesky cholesky_inverse batch_dot det dot inner
        inverse ger kron log_matrix_determinant matmul matrix_solve matrix_exp matrix_band_part
        matrix_determinant matrix_diag matrix_diag_part matrix_set_diag mm mv outer orgqr pinv svd tensor_dot
        logdet slogdet""",
    "spectral": "bartlett_window blackman_window hamming_window hann_window kaiser_window",
    "tensor creation": """eye fill full full_like linspace logspace one_hot ones ones_like arange range zeros
        zeros_like heaviside""",
    "random": """bernoulli gamma laplace multinomial rand rand_like randint randint_like randn randn_like
        random_poisson random_gamma standard_laplace standard_normal uniform""",
    "array": """argwhere batch_to_space_nd bincount block_diag broadcast_to cartesian_prod cat chunk column_stack
        concat conj count_nonzero diag diagflat diagonal dyn_shape dsplit einsum expand expand_dims flip fliplr
        flipud gather gather_d gather_elements gather_nd hstack hsplit index_add index_fill index_select
        inplace_add inplace_sub inplace_update masked_fill masked_select meshgrid narrow moveaxis movedim
        nan_to_num normal nonzero numel permute population_count rank repeat_elements repeat_interleave reshape
        reverse reverse_sequence scatter_nd select sequence_mask shape shuffle size slice space_to_batch_nd
        sparse_segment_mean split squeeze stack strided_slice sum swapaxes swapdims tensor_scatter_add
        tensor_scatter_div tensor_scatter_max tensor_scatter_min tensor_scatter_mul tensor_scatter_sub
        tensor_scatter_elements tensor_split tile tril transpose unbind unique unique_consecutive
        unique_with_pad unsorted_segment_max unsorted_segment_min unsorted_segment_prod unsorted_segment_sum
        unsqueeze unstack view_as_real vsplit where cross cumprod renorm""",
    "type cast": "is_tensor scalar_cast scalar_to_tensor tuple_to_array",
    "gradient clipping": "clip_by_global_norm clip_by_value",
    "parameter": """assign assign_add assign_sub scatter_add scatter_div scatter_min scatter_max scatter_mul
        scatter_nd_add scatter_nd_div scatter_nd_max scatter_nd_min scatter_nd_mul scatter_nd_sub
        scatter_update""",
    "differential": "derivative jet stop_gradient",
    "debugging": "print_",
    "sparse": "dense_to_sparse_coo dense_to_sparse_csr csr_to_coo",
    "COO": """coo_abs coo_acos coo_acosh coo_add coo_asin coo_asinh coo_atan coo_atanh coo_ceil coo_concat coo_cos
        coo_cosh coo_exp coo_expm1 coo_floor coo_inv coo_isfinite coo_isinf coo_isnan coo_log coo_log1p coo_neg
        coo_relu coo_relu6 coo_round coo_sigmoid coo_sin coo_sinh coo_softsign coo_sqrt coo_square coo_tan
        coo_tanh""",
    "CSR": """csr_abs csr_acos csr_acosh csr_add csr_asin csr_asinh csr_atan csr_atanh csr_ceil csr_cos csr_cosh
        csr_exp csr_expm1 csr_floor csr_inv csr_isfinite csr_isinf csr_isnan csr_log csr_log1p csr_mm csr_neg
        csr_relu csr_relu6 csr_round csr_sigmoid csr_sin csr_sinh csr_softmax csr_softsign csr_sqrt csr_square
        csr_tan csr_tanh""",
}

#: source file -> its ``__all__`` (as stored; the names SECTIONS already has are skipped by :func:`documented`)
MORE_EXPORTS = {
    "math_func.py": """addn absolute abs bucketize tensor_add add addbmm addcdiv addcmul angle argmax argmin
        arccosh arcsin arctan arctan2 bincount neg negative tensor_lt less lt logaddexp2 tensor_le lcm le lerp
        norm vector_norm matrix_norm tensor_gt logaddexp mv addmm addmv adjoint outer gt tensor_ge ge addr
        tensor_sub sub subtract tensor_mul mul multiply nan_to_num nansum nanmean nanmedian digamma lgamma
        tensor_div div divide true_divide tensor_floordiv floor_div floor_divide floordiv float_power fmod xdivy
        tensor_pow pow pows renorm tensor_mod floor_mod floormod tensor_exp exp tensor_expm1 expm1 eq equal
        not_equal ne numel permute inplace_update inplace_add inplace_sub isfinite isnan isclose isreal isneginf
        isposinf is_complex log logdet log_matrix_determinant matrix_determinant det linspace logspace lu_solve
        matrix_solve std maximum minimum median positive floor logical_not logical_or logical_and logit gcd
        logcumsumexp logsumexp ldexp rsqrt reciprocal real sqrt square t sin cos tan asin acos arccos atan sinc
        sinh cosh tanh tanhshrink asinh arcsinh acosh atanh arctanh atan2 round bitwise_and bitwise_or
        bitwise_xor bitwise_left_shift bitwise_right_shift inv inverse invert erf erfc cdist ceil bernoulli
        heaviside hypot i0 bessel_j0 bessel_j1 bessel_i0 bessel_i0e bessel_k0 bessel_k0e bessel_y0 bessel_y1
        bessel_i1 bessel_i1e bessel_k1 bessel_k1e exp2 deg2rad stft rad2deg truncate_div truncate_mod trunc
        gumbel_softmax kaiser_window matmul inner cummin cummax cumsum amin amax mean prod all any
        sparse_segment_mean block_diag atleast_1d dstack diff atleast_2d cartesian_prod atleast_3d view_as_real
        vstack vander row_stack var var_mean std_mean combinations dist copysign hann_window log2 slogdet trace
        xlogy log10 log1p approximate_equal frac kron rot90 remainder sgn sign signbit accumulate_n iou baddbmm
        bmm trapz cholesky cholesky_inverse cholesky_solve conj cosine_similarity cov cross einsum erfinv
        less_equal cumprod greater greater_equal igamma igammac isinf logical_xor imag roll sum matrix_exp
        matrix_power orgqr ormqr diag_embed fmax fmin inplace_index_add lu_unpack nanquantile polar polygamma
        quantile tril_indices histc nextafter triu_indices zeta fft fft2 fftn ifft ifft2 ifftn count_nonzero
        tensor_dot vecdot dot batch_dot eps""",
    "array_func.py": """unique unique_with_pad unique_consecutive eye matrix_band_part padding fill fill_ tile size
        ger ones ones_like zeros zeros_like shape shape_ reverse reverse_sequence hamming_window chunk full
        full_like dyn_shape rank range arange reshape reshape_ flatten tensor_slice strided_slice slice cat concat
        stack unbind unstack is_tensor scalar_cast scalar_to_tensor space_to_batch_nd batch_to_space_nd
        tuple_to_array expand_dims squeeze unsqueeze transpose scatter_nd scatter_nd_add scatter_nd_sub
        scatter_nd_mul scatter_nd_div scatter_nd_max scatter_nd_min tensor_scatter_add tensor_scatter_sub
        tensor_scatter_mul tensor_scatter_div tensor_scatter_max tensor_scatter_min tensor_scatter_elements
        scatter unsorted_segment_min unsorted_segment_max unsorted_segment_prod gather gather_d gather_elements
        gather_nd one_hot masked_fill masked_select where narrow ravel scatter_add scatter_mul scatter_max
        scatter_min scatter_div scatter_update select tril nonzero matrix_diag matrix_diag_part matrix_set_diag
        diag diagflat meshgrid affine_grid broadcast_to col2im split tensor_split vsplit hsplit dsplit index_fill
        index_select max argmax min unsorted_segment_sum population_count topk expand fold unfold diagonal lstsq
        mvlgamma swapaxes swapdims searchsorted argsort sequence_mask repeat_elements repeat_interleave argwhere
        column_stack hstack movedim moveaxis aminmax count_nonzero sort""",
    "random_func.py": """standard_laplace random_categorical uniform uniform_ext standard_normal random_gamma
        uniform_candidate_sampler random_poisson log_uniform_candidate_sampler shuffle choice_with_mask
        normal_ext normal laplace gamma poisson multinomial rand rand_like randint randint_like randn randn_like
        multinomial_with_replacement randperm""",
}


def sections() -> dict:
    """Section title -> names, without repeats: the page's sections, then one per ``__all__`` for what the
    page lacks."""
    seen, out = set(), {}
    groups = list(SECTIONS.items()) + [(f"also exported ({src})", names) for src, names in MORE_EXPORTS.items()]
    for title, names in groups:
        fresh = []
        for n in names.split():
            if n not in seen:
                seen.add(n)
                fresh.append(n)
        if fresh:
            out[title] = fresh
    return out


def documented() -> list:
    """Every MindSpore 2.x ``mindspore.ops`` function name, in the page's order (without repeats)."""
    return [n for names in sections().values() for n in names]


def missing() -> list:
    """The documented functions that ``runtime.ops`` does not have."""
    from . import ops
    return [n for n in documented() if not callable(getattr(ops, n, None))]
