use super::*;
use crate::transport::Phases;
use units::MIB;

fn round(transport: TransportKind, round: u32, elapsed_s: f64) -> RoundSample {
    RoundSample {
        transport,
        operation: Operation::Upload,
        round,
        elapsed_s,
        bytes: 64 * MIB,
        ok: true,
        cpu_s: 0.0,
        wire_bytes: 0,
        retransmitted_bytes: 0,
        host_cpu: None,
        span: Default::default(),
        paced: None,
        items: None,
        rounds_held: 1,
    }
}

/// An upload of 64 MiB taking `elapsed_s`; a failed one retried twice.
pub(crate) fn object(transport: TransportKind, elapsed_s: f64, ok: bool) -> ObjectSample {
    ObjectSample {
        host: String::new(),
        transport,
        operation: Operation::Upload,
        round: 0,
        worker: 0,
        object: "o".into(),
        bytes: 64 * MIB,
        start_s: 0.0,
        elapsed_s,
        ok,
        error: (!ok).then(|| "boom".into()),
        phases: Phases { session_s: None, transfer_s: elapsed_s * 0.9, finalize_s: elapsed_s * 0.1 },
        retries: if ok { 0 } else { 2 },
        resumes: 0,
        resent_bytes: 0,
        first_byte_s: None,
        unchecked: false,
        intended_s: None,
        ranges: None,
        flushes: None,
        read_back: None,
        error_kind: None,
        retried_after: Default::default(),
    }
}

/// The original tool's published run: 64 MiB rounds of 8.039, 8.513 and 8.829 s.
#[test]
fn the_original_tools_figures() {
    let json = TransportKind::Json;
    let rounds = [round(json, 0, 8.039), round(json, 1, 8.513), round(json, 2, 8.829)];
    let summary = summarize(json, Operation::Upload, 64 * MIB, &rounds, &[], Accounting::default());
    assert_eq!(summary.runs, 3);
    assert_eq!(summary.min_s, Some(8.039));
    assert_eq!(summary.median_s, Some(8.513));
    assert_eq!(format!("{:.2}", summary.mean_s.unwrap()), "8.46");
    assert_eq!(summary.max_s, Some(8.829));
    assert_eq!(format!("{:.2}", summary.throughput_mib_s.unwrap()), "7.56");
    // throughput = bytes/run / mean, as the original defined it.
    assert!((summary.throughput_mib_s.unwrap() - 64.0 / summary.mean_s.unwrap()).abs() < 1e-12);
}

#[test]
fn failed_rounds_are_not_timed_and_errors_are_counted() {
    let json = TransportKind::Json;
    // The failed round burnt CPU and sent bytes: none of it may reach the ratios.
    let bad = RoundSample { ok: false, bytes: 0, cpu_s: 9.0, wire_bytes: 900 * MIB, ..round(json, 1, 0.5) };
    let good = RoundSample { cpu_s: 0.25, wire_bytes: 65 * MIB, ..round(json, 0, 2.0) };
    let rounds = [good, bad, round(TransportKind::Grpc, 0, 1.0)];
    let failed = ObjectSample { round: 1, ..object(json, 0.5, false) };
    let objects = [object(json, 2.0, true), failed, object(TransportKind::Grpc, 1.0, true)];
    let summary = summarize_samples(json, Operation::Upload, 64 * MIB, &rounds, &objects, Accounting::default());
    assert_eq!((summary.runs, summary.objects, summary.errors, summary.retries), (1, 1, 1, 2));
    assert_eq!(summary.throughput_mib_s, Some(32.0));
    assert_eq!(summary.per_object_mib_s, Some(32.0), "64 MiB in 2 s");
    assert_eq!(summary.cpu_s, 0.25, "the complete round's CPU only");
    assert_eq!(summary.cpu_s_per_gib, Some(4.0), "0.25 s for the 64 MiB of that round");
    assert!((summary.wire_ratio.unwrap() - 65.0 / 64.0).abs() < 1e-12);
    assert!((summary.transfer_median_s.unwrap() - 1.8).abs() < 1e-12);
    assert!((summary.finalize_median_s.unwrap() - 0.2).abs() < 1e-12);
}

