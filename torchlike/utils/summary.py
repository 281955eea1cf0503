"""torchlike.utils.summary: a torchinfo-style table of a model.

The model is never run on real data. summary() makes a copy of it whose parameters,
buffers and tensor attributes are `meta` tensors (shape and dtype, no storage; the
original's memory is neither read nor copied), feeds it meta inputs of the requested
shapes, and records every module call with a forward pre-hook (which opens a row and
gives nesting) and a forward hook (which fills in the output shape). Parameter counts
come from the module tree, multiply-adds from each call's shapes, and the memory
estimate from the byte sizes of inputs, layer outputs and parameters.

Operations without a Meta kernel or whose result depends on values (nonzero, item)
cannot run on meta tensors; for such models pass device="cpu" to run a copy of the
model on random inputs instead.
"""
import copy
import sys
import types

import torchlike
from torchlike._tensor import Tensor

__all__ = ["summary", "ModelStatistics", "LayerInfo"]

# Column key -> header text, in the order the table shows them when several are asked for.
_COLUMN_HEADERS = {
    "input_size": "Input Shape",
    "output_size": "Output Shape",
    "num_params": "Param #",
    "params_percent": "Param %",
    "kernel_size": "Kernel Shape",
    "mult_adds": "Mult-Adds",
    "trainable": "Trainable",
}
_DEFAULT_COLUMNS = ("output_size", "num_params", "trainable")
_ROW_SETTINGS = ("depth", "var_names", "ascii_only", "hide_recursive_layers")
_NAME_COLUMN_WIDTH = 40


def _tensors_in(obj):
    """Every tensor inside a (nested) tuple/list/dict/namedtuple, in order."""
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)):
        found = []
        for item in obj:
            found.extend(_tensors_in(item))
        return found
    return []


def _shape_of(obj):
    """Output/input shape text: [a, b] for one tensor, a list of those for several."""
    shapes = [list(t.shape) for t in _tensors_in(obj)]
    if not shapes:
        return None
    return shapes[0] if len(shapes) == 1 else shapes


def _nbytes(obj):
    return sum(t.numel() * t.element_size() for t in _tensors_in(obj))


class LayerInfo:
    """One recorded module call: a row of the table."""

    def __init__(self, module, class_name, var_name, depth, depth_index, parent, is_recursive):
        self.module = module
        self.class_name = class_name
        self.var_name = var_name
        self.depth = depth
        self.depth_index = depth_index
        self.parent = parent
        self.is_recursive = is_recursive
        self.children = []
        self.input_size = None
        self.output_size = None
        self.output_bytes = 0
        self.kernel_size = None
        self.mult_adds = 0          # of this call alone (its module's own parameters)
        self.shown_mult_adds = 0    # plus the calls folded into this row by the depth limit
        self.num_params = 0         # shown in Param #: own plus rowless descendants'
        self.trainable_params = 0
        self.subtree_params = 0     # every parameter at or below this module
        self.subtree_trainable = 0
        self.is_leaf = not module._modules

    @property
    def trainable(self):
        """Whether the parameters of this layer and everything below it train:
        "True", "False", "Partial", or "--" when there are none."""
        if self.subtree_params == 0:
            return "--"
        if self.subtree_trainable == self.subtree_params:
            return "True"
        return "False" if self.subtree_trainable == 0 else "Partial"

    def __repr__(self):
        return f"{self.class_name}: {self.depth}-{self.depth_index}"


def _kernel_size_of(module):
    ks = getattr(module, "kernel_size", None)
    if isinstance(ks, int):
        return [ks]
    if isinstance(ks, (tuple, list)):
        return list(ks)
    weight = module._parameters.get("weight")
    if isinstance(weight, Tensor) and not _is_lazy(weight) and weight.dim() > 2:
        return list(weight.shape[2:])
    return None


def _is_lazy(t):
    from torchlike.nn.parameter import is_lazy
    return is_lazy(t)


