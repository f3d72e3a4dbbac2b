#[test]
fn retransmissions_and_retries_are_said_beside_the_wire_figure() {
    use crate::config::TransportKind::Json;
    use crate::stats::*;
    let round = RoundSample {
        transport: Json,
        operation: crate::stats::Operation::Upload,
        round: 0,
        elapsed_s: 1.0,
        bytes: 1 << 20,
        ok: true,
        cpu_s: 0.01,
        wire_bytes: 1_200_000,
        retransmitted_bytes: 120_000,
        host_cpu: None,
        span: Default::default(),
        paced: None,
        items: None,
        rounds_held: 1,
    };
    let object = ObjectSample {
        host: String::new(),
        transport: Json,
        operation: crate::stats::Operation::Upload,
        round: 0,
        worker: 0,
        object: "o".into(),
        bytes: 1 << 20,
        start_s: 0.0,
        elapsed_s: 1.0,
        ok: true,
        error: None,
        phases: crate::transport::Phases::default(),
        retries: 1,
        resumes: 0,
        resent_bytes: 65536,
        first_byte_s: None,
        unchecked: false,
        intended_s: None,
        ranges: None,
        flushes: None,
        read_back: None,
        error_kind: None,
        retried_after: Default::default(),
    };
    let t =
        summarize_samples(Json, crate::stats::Operation::Upload, 1 << 20, &[round], &[object], Accounting::default());
    let shown = super::Shown { unit: units::RateUnit::MiB, small: false, ranged: false };
    let line = &super::transport_lines("http-json", &t, shown)[0];
    assert!(
        line.contains("wire 1.144x payload (117 KiB of it TCP retransmissions) (retries handed over 64 KiB again)"),
        "{line}"
    );
}
