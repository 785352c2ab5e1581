#!/usr/bin/env python3
"""Reference values for the unit tests of src/stats/ (not run by CI).

Every number written into those tests comes from here, computed by scipy,
numpy and R (Rscript), never by the code under test. Regenerate with:

    python3 -m venv /tmp/statsvenv && /tmp/statsvenv/bin/pip install scipy numpy
    apt-get install -y r-base-core          # for wilcox.test and p.adjust
    /tmp/statsvenv/bin/python tests/stats_reference.py

Versions used for the values in the tests: scipy 1.17.1, numpy 2.4.6,
R 4.2.2. The output is grouped by the test module that uses it.
"""

import subprocess

import numpy as np
import scipy
from scipy import special, stats


def section(name):
    print(f"\n=== {name} ===")


def r(code):
    """Runs R code and returns its stdout."""
    return subprocess.run(
        ["Rscript", "-e", code], check=True, capture_output=True, text=True
    ).stdout.strip()


def vec(xs):
    return "c(" + ", ".join(repr(float(v)) for v in xs) + ")"


print(f"scipy {scipy.__version__}, numpy {np.__version__}, {r('cat(R.version.string)')}")

# --- dist.rs ----------------------------------------------------------------
section("dist: ln_gamma = scipy.special.gammaln")
for x in [0.5, 1.0, 2.5, 7.3, 15.5, 123.456, 5.0e5]:
    print(f"({x!r}, {special.gammaln(x)!r}),")
section("dist: normal cdf = scipy.stats.norm.cdf; sf(8)")
for z in [-30.0, -10.0, -3.0, -1.0, -0.1, 0.5, 1.7, 2.5]:
    print(f"({z!r}, {stats.norm.cdf(z)!r}),")
print("sf(8) =", repr(stats.norm.sf(8.0)))
section("dist: normal quantile = scipy.stats.norm.ppf")
for p in [1e-300, 1e-10, 0.001, 0.025, 0.3, 0.5, 0.8, 0.975, 0.9995]:
    print(f"({p!r}, {stats.norm.ppf(p)!r}),")
section("dist: t quantile = scipy.stats.t.ppf(p, df)")
for p, df in [(0.975, 1.0), (0.975, 2.0), (0.975, 5.0), (0.975, 30.0), (0.975, 1000.0),
              (0.975, 1.0e6), (0.9995, 1.0), (0.9995, 3.0), (0.9995, 9.0), (0.05, 7.5),
              (0.999999, 4.0), (0.6, 12.0)]:
    print(f"({p!r}, {df!r}, {stats.t.ppf(p, df)!r}),")
print("df=inf:", repr(stats.norm.ppf(0.975)))
section("dist: t cdf = scipy.stats.t.cdf(t, df)")
for t, df in [(2.0, 3.0), (-2.0, 3.0), (0.5, 1.0), (-25.0, 7.0), (1.3, 55.5)]:
    print(f"({t!r}, {df!r}, {stats.t.cdf(t, df)!r}),")

# --- describe.rs ------------------------------------------------------------
section("describe: np.quantile (method='linear'), mean, std(ddof=1), MAD")
X = np.array([3.2, 1.5, 9.75, 4.0, 4.0, 2.25, 11.5, 0.5, 6.125])
for p in [0.0, 0.1, 0.25, 0.33, 0.5, 0.9, 1.0]:
    print(f"({p!r}, {np.quantile(X, p)!r}),")
print("mean", repr(X.mean()))
print("sd", repr(X.std(ddof=1)))
print("cv", repr(X.std(ddof=1) / X.mean()))
print("mad raw", repr(stats.median_abs_deviation(X)))
print("mad scaled 1.4826", repr(stats.median_abs_deviation(X, scale=1 / 1.4826)))
print("R mad(x) (constant 1.4826)", r(f"cat(format(mad({vec(X)}), digits=17))"))

# --- batch.rs ---------------------------------------------------------------
section("batch: AR(1) series and its batch-means interval (textbook formula)")
rng = np.random.default_rng(2024)
n, phi = 50, 0.7
e = np.zeros(n)
e[0] = rng.normal(0, 20) / np.sqrt(1 - phi * phi)
for i in range(1, n):
    e[i] = phi * e[i - 1] + rng.normal(0, 20)
series = np.round(1000 + e, 6)
print("series:", ", ".join(repr(float(v)) for v in series))
k = int(np.floor(np.sqrt(n)))
b = n // k
kept = series[n - k * b:]
means = kept.reshape(k, b).mean(axis=1)
m = means.mean()
se = means.std(ddof=1) / np.sqrt(k)
q = stats.t.ppf(0.975, k - 1)
print(f"k={k} b={b} mean={m!r} se={se!r} lo={m - q * se!r} hi={m + q * se!r}")
print("naive s/sqrt(n) se for contrast:", repr(series.std(ddof=1) / np.sqrt(n)))

