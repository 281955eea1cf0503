"""nn.Module, Parameter, Buffer and the containers: registration, traversal
order, state dicts, conversions, hooks, reprs, copies. Small test modules are
built here from Parameters (the real layers come later). PyTorch parity tests
(skipped without torch) build the same trees in both and compare."""
import copy
import pickle
import warnings
from collections import OrderedDict

from torchlike.utils.hooks import RemovableHandle

import pytest

import torchlike
import torchlike.nn as nn
from torchlike.nn.modules import module as module_mod
from conftest import requires_torch


def make_classes(lib):
    """The test module tree, written once for torchlike and PyTorch."""
    class Affine(lib.nn.Module):
        def __init__(self, n_in=3, n_out=2):
            super().__init__()
            self.weight = lib.nn.Parameter(lib.ones(n_in, n_out))
            self.bias = lib.nn.Parameter(lib.zeros(n_out))
            self.register_buffer("running", lib.zeros(n_out))
            self.register_buffer("scratch", lib.ones(1), persistent=False)

        def forward(self, x):
            return x @ self.weight + self.bias

        def extra_repr(self):
            return f"n_in={self.weight.shape[0]}, n_out={self.weight.shape[1]}"

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = lib.nn.Parameter(lib.tensor(2.0))
            self.first = Affine(3, 4)
            self.body = lib.nn.Sequential(Affine(4, 4), lib.nn.ModuleList([Affine(4, 4), Affine(4, 4)]))
            self.heads = lib.nn.ModuleDict({"b": Affine(4, 1), "a": Affine(4, 2)})
            self.plist = lib.nn.ParameterList([lib.ones(2), lib.zeros(3)])
            self.pdict = lib.nn.ParameterDict({"y": lib.ones(1), "x": lib.ones(2)})
            self.tied = self.first  # a shared submodule: its parameters appear once
            self.add_module("none_child", None)
            self.register_parameter("missing", None)
            self.register_buffer("count", lib.zeros((), dtype=lib.int64))

        def forward(self, x):
            x = self.first(x) * self.scale
            x = self.body[0](x)
            for m in self.body[1]:
                x = m(x)
            return self.heads["a"](x)

    return Affine, Net


Affine, Net = make_classes(torchlike)
Affine.__qualname__, Net.__qualname__ = "Affine", "Net"  # picklable as this module's globals

NET_PARAMS = ["scale", "first.weight", "first.bias", "body.0.weight", "body.0.bias", "body.1.0.weight",
              "body.1.0.bias", "body.1.1.weight", "body.1.1.bias", "heads.b.weight", "heads.b.bias",
              "heads.a.weight", "heads.a.bias", "plist.0", "plist.1", "pdict.x", "pdict.y"]


def _with_buffers(prefix):
    return [prefix + "weight", prefix + "bias", prefix + "running"]


NET_STATE = (["scale", "count"] + _with_buffers("first.") + _with_buffers("body.0.") + _with_buffers("body.1.0.")
             + _with_buffers("body.1.1.") + _with_buffers("heads.b.") + _with_buffers("heads.a.")
             + ["plist.0", "plist.1", "pdict.x", "pdict.y"] + _with_buffers("tied."))

NET_REPR = """Net(
  (first): Affine(n_in=3, n_out=4)
  (body): Sequential(
    (0): Affine(n_in=4, n_out=4)
    (1): ModuleList(
      (0-1): 2 x Affine(n_in=4, n_out=4)
    )
  )
  (heads): ModuleDict(
    (b): Affine(n_in=4, n_out=1)
    (a): Affine(n_in=4, n_out=2)
  )
  (plist): ParameterList(
      (0): Parameter containing: [torchlike.float32 of size 2]
      (1): Parameter containing: [torchlike.float32 of size 3]
  )
  (pdict): ParameterDict(
      (x): Parameter containing: [torch.FloatTensor of size 2]
      (y): Parameter containing: [torch.FloatTensor of size 1]
  )
  (tied): Affine(n_in=3, n_out=4)
  (none_child): None
)"""


