//! The report's table: its rows (a merged report's hosts, then its fleet)
//! and the lines under it that say each transport's protocol, wire, CPU
//! and phases.

use super::RunReport;
use crate::config::Workload;
use crate::stats::{Operation, TransportSummary};
use crate::transport::error_kind::format_kinds;
use engine::report::plural;
use units::{format_size, significant};

pub const TABLE_HEADERS: [&str; 12] =
    ["Transport", "Runs", "Bytes/run", "Min", "Median", "Mean", "Max", "p50", "p90", "p99", "Throughput", "Errors"];

/// A row's name: the transport, and what it did when a workload does two things.
pub fn row_name(t: &TransportSummary, workload: Workload) -> String {
    match workload {
        Workload::W1r3 => format!("{} {}", t.transport.name(), t.operation.name()),
        _ => t.transport.name().to_string(),
    }
}

/// The table's cells, shared by the text table and the TUI: a merged
/// report's hosts' rows first, then its fleet rows.
pub fn table_rows(report: &RunReport) -> Vec<Vec<String>> {
    table_lines(report).into_iter().map(|(_, cells)| cells).collect()
}

/// Each row's transport and cells.
pub fn table_lines(report: &RunReport) -> Vec<(crate::config::TransportKind, Vec<String>)> {
    let workload = report.config.workload;
    let unit = super::Shown::of(report);
    if report.hosts.is_empty() {
        return report.transports.iter().map(|t| (t.transport, row_cells(row_name(t, workload), t, unit))).collect();
    }
    let hosts = report.hosts.iter().flat_map(|h| {
        h.transports
            .iter()
            .map(move |t| (t.transport, row_cells(format!("{} {}", h.host, row_name(t, workload)), t, unit)))
    });
    let fleet =
        report.transports.iter().map(|t| (t.transport, row_cells(format!("fleet {}", row_name(t, workload)), t, unit)));
    hosts.chain(fleet).collect()
}

fn row_cells(name: String, t: &TransportSummary, shown: super::Shown) -> Vec<String> {
    let seconds = |s: Option<f64>| shown.time(s);
    vec![
        name,
        t.runs.to_string(),
        format_size(t.bytes_per_run),
        seconds(t.min_s),
        seconds(t.median_s),
        seconds(t.mean_s),
        seconds(t.max_s),
        seconds(t.p50_s),
        seconds(t.p90_s),
        seconds(t.p99_s),
        shown.rate(t),
        t.errors.to_string(),
    ]
}

/// Said for a wire figure a reset took with it.
pub(super) const WIRE_UNMEASURED: &str =
    "wire not measured (a connection closed mid-round, taking its last counts with it)";

/// One transport's protocol, connections, wire and CPU figures and phases,
/// each over the work it names; "no completed uploads" when there is none.
pub(super) fn transport_lines(name: &str, t: &TransportSummary, shown: super::Shown) -> Vec<String> {
    let noun = shown.item(t.operation);
    let items_per_s = if shown.ranged { "reads/s" } else { "objects/s" };
    let connections = match t.protocol.as_str() {
        "" => plural(t.connections as usize, "connection"),
        protocol => format!("{protocol}, {}", plural(t.connections as usize, "connection")),
    };
    let mut resent = String::new();
    if t.wire_retransmitted_bytes > 0 {
        // Loss on the path (or the kernel's tail-loss probes): part of the wire figure.
        resent += &format!(" ({} of it TCP retransmissions)", format_size(t.wire_retransmitted_bytes));
    }
    if t.wire_resent_bytes > 0 {
        // Not "of it": bytes a retry handed over again may never have left a
        // stalled connection, so they are said beside the wire figure.
        resent += &format!(" (retries handed over {} again)", format_size(t.wire_resent_bytes));
    }
    let (Some((wire, cpu)), Some(per_object)) = (shown.cost(t, &resent), t.per_object_mib_s) else {
        let finished = if t.objects == 0 {
            format!("no completed {noun}s")
        } else {
            format!("{} finished, but no complete round", plural(t.objects, noun))
        };
        let mut lines = vec![format!("{name}: {connections}, {finished}: no throughput, wire or CPU figures")];
        lines.extend(errors_line(t));
        return lines;
    };
    // Small objects: the rate per object is its latency, in the table already.
    let per = match shown.small {
        true => t.objects_per_s.map(|n| format!("{} {items_per_s}", significant(n, 4))).unwrap_or_default(),
        false => format!(
            "per {noun} {}{}",
            shown.unit.format(per_object),
            t.objects_per_s.map(|n| format!(", {} {items_per_s}", significant(n, 3))).unwrap_or_default()
        ),
    };
    let mut lines =
        vec![format!("{name}: {connections} · {}: {wire}, {cpu} · {per}", plural(t.runs, "complete round"))];
    let recovery = recovery_said(t);
    match t.operation {
        Operation::Download => lines.extend(read_lines(t, shown, &recovery.replace(" re-sent", " re-read"))),
        _ => lines.extend(upload_lines(t, shown, &recovery)),
    }
    lines
}

