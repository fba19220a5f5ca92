#!/usr/bin/env python3
"""Expected figures for a walker standing still behind Stroll's simulated receiver.

Written from docs/Receiver.md alone (not from Stroll's sources), in numpy, as an
independent reference. A walker stands at one place for 10 minutes; the receiver
makes a fix at t = 0, 1, ..., 600 s (601 fixes, t0 = 0, warm-up none) and a 25 m
distance filter delivers the first fix it gets and then each fix at least 25 m
from the last delivered one (the planar distance between the two error vectors).
For environments open-sky and urban, each with noise gaussian and gauss-markov,
a seeded Monte Carlo gives the number of delivered fixes (mean, sd, standard
error of the mean), the fixes lost to outages per run, and the fraction of the
fixes not lost that fall in a multipath episode. It writes
Tests/LocationSimulationTests/Reference/standstill.json, the same bytes every run.

The receiver, as the page states it:
  - unit Gauss-Markov process: grid t0 + k*tau/100, x0 ~ N(0,1),
    x[k+1] = rho*x[k] + sqrt(1-rho^2)*n[k], rho = e^(-1/100), linear in between;
  - reported accuracy h(t) = a0 * e^(s*y(t)) rounded to 0.1 m (y: its own process);
  - error sigma(t) * (east, north), sigma = h / sqrt(-2 ln 0.32); the unit error is
    white N(0,1) per fix (gaussian) or two more unit processes x, z (gauss-markov);
  - outages and multipath: two-state chains on whole seconds, starting with
    signal / outside an episode, entering with p = 1 - e^(-1/gap), leaving with
    p = 1 - e^(-1/length); a fix at t is lost when the outage chain is lost at
    step floor(t - t0); a multipath episode draws theta ~ U[0, 2pi) on entry and
    adds offset * h(t) * (sin theta, cos theta) to the error while it lasts.

It also prints (does not write) a check of the unit Gauss-Markov process on its
grid: variance ~ 1 and lag-tau autocorrelation ~ e^-1, and of h's median.

usage (from the repository root): python3 Tests/IntegrationTests/receiver/standstill.py
"""
import json
import math
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
OUT = os.path.join(ROOT, "Tests", "LocationSimulationTests", "Reference", "standstill.json")
MADE_BY = ("Tests/IntegrationTests/receiver/standstill.py (numpy, written from docs/Receiver.md): "
           "python3 Tests/IntegrationTests/receiver/standstill.py")

SEED = 20240501
RUNS = 20000          # per case
BATCH = 5000          # runs simulated at once (keeps the grids small)
FIXES = 601           # t = 0, 1, ..., 600 s
FILTER_M = 25.0       # distance filter, metres
K68 = math.sqrt(-2.0 * math.log(0.32))   # sigma = accuracy / K68: the 68 % circle

# docs/Receiver.md, the preset table. Chains: (mean gap s, mean length s); multipath adds the offset.
PRESETS = {
    "open-sky": dict(a0=5.0, s=0.15, tau=60.0, outages=None, multipath=None),
    "urban": dict(a0=12.0, s=0.30, tau=30.0, outages=(1800.0, 6.0), multipath=(600.0, 5.0, 2.5)),
}
CASES = [(env, noise) for env in ("open-sky", "urban") for noise in ("gaussian", "gauss-markov")]


def gauss_markov_grid(rng, runs, tau, t_end):
    """Unit Gauss-Markov process on t0 + k*tau/100, k = 0 ... covering t_end; shape (points, runs)."""
    steps = math.ceil(t_end * 100.0 / tau)
    rho = math.exp(-1.0 / 100.0)
    c = math.sqrt(1.0 - rho * rho)
    x = np.empty((steps + 1, runs))
    x[0] = rng.standard_normal(runs)
    for k in range(steps):
        x[k + 1] = rho * x[k] + c * rng.standard_normal(runs)
    return x


def at_times(grid, tau, times):
    """The grid process at the given times (seconds since t0), linear between grid points."""
    u = times * 100.0 / tau
    k = np.floor(u).astype(int)
    f = (u - k)[:, None]
    k1 = np.minimum(k + 1, len(grid) - 1)
    return grid[k] * (1.0 - f) + grid[k1] * f


def two_state_chain(rng, runs, steps, gap, length):
    """Chain on whole seconds 0 .. steps-1, starting off; on with p 1-e^(-1/gap), off with p 1-e^(-1/length).
    Returns (on, theta): theta is drawn uniform in [0, 2pi) at each entry and held while on."""
    p_enter = 1.0 - math.exp(-1.0 / gap)
    p_leave = 1.0 - math.exp(-1.0 / length)
    on = np.zeros((steps, runs), dtype=bool)
    theta = np.zeros((steps, runs))
    for k in range(1, steps):
        u = rng.random(runs)
        on[k] = np.where(on[k - 1], u >= p_leave, u < p_enter)
        fresh = rng.uniform(0.0, 2.0 * math.pi, runs)
        theta[k] = np.where(on[k] & ~on[k - 1], fresh, theta[k - 1])
    return on, theta


