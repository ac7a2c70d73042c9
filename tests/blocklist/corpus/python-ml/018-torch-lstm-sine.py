import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import torch
from torch import nn

torch.manual_seed(1)
torch.set_num_threads(1)

t = np.linspace(0, 40 * np.pi, 2000)
signal = np.sin(t) + 0.5 * np.sin(3 * t + 0.4) + 0.05 * np.random.default_rng(1).normal(size=t.size)
WINDOW = 40


def windows(series, size):
    xs = np.stack([series[i:i + size] for i in range(len(series) - size)])
    ys = series[size:]
    return torch.tensor(xs, dtype=torch.float32).unsqueeze(-1), torch.tensor(ys, dtype=torch.float32)


X, y = windows(signal, WINDOW)
split = int(0.8 * len(X))
X_tr, y_tr, X_te, y_te = X[:split], y[:split], X[split:], y[split:]


class Forecaster(nn.Module):
    def __init__(self, hidden=24):
        super().__init__()
        self.lstm = nn.LSTM(input_size=1, hidden_size=hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1]).squeeze(-1)


model = Forecaster()
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.MSELoss()
for epoch in range(1, 3):
    model.train()
    perm = torch.randperm(split)
    for i in range(0, split, 128):
        idx = perm[i:i + 128]
        opt.zero_grad()
        loss = loss_fn(model(X_tr[idx]), y_tr[idx])
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
    model.eval()
    with torch.no_grad():
        test_loss = loss_fn(model(X_te), y_te).item()
    print(f"epoch {epoch}: test MSE {test_loss:.4f}")

naive = loss_fn(X_te[:, -1, 0], y_te).item()
print(f"persistence baseline MSE: {naive:.4f}")

# Autoregressive rollout: feed predictions back in for 100 steps.
window = X_te[0:1].clone()
rollout = []
with torch.no_grad():
    for _ in range(100):
        nxt = model(window)
        rollout.append(nxt.item())
        window = torch.cat([window[:, 1:], nxt.view(1, 1, 1)], dim=1)

fig, ax = plt.subplots(figsize=(9, 3.5))
ax.plot(y_te[:100].numpy(), label="actual")
ax.plot(rollout, label="LSTM rollout", ls="--")
ax.legend()
ax.set_title("100-step autoregressive forecast")
fig.tight_layout()
fig.savefig("/work/lstm_rollout.png", dpi=80)
print("saved /work/lstm_rollout.png")
