"""MindSpore's optimizer Primitives (ApplyMomentum, Adam, ApplyRMSProp, ...): three update steps of
a Parameter and its slots against the reference's formulas written out in numpy (float64), in
PyNative, under ``ms.jit`` and as a GRAPH_MODE Cell holding the Parameters (the compiled update
writes them in place)."""
import numpy as np
import pytest

import runtime as ms
from modes import MODES, run_cell
from runtime import Parameter, Tensor, nn, ops

RNG = np.random.default_rng(5)


def _np_step(name, attrs, state, scalars, g):
    """One step of the reference formula: ``state`` (dict of float64 arrays) updated in place."""
    s = state
    if name == "ApplyGradientDescent":
        s["var"] -= scalars["alpha"] * g
    elif name == "ApplyMomentum":
        s["accum"] = s["accum"] * scalars["momentum"] + g
        step = g + s["accum"] * scalars["momentum"] if attrs.get("use_nesterov") else s["accum"]
        s["var"] -= scalars["lr"] * step
    elif name == "ApplyRMSProp":
        d = scalars["decay"]
        s["ms"] = d * s["ms"] + (1 - d) * g * g
        s["mom"] = scalars["momentum"] * s["mom"] + scalars["lr"] * g / np.sqrt(s["ms"] + scalars["eps"])
        s["var"] -= s["mom"]
    elif name == "ApplyCenteredRMSProp":
        d = scalars["decay"]
        s["mg"] = d * s["mg"] + (1 - d) * g
        s["ms"] = d * s["ms"] + (1 - d) * g * g
        s["mom"] = scalars["momentum"] * s["mom"] + scalars["lr"] * g / np.sqrt(s["ms"] - s["mg"] ** 2 + scalars["eps"])
        s["var"] -= s["mom"]
    elif name == "ApplyAdagrad":
        s["accum"] += g * g
        s["var"] -= scalars["lr"] * g / np.sqrt(s["accum"])
    elif name == "ApplyAdagradV2":
        s["accum"] += g * g
        s["var"] -= scalars["lr"] * g / (np.sqrt(s["accum"]) + attrs["epsilon"])
    elif name == "ApplyAdaMax":
        b1, b2 = scalars["beta1"], scalars["beta2"]
        s["m"] = b1 * s["m"] + (1 - b1) * g
        s["v"] = np.maximum(b2 * s["v"] + scalars["eps"], np.abs(g))
        s["var"] -= scalars["lr"] / (1 - scalars["beta1_power"]) * s["m"] / s["v"]
    elif name == "ApplyAdadelta":
        rho, eps = scalars["rho"], scalars["eps"]
        s["accum"] = rho * s["accum"] + (1 - rho) * g * g
        update = np.sqrt(s["accum_update"] + eps) * g / np.sqrt(s["accum"] + eps)
        s["accum_update"] = rho * s["accum_update"] + (1 - rho) * update * update
        s["var"] -= scalars["lr"] * update
    elif name in ("ApplyAddSign", "ApplyPowerSign"):
        b = scalars["beta"]
        s["m"] = b * s["m"] + (1 - b) * g
        agree = np.sign(g) * np.sign(s["m"])
        if name == "ApplyAddSign":
            update = (scalars["alpha"] + scalars["sign_decay"] * agree) * g
        else:
            update = np.exp(scalars["logbase"] * scalars["sign_decay"] * agree) * g
        s["var"] -= scalars["lr"] * update
    elif name == "ApplyProximalGradientDescent":
        a = scalars["alpha"]
        prox = s["var"] - a * g
        s["var"] = np.sign(prox) / (1 + a * scalars["l2"]) * np.maximum(np.abs(prox) - a * scalars["l1"], 0)
    elif name in ("Adam", "AdamWeightDecay"):
        b1, b2, eps = scalars["beta1"], scalars["beta2"], scalars["eps"]
        s["m"] = b1 * s["m"] + (1 - b1) * g
        s["v"] = b2 * s["v"] + (1 - b2) * g * g
        if name == "Adam":
            rate = scalars["lr"] * np.sqrt(1 - scalars["beta2_power"]) / (1 - scalars["beta1_power"])
            numer = b1 * s["m"] + (1 - b1) * g if attrs.get("use_nesterov") else s["m"]
            s["var"] -= rate * numer / (np.sqrt(s["v"]) + eps)
        else:
            s["var"] -= scalars["lr"] * (s["m"] / (np.sqrt(s["v"]) + eps) + scalars["decay"] * s["var"])