def simulate(rng, env, noise, runs, checks):
    """One batch of runs: delivered fixes, lost fixes per run, multipath fixes and fixes not lost."""
    p = PRESETS[env]
    times = np.arange(FIXES, dtype=float)
    y = gauss_markov_grid(rng, runs, p["tau"], times[-1])
    if not checks:
        checks.append((env, p["tau"], y))
    h = np.round(p["a0"] * np.exp(p["s"] * at_times(y, p["tau"], times)), 1)   # (FIXES, runs)
    sigma = h / K68
    if noise == "gaussian":
        unit = rng.standard_normal((2, FIXES, runs))
    else:
        unit = np.stack([at_times(gauss_markov_grid(rng, runs, p["tau"], times[-1]), p["tau"], times)
                         for _ in range(2)])
    east, north = sigma * unit[0], sigma * unit[1]
    lost = np.zeros((FIXES, runs), dtype=bool)
    if p["outages"]:
        lost, _ = two_state_chain(rng, runs, FIXES, *p["outages"])   # step floor(t - t0) = t here
    multipath = np.zeros((FIXES, runs), dtype=bool)
    if p["multipath"]:
        gap, length, offset = p["multipath"]
        multipath, theta = two_state_chain(rng, runs, FIXES, gap, length)
        east = east + np.where(multipath, offset * h * np.sin(theta), 0.0)
        north = north + np.where(multipath, offset * h * np.cos(theta), 0.0)

    delivered = np.zeros(runs, dtype=int)
    have = np.zeros(runs, dtype=bool)
    last_e = np.zeros(runs)
    last_n = np.zeros(runs)
    for i in range(FIXES):
        far = np.hypot(east[i] - last_e, north[i] - last_n) >= FILTER_M
        deliver = ~lost[i] & (~have | far)
        last_e = np.where(deliver, east[i], last_e)
        last_n = np.where(deliver, north[i], last_n)
        have |= deliver
        delivered += deliver
    kept = ~lost
    return delivered, lost.sum(axis=0), int((multipath & kept).sum()), int(kept.sum())


def chain_on_probability(gap, length, steps):
    """P(on) at steps 0 .. steps-1 of two_state_chain, exactly: pi * (1 - lambda^k)."""
    p_enter, p_leave = 1.0 - math.exp(-1.0 / gap), 1.0 - math.exp(-1.0 / length)
    k = np.arange(steps)
    return p_enter / (p_enter + p_leave) * (1.0 - (1.0 - p_enter - p_leave) ** k)


def self_check(checks):
    print("unit Gauss-Markov process on its grid (first batch of each case):")
    for env, tau, g in checks:
        var = g.var()
        lag = float(np.mean(g[:-100] * g[100:])) / var   # 100 grid steps = tau
        print(f"  {env:9s} tau {tau:4.0f} s: variance {var:.4f} (expect 1), "
              f"lag-tau autocorrelation {lag:.4f} (expect e^-1 = {math.exp(-1):.4f})")


def main():
    cases, checks = [], []
    for index, (env, noise) in enumerate(CASES):
        rng = np.random.default_rng([SEED, index])
        delivered, lost, mp, kept = [], [], 0, 0
        batch_checks = []
        for _ in range(RUNS // BATCH):
            d, l, m, k = simulate(rng, env, noise, BATCH, batch_checks)
            delivered.append(d)
            lost.append(l)
            mp += m
            kept += k
        checks.append(batch_checks[0])
        delivered = np.concatenate(delivered)
        lost = np.concatenate(lost)
        sd = float(delivered.std(ddof=1))
        cases.append({
            "environment": env, "noise": noise, "runs": RUNS, "fixes": FIXES,
            "delivered_mean": round(float(delivered.mean()), 4),
            "delivered_sd": round(sd, 4),
            "delivered_se": round(sd / math.sqrt(RUNS), 4),
            "lost_to_outages_mean": round(float(lost.mean()), 4),
            "multipath_fraction": round(mp / kept, 6),
        })
        c = cases[-1]
        print(f"{env:9s} {noise:12s} delivered {c['delivered_mean']:8.3f} ± {c['delivered_se']:.3f} "
              f"(sd {c['delivered_sd']:.2f}), lost to outages {c['lost_to_outages_mean']:.3f}, "
              f"multipath {c['multipath_fraction']:.5f}")
    self_check(checks)
    env, tau, g = checks[0]
    h = PRESETS[env]["a0"] * np.exp(PRESETS[env]["s"] * g)
    print(f"  {env} accuracy on the grid: median {np.median(h):.3f} m (expect {PRESETS[env]['a0']})")
    lost = chain_on_probability(*PRESETS["urban"]["outages"], FIXES)
    mp = chain_on_probability(*PRESETS["urban"]["multipath"][:2], FIXES)
    print(f"  urban chains, exactly: lost to outages {lost.sum():.4f} per run, "
          f"multipath fraction {np.sum(mp * (1 - lost)) / np.sum(1 - lost):.6f}")
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"made_by": MADE_BY, "seed": SEED, "cases": cases}, f, indent=2)
        f.write("\n")
    print("wrote", os.path.relpath(OUT, ROOT))


if __name__ == "__main__":
    main()
