import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import (ConfusionMatrixDisplay, auc, average_precision_score, confusion_matrix,
                             precision_recall_curve, roc_curve)
from sklearn.model_selection import train_test_split

X, y = make_classification(n_samples=1000, n_features=15, n_informative=6, weights=[0.85, 0.15],
                           flip_y=0.02, random_state=9)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=9)

models = {
    "logistic": LogisticRegression(max_iter=1000).fit(X_tr, y_tr),
    "forest": RandomForestClassifier(n_estimators=50, random_state=9, n_jobs=1).fit(X_tr, y_tr),
}

fig, axes = plt.subplots(1, 3, figsize=(13, 4))
for name, model in models.items():
    scores = model.predict_proba(X_te)[:, 1]
    fpr, tpr, thr = roc_curve(y_te, scores)
    prec, rec, _ = precision_recall_curve(y_te, scores)
    roc_auc, ap = auc(fpr, tpr), average_precision_score(y_te, scores)
    axes[0].plot(fpr, tpr, label=f"{name} (AUC={roc_auc:.3f})")
    axes[1].plot(rec, prec, label=f"{name} (AP={ap:.3f})")
    youden = np.argmax(tpr - fpr)
    print(f"{name:<9} ROC-AUC {roc_auc:.3f}  AP {ap:.3f}  Youden threshold {thr[youden]:.3f} "
          f"(TPR {tpr[youden]:.2f}, FPR {fpr[youden]:.2f})")

axes[0].plot([0, 1], [0, 1], "k--", lw=0.8)
axes[0].set(title="ROC", xlabel="false positive rate", ylabel="true positive rate")
axes[1].axhline(y_te.mean(), color="k", ls="--", lw=0.8)
axes[1].set(title="Precision-recall", xlabel="recall", ylabel="precision")
for ax in axes[:2]:
    ax.legend(loc="best")

pred = models["forest"].predict(X_te)
cm = confusion_matrix(y_te, pred)
ConfusionMatrixDisplay(cm, display_labels=["negative", "positive"]).plot(ax=axes[2], colorbar=False)
axes[2].set_title("Random forest confusion matrix")
tn, fp, fn, tp = cm.ravel()
print(f"forest @0.5: TN={tn} FP={fp} FN={fn} TP={tp}  sensitivity={tp / (tp + fn):.2f} specificity={tn / (tn + fp):.2f}")

fig.tight_layout()
fig.savefig("/work/classifier_evaluation.png", dpi=80)
print("saved /work/classifier_evaluation.png")
