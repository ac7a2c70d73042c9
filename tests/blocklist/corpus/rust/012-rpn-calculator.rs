use std::collections::HashMap;
use std::fmt;

#[derive(Debug, PartialEq)]
enum CalcError {
    StackUnderflow(String),
    DivisionByZero,
    UnknownToken(String),
    LeftoverValues(usize),
}

impl fmt::Display for CalcError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            CalcError::StackUnderflow(op) => write!(f, "not enough operands for '{}'", op),
            CalcError::DivisionByZero => write!(f, "division by zero"),
            CalcError::UnknownToken(t) => write!(f, "unknown token {:?}", t),
            CalcError::LeftoverValues(n) => write!(f, "{} values left on the stack", n),
        }
    }
}

impl std::error::Error for CalcError {}

/// Evaluates a reverse-Polish expression. Variables are looked up in `vars`.
fn eval(expr: &str, vars: &HashMap<&str, f64>) -> Result<f64, CalcError> {
    let mut stack: Vec<f64> = Vec::new();
    for tok in expr.split_whitespace() {
        let binary = |stack: &mut Vec<f64>| -> Result<(f64, f64), CalcError> {
            let b = stack.pop().ok_or_else(|| CalcError::StackUnderflow(tok.into()))?;
            let a = stack.pop().ok_or_else(|| CalcError::StackUnderflow(tok.into()))?;
            Ok((a, b))
        };
        match tok {
            "+" => { let (a, b) = binary(&mut stack)?; stack.push(a + b) }
            "-" => { let (a, b) = binary(&mut stack)?; stack.push(a - b) }
            "*" => { let (a, b) = binary(&mut stack)?; stack.push(a * b) }
            "^" => { let (a, b) = binary(&mut stack)?; stack.push(a.powf(b)) }
            "/" => {
                let (a, b) = binary(&mut stack)?;
                if b == 0.0 {
                    return Err(CalcError::DivisionByZero);
                }
                stack.push(a / b)
            }
            "sqrt" => {
                let a = stack.pop().ok_or_else(|| CalcError::StackUnderflow(tok.into()))?;
                stack.push(a.sqrt())
            }
            "dup" => {
                let a = *stack.last().ok_or_else(|| CalcError::StackUnderflow(tok.into()))?;
                stack.push(a)
            }
            _ => {
                let v = tok
                    .parse::<f64>()
                    .ok()
                    .or_else(|| vars.get(tok).copied())
                    .ok_or_else(|| CalcError::UnknownToken(tok.to_string()))?;
                stack.push(v)
            }
        }
    }
    match stack.len() {
        1 => Ok(stack[0]),
        0 => Err(CalcError::StackUnderflow("<end>".into())),
        n => Err(CalcError::LeftoverValues(n)),
    }
}

fn main() {
    let vars: HashMap<&str, f64> = [("pi", std::f64::consts::PI), ("e", std::f64::consts::E), ("r", 2.5)]
        .into_iter()
        .collect();
    let cases = [
        "3 4 + 2 *",
        "5 1 2 + 4 * + 3 -",
        "pi r dup * *",
        "2 0.5 ^ sqrt",
        "1 0 /",
        "1 +",
        "1 2 3",
        "2 x *",
        "e 1 -",
    ];
    for c in cases {
        match eval(c, &vars) {
            Ok(v) => println!("{:<22} = {:.6}", c, v),
            Err(e) => println!("{:<22} ! error: {}", c, e),
        }
    }
    assert_eq!(eval("1 0 /", &vars), Err(CalcError::DivisionByZero));
    let boxed: Box<dyn std::error::Error> = Box::new(CalcError::LeftoverValues(2));
    println!("as trait object: {}", boxed);
}
