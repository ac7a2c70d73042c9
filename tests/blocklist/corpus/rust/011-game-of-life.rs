use std::collections::HashSet;
use std::fmt;

/// Conway's Game of Life on a small torus.
#[derive(Clone, PartialEq, Eq)]
struct Board {
    w: usize,
    h: usize,
    cells: Vec<bool>,
}

impl Board {
    fn from_pattern(w: usize, h: usize, pattern: &str, ox: usize, oy: usize) -> Board {
        let mut cells = vec![false; w * h];
        for (y, line) in pattern.lines().enumerate() {
            for (x, c) in line.chars().enumerate() {
                if c == '#' {
                    cells[(oy + y) % h * w + (ox + x) % w] = true;
                }
            }
        }
        Board { w, h, cells }
    }

    fn alive(&self, x: isize, y: isize) -> bool {
        let xx = x.rem_euclid(self.w as isize) as usize;
        let yy = y.rem_euclid(self.h as isize) as usize;
        self.cells[yy * self.w + xx]
    }

    fn step(&self) -> Board {
        let mut next = vec![false; self.w * self.h];
        for y in 0..self.h as isize {
            for x in 0..self.w as isize {
                let n = (-1..=1)
                    .flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
                    .filter(|&(dx, dy)| (dx, dy) != (0, 0) && self.alive(x + dx, y + dy))
                    .count();
                let here = self.alive(x, y);
                next[y as usize * self.w + x as usize] = matches!((here, n), (true, 2) | (_, 3));
            }
        }
        Board { w: self.w, h: self.h, cells: next }
    }

    fn population(&self) -> usize {
        self.cells.iter().filter(|&&c| c).count()
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in self.cells.chunks(self.w) {
            let line: String = row.iter().map(|&c| if c { '█' } else { '·' }).collect();
            writeln!(f, "{}", line)?;
        }
        Ok(())
    }
}

fn main() {
    let glider = ".#.\n..#\n###";
    let blinker = "###";
    let mut board = Board::from_pattern(12, 8, glider, 1, 1);
    let other = Board::from_pattern(12, 8, blinker, 7, 5);
    for (c, o) in board.cells.iter_mut().zip(other.cells.iter()) {
        *c |= *o;
    }
    println!("generation 0 (population {}):\n{}", board.population(), board);

    let mut seen: HashSet<Vec<bool>> = HashSet::new();
    for gen in 1..=40 {
        board = board.step();
        if gen % 10 == 0 {
            println!("generation {} (population {}):\n{}", gen, board.population(), board);
        }
        if !seen.insert(board.cells.clone()) {
            println!("state repeated at generation {}", gen);
            break;
        }
    }
    let still = Board::from_pattern(6, 6, "##\n##", 2, 2);
    assert!(still.step() == still, "a block is a still life");
    println!("still-life check ok");
}
