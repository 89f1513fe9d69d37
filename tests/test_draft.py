"""The draft of ``skprivsynth domain`` on the tables people bring (issue 45, items 6 and
8): output as input (datetime formats, zero-padded codes), and a draft that says what
it cannot know (keys, named quantities, sparse spans, ordered words, whole hundreds,
one rule per recording, advice quoted for the shell)."""

import json
import shlex
import warnings

import numpy as np
import pandas as pd
import pytest

from skprivsynth import Domain, draft_domain, read_csv
from skprivsynth.cli import main
from skprivsynth.exceptions import PrivacyLeakWarning


def _draft_csv(tmp_path, capsys, data, name="data.csv"):
    """``skprivsynth domain`` of ``data`` written as a CSV: (path, draft, stderr lines)."""
    source = tmp_path / name
    data.to_csv(source, index=False)
    with pytest.warns(PrivacyLeakWarning, match="drafted from the private values"):
        assert main(["domain", str(source)]) == 0
    out, err = capsys.readouterr()
    return source, json.loads(out), err.splitlines()


def _line(lines, column):
    return next(line for line in lines if line.startswith(f"skprivsynth domain: {column!r}: "))


def _synthesize(tmp_path, source, draft):
    """``skprivsynth synthesize`` of ``source`` over the drafted domain: the output's
    text, every cell a string (as a reader of the file sees it)."""
    domain_file = tmp_path / "domain.json"
    domain_file.write_text(json.dumps(draft))
    target = tmp_path / "out.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # seeded: a test
        argv = ["synthesize", str(source), "-o", str(target), "--domain", str(domain_file)]
        assert main([*argv, "--seed", "0", "--quiet"]) == 0
    return pd.read_csv(target, dtype=str, keep_default_na=False)


def _stamps(n, seed=0, unit="min"):
    rng = np.random.default_rng(seed)
    steps = {"min": 365 * 24 * 60, "D": 365}[unit]
    return pd.Timestamp("2023-01-01") + pd.to_timedelta(rng.integers(0, steps, n), unit)


# ---------------------------------------------------------------- item 6: output as input


def test_timestamps_come_back_in_the_text_they_were_read_in(tmp_path, capsys):
    """``2023-12-03 12:57`` came back as ``2023-04-01 14:04:00``: a minute timestamp is
    written at its resolution, with no seconds, as it was read."""
    data = pd.DataFrame({"at": _stamps(300).strftime("%Y-%m-%d %H:%M")})
    source, draft, _ = _draft_csv(tmp_path, capsys, data)
    assert draft["at"]["resolution"] == "min"
    out = _synthesize(tmp_path, source, draft)
    assert out["at"].str.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}").all()


def test_timestamps_with_seconds_get_their_format_proposed(tmp_path, capsys):
    """Timestamps written with seconds at a coarser resolution keep their seconds."""
    data = pd.DataFrame({"at": _stamps(300).strftime("%Y-%m-%d %H:%M:%S")})
    source, draft, _ = _draft_csv(tmp_path, capsys, data)
    assert draft["at"]["format"] == "%Y-%m-%d %H:%M:%S"
    out = _synthesize(tmp_path, source, draft)
    assert out["at"].str.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:00").all()


@pytest.mark.parametrize(
    "text_format",
    ["%Y/%m/%d", "%d/%m/%Y", "%m/%d/%Y", "%Y.%m.%d", "%d/%m/%Y %H:%M", "%Y/%m/%d %H:%M:%S"],
)
def test_dates_in_common_formats_are_drafted_read_and_written_in_them(
    tmp_path, capsys, text_format
):
    """``2012/01/01`` or ``31/01/2020`` were left out ("not in ISO 8601"): now drafted
    with their ``"format"`` (a day above 12 tells ``%d/%m`` from ``%m/%d``), read in it
    and written back in it."""
    unit = "min" if "%H" in text_format else "D"
    stamps = _stamps(300, unit=unit)
    data = pd.DataFrame({"day": stamps.strftime(text_format), "n": np.arange(300) % 7})
    source, draft, lines = _draft_csv(tmp_path, capsys, data)
    assert draft["day"]["type"] == "datetime" and draft["day"]["format"] == text_format
    assert text_format in _line(lines, "day")
    frame = read_csv(source, draft)
    assert (frame["day"] == stamps.floor(draft["day"]["resolution"])).all()
    out = _synthesize(tmp_path, source, draft)
    parsed = pd.to_datetime(out["day"], format=text_format)  # raises if not in it
    assert (parsed.dt.strftime(text_format) == out["day"]).all()


