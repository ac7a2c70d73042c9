import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_friedman1
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.metrics import mean_squared_error
from sklearn.model_selection import learning_curve, train_test_split

X, y = make_friedman1(n_samples=800, n_features=10, noise=1.0, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)

gbm = GradientBoostingRegressor(n_estimators=120, learning_rate=0.1, max_depth=3, subsample=0.8,
                                random_state=0)
gbm.fit(X_train, y_train)

test_mse = [mean_squared_error(y_test, p) for p in gbm.staged_predict(X_test)]
best_iter = int(np.argmin(test_mse)) + 1
print(f"test MSE after 20/60/120 trees: {test_mse[19]:.3f} / {test_mse[59]:.3f} / {test_mse[-1]:.3f}")
print(f"best number of trees: {best_iter} (MSE {min(test_mse):.3f})")
print("top features:", np.argsort(-gbm.feature_importances_)[:5], "(friedman1 uses features 0-4)")

sizes, train_scores, val_scores = learning_curve(
    GradientBoostingRegressor(n_estimators=40, max_depth=3, random_state=0),
    X_train, y_train, train_sizes=np.linspace(0.1, 1.0, 5), cv=3,
    scoring="neg_mean_squared_error", n_jobs=1)
for n, tr, va in zip(sizes, -train_scores.mean(1), -val_scores.mean(1)):
    print(f"  n={n:>3}: train MSE {tr:6.3f}  validation MSE {va:6.3f}")

fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
a1.plot(np.arange(1, 121), gbm.train_score_, label="train (in-bag loss)")
a1.plot(np.arange(1, 121), test_mse, label="test MSE")
a1.axvline(best_iter, ls="--", color="grey")
a1.set(xlabel="trees", ylabel="MSE", title="Boosting iterations")
a1.legend()
a2.plot(sizes, -train_scores.mean(1), "o-", label="train")
a2.plot(sizes, -val_scores.mean(1), "o-", label="validation")
a2.set(xlabel="training examples", ylabel="MSE", title="Learning curve")
a2.legend()
fig.tight_layout()
fig.savefig("/work/gbm_curves.png", dpi=80)
print("saved /work/gbm_curves.png")
