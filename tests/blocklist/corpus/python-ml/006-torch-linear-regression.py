import torch
from torch import nn

torch.manual_seed(0)
torch.set_num_threads(1)

# y = 3x1 - 2x2 + 0.5 + noise
X = torch.randn(256, 2)
true_w = torch.tensor([[3.0], [-2.0]])
y = X @ true_w + 0.5 + 0.1 * torch.randn(256, 1)

model = nn.Linear(2, 1)
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for epoch in range(1, 61):
    optimizer.zero_grad()
    loss = loss_fn(model(X), y)
    loss.backward()
    optimizer.step()
    if epoch % 10 == 0:
        print(f"epoch {epoch:>3}  loss {loss.item():.5f}")

w = model.weight.detach().squeeze()
b = model.bias.item()
print(f"learned w = {w.tolist()}, b = {b:.3f}")
assert torch.allclose(w, true_w.squeeze(), atol=0.05)

# Same problem with the closed-form solution for comparison.
Xb = torch.cat([X, torch.ones(256, 1)], dim=1)
solution = torch.linalg.lstsq(Xb, y).solution.squeeze()
print("least squares:", [round(v, 3) for v in solution.tolist()])

# Autograd sanity check on a scalar function.
x = torch.tensor(2.0, requires_grad=True)
f = x ** 3 + 2 * x
f.backward()
print(f"d/dx (x^3 + 2x) at x=2 is {x.grad.item()} (expected 14)")
