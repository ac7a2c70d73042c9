import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.metrics import silhouette_score
from sklearn.preprocessing import StandardScaler

# Synthetic customers: annual spend and visits per month.
X, true_labels = make_blobs(n_samples=500, centers=[[300, 2], [1200, 4], [2500, 10], [800, 12]],
                            cluster_std=[120, 250, 400, 150], random_state=3)
X[:, 1] = np.abs(X[:, 1] / 100 * 1.5) + 1
Xs = StandardScaler().fit_transform(X)

scores = {}
inertias = {}
for k in range(2, 8):
    km = KMeans(n_clusters=k, n_init=10, random_state=3).fit(Xs)
    scores[k] = silhouette_score(Xs, km.labels_)
    inertias[k] = km.inertia_
    print(f"k={k}: inertia={km.inertia_:8.1f} silhouette={scores[k]:.3f}")

best_k = max(scores, key=scores.get)
model = KMeans(n_clusters=best_k, n_init=10, random_state=3).fit(Xs)
print(f"\nbest k by silhouette: {best_k}")
for c in range(best_k):
    members = X[model.labels_ == c]
    print(f"  segment {c}: {len(members):>3} customers, mean spend {members[:, 0].mean():7.0f}, "
          f"mean visits {members[:, 1].mean():5.1f}")

fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
a1.plot(list(inertias), list(inertias.values()), "o-")
a1.set(title="Elbow plot", xlabel="k", ylabel="inertia")
a2.scatter(X[:, 0], X[:, 1], c=model.labels_, cmap="tab10", s=10)
a2.set(title=f"Segments (k={best_k})", xlabel="annual spend", ylabel="visits / month")
fig.tight_layout()
fig.savefig("/work/customer_segments.png", dpi=80)
print("saved /work/customer_segments.png")