def test_ambiguous_dates_are_left_out_with_both_formats_named(tmp_path, capsys):
    """Every day at most 12: ``%d/%m/%Y`` and ``%m/%d/%Y`` both read it; the draft asks."""
    stamps = pd.date_range("2020-01-01", periods=12, freq="MS")  # always the 1st
    data = pd.DataFrame({"day": np.tile(stamps.strftime("%d/%m/%Y"), 20)})
    _, draft, lines = _draft_csv(tmp_path, capsys, data)
    assert "day" not in draft
    line = _line(lines, "day")
    assert "'%d/%m/%Y'" in line and "'%m/%d/%Y'" in line and '"format"' in line


def test_zero_padded_codes_are_drafted_as_levels_and_keep_their_zeros(tmp_path, capsys):
    """``"01", "02", "10", "NA"`` was drafted an integer range and lost its zeros."""
    rng = np.random.default_rng(0)
    data = pd.DataFrame({"code": rng.choice(["01", "02", "10", "NA"], 300)})
    source, draft, lines = _draft_csv(tmp_path, capsys, data)
    assert draft["code"] == ["01", "02", "10", "NA"]
    assert "leading zeros" in _line(lines, "code")
    assert read_csv(source, draft)["code"].isin(["01", "02", "10", "NA"]).all()
    out = _synthesize(tmp_path, source, draft)
    assert set(out["code"]) <= {"01", "02", "10", "NA"} and "01" in set(out["code"])


def test_the_format_of_a_datetime_round_trips_and_is_validated():
    spec = {"type": "datetime", "range": ["2012-01-01", "2012-12-31"], "resolution": "D"}
    domain = Domain({"day": {**spec, "format": "%d/%m/%Y"}})
    assert domain.to_dict()["day"]["format"] == "%d/%m/%Y"
    assert Domain(domain.to_dict()) == domain
    assert "format" not in Domain({"day": spec}).to_dict()["day"]  # ISO when absent
    bins = {**spec, "bins": ["2012-01-01", "2012-06-01", "2012-12-31"], "format": "%Y/%m/%d"}
    del bins["range"]
    assert Domain({"day": bins}).to_dict()["day"]["format"] == "%Y/%m/%d"
    for bad in ["%Y", "no directive", 3, ""]:
        with pytest.raises(ValueError, match=r"\['format'\] must be a strftime format"):
            Domain({"day": {**spec, "format": bad}})
    # a format that writes no time cannot hold timestamps at minutes
    with pytest.raises(ValueError, match="resolution 'min'"):
        Domain({"day": {**spec, "resolution": "min", "format": "%Y/%m/%d"}})


