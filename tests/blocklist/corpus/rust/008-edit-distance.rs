/// Classic dynamic programming: Levenshtein distance with the edit script,
/// plus longest common subsequence, used for a tiny "did you mean" helper.
fn levenshtein(a: &str, b: &str) -> (usize, Vec<String>) {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let (n, m) = (a.len(), b.len());
    let mut dp = vec![vec![0usize; m + 1]; n + 1];
    for i in 0..=n { dp[i][0] = i; }
    for j in 0..=m { dp[0][j] = j; }
    for i in 1..=n {
        for j in 1..=m {
            let cost = if a[i - 1] == b[j - 1] { 0 } else { 1 };
            dp[i][j] = (dp[i - 1][j] + 1).min(dp[i][j - 1] + 1).min(dp[i - 1][j - 1] + cost);
        }
    }
    // Walk back to recover the operations.
    let (mut i, mut j) = (n, m);
    let mut ops = Vec::new();
    while i > 0 || j > 0 {
        if i > 0 && j > 0 && a[i - 1] == b[j - 1] && dp[i][j] == dp[i - 1][j - 1] {
            i -= 1; j -= 1;
        } else if i > 0 && j > 0 && dp[i][j] == dp[i - 1][j - 1] + 1 {
            ops.push(format!("replace '{}' with '{}' at {}", a[i - 1], b[j - 1], i - 1));
            i -= 1; j -= 1;
        } else if i > 0 && dp[i][j] == dp[i - 1][j] + 1 {
            ops.push(format!("delete '{}' at {}", a[i - 1], i - 1));
            i -= 1;
        } else {
            ops.push(format!("insert '{}' at {}", b[j - 1], i));
            j -= 1;
        }
    }
    ops.reverse();
    (dp[n][m], ops)
}

fn lcs(a: &str, b: &str) -> String {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut dp = vec![vec![0u16; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            dp[i][j] = if a[i] == b[j] { dp[i + 1][j + 1] + 1 } else { dp[i + 1][j].max(dp[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() && j < b.len() {
        if a[i] == b[j] { out.push(a[i]); i += 1; j += 1; }
        else if dp[i + 1][j] >= dp[i][j + 1] { i += 1; } else { j += 1; }
    }
    out
}

fn main() {
    for (a, b) in [("kitten", "sitting"), ("flaw", "lawn"), ("naïve", "naive"), ("", "abc")] {
        let (d, ops) = levenshtein(a, b);
        println!("{:?} -> {:?}: distance {}", a, b, d);
        for op in ops {
            println!("    {}", op);
        }
    }
    println!("lcs(AGGTAB, GXTXAYB) = {}", lcs("AGGTAB", "GXTXAYB"));

    let commands = ["status", "commit", "checkout", "branch", "rebase", "stash"];
    for typo in ["comit", "chekout", "stats", "xyzzy"] {
        let best = commands.iter().map(|c| (levenshtein(typo, c).0, *c)).min().unwrap();
        if best.0 <= 2 {
            println!("unknown command '{}'; did you mean '{}'?", typo, best.1);
        } else {
            println!("unknown command '{}'", typo);
        }
    }
}
