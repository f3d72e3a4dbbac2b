//! Lines over a numeric x axis, one per series, with a legend.

use plotters::coord::combinators::BindKeyPoints;
use plotters::prelude::*;

/// One line: its name (the legend), its points in x order, its colour
/// (`super::colour`'s index: the same transport, the same colour) and
/// whether it is dashed (a second figure of the same transport: its p99).
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub colour: usize,
    pub dashed: bool,
}

/// The picture's words and scales.
pub struct Axes<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    /// A logarithmic x axis (offered rates, sizes).
    pub log_x: bool,
    /// Where a log axis is labelled: the values swept (empty: plotters' choice).
    pub x_ticks: &'a [f64],
}

/// How far above the highest point the y axis goes: the top third is the
/// legend's, so that it covers no point.
const HEADROOM: f64 = 1.5;

/// The series as lines with their points marked; an empty picture says so.
pub fn lines_svg(axes: &Axes, series: &[Series]) -> String {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (super::WIDTH, super::HEIGHT)).into_drawing_area();
        let _ = draw(&root, axes, series);
        let _ = root.present();
    }
    svg
}

fn draw(root: &DrawingArea<SVGBackend, plotters::coord::Shift>, axes: &Axes, series: &[Series]) -> Result<(), String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let points: Vec<(f64, f64)> = series.iter().flat_map(|s| s.points.iter().copied()).collect();
    let Some(((x_low, x_high), (_, y_high))) = bounds(&points, axes.log_x) else {
        root.draw(&Text::new(format!("{}: nothing measured to draw", axes.title), (20, 30), ("sans-serif", 18)))
            .map_err(|e| e.to_string())?;
        return Ok(());
    };
    let mut builder = ChartBuilder::on(root);
    builder.caption(axes.title, ("sans-serif", 20)).margin(12).x_label_area_size(40).y_label_area_size(64);
    if axes.log_x {
        let ticks = axes.x_ticks.to_vec();
        let x = (x_low..x_high).log_scale().with_key_points(ticks);
        let mut chart = builder.build_cartesian_2d(x, 0.0..y_high).map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_labels(axes.x_ticks.len().max(6))
            .x_label_formatter(&|x| units::significant(*x, 2))
            .x_desc(axes.x_label)
            .y_desc(axes.y_label)
            .draw()
            .map_err(|e| e.to_string())?;
        plot(&mut chart, series)
    } else {
        let mut chart = builder.build_cartesian_2d(x_low..x_high, 0.0..y_high).map_err(|e| e.to_string())?;
        chart.configure_mesh().x_desc(axes.x_label).y_desc(axes.y_label).draw().map_err(|e| e.to_string())?;
        plot(&mut chart, series)
    }
}

fn plot<'a, X>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, plotters::coord::types::RangedCoordf64>>,
    series: &[Series],
) -> Result<(), String>
where
    X: Ranged<ValueType = f64>,
{
    for one in series {
        let colour = super::colour(one.colour);
        let style = colour.stroke_width(2);
        let drawn = match one.dashed {
            true => chart.draw_series(DashedLineSeries::new(one.points.iter().copied(), 6, 4, style)),
            false => chart.draw_series(LineSeries::new(one.points.iter().copied(), style)),
        };
        let dashed = one.dashed;
        drawn.map_err(|e| e.to_string())?.label(one.name.clone()).legend(move |(x, y)| {
            let ends = if dashed { vec![(x, y), (x + 8, y)] } else { vec![(x, y), (x + 20, y)] };
            PathElement::new(ends, style)
        });
        chart
            .draw_series(one.points.iter().map(|&(x, y)| Circle::new((x, y), 3, colour.filled())))
            .map_err(|e| e.to_string())?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(|e| e.to_string())
}

/// The x range (padded a little, or widened from one value) and the y
/// range from zero up; `None` when there is nothing to draw.
fn bounds(points: &[(f64, f64)], log_x: bool) -> Option<((f64, f64), (f64, f64))> {
    let finite: Vec<&(f64, f64)> =
        points.iter().filter(|(x, y)| x.is_finite() && y.is_finite() && (!log_x || *x > 0.0)).collect();
    let x_low = finite.iter().map(|p| p.0).reduce(f64::min)?;
    let x_high = finite.iter().map(|p| p.0).reduce(f64::max)?;
    let y_high = finite.iter().map(|p| p.1).reduce(f64::max)?;
    let (x_low, x_high) = match (log_x, x_high > x_low) {
        (true, true) => (x_low / 1.2, x_high * 1.2),
        (true, false) => (x_low / 2.0, x_high * 2.0),
        (false, true) => (x_low - (x_high - x_low) * 0.03, x_high + (x_high - x_low) * 0.03),
        (false, false) => (x_low - 1.0, x_high + 1.0),
    };
    Some(((x_low, x_high), (0.0, if y_high > 0.0 { y_high * HEADROOM } else { 1.0 })))
}
