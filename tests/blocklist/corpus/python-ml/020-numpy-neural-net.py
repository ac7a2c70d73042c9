"""A two-layer neural network written with numpy only, trained on a spiral dataset."""
import numpy as np

rng = np.random.default_rng(0)


def spiral(points_per_class=100, classes=3):
    X = np.zeros((points_per_class * classes, 2))
    y = np.zeros(points_per_class * classes, dtype=int)
    for c in range(classes):
        ix = range(points_per_class * c, points_per_class * (c + 1))
        r = np.linspace(0.0, 1, points_per_class)
        theta = np.linspace(c * 4, (c + 1) * 4, points_per_class) + rng.normal(0, 0.2, points_per_class)
        X[ix] = np.c_[r * np.sin(theta), r * np.cos(theta)]
        y[ix] = c
    return X, y


def softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


X, y = spiral()
n, d, h, k = X.shape[0], 2, 64, 3
W1 = rng.normal(0, np.sqrt(2 / d), (d, h))
b1 = np.zeros(h)
W2 = rng.normal(0, np.sqrt(2 / h), (h, k))
b2 = np.zeros(k)
lr, reg = 1.0, 1e-3

for step in range(3001):
    hidden = np.maximum(0, X @ W1 + b1)
    probs = softmax(hidden @ W2 + b2)
    data_loss = -np.log(probs[np.arange(n), y]).mean()
    loss = data_loss + 0.5 * reg * (np.sum(W1 * W1) + np.sum(W2 * W2))
    if step % 500 == 0:
        acc = (probs.argmax(1) == y).mean()
        print(f"step {step:>4}: loss {loss:.4f} accuracy {acc:.3f}")

    dscores = probs.copy()
    dscores[np.arange(n), y] -= 1
    dscores /= n
    dW2 = hidden.T @ dscores + reg * W2
    db2 = dscores.sum(0)
    dhidden = dscores @ W2.T
    dhidden[hidden <= 0] = 0
    dW1 = X.T @ dhidden + reg * W1
    db1 = dhidden.sum(0)
    for param, grad in ((W1, dW1), (b1, db1), (W2, dW2), (b2, db2)):
        param -= lr * grad

# Numerical gradient check on a couple of entries of W2.
def loss_at(W2_try):
    hid = np.maximum(0, X @ W1 + b1)
    p = softmax(hid @ W2_try + b2)
    return -np.log(p[np.arange(n), y]).mean() + 0.5 * reg * (np.sum(W1 * W1) + np.sum(W2_try * W2_try))

hidden = np.maximum(0, X @ W1 + b1)
dscores = softmax(hidden @ W2 + b2)
dscores[np.arange(n), y] -= 1
analytic = hidden.T @ (dscores / n) + reg * W2
for i, j in [(0, 0), (5, 2)]:
    eps = 1e-5
    Wp, Wm = W2.copy(), W2.copy()
    Wp[i, j] += eps
    Wm[i, j] -= eps
    numeric = (loss_at(Wp) - loss_at(Wm)) / (2 * eps)
    print(f"grad check W2[{i},{j}]: analytic {analytic[i, j]:+.6f} numeric {numeric:+.6f}")
np.savez("/work/spiral_net.npz", W1=W1, b1=b1, W2=W2, b2=b2)
print("weights saved to /work/spiral_net.npz")
