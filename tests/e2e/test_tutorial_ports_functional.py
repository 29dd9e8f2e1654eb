"""MindSpore tutorials of issue 40, ported with only their imports changed (``mindspore`` ->
``runtime``): the mindspore.numpy API page, the vmap tutorial (without its CellList model
ensembling cells, which are not supported yet), the Jacobian/Hessian functional transformations
tutorial (without its timing cells), the per-sample-gradients tutorial and the custom bprop
tutorial. Each runs in PyNative and in GRAPH_MODE; the outputs the tutorials print are the oracle
where they are deterministic, numpy / PyNative elsewhere."""
import numpy as np
import pytest

import runtime as mindspore
import runtime as ms
import runtime.numpy as mnp
from runtime import Tensor, nn, ops


@pytest.fixture(params=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=ms.PYNATIVE_MODE if request.param == "pynative" else ms.GRAPH_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


# -- mindspore.numpy API page ("MindSpore Numpy combined with MindSpore features") --------------------
def test_numpy_page_examples(mode):
    import runtime.numpy as np  # the page's own spelling
    from runtime import ms_function

    input_x = np.array([1, 2, 3], np.float32)
    assert str(ops.typeof(input_x)) == "Tensor[Float32]"
    assert np.full((2, 3), 6, np.float32).asnumpy().tolist() == [[6.0] * 3] * 2
    assert np.arange(0, 5, 1).asnumpy().tolist() == [0, 1, 2, 3, 4]
    assert np.tri(3, 3, 1).asnumpy().tolist() == [[1, 1, 0], [1, 1, 1], [1, 1, 1]]

    x = np.arange(8).reshape(2, 4).astype('float32')
    w1 = np.ones((4, 8))
    b1 = np.zeros((8,))
    w2 = np.ones((8, 16))
    b2 = np.zeros((16,))
    w3 = np.ones((16, 4))
    b3 = np.zeros((4,))

    def forward(x, w1, b1, w2, b2, w3, b3):
        x = np.dot(x, w1) + b1
        x = np.dot(x, w2) + b2
        x = np.dot(x, w3) + b3
        return x

    assert forward(x, w1, b1, w2, b2, w3, b3).asnumpy().tolist() == [[768.0] * 4, [2816.0] * 4]
    with pytest.warns(FutureWarning):
        forward_compiled = ms_function(forward)
    assert forward_compiled(x, w1, b1, w2, b2, w3, b3).asnumpy().tolist() == [[768.0] * 4, [2816.0] * 4]

    grad_all = ops.composite.GradOperation(get_all=True)
    grads = grad_all(forward)(x, w1, b1, w2, b2, w3, b3)
    assert np.array_equal(grads[0], np.full((2, 4), 512.0)).asnumpy()
    assert grads[1].asnumpy()[:, 0].tolist() == [256.0, 384.0, 512.0, 640.0]
    assert grads[6].asnumpy().tolist() == [2.0] * 4
    with pytest.warns(FutureWarning):
        compiled_grads = grad_all(ms_function(forward))(x, w1, b1, w2, b2, w3, b3)
    for a, b in zip(grads, compiled_grads):
        assert a.asnumpy().tolist() == b.asnumpy().tolist()


# -- vmap tutorial ------------------------------------------------------------------------------------
def test_vmap_tutorial(mode):
    from runtime import vmap, grad

    x = mnp.arange(5).astype('float32')
    w = mnp.array([1., 2., 3.])

    def convolve(x, w):
        output = []
        for i in range(1, len(x) - 1):
            output.append(mnp.dot(x[i - 1 : i + 2], w))
        return mnp.stack(output)

    assert convolve(x, w).asnumpy().tolist() == [8.0, 14.0, 20.0]
    x_batch = mnp.stack([x, x, x])
    w_batch = mnp.stack([w, w, w])

    def manually_batch_conv(x_batch, w_batch):
        output = []
        for i in range(x_batch.shape[0]):
            output.append(convolve(x_batch[i], w_batch[i]))
        return mnp.stack(output)

    want = [[8.0, 14.0, 20.0]] * 3
    assert manually_batch_conv(x_batch, w_batch).asnumpy().tolist() == want

    def manually_vectorization_conv(x_batch, w_batch):
        output = []
        for i in range(1, x_batch.shape[-1] - 1):
            output.append(mnp.sum(x_batch[:, i - 1 : i + 2] * w_batch, axis=1))
        return mnp.stack(output, axis=1)

    assert manually_vectorization_conv(x_batch, w_batch).asnumpy().tolist() == want
    auto_vectorization_conv = vmap(convolve)
    assert auto_vectorization_conv(x_batch, w_batch).asnumpy().tolist() == want

    w_batch_t = ops.transpose(w_batch, (1, 0))
    auto_vectorization_conv = vmap(convolve, in_axes=(0, 1), out_axes=1)
    output = auto_vectorization_conv(x_batch, w_batch_t)
    assert ops.transpose(output, (1, 0)).asnumpy().tolist() == want
    auto_vectorization_conv = vmap(convolve, in_axes=(0, None), out_axes=0)
    assert auto_vectorization_conv(x_batch, w).asnumpy().tolist() == want

    hyper_x = Tensor([[1., 2., 3., 4., 5.], [2., 3., 4., 5., 6.], [3., 4., 5., 6., 7.]], mindspore.float32)
    hyper_w = Tensor([[1., 1., 1.], [2., 2., 2.], [3., 3., 3.]], mindspore.float32)
    hyper_vmap_ger = vmap(vmap(convolve, in_axes=[None, 0]), in_axes=[0, None])
    assert hyper_vmap_ger(hyper_x, hyper_w).asnumpy().tolist() == [
        [[6, 9, 12], [12, 18, 24], [18, 27, 36]], [[9, 12, 15], [18, 24, 30], [27, 36, 45]],
        [[12, 15, 18], [24, 30, 36], [36, 45, 54]]]

    def forward_fn(x, y):
        out = x + 2 * y
        out = ops.sin(out)
        reduce_sum = ops.ReduceSum()
        return reduce_sum(out)

    x_hat = Tensor([[1., 2., 3.], [2., 3., 4.]], mindspore.float32)
    y_hat = Tensor([[2., 3., 4.], [3., 4., 5.]], mindspore.float32)
    documented = ([[2.83662200e-01, -1.45500034e-01, 4.42569796e-03], [-1.45500034e-01, 4.42569796e-03, 1.36737213e-01]],
                  [[5.67324400e-01, -2.91000068e-01, 8.85139592e-03], [-2.91000068e-01, 8.85139592e-03, 2.73474425e-01]])
    grad_vmap_ger = grad(vmap(forward_fn), grad_position=(0, 1))
    for got, doc in zip(grad_vmap_ger(x_hat, y_hat), documented):
        np.testing.assert_allclose(got.asnumpy(), doc, rtol=1e-5, atol=1e-6)
    vmap_grad_ger = vmap(grad(forward_fn, grad_position=(0, 1)))
    for got, doc in zip(vmap_grad_ger(x_hat, y_hat), documented):
        np.testing.assert_allclose(got.asnumpy(), doc, rtol=1e-5, atol=1e-6)

    from runtime import Parameter
    from runtime.common.initializer import initializer

    class Dense(nn.Cell):
        def __init__(self, in_channels, out_channels, weight_init='normal', bias_init='zeros'):
            super(Dense, self).__init__()
            self.scalar = 1
            self.weight = Parameter(initializer(weight_init, [out_channels, in_channels]), name="weight")
            self.bias = Parameter(initializer(bias_init, [out_channels]), name="bias")
            self.matmul = ops.MatMul(transpose_b=True)
            self.bias_add = ops.BiasAdd()

        def construct(self, x):
            x = self.matmul(x, self.weight)
            output = self.bias_add(x, self.bias)
            return output

    input_a = Tensor([[1, 2, 3], [4, 5, 6]], mindspore.float32)
    input_b = Tensor([[2, 3, 4], [5, 6, 7]], mindspore.float32)
    input_c = Tensor([[3, 4, 5], [6, 7, 8]], mindspore.float32)
    dense_net = Dense(3, 4)
    singles = [dense_net(t).asnumpy() for t in (input_a, input_b, input_c)]
    inputs = mnp.stack([input_a, input_b, input_c])
    vmap_dense_net = vmap(dense_net)
    np.testing.assert_allclose(vmap_dense_net(inputs).asnumpy(), np.stack(singles), rtol=1e-5, atol=1e-7)


# -- Jacobians and Hessians tutorial -------------------------------------------------------------------
def test_jacobians_hessians_tutorial(mode):
    from runtime import jacrev, jacfwd, vmap, vjp, jvp, grad

    mindspore.set_seed(1)

    def forecast(weight, bias, x):
        return ops.dense(x, weight, bias).tanh()

    D = 16
    weight = ops.randn(D, D)
    bias = ops.randn(D)
    x = ops.randn(D)

    def partial_forecast(x):
        return ops.dense(x, weight, bias).tanh()

    _, vjp_fn = vjp(partial_forecast, x)

    def compute_jac_matrix(unit_vectors):
        jacobian_rows = [vjp_fn(vec)[0] for vec in unit_vectors]
        return ops.stack(jacobian_rows)

    unit_vectors = ops.eye(D)
    jacobian = compute_jac_matrix(unit_vectors)
    assert jacobian.shape == (16, 16)
    jacrev_jacobian = jacrev(forecast, grad_position=2)(weight, bias, x)
    # (atol: the design's float32 tolerance. In GRAPH_MODE the rows above run compiled, whose tanh
    # differs from numpy's by an ulp, and 1 - tanh^2 of a saturated unit magnifies that; np.allclose's
    # default atol=1e-8 is below float32 resolution there)
    assert np.allclose(jacrev_jacobian.asnumpy(), jacobian.asnumpy(), atol=1e-6)
    # oracle: d tanh(Wx + b)/dx = diag(1 - y^2) W
    y = np.tanh(weight.asnumpy() @ x.asnumpy() + bias.asnumpy())
    np.testing.assert_allclose(jacobian.asnumpy(), (1 - y ** 2)[:, None] * weight.asnumpy(), rtol=1e-4, atol=1e-6)

    jacrev_weight, jacrev_bias = jacrev(forecast, grad_position=(0, 1))(weight, bias, x)
    assert jacrev_weight.shape == (16, 16, 16) and jacrev_bias.shape == (16, 16)

    Din = 32
    Dout = 16
    weight = ops.randn(Dout, Din)
    bias = ops.randn(Dout)
    x = ops.randn(Din)

    hess1 = jacfwd(jacfwd(forecast, grad_position=2), grad_position=2)(weight, bias, x)
    hess2 = jacfwd(jacrev(forecast, grad_position=2), grad_position=2)(weight, bias, x)
    hess3 = jacrev(jacfwd(forecast, grad_position=2), grad_position=2)(weight, bias, x)
    hess4 = jacrev(jacrev(forecast, grad_position=2), grad_position=2)(weight, bias, x)
    assert np.allclose(hess1.asnumpy(), hess2.asnumpy(), atol=1e-6)
    assert np.allclose(hess2.asnumpy(), hess3.asnumpy(), atol=1e-6)
    assert np.allclose(hess3.asnumpy(), hess4.asnumpy(), atol=1e-6)
    # oracle: d2 tanh(u_k)/dx_i dx_j = -2 y_k (1 - y_k^2) W_ki W_kj
    wn = weight.asnumpy()
    yk = np.tanh(wn @ x.asnumpy() + bias.asnumpy())
    np.testing.assert_allclose(hess4.asnumpy(), np.einsum("k,ki,kj->kij", -2 * yk * (1 - yk ** 2), wn, wn),
                               rtol=1e-3, atol=1e-5)

    batch_size = 64
    Din = 31
    Dout = 33
    weight = ops.randn(Dout, Din)
    bias = ops.randn(Dout)
    x = ops.randn(batch_size, Din)
    compute_batch_jacobian = vmap(jacrev(forecast, grad_position=2), in_axes=(None, None, 0))
    batch_jacobian = compute_batch_jacobian(weight, bias, x)
    assert batch_jacobian.shape == (64, 33, 31)
    yb = np.tanh(x.asnumpy() @ weight.asnumpy().T + bias.asnumpy())
    np.testing.assert_allclose(batch_jacobian.asnumpy(), (1 - yb ** 2)[:, :, None] * weight.asnumpy()[None],
                               rtol=1e-4, atol=1e-6)
    hessian = jacrev(jacrev(forecast, grad_position=2), grad_position=2)
    compute_batch_hessian = vmap(hessian, in_axes=(None, None, 0))
    batch_hessian = compute_batch_hessian(weight, bias, x[:4])  # (the tutorial's 64 rows: 4 keep it quick)
    assert batch_hessian.shape == (4, 33, 31, 31)
    np.testing.assert_allclose(batch_hessian.asnumpy()[1], hessian(weight, bias, x[1]).asnumpy(), rtol=1e-4, atol=1e-6)

    def hvp_revfwd(f, inputs, vector):
        return jvp(grad(f), inputs, vector)[1]

    def f(x):
        return x.sin().sum()

    inputs = ops.randn(128)
    vector = ops.randn(128)
    result_hvp_revfwd = hvp_revfwd(f, inputs, vector)
    assert result_hvp_revfwd.shape == (128,)

    def hvp_revrev(f, inputs, vector):
        _, vjp_fn = vjp(grad(f), *inputs)
        return vjp_fn(*vector)

    result_hvp_revrev = hvp_revrev(f, (inputs,), (vector,))
    assert result_hvp_revrev[0].shape == (128,)
    assert np.allclose(result_hvp_revfwd.asnumpy(), result_hvp_revrev[0].asnumpy())
    np.testing.assert_allclose(result_hvp_revfwd.asnumpy(), -np.sin(inputs.asnumpy()) * vector.asnumpy(),
                               rtol=1e-5, atol=1e-6)


# -- per-sample-gradients tutorial ---------------------------------------------------------------------
def test_per_sample_gradients_tutorial(mode):
    from runtime import ops, Tensor, vmap, jit, grad  # the tutorial's own import line

    value_fn = lambda theta, state: ops.tensor_dot(theta, state, axes=1)
    theta = Tensor([0.2, -0.2, 0.1])
    s_t = Tensor([2., 1., -2.])
    r_tp1 = Tensor(2.)
    s_tp1 = Tensor([1., 2., 0.])

    def td_loss(theta, s_tm1, r_t, s_t):
        v_t = value_fn(theta, s_t)
        target = r_tp1 + value_fn(theta, s_tp1)
        return (ops.stop_gradient(target) - v_t) ** 2

    td_update = grad(td_loss)
    delta_theta = td_update(theta, s_t, r_tp1, s_tp1)
    assert delta_theta.asnumpy().tolist() == [-4., -8., -0.]

    batched_s_t = ops.stack([s_t, s_t])
    batched_r_tp1 = ops.stack([r_tp1, r_tp1])
    batched_s_tp1 = ops.stack([s_tp1, s_tp1])
    batched_theta = ops.stack([theta, theta])
    assert batched_theta.shape == (2, 3)  # (the tutorial builds it and does not use it)

    per_sample_grads = vmap(td_update)
    batch_theta = ops.stack([theta, theta])
    delta_theta = per_sample_grads(batch_theta, batched_s_t, batched_r_tp1, batched_s_tp1)
    assert delta_theta.asnumpy().tolist() == [[-4., -8., 0.], [-4., -8., 0.]]

    inefficiecient_per_sample_grads = vmap(td_update, in_axes=(None, 0, 0, 0))
    delta_theta = inefficiecient_per_sample_grads(theta, batched_s_t, batched_r_tp1, batched_s_tp1)
    assert delta_theta.asnumpy().tolist() == [[-4., -8., 0.], [-4., -8., 0.]]

    efficiecient_per_sample_grads = jit(inefficiecient_per_sample_grads)
    delta_theta = efficiecient_per_sample_grads(theta, batched_s_t, batched_r_tp1, batched_s_tp1)
    assert delta_theta.asnumpy().tolist() == [[-4., -8., 0.], [-4., -8., 0.]]


# -- custom bprop tutorial (r1.8: "Customizing bprop Function"; r1.9: "Customizing Reverse Propagation
#    Function of Cell") --------------------------------------------------------------------------------
@pytest.mark.parametrize("hook", [False, True])
def test_custom_bprop_tutorials(mode, hook):
    import contextlib
    import capture

    class Net(nn.Cell):
        def construct(self, x, y):
            z = x * y
            z = z * y
            return z

        def bprop(self, x, y, out, dout):
            x_dout = x + y
            y_dout = x * y
            return x_dout, y_dout

    class MatMulNet(nn.Cell):
        def __init__(self):
            super(MatMulNet, self).__init__()
            self.matmul = ops.MatMul()

        def construct(self, x, y):
            out = self.matmul(x, y)
            return out

        def bprop(self, x, y, out, dout):
            dx = x + 1
            dy = y + 1
            return dx, dy

    class GradNet(nn.Cell):
        def __init__(self, net):
            super(GradNet, self).__init__()
            self.net = net
            self.grad_op = ops.GradOperation(get_all=True)

        def construct(self, x, y):
            gradient_function = self.grad_op(self.net)
            return gradient_function(x, y)

    with (capture.enabled() if hook else contextlib.nullcontext()):
        grad_all = ops.GradOperation(get_all=True)
        output = grad_all(Net())(ms.Tensor(1, ms.float32), ms.Tensor(2, ms.float32))
        assert [float(o.asnumpy()) for o in output] == [3.0, 2.0]
        x = ms.Tensor([[0.5, 0.6, 0.4], [1.2, 1.3, 1.1]], dtype=ms.float32)
        y = ms.Tensor([[0.01, 0.3, 1.1], [0.1, 0.2, 1.3], [2.1, 1.2, 3.3]], dtype=ms.float32)
        dx, dy = GradNet(MatMulNet())(x, y)
        # and the second derivative through a bprop (issue 40): d/dx of the bprop's x + 1 is 1
        second = ops.grad(ops.grad(MatMulNet(), grad_position=0), grad_position=0)(x, y)
    np.testing.assert_allclose(dx.asnumpy(), x.asnumpy() + 1, rtol=1e-6)
    np.testing.assert_allclose(dy.asnumpy(), y.asnumpy() + 1, rtol=1e-6)
    np.testing.assert_allclose(second.asnumpy(), np.ones((2, 3)), rtol=1e-6)


def test_vmap_tutorial_model_ensembling(mode):
    """The vmap tutorial's model ensembling cells (LeNet5 x 4): inference and training. Oracle: a
    deep copy of each model trained on its own slice with the same optimizer, one step at a time."""
    import copy
    from runtime import vmap, grad
    from runtime.common.parameter import ParameterTuple

    class LeNet5(nn.Cell):
        """
        LeNet-5 network structure
        """
        def __init__(self, num_class=10, num_channel=1):
            super(LeNet5, self).__init__()
            self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode='valid')
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode='valid')
            self.fc1 = nn.Dense(16 * 5 * 5, 120)
            self.fc2 = nn.Dense(120, 84)
            self.fc3 = nn.Dense(84, num_class)
            self.relu = nn.ReLU()
            self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
            self.flatten = nn.Flatten()

        def construct(self, x):
            x = self.conv1(x)
            x = self.relu(x)
            x = self.max_pool2d(x)
            x = self.conv2(x)
            x = self.relu(x)
            x = self.max_pool2d(x)
            x = self.flatten(x)
            x = self.fc1(x)
            x = self.relu(x)
            x = self.fc2(x)
            x = self.relu(x)
            x = self.fc3(x)
            return x

    mindspore.set_seed(0)
    net1 = LeNet5()
    net2 = LeNet5()
    net3 = LeNet5()
    net4 = LeNet5()
    minibatch = Tensor(mnp.randn(3, 1, 32, 32), mindspore.float32)
    nets = nn.CellList([net1, net2, net3, net4])
    out = vmap(nets, in_axes=None)(minibatch)
    assert out.shape == (4, 3, 10)
    np.testing.assert_allclose(out.asnumpy()[2], net3(minibatch).asnumpy(), rtol=1e-5, atol=1e-6)
    minibatchs = Tensor(mnp.randn(4, 3, 1, 32, 32), mindspore.float32)
    out = vmap(nets, in_axes=0)(minibatchs)
    np.testing.assert_allclose(out.asnumpy()[1], net2(minibatchs[1]).asnumpy(), rtol=1e-5, atol=1e-6)

    class TrainOneStepNet(nn.Cell):
        def __init__(self, net, lr):
            super(TrainOneStepNet, self).__init__()
            self.loss_fn = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean'))
            self.weight = ParameterTuple(net.trainable_params())
            self.adam_optim = nn.Adam(self.weight, learning_rate=lr, use_amsgrad=True)

        def construct(self, batch, targets):
            loss = self.loss_fn(batch, targets)
            grad_weights = grad(self.loss_fn, grad_position=None, weights=self.weight)(batch, targets)
            self.adam_optim(grad_weights)
            return loss

    copies = [copy.deepcopy(n) for n in (net1, net2, net3, net4)]
    lrs = (1e-2, 1e-3, 2e-3, 3e-3)
    train_nets = nn.CellList([TrainOneStepNet(n, lr) for n, lr in zip((net1, net2, net3, net4), lrs)])
    model_ensembling_train_one_step = vmap(train_nets)
    reference = [TrainOneStepNet(c, lr) for c, lr in zip(copies, lrs)]
    images = Tensor(mnp.randn(4, 3, 1, 32, 32), mindspore.float32)
    labels = Tensor(mnp.randint(1, 10, (4, 3)), mindspore.int32)
    for i in range(1, 4):
        loss = model_ensembling_train_one_step(images, labels)
        want = [r(images[k], labels[k]).asnumpy() for k, r in enumerate(reference)]
        np.testing.assert_allclose(loss.asnumpy(), np.array(want), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(vmap(nets, in_axes=None)(minibatch).asnumpy()[0], net1(minibatch).asnumpy(),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net1.fc3.weight.asnumpy(), copies[0].fc3.weight.asnumpy(), rtol=1e-4, atol=1e-6)