def test_a_cell_outside_the_format_is_an_error_naming_the_column_not_the_value(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("day\n31/01/2020\n1999-12-31\n")
    spec = {"type": "datetime", "range": ["1990-01-01", "2020-12-31"], "resolution": "D"}
    with pytest.raises(ValueError, match=r"'day'.*'%d/%m/%Y'") as error:
        read_csv(path, {"day": {**spec, "format": "%d/%m/%Y"}})
    assert "1999" not in str(error.value) and error.value.__cause__ is None
    with pytest.raises(ValueError, match=r"not ISO 8601.*\"format\"") as error:
        read_csv(path, {"day": spec})
    assert "31/01" not in str(error.value)


# ---------------------------------------------------------------- item 8: what it cannot know


def test_a_key_of_many_values_on_few_rows_is_left_out(tmp_path, capsys):
    """An institution key of thousands of values on 1-8 rows each was drafted an
    integer range and synthesized as a number; now it is left out, with the advice to
    drop it."""
    rng = np.random.default_rng(0)
    keys = rng.choice(np.arange(100000, 500000), 600, replace=False)
    rows = np.repeat(keys, rng.choice([1, 1, 2, 2, 3, 8], keys.size))
    data = pd.DataFrame({"unitid": rows, "size": rng.integers(0, 50, rows.size)})
    _, draft, lines = _draft_csv(tmp_path, capsys, data)
    assert "unitid" not in draft
    line = _line(lines, "unitid")
    assert "left out" in line and "identifier-like" in line and "--drop unitid" in line


def test_columns_of_one_recording_get_one_rule(tmp_path, capsys):
    """Two temperatures in tenths were drafted one as 52 levels, the other as a range."""
    rng = np.random.default_rng(0)
    n = 2000
    data = pd.DataFrame(
        {
            "temp_max": np.round(rng.normal(20, 1.2, n), 1).clip(18, 22),  # few values
            "temp_min": np.round(rng.normal(8, 6, n), 1),
        }
    )
    _, draft, lines = _draft_csv(tmp_path, capsys, data)
    assert draft["temp_max"]["type"] == draft["temp_min"]["type"] == "float"
    assert draft["temp_max"]["decimals"] == draft["temp_min"]["decimals"] == 1
    assert "one rule" in _line(lines, "temp_max")


@pytest.mark.parametrize(
    "name, low, high, expected",
    [
        ("day_of_year", 3, 361, [1, 366]),
        ("DayOfYear", 3, 361, [1, 366]),
        ("hour", 1, 21, [0, 23]),
        ("month", 2, 11, [1, 12]),
        ("weekday", 0, 5, [0, 6]),
        ("minute", 3, 55, [0, 59]),
    ],
)
def test_a_named_quantity_gets_its_public_range(tmp_path, capsys, name, low, high, expected):
    """A day of the year became ``[0, 400]`` (synthetic days outside 1-366)."""
    values = np.r_[low, high, np.random.default_rng(0).integers(low, high + 1, 2000)]
    _, draft, lines = _draft_csv(tmp_path, capsys, pd.DataFrame({name: values}))
    assert draft[name] == {"type": "integer", "range": expected}
    assert "public range" in _line(lines, name)


def test_a_duration_in_hours_is_no_hour_of_the_day(tmp_path, capsys):
    values = np.random.default_rng(0).integers(0, 40, 500)
    _, draft, _ = _draft_csv(tmp_path, capsys, pd.DataFrame({"hours": values}))
    assert draft["hours"] == {"type": "integer", "range": [0, 39]}


def test_few_integers_in_a_wider_span_are_pointed_out(tmp_path, capsys):
    """A survey year with 7 of 13 years present became all 13 integers, silently."""
    years = np.random.default_rng(0).choice([2000, 2002, 2004, 2006, 2008, 2010, 2012], 400)
    _, draft, lines = _draft_csv(tmp_path, capsys, pd.DataFrame({"year": years}))
    assert draft["year"] == {"type": "integer", "range": [2000, 2012]}
    assert "only 7 of these 13 integers occur" in _line(lines, "year")


@pytest.mark.parametrize(
    "levels",
    [
        ["January", "February", "March", "April", "October", "December"],
        ["Mon", "Tue", "Wed", "Sat", "Sun"],
        ["Strongly disagree", "Disagree", "Neutral", "Agree", "Strongly agree"],
        ["Never", "Rarely", "Sometimes", "Often", "Always"],
        ["<10k", "10k-20k", "20k-50k", "50k-100k", "100k+"],
        ["Under $15,000", "$15,000 to $24,999", "$25,000 to $49,999", "$100,000 or more"],
        ["18-29", "30-49", "50-64", "65+"],
    ],
)
def test_ordered_answers_are_proposed_in_their_order(tmp_path, capsys, levels):
    """Income brackets, months and agreement scales came out alphabetically."""
    answers = np.random.default_rng(0).choice(levels, 400)
    _, draft, lines = _draft_csv(tmp_path, capsys, pd.DataFrame({"answer": answers}))
    assert draft["answer"] == {"levels": levels, "ordered": True}
    assert '"ordered": true' in _line(lines, "answer")


def test_unordered_words_stay_sorted(tmp_path, capsys):
    answers = np.random.default_rng(0).choice(["1", "1,3", "2,3"], 300)
    colors = np.random.default_rng(1).choice(["red", "low", "blue"], 300)
    data = pd.DataFrame({"choices": answers, "color": colors})
    _, draft, _ = _draft_csv(tmp_path, capsys, data)
    assert draft == {"choices": ["1", "1,3", "2,3"], "color": ["blue", "low", "red"]}


def test_whole_hundred_amounts_keep_their_precision(tmp_path, capsys):
    """Whole-hundred amounts lost their precision: on a short grid of multiples they
    are levels; on a long one a range declared in whole hundreds (``"decimals": -2``)."""
    rng = np.random.default_rng(0)
    data = pd.DataFrame(
        {"fee": rng.integers(0, 51, 500) * 100, "price": rng.integers(0, 900, 500) * 100}
    )
    source, draft, lines = _draft_csv(tmp_path, capsys, data)
    assert draft["fee"] == {"levels": list(range(0, 5001, 100)), "ordered": True}
    assert draft["price"] == {"type": "integer", "range": [0, 90000], "decimals": -2}
    assert "multiple of 100" in _line(lines, "price")
    out = _synthesize(tmp_path, source, draft)
    assert (out["fee"].astype(int) % 100 == 0).all()
    assert (out["price"].astype(int) % 100 == 0).all()


def test_drop_advice_is_quoted_for_the_shell(tmp_path, capsys):
    """``--drop Term (yyyy.mm.dd)`` was advised unquoted: a shell syntax error."""
    n = 100
    data = pd.DataFrame({"Term (yyyy.mm.dd)": [f"t{i}" for i in range(n)], "x": np.arange(n) % 3})
    _, draft, lines = _draft_csv(tmp_path, capsys, data)
    line = _line(lines, "Term (yyyy.mm.dd)")
    assert line.endswith("--drop 'Term (yyyy.mm.dd)'")
    assert shlex.split(line.rsplit("synthesize with ", 1)[1]) == ["--drop", "Term (yyyy.mm.dd)"]


def test_the_draft_still_warns_that_it_reads_private_values():
    frame = pd.DataFrame({"day": ["2020/01/31", "2020/02/01"], "n": [1, 2]})
    with pytest.warns(PrivacyLeakWarning, match="drafted from the private values"):
        draft, _ = draft_domain(frame)
    assert draft["day"]["format"] == "%Y/%m/%d"


def test_write_csv_writes_datetimes_as_the_domain_reads_them(tmp_path):
    from skprivsynth import write_csv

    stamps = pd.Series(pd.to_datetime(["2023-12-03 12:57", "2024-01-31 08:05", None]))
    frame = pd.DataFrame({"at": stamps, "day": stamps.dt.normalize(), "on": stamps})
    spec = {"type": "datetime", "range": ["2023-01-01", "2024-12-31T23:59"], "missing": True}
    domain = {
        "at": {**spec, "resolution": "min"},
        "day": {**spec, "resolution": "D", "format": "%d/%m/%Y"},
        "on": {**spec, "resolution": "s"},
    }
    write_csv(frame, tmp_path / "out.csv", domain)
    assert (tmp_path / "out.csv").read_text().splitlines() == [
        "at,day,on",
        "2023-12-03 12:57,03/12/2023,2023-12-03 12:57:00",
        "2024-01-31 08:05,31/01/2024,2024-01-31 08:05:00",
        ",,",
    ]
    back = read_csv(tmp_path / "out.csv", domain)
    assert back["at"].equals(frame["at"].astype(back["at"].dtype))
    assert back["day"].equals(frame["day"].astype(back["day"].dtype))


def test_a_streamed_synthesis_writes_the_format_too(tmp_path, capsys):
    stamps = _stamps(300, unit="D")
    data = pd.DataFrame({"day": stamps.strftime("%d.%m.%Y"), "n": np.arange(300) % 4})
    source, draft, _ = _draft_csv(tmp_path, capsys, data)
    assert draft["day"]["format"] == "%d.%m.%Y"
    (tmp_path / "domain.json").write_text(json.dumps(draft))
    target = tmp_path / "out.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        argv = ["synthesize", str(source), "-o", str(target), "--chunksize", "100"]
        assert main([*argv, "--domain", str(tmp_path / "domain.json"), "--seed", "0"]) == 0
    out = pd.read_csv(target, dtype=str)
    assert out["day"].str.fullmatch(r"\d{2}\.\d{2}\.\d{4}").all()


def test_a_pipeline_reads_text_in_the_declared_format():
    from skprivsynth import MarginalSynthesizer, make_private_pipeline

    stamps = _stamps(400, unit="D")
    frame = pd.DataFrame({"day": stamps.strftime("%d/%m/%Y")})
    spec = {"type": "datetime", "range": ["2023-01-01", "2023-12-31"], "resolution": "D"}
    domain = {"day": {**spec, "format": "%d/%m/%Y"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        pipe = make_private_pipeline(MarginalSynthesizer(epsilon=1.0, random_state=0), domain)
        sample = pipe.fit(frame).sample(200, random_state=0)
    assert sample["day"].notna().all() and sample["day"].dt.month.nunique() > 6


def test_an_iso_format_reads_any_iso_cell(tmp_path):
    """A drafted ``"%Y-%m-%d %H:%M:%S"`` (how the output writes) still reads ``12:57``:
    a synthetic file written at minutes is read by the real file's draft."""
    path = tmp_path / "data.csv"
    path.write_text("at\n2023-12-03 12:57\n2023-12-03T13:00:05\n")
    spec = {"type": "datetime", "range": ["2023-01-01", "2023-12-31T23:59:59"]}
    frame = read_csv(path, {"at": {**spec, "format": "%Y-%m-%d %H:%M:%S"}})
    assert frame["at"].tolist() == [
        pd.Timestamp("2023-12-03 12:57"),
        pd.Timestamp("2023-12-03 13:00:05"),
    ]
