import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

rng = np.random.default_rng(21)
n = 1200
df = pd.DataFrame({
    "age": rng.integers(18, 75, n).astype(float),
    "income": rng.lognormal(10.5, 0.5, n),
    "city": rng.choice(["Lisbon", "Porto", "Braga", "Faro"], n),
    "device": rng.choice(["ios", "android", "web"], n, p=[0.35, 0.45, 0.2]),
    "sessions_last_30d": rng.poisson(6, n).astype(float),
})
df.loc[rng.random(n) < 0.08, "income"] = np.nan
df.loc[rng.random(n) < 0.05, "city"] = np.nan
score = 0.04 * (df.age - 40) + 0.15 * df.sessions_last_30d - 1.0 + (df.device == "ios") * 0.8
df["premium"] = (rng.random(n) < 1 / (1 + np.exp(-score))).astype(int)
print(df.isna().sum().to_string(), "\npremium rate:", round(df.premium.mean(), 3))

numeric = ["age", "income", "sessions_last_30d"]
categorical = ["city", "device"]
preprocess = ColumnTransformer([
    ("num", Pipeline([("impute", SimpleImputer(strategy="median")), ("scale", StandardScaler())]), numeric),
    ("cat", Pipeline([("impute", SimpleImputer(strategy="constant", fill_value="unknown")),
                      ("onehot", OneHotEncoder(handle_unknown="ignore"))]), categorical),
])

X_train, X_test, y_train, y_test = train_test_split(df.drop(columns="premium"), df.premium,
                                                    test_size=0.25, random_state=21, stratify=df.premium)
models = {
    "logistic": LogisticRegression(max_iter=1000),
    "hist-gbm": HistGradientBoostingClassifier(max_iter=100, random_state=21),
}
for name, clf in models.items():
    pipe = Pipeline([("prep", preprocess), ("clf", clf)]).fit(X_train, y_train)
    bal = balanced_accuracy_score(y_test, pipe.predict(X_test))
    print(f"{name:<9} balanced accuracy = {bal:.3f}")

fitted = Pipeline([("prep", preprocess), ("clf", LogisticRegression(max_iter=1000))]).fit(X_train, y_train)
names = fitted.named_steps["prep"].get_feature_names_out()
coefs = pd.Series(fitted.named_steps["clf"].coef_[0], index=names).sort_values()
print("\nlogistic coefficients:")
print(coefs.round(3).to_string())

new_customer = pd.DataFrame([{"age": 33, "income": np.nan, "city": "Coimbra", "device": "ios", "sessions_last_30d": 14}])
print("\nunseen city handled; P(premium) =", fitted.predict_proba(new_customer)[0, 1].round(3))
