//! What a report of calls says of its transports, whichever target made
//! the calls: a table row, the costs per call, the failures, the ratios,
//! a CSV row per round, the figures `--fail-if` and sweeps read, and the
//! pictures' series. Each takes the words that are the target's (`put`,
//! `etcd CPU`).

use super::rounds::{CallRound, CallSummary};
use crate::compare::{Comparison, OpsRates, PairedRound};
use crate::error_kinds::format_kinds;
use crate::finished::{RatioFigure, RoundRate, RowCost};
use crate::open_loop::{OpenLoop, OpenLoopSummary, RoundLatency};
use crate::plan::TransportKind;
use crate::report::plural;
use crate::threshold::{Figure, Metric};

/// The verdict as a report of calls keeps it: the engine's, its rates in
/// calls (or events) per second, with the sentence its table prints.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Verdict {
    #[serde(flatten)]
    pub comparison: Comparison<OpsRates>,
    pub sentence: String,
}

impl Verdict {
    pub fn new(comparison: Comparison<OpsRates>, unit: units::RateUnit) -> Self {
        Verdict { sentence: comparison.sentence(unit), comparison }
    }
}

/// `0.731 ms`, `12.4 ms`: three significant digits down to a microsecond.
pub fn format_ms(ms: f64) -> String {
    match ms {
        ms if ms >= 100.0 => format!("{ms:.0} ms"),
        ms if ms >= 10.0 => format!("{ms:.1} ms"),
        ms if ms >= 1.0 => format!("{ms:.2} ms"),
        ms => format!("{ms:.3} ms"),
    }
}

/// The table's columns, the rate's header given (`Ops/s`, `Events/s`).
pub fn table_headers(rate: &'static str) -> [&'static str; 10] {
    ["Transport", "Protocol", "Rounds", rate, "p50", "p90", "p99", "p99.9", "Conns", "Errors"]
}

/// A transport's row of the table, under `name`.
pub fn row_cells(name: String, t: &CallSummary) -> Vec<String> {
    let ms = |v: Option<f64>| v.map(format_ms).unwrap_or_else(|| "-".into());
    vec![
        name,
        t.protocol.clone(),
        t.runs.to_string(),
        t.ops_per_s.map(|v| format!("{v:.0}")).unwrap_or_else(|| "-".into()),
        ms(t.latency.p50_ms),
        ms(t.latency.p90_ms),
        ms(t.latency.p99_ms),
        ms(t.latency.p999_ms),
        t.connections.to_string(),
        t.errors.to_string(),
    ]
}

/// `grpc: 196 B sent and 61 B received per op, client CPU 21 µs/op, etcd CPU 84 µs/op`:
/// `unit` is what a call is (`op`, `event`, `call`), `server` names the
/// server's CPU (`etcd CPU`; `None`: the target reads none), `unread` says
/// why a server CPU it reads is missing.
pub fn per_call_line(t: &CallSummary, unit: &str, server: Option<&str>, unread: &str) -> String {
    let (Some(sent), Some(received), Some(cpu)) = (t.wire_sent_per_op, t.wire_received_per_op, t.client_cpu_us_per_op)
    else {
        return format!("{}: no complete round: no wire or CPU figures", t.transport.name());
    };
    // Sizes and times in the unit that fits: 1 MiB values are not "1048712 B".
    let size = |bytes: f64| units::format_size(bytes.round() as u64);
    let time = |us: f64| units::format_latency(us / 1e6);
    let server = server.map_or(String::new(), |name| {
        let cpu = t.server_cpu_us_per_op.map_or(unread.into(), |s| format!("{}/{unit}", time(s)));
        format!(", {name} {cpu}")
    });
    format!(
        "{}: {} sent and {} received per {unit}, client CPU {}/{unit}{server}",
        t.transport.name(),
        size(sent),
        size(received),
        time(cpu)
    )
}

