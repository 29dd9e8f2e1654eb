"""The Primitive classes of MindSpore 2.x's ``mindspore.ops`` reference (``mindspore.ops.primitive.rst``),
by section, so docs/mindspore-compat.md can show which exist here (``runtime.compat_table``).

Example:
    >>> from runtime.compat_primitives import documented, missing
    >>> "ReLU6" in documented() and "ReLU6" not in missing()
    True
"""
from __future__ import annotations

#: section title -> Primitive names, as the reference lists them
SECTIONS = {
    "neural network": """AvgPool AvgPool3D BatchNorm Conv2D Conv2DTranspose Conv3D Conv3DTranspose CTCGreedyDecoder
        DataFormatVecPermute Dilation2D Dropout Dropout2D Dropout3D DynamicGRUV2 DynamicRNN EmbeddingLookup Flatten
        FractionalAvgPool FractionalMaxPool FractionalMaxPoolWithFixedKsize FractionalMaxPool3DWithFixedKsize
        GridSampler2D GridSampler3D LayerNorm LRN LSTM MaxPool MaxPool3D MaxPool3DWithArgmax MaxPoolWithArgmax
        MaxUnpool2D MirrorPad NthElement Pad Padding PadV3 ResizeBilinear ResizeLinear1D ResizeNearestNeighbor
        UpsampleNearest3D UpsampleTrilinear3D""",
    "loss": """BCEWithLogitsLoss BinaryCrossEntropy CTCLoss CTCLossV2 KLDivLoss L2Loss MultilabelMarginLoss
        MultiMarginLoss NLLLoss RNNTLoss SigmoidCrossEntropyWithLogits SmoothL1Loss SoftMarginLoss
        SoftmaxCrossEntropyWithLogits SparseSoftmaxCrossEntropyWithLogits TripletMarginLoss""",
    "activation": """CeLU Elu FastGeLU GeLU HShrink HSigmoid HSwish LogSoftmax Mish PReLU ReLU ReLU6 SeLU Sigmoid
        Softmax Softplus SoftShrink Softsign Tanh""",
    "optimizer": """Adam AdamWeightDecay AdaptiveAvgPool2D AdaptiveAvgPool3D AdaptiveMaxPool2D AdaptiveMaxPool3D
        ApplyAdadelta ApplyAdagrad ApplyAdagradDA ApplyAdagradV2 ApplyAdaMax ApplyAddSign ApplyCenteredRMSProp
        ApplyFtrl ApplyGradientDescent ApplyMomentum ApplyPowerSign ApplyProximalAdagrad
        ApplyProximalGradientDescent ApplyRMSProp LARSUpdate SparseApplyAdagradV2 SparseApplyProximalAdagrad SGD
        SparseApplyFtrl SparseApplyFtrlV2""",
    "distance": "Cdist EditDistance LpNorm",
    "sampling": "ComputeAccidentalHits LogUniformCandidateSampler UniformCandidateSampler",
    "image": """AdjustHue AdjustSaturation BoundingBoxDecode BoundingBoxEncode CheckValid CombinedNonMaxSuppression
        CropAndResize ExtractGlimpse ExtractVolumePatches HSVToRGB IOU L2Normalize NMSWithMask NonMaxSuppressionV3
        NonMaxSuppressionWithOverlaps RGBToHSV ResizeArea ResizeBicubic ResizeBilinearV2 ROIAlign
        SampleDistortedBoundingBoxV2 ScaleAndTranslate""",
    "text": "NoRepeatNGram",
    "math": """BesselJ0 BesselJ1 BesselK0 BesselK0e BesselK1 BesselK1e BesselY0 BesselY1 Betainc Bincount Bucketize
        Cauchy Cholesky CholeskyInverse CholeskySolve CompareAndBitpack Complex ComplexAbs Cross
        CumulativeLogsumexp Gcd""",
    "element-wise": """Abs AccumulateNV2 ACos Acosh Add Addcdiv Addcmul AddN Asin Asinh Atan Atan2 Atanh BesselI0e
        BesselI1e BitwiseAnd BitwiseOr BitwiseXor Ceil Conj Cos Cosh Digamma Div DivNoNan Einsum Erf Erfc Erfinv Exp
        Expm1 Floor FloorDiv FloorMod Geqrf Imag Inv Invert Lerp Log Log1p LogicalAnd LogicalNot LogicalOr Logit
        Mod Mul MulNoNan Neg NextAfter Polar Pow Real RealDiv Reciprocal Rint Round Rsqrt Sign Sin Sinh Sqrt Square
        SquaredDifference SquareSumAll Sub Tan Trunc TruncateDiv TruncateMod Xdivy Xlogy Zeta""",
    "reduction": """Argmax ArgMaxWithValue Argmin ArgMinWithValue EuclideanNorm ReduceAll ReduceAny ReduceMax
        ReduceMean ReduceMin ReduceProd ReduceStd ReduceSum""",
    "comparison": """ApproximateEqual Equal EqualCount Greater GreaterEqual InTopK IsFinite IsInf IsNan Less
        LessEqual Maximum Minimum NotEqual TopK""",
    "linear algebra": "BatchMatMul BiasAdd Ger MatMul MatrixInverse Orgqr Qr Svd TridiagonalMatMul",
    "tensor creation": "Eps Eye Fill LinSpace OneHot Ones OnesLike Zeros ZerosLike",
    "random": """Gamma LogNormalReverse Multinomial NonDeterministicInts ParameterizedTruncatedNormal
        RandomCategorical RandomChoiceWithMask RandomPoisson Randperm StandardLaplace StandardNormal TruncatedNormal
        UniformInt UniformReal""",
    "array": """AffineGrid BatchToSpace BatchToSpaceND BroadcastTo Cast CheckNumerics Coalesce Col2Im Concat
        ConjugateTranspose Cummax Cummin CumProd CumSum DataFormatDimMap DepthToSpace Diag DiagPart DType Eig Expand
        ExpandDims FFTWithSize FillV2 FloatStatus FillDiagonal Gather GatherD GatherNd HammingWindow Heaviside
        Histogram HistogramFixedWidth Hypot Identity IdentityN Im2Col IndexAdd IndexFill InplaceAdd InplaceSub
        InplaceUpdate InvertPermutation IsClose Lcm LeftShift ListDiff Lgamma LogMatrixDeterminant LogSpace
        LowerBound Lstsq LuSolve LuUnpack MaskedFill MaskedSelect MatrixBandPart MatrixDeterminant MatrixDiagPartV3
        MatrixDiagV3 MatrixExp MatrixLogarithm MatrixPower MatrixSetDiagV3 MatrixSolve MatrixTriangularSolve Meshgrid
        Mvlgamma NonZero ParallelConcat PopulationCount RaggedRange Range Rank Renorm Reshape
        ResizeNearestNeighborV2 ReverseSequence ReverseV2 RightShift Roll ScatterAddWithAxis ScatterNd ScatterNdDiv
        ScatterNdMax ScatterNdMin ScatterNdMul SearchSorted SegmentMax SegmentMean SegmentMin SegmentProd SegmentSum
        Select Shape Size Slice Sort SpaceToBatchND SpaceToDepth SparseSlice SparseGatherV2 Split SplitV Squeeze
        Stack STFT StridedSlice TensorScatterAdd TensorScatterDiv TensorScatterMax TensorScatterMin TensorScatterMul
        TensorScatterSub TensorScatterUpdate TensorShape Tile Trace Transpose Tril TrilIndices Triu TriuIndices Unique
        UniqueConsecutive UniqueWithPad UnravelIndex UnsortedSegmentMax UnsortedSegmentMin UnsortedSegmentProd
        UnsortedSegmentSum Unstack UpperBound""",
    "type conversion": "ScalarCast ScalarToTensor TupleToArray",
    "parameter": """Assign AssignAdd AssignSub ScatterAdd ScatterDiv ScatterMax ScatterMin ScatterMul ScatterNdAdd
        ScatterNdSub ScatterNdUpdate ScatterNonAliasingAdd ScatterSub ScatterUpdate""",
    "data": "GetNext",
    "communication": "AllGather AllReduce AlltoAll Broadcast NeighborExchangeV2 ReduceOp ReduceScatter",
    "debug": """Assert HistogramSummary ImageSummary ScalarSummary TensorSummary Print NPUAllocFloatStatus
        NPUClearFloatStatus NPUGetFloatStatus""",
    "sparse": "SparseTensorDenseAdd SparseTensorDenseMatmul SparseToDense",
    "framework": "Depend GradOperation HookBackward HyperMap InsertGradientOf Map MultitypeFuncGraph Partial StopGradient",
    "custom": "Custom",
    "spectral": "BartlettWindow BlackmanWindow",
}


def documented() -> list:
    """Every documented Primitive name, in the reference's order (without repeats)."""
    seen, out = set(), []
    for names in SECTIONS.values():
        for n in names.split():
            if n not in seen:
                seen.add(n)
                out.append(n)
    return out


def missing() -> list:
    """The documented Primitives that ``runtime.ops`` does not have."""
    from . import ops
    return [n for n in documented() if not hasattr(ops, n)]
