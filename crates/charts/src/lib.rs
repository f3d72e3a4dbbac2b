//! Pictures people can share, as SVG drawn by plotters: lines over a
//! numeric axis (a run's throughput by round over time, latency by
//! percentile, latency against offered rate), a sweep's gRPC/JSON ratio at
//! each point with its 95% interval, and a heatmap of the ratio over two
//! options. The caller says what each series is; nothing here knows a target.

mod heatmap;
mod lines;
mod ratio;
mod run;

pub use heatmap::{Cell, heatmap_svg};
pub use lines::{Axes, Series, lines_svg};
pub use ratio::{RatioPoint, ratio_svg};
pub use run::{PERCENTILES, latency_svg, nines, run_svg, throughput_svg};

/// Every picture's size, in pixels (SVG user units).
pub const WIDTH: u32 = 800;
pub const HEIGHT: u32 = 480;

/// The transports' colours, the same in every picture (and colour-blind
/// safe: blue and orange), by the series' position.
pub fn colour(index: usize) -> plotters::style::RGBColor {
    const PALETTE: [(u8, u8, u8); 4] = [(0, 114, 178), (230, 159, 0), (0, 158, 115), (204, 121, 167)];
    let (r, g, b) = PALETTE[index % PALETTE.len()];
    plotters::style::RGBColor(r, g, b)
}

/// Pictures side by side in one SVG (each drawn at `WIDTH` x `HEIGHT`).
pub fn side_by_side(pictures: &[String]) -> String {
    let width = WIDTH * pictures.len().max(1) as u32;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{HEIGHT}\" viewBox=\"0 0 {width} {HEIGHT}\">\n"
    );
    for (i, picture) in pictures.iter().enumerate() {
        let inner = picture.split_once('>').map_or(picture.as_str(), |(_, rest)| rest);
        let inner = inner.trim_end().strip_suffix("</svg>").unwrap_or(inner);
        svg.push_str(&format!("<g transform=\"translate({} 0)\">{inner}</g>\n", i as u32 * WIDTH));
    }
    svg.push_str("</svg>\n");
    svg
}

/// The picture in a self-contained HTML page (no script, no link out).
pub fn html_page(title: &str, svg: &str) -> String {
    let title = escape_html(title);
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title></head>\n<body style=\"font-family: sans-serif\">\n<h1 style=\"font-size: 1.2em\">{title}</h1>\n{svg}</body></html>\n"
    )
}

/// Text as HTML shows it, never as markup (in an element or an attribute).
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn markup_in_text_is_shown_not_obeyed() {
        assert_eq!(super::escape_html(r#"<b>"a" & 'b'</b>"#), "&lt;b&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/b&gt;");
        assert!(super::html_page("x < y", "<svg/>").contains("<title>x &lt; y</title>"));
    }
}
