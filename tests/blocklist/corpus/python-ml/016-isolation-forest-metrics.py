import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.ensemble import IsolationForest
from sklearn.neighbors import LocalOutlierFactor
from sklearn.preprocessing import RobustScaler

rng = np.random.default_rng(17)
minutes = pd.date_range("2024-05-01 00:00", periods=1440, freq="min")
cpu = 35 + 15 * np.sin(np.arange(1440) / 1440 * 2 * np.pi) + rng.normal(0, 4, 1440)
latency = 120 + 0.8 * cpu + rng.normal(0, 10, 1440)
errors = rng.poisson(0.5, 1440).astype(float)

incidents = {300: "cpu spike", 301: "cpu spike", 302: "cpu spike", 800: "latency spike",
             1100: "error burst", 1101: "error burst", 1250: "all metrics"}
for i, kind in incidents.items():
    if kind in ("cpu spike", "all metrics"):
        cpu[i] += 45
    if kind in ("latency spike", "all metrics"):
        latency[i] += 400
    if kind in ("error burst", "all metrics"):
        errors[i] += 25

df = pd.DataFrame({"cpu": cpu, "latency_ms": latency, "errors": errors}, index=minutes)
X = RobustScaler().fit_transform(df)

iso = IsolationForest(n_estimators=60, contamination=0.01, random_state=17).fit(X)
df["iso_score"] = -iso.score_samples(X)
df["iso_flag"] = iso.predict(X) == -1
lof = LocalOutlierFactor(n_neighbors=30, contamination=0.01)
df["lof_flag"] = lof.fit_predict(X) == -1

flagged = df[df.iso_flag | df.lof_flag]
print(f"{len(flagged)} minutes flagged ({df.iso_flag.sum()} by IsolationForest, {df.lof_flag.sum()} by LOF)")
print(flagged[["cpu", "latency_ms", "errors", "iso_score", "iso_flag", "lof_flag"]].round(2).to_string())
found = {i for i in incidents if df.iso_flag.iloc[i]}
print(f"\ninjected incidents recovered by IsolationForest: {len(found)}/{len(incidents)}")

fig, axes = plt.subplots(3, 1, figsize=(10, 6), sharex=True)
for ax, col in zip(axes, ["cpu", "latency_ms", "errors"]):
    ax.plot(df.index, df[col], lw=0.7)
    ax.scatter(df.index[df.iso_flag], df[col][df.iso_flag], color="red", s=15, zorder=3)
    ax.set_ylabel(col)
axes[0].set_title("Server metrics with anomalies (red)")
fig.tight_layout()
fig.savefig("/work/anomalies.png", dpi=80)
print("saved /work/anomalies.png")
