import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import torch
from sklearn.datasets import make_moons
from sklearn.model_selection import train_test_split
from torch import nn

torch.manual_seed(42)
torch.set_num_threads(1)

X, y = make_moons(n_samples=600, noise=0.2, random_state=42)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, random_state=42)
X_tr, X_te = torch.tensor(X_tr, dtype=torch.float32), torch.tensor(X_te, dtype=torch.float32)
y_tr, y_te = torch.tensor(y_tr, dtype=torch.float32), torch.tensor(y_te, dtype=torch.float32)


class MLP(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


model = MLP()
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.BCEWithLogitsLoss()

for epoch in range(60):
    model.train()
    perm = torch.randperm(len(X_tr))
    for i in range(0, len(perm), 64):
        idx = perm[i:i + 64]
        opt.zero_grad()
        loss = loss_fn(model(X_tr[idx]), y_tr[idx])
        loss.backward()
        opt.step()
    if epoch % 20 == 19:
        model.eval()
        with torch.no_grad():
            acc = ((model(X_te) > 0).float() == y_te).float().mean().item()
        print(f"epoch {epoch + 1:>3}: last batch loss {loss.item():.4f}, test accuracy {acc:.3f}")

xx, yy = np.meshgrid(np.linspace(-1.5, 2.5, 150), np.linspace(-1, 1.5, 150))
grid = torch.tensor(np.c_[xx.ravel(), yy.ravel()], dtype=torch.float32)
with torch.no_grad():
    zz = torch.sigmoid(model(grid)).numpy().reshape(xx.shape)

fig, ax = plt.subplots(figsize=(6, 4.5))
ax.contourf(xx, yy, zz, levels=20, cmap="RdBu", alpha=0.6)
ax.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu", edgecolor="k", s=12)
ax.set_title("MLP decision boundary")
fig.savefig("/work/moons_boundary.png", dpi=80)
print("saved /work/moons_boundary.png")