# ---------------------------------------------------------------- Parameter / Buffer
def test_parameter_is_tensor_subclass_leaf():
    data = torchlike.arange(6.0).reshape(2, 3)
    p = nn.Parameter(data)
    assert isinstance(p, torchlike.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    assert p.data_ptr() == data.data_ptr()  # shares storage, as PyTorch's does
    with torchlike.no_grad():
        q = nn.Parameter(data)
    assert q.requires_grad  # no_grad does not change the default
    assert not nn.Parameter(data, requires_grad=False).requires_grad
    assert type(p * 2) is torchlike.Tensor  # ops return plain tensors
    (p * p).sum().backward()
    assert torchlike.equal(p.grad, 2 * data)
    assert nn.Parameter().shape == (0,)
    with pytest.raises(TypeError, match="must be Tensor"):
        nn.Parameter([1.0, 2.0])
    # a Parameter built from a tensor with history is a fresh leaf
    x = torchlike.ones(2, requires_grad=True)
    assert nn.Parameter(x * 3).is_leaf


def test_parameter_repr():
    assert repr(nn.Parameter(torchlike.ones(2))) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    assert repr(nn.Parameter(torchlike.zeros(1), requires_grad=False)) == "Parameter containing:\ntensor([0.])"


def test_parameter_deepcopy_and_pickle():
    p = nn.Parameter(torchlike.tensor([1.0, 2.0]), requires_grad=False)
    p.tag = "kept"
    for q in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(q) is nn.Parameter and not q.requires_grad and q.tag == "kept"
        assert torchlike.equal(q, p) and q.data_ptr() != p.data_ptr()


def test_buffer_marker():
    b = nn.Buffer(torchlike.ones(2), persistent=False)
    assert isinstance(b, nn.Buffer) and type(b) is torchlike.Tensor and b.persistent is False
    assert not isinstance(torchlike.ones(2), nn.Buffer)
    m = nn.Module()
    m.keep = nn.Buffer(torchlike.ones(1))
    m.skip = b
    assert list(dict(m.named_buffers())) == ["keep", "skip"]
    assert list(m.state_dict()) == ["keep"]
    m.skip = torchlike.zeros(2)  # reassigning a plain tensor keeps it a non-persistent buffer
    assert list(m.state_dict()) == ["keep"] and torchlike.equal(m.skip, torchlike.zeros(2))


# ---------------------------------------------------------------- registration
def test_setattr_registration_and_delattr():
    m = nn.Module()
    m.p = nn.Parameter(torchlike.ones(1))
    m.c = nn.Module()
    m.register_buffer("b", torchlike.zeros(1))
    m.plain = torchlike.ones(1)  # a plain tensor is just an attribute
    assert list(m._parameters) == ["p"] and list(m._modules) == ["c"] and list(m._buffers) == ["b"]
    assert "plain" in m.__dict__
    with pytest.raises(TypeError, match=r"cannot assign 'torch.FloatTensor' as parameter 'p' "
                                        r"\(torch.nn.Parameter or None expected\)"):
        m.p = torchlike.ones(1)
    with pytest.raises(TypeError, match=r"cannot assign 'int' as child module 'c' \(torch.nn.Module or None expected\)"):
        m.c = 3
    with pytest.raises(TypeError, match=r"cannot assign 'str' as buffer 'b'"):
        m.b = "x"
    m.p = None
    assert m.p is None and list(m.parameters()) == []
    with pytest.raises(TypeError, match="cannot assign 'torchlike.nn.modules.module.Module' as parameter 'p'"):
        m.p = nn.Module()
    # a Parameter replaces a same-named plain attribute or buffer
    m.plain2 = 1
    m.plain2 = nn.Parameter(torchlike.ones(1))
    assert "plain2" not in m.__dict__ and "plain2" in m._parameters
    del m.p
    m.p = nn.Module()
    assert "p" in m._modules
    del m.p, m.b, m.plain
    assert "p" not in m._modules and "b" not in m._buffers and "plain" not in m.__dict__
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'p'"):
        m.p


def test_register_errors():
    m = nn.Module()
    m.attr = 1
    with pytest.raises(KeyError, match='buffer name can.+t contain "."'):
        m.register_buffer("a.b", torchlike.ones(1))
    with pytest.raises(KeyError, match='buffer name can.+t be empty string'):
        m.register_buffer("", torchlike.ones(1))
    with pytest.raises(KeyError, match="attribute 'attr' already exists"):
        m.register_buffer("attr", torchlike.ones(1))
    with pytest.raises(TypeError, match="buffer name should be a string. Got int"):
        m.register_buffer(1, torchlike.ones(1))
    with pytest.raises(TypeError, match=r"cannot assign 'list' object to buffer 'x' \(torch Tensor or None required\)"):
        m.register_buffer("x", [1])
    with pytest.raises(KeyError, match='parameter name can.+t contain "."'):
        m.register_parameter("a.b", None)
    with pytest.raises(TypeError, match=r"cannot assign 'torch.FloatTensor' object to parameter 'w' "
                                        r"\(torch.nn.Parameter or None required\)"):
        m.register_parameter("w", torchlike.ones(1))
    with pytest.raises(KeyError, match='module name can.+t contain ".", got: a.b'):
        m.add_module("a.b", nn.Module())
    with pytest.raises(TypeError, match="int is not a Module subclass"):
        m.add_module("k", 3)
    with pytest.raises(KeyError, match="attribute 'attr' already exists"):
        m.register_module("attr", nn.Module())

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(torchlike.ones(1))
    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        Early()
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        nn.Module(foo=1)


def test_non_leaf_parameter_rejected():
    # A Parameter-typed tensor with history (what misuse such as re-typing an
    # op result produces) cannot be registered.
    non_leaf = nn.Parameter(torchlike.ones(2)) * 1
    non_leaf.__class__ = nn.Parameter
    assert non_leaf.grad_fn is not None
    with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor to parameter 'w'"):
        nn.Module().register_parameter("w", non_leaf)


# ---------------------------------------------------------------- traversal
def test_named_parameters_order_and_dedup():
    net = Net()
    assert [k for k, _ in net.named_parameters()] == NET_PARAMS
    assert len(list(net.parameters())) == len(NET_PARAMS)
    dup = [k for k, _ in net.named_parameters(remove_duplicate=False)]
    assert dup == NET_PARAMS + ["tied.weight", "tied.bias"]
    assert [k for k, _ in net.named_parameters(prefix="model", recurse=False)] == ["model.scale"]
    assert [k for k, _ in net.named_buffers()] == ["count", "first.running", "first.scratch", "body.0.running",
                                                   "body.0.scratch", "body.1.0.running", "body.1.0.scratch",
                                                   "body.1.1.running", "body.1.1.scratch", "heads.b.running",
                                                   "heads.b.scratch", "heads.a.running", "heads.a.scratch"]
    assert len(list(net.buffers(recurse=False))) == 1


def test_modules_and_children():
    net = Net()
    assert [k for k, _ in net.named_children()] == ["first", "body", "heads", "plist", "pdict"]
    assert list(net.children())[0] is net.first
    assert [k for k, _ in net.named_modules()] == ["", "first", "body", "body.0", "body.1", "body.1.0", "body.1.1",
                                                   "heads", "heads.b", "heads.a", "plist", "pdict"]
    assert [k for k, _ in net.named_modules(prefix="m", remove_duplicate=False)][-2:] == ["m.pdict", "m.tied"]
    assert len(list(net.modules())) == 12


def test_get_submodule_parameter_buffer():
    net = Net()
    assert net.get_submodule("body.1.0") is net.body[1][0]
    assert net.get_submodule("") is net
    assert net.get_parameter("heads.a.bias") is net.heads["a"].bias
    assert net.get_buffer("first.running") is net.first.running
    with pytest.raises(AttributeError, match="Affine has no attribute `nope`"):
        net.get_submodule("first.nope")
    with pytest.raises(AttributeError, match="`weight` is not an nn.Module"):
        net.get_submodule("first.weight.x")
    with pytest.raises(AttributeError, match="`running` is not an nn.Parameter"):
        net.get_parameter("first.running")
    with pytest.raises(AttributeError, match="`weight` is not a buffer"):
        net.get_buffer("first.weight")
    new = Affine(3, 4)
    net.set_submodule("body.0", new)
    assert net.body[0] is new
    with pytest.raises(ValueError, match="Cannot set the submodule without a target name!"):
        net.set_submodule("", new)


# ---------------------------------------------------------------- modes and gradients
def test_train_eval_apply_requires_grad_zero_grad():
    net = Net()
    assert net.training and net.body[1][0].training
    assert net.eval() is net and not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        net.train("yes")
    seen = []
    net.body.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Affine", "Affine", "Affine", "ModuleList", "Sequential"]  # children first
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    net.requires_grad_()
    out = net(torchlike.ones(5, 3)).sum()
    out.backward()
    assert net.first.weight.grad is not None and net.heads["b"].weight.grad is None
    net.zero_grad(set_to_none=False)
    assert torchlike.equal(net.first.weight.grad, torchlike.zeros(3, 4))
    net.zero_grad()
    assert net.first.weight.grad is None


def test_dtype_conversion_keeps_parameter_objects():
    net = Net()
    old = net.first.weight
    old_grad = torchlike.ones(3, 4)
    net.first.weight.grad = old_grad
    opt = torchlike.optim.SGD(net.parameters(), lr=0.5)
    assert net.double() is net
    assert net.first.weight.dtype == torchlike.float64 and isinstance(net.first.weight, nn.Parameter)
    # converted in place, as PyTorch's `param.data = ...`: an optimizer made before
    # the conversion still updates the model's parameters
    assert net.first.weight is old and net.first.weight.grad is old_grad
    before = old.detach().clone()
    opt.step()
    assert torchlike.equal(old.detach(), before - 0.5)  # grad of ones, lr 0.5, in float64
    assert opt.param_groups[0]["params"][0].dtype == torchlike.float64
    assert net.tied.weight is net.first.weight  # sharing survives
    assert net.first.weight.grad.dtype == torchlike.float64
    assert net.count.dtype == torchlike.int64  # integer buffers keep their dtype
    assert net.first.running.dtype == torchlike.float64
    net.half()
    assert net.scale.dtype == torchlike.float16
    net.bfloat16()
    assert net.scale.dtype == torchlike.bfloat16
    net.float()
    assert net.plist[0].dtype == torchlike.float32 and net.pdict["x"].dtype == torchlike.float32
    net.to(torchlike.float64)
    assert net.scale.dtype == torchlike.float64
    net.to(torchlike.zeros(1))
    assert net.scale.dtype == torchlike.float32
    same = net.scale
    net.to("cpu", non_blocking=True)  # nothing to move: Parameters keep their identity
    net.cpu()
    assert net.scale is same
    net.to(device="cpu", dtype=torchlike.float64)
    assert net.scale.dtype == torchlike.float64 and net.scale.requires_grad
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex dtypes, but got desired "
                                        "dtype=torchlike.int64"):
        net.to(torchlike.int64)
    net2 = Net().requires_grad_(False).double()
    assert not net2.scale.requires_grad


