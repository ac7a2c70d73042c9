use std::collections::BTreeMap;

/// Sales records exported from a spreadsheet.
const DATA: &str = "region,product,units,price
north,widget,12,2.50
south,widget,7,2.50
north,gadget,3,10.00
east,gizmo,20,1.25
south,gadget,5,10.00
east,widget,9,2.50
west,gizmo,14,1.25
north,gizmo,6,1.25";

#[derive(Debug)]
struct Row<'a> {
    region: &'a str,
    product: &'a str,
    units: u32,
    price: f64,
}

fn parse(data: &str) -> Result<Vec<Row<'_>>, String> {
    let mut rows = Vec::new();
    for (i, line) in data.lines().enumerate().skip(1) {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != 4 {
            return Err(format!("line {}: expected 4 fields, got {}", i + 1, fields.len()));
        }
        let units = fields[2]
            .parse::<u32>()
            .map_err(|e| format!("line {}: bad units: {}", i + 1, e))?;
        let price = fields[3]
            .parse::<f64>()
            .map_err(|e| format!("line {}: bad price: {}", i + 1, e))?;
        rows.push(Row { region: fields[0], product: fields[1], units, price });
    }
    Ok(rows)
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

fn std_dev(xs: &[f64]) -> f64 {
    let m = mean(xs);
    let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() as f64 - 1.0);
    var.sqrt()
}

fn main() {
    let rows = match parse(DATA) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("parse error: {}", e);
            return;
        }
    };
    println!("parsed {} rows", rows.len());

    let mut by_region: BTreeMap<&str, f64> = BTreeMap::new();
    let mut by_product: BTreeMap<&str, u32> = BTreeMap::new();
    for r in &rows {
        *by_region.entry(r.region).or_insert(0.0) += r.units as f64 * r.price;
        *by_product.entry(r.product).or_insert(0) += r.units;
    }

    println!("\n{:<8} {:>10}", "region", "revenue");
    for (region, rev) in &by_region {
        println!("{:<8} {:>10.2}", region, rev);
    }
    println!("\n{:<8} {:>6}", "product", "units");
    for (product, units) in &by_product {
        println!("{:<8} {:>6}", product, units);
    }

    let units: Vec<f64> = rows.iter().map(|r| r.units as f64).collect();
    let mut sorted = units.clone();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let median = if sorted.len() % 2 == 0 {
        (sorted[sorted.len() / 2 - 1] + sorted[sorted.len() / 2]) / 2.0
    } else {
        sorted[sorted.len() / 2]
    };
    println!("\nunits: mean={:.2} median={:.1} sd={:.3}", mean(&units), median, std_dev(&units));
    let best = rows
        .iter()
        .max_by(|a, b| (a.units as f64 * a.price).partial_cmp(&(b.units as f64 * b.price)).unwrap())
        .unwrap();
    println!("largest sale: {:?}", best);
}
