"""Compress 20-dimensional points that live near a 3-dimensional subspace with a small autoencoder."""
import numpy as np
import torch
from sklearn.decomposition import PCA
from torch import nn

torch.manual_seed(5)
torch.set_num_threads(1)
rng = np.random.default_rng(5)

latent = rng.normal(size=(1000, 3))
mixing = rng.normal(size=(3, 20))
data = np.tanh(latent @ mixing) + 0.05 * rng.normal(size=(1000, 20))
x = torch.tensor(data, dtype=torch.float32)
x_train, x_val = x[:800], x[800:]


class AutoEncoder(nn.Module):
    def __init__(self, dim=20, code=3):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, 32), nn.Tanh(), nn.Linear(32, code))
        self.decoder = nn.Sequential(nn.Linear(code, 32), nn.Tanh(), nn.Linear(32, dim))

    def forward(self, inp):
        return self.decoder(self.encoder(inp))


model = AutoEncoder()
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=15, gamma=0.5)
mse = nn.MSELoss()

for epoch in range(1, 41):
    model.train()
    for batch in x_train[torch.randperm(800)].split(100):
        opt.zero_grad()
        loss = mse(model(batch), batch)
        loss.backward()
        opt.step()
    sched.step()
    if epoch % 10 == 0:
        model.eval()
        with torch.no_grad():
            val = mse(model(x_val), x_val).item()
        print(f"epoch {epoch:>3} lr {sched.get_last_lr()[0]:.4f} train {loss.item():.5f} val {val:.5f}")

pca = PCA(n_components=3).fit(data[:800])
recon = pca.inverse_transform(pca.transform(data[800:]))
pca_mse = float(np.mean((recon - data[800:]) ** 2))
print(f"\nvalidation MSE: autoencoder {val:.5f} vs linear PCA {pca_mse:.5f}")
print(f"variance of data: {data.var():.4f}")

with torch.no_grad():
    codes = model.encoder(x_val)
print("code means:", codes.mean(0).numpy().round(3), "code stds:", codes.std(0).numpy().round(3))