# ---------------------------------------------------------------- state dicts
def test_state_dict_keys_and_values():
    net = Net()
    sd = net.state_dict()
    assert list(sd) == NET_STATE
    assert type(sd["scale"]) is torchlike.Tensor and not sd["scale"].requires_grad
    assert sd["first.weight"].data_ptr() == net.first.weight.data_ptr()
    kv = net.state_dict(keep_vars=True)
    assert kv["scale"] is net.scale
    assert list(net.state_dict(prefix="m.").keys())[:2] == ["m.scale", "m.count"]
    assert sd._metadata[""] == {"version": 1} and "body.1.0" in sd._metadata
    dest = OrderedDict()
    with pytest.warns(FutureWarning, match="Positional args are being deprecated"):
        net.first.state_dict(dest, "x.")
    assert list(dest) == ["x.weight", "x.bias", "x.running"]


def test_load_state_dict_strict_and_errors():
    src, dst = Net(), Net()
    with torchlike.no_grad():
        for p in src.parameters():
            p.add_(1.5)
    res = dst.load_state_dict(src.state_dict())
    assert repr(res) == "<All keys matched successfully>" and res.missing_keys == [] and res.unexpected_keys == []
    assert torchlike.equal(dst.first.weight, src.first.weight)
    assert dst.first.weight.data_ptr() != src.first.weight.data_ptr()

    sd = src.state_dict()
    del sd["first.bias"]
    sd["extra"] = torchlike.ones(1)
    sd["body.9.w"] = torchlike.ones(1)
    with pytest.raises(RuntimeError) as e:
        dst.load_state_dict(sd)
    assert str(e.value) == ('Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: "first.bias". \n\t'
                            'Unexpected key(s) in state_dict: "extra", "body.9.w". ')
    res = dst.load_state_dict(sd, strict=False)
    assert res.missing_keys == ["first.bias"] and res.unexpected_keys == ["extra", "body.9.w"]
    assert res == (["first.bias"], ["extra", "body.9.w"])

    bad = src.state_dict()
    bad["first.weight"] = torchlike.ones(4, 3)
    with pytest.raises(RuntimeError) as e:
        dst.load_state_dict(bad, strict=False)
    assert str(e.value) == ("Error(s) in loading state_dict for Net:\n\tsize mismatch for first.weight: copying a param "
                            "with shape torchlike.Size([4, 3]) from checkpoint, the shape in current model is "
                            "torchlike.Size([3, 4]).")
    bad["first.weight"] = [1]
    with pytest.raises(RuntimeError, match='While copying the parameter named "first.weight", expected torch.Tensor'):
        dst.load_state_dict(bad)
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got <class 'list'>."):
        dst.load_state_dict([])