/// `grpc: 4 puts failed: INVALID_ARGUMENT x4`, when any failed (calls are
/// not retried: each failure is one call's); `what` is a call (`put`).
pub fn errors_line(t: &CallSummary, what: &str) -> Option<String> {
    (t.errors > 0).then(|| {
        let kinds = match format_kinds(&t.error_kinds) {
            kinds if kinds.is_empty() => String::new(),
            kinds => format!(": {kinds}"),
        };
        format!("{}: {} failed{kinds}", t.transport.name(), plural(t.errors as usize, what))
    })
}

/// How the first transport's costs compare with the second's, per call.
pub fn ratios_line(a: &CallSummary, b: &CallSummary, unit: &str, server: Option<&str>) -> Option<String> {
    let ratio =
        |x: Option<f64>, y: Option<f64>| x.zip(y).filter(|(_, y)| *y > 0.0).map(|(x, y)| format!("{:.2}x", x / y));
    let wire = |t: &CallSummary| t.wire_sent_per_op.zip(t.wire_received_per_op).map(|(s, r)| s + r);
    let mut parts = vec![
        ("bytes on the wire", ratio(wire(a), wire(b))),
        ("client CPU", ratio(a.client_cpu_us_per_op, b.client_cpu_us_per_op)),
    ];
    if let Some(server) = server {
        parts.push((server, ratio(a.server_cpu_us_per_op, b.server_cpu_us_per_op)));
    }
    let parts: Vec<String> = parts.into_iter().filter_map(|(what, r)| Some(format!("{what} {}", r?))).collect();
    (!parts.is_empty())
        .then(|| format!("per {unit}, {} vs {}: {}", a.transport.name(), b.transport.name(), parts.join(", ")))
}

/// The CSV columns every round has, before the target's own.
pub const ROUND_CSV_HEADER: &str = "transport,round,elapsed_s,ops,errors,error_kinds,ok,ops_per_s,p50_ms,p99_ms,cpu_s,server_cpu_s,wire_sent_bytes,wire_received_bytes,host,started_at,ended_at";

/// A round's fields under `ROUND_CSV_HEADER` (not yet CSV-quoted).
pub fn round_csv_fields(r: &CallRound) -> Vec<String> {
    let rate = r.rate().map(|v| format!("{v:.1}")).unwrap_or_default();
    let quantile =
        |q: f64| (!r.latency.is_empty()).then(|| format!("{:.3}", r.latency.value_at_quantile(q) as f64 / 1000.0));
    vec![
        r.transport.name().to_string(),
        (r.round + 1).to_string(),
        format!("{:.6}", r.elapsed_s),
        r.ops.to_string(),
        r.errors.to_string(),
        format_kinds(&r.error_kinds),
        r.ok.to_string(),
        rate,
        quantile(0.5).unwrap_or_default(),
        quantile(0.99).unwrap_or_default(),
        format!("{:.6}", r.cpu_s),
        r.server_cpu_s.map(|s| format!("{s:.6}")).unwrap_or_default(),
        r.wire_sent_bytes.to_string(),
        r.wire_received_bytes.to_string(),
        r.span.host.clone(),
        r.span.started_at.clone(),
        r.span.ended_at.clone(),
    ]
}

/// The figures `--fail-if` asks for: a row per transport, or the
/// gRPC/HTTP ratio of calls per second.
pub fn figures(transports: &[CallSummary], metric: Metric, transport: Option<TransportKind>) -> Vec<Figure> {
    if metric == Metric::Ratio {
        let rate = |kind| transports.iter().find(|t| t.transport == kind).map(|t| t.ops_per_s);
        return match (rate(TransportKind::Grpc), rate(TransportKind::Json)) {
            (Some(grpc), Some(json)) => {
                let ratio = grpc.zip(json).filter(|(_, json)| *json > 0.0).map(|(grpc, json)| grpc / json);
                vec![("grpc/http-json".to_string(), ratio)]
            }
            _ => Vec::new(),
        };
    }
    let seconds = |ms: Option<f64>| ms.map(|ms| ms / 1000.0);
    transports
        .iter()
        .filter(|t| transport.is_none_or(|kind| kind == t.transport))
        .map(|t| {
            let value = match metric {
                Metric::P50 => seconds(t.latency.p50_ms),
                Metric::P90 => seconds(t.latency.p90_ms),
                Metric::P99 => seconds(t.latency.p99_ms),
                Metric::Throughput => t.ops_per_s,
                Metric::Errors => Some(t.errors as f64),
                // Calls are never retried (a refused call is an error): none were.
                Metric::Retries => Some(0.0),
                Metric::Ratio => None,
            };
            (t.transport.name().to_string(), value)
        })
        .collect()
}

