import numpy as np
import pandas as pd
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, random_split

torch.manual_seed(3)
torch.set_num_threads(1)


def make_frame(n=1000, seed=3):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "tenure_months": rng.integers(1, 72, n),
        "monthly_fee": rng.normal(45, 15, n).round(2),
        "support_calls": rng.poisson(1.5, n),
        "plan": rng.choice(["basic", "plus", "pro"], n, p=[0.5, 0.3, 0.2]),
    })
    logit = -1.0 - 0.04 * df.tenure_months + 0.03 * df.monthly_fee + 0.5 * df.support_calls
    df["churned"] = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return df


class ChurnDataset(Dataset):
    def __init__(self, df):
        numeric = df[["tenure_months", "monthly_fee", "support_calls"]].to_numpy(dtype=np.float32)
        self.mean, self.std = numeric.mean(0), numeric.std(0)
        numeric = (numeric - self.mean) / self.std
        plans = pd.get_dummies(df["plan"]).to_numpy(dtype=np.float32)
        self.x = torch.from_numpy(np.hstack([numeric, plans]))
        self.y = torch.from_numpy(df["churned"].to_numpy(dtype=np.float32))

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


df = make_frame()
print(df.head(), "\nchurn rate:", df.churned.mean().round(3))
ds = ChurnDataset(df)
train_ds, val_ds = random_split(ds, [800, 200], generator=torch.Generator().manual_seed(3))
train_dl = DataLoader(train_ds, batch_size=64, shuffle=True)
val_dl = DataLoader(val_ds, batch_size=200)

model = nn.Sequential(nn.Linear(ds.x.shape[1], 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.AdamW(model.parameters(), lr=0.02, weight_decay=1e-3)
loss_fn = nn.BCEWithLogitsLoss()

for epoch in range(1, 9):
    model.train()
    for xb, yb in train_dl:
        opt.zero_grad()
        loss_fn(model(xb).squeeze(1), yb).backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        xb, yb = next(iter(val_dl))
        out = model(xb).squeeze(1)
        val_loss = loss_fn(out, yb).item()
        acc = ((out > 0).float() == yb).float().mean().item()
    print(f"epoch {epoch}: val loss {val_loss:.4f} val acc {acc:.3f}")

print("batches per epoch:", len(train_dl), "| sample shape:", tuple(train_ds[0][0].shape))