def _call_mult_adds(module, args, output):
    """Multiply-adds spent by one call on the module's own parameters (an estimate for
    layer kinds without a rule of their own)."""
    own = [p for p in module._parameters.values() if p is not None and not _is_lazy(p)]
    if not own:
        return 0
    outs = _tensors_in(output)
    ins = _tensors_in(args)
    out = outs[0] if outs else None
    weight = module._parameters.get("weight")
    name = type(module).__name__
    if "weight_ih_l0" in module._parameters and ins:
        # Recurrent layers: every weight matrix is applied once per sequence element.
        steps = ins[0].numel() // module._parameters["weight_ih_l0"].shape[1]
        return steps * sum(p.numel() for n, p in module._parameters.items()
                           if n.startswith("weight_") and p is not None)
    if weight is not None and not _is_lazy(weight) and out is not None:
        if "Embedding" in name:
            return 0  # a lookup, not arithmetic
        if weight.dim() >= 3 and out.dim() == weight.dim():
            # Convolution: each output element is a dot product over in_channels/groups x
            # kernel; a transposed convolution scatters each input element instead.
            per_element = weight.numel() // weight.shape[0]
            driver = ins[0] if "Transpose" in name and ins else out
            return driver.numel() * per_element
        if weight.dim() == 3:  # Bilinear: out[k] = x1 W[k] x2
            return out.numel() * weight.shape[1] * weight.shape[2]
        if weight.dim() == 2:
            return out.numel() * weight.shape[1]
        if weight.dim() == 1:  # elementwise affine of the normalisation layers
            return out.numel()
    batch = out.shape[0] if out is not None and out.dim() > 1 else 1
    return batch * sum(p.numel() for p in own)


def _meta_copy(model, device):
    """A deep copy of model whose tensors live on `device`, built without copying data:
    the deepcopy memo is seeded with an empty tensor for each parameter, buffer and
    tensor attribute, so deepcopy reuses those instead of duplicating the originals."""
    from torchlike.nn.parameter import Parameter, UninitializedBuffer, UninitializedParameter

    memo = {}
    real = device.type != "meta"

    def placeholder(t):
        if _is_lazy(t):
            if isinstance(t, Parameter):
                return UninitializedParameter(t.requires_grad, device=device, dtype=t.dtype)
            return UninitializedBuffer(t.requires_grad, device=device, dtype=t.dtype,
                                       persistent=getattr(t, "persistent", True))
        if real:
            data = t.detach().to(device=device, copy=True)
        else:
            data = torchlike.empty_like(t, device=device)
        if isinstance(t, Parameter):
            return type(t)(data, t.requires_grad)
        return data.requires_grad_(t.requires_grad) if t.is_floating_point() or t.is_complex() else data

    for module in model.modules():
        tables = (module._parameters, module._buffers, module.__dict__)
        for table in tables:
            for value in table.values():
                if isinstance(value, Tensor) and id(value) not in memo:
                    memo[id(value)] = placeholder(value)
    return copy.deepcopy(model, memo)


def _make_inputs(input_size, input_data, dtypes, batch_dim, device):
    """(positional args, keyword args) for the copy's forward, all on `device`."""
    real = device.type != "meta"

    def fresh(shape, dtype):
        if batch_dim is not None:
            shape = list(shape)
            shape.insert(batch_dim, 1)
        if not real:
            return torchlike.empty(tuple(shape), dtype=dtype, device=device)
        if dtype.is_floating_point or dtype.is_complex:
            return torchlike.rand(tuple(shape), dtype=dtype, device=device)
        return torchlike.zeros(tuple(shape), dtype=dtype, device=device)

    def moved(obj):
        if isinstance(obj, Tensor):
            if batch_dim is not None:
                obj = obj.unsqueeze(batch_dim)
            return obj.detach().to(device) if real else torchlike.empty_like(obj, device=device)
        if isinstance(obj, dict):
            return type(obj)((k, moved(v)) for k, v in obj.items())
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):
            return type(obj)(*[moved(v) for v in obj])
        if isinstance(obj, (list, tuple)):
            return type(obj)(moved(v) for v in obj)
        return obj

    if input_data is not None:
        data = moved(input_data)
        if isinstance(data, dict):
            return (), dict(data)
        if isinstance(data, (list, tuple)) and not hasattr(data, "_fields"):
            return tuple(data), {}
        return (data,), {}

    if input_size is None:
        raise ValueError("summary() needs input_size or input_data to run the model")
    if all(isinstance(d, int) for d in input_size):
        sizes = [tuple(input_size)]
    else:
        sizes = [tuple(s) for s in input_size]
        if not all(all(isinstance(d, int) for d in s) for s in sizes):
            raise TypeError("input_size must be a shape (a sequence of ints) or a sequence of shapes, "
                            f"got {input_size!r}")
    if dtypes is None:
        dtypes = [torchlike.get_default_dtype()] * len(sizes)
    elif len(dtypes) != len(sizes):
        raise ValueError(f"summary() got {len(dtypes)} dtypes for {len(sizes)} inputs")
    return tuple(fresh(s, dt) for s, dt in zip(sizes, dtypes)), {}


