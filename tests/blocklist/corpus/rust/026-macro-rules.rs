use std::collections::HashMap;

/// Builds a HashMap from `key => value` pairs, like `vec!` does for vectors.
macro_rules! hashmap {
    () => { HashMap::new() };
    ($($k:expr => $v:expr),+ $(,)?) => {{
        let mut m = HashMap::new();
        $( m.insert($k, $v); )+
        m
    }};
}

/// Counts its arguments at compile time with a recursive macro.
macro_rules! count {
    () => { 0usize };
    ($head:tt $($tail:tt)*) => { 1usize + count!($($tail)*) };
}

/// Generates a plain enum together with `ALL`, `name()` and `FromStr`.
macro_rules! string_enum {
    ($name:ident { $($variant:ident = $text:literal),* $(,)? }) => {
        #[derive(Debug, Clone, Copy, PartialEq)]
        enum $name { $($variant),* }
        impl $name {
            const ALL: [$name; count!($($variant)*)] = [$($name::$variant),*];
            fn name(self) -> &'static str { match self { $($name::$variant => $text),* } }
        }
        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s { $($text => Ok($name::$variant),)* _ => Err(format!("unknown {}: {:?}", stringify!($name), s)) }
            }
        }
    };
}

string_enum!(Color { Red = "red", Green = "green", Blue = "blue" });
string_enum!(Method { Get = "GET", Post = "POST", Delete = "DELETE" });

/// A tiny assertion macro that reports the expression text on failure.
macro_rules! check {
    ($cond:expr) => {
        if $cond { println!("  ✓ {}", stringify!($cond)); } else { println!("  ✗ {}", stringify!($cond)); }
    };
    ($left:expr, $right:expr) => {
        check!($left == $right)
    };
}

/// Generates getter/setter pairs.
macro_rules! accessors {
    ($ty:ty { $($field:ident : $fty:ty),* }) => {
        impl $ty {
            $(
                fn $field(&self) -> &$fty { &self.$field }
            )*
        }
    };
}

struct User { name: String, age: u32 }
accessors!(User { name: String, age: u32 });

/// Repetition with separators: max of any number of expressions.
macro_rules! max_of {
    ($x:expr) => { $x };
    ($x:expr, $($rest:expr),+) => {{ let a = $x; let b = max_of!($($rest),+); if a > b { a } else { b } }};
}

fn main() {
    let ports: HashMap<&str, u16> = hashmap! { "http" => 80, "https" => 443, "ssh" => 22, };
    let empty: HashMap<String, i32> = hashmap!();
    let mut keys: Vec<_> = ports.keys().collect();
    keys.sort();
    println!("ports: {:?} (empty map has {} entries)", keys, empty.len());
    println!("count!(a b c d) = {}", count!(a b c d));
    for c in Color::ALL {
        println!("color {:?} is written {:?}", c, c.name());
    }
    let verbs: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
    println!("methods: {}", verbs.join("|"));
    println!("{:?}", "POST".parse::<Method>());
    println!("{:?}", "PATCH".parse::<Method>());
    let u = User { name: "Ada".into(), age: 36 };
    println!("user {} is {}", u.name(), u.age());
    println!("max_of = {}", max_of!(3, 17, 4, 9 * 2, 11));
    println!("checks:");
    check!(count!() == 0);
    check!(max_of!(1.5, -2.0), 1.5);
    check!(Method::ALL.len(), 3);
    check!("green".parse::<Color>() == Ok(Color::Green));
}
