use std::fmt::Write as _;

/// Renders rows as a box-drawn table, padding by character count so that
/// accented names line up.
struct Table<'a> {
    headers: Vec<&'a str>,
    rows: Vec<Vec<String>>,
    align_right: Vec<bool>,
}

impl<'a> Table<'a> {
    fn new(headers: &[&'a str]) -> Self {
        Table { headers: headers.to_vec(), rows: vec![], align_right: vec![false; headers.len()] }
    }
    fn right(mut self, col: usize) -> Self {
        self.align_right[col] = true;
        self
    }
    fn row<I: IntoIterator<Item = String>>(&mut self, cells: I) {
        self.rows.push(cells.into_iter().collect());
    }
    fn render(&self) -> String {
        let widths: Vec<usize> = (0..self.headers.len())
            .map(|i| {
                self.rows.iter().map(|r| r[i].chars().count()).chain(std::iter::once(self.headers[i].chars().count())).max().unwrap()
            })
            .collect();
        let line = |l: char, m: char, r: char| -> String {
            let mut s = String::new();
            s.push(l);
            for (i, w) in widths.iter().enumerate() {
                s.push_str(&"─".repeat(w + 2));
                s.push(if i + 1 == widths.len() { r } else { m });
            }
            s
        };
        let fmt_row = |cells: &[String]| -> String {
            let mut s = String::from("│");
            for (i, c) in cells.iter().enumerate() {
                let pad = widths[i] - c.chars().count();
                if self.align_right[i] {
                    let _ = write!(s, " {}{} │", " ".repeat(pad), c);
                } else {
                    let _ = write!(s, " {}{} │", c, " ".repeat(pad));
                }
            }
            s
        };
        let mut out = vec![line('┌', '┬', '┐')];
        out.push(fmt_row(&self.headers.iter().map(|h| h.to_string()).collect::<Vec<_>>()));
        out.push(line('├', '┼', '┤'));
        out.extend(self.rows.iter().map(|r| fmt_row(r)));
        out.push(line('└', '┴', '┘'));
        out.join("\n")
    }
}

fn human_bytes(n: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut i = 0;
    while v >= 1024.0 && i < units.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 { format!("{} {}", n, units[0]) } else { format!("{:.1} {}", v, units[i]) }
}

fn main() {
    let cities = [
        ("Zürich", 421_878, 87.88, 1_395_864_371u64),
        ("São Paulo", 12_325_232, 1521.11, 93_000),
        ("Kraków", 779_115, 326.85, 5_368_709_120),
        ("Reykjavík", 131_136, 273.0, 512),
    ];
    let mut t = Table::new(&["City", "Population", "Area km²", "Density", "Backup size"]).right(1).right(2).right(3).right(4);
    for (name, pop, area, bytes) in cities {
        t.row([
            name.to_string(),
            format!("{}", pop).as_bytes().rchunks(3).rev().map(|c| std::str::from_utf8(c).unwrap()).collect::<Vec<_>>().join(","),
            format!("{:.2}", area),
            format!("{:.1}", pop as f64 / area),
            human_bytes(bytes),
        ]);
    }
    println!("{}", t.render());
    println!("{:>10}|{:<10}|{:^10}|", "right", "left", "center");
    println!("{:+08.3}|{:#x}|{:#b}|{:e}", 3.14159, 255, 5, 1234.5);
    println!("{0} {1} {0} {name}", "a", "b", name = "named");
    let width = 12;
    println!("[{:>width$}] [{:<w2$.p$}]", "dynamic", 2.0f64.sqrt(), width = width, w2 = 10, p = 4);
}
