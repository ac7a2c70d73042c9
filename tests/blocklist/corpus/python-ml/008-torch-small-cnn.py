"""Train a tiny CNN to tell horizontal from vertical stripes in 16x16 synthetic images."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_num_threads(1)


def make_images(n):
    imgs = torch.zeros(n, 1, 16, 16)
    labels = torch.randint(0, 2, (n,))
    for i in range(n):
        pos = torch.randint(2, 14, (1,)).item()
        width = torch.randint(1, 3, (1,)).item()
        if labels[i] == 0:
            imgs[i, 0, pos:pos + width, :] = 1.0
        else:
            imgs[i, 0, :, pos:pos + width] = 1.0
    imgs += 0.3 * torch.randn_like(imgs)
    return imgs, labels


class StripeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, 2)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


X_train, y_train = make_images(512)
X_test, y_test = make_images(128)
model = StripeNet()
print(f"parameters: {sum(p.numel() for p in model.parameters()):,}")
opt = torch.optim.Adam(model.parameters(), lr=3e-3)

for epoch in range(1, 6):
    model.train()
    total = 0.0
    for i in range(0, 512, 32):
        xb, yb = X_train[i:i + 32], y_train[i:i + 32]
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item() * len(xb)
    model.eval()
    with torch.no_grad():
        logits = model(X_test)
        acc = (logits.argmax(1) == y_test).float().mean().item()
    print(f"epoch {epoch}: train loss {total / 512:.4f}  test acc {acc:.3f}")

with torch.no_grad():
    probs = F.softmax(model(X_test[:4]), dim=1)
for p, label in zip(probs, y_test[:4]):
    print(f"true={'vertical' if label else 'horizontal':<10} p(horizontal)={p[0]:.2f} p(vertical)={p[1]:.2f}")
print("first conv filters shape:", tuple(model.conv1.weight.shape))
