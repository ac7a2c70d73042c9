use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A civil date without any external crate, using Howard Hinnant's algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Date { y: i64, m: u32, d: u32 }

const WEEKDAYS: [&str; 7] = ["Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"];
const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

fn is_leap(y: i64) -> bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

fn days_in_month(y: i64, m: u32) -> u32 {
    match m { 2 if is_leap(y) => 29, 2 => 28, 4 | 6 | 9 | 11 => 30, _ => 31 }
}

impl Date {
    fn parse(s: &str) -> Result<Date, String> {
        let parts: Vec<&str> = s.split('-').collect();
        if parts.len() != 3 { return Err(format!("{:?}: expected YYYY-MM-DD", s)); }
        let y: i64 = parts[0].parse().map_err(|_| format!("{:?}: bad year", s))?;
        let m: u32 = parts[1].parse().map_err(|_| format!("{:?}: bad month", s))?;
        let d: u32 = parts[2].parse().map_err(|_| format!("{:?}: bad day", s))?;
        if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
            return Err(format!("{:?}: no such date", s));
        }
        Ok(Date { y, m, d })
    }

    /// Days since 1970-01-01.
    fn to_days(self) -> i64 {
        let y = if self.m <= 2 { self.y - 1 } else { self.y };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (self.m as i64 + 9) % 12;
        let doy = (153 * mp + 2) / 5 + self.d as i64 - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146097 + doe - 719468
    }

    fn from_days(z: i64) -> Date {
        let z = z + 719468;
        let era = z.div_euclid(146097);
        let doe = z - era * 146097;
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        Date { y: yoe + era * 400 + (m <= 2) as i64, m, d }
    }

    fn weekday(self) -> &'static str { WEEKDAYS[self.to_days().rem_euclid(7) as usize] }
    fn add_days(self, n: i64) -> Date { Date::from_days(self.to_days() + n) }
}

impl std::fmt::Display for Date {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{:04}-{:02}-{:02} ({} {} {})", self.y, self.m, self.d, self.weekday(), self.d, MONTHS[self.m as usize - 1])
    }
}

fn main() {
    for s in ["2000-02-29", "1969-07-20", "2024-12-31", "2023-02-29", "2024-13-01", "hello"] {
        match Date::parse(s) {
            Ok(d) => println!("{} -> day #{}", d, d.to_days()),
            Err(e) => println!("invalid: {}", e),
        }
    }
    let a = Date::parse("2024-01-15").unwrap();
    let b = Date::parse("2025-03-01").unwrap();
    println!("{} days between {} and {}", b.to_days() - a.to_days(), a, b);
    println!("100 days after {} is {}", a, a.add_days(100));
    for n in (-1_000_000..1_000_000).step_by(7919) {
        assert_eq!(Date::from_days(n).to_days(), n);
    }
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
    let today = Date::from_days(now.as_secs() as i64 / 86_400);
    let secs = now.as_secs() % 86_400;
    println!("now (UTC): {} {:02}:{:02}:{:02}", today, secs / 3600, secs / 60 % 60, secs % 60);
    let leaps = (1900..=2100).filter(|&y| is_leap(y)).count();
    println!("leap years 1900..=2100: {}", leaps);
}
