import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from scipy.cluster.hierarchy import dendrogram, fcluster, linkage
from sklearn.cluster import DBSCAN, AgglomerativeClustering
from sklearn.datasets import make_blobs, make_circles
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler

X_blobs, y_blobs = make_blobs(n_samples=60, centers=4, cluster_std=0.7, random_state=12)
Z = linkage(X_blobs, method="ward")
labels = fcluster(Z, t=4, criterion="maxclust")
print(f"ward linkage, 4 clusters: ARI vs truth = {adjusted_rand_score(y_blobs, labels):.3f}")
print("last 5 merge heights:", np.round(Z[-5:, 2], 2))

X_circ, y_circ = make_circles(n_samples=500, factor=0.45, noise=0.06, random_state=12)
X_circ = StandardScaler().fit_transform(X_circ)
for eps in (0.1, 0.3, 0.6):
    db = DBSCAN(eps=eps, min_samples=5).fit(X_circ)
    n_clusters = len(set(db.labels_)) - (1 if -1 in db.labels_ else 0)
    noise = np.sum(db.labels_ == -1)
    print(f"DBSCAN eps={eps}: {n_clusters} clusters, {noise} noise points, "
          f"ARI={adjusted_rand_score(y_circ, db.labels_):.3f}")

agg = AgglomerativeClustering(n_clusters=2, linkage="single").fit(X_circ)
print(f"single-linkage on circles: ARI={adjusted_rand_score(y_circ, agg.labels_):.3f}")
best = DBSCAN(eps=0.3, min_samples=5).fit(X_circ)

fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
dendrogram(Z, ax=axes[0], truncate_mode="lastp", p=20, color_threshold=Z[-3, 2])
axes[0].set_title("Ward dendrogram (last 20 merges)")
axes[1].scatter(X_circ[:, 0], X_circ[:, 1], c=best.labels_, cmap="Set1", s=8)
axes[1].set_title("DBSCAN on concentric circles")
axes[1].set_aspect("equal")
fig.tight_layout()
fig.savefig("/work/clustering.png", dpi=80)
print("saved /work/clustering.png")
