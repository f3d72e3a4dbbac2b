//! A sweep over two options: one cell per point, its colour the ratio
//! (blue: gRPC ahead, orange: HTTP/JSON ahead, white: even), its text the
//! ratio, marked `?` when the interval is too wide to read or crosses 1x;
//! a key under the grid says so.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One point: its place in the grid and its ratio.
pub struct Cell {
    pub column: usize,
    pub row: usize,
    pub ratio: Option<f64>,
    /// The interval excludes 1.0 and is narrow enough to read.
    pub significant: bool,
}

pub fn heatmap_svg(
    title: &str,
    (x_option, columns): (&str, &[String]),
    (y_option, rows): (&str, &[String]),
    cells: &[Cell],
) -> String {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (super::WIDTH, super::HEIGHT)).into_drawing_area();
        let _ = draw(&root, title, (x_option, columns), (y_option, rows), cells);
        let _ = root.present();
    }
    svg
}

fn draw(
    root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    title: &str,
    (x_option, columns): (&str, &[String]),
    (y_option, rows): (&str, &[String]),
    cells: &[Cell],
) -> Result<(), String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let (root, key_area) = root.split_vertically(super::HEIGHT - KEY_HEIGHT);
    key(&key_area)?;
    let (width, height) = (columns.len().max(1) as f64, rows.len().max(1) as f64);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..width, 0.0..height)
        .map_err(|e| e.to_string())?;
    let name = |names: &[String], at: f64| {
        let slot = at - 0.5;
        let near = (slot - slot.round()).abs() < 1e-6 && slot >= 0.0;
        names.get(slot.round() as usize).filter(|_| near).cloned().unwrap_or_default()
    };
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(columns.len() * 2 + 1)
        .y_labels(rows.len() * 2 + 1)
        .x_label_formatter(&|x| name(columns, *x))
        .y_label_formatter(&|y| name(rows, *y))
        .x_desc(x_option)
        .y_desc(y_option)
        .draw()
        .map_err(|e| e.to_string())?;
    for cell in cells {
        let (x, y) = (cell.column as f64, cell.row as f64);
        let fill = cell.ratio.map_or(RGBColor(230, 230, 230), shade);
        chart.draw_series([Rectangle::new([(x, y), (x + 1.0, y + 1.0)], fill.filled())]).map_err(|e| e.to_string())?;
        chart
            .draw_series([Rectangle::new([(x, y), (x + 1.0, y + 1.0)], WHITE.stroke_width(2))])
            .map_err(|e| e.to_string())?;
        let said = match (cell.ratio, cell.significant) {
            (Some(ratio), true) => format!("{ratio:.2}x"),
            (Some(ratio), false) => format!("{ratio:.2}x ?"),
            (None, _) => "not measured".into(),
        };
        let style = TextStyle::from(("sans-serif", 18).into_font()).pos(Pos::new(HPos::Center, VPos::Center));
        chart.draw_series([Text::new(said, (x + 0.5, y + 0.5), style)]).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The key's height under the grid, in pixels.
const KEY_HEIGHT: u32 = 30;

/// What the colours and marks mean: a swatch for each way, and `?`.
fn key(area: &DrawingArea<SVGBackend, plotters::coord::Shift>) -> Result<(), String> {
    let entries = [
        (shade(0.5), "http-json ahead (full at 0.5x)"),
        (shade(1.0), "even (1x)"),
        (shade(2.0), "grpc ahead (full at 2x)"),
    ];
    let mut x = 16;
    for (colour, said) in entries {
        area.draw(&Rectangle::new([(x, 6), (x + 16, 22)], colour.filled())).map_err(|e| e.to_string())?;
        area.draw(&Rectangle::new([(x, 6), (x + 16, 22)], BLACK.stroke_width(1))).map_err(|e| e.to_string())?;
        area.draw(&Text::new(said, (x + 22, 8), ("sans-serif", 13))).map_err(|e| e.to_string())?;
        x += 24 + 6 * said.len() as i32;
    }
    area.draw(&Text::new("?: not significant, or too wide to read", (x, 8), ("sans-serif", 13)))
        .map_err(|e| e.to_string())
}

/// White at 1.0x, deepening to blue as gRPC gets ahead (full at 2x) and to
/// orange as HTTP/JSON does (full at 0.5x).
fn shade(ratio: f64) -> RGBColor {
    let strength = ratio.max(1e-9).log2().clamp(-1.0, 1.0);
    let (target, amount) = if strength >= 0.0 { ((86, 180, 233), strength) } else { ((230, 159, 0), -strength) };
    let mix = |white: u8, to: u8| (white as f64 + (to as f64 - white as f64) * amount).round() as u8;
    RGBColor(mix(255, target.0), mix(255, target.1), mix(255, target.2))
}
