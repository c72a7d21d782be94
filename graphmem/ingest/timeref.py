"""Relative time phrases resolved against a memory's own time (pure, no IO).

Why: a turn that says "last week" or "3 years ago" carries no usable date by itself; the answer to
"when did ..." is that phrase read against the day it was said ("the week before 9 June 2023").
Deterministic rules (no model) find each phrase, keep its exact span of the content as evidence
(``content[start:end] == phrase``) and resolve it to an ISO 8601 date or interval plus a human
rendering. The same parser reads a query's date ("in May 2023", "last summer") against now or
``as_of``; there absolute dates count too (``absolute=True``).

A memory's time is the first of ``[time] time_fields`` in its metadata that parses (an export's
message time), else ``created_at`` (chat imports already put the message time there). Its calendar
date is taken in the timestamp's own offset (a naive timestamp is read as written).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from graphmem.config import TimeSettings

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "couple of": 2}
_FEW = ("a few", "few", "several")
_NUM = (r"\d{1,4}|a couple of|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten"
        r"|eleven|twelve")
_MONTH = "|".join(MONTHS)
_WEEKDAY = "|".join(WEEKDAYS)
_UNIT = r"day|week|weekend|month|year"

# Longest phrases first at one position; every pattern is word-bounded and case-insensitive.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, re.compile(rx, re.IGNORECASE)) for name, rx in (
    ("offset", r"\bthe day (?P<dir>before yesterday|after tomorrow)\b"),
    ("ago", rf"\b(?P<n>{_NUM}) (?P<unit>{_UNIT})s? ago\b"),
    ("day", r"\b(?P<word>yesterday|last night|today|tonight|tomorrow|this (?:morning|afternoon|evening))\b"),
    ("unit", r"\b(?P<rel>last|this|next|past) (?P<unit>week|weekend|month|year)\b"),
    ("weekday", rf"\b(?P<rel>last|this|next) (?P<wd>{_WEEKDAY})\b"),
    ("season", r"\b(?P<rel>last|this|next) (?P<season>spring|summer|autumn|fall|winter)\b"),
    ("date", rf"\b(?:(?P<d1>\d{{1,2}})(?:st|nd|rd|th)? (?P<m1>{_MONTH}),? (?P<y1>\d{{4}})"
             rf"|(?P<m2>{_MONTH}) (?P<d2>\d{{1,2}})(?:st|nd|rd|th)?,? (?P<y2>\d{{4}}))\b"),
    ("month", rf"\b(?:(?P<rel>in|last|next|this|since|early|late|mid|during) )?(?P<month>{_MONTH})"
              rf"(?:,? (?P<year>\d{{4}}))?\b"),
    ("year", r"\b(?P<rel>in|since|during) (?P<year>\d{4})\b"),
))
_ABSOLUTE = {"date", "year"}


@dataclass(frozen=True)
class TimeRef:
    """One resolved phrase: its span of the text and the inclusive date range it means."""

    phrase: str
    start: int
    end: int
    first: date
    last: date
    text: str

    @property
    def value(self) -> str:
        """ISO 8601: the date, or the interval ``first/last``."""
        return self.first.isoformat() if self.first == self.last else f"{self.first}/{self.last}"

    def to_dict(self) -> dict[str, Any]:
        return {"phrase": self.phrase, "span": [self.start, self.end], "value": self.value, "text": self.text}


def render(day: date) -> str:
    """``7 May 2023`` (the form dates take in answers)."""
    return f"{day.day} {MONTHS[day.month - 1].capitalize()} {day.year}"


def render_month(year: int, month: int) -> str:
    return f"{MONTHS[month - 1].capitalize()} {year}"


def memory_time(metadata: dict[str, Any], created_at: str, time_fields: tuple[str, ...] | list[str]) -> str:
    """The memory's time: the first metadata field of ``time_fields`` that parses, else ``created_at``."""
    for key in time_fields:
        value = metadata.get(key) if isinstance(metadata, dict) else None
        if isinstance(value, str) and parse_day(value) is not None:
            return value
    return created_at


def parse_day(stamp: str) -> date | None:
    """The calendar date of an ISO-8601 timestamp in its own offset; None when it does not parse."""
    text = stamp.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        return datetime.fromisoformat(text).date()
    except (ValueError, OverflowError):
        return None


