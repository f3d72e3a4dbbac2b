//! `--chart`: the pictures the tool writes, rendered to PNG by an
//! independent renderer (rsvg-convert, librsvg; ./scripts/test installs
//! it) and read back: every swept value is on its axis, every point has its
//! cell, each cell says the ratio the report says, and bad paths are refused.

mod common;
use common::{paired_geomean, run};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn folder() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// Renders `svg` with rsvg-convert; returns the PNG's width and height.
fn rendered(svg: &Path) -> (u32, u32) {
    let png = svg.with_extension("png");
    let output =
        std::process::Command::new("rsvg-convert").arg(svg).arg("-o").arg(&png).output().expect("rsvg-convert runs");
    assert!(output.status.success(), "rsvg-convert: {}", String::from_utf8_lossy(&output.stderr));
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    // The IHDR chunk: width and height, big-endian, at bytes 16..24.
    let number = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (number(16), number(20))
}

/// The texts of the SVG's <text> elements.
fn texts(svg: &str) -> Vec<String> {
    let inner = |t: &str| Some(t.split_once('>')?.1.split_once("</text>")?.0.trim().to_string());
    svg.split("<text").skip(1).filter_map(inner).filter(|t| !t.is_empty()).collect()
}

fn json_run(args: &[&str]) -> Value {
    let output = run(args, &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn a_run_draws_its_rounds_and_its_latency_per_transport() {
    let dir = folder();
    let chart: PathBuf = dir.path().join("run.svg");
    let chart_arg = chart.to_str().unwrap();
    json_run(&["run", "--size", "256KiB", "--iterations", "3", "--format", "json", "--chart", chart_arg]);
    // Two pictures side by side, each 800 x 480.
    assert_eq!(rendered(&chart), (1600, 480));
    let said = texts(&std::fs::read_to_string(&chart).unwrap());
    for legend in ["http-json upload", "grpc upload"] {
        assert_eq!(said.iter().filter(|t| *t == legend).count(), 2, "{legend} in both pictures: {said:?}");
    }
    assert!(said.iter().any(|t| t == "MiB/s") && said.iter().any(|t| t == "ms"), "{said:?}");
}

/// The y axis's labels: each value and its pixel row.
fn y_labels(svg: &str) -> Vec<(f64, f64)> {
    svg.split("<text")
        .skip(1)
        .filter(|t| t.contains("text-anchor=\"end\""))
        .filter_map(|t| Some((t.split_once('>')?.1.split('<').next()?.trim().parse::<f64>().ok()?, attribute(t, "y")?)))
        .collect()
}

/// The JSON report of `run ARGS --chart DIR/FILE` and the picture's SVG.
fn charted(args: &[&str], file: &str) -> (Value, String) {
    let dir = folder();
    let chart = dir.path().join(file);
    let report = json_run(&[args, &["--chart", chart.to_str().unwrap()]].concat());
    (report, std::fs::read_to_string(&chart).unwrap())
}

/// A picture's y axis read back from its labels: two of them give the
/// value at any pixel row (the axis is linear).
fn linear_y(svg: &str) -> impl Fn(f64) -> f64 {
    let labels = y_labels(svg);
    assert!(labels.len() >= 2, "two y labels to read the axis by: {labels:?}");
    let ((v0, y0), (v1, y1)) = (labels[0], labels[labels.len() - 1]);
    move |y: f64| v0 + (y - y0) * (v1 - v0) / (y1 - y0)
}

#[test]
fn a_run_draws_each_rounds_rate_where_its_report_puts_it() {
    let (report, svg) = charted(&["run", "--size", "256KiB", "--iterations", "3", "--format", "json"], "run.svg");
    // The left picture: each round's rate.
    let rates = &svg[..svg.find("translate(800 0)").expect("two pictures")];
    let value_at = linear_y(rates);
    let mut drawn: Vec<(f64, f64)> = rates
        .split("<circle")
        .skip(1)
        .filter(|c| attribute(c, "r") == Some(3.0))
        .filter_map(|c| Some((attribute(c, "cx")?, value_at(attribute(c, "cy")?))))
        .collect();
    // Each round's start and MiB/s, from its bytes and time in the report.
    let mut expected: Vec<(f64, f64)> = report["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let rate = r["bytes"].as_f64().unwrap() / (1 << 20) as f64 / r["elapsed_s"].as_f64().unwrap();
            (r["start_s"].as_f64().unwrap(), rate)
        })
        .collect();
    assert_eq!(expected.len(), 6, "3 rounds of each transport");
    assert_eq!(drawn.len(), expected.len(), "a point per round: {drawn:?}");
    // Left to right is the order the rounds ran in (the x axis is their start).
    drawn.sort_by(|a, b| a.0.total_cmp(&b.0));
    expected.sort_by(|a, b| a.0.total_cmp(&b.0));
    // To two pixels: the axis is at most 1.5x the fastest round over about 370.
    let fastest = expected.iter().map(|e| e.1).fold(0.0, f64::max);
    let pixel = fastest * 1.5 / 370.0;
    for ((_, drawn), (_, expected)) in drawn.iter().zip(&expected) {
        assert!((drawn - expected).abs() < 2.0 * pixel, "drawn at {drawn}, its round ran at {expected}");
    }
}

#[test]
fn a_grid_sweep_draws_a_heatmap_with_a_cell_per_point() {
    let dir = folder();
    let chart = dir.path().join("sweep.html");
    let (sizes, concurrencies) = (["64KiB", "256KiB"], ["1", "2"]);
    let report = json_run(&[
        "run",
        "--iterations",
        "3",
        "--format",
        "json",
        "--sweep",
        "size=64KiB,256KiB",
        "--sweep",
        "concurrency=1,2",
        "--chart",
        chart.to_str().unwrap(),
    ]);
    let page = std::fs::read_to_string(&chart).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && !page.contains("<script"), "a self-contained page");
    let svg = &page[page.find("<svg").unwrap()..page.rfind("</svg>").unwrap() + 6];
    let svg_file = dir.path().join("sweep.svg");
    std::fs::write(&svg_file, svg).unwrap();
    assert_eq!(rendered(&svg_file), (800, 480), "one operation: one heatmap");
    let said = texts(svg);
    for value in sizes.iter().chain(&concurrencies) {
        assert!(said.iter().any(|t| t == value), "the axis shows {value}: {said:?}");
    }
    // Each point's cell says the ratio its report gives, to two places.
    let points = report["points"].as_array().unwrap();
    assert_eq!(points.len(), sizes.len() * concurrencies.len());
    let cells: Vec<&String> =
        said.iter().filter(|t| t.contains('x') && t.starts_with(|c: char| c.is_ascii_digit())).collect();
    assert_eq!(cells.len(), points.len(), "{said:?}");
    // Each point's ratio in exactly one cell: the cells' ratios are the points'.
    let mut expected: Vec<String> =
        points.iter().map(|p| format!("{:.2}x", paired_geomean(&p["report"]["rounds"]))).collect();
    let mut drawn: Vec<String> = cells.iter().map(|c| c.split_whitespace().next().unwrap().to_string()).collect();
    expected.sort();
    drawn.sort();
    assert_eq!(drawn, expected);
}

