//! What the live pane says before the first run: how to start one, and
//! what the run will do.

use super::super::Theme;
use crate::tui::app::App;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

pub fn welcome(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let etcd = app.form.etcd();
    let w1r3 = !etcd && app.form.options.gcs.workload.trim() == "w1r3";
    let reads = w1r3 || (!etcd && app.form.options.gcs.workload.trim() == "download");
    // The form remembers its fields: say a remembered range, which changes what is read.
    let range = app.form.options.gcs.range_size.trim();
    let reads_what = if reads && !matches!(range, "" | "0") {
        format!(" Each read takes {range} of each object (Read range size, under advanced).")
    } else {
        String::new()
    };
    let first = match &app.form.checked {
        Ok(_) => Line::from(vec![
            Span::raw("Press "),
            Span::styled("r", theme.accent()),
            Span::raw(match (etcd, reads, w1r3) {
                (true, ..) => " to run against ",
                (false, _, true) => " to write to and read from ",
                (false, true, false) => " to read from ",
                (false, false, _) => " to upload to ",
            }),
            // "the built-in emulator", "the endpoint ...", but "gs://b on GCS".
            Span::raw(match super::super::target_label(app) {
                label if label.starts_with("gs://") || etcd => label,
                label => format!("the {label}"),
            }),
            Span::raw("."),
        ]),
        Err(error) => Line::styled(
            format!(
                "Fix the {} field (marked) to run: its sentence is below the form.",
                app.form.fields().iter().find(|f| f.key == error.field).map_or(error.field, |f| f.label)
            ),
            theme.error(),
        ),
    };
    // The hint follows the form: with a bucket (or an endpoint) set, it is
    // not "set the Bucket field".
    let gcs_hint = match (app.form.options.gcs.bucket.trim(), app.form.options.gcs.endpoint.trim()) {
        ("", "") => "Set the Bucket field for real GCS; ? lists the keys.",
        (_, "") => {
            "Runs go to that bucket on real GCS (clear the Bucket field for the built-in emulator); ? lists the keys."
        }
        _ => "Runs go to the JSON endpoint set under advanced; ? lists the keys.",
    };
    let (what, hint) = if etcd {
        (
            "Both transports send the same puts, ranges or watches in turn (HTTP gateway and gRPC, which goes first alternating by round); this pane shows their ops/s live, and the table below compares them when the run ends.",
            "Set Endpoints to the cluster's client URL, and User and Password if it has auth on; ? lists the keys.",
        )
    } else if w1r3 {
        (
            "Each round writes new objects and then reads each of them three times, on one transport and then the other; this pane shows their throughput live, and the table below compares uploads and reads, each with its own verdict.",
            gcs_hint,
        )
    } else if reads {
        (
            "The objects to read are uploaded first (not timed); then both transports read them in turn; this pane shows their throughput live, and the table below compares them when the run ends.",
            gcs_hint,
        )
    } else {
        (
            "Both transports upload the same payload in turn; this pane shows their throughput live, and the table below compares them when the run ends.",
            gcs_hint,
        )
    };
    let text = vec![first, Line::from(""), Line::from(format!("{what}{reads_what}")), Line::from(""), Line::from(hint)];
    let block = Block::bordered().title(" live ").padding(ratatui::widgets::Padding::horizontal(1));
    frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }).block(block), area);
}
