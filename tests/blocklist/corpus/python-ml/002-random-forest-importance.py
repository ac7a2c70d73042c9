import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.inspection import permutation_importance
from sklearn.metrics import mean_absolute_error, r2_score
from sklearn.model_selection import train_test_split

rng = np.random.default_rng(1)
n = 600
df = pd.DataFrame({
    "sqft": rng.normal(1500, 400, n).clip(400),
    "bedrooms": rng.integers(1, 6, n),
    "age": rng.uniform(0, 80, n),
    "distance_km": rng.exponential(8, n),
    "noise_a": rng.normal(size=n),
    "noise_b": rng.uniform(size=n),
})
df["price"] = (120 * df.sqft + 8000 * df.bedrooms - 900 * df.age - 4000 * np.log1p(df.distance_km)
               + rng.normal(0, 15000, n))

features = [c for c in df.columns if c != "price"]
X_train, X_test, y_train, y_test = train_test_split(df[features], df["price"], random_state=1)

forest = RandomForestRegressor(n_estimators=30, max_depth=10, n_jobs=1, random_state=1)
forest.fit(X_train, y_train)
pred = forest.predict(X_test)
print(f"R^2 = {r2_score(y_test, pred):.3f}, MAE = {mean_absolute_error(y_test, pred):,.0f}")

impurity = pd.Series(forest.feature_importances_, index=features)
perm = permutation_importance(forest, X_test, y_test, n_repeats=5, random_state=1, n_jobs=1)
perm_s = pd.Series(perm.importances_mean, index=features)
table = pd.DataFrame({"impurity": impurity, "permutation": perm_s}).sort_values("permutation", ascending=False)
print(table.round(3))

fig, ax = plt.subplots(figsize=(7, 4))
table.plot.barh(ax=ax)
ax.invert_yaxis()
ax.set_title("Feature importance: impurity vs permutation")
fig.tight_layout()
fig.savefig("/work/feature_importance.png", dpi=80)
print("saved /work/feature_importance.png")