/// ` · 3 retries (after HTTP 503 x3), 0 resumes, 2 MiB re-sent`, or nothing
/// when every item went through at once.
fn recovery_said(t: &TransportSummary) -> String {
    if t.retries + t.resumes == 0 {
        return String::new();
    }
    let after = match format_kinds(&t.retried_after) {
        kinds if kinds.is_empty() => String::new(),
        kinds => format!(" (after {kinds})"),
    };
    format!(
        " · {}{after}, {}, {} re-sent",
        plural(t.retries as usize, "retry"),
        plural(t.resumes as usize, "resume"),
        format_size(t.resent_bytes)
    )
}

/// A read row's first-byte percentiles and transfer, its failures, and the
/// reads that could not be checked whole.
fn read_lines(t: &TransportSummary, shown: super::Shown, recovery: &str) -> Vec<String> {
    let seconds = |s: Option<f64>| shown.time(s);
    let mut lines = vec![format!(
        "  first byte p50 {} · p90 {} · p99 {} · transfer (median) {}{recovery}",
        seconds(t.first_byte_p50_s),
        seconds(t.first_byte_p90_s),
        seconds(t.first_byte_p99_s),
        seconds(t.transfer_median_s)
    )];
    lines.extend(errors_line(t));
    if t.unchecked_reads > 0 {
        lines.push(format!(
            "  {} of {} not checked whole: the server sent no crc32c of the object",
            t.unchecked_reads,
            plural(t.objects, "read")
        ));
    }
    lines
}

/// An upload row's median phases (no session for one request), its
/// failures, and the uploads whose length could not be checked.
fn upload_lines(t: &TransportSummary, shown: super::Shown, recovery: &str) -> Vec<String> {
    let seconds = |s: Option<f64>| shown.time(s);
    let session = match t.session_median_s {
        Some(session) => format!("session {} · ", seconds(Some(session))),
        None => "one request, no session · ".into(),
    };
    let mut lines = vec![format!(
        "  phases (median): {session}transfer {} · finalize {}{recovery}",
        seconds(t.transfer_median_s),
        seconds(t.finalize_median_s)
    )];
    lines.extend(errors_line(t));
    if t.unchecked_uploads > 0 {
        lines.push(format!(
            "  {} of {} not checked for length: the server's answer gave no size",
            t.unchecked_uploads,
            plural(t.objects, "upload")
        ));
    }
    lines
}

/// `  2 failed: HTTP 503 x2`: the failed items by kind, when any failed.
fn errors_line(t: &TransportSummary) -> Option<String> {
    (t.errors > 0).then(|| {
        let kinds = format_kinds(&t.error_kinds);
        let kinds = if kinds.is_empty() { String::new() } else { format!(": {kinds}") };
        format!("  {} failed{kinds}", plural(t.errors, t.operation.name()))
    })
}