# --- rank.rs ----------------------------------------------------------------
section("rank: scipy.stats.mannwhitneyu(x, y, alternative, method, use_continuity=True)")
MW = {
    "E1": ([3.1, 4.7, 2.2, 5.9, 4.1], [1.2, 2.9, 0.7, 3.4]),
    "E2": ([0.81, 1.93, 1.12, 2.45, 0.33, 1.71, 2.02, 1.27],
           [1.05, 0.42, 0.66, 1.38, 0.95, 0.18, 1.51, 0.77, 0.29, 1.16, 0.58, 0.88]),
    "A1": ([1, 2, 2, 3, 4, 4, 4, 5, 6, 7], [3, 3, 4, 5, 5, 6, 8, 8, 9, 9, 10]),
}
big = np.random.default_rng(7)
MW["A2"] = (list(np.round(big.normal(10, 2, 12), 4)), list(np.round(big.normal(11, 2, 15), 4)))
MW["X20"] = (list(np.round(big.normal(0, 1, 20), 5)), list(np.round(big.normal(0.6, 1, 20), 5)))
for name, (x, y) in MW.items():
    print(f"{name}: x = {[float(v) for v in x]}\n    y = {[float(v) for v in y]}")
    for alt in ["two-sided", "greater", "less"]:
        res = stats.mannwhitneyu(x, y, alternative=alt, method="auto", use_continuity=True)
        print(f"  auto {alt}: U1={res.statistic!r} p={res.pvalue!r}")
    for method in ["exact", "asymptotic"]:
        res = stats.mannwhitneyu(x, y, alternative="two-sided", method=method)
        print(f"  {method} two-sided: U1={res.statistic!r} p={res.pvalue!r}")

section("rank: R wilcox.test(log(b), log(a), conf.int=TRUE, conf.level)")
big = np.random.default_rng(11)
HL = {
    "H1": ([100.0, 103.0, 98.0, 101.0, 99.5], [110.0, 108.5, 112.0, 109.0, 111.2], [0.95, 0.999]),
    "H2": ([50.2, 51.7, 49.9, 50.8, 52.3, 50.5, 51.1], [49.0, 50.9, 48.7, 50.1, 49.6, 51.4], [0.99, 0.9]),
    "H3": ([200.0, 210.0, 210.0, 205.0, 200.0, 215.0], [220.0, 215.0, 230.0, 220.0, 225.0, 210.0], [0.95]),
    "H4": (list(np.round(big.lognormal(5.0, 0.08, 60), 3)), list(np.round(big.lognormal(5.05, 0.08, 55), 3)), [0.95, 0.999]),
}
for name, (a, b, levels) in HL.items():
    print(f"{name}: a = {[float(v) for v in a]}\n    b = {[float(v) for v in b]}")
    la, lb = np.log(a), np.log(b)
    diffs = np.sort(np.subtract.outer(lb, la).ravel())
    mid = len(diffs) // 2
    print(f"  numpy median of diffs (HL): {np.median(diffs)!r}; middle differences "
          f"{diffs[mid - 1]!r} {diffs[mid]!r}" + (f" {diffs[mid + 1]!r}" if len(diffs) % 2 else ""))
    for level in levels:
        out = r(
            f"options(warn=-1); t <- wilcox.test(log({vec(b)}), log({vec(a)}), conf.int=TRUE, conf.level={level});"
            "cat(format(c(t$estimate, t$conf.int, attr(t$conf.int, 'conf.level'), t$p.value), digits=17))"
        )
        print(f"  level {level}: estimate lo hi conf.level-attr p = {out}")
        # The confidence the exact interval has: 1 - 2 pwilcox(q - 1), q = max(1, qwilcox(alpha/2)).
        ach = r(f"q <- max(1, qwilcox({(1 - level) / 2!r}, {len(b)}, {len(a)})); cat(format(1 - 2 * pwilcox(q - 1, {len(b)}, {len(a)}), digits=17))")
        print(f"    exact achieved confidence (if no ties, n < 50): {ach}")

# --- adjust.rs --------------------------------------------------------------
section("adjust: R p.adjust")
P = [0.01, 0.04, 0.03, 0.005, 0.2, 0.04, 0.9, 0.0001]
print("holm", r(f"cat(format(p.adjust({vec(P)}, 'holm'), digits=17), sep=', ')"))
print("BH  ", r(f"cat(format(p.adjust({vec(P)}, 'BH'), digits=17), sep=', ')"))
print("holm with NA", r("cat(format(p.adjust(c(0.02, NA, 0.01), 'holm'), digits=17), sep=', ')"))
print("BH with NA", r("cat(format(p.adjust(c(0.02, NA, 0.01, 0.04), 'BH'), digits=17), sep=', ')"))

section("adjust: BH levels (selection R; levels R q/m selected, (R + 1) q/m others)")
print("P selected", r(f"cat(p.adjust({vec(P)}, 'BH') <= 0.05)"))
print("50 x 0.0079", r("cat(format(p.adjust(rep(0.0079, 50), 'BH')[1:2], digits=17))"))
print("0.0079 among 49 x 0.5", r("cat(format(p.adjust(c(0.0079, rep(0.5, 49)), 'BH')[1], digits=17))"))
print("BH without NA", r("cat(format(p.adjust(c(0.02, 0.01, 0.04), 'BH'), digits=17), sep=', ')"))