#[test]
fn a_rate_sweep_draws_latency_against_the_offered_rate() {
    let dir = folder();
    let chart = dir.path().join("rates.svg");
    json_run(&[
        "run",
        "--size",
        "4KiB",
        "--concurrency",
        "50",
        "--iterations",
        "3",
        "--format",
        "json",
        "--sweep",
        "rate=100,400",
        "--chart",
        chart.to_str().unwrap(),
    ]);
    let said = texts(&std::fs::read_to_string(&chart).unwrap());
    for line in ["http-json upload p50", "http-json upload p99", "grpc upload p50", "grpc upload p99"] {
        assert!(said.iter().any(|t| t == line), "{line}: {said:?}");
    }
    // The ratio picture by rate, and latency against rate: two pictures.
    assert_eq!(rendered(&chart), (1600, 480));
}

#[test]
fn a_chart_path_that_cannot_be_written_is_refused_before_the_run() {
    for (path, said) in [
        ("picture.png", "error: --chart picture.png: give a file ending .svg or .html"),
        ("/no/such/folder/run.svg", "error: --chart: cannot write /no/such/folder/run.svg: "),
    ] {
        let output = run(&["run", "--size", "64KiB", "--chart", path], &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.starts_with(said) && stderr.lines().count() == 1, "{stderr}");
        assert!(output.stdout.is_empty());
    }
}

