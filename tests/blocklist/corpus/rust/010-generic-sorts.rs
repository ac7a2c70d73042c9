use std::fmt::Debug;

/// Insertion sort that uses unchecked indexing in the hot loop. The indices
/// are always in bounds because `j` starts at `i < len` and only decreases.
fn insertion_sort<T: PartialOrd + Copy>(v: &mut [T]) {
    for i in 1..v.len() {
        let key = v[i];
        let mut j = i;
        // SAFETY: 0 < j <= i < v.len(), so j and j - 1 are valid indices.
        unsafe {
            while j > 0 && *v.get_unchecked(j - 1) > key {
                *v.get_unchecked_mut(j) = *v.get_unchecked(j - 1);
                j -= 1;
            }
            *v.get_unchecked_mut(j) = key;
        }
    }
}

fn merge_sort<T: Ord + Clone>(v: &[T]) -> Vec<T> {
    if v.len() <= 1 {
        return v.to_vec();
    }
    let (l, r) = v.split_at(v.len() / 2);
    let (l, r) = (merge_sort(l), merge_sort(r));
    let mut out = Vec::with_capacity(v.len());
    let (mut i, mut j) = (0, 0);
    while i < l.len() && j < r.len() {
        if l[i] <= r[j] { out.push(l[i].clone()); i += 1; } else { out.push(r[j].clone()); j += 1; }
    }
    out.extend_from_slice(&l[i..]);
    out.extend_from_slice(&r[j..]);
    out
}

fn quick_sort<T: Ord>(v: &mut [T]) {
    if v.len() <= 1 {
        return;
    }
    let pivot = v.len() - 1;
    let mut store = 0;
    for i in 0..pivot {
        if v[i] <= v[pivot] {
            v.swap(i, store);
            store += 1;
        }
    }
    v.swap(store, pivot);
    let (left, right) = v.split_at_mut(store);
    quick_sort(left);
    quick_sort(&mut right[1..]);
}

fn is_sorted<T: PartialOrd>(v: &[T]) -> bool {
    v.windows(2).all(|w| w[0] <= w[1])
}

fn show<T: Debug>(label: &str, v: &[T]) {
    println!("{:<10} {:?}", label, v);
}

/// Tiny deterministic pseudo-random generator (xorshift).
fn xorshift(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

fn main() {
    let mut floats = [3.5, -1.0, 2.25, 0.0, 9.75, -4.5];
    insertion_sort(&mut floats);
    show("insertion", &floats);

    let words = ["pear", "apple", "fig", "banana", "cherry", "date"];
    show("merge", &merge_sort(&words));

    let mut seed = 0x2545F4914F6CDD1D;
    let mut nums: Vec<u32> = (0..20).map(|_| (xorshift(&mut seed) % 100) as u32).collect();
    show("random", &nums);
    quick_sort(&mut nums);
    show("quick", &nums);

    let mut big: Vec<u64> = (0..5000).map(|_| xorshift(&mut seed) % 1_000_000).collect();
    let mut expected = big.clone();
    expected.sort_unstable();
    quick_sort(&mut big);
    assert_eq!(big, expected);
    let merged = merge_sort(&expected);
    assert!(is_sorted(&merged));
    println!("5000-element checks passed, min={} max={}", big[0], big[big.len() - 1]);
}
