use std::fmt;

#[derive(Debug, Clone, PartialEq)]
enum TxError {
    Insufficient { needed: u64, available: u64 },
    Frozen(String),
    LimitExceeded(u64),
}

impl fmt::Display for TxError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            TxError::Insufficient { needed, available } => write!(f, "need {} cents, only {} available", needed, available),
            TxError::Frozen(who) => write!(f, "account of {} is frozen", who),
            TxError::LimitExceeded(limit) => write!(f, "daily limit of {} cents exceeded", limit),
        }
    }
}

/// Shared behaviour of all account kinds.
trait Account {
    fn owner(&self) -> &str;
    fn balance(&self) -> u64;
    fn deposit(&mut self, cents: u64);
    fn withdraw(&mut self, cents: u64) -> Result<(), TxError>;
    fn month_end(&mut self) {}
}

struct Base { owner: String, cents: u64, frozen: bool, history: Vec<i64> }

impl Base {
    fn new(owner: &str, cents: u64) -> Base { Base { owner: owner.into(), cents, frozen: false, history: vec![cents as i64] } }
    fn take(&mut self, cents: u64, overdraft: u64) -> Result<(), TxError> {
        if self.frozen { return Err(TxError::Frozen(self.owner.clone())); }
        if cents > self.cents + overdraft {
            return Err(TxError::Insufficient { needed: cents, available: self.cents + overdraft });
        }
        self.cents = self.cents.wrapping_sub(cents);
        self.history.push(-(cents as i64));
        Ok(())
    }
}

struct Checking { base: Base, withdrawn_today: u64, daily_limit: u64 }
struct Savings { base: Base, rate_bp: u64 }

impl Account for Checking {
    fn owner(&self) -> &str { &self.base.owner }
    fn balance(&self) -> u64 { self.base.cents }
    fn deposit(&mut self, cents: u64) { self.base.cents += cents; self.base.history.push(cents as i64); }
    fn withdraw(&mut self, cents: u64) -> Result<(), TxError> {
        if self.withdrawn_today + cents > self.daily_limit { return Err(TxError::LimitExceeded(self.daily_limit)); }
        self.base.take(cents, 0)?;
        self.withdrawn_today += cents;
        Ok(())
    }
    fn month_end(&mut self) { self.withdrawn_today = 0; }
}

impl Account for Savings {
    fn owner(&self) -> &str { &self.base.owner }
    fn balance(&self) -> u64 { self.base.cents }
    fn deposit(&mut self, cents: u64) { self.base.cents += cents; self.base.history.push(cents as i64); }
    fn withdraw(&mut self, cents: u64) -> Result<(), TxError> { self.base.take(cents, 0) }
    /// Interest in basis points per month, rounded down.
    fn month_end(&mut self) { let i = self.base.cents * self.rate_bp / 10_000; self.deposit(i); }
}

fn transfer(from: &mut dyn Account, to: &mut dyn Account, cents: u64) -> Result<(), TxError> {
    from.withdraw(cents)?;
    to.deposit(cents);
    Ok(())
}

fn money(c: u64) -> String { format!("${}.{:02}", c / 100, c % 100) }

fn main() {
    let mut alice = Checking { base: Base::new("Alice", 50_000), withdrawn_today: 0, daily_limit: 30_000 };
    let mut bob = Savings { base: Base::new("Bob", 120_000), rate_bp: 25 };
    let mut carol = Savings { base: Base::new("Carol", 1_000), rate_bp: 25 };
    carol.base.frozen = true;

    let steps: Vec<(&str, Result<(), TxError>)> = vec![
        ("alice -> bob 200.00", transfer(&mut alice, &mut bob, 20_000)),
        ("alice -> bob 150.00", transfer(&mut alice, &mut bob, 15_000)),
        ("bob -> alice 1500.00", transfer(&mut bob, &mut alice, 150_000)),
        ("carol -> alice 5.00", transfer(&mut carol, &mut alice, 500)),
        ("bob -> carol 10.00", transfer(&mut bob, &mut carol, 1_000)),
    ];
    for (what, res) in &steps {
        match res {
            Ok(()) => println!("ok      {}", what),
            Err(e) => println!("failed  {}: {}", what, e),
        }
    }
    let mut accounts: Vec<&mut dyn Account> = vec![&mut alice, &mut bob, &mut carol];
    for a in accounts.iter_mut() {
        a.month_end();
        println!("{:<6} {:>12}", a.owner(), money(a.balance()));
    }
    let total: u64 = accounts.iter().map(|a| a.balance()).sum();
    println!("total under management: {}", money(total));
    println!("bob's history: {:?}", bob.base.history);
}