def _month_add(year: int, month: int, delta: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + delta
    return index // 12, index % 12 + 1


def _month_range(year: int, month: int) -> tuple[date, date]:
    ny, nm = _month_add(year, month, 1)
    return date(year, month, 1), date(ny, nm, 1) - timedelta(days=1)


def _week(day: date, week_start: int) -> tuple[date, date]:
    first = day - timedelta(days=(day.weekday() - week_start) % 7)
    return first, first + timedelta(days=6)


def _last_weekend(anchor: date) -> tuple[date, date]:
    """The Saturday and Sunday most recently over before ``anchor`` (the one before, on a weekend)."""
    sunday = anchor - timedelta(days=(anchor.weekday() + 1) % 7 or 7)
    return sunday - timedelta(days=1), sunday


def _count(word: str) -> tuple[int, int]:
    """The (low, high) count a number word means: "a few" is 2-4 by rule, the rest exact."""
    key = word.lower()
    if key in _FEW:
        return 2, 4
    n = int(key) if key.isdigit() else _NUMBERS[key]
    return n, n


def _season(rules: TimeSettings, name: str, year: int) -> tuple[date, date]:
    """The season ``name`` that starts in ``year`` (a winter runs into the next year)."""
    start_month, end_month = rules.seasons["autumn" if name == "fall" else name]
    end_year = year + (1 if end_month < start_month else 0)
    return date(year, start_month, 1), _month_range(end_year, end_month)[1]


class _Resolver:
    def __init__(self, anchor: date, rules: TimeSettings):
        self.anchor = anchor
        self.rules = rules
        self.said = render(anchor)

    def resolve(self, kind: str, m: re.Match[str]) -> tuple[date, date, str] | None:
        return getattr(self, "_" + kind)(m)

    def _offset(self, m: re.Match[str]) -> tuple[date, date, str]:
        day = self.anchor + timedelta(days=-2 if m["dir"].lower().startswith("before") else 2)
        return day, day, render(day)

    def _day(self, m: re.Match[str]) -> tuple[date, date, str]:
        word = m["word"].lower()
        shift = -1 if word in ("yesterday", "last night") else 1 if word == "tomorrow" else 0
        day = self.anchor + timedelta(days=shift)
        return day, day, render(day)

    def _ago(self, m: re.Match[str]) -> tuple[date, date, str] | None:
        low, high = _count(m["n"])
        unit = m["unit"].lower()
        said = m.group(0)[: m.start("unit") - m.start()].strip()   # the number as written
        if low > 1000:
            return None
        if unit == "day":
            first, last = self.anchor - timedelta(days=high), self.anchor - timedelta(days=low)
            return first, last, render(first) if low == high else f"{said} days before {self.said}"
        if unit in ("week", "weekend"):
            if unit == "weekend":
                sat, sun = _last_weekend(self.anchor)
                first, last = sat - timedelta(weeks=high - 1), sun - timedelta(weeks=low - 1)
            else:
                first = _week(self.anchor - timedelta(weeks=high), self.rules.week_start)[0]
                last = _week(self.anchor - timedelta(weeks=low), self.rules.week_start)[1]
            return first, last, f"{said} {unit}{'s' if high > 1 else ''} before {self.said}"
        if unit == "month":
            fy, fm = _month_add(self.anchor.year, self.anchor.month, -high)
            ly, lm = _month_add(self.anchor.year, self.anchor.month, -low)
            text = render_month(fy, fm) if low == high else f"{said} months before {self.said}"
            return _month_range(fy, fm)[0], _month_range(ly, lm)[1], text
        first_year, last_year = self.anchor.year - high, self.anchor.year - low
        return (date(first_year, 1, 1), date(last_year, 12, 31),
                str(first_year) if low == high else f"{said} years before {self.said}")

    def _unit(self, m: re.Match[str]) -> tuple[date, date, str]:
        rel, unit = m["rel"].lower(), m["unit"].lower()
        step = -1 if rel in ("last", "past") else 1 if rel == "next" else 0
        where = {-1: "before", 0: "of", 1: "after"}[step]
        if unit == "week":
            first, last = _week(self.anchor + timedelta(weeks=step), self.rules.week_start)
            return first, last, f"the week {where} {self.said}"
        if unit == "weekend":
            sat, sun = _last_weekend(self.anchor)
            if step >= 0:                       # this weekend: the coming one (or the one it is)
                sat = self.anchor + timedelta(days=(5 - self.anchor.weekday()) % 7)
                if self.anchor.weekday() == 6:
                    sat = self.anchor - timedelta(days=1)
                sat, sun = sat + timedelta(weeks=step), sat + timedelta(weeks=step, days=1)
            return sat, sun, f"the weekend {where} {self.said}"
        if unit == "month":
            y, mo = _month_add(self.anchor.year, self.anchor.month, step)
            return (*_month_range(y, mo), render_month(y, mo))
        year = self.anchor.year + step
        return date(year, 1, 1), date(year, 12, 31), str(year)

    def _weekday(self, m: re.Match[str]) -> tuple[date, date, str]:
        rel, target = m["rel"].lower(), WEEKDAYS.index(m["wd"].lower())
        name = WEEKDAYS[target].capitalize()
        if rel == "last":
            day = self.anchor - timedelta(days=(self.anchor.weekday() - target) % 7 or 7)
            return day, day, f"the {name} before {self.said}"
        if rel == "next":
            day = self.anchor + timedelta(days=(target - self.anchor.weekday()) % 7 or 7)
            return day, day, f"the {name} after {self.said}"
        day = _week(self.anchor, self.rules.week_start)[0]
        day += timedelta(days=(target - day.weekday()) % 7)
        return day, day, f"{name} {render(day)}"

    def _season(self, m: re.Match[str]) -> tuple[date, date, str] | None:
        rel, name = m["rel"].lower(), m["season"].lower()
        key = "autumn" if name == "fall" else name
        if key not in self.rules.seasons:
            return None
        this = _season(self.rules, key, self.anchor.year)
        if this[0] > self.anchor and key == "winter":     # January: this winter began last December
            this = _season(self.rules, key, self.anchor.year - 1)
        year = this[0].year
        if rel == "last":
            year = year if this[1] < self.anchor else year - 1
        elif rel == "next":
            year = year if this[0] > self.anchor else year + 1
        first, last = _season(self.rules, key, year)
        return first, last, f"{name} {year}" if key != "winter" else f"winter {year}-{year + 1}"

    def _month(self, m: re.Match[str]) -> tuple[date, date, str] | None:
        word, rel = m["month"], (m["rel"] or "").lower()
        if not word[0].isupper() or (word.lower() == "may" and not rel and not m["year"]):
            return None                         # "march on", "may go": only a capitalised month that is named
        if not rel and not m["year"]:
            return None                         # a bare month name: too weak to read as a time
        month = MONTHS.index(word.lower()) + 1
        if m["year"]:
            year = int(m["year"])
        elif rel == "last":
            year = self.anchor.year - (1 if month >= self.anchor.month else 0)
        elif rel == "next":
            year = self.anchor.year + (1 if month <= self.anchor.month else 0)
        else:
            year = self.anchor.year
        return (*_month_range(year, month), render_month(year, month))

    def _date(self, m: re.Match[str]) -> tuple[date, date, str] | None:
        day, month, year = (m["d1"], m["m1"], m["y1"]) if m["d1"] else (m["d2"], m["m2"], m["y2"])
        found = date(int(year), MONTHS.index(month.lower()) + 1, int(day))
        return found, found, render(found)

    def _year(self, m: re.Match[str]) -> tuple[date, date, str]:
        year = int(m["year"])
        return date(year, 1, 1), date(year, 12, 31), str(year)


def resolve_phrases(text: str, anchor: date, rules: TimeSettings, absolute: bool = False,
                    limit: int | None = None) -> list[TimeRef]:
    """The time phrases of ``text`` read against ``anchor``, in text order, non-overlapping (the
    longest at a position wins). ``absolute``: explicit dates and years count too (a query's).
    Never raises on any text: a phrase whose date falls outside years 1-9999 is skipped."""
    if not rules.enabled:
        return []
    resolver = _Resolver(anchor, rules)
    found: list[tuple[int, int, str, re.Match[str]]] = []
    for kind, pattern in _PATTERNS:
        if kind in _ABSOLUTE and not absolute:
            continue
        found += [(m.start(), -(m.end() - m.start()), kind, m) for m in pattern.finditer(text)]
    out: list[TimeRef] = []
    taken_until = 0
    for start, _neg, kind, match in sorted(found, key=lambda f: (f[0], f[1])):
        if start < taken_until:
            continue
        if kind == "month" and not absolute and match["year"] and not match["rel"]:
            continue                            # "May 2023" in a memory is a date already, nothing to resolve
        try:
            resolved = resolver.resolve(kind, match)
        except (ValueError, OverflowError, KeyError):
            resolved = None
        if resolved is None:
            continue
        first, last, rendering = resolved
        phrase = text[match.start():match.end()]
        out.append(TimeRef(phrase, match.start(), match.end(), min(first, last), max(first, last), rendering))
        taken_until = match.end()
        if limit is not None and len(out) >= limit:
            break
    return out


def resolve_memory_times(content: str, time_stamp: str, rules: TimeSettings) -> list[dict[str, Any]]:
    """What a memory stores: each relative phrase of its content, evidence-gated (the span is in
    the text), resolved against the memory's time; none when that time does not parse."""
    anchor = parse_day(time_stamp) if time_stamp else None
    if anchor is None or rules.max_per_memory <= 0:
        return []
    refs = resolve_phrases(content, anchor, rules, limit=rules.max_per_memory)
    return [r.to_dict() for r in refs if content[r.start:r.end] == r.phrase]


def stored_range(entry: dict[str, Any]) -> tuple[date, date] | None:
    """The inclusive range of a stored resolution's ``value`` (None for a malformed one)."""
    try:
        first, _, last = str(entry.get("value", "")).partition("/")
        return date.fromisoformat(first), date.fromisoformat(last or first)
    except ValueError:
        return None
