import copy
import random

import numpy as np
import torch
from sklearn.datasets import make_regression
from sklearn.preprocessing import StandardScaler
from torch import nn

torch.set_num_threads(1)
X_np, y_np = make_regression(n_samples=600, n_features=10, n_informative=6, noise=15.0, random_state=3)
X_np = StandardScaler().fit_transform(X_np)
y_np = (y_np - y_np.mean()) / y_np.std()
X = torch.tensor(X_np, dtype=torch.float32)
y = torch.tensor(y_np, dtype=torch.float32).unsqueeze(1)
X_tr, y_tr, X_val, y_val = X[:450], y[:450], X[450:], y[450:]


class EarlyStopping:
    def __init__(self, patience=5, min_delta=1e-4):
        self.patience, self.min_delta = patience, min_delta
        self.best, self.bad_epochs, self.best_state = float("inf"), 0, None

    def step(self, loss, model):
        if loss < self.best - self.min_delta:
            self.best, self.bad_epochs = loss, 0
            self.best_state = copy.deepcopy(model.state_dict())
            return False
        self.bad_epochs += 1
        return self.bad_epochs >= self.patience


def train(lr, hidden, weight_decay, seed=0, max_epochs=30):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(10, hidden), nn.ReLU(), nn.Linear(hidden, 1))
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    stopper = EarlyStopping(patience=6)
    for epoch in range(max_epochs):
        model.train()
        for idx in torch.randperm(450).split(64):
            opt.zero_grad()
            nn.functional.mse_loss(model(X_tr[idx]), y_tr[idx]).backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            val = nn.functional.mse_loss(model(X_val), y_val).item()
        if stopper.step(val, model):
            break
    model.load_state_dict(stopper.best_state)
    return stopper.best, epoch + 1


rng = random.Random(3)
trials = []
for trial in range(4):
    params = {
        "lr": 10 ** rng.uniform(-3.5, -1),
        "hidden": rng.choice([8, 16, 32, 64]),
        "weight_decay": rng.choice([0.0, 1e-4, 1e-3]),
    }
    val, epochs = train(**params)
    trials.append((val, params, epochs))
    print(f"trial {trial}: lr={params['lr']:.5f} hidden={params['hidden']:>2} wd={params['weight_decay']:<6} "
          f"-> val MSE {val:.4f} after {epochs} epochs")

trials.sort(key=lambda t: t[0])
best_val, best_params, _ = trials[0]
print(f"\nbest: {best_params} with val MSE {best_val:.4f}")
ridge = np.linalg.lstsq(np.c_[X_np[:450], np.ones(450)], y_np[:450], rcond=None)[0]
lin_val = float(np.mean((np.c_[X_np[450:], np.ones(150)] @ ridge - y_np[450:]) ** 2))
print(f"linear least-squares baseline val MSE: {lin_val:.4f}")