/// gRPC over HTTP/JSON, with the ratio's interval.
pub fn ratios(comparison: Option<&Comparison<OpsRates>>) -> Vec<RatioFigure> {
    let Some(comparison) = comparison else { return Vec::new() };
    let (ratio, interval) = comparison.grpc_over_json();
    vec![RatioFigure { name: "grpc/http-json".into(), ratio, interval, readable: comparison.readable() }]
}

/// Each row's client CPU per call and connections; rows named `TRANSPORT operation`.
pub fn costs(transports: &[CallSummary], operation: &str) -> Vec<RowCost> {
    transports
        .iter()
        .map(|t| RowCost {
            transport: t.transport,
            name: format!("{} {operation}", t.transport.name()),
            cpu: t.client_cpu_us_per_op.map(|us| format!("{} µs/op", units::significant(us, 3))),
            cpu_s_per_gib: None,
            cpu_us_per_item: t.client_cpu_us_per_op,
            connections: t.connections,
        })
        .collect()
}

/// Complete rounds' calls per second, by row (by host too in a fleet).
pub fn round_rates(rounds: &[CallRound], operation: &str, fleet: bool) -> Vec<RoundRate> {
    rounds
        .iter()
        .filter_map(|r| {
            let row = format!("{} {operation}", r.transport.name());
            let row = if fleet { format!("{} {row}", r.span.host) } else { row };
            Some(RoundRate { row, at_s: r.span.start_s, rate: r.rate()? })
        })
        .collect()
}

/// Each transport's latency histogram, µs (the rows without one left out).
pub fn latency_histograms(transports: &[CallSummary], operation: &str) -> Vec<(String, hdrhistogram::Histogram<u64>)> {
    transports
        .iter()
        .filter_map(|t| {
            let histogram = crate::histogram::decode(t.latency_histogram.as_deref()?).ok()?;
            Some((format!("{} {operation}", t.transport.name()), histogram))
        })
        .collect()
}

/// An open-loop run's latency figures and verdict over its paced rounds;
/// `work` names a call (`put`).
pub fn open_loop_summary(
    work: &str,
    offered: Option<&OpenLoop>,
    transports: &[TransportKind],
    rounds: &[CallRound],
) -> Option<OpenLoopSummary> {
    let paced: Vec<RoundLatency> = rounds
        .iter()
        .filter_map(|r| {
            Some(RoundLatency {
                host: &r.span.host,
                transport: r.transport,
                round: r.round,
                ok: r.ok,
                latency: &r.latency,
                paced: r.paced.as_ref()?,
            })
        })
        .collect();
    Some(crate::open_loop::summarize(work, offered?, transports, &paced))
}

/// A bidi stream's answers: `grpc: per message p50 1.20 ms, p99 3.40 ms
/// (800 answers, each from its call's start, when the whole stream is
/// sent, to its arrival)`.
pub fn messages_line(t: &CallSummary) -> Option<String> {
    let (latency, count) = (t.message_latency.as_ref()?, t.messages?);
    let ms = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.2} ms"));
    Some(format!(
        "{}: per message p50 {}, p99 {} ({count} answers, each from its call's start, when the whole stream is sent, to its arrival)",
        t.transport.name(),
        ms(latency.p50_ms),
        ms(latency.p99_ms)
    ))
}