/// An SVG element's attribute, as a number.
fn attribute(element: &str, name: &str) -> Option<f64> {
    let start = element.find(&format!(" {name}=\""))? + name.len() + 3;
    element[start..].split('"').next()?.parse().ok()
}

/// Where the picture puts values on its y axis: the 1.0x line's pixel row
/// gives 1.0, and a y label's offset from it (the same for every label) the
/// scale, so a point's row reads back as the value plotted there.
fn y_scale(svg: &str) -> impl Fn(f64) -> f64 {
    let one_line = svg.split("<polyline").skip(1).find(|e| e.contains("opacity=\"0.5\"")).expect("the 1.0x line");
    let points = one_line.split("points=\"").nth(1).unwrap();
    let y_one: f64 = points.split([',', ' ']).nth(1).unwrap().parse().unwrap();
    let labels = y_labels(svg);
    let at_one = labels.iter().find(|(value, _)| (*value - 1.0).abs() < 1e-9).expect("a 1.0 label").1;
    let offset = at_one - y_one;
    let (value, row) = labels.iter().find(|(value, _)| (*value - 1.0).abs() > 0.1).expect("another label");
    let per_pixel = (value - 1.0) / (row - offset - y_one);
    move |y: f64| 1.0 + (y - y_one) * per_pixel
}

#[test]
fn a_one_option_sweep_draws_each_points_ratio_where_its_report_puts_it() {
    let args = ["run", "--iterations", "3", "--format", "json", "--sweep", "size=64KiB,256KiB"];
    let (report, svg) = charted(&args, "sizes.svg");
    let value_at = y_scale(&svg);
    // The points, left to right: filled (an interval to read) or hollow and marked `?`.
    let mut drawn: Vec<(f64, f64)> = svg
        .split("<circle")
        .skip(1)
        .filter(|c| matches!(attribute(c, "r"), Some(4.0) | Some(5.0)))
        .filter_map(|c| Some((attribute(c, "cx")?, value_at(attribute(c, "cy")?))))
        .collect();
    drawn.sort_by(|a, b| a.0.total_cmp(&b.0));
    let points = report["points"].as_array().unwrap();
    assert_eq!(drawn.len(), points.len(), "a point per point: {drawn:?}");
    // In grid order (64KiB, then 256KiB), each at its rounds' ratio, to the
    // pixel (a few thousandths of the axis).
    for ((_, value), point) in drawn.iter().zip(points) {
        let expected = paired_geomean(&point["report"]["rounds"]);
        assert!(
            (value / expected - 1.0).abs() < 0.02,
            "{} drawn at {value}, its rounds give {expected}",
            point["point"]
        );
    }
    let hollow = svg.split("<circle").skip(1).filter(|c| attribute(c, "r") == Some(5.0)).count();
    let too_wide = points.iter().filter(|p| p["ratios"][0]["readable"] == false).count();
    assert_eq!(hollow, too_wide, "each point whose interval is too wide to read is hollow");
    assert_eq!(texts(&svg).iter().filter(|t| *t == "?").count(), too_wide, "and marked ?");
}