# --- fleet.rs ---------------------------------------------------------------
section("fleet: modified z = 0.6745 (x - median) / MAD (Iglewicz & Hoaglin)")
H = np.array([1000.0, 1012.0, 995.0, 1003.0, 990.0, 1007.0, 850.0, 1001.0, 1200.0, 998.0])
med = np.median(H)
mad = np.median(np.abs(H - med))
print("median", repr(med), "MAD", repr(mad))
print(", ".join(repr(float(v)) for v in 0.6745 * (H - med) / mad))
V = np.array([100.0, 100.0, 100.0, 100.0, 100.0, 80.0])
meanad = np.mean(np.abs(V - np.median(V)))
print("MAD=0 fallback, z of 80:", repr((80.0 - np.median(V)) / (1.253314 * meanad)))

# --- rng.rs -----------------------------------------------------------------
section("rng: SplitMix64 and xoshiro256** (transcribed from the published C)")
M64 = (1 << 64) - 1


def splitmix(state):
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M64


def xoshiro(seed, count):
    st, s = seed, []
    for _ in range(4):
        st, v = splitmix(st)
        s.append(v)
    out = []
    for _ in range(count):
        out.append((rotl((s[1] * 5) & M64, 7) * 9) & M64)
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
    return out


print("splitmix64(0) first:", hex(splitmix(0)[1]))
print("xoshiro256**(42) first 3:", ", ".join(hex(v) for v in xoshiro(42, 3)))
print("next_f64 of the 4th:", repr((xoshiro(42, 4)[3] >> 11) * 2.0**-53))

# --- verdict.rs -------------------------------------------------------------
section("verdict: measured spread (R wilcox.test on the logs, margin 5 %)")
A = [100.0, 103.0, 98.0, 101.0, 99.5]
B = [110.0, 108.5, 112.0, 109.0, 111.2]
out = r(
    f"a <- log({vec(A)}); b <- log({vec(B)});"
    "g <- wilcox.test(b, a, mu=log(1.05), alternative='greater')$p.value;"
    "l <- wilcox.test(b, a, mu=log(0.95), alternative='less')$p.value;"
    "t <- wilcox.test(b, a, conf.int=TRUE, conf.level=0.95);"
    "cat(format(c(min(1, 2 * min(g, l)), exp(t$estimate), exp(t$conf.int)), digits=17))"
)
print("p beyond margin, ratio, interval lo, hi:", out)

section("verdict: within-run only (batch means, delta method, Welch df; textbook formulas)")


def batch_means(x):
    x = np.asarray(x, float)
    n = len(x)
    k = max(2, int(np.floor(np.sqrt(n))))
    b = n // k
    means = x[n - k * b:].reshape(k, b).mean(axis=1)
    return means.mean(), means.std(ddof=1) / np.sqrt(k), k - 1


SA = [1003.0, 998.0, 1010.0, 995.0, 1001.0, 1007.0, 990.0, 1004.0, 999.0, 1002.0]
SB = [1096.0, 1104.0, 1099.0, 1110.0, 1093.0, 1101.0, 1098.0, 1107.0, 1102.0, 1095.0]
VA, VB = 1000.0, 1100.0
(ma, sa, da), (mb, sb, db) = batch_means(SA), batch_means(SB)
ra, rb = sa / ma, sb / mb
for CV in [0.03, 0.0]:
    var = ra**2 + rb**2 + 2 * CV**2
    df = var**2 / (ra**4 / da + rb**4 / db)
    est = np.log(VB / VA)
    se = np.sqrt(var)
    half = stats.t.ppf(0.975, df) * se
    p = min(1.0, 2 * min(stats.t.sf((est - np.log(1.05)) / se, df), stats.t.cdf((est - np.log(0.95)) / se, df)))
    print(f"cv={CV}: se={se!r} df={df!r} ratio={np.exp(est)!r} lo={np.exp(est - half)!r} hi={np.exp(est + half)!r} p={p!r}")

section("change point: least-squares single split of log(1 + rate), against a straight line")


def change_point(x, m):
    x = np.asarray(x, float)
    y = np.log(np.maximum(x, np.median(x) / 10))
    n = len(y)
    cost = [((y[:k] - y[:k].mean()) ** 2).sum() + ((y[k:] - y[k:].mean()) ** 2).sum() for k in range(m, n - m + 1)]
    k = m + int(np.argmin(cost))
    i = np.arange(n)
    line = ((y - np.polyval(np.polyfit(i, y, 1), i)) ** 2).sum()
    return k, min(cost) / line


print("step", change_point([3010.0, 2950.0, 3080.0, 2990.0, 3020.0, 1010.0, 990.0, 1005.0, 1000.0, 985.0], 2))
print("ramp", change_point([1000.0 - 40.0 * i for i in range(10)], 2))