def test_load_state_dict_assign_and_scalar_compat():
    m = Affine(2, 2)
    sd = {"weight": torchlike.full((2, 2), 3.0, dtype=torchlike.float64), "bias": torchlike.ones(2),
          "running": torchlike.ones(2)}
    m.load_state_dict(sd, assign=True)
    assert isinstance(m.weight, nn.Parameter) and m.weight.dtype == torchlike.float64 and m.weight.requires_grad
    assert m.running is sd["running"]
    m2 = Affine(2, 2)
    m2.load_state_dict(sd)
    assert m2.weight.dtype == torchlike.float32 and torchlike.equal(m2.weight, torchlike.full((2, 2), 3.0))
    # a 0-d parameter accepts a one-element 1-d entry (old checkpoints)
    n = nn.Module()
    n.s = nn.Parameter(torchlike.tensor(0.0))
    n.load_state_dict({"s": torchlike.tensor([4.0])})
    assert n.s.item() == 4.0


def test_extra_state_and_load_hooks():
    class WithExtra(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torchlike.ones(1))
            self.state = {"step": 3}

        def get_extra_state(self):
            return dict(self.state)

        def set_extra_state(self, state):
            self.state = state

    a, b = WithExtra(), WithExtra()
    a.state["step"] = 7
    sd = a.state_dict()
    assert list(sd) == ["w", "_extra_state"]
    events = []
    b.register_load_state_dict_pre_hook(lambda mod, sd, prefix, *rest: events.append(("pre", mod is b, prefix)))
    b.register_load_state_dict_post_hook(lambda mod, keys: events.append(("post", list(keys.missing_keys))))
    b.load_state_dict(sd)
    assert b.state == {"step": 7} and events == [("pre", True, ""), ("post", [])]
    with pytest.raises(RuntimeError, match="Missing key\\(s\\) in state_dict: \"_extra_state\""):
        b.load_state_dict({"w": torchlike.ones(1)})

    def bad_post(mod, keys):
        return keys
    b.register_load_state_dict_post_hook(bad_post)
    with pytest.raises(AssertionError, match="are not"):
        b.load_state_dict(sd)


def test_state_dict_hooks():
    m = Affine(2, 2)
    calls = []
    h1 = m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: calls.append(("pre", prefix, keep_vars)))

    def drop_bias(mod, sd, prefix, meta):
        sd.pop(prefix + "bias")
    m.register_state_dict_post_hook(drop_bias)
    assert list(m.state_dict(prefix="p.", keep_vars=True)) == ["p.weight", "p.running"]
    assert calls == [("pre", "p.", True)]
    h1.remove()
    m.state_dict()
    assert len(calls) == 1

    def replace(mod, sd, prefix, meta):
        return OrderedDict(only=torchlike.ones(1))
    m2 = Affine(2, 2)
    m2._register_state_dict_hook(replace)
    assert list(m2.state_dict()) == ["only"]

    def returns(mod, sd, prefix, meta):
        return sd
    m3 = Affine(2, 2)
    m3.register_state_dict_post_hook(returns)
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        m3.state_dict()


# ---------------------------------------------------------------- forward hooks
class Doubler(nn.Module):
    def forward(self, x, *, scale=1.0):
        return x * 2 * scale


