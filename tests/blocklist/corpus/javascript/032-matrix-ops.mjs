// Matrix class with multiplication, transpose, determinant, inverse (Gauss-Jordan) and solving.
class Matrix {
  constructor(rows) {
    this.rows = rows.map((r) => [...r]);
    this.n = rows.length;
    this.m = rows[0].length;
  }
  static identity(n) {
    return new Matrix(Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => +(i === j))));
  }
  mul(other) {
    if (this.m !== other.n) throw new Error(`shape mismatch ${this.n}x${this.m} * ${other.n}x${other.m}`);
    return new Matrix(this.rows.map((row) => other.rows[0].map((_, j) => row.reduce((s, v, k) => s + v * other.rows[k][j], 0))));
  }
  transpose() {
    return new Matrix(this.rows[0].map((_, j) => this.rows.map((r) => r[j])));
  }
  det() {
    if (this.n !== this.m) throw new Error('determinant needs a square matrix');
    if (this.n === 1) return this.rows[0][0];
    if (this.n === 2) return this.rows[0][0] * this.rows[1][1] - this.rows[0][1] * this.rows[1][0];
    return this.rows[0].reduce((sum, v, j) => {
      const minor = new Matrix(this.rows.slice(1).map((r) => r.filter((_, c) => c !== j)));
      return sum + (j % 2 ? -1 : 1) * v * minor.det();
    }, 0);
  }
  inverse() {
    const n = this.n;
    const a = this.rows.map((r, i) => [...r, ...Matrix.identity(n).rows[i]]);
    for (let col = 0; col < n; col++) {
      let pivot = col;
      for (let r = col + 1; r < n; r++) if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) pivot = r;
      if (Math.abs(a[pivot][col]) < 1e-12) throw new Error('matrix is singular');
      [a[col], a[pivot]] = [a[pivot], a[col]];
      const p = a[col][col];
      for (let j = 0; j < 2 * n; j++) a[col][j] /= p;
      for (let r = 0; r < n; r++) {
        if (r === col) continue;
        const f = a[r][col];
        for (let j = 0; j < 2 * n; j++) a[r][j] -= f * a[col][j];
      }
    }
    return new Matrix(a.map((r) => r.slice(n)));
  }
  toString(digits = 3) {
    return this.rows.map((r) => r.map((v) => (Math.abs(v) < 1e-10 ? 0 : v).toFixed(digits).padStart(digits + 5)).join('')).join('\n');
  }
}

const A = new Matrix([[2, 1, -1], [-3, -1, 2], [-2, 1, 2]]);
const b = new Matrix([[8], [-11], [-3]]);
console.log('A =\n' + A);
console.log('det(A) =', A.det());
const inv = A.inverse();
console.log('A^-1 =\n' + inv);
console.log('A * A^-1 =\n' + A.mul(inv).toString(1));
console.log('solution x of Ax = b:', A.inverse().mul(b).rows.map((r) => +r[0].toFixed(6)).join(', '));
console.log('A^T =\n' + A.transpose().toString(0));
for (const bad of [() => new Matrix([[1, 2], [2, 4]]).inverse(), () => A.mul(new Matrix([[1, 2]]))]) {
  try { bad(); } catch (e) { console.log('error:', e.message); }
}