def _assign_params(rows, model, depth):
    """Fills each shown row's parameter counts: the module's own parameters plus those of
    descendants that have no row of their own (hidden below `depth`, or never called)."""
    shown = {id(r.module) for r in rows if r.depth <= depth and not r.is_recursive}

    def gather(module, seen, top):
        total = trainable = 0
        for p in module._parameters.values():
            if p is None or id(p) in seen or _is_lazy(p):
                continue
            seen.add(id(p))
            total += p.numel()
            trainable += p.numel() if p.requires_grad else 0
        for child in module._modules.values():
            if child is None or (id(child) in shown and child is not top):
                continue
            t, tr = gather(child, seen, top)
            total += t
            trainable += tr
        return total, trainable

    for row in rows:
        if row.is_recursive or row.depth > depth:
            continue
        row.num_params, row.trainable_params = gather(row.module, set(), row.module)
        every = [p for p in row.module.parameters() if not _is_lazy(p)]
        row.subtree_params = sum(p.numel() for p in every)
        row.subtree_trainable = sum(p.numel() for p in every if p.requires_grad)


class ModelStatistics:
    """What summary() returns: the recorded rows, the totals, and the table as str()."""

    def __init__(self, model_name, rows, model, input_bytes, col_names, col_width, depth, row_settings):
        self.summary_list = rows
        self.model_name = model_name
        self.col_names = tuple(col_names)
        self.col_width = col_width
        self.depth = depth
        self.row_settings = tuple(row_settings)
        unique = {}
        for p in model.parameters():
            unique[id(p)] = p
        params = [p for p in unique.values() if not _is_lazy(p)]
        self.total_params = sum(p.numel() for p in params)
        self.trainable_params = sum(p.numel() for p in params if p.requires_grad)
        self.total_param_bytes = sum(p.numel() * p.element_size() for p in params)
        self.total_param_bytes += sum(b.numel() * b.element_size() for b in model.buffers()
                                      if not _is_lazy(b))
        self.total_mult_adds = sum(r.mult_adds for r in rows)
        self.total_input = input_bytes
        # Outputs of leaf layers are what the backward pass keeps alive; their gradients
        # take as much again, hence the factor 2.
        self.total_output_bytes = 2 * sum(r.output_bytes for r in rows if r.is_leaf)

    @property
    def non_trainable_params(self):
        return self.total_params - self.trainable_params

    # -- formatting ----------------------------------------------------------------------
    @staticmethod
    def _mega(nbytes):
        return nbytes / 1e6

    @staticmethod
    def _scaled(count):
        for unit, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6)):
            if count >= scale:
                return unit, count / scale
        return "M", count / 1e6

    def _cell(self, row, key):
        if key == "input_size":
            return "--" if row.input_size is None else str(row.input_size)
        if key == "output_size":
            return "--" if row.output_size is None else str(row.output_size)
        if key == "kernel_size":
            return "--" if row.kernel_size is None else str(row.kernel_size)
        if key == "trainable":
            return "(recursive)" if row.is_recursive else row.trainable
        if row.is_recursive:
            return "(recursive)" if key == "num_params" else (
                f"{row.shown_mult_adds:,}" if key == "mult_adds" and row.shown_mult_adds else "--")
        if key == "num_params":
            return f"{row.num_params:,}" if row.num_params else "--"
        if key == "params_percent":
            if not row.num_params or not self.total_params:
                return "--"
            return f"{100.0 * row.num_params / self.total_params:.2f}%"
        if key == "mult_adds":
            return f"{row.shown_mult_adds:,}" if row.shown_mult_adds else "--"
        raise KeyError(key)

    def _label(self, row):
        ascii_only = "ascii_only" in self.row_settings
        name = row.class_name
        if "var_names" in self.row_settings and row.var_name:
            name = f"{name} ({row.var_name})"
        if row.depth == 0:
            return name
        if "depth" in self.row_settings:
            name = f"{name}: {row.depth}-{row.depth_index}"
        if ascii_only:
            return "  " * (row.depth - 1) + "+ " + name
        return "│    " * (row.depth - 2) + ("├─" if row.depth == 1 else "│    └─") + name

    def __str__(self):
        rows = [r for r in self.summary_list if r.depth <= self.depth
                and not (r.is_recursive and "hide_recursive_layers" in self.row_settings)]
        labels = [self._label(r) for r in rows]
        name_width = max([_NAME_COLUMN_WIDTH] + [len(s) + 1 for s in labels])
        width = name_width + self.col_width * len(self.col_names)
        rule = "=" * width
        header_name = "Layer (type (var_name))" if "var_names" in self.row_settings else "Layer (type)"
        if "depth" in self.row_settings:
            header_name = header_name[:-1] + ":depth-idx)"

        def line(first, cells):
            return (first.ljust(name_width) + "".join(c.ljust(self.col_width) for c in cells)).rstrip()

        out = [rule, line(header_name, [_COLUMN_HEADERS[k] for k in self.col_names]), rule]
        for row, label in zip(rows, labels):
            out.append(line(label, [self._cell(row, k) for k in self.col_names]))
        unit, mult_adds = self._scaled(self.total_mult_adds)
        input_mb = self._mega(self.total_input)
        activ_mb = self._mega(self.total_output_bytes)
        params_mb = self._mega(self.total_param_bytes)
        out += [
            rule,
            f"Total params: {self.total_params:,}",
            f"Trainable params: {self.trainable_params:,}",
            f"Non-trainable params: {self.non_trainable_params:,}",
            f"Total mult-adds ({unit}): {mult_adds:.2f}",
            rule,
            f"Input size (MB): {input_mb:.2f}",
            f"Forward/backward pass size (MB): {activ_mb:.2f}",
            f"Params size (MB): {params_mb:.2f}",
            f"Estimated Total Size (MB): {input_mb + activ_mb + params_mb:.2f}",
            rule,
        ]
        return "\n".join(out)

    __repr__ = __str__