def test_forward_hooks_order_and_results():
    m = Doubler()
    log = []
    m.register_forward_pre_hook(lambda mod, args: log.append("pre1"))
    m.register_forward_pre_hook(lambda mod, args: (args[0] + 1,))  # replaces the input
    m.register_forward_pre_hook(lambda mod, args: log.append("pre0"), prepend=True)
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"scale": 10.0}), with_kwargs=True)
    h = m.register_forward_hook(lambda mod, args, out: out + 100)
    m.register_forward_hook(lambda mod, args, kwargs, out: log.append(("kw", kwargs["scale"])), with_kwargs=True)
    m.register_forward_hook(lambda mod, args, out: log.append("post0"), prepend=True)
    x = torchlike.ones(1)
    assert m(x).item() == (1 + 1) * 2 * 10 + 100
    assert log == ["pre0", "pre1", "post0", ("kw", 10.0)]
    h.remove()
    h.remove()  # a second remove is harmless
    assert m(x).item() == 40.0
    bad = m.register_forward_pre_hook(lambda mod, a, k: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple of \\(new_args, new_kwargs\\)"):
        m(x)
    bad.remove()


def test_forward_hook_always_call():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")
    m = Boom()
    seen = []
    m.register_forward_hook(lambda mod, args, out: seen.append(("always", out)), always_call=True)
    m.register_forward_hook(lambda mod, args, out: seen.append("normal"))
    with pytest.raises(ValueError, match="boom"):
        m(torchlike.ones(1))
    assert seen == [("always", None)]


def test_global_module_hooks():
    log = []
    hs = [module_mod.register_module_forward_pre_hook(lambda mod, args: log.append(("gpre", type(mod).__name__))),
          module_mod.register_module_forward_hook(lambda mod, args, out: log.append(("gpost", type(mod).__name__)))]
    try:
        m = Doubler()
        m.register_forward_pre_hook(lambda mod, args: log.append(("pre", "local")))
        m(torchlike.ones(1))
        assert log == [("gpre", "Doubler"), ("pre", "local"), ("gpost", "Doubler")]
    finally:
        for h in hs:
            h.remove()
    log.clear()
    Doubler()(torchlike.ones(1))
    assert log == []
    reg = []
    hs = [module_mod.register_module_parameter_registration_hook(lambda m, n, p: reg.append(("p", n))),
          module_mod.register_module_buffer_registration_hook(lambda m, n, b: reg.append(("b", n))),
          module_mod.register_module_module_registration_hook(lambda m, n, c: reg.append(("m", n)))]
    try:
        Affine(1, 1)
        nn.Sequential(Doubler())
    finally:
        for h in hs:
            h.remove()
    assert reg == [("p", "weight"), ("p", "bias"), ("b", "running"), ("b", "scratch"), ("m", "0")]


# ---------------------------------------------------------------- backward hooks
def test_full_backward_hooks():
    m = Affine(3, 2).double()
    log = []

    def pre(mod, grad_output):
        log.append(("pre", tuple(grad_output[0].shape)))
        return (grad_output[0] * 2,)

    def post(mod, grad_input, grad_output):
        log.append(("post", tuple(grad_input[0].shape), tuple(grad_output[0].shape)))
        return (grad_input[0] + 1,)
    m.register_full_backward_pre_hook(pre)
    m.register_full_backward_hook(post)
    x = torchlike.ones(4, 3, dtype=torchlike.float64, requires_grad=True)
    m(x).sum().backward()
    assert log == [("pre", (4, 2)), ("post", (4, 3), (4, 2))]
    # d(sum(x @ W + b))/dx = ones @ W^T = 2 per element; doubled by pre, +1 by post
    assert torchlike.equal(x.grad, torchlike.full((4, 3), 5.0, dtype=torchlike.float64))
    assert torchlike.equal(m.weight.grad, torchlike.full((3, 2), 8.0, dtype=torchlike.float64))


def test_full_backward_hook_inputs_without_grad():
    m = Affine(3, 2)
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, tuple(go[0].shape))))
    m(torchlike.ones(2, 3)).sum().backward()
    assert seen == [((None,), (2, 2))]
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks"):
        mm = nn.Module()
        mm._is_full_backward_hook = False
        mm.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks on a "
                                           "single Module"):
        m.register_backward_hook(lambda *a: None)


def test_non_full_backward_hook_sees_last_node():
    m = Affine(3, 2)
    seen = []

    def hook(mod, grad_input, grad_output):
        seen.append((mod is m, len(grad_input), tuple(grad_output[0].shape)))
    h = m.register_backward_hook(hook)
    with pytest.warns(FutureWarning, match="Using a non-full backward hook when the forward contains multiple "
                                           "autograd Nodes"):
        out = m(torchlike.ones(4, 3))
    out.sum().backward()
    # the output's node is the `+ bias` addition: two gradient inputs
    assert seen == [(True, 2, (4, 2))]
    h.remove()


def test_global_full_backward_hooks():
    log = []
    hs = [module_mod.register_module_full_backward_pre_hook(lambda mod, go: log.append("gpre")),
          module_mod.register_module_full_backward_hook(lambda mod, gi, go: log.append("gpost"))]
    try:
        m = Affine(3, 2)
        m(torchlike.ones(1, 3, requires_grad=True)).sum().backward()
    finally:
        for h in hs:
            h.remove()
        module_mod._global["backward_is_full"] = None
    assert log == ["gpre", "gpost"]


# ---------------------------------------------------------------- repr / dir / copies
def test_repr_nested():
    assert repr(Net()) == NET_REPR
    assert repr(nn.Module()) == "Module()"
    assert repr(nn.Sequential()) == "Sequential()" and repr(nn.ModuleList()) == "ModuleList()"

    class Multi(nn.Module):
        def extra_repr(self):
            return "a=1\nb=2"
    m = Multi()
    m.child = Multi()
    assert repr(m) == "Multi(\n  a=1\n  b=2\n  (child): Multi(\n    a=1\n    b=2\n  )\n)"
    ml = nn.ModuleList([Affine(1, 1), Affine(1, 1), Affine(2, 1), Affine(1, 1)])
    assert repr(ml) == ("ModuleList(\n  (0-1): 2 x Affine(n_in=1, n_out=1)\n  (2): Affine(n_in=2, n_out=1)\n"
                        "  (3): Affine(n_in=1, n_out=1)\n)")


def test_dir():
    net = Net()
    d = dir(net)
    assert {"scale", "first", "count", "state_dict", "training"} <= set(d) and d == sorted(d)
    assert "0" not in dir(net.body) and "0" not in dir(net.plist)


