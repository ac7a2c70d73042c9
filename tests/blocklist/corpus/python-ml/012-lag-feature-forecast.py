import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_absolute_percentage_error
from sklearn.model_selection import TimeSeriesSplit

rng = np.random.default_rng(4)
idx = pd.date_range("2022-01-01", periods=730, freq="D")
t = np.arange(len(idx))
demand = (200 + 0.15 * t + 30 * np.sin(2 * np.pi * t / 7) + 50 * np.sin(2 * np.pi * t / 365.25)
          + rng.normal(0, 12, len(t)))
series = pd.Series(demand, index=idx, name="demand")

frame = pd.DataFrame({"y": series})
for lag in (1, 2, 7, 14):
    frame[f"lag_{lag}"] = series.shift(lag)
frame["roll_mean_7"] = series.shift(1).rolling(7).mean()
frame["dow"] = frame.index.dayofweek
frame["doy_sin"] = np.sin(2 * np.pi * frame.index.dayofyear / 365.25)
frame["doy_cos"] = np.cos(2 * np.pi * frame.index.dayofyear / 365.25)
frame = pd.get_dummies(frame, columns=["dow"], prefix="dow", dtype=float).dropna()

X, y = frame.drop(columns="y"), frame["y"]
scores = []
for fold, (tr, te) in enumerate(TimeSeriesSplit(n_splits=4, test_size=60).split(X)):
    model = Ridge(alpha=1.0).fit(X.iloc[tr], y.iloc[tr])
    mape = mean_absolute_percentage_error(y.iloc[te], model.predict(X.iloc[te]))
    naive = mean_absolute_percentage_error(y.iloc[te], X.iloc[te]["lag_7"])
    scores.append(mape)
    print(f"fold {fold}: train until {X.index[tr[-1]]:%Y-%m-%d}  MAPE {mape:.2%}  (seasonal naive {naive:.2%})")
print(f"mean MAPE: {np.mean(scores):.2%}")

split = len(X) - 60
model = Ridge(alpha=1.0).fit(X.iloc[:split], y.iloc[:split])
pred = pd.Series(model.predict(X.iloc[split:]), index=X.index[split:])

fig, ax = plt.subplots(figsize=(10, 4))
y.iloc[-180:].plot(ax=ax, label="actual", lw=1)
pred.plot(ax=ax, label="forecast", lw=2)
ax.axvline(X.index[split], color="grey", ls="--")
ax.legend()
ax.set_title("Daily demand: ridge regression on lag features")
fig.tight_layout()
fig.savefig("/work/demand_forecast.png", dpi=80)
print("saved /work/demand_forecast.png")
