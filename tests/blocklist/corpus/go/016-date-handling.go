package main

import (
	"fmt"
	"time"
	_ "time/tzdata" // embed the zone database; slim images may not ship it
)

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		// Minimal images sometimes lack tzdata; fall back to a fixed offset.
		fmt.Printf("(no tzdata for %s, using fixed zone)\n", name)
		return time.FixedZone(name, 0)
	}
	return loc
}

// businessDaysBetween counts weekdays in [from, to).
func businessDaysBetween(from, to time.Time) int {
	n := 0
	for d := from; d.Before(to); d = d.AddDate(0, 0, 1) {
		if wd := d.Weekday(); wd != time.Saturday && wd != time.Sunday {
			n++
		}
	}
	return n
}

func age(birth, now time.Time) int {
	years := now.Year() - birth.Year()
	if now.YearDay() < birth.YearDay() {
		years--
	}
	return years
}

func main() {
	ref := time.Date(2024, time.February, 28, 17, 45, 0, 0, time.UTC)
	fmt.Println("reference:", ref.Format(time.RFC1123))
	fmt.Println("plus one day:", ref.AddDate(0, 0, 1).Format("Mon 2006-01-02"), "(leap year)")
	fmt.Println("plus 90 min:", ref.Add(90*time.Minute).Format(time.Kitchen))
	fmt.Println("ISO week:")
	y, w := ref.ISOWeek()
	fmt.Printf("  %d-W%02d\n", y, w)

	layouts := []string{"2006-01-02", "02/01/2006", "Jan 2, 2006 at 3:04pm (MST)", time.RFC3339}
	inputs := []string{"2023-12-25", "31/01/2024", "Mar 5, 2024 at 9:30am (UTC)", "2024-06-01T08:00:00+02:00", "not a date"}
	for _, in := range inputs {
		parsed := false
		for _, l := range layouts {
			if t, err := time.Parse(l, in); err == nil {
				fmt.Printf("%-30q -> %s\n", in, t.UTC().Format(time.RFC3339))
				parsed = true
				break
			}
		}
		if !parsed {
			fmt.Printf("%-30q -> unparseable\n", in)
		}
	}

	for _, zone := range []string{"Europe/Amsterdam", "America/New_York", "Asia/Tokyo"} {
		fmt.Printf("%-18s %s\n", zone, ref.In(mustLoad(zone)).Format("2006-01-02 15:04 MST"))
	}

	start := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	end := time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC)
	fmt.Printf("business days in March 2024: %d\n", businessDaysBetween(start, end))
	fmt.Printf("age on %s of someone born 1990-07-15: %d\n", ref.Format("2006-01-02"),
		age(time.Date(1990, 7, 15, 0, 0, 0, 0, time.UTC), ref))

	d := end.Sub(start)
	fmt.Printf("March is %v long (%.0f hours)\n", d, d.Hours())
	deadline := ref.Add(36 * time.Hour).Truncate(time.Hour)
	fmt.Println("deadline rounded down:", deadline.Format(time.RFC3339))

	elapsed := time.Now()
	time.Sleep(20 * time.Millisecond)
	fmt.Println("slept at least 20ms:", time.Since(elapsed) >= 20*time.Millisecond)
}