def test_deepcopy_and_pickle_module():
    net = Net()
    net.first.weight.grad = torchlike.ones(3, 4)
    net.first.register_forward_hook(_pickleable_hook)
    net.eval()
    for c in (copy.deepcopy(net), pickle.loads(pickle.dumps(net))):
        assert [k for k, _ in c.named_parameters()] == NET_PARAMS
        assert c.tied is c.first and c.first.weight is not net.first.weight
        assert torchlike.equal(c.first.weight, net.first.weight) and not c.training
        assert c.first.weight.data_ptr() != net.first.weight.data_ptr()
        assert len(c.first._forward_hooks) == 1
        assert list(c.state_dict()) == NET_STATE
    assert copy.deepcopy(net).first.weight.grad is None  # as PyTorch's Parameter.__deepcopy__
    t = torchlike.ones(2, requires_grad=True)
    t.grad = torchlike.full((2,), 3.0)
    assert torchlike.equal(copy.deepcopy(t).grad, t.grad)  # a plain leaf keeps its grad
    c = copy.deepcopy(net)
    c.first.weight.requires_grad_(False)
    assert net.first.weight.requires_grad
    with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
        copy.deepcopy(torchlike.ones(1, requires_grad=True) * 2)


def _pickleable_hook(mod, args, out):
    return None


def test_tensor_pickle_roundtrip_dtypes():
    for dt in (torchlike.float32, torchlike.float64, torchlike.bfloat16, torchlike.float16, torchlike.int64,
               torchlike.uint8, torchlike.bool):
        t = (torchlike.arange(6) % 3).to(dt).reshape(2, 3)
        back = pickle.loads(pickle.dumps(t))
        assert back.dtype == dt and back.shape == (2, 3) and torchlike.equal(back, t)
    s = pickle.loads(pickle.dumps(torchlike.tensor(2.5, requires_grad=True)))
    assert s.item() == 2.5 and s.requires_grad
    v = torchlike.arange(10.0)[::3]
    assert torchlike.equal(pickle.loads(pickle.dumps(v)), torchlike.tensor([0.0, 3.0, 6.0, 9.0]))


def test_call_without_forward():
    with pytest.raises(NotImplementedError, match='Module \\[Module\\] is missing the required "forward" function'):
        nn.Module()(torchlike.ones(1))


# ---------------------------------------------------------------- containers
def _named(n):
    return [Doubler() for _ in range(n)]


def test_sequential():
    a, b, c, d = _named(4)
    seq = nn.Sequential(a, b, c)
    assert len(seq) == 3 and list(seq) == [a, b, c] and seq[-1] is c and seq[0] is a
    assert seq(torchlike.ones(1)).item() == 8.0
    sl = seq[1:]
    assert type(sl) is nn.Sequential and list(sl._modules) == ["1", "2"] and list(sl) == [b, c]
    assert list(seq[::-1]) == [c, b, a]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        seq[3]
    with pytest.raises(IndexError, match="index -4 is out of range"):
        seq[-4]
    seq[-1] = d
    assert seq[2] is d
    seq.append(c)
    assert list(seq._modules) == ["0", "1", "2", "3"]
    seq.insert(1, c)
    assert list(seq) == [a, c, b, d, c]
    seq.insert(-1, a)
    assert list(seq) == [a, c, b, d, a, c]
    with pytest.raises(IndexError, match="Index out of range: 9"):
        seq.insert(9, a)
    with pytest.raises(AssertionError, match="module should be of type"):
        seq.insert(0, 3)
    assert seq.pop(1) is c and list(seq._modules) == ["0", "1", "2", "3", "4"]
    del seq[0:2]
    assert list(seq) == [d, a, c] and list(seq._modules) == ["0", "1", "2"]
    seq.extend([b])
    assert list(seq) == [d, a, c, b]
    both = nn.Sequential(a) + nn.Sequential(b, c)
    assert list(both) == [a, b, c] and list(both._modules) == ["0", "1", "2"]
    with pytest.raises(ValueError, match="add operator supports only objects of Sequential class"):
        nn.Sequential(a) + [b]
    s2 = nn.Sequential(a, b)
    s2 += nn.Sequential(c)
    assert list(s2) == [a, b, c]
    assert list(nn.Sequential(a, b) * 2) == [a, b, a, b] and list(2 * nn.Sequential(a)) == [a, a]
    s3 = nn.Sequential(a, b)
    s3 *= 2
    assert list(s3) == [a, b, a, b]
    with pytest.raises(ValueError, match="Non-positive multiplication factor 0"):
        nn.Sequential(a) * 0
    with pytest.raises(TypeError, match="unsupported operand type"):
        nn.Sequential(a) * 1.5
    named = nn.Sequential(OrderedDict([("enc", a), ("dec", b)]))
    assert named.enc is a and list(named._modules) == ["enc", "dec"] and named[1] is b
    assert repr(named) == "Sequential(\n  (enc): Doubler()\n  (dec): Doubler()\n)"


def test_module_list():
    a, b, c = _named(3)
    ml = nn.ModuleList([a, b])
    assert len(ml) == 2 and ml[-1] is b and list(ml) == [a, b]
    assert type(ml[:1]) is nn.ModuleList and list(ml[:1]) == [a]
    ml.append(c)
    ml.insert(0, c)
    assert list(ml) == [c, a, b, c]
    ml[1] = b
    assert ml[1] is b
    assert ml.pop(0) is c and list(ml._modules) == ["0", "1", "2"]
    del ml[-1]
    assert list(ml) == [b, b]
    ml += [a]
    assert list(ml) == [b, b, a]
    assert list(ml + nn.ModuleList([c])) == [b, b, a, c]
    with pytest.raises(IndexError, match="index 5 is out of range"):
        ml[5]
    with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable, but got int"):
        ml.extend(3)
    assert [k for k, _ in nn.ModuleList([Affine(1, 1)]).named_parameters()] == ["0.weight", "0.bias"]


