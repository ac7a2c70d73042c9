import numpy as np
from scipy import integrate, optimize, stats


def logistic(t, K, r, t0):
    return K / (1 + np.exp(-r * (t - t0)))


rng = np.random.default_rng(5)
t = np.linspace(0, 20, 60)
true = (1000.0, 0.6, 9.0)
y = logistic(t, *true) + rng.normal(0, 25, t.size)

popt, pcov = optimize.curve_fit(logistic, t, y, p0=(800, 0.3, 8))
perr = np.sqrt(np.diag(pcov))
print("logistic growth fit:")
for name, val, err, tv in zip(["K", "r", "t0"], popt, perr, true):
    print(f"  {name:>2} = {val:9.3f} ± {err:6.3f}   (true {tv})")

resid = y - logistic(t, *popt)
print(f"  residual std {resid.std(ddof=3):.2f}; Shapiro p = {stats.shapiro(resid).pvalue:.3f}")

# Root finding: when does the fitted curve reach 90% of capacity?
t90 = optimize.brentq(lambda x: logistic(x, *popt) - 0.9 * popt[0], 0, 40)
print(f"  reaches 90% of K at t = {t90:.2f}")

# Integrate the curve (total "population-days") numerically and compare with the closed form.
area, abserr = integrate.quad(logistic, 0, 20, args=tuple(popt))
K, r, t0 = popt
closed = K / r * (np.log1p(np.exp(r * (20 - t0))) - np.log1p(np.exp(r * (0 - t0))))
print(f"  integral 0..20 = {area:.1f} (closed form {closed:.1f}, est. error {abserr:.1e})")
assert abs(area - closed) < 1e-6 * closed


# Minimise the Rosenbrock function with two methods.
def rosen(p):
    return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2


for method in ("Nelder-Mead", "BFGS"):
    res = optimize.minimize(rosen, x0=[-1.2, 1.0], method=method)
    print(f"{method:<11} -> x = {np.round(res.x, 4)}, f = {res.fun:.2e}, evaluations = {res.nfev}")

# Solve a small ODE: damped oscillator.
sol = integrate.solve_ivp(lambda _t, s: [s[1], -0.3 * s[1] - 4 * s[0]], (0, 10), [1.0, 0.0],
                          t_eval=np.linspace(0, 10, 6))
print("damped oscillator x(t):", np.round(sol.y[0], 3))