# name, attrs, slot names (after var), the call's inputs in the reference's order
# ("var"/slot names: Parameters; "g": the gradient; other names: scalars from SCALARS)
CASES = [
    ("ApplyGradientDescent", {}, [], ["var", "alpha", "g"]),
    ("ApplyMomentum", {}, ["accum"], ["var", "accum", "lr", "g", "momentum"]),
    ("ApplyMomentum", {"use_nesterov": True}, ["accum"], ["var", "accum", "lr", "g", "momentum"]),
    ("ApplyRMSProp", {}, ["ms", "mom"], ["var", "ms", "mom", "lr", "g", "decay", "momentum", "eps"]),
    ("ApplyCenteredRMSProp", {}, ["mg", "ms", "mom"],
     ["var", "mg", "ms", "mom", "g", "lr", "decay", "momentum", "eps"]),
    ("ApplyAdagrad", {}, ["accum"], ["var", "accum", "lr", "g"]),
    ("ApplyAdagradV2", {"epsilon": 1e-3}, ["accum"], ["var", "accum", "lr", "g"]),
    ("ApplyAdaMax", {}, ["m", "v"], ["var", "m", "v", "beta1_power", "lr", "beta1", "beta2", "eps", "g"]),
    ("ApplyAdadelta", {}, ["accum", "accum_update"], ["var", "accum", "accum_update", "lr", "rho", "eps", "g"]),
    ("ApplyAddSign", {}, ["m"], ["var", "m", "lr", "alpha", "sign_decay", "beta", "g"]),
    ("ApplyPowerSign", {}, ["m"], ["var", "m", "lr", "logbase", "sign_decay", "beta", "g"]),
    ("ApplyProximalGradientDescent", {}, [], ["var", "alpha", "l1", "l2", "g"]),
    ("Adam", {}, ["m", "v"], ["var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "eps", "g"]),
    ("Adam", {"use_nesterov": True}, ["m", "v"],
     ["var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "eps", "g"]),
    ("AdamWeightDecay", {}, ["m", "v"], ["var", "m", "v", "lr", "beta1", "beta2", "eps", "decay", "g"]),
]
SCALARS = {"alpha": 0.3, "lr": 0.05, "momentum": 0.9, "decay": 0.8, "eps": 1e-6, "beta1": 0.9, "beta2": 0.99,
           "beta1_power": 0.9, "beta2_power": 0.99, "rho": 0.95, "sign_decay": 0.5, "beta": 0.7, "logbase": 0.4,
           "l1": 0.01, "l2": 0.2}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name, attrs, slots, inputs", CASES,
                         ids=[c[0] + ("-nesterov" if c[1].get("use_nesterov") else "") for c in CASES])
def test_update_step_matches_the_documented_formula(mode, name, attrs, slots, inputs):
    start = {"var": RNG.standard_normal((2, 3))}
    for k in slots:  # positive where a square root or a division reads them
        start[k] = RNG.uniform(0.1, 1.0, (2, 3))
    if "mg" in start:  # a mean square at least the squared mean gradient (a variance >= 0 then and after)
        start["ms"] = start["mg"] ** 2 + RNG.uniform(0.1, 1.0, (2, 3))
    grads = [RNG.standard_normal((2, 3)) for _ in range(3)]
    scalar_as_tensor = mode != "pynative"  # also 0-d Tensors for the scalar inputs

    class Step(nn.Cell):
        def __init__(self):
            super().__init__()
            self.prim = getattr(ops, name)(**attrs)
            self.params = nn.ParameterTuple(Parameter(Tensor(start[k].astype(np.float32)), name=k)
                                            for k in ["var"] + slots)

        def construct(self, g):
            named = dict(zip(["var"] + slots, self.params))
            args = [named[k] if k in named else g if k == "g" else
                    (Tensor(np.float32(SCALARS[k])) if scalar_as_tensor else SCALARS[k]) for k in inputs]
            out = self.prim(*args)
            return out if isinstance(out, tuple) else (out,)

    step = Step()
    state = {k: v.copy() for k, v in start.items()}
    for g in grads:
        run_cell(mode, step, Tensor(g.astype(np.float32)))
        _np_step(name, attrs, state, SCALARS, g)
    for p, k in zip(step.params, ["var"] + slots):
        assert np.isfinite(state[k]).all()
        np.testing.assert_allclose(p.asnumpy(), state[k], rtol=2e-5, atol=2e-6, err_msg=f"{name}: {k}")


def test_outputs_are_the_updated_parameters():
    var = Parameter(Tensor(np.ones(2, np.float32)), name="var")
    m = Parameter(Tensor(np.zeros(2, np.float32)), name="m")
    v = Parameter(Tensor(np.zeros(2, np.float32)), name="v")
    out = ops.Adam()(var, m, v, 0.9, 0.999, 0.001, 0.9, 0.999, 1e-8, Tensor(np.ones(2, np.float32)))
    assert isinstance(out, tuple) and len(out) == 3
    for o, p in zip(out, (var, m, v)):
        np.testing.assert_array_equal(o.asnumpy(), p.asnumpy())
    # MindSpore's ApplyGradientDescent example: var = 1 - 0.001 * 0.1
    var = Parameter(Tensor(np.ones((2, 2), np.float32)), name="var")
    out = ops.ApplyGradientDescent()(var, Tensor(0.001, ms.float32), Tensor(np.ones((2, 2), np.float32) * 0.1))
    np.testing.assert_allclose(out.asnumpy(), np.full((2, 2), 0.9999), rtol=1e-7)