def test_module_dict():
    a, b, c = _named(3)
    md = nn.ModuleDict({"z": a, "y": b})  # a plain dict keeps insertion order
    assert list(md) == ["z", "y"] and md["y"] is b and "z" in md and len(md) == 2
    md["x"] = c
    assert list(md.keys()) == ["z", "y", "x"] and list(md.values()) == [a, b, c]
    assert list(md.items())[0] == ("z", a)
    assert md.pop("z") is a and list(md) == ["y", "x"]
    del md["y"]
    md.update([("w", a)])
    assert list(md) == ["x", "w"]
    with pytest.raises(ValueError, match="ModuleDict update sequence element #0 has length 1; 2 is required"):
        md.update([(1,)])
    with pytest.raises(TypeError, match="ModuleDict.update should be called with an iterable"):
        md.update(3)
    md.clear()
    assert len(md) == 0


def test_parameter_list():
    pl = nn.ParameterList([torchlike.ones(2), nn.Parameter(torchlike.zeros(3), requires_grad=False)])
    assert all(isinstance(p, nn.Parameter) for p in pl) and len(pl) == 2
    assert pl[0].requires_grad and not pl[-1].requires_grad
    pl.append(torchlike.ones(1))
    pl.extend([torchlike.ones(4)])
    pl += [torchlike.ones(5)]
    assert [p.shape[0] for p in pl] == [2, 3, 1, 4, 5]
    assert [p.shape[0] for p in pl[1:3]] == [3, 1] and type(pl[1:3]) is nn.ParameterList
    pl[0] = torchlike.zeros(7)
    assert pl[0].shape == (7,) and isinstance(pl[0], nn.Parameter)
    with pytest.raises(TypeError, match="ParameterList.extend should be called with an iterable, but got Tensor"):
        pl.extend(torchlike.ones(2))
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        pl(1)
    assert [k for k, _ in pl.named_parameters()] == ["0", "1", "2", "3", "4"]


def test_parameter_dict():
    pd = nn.ParameterDict({"b": torchlike.ones(1), "a": torchlike.ones(2)})  # plain dict: sorted keys
    assert list(pd) == ["a", "b"] and isinstance(pd["a"], nn.Parameter)
    pd2 = nn.ParameterDict(OrderedDict([("b", torchlike.ones(1)), ("a", torchlike.ones(2))]))
    assert list(pd2) == ["b", "a"]
    pd["c"] = torchlike.ones(3)
    assert list(pd.keys()) == ["a", "b", "c"] and [v.shape[0] for v in pd.values()] == [2, 1, 3]
    assert "c" in pd and pd.get("zz", 5) == 5 and list(reversed(pd)) == ["c", "b", "a"]
    k, v = pd.popitem()
    assert k == "c" and v.shape == (3,) and list(pd) == ["a", "b"]
    assert pd.pop("a").shape == (2,) and list(pd) == ["b"]
    assert pd.setdefault("d", torchlike.ones(4)).shape == (4,)
    merged = pd | nn.ParameterDict(OrderedDict(e=torchlike.ones(1)))
    assert list(merged) == ["b", "d", "e"] and list(pd) == ["b", "d"]
    pd |= merged
    assert list(pd) == ["b", "d", "e"]
    assert list(pd.copy()) == ["b", "d", "e"] and list(pd.fromkeys(["p", "q"])) == ["p", "q"]
    with pytest.raises(TypeError, match="Index given to ParameterDict cannot be used as a key as it is not a string "
                                        "\\(type is 'int'\\)"):
        pd[1]
    with pytest.raises(RuntimeError, match="ParameterDict should not be called."):
        pd(1)
    pd.clear()
    assert len(pd) == 0 and list(pd.parameters()) == []


