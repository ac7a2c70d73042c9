from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

HOLIDAYS = {
    date(2024, 1, 1), date(2024, 3, 29), date(2024, 4, 1), date(2024, 5, 27),
    date(2024, 8, 26), date(2024, 12, 25), date(2024, 12, 26),
}


def is_business_day(d):
    return d.weekday() < 5 and d not in HOLIDAYS


def add_business_days(start, n):
    d = start
    while n > 0:
        d += timedelta(days=1)
        if is_business_day(d):
            n -= 1
    return d


def business_days_between(a, b):
    step = 1 if b >= a else -1
    count, d = 0, a
    while d != b:
        d += timedelta(days=step)
        if is_business_day(d):
            count += step
    return count


def main():
    invoice = date(2024, 3, 27)
    due = add_business_days(invoice, 10)
    print(f"invoice {invoice:%a %d %b %Y}, due in 10 business days: {due:%a %d %b %Y}")
    print("business days in December:",
          sum(is_business_day(date(2024, 12, d)) for d in range(1, 32)))
    print("between Jan 1 and Jun 30:", business_days_between(date(2024, 1, 1), date(2024, 6, 30)))

    meeting = datetime(2024, 10, 27, 9, 30, tzinfo=ZoneInfo("Europe/London"))
    for tz in ["America/New_York", "Asia/Tokyo", "Australia/Sydney", "UTC"]:
        local = meeting.astimezone(ZoneInfo(tz))
        print(f"  {tz:<18} {local:%Y-%m-%d %H:%M %Z} (UTC{local:%z})")

    # The clocks went back on 27 Oct 2024 in London, so this "day" lasts 25 hours.
    start = datetime(2024, 10, 27, 0, 0, tzinfo=ZoneInfo("Europe/London"))
    end = datetime(2024, 10, 28, 0, 0, tzinfo=ZoneInfo("Europe/London"))
    hours = (end.astimezone(timezone.utc) - start.astimezone(timezone.utc)) / timedelta(hours=1)
    print(f"length of 2024-10-27 in London: {hours:.0f} hours")
    assert hours == 25

    iso = "2024-02-29T23:59:59+05:30"
    parsed = datetime.fromisoformat(iso)
    print("parsed", iso, "->", parsed.astimezone(timezone.utc).isoformat())
    print("next leap-day anniversary:", next(
        date(y, 2, 29) for y in range(2025, 2040) if (y % 4 == 0 and y % 100) or y % 400 == 0))


if __name__ == "__main__":
    main()
