use std::collections::BTreeMap;
use std::fmt;

/// States of a vending machine; transitions are driven by events.
#[derive(Debug, Clone, PartialEq)]
enum State {
    Idle,
    Collecting { credit: u32 },
    Dispensing { item: String, change: u32 },
    OutOfService(String),
}

#[derive(Debug, Clone)]
enum Event { Coin(u32), Select(&'static str), Cancel, Taken, Fault(&'static str), Repair }

struct Machine { state: State, stock: BTreeMap<&'static str, (u32, u32)>, bank: u32 }

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            State::Idle => write!(f, "idle"),
            State::Collecting { credit } => write!(f, "collecting (credit {}c)", credit),
            State::Dispensing { item, change } => write!(f, "dispensing {} (change {}c)", item, change),
            State::OutOfService(why) => write!(f, "OUT OF SERVICE: {}", why),
        }
    }
}

impl Machine {
    fn handle(&mut self, ev: Event) -> Result<(), String> {
        let next = match (&self.state, ev) {
            (_, Event::Fault(why)) => State::OutOfService(why.to_string()),
            (State::OutOfService(_), Event::Repair) => State::Idle,
            (State::OutOfService(why), e) => return Err(format!("ignored {:?}: machine broken ({})", e, why)),
            (State::Idle, Event::Coin(c)) | (State::Collecting { .. }, Event::Coin(c)) if ![5, 10, 25, 100].contains(&c) => {
                return Err(format!("rejected coin of {}c", c))
            }
            (State::Idle, Event::Coin(c)) => State::Collecting { credit: c },
            (State::Collecting { credit }, Event::Coin(c)) => State::Collecting { credit: credit + c },
            (State::Collecting { credit }, Event::Select(name)) => {
                let credit = *credit;
                let (price, left) = *self.stock.get(name).ok_or(format!("no such item {:?}", name))?;
                if left == 0 { return Err(format!("{} is sold out", name)); }
                if credit < price { return Err(format!("{} costs {}c, credit is {}c", name, price, credit)); }
                self.stock.insert(name, (price, left - 1));
                self.bank += price;
                State::Dispensing { item: name.to_string(), change: credit - price }
            }
            (State::Collecting { credit }, Event::Cancel) => {
                println!("    returning {}c", credit);
                State::Idle
            }
            (State::Dispensing { .. }, Event::Taken) => State::Idle,
            (s, e) => return Err(format!("event {:?} not valid while {}", e, s)),
        };
        self.state = next;
        Ok(())
    }
}

fn main() {
    let mut m = Machine {
        state: State::Idle,
        stock: BTreeMap::from([("cola", (125, 2)), ("chips", (75, 1)), ("gum", (35, 0))]),
        bank: 0,
    };
    let script = vec![
        Event::Select("cola"),
        Event::Coin(100), Event::Coin(3), Event::Coin(25), Event::Select("cola"), Event::Taken,
        Event::Coin(25), Event::Select("gum"), Event::Select("chips"), Event::Coin(100), Event::Select("chips"), Event::Taken,
        Event::Coin(10), Event::Cancel,
        Event::Coin(100), Event::Fault("coin jam"), Event::Coin(25), Event::Repair,
        Event::Coin(100), Event::Coin(25), Event::Select("cola"), Event::Taken,
    ];
    for ev in script {
        let label = format!("{:?}", ev);
        match m.handle(ev) {
            Ok(()) => println!("{:<18} -> {}", label, m.state),
            Err(e) => println!("{:<18} !! {}", label, e),
        }
    }
    println!("bank: {}c, stock: {:?}", m.bank, m.stock);
    assert_eq!(m.state, State::Idle);
}
