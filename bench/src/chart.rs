//! `table2.png` and `workloads.png`: each system's gradient/forward ratio per benchmark, as
//! grouped bars. Drawn with
//! plotters' bitmap backend and an embedded DejaVu Sans, so no system font is needed.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{register_font, FontStyle};

use crate::report::Row;

type Ratio = fn(&Row) -> Option<f64>;

/// The bottom of the logarithmic axis (ratios below 1 happen: a peer's forward call can cost
/// more than its gradient call).
const FLOOR: f64 = 0.25;

/// The systems drawn, in bar order: name, colour, ratio.
const SERIES: [(&str, RGBColor, Ratio); 4] = [
    ("zy (Cranelift JIT)", RGBColor(0x1f, 0x77, 0xb4), Row::ratio),
    ("hand-written Rust", RGBColor(0x7f, 0x7f, 0x7f), |r| {
        Some(r.hand_grad_ns / r.hand_forward_ns)
    }),
    ("JAX jit(grad)", RGBColor(0x2c, 0xa0, 0x2c), |r| {
        r.jax.map(|t| t.grad_ns / t.forward_ns)
    }),
    ("PyTorch eager", RGBColor(0xd6, 0x27, 0x28), |r| {
        r.torch.map(|t| t.grad_ns / t.forward_ns)
    }),
];

/// Draw the chart of `rows` to `path` (PNG).
pub fn draw(rows: &[Row], path: &Path) -> Result<(), String> {
    register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| "cannot load the embedded font".to_string())?;
    let fail = |e: &dyn std::fmt::Display| format!("drawing {}: {e}", path.display());
    let root = BitMapBackend::new(path, (1100, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let n = rows.len();
    let top = rows
        .iter()
        .flat_map(|r| SERIES.iter().filter_map(|(_, _, f)| f(r)))
        .filter(|x| x.is_finite())
        .fold(2.0f64, f64::max)
        * 2.5;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Gradient time / forward time, each system against its own forward",
            ("sans-serif", 24),
        )
        .margin(20)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..n as f64, (FLOOR..top).log_scale())
        .map_err(|e| fail(&e))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .max_light_lines(0)
        .x_labels(0)
        .y_desc("gradient / forward (log scale)")
        .y_label_formatter(&|y| format!("{y}"))
        .label_style(("sans-serif", 16))
        .draw()
        .map_err(|e| fail(&e))?;
    let width = 0.8 / SERIES.len() as f64;
    for (k, (name, colour, ratio)) in SERIES.iter().enumerate() {
        let bars: Vec<(f64, f64)> = rows
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                ratio(r)
                    .filter(|x| x.is_finite())
                    .map(|x| (i as f64 + 0.1 + k as f64 * width, x))
            })
            .collect();
        if bars.is_empty() {
            continue;
        }
        let colour = *colour;
        chart
            .draw_series(
                bars.iter().map(|&(x, y)| {
                    Rectangle::new([(x, FLOOR), (x + width * 0.9, y)], colour.filled())
                }),
            )
            .map_err(|e| fail(&e))?
            .label(*name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 12, y + 6)], colour.filled()));
        let above = ("sans-serif", 13)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Bottom));
        chart
            .draw_series(
                bars.iter().map(|&(x, y)| {
                    Text::new(format!("{y:.2}"), (x + width * 0.45, y), above.clone())
                }),
            )
            .map_err(|e| fail(&e))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font(("sans-serif", 16))
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(|e| fail(&e))?;
    let below = ("sans-serif", 18)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    for (i, r) in rows.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(i as f64 + 0.5, FLOOR));
        let label = if r.zy.map(|z| z.engine) == Some(crate::report::RowEngine::Interp) {
            format!("{} (interp)", r.key)
        } else {
            r.key.into()
        };
        root.draw(&Text::new(label, (x, y + 8), below.clone()))
            .map_err(|e| fail(&e))?;
    }
    root.present().map_err(|e| fail(&e))
}