/// w1r3: uploads and reads of the same round index are separate rows and
/// separate verdicts; a read never pairs with an upload.
#[test]
fn each_operation_has_its_rows_and_its_own_verdict() {
    use TransportKind::{Grpc, Json};
    let read =
        |transport, i, elapsed_s| RoundSample { operation: Operation::Download, ..round(transport, i, elapsed_s) };
    let mut rounds = Vec::new();
    for i in 0..4 {
        // Uploads: gRPC twice as fast. Reads: JSON four times as fast.
        rounds.extend([round(Json, i, 2.0), round(Grpc, i, 1.0), read(Json, i, 0.5), read(Grpc, i, 2.0)]);
    }
    let summaries: Vec<TransportSummary> = [Operation::Upload, Operation::Download]
        .iter()
        .flat_map(|&op| [Json, Grpc].map(|t| summarize(t, op, 64 * MIB, &rounds, &[], Accounting::default())))
        .collect();
    assert_eq!(summaries[2].throughput_mib_s, Some(128.0), "JSON reads: 64 MiB in 0.5 s");
    assert_eq!(summaries[0].throughput_mib_s, Some(32.0), "JSON uploads: 64 MiB in 2 s");
    let verdicts = compare(&summaries, &rounds);
    let said: Vec<_> =
        verdicts.iter().map(|v| (v.operation, v.comparison.faster, v.comparison.pairs, v.comparison.percent)).collect();
    assert_eq!(
        said,
        [(Operation::Upload, Some(Grpc), 4, Some(100.0)), (Operation::Download, Some(Json), 4, Some(300.0))]
    );
    let ratios = engine::compare::paired_log_ratios_by_part(&rounds, Json, Grpc);
    assert_eq!(ratios, [vec![0.5f64.ln(); 4], vec![4f64.ln(); 4]], "pairs are made within a part");
}

#[test]
fn nothing_finished_means_no_figures_not_zeros() {
    let json = TransportKind::Json;
    let bad = RoundSample { ok: false, bytes: 0, cpu_s: 1.0, wire_bytes: MIB, ..round(json, 0, 0.5) };
    let summary = summarize_samples(
        json,
        Operation::Upload,
        64 * MIB,
        &[bad],
        &[object(json, 0.5, false)],
        Accounting::default(),
    );
    assert_eq!((summary.runs, summary.objects, summary.errors), (0, 0, 1));
    for figure in [
        summary.min_s,
        summary.median_s,
        summary.mean_s,
        summary.max_s,
        summary.p50_s,
        summary.throughput_mib_s,
        summary.per_object_mib_s,
        summary.objects_per_s,
        summary.session_median_s,
        summary.cpu_s_per_gib,
        summary.wire_ratio,
    ] {
        assert_eq!(figure, None);
    }
    assert_eq!((summary.cpu_s, summary.wire_bytes), (0.0, 0));
}

/// With retries, one object took 1.05 s (a 1 s back-off) and another 0.05 s:
/// the mean of their rates (~670 MiB/s) would contradict the aggregate
/// (~116 MiB/s); bytes over time, retries included, agrees with it.
#[test]
fn per_object_throughput_counts_retries_and_back_off() {
    let json = TransportKind::Json;
    let rounds = [round(json, 0, 0.05), round(json, 1, 1.05)];
    let slow = ObjectSample { round: 1, retries: 1, ..object(json, 1.05, true) };
    let objects = [object(json, 0.05, true), slow];
    let summary = summarize_samples(json, Operation::Upload, 64 * MIB, &rounds, &objects, Accounting::default());
    let aggregate = summary.throughput_mib_s.unwrap();
    assert!((aggregate - 128.0 / 1.1).abs() < 1e-9);
    assert!((summary.per_object_mib_s.unwrap() - aggregate).abs() < 1e-9, "concurrency 1: the same figure");
    assert!((summary.objects_per_s.unwrap() - 2.0 / 1.1).abs() < 1e-9);
}

#[test]
fn percentiles_come_from_object_times() {
    let json = TransportKind::Json;
    let objects: Vec<ObjectSample> = (1..=100).map(|i| object(json, i as f64 / 100.0, true)).collect();
    let summary = summarize_samples(json, Operation::Upload, MIB, &[], &objects, Accounting::default());
    assert!((summary.p50_s.unwrap() - 0.50).abs() < 0.001, "{:?}", summary.p50_s);
    assert!((summary.p90_s.unwrap() - 0.90).abs() < 0.001, "{:?}", summary.p90_s);
    assert!((summary.p99_s.unwrap() - 0.99).abs() < 0.001, "{:?}", summary.p99_s);
}

#[test]
fn medians_of_even_counts_average_the_middle() {
    assert_eq!(median(&[1.0, 2.0, 3.0, 10.0]), Some(2.5));
    assert_eq!(median(&[]), None);
}

