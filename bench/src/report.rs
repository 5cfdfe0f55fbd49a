//! The results: one row per benchmark, printed as a table and written as `table2.json` in the
//! issue's schema.

use serde_json::{json, Map, Value as Json};

use crate::peers::PeerTimes;

/// Which engine ran zy's side of a row.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RowEngine {
    /// Machine code from the Cranelift JIT.
    Jit,
    /// The reference interpreter, because the JIT could not compile the benchmark.
    Interp,
}

/// zy's figures of one benchmark (nanoseconds).
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct ZyTimes {
    /// Which engine ran zy's primal and gradient.
    pub engine: RowEngine,
    /// zy's primal, one run through the native entry point.
    pub forward_ns: f64,
    /// zy's gradient driver (forward and pullback), one run through the native entry point.
    pub grad_ns: f64,
    /// A call of a no-op with the same arguments on interpreter values: what converting
    /// arguments and results costs on top of a native run (not in the two figures above).
    pub boundary_ns: f64,
}

/// The figures of one benchmark (times in nanoseconds).
#[derive(Clone, PartialEq, Debug)]
pub struct Row {
    /// The benchmark's key in the table's JSON.
    pub key: &'static str,
    /// zy's times, or `None` when zy cannot run the benchmark (the note says why).
    pub zy: Option<ZyTimes>,
    /// The hand-written forward function.
    pub hand_forward_ns: f64,
    /// The hand-written gradient.
    pub hand_grad_ns: f64,
    /// JAX, if measured.
    pub jax: Option<PeerTimes>,
    /// PyTorch, if measured.
    pub torch: Option<PeerTimes>,
    /// From source text to the first gradient, cold (milliseconds), if it could be measured.
    pub first_gradient_ms: Option<f64>,
    /// From the gradient lens's command to its result over the LSP, if measured.
    pub lens: Option<LensTimes>,
    /// What the reader must know about the row.
    pub note: Option<String>,
}

/// The gradient lens of a fresh `zy-lsp` (medians over fresh servers, milliseconds).
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct LensTimes {
    /// From sending `zy.computeGradient` to its result, wall clock.
    pub result_ms: f64,
    /// The run inside the server, as it reports it (`micros`).
    pub server_ms: f64,
}

impl Row {
    /// zy's gradient time over its forward time.
    pub fn ratio(&self) -> Option<f64> {
        self.zy.map(|z| z.grad_ns / z.forward_ns)
    }

    /// zy's gradient time over the hand-written gradient's.
    pub fn vs_hand(&self) -> Option<f64> {
        self.zy.map(|z| z.grad_ns / self.hand_grad_ns)
    }
}

/// The table's JSON: one object per benchmark (`note` only where there is one), then `extra`'s
/// entries (Table 2's `pow_tape_bytes_per_iter`).
pub fn to_json(rows: &[Row], extra: &[(&str, Json)]) -> Json {
    let mut out = Map::new();
    for r in rows {
        let mut row = json!({
            "forward_ns": r.zy.map(|z| round(z.forward_ns, 1)),
            "zy_grad_ns": r.zy.map(|z| round(z.grad_ns, 1)),
            "hand_grad_ns": round(r.hand_grad_ns, 1),
            "jax_grad_ns": r.jax.map(|t| round(t.grad_ns, 1)),
            "torch_grad_ns": r.torch.map(|t| round(t.grad_ns, 1)),
            "first_gradient_ms": r.first_gradient_ms.map(|t| round(t, 3)),
            "lens_gradient_ms": r.lens.map(|t| round(t.result_ms, 3)),
        });
        if let (Some(note), Json::Object(fields)) = (&r.note, &mut row) {
            fields.insert("note".into(), json!(note));
        }
        out.insert(r.key.to_string(), row);
    }
    for (key, value) in extra {
        out.insert(key.to_string(), value.clone());
    }
    Json::Object(out)
}

fn round(x: f64, digits: i32) -> f64 {
    let k = 10f64.powi(digits);
    (x * k).round() / k
}

/// A duration in nanoseconds, in the unit that keeps 3 significant digits readable.
pub fn human(ns: f64) -> String {
    if !ns.is_finite() {
        "-".into()
    } else if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

fn opt(t: Option<f64>) -> String {
    t.map_or_else(|| "n/a".into(), human)
}

fn two_decimals(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".into(), |x| format!("{x:.2}"))
}

fn ms(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".into(), |ms| format!("{ms:.1} ms"))
}

/// The main table: the issue's columns, ratios with two decimals.
pub fn table(rows: &[Row]) -> String {
    let header = [
        "benchmark",
        "engine",
        "forward",
        "zy grad",
        "grad/fwd",
        "hand grad",
        "zy/hand",
        "JAX grad",
        "PyTorch grad",
        "1st grad",
        "lens → result",
    ];
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.key.to_string(),
                match r.zy.map(|z| z.engine) {
                    Some(RowEngine::Jit) => "jit".into(),
                    Some(RowEngine::Interp) => "interp".into(),
                    None => "n/a".into(),
                },
                opt(r.zy.map(|z| z.forward_ns)),
                opt(r.zy.map(|z| z.grad_ns)),
                two_decimals(r.ratio()),
                human(r.hand_grad_ns),
                two_decimals(r.vs_hand()),
                opt(r.jax.map(|t| t.grad_ns)),
                opt(r.torch.map(|t| t.grad_ns)),
                ms(r.first_gradient_ms),
                ms(r.lens.map(|t| t.result_ms)),
            ]
        })
        .collect();
    render(&header, &body)
}

