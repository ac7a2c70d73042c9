import numpy as np

rng = np.random.default_rng(42)

# Synthetic house prices: price = 50k + 3k * rooms + 1.2k * m2 - 0.8k * age + noise
n = 200
rooms = rng.integers(1, 7, n)
area = rng.normal(90, 25, n).clip(30, None)
age = rng.uniform(0, 60, n)
noise = rng.normal(0, 8, n)
price = 50 + 3 * rooms + 1.2 * area - 0.8 * age + noise

X = np.column_stack([np.ones(n), rooms, area, age])
names = ["intercept", "rooms", "area_m2", "age_years"]

# Closed-form least squares
beta, residuals, rank, sv = np.linalg.lstsq(X, price, rcond=None)
pred = X @ beta
ss_res = np.sum((price - pred) ** 2)
ss_tot = np.sum((price - price.mean()) ** 2)
r2 = 1 - ss_res / ss_tot

# Standard errors from (X^T X)^-1 * sigma^2
sigma2 = ss_res / (n - X.shape[1])
cov = sigma2 * np.linalg.inv(X.T @ X)
se = np.sqrt(np.diag(cov))

print(f"{'term':<10}{'coef':>9}{'std.err':>9}{'t':>8}")
for name, b, s in zip(names, beta, se):
    print(f"{name:<10}{b:>9.3f}{s:>9.3f}{b / s:>8.1f}")
print(f"R^2 = {r2:.4f}, rank = {rank}, condition number = {sv[0] / sv[-1]:.1f}")

# Gradient descent on standardised features should reach the same answer.
mu, sd = X[:, 1:].mean(0), X[:, 1:].std(0)
Xs = np.column_stack([np.ones(n), (X[:, 1:] - mu) / sd])
w = np.zeros(4)
for step in range(2000):
    grad = Xs.T @ (Xs @ w - price) / n
    w -= 0.1 * grad
w_orig = np.empty(4)
w_orig[1:] = w[1:] / sd
w_orig[0] = w[0] - np.sum(w[1:] * mu / sd)
print("gradient descent coefficients:", np.round(w_orig, 3))
assert np.allclose(w_orig, beta, atol=1e-3)

# 5-fold cross-validated RMSE
idx = rng.permutation(n)
folds = np.array_split(idx, 5)
rmses = []
for k, test in enumerate(folds):
    train = np.setdiff1d(idx, test)
    b, *_ = np.linalg.lstsq(X[train], price[train], rcond=None)
    rmses.append(np.sqrt(np.mean((X[test] @ b - price[test]) ** 2)))
print("CV RMSE per fold:", np.round(rmses, 2), "mean", round(float(np.mean(rmses)), 2))
np.savetxt("/work/regression_coefficients.txt", np.column_stack([beta, se]), fmt="%.5f",
           header="coef stderr")
