"""
=======================================================================
Private sampling on Adult: noise-free, exact marginals, and few records
=======================================================================

:class:`~skprivsynth.PrivateSampler` reweights a random, data-independent reduced space
so that its 1- and 2-way marginals match the data's, shrunk toward uniform only as far
as the density bounds require, and then releases i.i.d. draws.  Its privacy comes from
sampling alone, so the number of records it may release is capped by Theorem 12.2 of
Boedihardjo, Strohmer & Vershynin (*Private sampling*).  On Adult (integer codes
coarsened to 2 bins, one-hot: p = 28) the cap is 0.
"""

# %%
# The cap at ε = 1, and the refusal
# ---------------------------------
# ``max_samples_`` is the cap; :meth:`~skprivsynth.PrivateSampler.sample` refuses above
# it, and its message says what ε, ``n`` or ``m`` would be needed.
import math

import matplotlib.pyplot as plt
import numpy as np

from skprivsynth.datasets import load_adult
from skprivsynth.metrics import marginal_error
from skprivsynth.preprocessing import BooleanEncoder
from skprivsynth.synthesizers.private_sampling import PrivateSampler, max_samples_bound

adult = load_adult()
X = np.asarray(
    BooleanEncoder(categories=adult.domain, max_bins=2).fit_transform(adult.data), dtype=float
)
n, p = X.shape
L = 1 + p + math.comb(p, 2)  # Walsh functions of degree <= 2: the constraints of h*
m = 2 * L

est = PrivateSampler(epsilon=1.0, m=m, density_bounds=(0.25, 8.0), random_state=0).fit(X)
print(f"Adult one-hot (max_bins=2): n = {n:,}, p = {p}, L = {L}, m = {m}")
print(f"shrinkage lambda* = {est.shrinkage_:.3f} (0 = data marginals matched exactly)")
print(
    f"Theorem 12.2 bound at epsilon = 1: k <= {est.samples_bound_:.3g} -> "
    f"max_samples_ = {est.max_samples_}"
)
try:
    est.sample(1)
except ValueError as err:
    print("sample(1) refused:", err)

# %%
# The density itself is accurate
# -------------------------------
# The 2-way tables of the Boolean columns under ``h*`` (no sampling error): the reduced
# space weighted by ``h*``, and uniformly, against the data.
for name, weights in [("h*", est.weights_), ("uniform on S", None)]:
    tvd2 = marginal_error(X, est.records_, degree=2, sample_weight_Y=weights)
    print(f"mean 2-way TVD (Boolean columns), {name}: {tvd2:.3f}")

# %%
# The cap against ε and n
# -----------------------
# :func:`~skprivsynth.synthesizers.private_sampling.max_samples_bound` evaluates the theorem's cap
# from public quantities only, here for a hypothetical ``n`` at the same width.
epsilons = np.logspace(-1, 2, 20)
ns = [n, 10**6, 10**8, 10**10]
curves = {
    size: [
        max_samples_bound(e, n=size, m=m, p=p, degree=2, density_bounds=(0.25, 8.0))
        for e in epsilons
    ]
    for size in ns
}
for size in ns:
    bound = max_samples_bound(1.0, n=size, m=m, p=p, degree=2, density_bounds=(0.25, 8.0))
    print(f"n = {size:>14,}: records allowed at epsilon = 1: {int(np.floor(bound))}")

fig, ax = plt.subplots(figsize=(6, 4))
for size, values in curves.items():
    ax.loglog(epsilons, values, label=f"n = {size:,}")
ax.axhline(1, color="k", lw=0.8, ls="--")
ax.set_xlabel("epsilon")
ax.set_ylabel("records allowed (Theorem 12.2 bound)")
ax.set_title(f"PrivateSampler release cap, Adult one-hot p = {p}, m = {m}")
ax.legend()
fig.tight_layout()
plt.show()
