"""torchlike in one screen: tensors, broadcasting, dtypes, views, a matmul,
the dispatcher, and an operator that exists only as a YAML entry."""
import os

import torchlike as torch

print("torchlike", torch.__version__)

a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
b = torch.tensor([10.0, 20.0, 30.0])
print("a =", a)
print("a + b (broadcast) =", a + b)
print("integer / integer gives float:", torch.tensor([1, 2, 3]) / 2)
print("a > 2:", a > 2)
print("a[:, 1] is a view:", a[:, 1], "shares storage:", a[:, 1]._storage_ptr() == a._storage_ptr())

if hasattr(torch, "matmul"):
    w = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    print("a @ w =", a @ w)

# Autograd: the backward graph is recorded by kernels generated from the
# `derivatives:` formulas in native_functions.yaml.
torch.manual_seed(0)
X = torch.randn(64, 3)
true_w = torch.tensor([[2.0], [-1.0], [0.5]])
Y = X @ true_w + 0.3
w = torch.zeros(3, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for step in range(200):
    loss = ((X @ w + b - Y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        b -= 0.1 * b.grad
    w.grad = None
    b.grad = None
print("linear regression by gradient descent: w =", w.detach().flatten(), "b =", b.detach(), "loss =", loss.item())
x = torch.tensor(2.0, requires_grad=True)
(g,) = torch.autograd.grad(x ** 3, x, create_graph=True)
(g2,) = torch.autograd.grad(g, x)
print("d/dx x^3 at 2 =", g.item(), " d2/dx2 =", g2.item())

# An operator defined only in native_functions.yaml: the generator produced its
# C++ API, CPU and Meta kernels, in-place and out= variants and Python binding.
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(root, "native_functions.yaml")) as fh:
    text = fh.read()
start = text.index("- func: hypot(")
print("\nA YAML-only operator:\n" + text[start:text.index("\n\n", start)])
x, y = torch.tensor([3.0, 5.0]), torch.tensor([4.0, 12.0])
print("torch.hypot(x, y) =", torch.hypot(x, y))
print("x.hypot_(y) in place =", x.hypot_(y))
print("on the meta device:", torch.hypot(torch.empty(2, 3, device="meta"), torch.empty(3, device="meta")).shape)
print("\nDispatch table of aten::hypot:")
print(torch._C._dispatch_dump_table("aten::hypot"))