# ---------------------------------------------------------------- PyTorch parity
@requires_torch
def test_parity_with_pytorch():
    import torch
    TAffine, TNet = make_classes(torch)
    ours, theirs = Net(), TNet()
    assert [k for k, _ in ours.named_parameters()] == [k for k, _ in theirs.named_parameters()]
    assert [k for k, _ in ours.named_parameters(remove_duplicate=False)] == \
        [k for k, _ in theirs.named_parameters(remove_duplicate=False)]
    assert [k for k, _ in ours.named_buffers()] == [k for k, _ in theirs.named_buffers()]
    assert [k for k, _ in ours.named_modules()] == [k for k, _ in theirs.named_modules()]
    assert [k for k, _ in ours.named_children()] == [k for k, _ in theirs.named_children()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert list(ours.state_dict()._metadata) == list(theirs.state_dict()._metadata)
    # reprs agree once the dtype spelling (torch.float32 vs torchlike.float32) is mapped
    assert repr(ours) == repr(theirs).replace("torch.float32", "torchlike.float32")
    assert repr(nn.Parameter(torchlike.ones(2))) == repr(torch.nn.Parameter(torch.ones(2)))
    assert [n for n in dir(ours) if not n.startswith("_")] == \
        [n for n in dir(theirs) if not n.startswith("_") and hasattr(ours, n)]
    # load a PyTorch state dict (values through NumPy) and compare outputs
    sd = {k: torchlike.from_numpy(v.numpy().copy()) for k, v in theirs.state_dict().items()}
    with torch.no_grad():
        for p in theirs.parameters():
            p.uniform_()
    sd = {k: torchlike.from_numpy(v.numpy().copy()) for k, v in theirs.state_dict().items()}
    ours.load_state_dict(sd)
    x = torch.rand(5, 3)
    assert torchlike.allclose(ours(torchlike.from_numpy(x.numpy())), torchlike.from_numpy(theirs(x).detach().numpy()))
    # error messages: missing/unexpected and size mismatch
    bad = dict(sd)
    del bad["scale"]
    bad["zz"] = torchlike.ones(1)
    tbad = {k: torch.from_numpy(v.numpy()) for k, v in bad.items()}
    with pytest.raises(RuntimeError) as e_ours:
        ours.load_state_dict(bad)
    with pytest.raises(RuntimeError) as e_theirs:
        theirs.load_state_dict(tbad)
    assert str(e_ours.value) == str(e_theirs.value)
    r_ours, r_theirs = ours.load_state_dict(bad, strict=False), theirs.load_state_dict(tbad, strict=False)
    assert (r_ours.missing_keys, r_ours.unexpected_keys) == (r_theirs.missing_keys, r_theirs.unexpected_keys)
    assert repr(ours.load_state_dict(sd)) == repr(theirs.load_state_dict({k: torch.from_numpy(v.numpy())
                                                                           for k, v in sd.items()}))


@requires_torch
def test_parity_containers_and_hooks_with_pytorch():
    import torch
    for lib in (torchlike, torch):
        seq = lib.nn.Sequential(lib.nn.Module(), lib.nn.Module(), lib.nn.Module())
        seq.insert(-1, lib.nn.Module())
        del seq[0]
        ml = lib.nn.ModuleList([lib.nn.Module()] * 3)
        ml.insert(1, lib.nn.Sequential())
        out = (repr(seq), repr(seq[1:]), repr(seq * 2), repr(ml), repr(ml[::2]))
        if lib is torchlike:
            ours = out
        else:
            assert ours == out
    logs = []
    for lib in (torchlike, torch):
        log = []

        class M(lib.nn.Module):
            def forward(self, x, y=None):
                return x * 3
        m = M()
        m.register_forward_pre_hook(lambda mod, args: log.append(("pre", len(args))))
        m.register_forward_pre_hook(lambda mod, args, kwargs: log.append(("prek", sorted(kwargs))), with_kwargs=True,
                                    prepend=True)
        m.register_forward_hook(lambda mod, args, out: log.append("post"))
        m.register_forward_hook(lambda mod, args, kwargs, out: log.append("postk"), with_kwargs=True, prepend=True)
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("bpre", tuple(go[0].shape))))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("bpost", tuple(gi[0].shape))))
        x = lib.ones(2, 2, requires_grad=True)
        m(x, y=1).sum().backward()
        log.append(x.grad.sum().item())
        m2 = M()
        m2.register_backward_hook(lambda mod, gi, go: log.append(("old", len(gi), tuple(go[0].shape))))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y = m2(x)
        log.append([str(e.message) for e in w])
        y.sum().backward()
        logs.append(log)
    assert logs[0] == logs[1]


def test_to_empty_call_super_init_and_handles():
    m = Affine(2, 3)
    m.to_empty(device="cpu")
    assert m.weight.shape == (2, 3) and isinstance(m.weight, nn.Parameter) and m.running.shape == (3,)
    assert m.to_empty(device="meta", recurse=False).weight.is_meta

    class Mixin:
        def __init__(self, tag=None):
            self.tag = tag

    class Cooperative(nn.Module, Mixin):
        call_super_init = True  # Module.__init__ forwards its arguments to the next class in the MRO
    assert Cooperative(tag="x").tag == "x"
    assert nn.Module.dump_patches is False and nn.Module.call_super_init is False

    hooks = OrderedDict()
    h = RemovableHandle(hooks)
    hooks[h.id] = print
    with h:
        assert h.id in hooks
    assert h.id not in hooks
    h2 = RemovableHandle(hooks)
    assert h2.id > h.id  # ids are unique across handles
    module_mod._global["backward_is_full"] = None  # set by earlier tests; removal keeps it, as in PyTorch
    handle = module_mod.register_module_backward_hook(lambda *a: None)
    try:
        with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks as a "
                                               "global Module hook"):
            module_mod.register_module_full_backward_hook(lambda *a: None)
    finally:
        handle.remove()
        module_mod._global["backward_is_full"] = None


def test_container_deprecated():
    child = nn.Module()
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
        c = nn.Container(a=child)
    assert c.a is child and repr(c) == "Container(\n  (a): Module()\n)"


def test_uninitialized_parameter_and_buffer():
    from torchlike.nn.parameter import is_lazy
    p = nn.UninitializedParameter()
    assert repr(p) == "<UninitializedParameter>" and is_lazy(p) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.dtype == torchlike.float32
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter or buffer"):
        p.shape
    m = nn.Module()
    m.w = p
    m.b = nn.UninitializedBuffer()
    assert list(m._parameters) == ["w"] and list(m._buffers) == ["b"]
    m.double()  # still shapeless, now float64
    assert is_lazy(m.w) and m.w.data.dtype == torchlike.float64
    assert is_lazy(copy.deepcopy(m).w)
    assert is_lazy(m.b) and m.b.data.dtype == torchlike.float64
    m.w.materialize((2, 3))
    assert type(m.w) is nn.Parameter and m.w.shape == (2, 3) and m.w.dtype == torchlike.float64 and m.w.requires_grad
    m.b.materialize(4)
    assert type(m.b) is torchlike.Tensor and m.b.shape == (4,)
    p64 = nn.UninitializedParameter()
    p64.materialize(3, dtype=torchlike.float64)
    assert type(p64) is nn.Parameter and p64.dtype == torchlike.float64 and p64.shape == (3,)
    assert not is_lazy(torchlike.ones(1))
