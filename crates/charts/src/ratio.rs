//! A sweep over one option: each point's ratio (above 1.0x gRPC ahead),
//! with its 95% interval as a bar, a hollow point marked `?` where the
//! interval is too wide to read, and the line of no difference (1.0x). The
//! legend sits in headroom above the points, so it covers none.

use plotters::prelude::*;

/// One point of the sweep: its value of the option, and the ratio there.
pub struct RatioPoint {
    pub label: String,
    /// gRPC / HTTP/JSON (`None`: not measured at this point).
    pub ratio: Option<f64>,
    /// The 95% interval, when there is one narrow enough to read.
    pub interval: Option<(f64, f64)>,
    /// There is an interval, but too wide to read: drawn hollow, marked `?`.
    pub too_wide: bool,
}

/// How far above the highest point the y axis goes: the top third is the legend's.
const HEADROOM: f64 = 1.5;

/// The points in order along the x axis (one slot each, labelled by value).
pub fn ratio_svg(title: &str, option: &str, what: &str, points: &[RatioPoint]) -> String {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (super::WIDTH, super::HEIGHT)).into_drawing_area();
        let _ = draw(&root, title, option, what, points);
        let _ = root.present();
    }
    svg
}

fn draw(
    root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    title: &str,
    option: &str,
    what: &str,
    points: &[RatioPoint],
) -> Result<(), String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let highs = points.iter().filter_map(|p| p.interval.map(|i| i.1).or(p.ratio));
    let y_high = highs.fold(1.0f64, f64::max) * HEADROOM;
    let slots = points.len().max(1) as f64;
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(-0.5..slots - 0.5, 0.0..y_high)
        .map_err(|e| e.to_string())?;
    let label_of = |x: &f64| {
        let slot = x.round();
        let near = (x - slot).abs() < 1e-6 && slot >= 0.0;
        points.get(slot as usize).filter(|_| near).map_or(String::new(), |p| p.label.clone())
    };
    chart
        .configure_mesh()
        .x_labels(points.len().max(1))
        .x_label_formatter(&label_of)
        .disable_x_mesh()
        .x_desc(option)
        .y_desc(what)
        .draw()
        .map_err(|e| e.to_string())?;
    let even = chart.draw_series(LineSeries::new([(-0.5, 1.0), (slots - 0.5, 1.0)], BLACK.mix(0.5).stroke_width(1)));
    even.map_err(|e| e.to_string())?
        .label("no difference (1.0x)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.5).stroke_width(1)));
    let measured: Vec<(f64, f64)> = points.iter().enumerate().filter_map(|(i, p)| Some((i as f64, p.ratio?))).collect();
    let colour = super::colour(0);
    chart
        .draw_series(LineSeries::new(measured.iter().copied(), colour.stroke_width(2)))
        .map_err(|e| e.to_string())?
        .label(format!("{what}; bars: 95% interval"))
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
    let readable =
        points.iter().enumerate().filter(|(_, p)| !p.too_wide).filter_map(|(i, p)| Some((i as f64, p.ratio?)));
    chart.draw_series(readable.map(|(x, y)| Circle::new((x, y), 4, colour.filled()))).map_err(|e| e.to_string())?;
    let wide: Vec<(f64, f64)> =
        points.iter().enumerate().filter(|(_, p)| p.too_wide).filter_map(|(i, p)| Some((i as f64, p.ratio?))).collect();
    if !wide.is_empty() {
        chart
            .draw_series(wide.iter().map(|&(x, y)| Circle::new((x, y), 5, colour.stroke_width(2))))
            .map_err(|e| e.to_string())?
            .label("hollow, ?: 95% interval too wide to read")
            .legend(move |(x, y)| Circle::new((x + 10, y), 6, colour.stroke_width(2)));
        let mark = |(x, y): (f64, f64)| Text::new("?", (x + 0.08, y), ("sans-serif", 16).into_font());
        chart.draw_series(wide.iter().copied().map(mark)).map_err(|e| e.to_string())?;
    }
    let bars = points.iter().enumerate().filter_map(|(i, p)| {
        let (low, high) = p.interval?;
        Some(PathElement::new(vec![(i as f64, low), (i as f64, high)], colour.stroke_width(2)))
    });
    chart.draw_series(bars).map_err(|e| e.to_string())?;
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(|e| e.to_string())
}