def summary(model, input_size=None, input_data=None, *, batch_dim=None, col_names=None, col_width=25,
            depth=3, device="meta", dtypes=None, mode="same", row_settings=None, verbose=0, **kwargs):
    """Summarise `model` as a table of its (nested) layers with their output shapes,
    parameter counts and trainable flags, followed by totals, multiply-adds and an
    estimate of the memory a training step needs.

    input_size: the shape of the one input, or a list of shapes for several inputs
        (with `dtypes`, a list of their dtypes; default the default float dtype).
    input_data: instead of input_size, example inputs (a tensor, a list/tuple of
        positional inputs, or a dict of keyword inputs); only their shapes and dtypes
        are used.
    batch_dim: when given, a batch dimension of size 1 is inserted there in every input.
    col_names: columns among "input_size", "output_size", "num_params", "params_percent",
        "kernel_size", "mult_adds", "trainable".
    depth: the deepest nesting level shown; parameters and multiply-adds of deeper
        layers are counted in their shown ancestor.
    device: "meta" (default) runs nothing; another device runs a copy of the model on
        random inputs, for models with operations that meta tensors cannot run.
    mode: "same" (the model's current train/eval mode), "train" or "eval".
    row_settings: among "depth" (depth-index labels, the default), "var_names",
        "ascii_only", "hide_recursive_layers".
    verbose: 1 also prints the table (0, the default, only returns it).
    kwargs: passed to the model's forward.

    Returns a ModelStatistics whose str() is the table. The model itself is not run,
    modified or copied in memory.
    """
    if not isinstance(model, torchlike.nn.Module):
        raise TypeError(f"summary() expects an nn.Module, got {type(model).__name__}")
    col_names = _DEFAULT_COLUMNS if col_names is None else tuple(col_names)
    for key in col_names:
        if key not in _COLUMN_HEADERS:
            raise ValueError(f"summary(): unknown column {key!r}; valid columns are {list(_COLUMN_HEADERS)}")
    row_settings = ("depth",) if row_settings is None else tuple(row_settings)
    for key in row_settings:
        if key not in _ROW_SETTINGS:
            raise ValueError(f"summary(): unknown row setting {key!r}; valid settings are {list(_ROW_SETTINGS)}")
    if mode not in ("same", "train", "eval"):
        raise ValueError(f"summary(): mode must be 'same', 'train' or 'eval', got {mode!r}")
    if input_size is not None and input_data is not None:
        raise ValueError("summary() takes input_size or input_data, not both")
    device = torchlike.device(device)

    runner = _meta_copy(model, device)
    if mode != "same":
        runner.train(mode == "train")
    args, call_kwargs = _make_inputs(input_size, input_data, dtypes, batch_dim, device)
    call_kwargs.update(kwargs)
    input_bytes = _nbytes((args, call_kwargs))

    var_names = {}
    for name, module in runner.named_modules():
        var_names.setdefault(id(module), name.rsplit(".", 1)[-1] if name else "")
    rows, stack, called = [], [], set()

    def before(module, module_args):
        parent = stack[-1] if stack else None
        siblings = parent.children if parent is not None else []
        row = LayerInfo(module, type(module).__name__, var_names.get(id(module), ""),
                        len(stack), len(siblings) + 1, parent, id(module) in called)
        called.add(id(module))
        row.input_size = _shape_of(module_args)
        row.kernel_size = _kernel_size_of(module)
        siblings.append(row)
        rows.append(row)
        stack.append(row)

    def after(module, module_args, output):
        row = stack.pop()
        row.output_size = _shape_of(output)
        row.output_bytes = _nbytes(output)
        row.mult_adds = _call_mult_adds(module, module_args, output)

    handles = []
    for module in runner.modules():
        handles.append(module.register_forward_pre_hook(before))
        handles.append(module.register_forward_hook(after))
    try:
        with torchlike.no_grad():
            runner(*args, **call_kwargs)
    except Exception as exc:
        where = " > ".join(f"{r.class_name}({r.var_name})" if r.var_name else r.class_name for r in stack)
        hint = " (an operation without meta support? try device='cpu')" if device.type == "meta" else ""
        raise RuntimeError(f"summary(): the forward pass of {where or type(model).__name__} failed on "
                           f"{device.type} tensors{hint}: {type(exc).__name__}: {exc}") from exc
    finally:
        for h in handles:
            h.remove()

    _assign_params(rows, runner, depth)
    for row in rows:
        # Multiply-adds of calls below the depth limit are shown on their nearest shown ancestor.
        target = row
        while target.depth > depth:
            target = target.parent
        target.shown_mult_adds += row.mult_adds

    stats = ModelStatistics(type(model).__name__, rows, runner, input_bytes, col_names, col_width, depth,
                            row_settings)
    if verbose:
        print(stats)
    return stats


class _CallableModule(types.ModuleType):
    """`torchlike.utils.summary` names both this module and its function; whichever
    the package attribute ends up bound to (importing the submodule binds the module),
    calling it must summarise."""

    def __call__(self, *args, **kwargs):
        return summary(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