/// The figures behind the main table: the cost of a call on values (not in zy's times), each
/// system's own gradient/forward ratio (what the chart shows), and the part of the lens's time
/// spent in the server's run.
pub fn details(rows: &[Row]) -> String {
    let header = [
        "benchmark",
        "boundary",
        "hand fwd",
        "hand grad/fwd",
        "JAX fwd",
        "JAX grad/fwd",
        "PyTorch fwd",
        "PyTorch grad/fwd",
        "lens: server run",
    ];
    let ratio = |t: Option<PeerTimes>| {
        t.map_or_else(
            || "n/a".into(),
            |t| format!("{:.2}", t.grad_ns / t.forward_ns),
        )
    };
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.key.to_string(),
                opt(r.zy.map(|z| z.boundary_ns)),
                human(r.hand_forward_ns),
                format!("{:.2}", r.hand_grad_ns / r.hand_forward_ns),
                opt(r.jax.map(|t| t.forward_ns)),
                ratio(r.jax),
                opt(r.torch.map(|t| t.forward_ns)),
                ratio(r.torch),
                ms(r.lens.map(|t| t.server_ms)),
            ]
        })
        .collect();
    render(&header, &body)
}

/// A Markdown table with padded columns (readable as text and as Markdown).
fn render(header: &[&str], body: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in body {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        format!("| {} |\n", padded.join(" | "))
    };
    let mut out = line(header.iter().map(|h| h.to_string()).collect());
    out += &line(widths.iter().map(|w| "-".repeat(*w)).collect());
    for row in body {
        out += &line(row.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> Row {
        Row {
            key: "sincos",
            zy: Some(ZyTimes {
                engine: RowEngine::Jit,
                forward_ns: 20.0,
                grad_ns: 25.0,
                boundary_ns: 100.0,
            }),
            hand_forward_ns: 10.0,
            hand_grad_ns: 20.0,
            jax: Some(PeerTimes {
                forward_ns: 4000.0,
                grad_ns: 6000.0,
            }),
            torch: None,
            first_gradient_ms: Some(12.3456),
            lens: Some(LensTimes {
                result_ms: 20.5,
                server_ms: 15.25,
            }),
            note: None,
        }
    }

    /// A row zy cannot run: its columns are null, the rest is kept.
    fn without_zy() -> Row {
        Row {
            key: "gp_cholesky",
            zy: None,
            first_gradient_ms: None,
            lens: None,
            note: Some("no cholesky".into()),
            ..row()
        }
    }

    #[test]
    fn json_follows_the_issue_schema() {
        let j = to_json(&[row()], &[("pow_tape_bytes_per_iter", json!(16))]);
        assert_eq!(
            j.to_string(),
            r#"{"pow_tape_bytes_per_iter":16,"sincos":{"first_gradient_ms":12.346,"forward_ns":20.0,"hand_grad_ns":20.0,"jax_grad_ns":6000.0,"lens_gradient_ms":20.5,"torch_grad_ns":null,"zy_grad_ns":25.0}}"#
        );
        assert_eq!(
            to_json(&[without_zy()], &[]).to_string(),
            r#"{"gp_cholesky":{"first_gradient_ms":null,"forward_ns":null,"hand_grad_ns":20.0,"jax_grad_ns":6000.0,"lens_gradient_ms":null,"note":"no cholesky","torch_grad_ns":null,"zy_grad_ns":null}}"#
        );
    }

    #[test]
    fn table_has_ratios_with_two_decimals() {
        expect_test::expect![[r#"
            | benchmark   | engine | forward | zy grad | grad/fwd | hand grad | zy/hand | JAX grad | PyTorch grad | 1st grad | lens → result |
            | ----------- | ------ | ------- | ------- | -------- | --------- | ------- | -------- | ------------ | -------- | ------------- |
            | sincos      | jit    | 20.0 ns | 25.0 ns | 1.25     | 20.0 ns   | 1.25    | 6.00 µs  | n/a          | 12.3 ms  | 20.5 ms       |
            | gp_cholesky | n/a    | n/a     | n/a     | n/a      | 20.0 ns   | n/a     | 6.00 µs  | n/a          | n/a      | n/a           |
        "#]]
        .assert_eq(&table(&[row(), without_zy()]));
    }
}
