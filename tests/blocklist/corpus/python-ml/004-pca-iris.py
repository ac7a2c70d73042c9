import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_iris
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.preprocessing import StandardScaler

iris = load_iris()
X = StandardScaler().fit_transform(iris.data)
y = iris.target

pca = PCA().fit(X)
print("explained variance ratio:", np.round(pca.explained_variance_ratio_, 3))
print("cumulative:", np.round(np.cumsum(pca.explained_variance_ratio_), 3))
print("\nloadings of PC1 and PC2:")
for name, (l1, l2) in zip(iris.feature_names, pca.components_[:2].T):
    print(f"  {name:<20} {l1:+.3f} {l2:+.3f}")

# Manual PCA via SVD should agree (up to sign).
U, S, Vt = np.linalg.svd(X - X.mean(0), full_matrices=False)
assert np.allclose(np.abs(Vt[:2]), np.abs(pca.components_[:2]), atol=1e-8)

Z = pca.transform(X)[:, :2]
lda = LinearDiscriminantAnalysis(n_components=2).fit(X, y)
L = lda.transform(X)
print(f"\nLDA training accuracy: {lda.score(X, y):.3f}")

fig, axes = plt.subplots(1, 2, figsize=(10, 4))
for ax, data, title in ((axes[0], Z, "PCA"), (axes[1], L, "LDA")):
    for cls, name in enumerate(iris.target_names):
        ax.scatter(data[y == cls, 0], data[y == cls, 1], label=name, s=14)
    ax.set_title(f"{title} projection")
    ax.legend()
fig.tight_layout()
fig.savefig("/work/iris_projections.png", dpi=80)
print("saved /work/iris_projections.png")