#[test]
fn no_percentile_exceeds_the_slowest_of_the_same_data() {
    let json = TransportKind::Json;
    // One upload per round: 2.09 s lies in HDR's bucket [2,088,960, 2,091,007]
    // µs, whose top (2.091 s) was printed as "p50 2.10 s" beside "Max 2.09 s".
    let rounds = [round(json, 0, 2.09)];
    let objects = [object(json, 2.09, true)];
    let summary = summarize_samples(json, Operation::Upload, 64 * MIB, &rounds, &objects, Accounting::default());
    assert_eq!((summary.p50_s, summary.p99_s, summary.max_s), (Some(2.09), Some(2.09), Some(2.09)));
    // Many values: each percentile stays within a bucket of the exact one.
    let times: Vec<f64> = (1..=100).map(|i| 0.128 - f64::from(i) * 1e-5).collect();
    let objects: Vec<ObjectSample> = times.iter().map(|&t| object(json, t, true)).collect();
    let summary =
        summarize_samples(json, Operation::Upload, 64 * MIB, &[round(json, 0, 0.128)], &objects, Accounting::default());
    let slowest = times.iter().copied().fold(0.0, f64::max);
    assert!(summary.p90_s.unwrap() <= slowest && summary.p99_s.unwrap() <= slowest, "{summary:?}");
    assert!((summary.p99_s.unwrap() - 0.12799).abs() < 0.12799 * 1e-3, "p99 within 3 digits: {:?}", summary.p99_s);
}

#[test]
fn failures_and_retries_are_counted_by_kind() {
    let json = TransportKind::Json;
    let failed = |kind: &str| ObjectSample { error_kind: Some(kind.into()), ..object(json, 0.5, false) };
    let retried = ObjectSample {
        retries: 3,
        retried_after: [("HTTP 503".to_string(), 2), ("reset".to_string(), 1)].into(),
        ..object(json, 1.0, true)
    };
    let objects = [failed("HTTP 503"), failed("HTTP 503"), failed("reset"), retried];
    let summary = summarize_samples(json, Operation::Upload, 64 * MIB, &[], &objects, Accounting::default());
    assert_eq!(summary.error_kinds, [("HTTP 503".to_string(), 2), ("reset".to_string(), 1)].into());
    assert_eq!(summary.errors, 3);
    // The helper's failed samples claim 2 retries each but name no kind (a
    // real sample names one per retry): only the last one's count by kind.
    assert_eq!(summary.retried_after, [("HTTP 503".to_string(), 2), ("reset".to_string(), 1)].into());
}

#[test]
fn the_busy_share_is_of_the_complete_rounds_and_folded_rounds_keep_their_readings() {
    use engine::folded::Folds;
    use engine::host_cpu::HostCpu;
    let json = TransportKind::Json;
    let cpu = |busy_s: f64, process_s: f64| HostCpu { busy_s, all_s: 4.0, process_s, process_allowed_s: 4.0 };
    // Two complete rounds: the host 3 and 1 of 4 CPU-s busy, the process 1 and 0.5.
    let first = RoundSample { host_cpu: Some(cpu(3.0, 1.0)), ..round(json, 0, 2.0) };
    let second = RoundSample { host_cpu: Some(cpu(1.0, 0.5)), ..round(json, 1, 2.0) };
    // A failed round on an idle host: not among the rounds its figures divide.
    let failed = RoundSample { ok: false, host_cpu: Some(cpu(0.0, 0.0)), ..round(json, 2, 2.0) };
    let rounds = [first.clone(), second.clone(), failed];
    let summary = summarize(json, Operation::Upload, 64 * MIB, &rounds, &[], Accounting::default());
    // The host's (3 + 1) / 8 = 0.5 is busier than the process's 1.5 / 8.
    assert_eq!(summary.host_cpu_busy, Some(0.5));
    let mut folded = first.clone();
    folded.absorb(second);
    let added = HostCpu { busy_s: 4.0, all_s: 8.0, process_s: 1.5, process_allowed_s: 8.0 };
    assert_eq!(folded.host_cpu, Some(added), "two rounds held as one add up");
    let mut partly = first;
    partly.absorb(RoundSample { host_cpu: None, ..round(json, 1, 2.0) });
    assert_eq!(partly.host_cpu, None, "a reading of part of the rounds held is none");
    let unread = summarize(json, Operation::Upload, 64 * MIB, &[partly], &[], Accounting::default());
    assert_eq!(unread.host_cpu_busy, None);
}
