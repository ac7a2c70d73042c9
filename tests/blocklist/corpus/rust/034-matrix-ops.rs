use std::fmt;
use std::ops::{Add, Index, IndexMut, Mul};

/// A fixed-size matrix using const generics, so dimension mismatches are
/// compile-time errors.
#[derive(Clone, Copy, PartialEq, Debug)]
struct Matrix<const R: usize, const C: usize> { data: [[f64; C]; R] }

impl<const R: usize, const C: usize> Matrix<R, C> {
    fn zero() -> Self { Matrix { data: [[0.0; C]; R] } }
    fn from(data: [[f64; C]; R]) -> Self { Matrix { data } }
    fn transpose(&self) -> Matrix<C, R> {
        let mut t = Matrix::<C, R>::zero();
        for i in 0..R { for j in 0..C { t[(j, i)] = self[(i, j)]; } }
        t
    }
}

impl<const N: usize> Matrix<N, N> {
    fn identity() -> Self {
        let mut m = Self::zero();
        for i in 0..N { m[(i, i)] = 1.0; }
        m
    }
    /// Determinant by Gaussian elimination with partial pivoting.
    fn det(&self) -> f64 {
        let mut a = self.data;
        let mut det = 1.0;
        for col in 0..N {
            let pivot = (col..N).max_by(|&x, &y| a[x][col].abs().partial_cmp(&a[y][col].abs()).unwrap()).unwrap();
            if a[pivot][col].abs() < 1e-12 { return 0.0; }
            if pivot != col { a.swap(pivot, col); det = -det; }
            det *= a[col][col];
            for row in col + 1..N {
                let factor = a[row][col] / a[col][col];
                for k in col..N { a[row][k] -= factor * a[col][k]; }
            }
        }
        det
    }
    fn pow(self, mut e: u32) -> Self {
        let (mut base, mut acc) = (self, Self::identity());
        while e > 0 {
            if e & 1 == 1 { acc = acc * base; }
            base = base * base;
            e >>= 1;
        }
        acc
    }
}

impl<const R: usize, const C: usize> Index<(usize, usize)> for Matrix<R, C> {
    type Output = f64;
    fn index(&self, (i, j): (usize, usize)) -> &f64 { &self.data[i][j] }
}
impl<const R: usize, const C: usize> IndexMut<(usize, usize)> for Matrix<R, C> {
    fn index_mut(&mut self, (i, j): (usize, usize)) -> &mut f64 { &mut self.data[i][j] }
}

impl<const R: usize, const C: usize> Add for Matrix<R, C> {
    type Output = Self;
    fn add(mut self, o: Self) -> Self {
        for i in 0..R { for j in 0..C { self[(i, j)] += o[(i, j)]; } }
        self
    }
}

impl<const R: usize, const K: usize, const C: usize> Mul<Matrix<K, C>> for Matrix<R, K> {
    type Output = Matrix<R, C>;
    fn mul(self, o: Matrix<K, C>) -> Matrix<R, C> {
        let mut out = Matrix::<R, C>::zero();
        for i in 0..R { for j in 0..C { out[(i, j)] = (0..K).map(|k| self[(i, k)] * o[(k, j)]).sum(); } }
        out
    }
}

impl<const R: usize, const C: usize> fmt::Display for Matrix<R, C> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for row in &self.data {
            writeln!(f, "[{}]", row.iter().map(|v| format!("{:>8.2}", v)).collect::<Vec<_>>().join(" "))?;
        }
        Ok(())
    }
}

fn main() {
    let a = Matrix::from([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    let b = Matrix::from([[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]);
    println!("A (2x3) * B (3x2) =\n{}", a * b);
    println!("transpose(A) =\n{}", a.transpose());
    println!("A + A =\n{}", a + a);
    let m = Matrix::from([[2.0, -3.0, 1.0], [2.0, 0.0, -1.0], [1.0, 4.0, 5.0]]);
    println!("det(M) = {:.3}", m.det());
    let fib = Matrix::from([[1.0, 1.0], [1.0, 0.0]]);
    println!("fib^30 top-right = {} (the 30th Fibonacci number)", fib.pow(30)[(0, 1)]);
    /* Quick sanity checks /* rotation by 90 degrees, four times */ and det(I) == 1. */
    let rot = Matrix::from([[0.0, -1.0], [1.0, 0.0]]);
    assert_eq!(rot.pow(4), Matrix::identity());
    assert!((Matrix::<4, 4>::identity().det() - 1.0).abs() < 1e-12);
    println!("rotation^4 == identity: ok");
}
