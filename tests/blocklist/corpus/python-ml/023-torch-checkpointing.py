import os
from pathlib import Path

import torch
from torch import nn

torch.manual_seed(11)
torch.set_num_threads(1)
CKPT_DIR = Path("/work/checkpoints")
CKPT_DIR.mkdir(exist_ok=True)


class TabularNet(nn.Module):
    def __init__(self, n_in, n_out, hidden=(32, 16), dropout=0.1):
        super().__init__()
        layers, prev = [], n_in
        for width in hidden:
            layers += [nn.Linear(prev, width), nn.BatchNorm1d(width), nn.ReLU(), nn.Dropout(dropout)]
            prev = width
        layers.append(nn.Linear(prev, n_out))
        self.body = nn.Sequential(*layers)
        self.config = {"n_in": n_in, "n_out": n_out, "hidden": hidden, "dropout": dropout}

    def forward(self, x):
        return self.body(x)


def save_checkpoint(model, opt, epoch, loss, path):
    torch.save({"epoch": epoch, "loss": loss, "config": model.config,
                "model_state": model.state_dict(), "optim_state": opt.state_dict()}, path)


def load_checkpoint(path):
    ckpt = torch.load(path, map_location="cpu")
    model = TabularNet(**ckpt["config"])
    model.load_state_dict(ckpt["model_state"])
    opt = torch.optim.Adam(model.parameters())
    opt.load_state_dict(ckpt["optim_state"])
    return model, opt, ckpt


X = torch.randn(512, 8)
y = (X[:, 0] * X[:, 1] > 0).long() + (X[:, 2] > 1).long()

model = TabularNet(8, 3)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
best = float("inf")
for epoch in range(1, 16):
    model.train()
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(X), y)
    loss.backward()
    opt.step()
    if loss.item() < best:
        best = loss.item()
        save_checkpoint(model, opt, epoch, best, CKPT_DIR / "best.pt")
    if epoch % 5 == 0:
        save_checkpoint(model, opt, epoch, loss.item(), CKPT_DIR / f"epoch_{epoch:03d}.pt")
        print(f"epoch {epoch:>2}: loss {loss.item():.4f}")

for f in sorted(CKPT_DIR.iterdir()):
    print(f"  {f.name:<14} {os.path.getsize(f) / 1024:6.1f} KiB")

restored, restored_opt, meta = load_checkpoint(CKPT_DIR / "best.pt")
print(f"restored best checkpoint from epoch {meta['epoch']} (loss {meta['loss']:.4f})")
model.eval()
restored.eval()
if meta["epoch"] == 15:
    with torch.no_grad():
        assert torch.allclose(model(X), restored(X))
    print("restored model reproduces the live model's outputs")
print("optimizer state entries:", len(restored_opt.state_dict()["state"]))

scripted = torch.jit.script(restored)
scripted.save(str(CKPT_DIR / "model_scripted.pt"))
reloaded = torch.jit.load(str(CKPT_DIR / "model_scripted.pt"))
with torch.no_grad():
    print("TorchScript output matches:", torch.allclose(reloaded(X[:4]), restored(X[:4])))
